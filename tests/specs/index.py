"""Op-table rows for the index family: index_select/gather/take, scatter and the index_*
writes, masks, ``where`` and ``nonzero``.

Index inputs are int64 tensors that go through the same layout variants as the data
(transposed, step-sliced, expanded), with values from ``index_domain``/``unique_domain``;
the 0-d variant uses index 0. Ops whose result would depend on the order of writes to one
place (scatter with a tensor source, index_put without accumulate) get indices that never
repeat along the written dim; the accumulating ops (scatter_add, index_add, index_put with
accumulate) get repeated indices on purpose.
"""

from __future__ import annotations

import numpy as np

from specs.common import (
    ALL,
    F32,
    F64,
    I64,
    NO0D,
    NUM,
    B,
    const,
    first,
    index_domain,
    inplace_of,
    pairs,
    result_type,
    row,
    unique_domain,
)

NOT_BOOL = "where expected condition to be a boolean tensor, but got a tensor with dtype"
SCATTER_SRC = "Expected self.dtype to be equal to src.dtype"
I0 = index_domain(0, 1)  # the only valid index into a 0-d tensor


def spell(names, call, fn=True):
    """Forms ``call(F.name, *inputs)`` (unless fn=False) and the method ``x.name(...)``
    for each space-separated name; ``call(op, x, *rest)`` calls ``op(x, ...)``."""
    forms = {}
    for n in names.split():
        if fn:
            forms[n] = lambda F, *t, n=n: call(getattr(F, n), *t)
        forms["Tensor." + n] = lambda F, *t, n=n: call(
            lambda x, *a, **k: getattr(x, n)(*a, **k), *t)
    return forms


def with_index(dtypes=ALL, *rest):
    """Dtype combinations (data, int64 index, *rest) with ``rest`` following the data."""
    return tuple((d, I64) + tuple(d if r is None else r for r in rest) for d in dtypes)


def op_row(name, forms, ref, **kw):
    """A row whose results are new tensors of input 0's dtype (differentiable in the data
    operands unless said otherwise)."""
    kw.setdefault("rule", first)
    kw.setdefault("differentiable", True)
    return row(name, forms, ref, alias=False, **kw)


# --- NumPy references ------------------------------------------------------------------

def _grid(idx, dim):
    """Index arrays that address ``x[i0, ..., idx[i], ...]`` for every position of idx."""
    grid = list(np.indices(idx.shape, sparse=True))
    grid[dim] = idx
    return tuple(grid)


def gather_ref(dim):
    return lambda a, idx: a.copy() if a.ndim == 0 else a[_grid(idx, dim)]


def scatter_ref(dim, value=None, reduce=None):
    def ref(a, idx, src=None):
        out = a.copy()
        vals = value if src is None else src
        if out.ndim == 0:
            vals = np.asarray(vals)
            out[...] = vals if reduce is None else (
                out + vals if reduce == "add" else out * vals)
            return out
        if src is not None:
            vals = src[tuple(slice(0, n) for n in idx.shape)]
        key = _grid(idx, dim)
        vals = np.broadcast_to(np.asarray(vals, dtype=out.dtype), idx.shape)
        if reduce is None:
            out[key] = vals
        else:
            (np.add if reduce == "add" else np.multiply).at(out, key, vals)
        return out
    return ref


def index_add_ref(dim, alpha=1):
    def ref(a, idx, src):
        out = a.copy()
        vals = src if alpha == 1 else src * alpha
        if out.ndim == 0:
            return out + vals
        np.add.at(np.moveaxis(out, dim, 0), idx, np.moveaxis(vals, dim, 0))
        return out
    return ref


def index_fill_ref(dim, value):
    def ref(a, idx, *v):
        out = a.copy()
        fill = np.asarray(v[0] if v else value).astype(out.dtype)
        if out.ndim == 0:
            out[...] = fill
        else:
            np.moveaxis(out, dim, 0)[idx] = fill
        return out
    return ref


def index_put_ref(accumulate):
    def ref(a, *rest):
        *indices, values = rest
        out = a.copy()
        key = tuple(indices)
        vals = np.broadcast_to(values, out[key].shape)
        if accumulate:
            np.add.at(out, key, vals)
        else:
            out[key] = vals
        return out
    return ref


def masked_fill_ref(value):
    def ref(a, mask, *v):
        fill = np.asarray(v[0] if v else value).astype(a.dtype)
        return np.where(mask, fill, a)
    return ref


def masked_select_ref(a, mask):
    a, mask = np.broadcast_arrays(a, mask)
    return a[mask]


def masked_scatter_ref(a, mask, src):
    a, mask = np.broadcast_arrays(a, mask)
    out = a.copy()
    out[mask] = src.reshape(-1)[: int(mask.sum())]
    return out


def nonzero_tuple_ref(a):
    if a.ndim == 0:  # one index tensor of length 1 or 0
        return (np.zeros(int(a != 0), np.int64),)
    return np.nonzero(a)


# --- index_select / gather / take ----------------------------------------------------------

op_row("index_select", spell("index_select", lambda op, x, i: op(x, -1, i)),
       lambda a, i: a.copy() if a.ndim == 0 else np.take(a, i, axis=-1),
       shapes=((3, 4), (5,)), domains=("real", index_domain(0, 4)), dtypes=with_index(),
       layout_domains={"scalar": ("real", I0)})
op_row("index_select(dim=0)", spell("index_select", lambda op, x, i: op(x, 0, i)),
       lambda a, i: np.take(a, i, axis=0), shapes=((2, 3, 4), (4,)),
       domains=("real", index_domain(0, 2)), dtypes=with_index(), layouts=NO0D,
       layout_shapes={"zero_size": ((0, 3, 4), (0,))})
op_row("gather", spell("gather", lambda op, x, i: op(x, -1, i)), gather_ref(-1),
       shapes=((3, 4), (3, 6)), domains=("real", index_domain(0, 4)), dtypes=with_index(),
       layout_domains={"scalar": ("real", I0)})
op_row("gather(dim=0, smaller index)", spell("gather", lambda op, x, i: op(x, 0, i)),
       gather_ref(0), shapes=((3, 4), (5, 2)), domains=("real", index_domain(0, 3)),
       dtypes=with_index(), layouts=NO0D, layout_shapes={"zero_size": ((0, 4), (0, 2))})
op_row("take", spell("take", lambda op, x, i: op(x, i)), lambda a, i: a.reshape(-1)[i],
       shapes=((3, 4), (2, 5)), domains=("real", index_domain(-12, 12)), dtypes=with_index(),
       layout_domains={"scalar": ("real", index_domain(-1, 1))})

# --- scatter and the index_* writes (each with its in-place form) ---------------------------

_sc = op_row("scatter(src)", spell("scatter", lambda op, x, i, s: op(x, 0, i, s)),
             scatter_ref(0), shapes=((3, 4), (2, 4), (2, 5)),
             domains=("real", unique_domain(3), "real"), dtypes=with_index(ALL, None),
             layout_domains={"scalar": ("real", I0, "real")},
             errors=[((F32, I64, F64), RuntimeError, SCATTER_SRC),
                     ((I64, I64, F32), RuntimeError, SCATTER_SRC)])
inplace_of(_sc, spell("scatter_", lambda op, x, i, s: op(x, 0, i, s), fn=False))
for _v in (2.5, -3, True):
    _sv = op_row(f"scatter(value={_v!r})",
                 spell("scatter", lambda op, x, i, v=_v: op(x, 1, i, v)),
                 scatter_ref(1, value=_v), shapes=((3, 4), (3, 5)),
                 domains=("real", index_domain(0, 4)), dtypes=with_index(),
                 layouts=NO0D)
    inplace_of(_sv, {"Tensor.scatter_": lambda F, x, i, v=_v: x.scatter_(1, i, value=v)})
for _red in ("add", "multiply"):
    _sr = op_row(f"scatter(reduce={_red})",
                 spell("scatter", lambda op, x, i, s, r=_red: op(x, -1, i, s, reduce=r)),
                 scatter_ref(-1, reduce=_red), shapes=((3, 4), (3, 5), (3, 6)),
                 domains=("real", index_domain(0, 4), "real"), dtypes=with_index(ALL, None),
                 layout_domains={"scalar": ("real", I0, "real")}, specials=False)
    inplace_of(_sr, {"Tensor.scatter_":
                     lambda F, x, i, s, r=_red: x.scatter_(-1, i, s, reduce=r)})
_sa = op_row("scatter_add", spell("scatter_add", lambda op, x, i, s: op(x, -1, i, s)),
             scatter_ref(-1, reduce="add"), shapes=((3, 4), (3, 5), (3, 6)),
             domains=("real", index_domain(0, 4), "real"), dtypes=with_index(ALL, None),
             layout_domains={"scalar": ("real", I0, "real")},
             tol={F32: (1e-5, 1e-5)}, errors=[((F32, I64, F64), RuntimeError, SCATTER_SRC)])
inplace_of(_sa, spell("scatter_add_", lambda op, x, i, s: op(x, -1, i, s), fn=False))

_ia = op_row("index_add", spell("index_add", lambda op, x, i, s: op(x, 0, i, s)),
             index_add_ref(0), shapes=((3, 4), (5,), (5, 4)),
             domains=("real", index_domain(0, 3), "real"), dtypes=with_index(ALL, None),
             layout_domains={"scalar": ("real", I0, "real")}, tol={F32: (1e-5, 1e-5)},
             layout_shapes={"zero_size": ((0, 4), (0,), (0, 4))})
inplace_of(_ia, spell("index_add_", lambda op, x, i, s: op(x, 0, i, s), fn=False))
_iaa = op_row("index_add(alpha=2)",
              spell("index_add", lambda op, x, i, s: op(x, -1, i, s, alpha=2)),
              index_add_ref(-1, alpha=2), shapes=((3, 4), (6,), (3, 6)),
              domains=("real", index_domain(0, 4), "real"), dtypes=with_index(NUM, None),
              layouts=NO0D, tol={F32: (1e-5, 1e-5)})
inplace_of(_iaa, {"Tensor.index_add_": lambda F, x, i, s: x.index_add_(-1, i, s, alpha=2)})

for _v in (-2.5, 7, True):
    _if = op_row(f"index_fill({_v!r})", spell("index_fill", lambda op, x, i, v=_v: op(x, 1, i, v)),
                 index_fill_ref(1, _v), shapes=((3, 4), (3,)),
                 domains=("real", index_domain(-4, 4)), dtypes=with_index(), layouts=NO0D)
    inplace_of(_if, spell("index_fill_", lambda op, x, i, v=_v: op(x, 1, i, v), fn=False),
               overlap_ok=True)
_ift = op_row("index_fill(0-d tensor)", spell("index_fill", lambda op, x, i, v: op(x, 0, i, v)),
              index_fill_ref(0, None), shapes=((3, 4), (2,), ()),
              domains=("real", index_domain(0, 3), "real"), dtypes=with_index(ALL, None),
              layout_domains={"scalar": ("real", I0, "real")}, specials=False,
              layout_shapes={"zero_size": ((0, 4), (0,), ())})
inplace_of(_ift, {"Tensor.index_fill_": lambda F, x, i, v: x.index_fill_(0, i, v)},
           overlap_ok=True)

_ip = op_row("index_put", spell("index_put", lambda op, x, i, v: op(x, (i,), v)),
             index_put_ref(False), shapes=((3, 4), (2,), (4,)),
             domains=("real", unique_domain(3), "real"), dtypes=with_index(ALL, None),
             layouts=NO0D, layout_shapes={"zero_size": ((0, 4), (0,), (4,))},
             errors=[((F32, I64, F64), RuntimeError, "Index put requires the source and "
                      "destination dtypes match")])
inplace_of(_ip, spell("index_put_", lambda op, x, i, v: op(x, (i,), v)), overlap_ok=True)
_ipa = op_row("index_put(accumulate)",
              spell("index_put", lambda op, x, i, j, v: op(x, (i, j), v, accumulate=True)),
              index_put_ref(True), shapes=((3, 4), (6,), (6,), (6,)),
              domains=("real", index_domain(-3, 3), index_domain(-4, 4), "real"),
              dtypes=tuple((d, I64, I64, d) for d in ALL), layouts=NO0D,
              tol={F32: (1e-5, 1e-5)}, layout_shapes={"zero_size": ((0, 4), (0,), (0,), (0,))})
inplace_of(_ipa, spell("index_put_", lambda op, x, i, j, v: op(x, (i, j), v, True)),
           overlap_ok=True)

# --- masks ---------------------------------------------------------------------------------

for _v in (2.5, -3, False):
    _mf = op_row(f"masked_fill({_v!r})", spell("masked_fill", lambda op, x, m, v=_v: op(x, m, v)),
                 masked_fill_ref(_v), shapes=((3, 4), (4,)), dtypes=tuple((d, B) for d in ALL),
                 errors=[((F32, d), RuntimeError, "masked_fill_ only supports boolean masks")
                         for d in (I64, F32) if _v == 2.5])
    inplace_of(_mf, spell("masked_fill_", lambda op, x, m, v=_v: op(x, m, v), fn=False),
               overlap_ok=True)
_mft = op_row("masked_fill(0-d tensor)", spell("masked_fill", lambda op, x, m, v: op(x, m, v)),
              masked_fill_ref(None), shapes=((3, 4), (3, 1), ()),
              dtypes=tuple((d, B, v) for d, v in pairs(ALL)), specials=False)
inplace_of(_mft, {"Tensor.masked_fill_": lambda F, x, m, v: x.masked_fill_(m, v)},
           overlap_ok=True)
op_row("masked_fill(mask broadcasts self)",
       spell("masked_fill", lambda op, x, m: op(x, m, 1)), masked_fill_ref(1),
       shapes=((4,), (3, 4)), dtypes=tuple((d, B) for d in ALL))
op_row("masked_select", spell("masked_select", lambda op, x, m: op(x, m)), masked_select_ref,
       shapes=((3, 4), (4,)), dtypes=tuple((d, B) for d in ALL),
       errors=[((F32, I64), RuntimeError, "masked_select: expected BoolTensor for mask")])
op_row("masked_select(mask broadcasts self)",
       spell("masked_select", lambda op, x, m: op(x, m)), masked_select_ref,
       shapes=((4,), (3, 1)), dtypes=tuple((d, B) for d in ALL))
_ms = op_row("masked_scatter", spell("masked_scatter", lambda op, x, m, s: op(x, m, s)),
             masked_scatter_ref, shapes=((3, 4), (4,), (13,)),
             dtypes=tuple((d, B, d) for d in ALL),
             errors=[((F32, I64, F32), RuntimeError, "masked_scatter_ only supports boolean "
                      "masks"),
                     ((F32, B, F64), RuntimeError, "expected self and source to have same "
                      "dtypes")])
inplace_of(_ms, spell("masked_scatter_", lambda op, x, m, s: op(x, m, s), fn=False))

# --- where and nonzero -----------------------------------------------------------------------

def _values(ops):
    """where's result dtype: promotion over the two value operands (not the condition)."""
    return result_type(*ops[1:])


row("where", {"where": lambda F, c, x, y: F.where(c, x, y),
              "Tensor.where": lambda F, c, x, y: x.where(c, y)},
    lambda c, a, b: np.where(c, a, b), shapes=((3, 4), (4,), (3, 1)),
    dtypes=tuple((B, a, b) for a, b in pairs(ALL)), differentiable=True, rule=_values, alias=False,
    errors=[((d, F32, F32), RuntimeError, NOT_BOOL) for d in (I64, F32)])
row("where(0-d operands)", {"where": lambda F, c, x, y: F.where(c, x, y)},
    lambda c, a, b: np.where(c, a, b), shapes=((3, 4), (), (4,)),
    dtypes=tuple((B, a, b) for a, b in pairs(ALL)), differentiable=True, rule=_values)
row("where(c, x, 2.5)", {"where": lambda F, c, x: F.where(c, x, 2.5),
                         "Tensor.where": lambda F, c, x: x.where(c, 2.5)},
    lambda c, a: np.where(c, a, 2.5), shapes=((3, 4), (4,)), dtypes=tuple((B, d) for d in ALL),
    differentiable=True, rule=_values, scalars=(2.5,))
row("where(c, x, True)", {"where": lambda F, c, x: F.where(c, x, True),
                          "Tensor.where": lambda F, c, x: x.where(c, True)},
    lambda c, a: np.where(c, a, True), shapes=((3, 4), (4,)),
    dtypes=tuple((B, d) for d in ALL), differentiable=True, rule=_values, scalars=(True,))
row("where(c, 3, x)", {"where": lambda F, c, x: F.where(c, 3, x)},
    lambda c, a: np.where(c, 3, a), shapes=((3, 4), (4,)), dtypes=tuple((B, d) for d in ALL),
    differentiable=True, rule=_values, scalars=(3,))
for _label, _call, _ref, _scal in [
    ("where(c, 1, 2.5)", lambda F, c: F.where(c, 1, 2.5), lambda c: np.where(c, 1, 2.5), (1, 2.5)),
    ("where(c, 1, 2)", lambda F, c: F.where(c, 1, 2), lambda c: np.where(c, 1, 2), (1, 2)),
    ("where(c, True, False)", lambda F, c: F.where(c, True, False), lambda c: c.copy(),
     (True, False)),
]:
    row(_label, {"where": _call}, _ref, dtypes=((B,),), rule=_values, scalars=_scal)
row("where(condition)", {"where": lambda F, c: F.where(c),
                         "nonzero(as_tuple=True)": lambda F, c: F.nonzero(c, as_tuple=True),
                         "Tensor.nonzero": lambda F, c: c.nonzero(as_tuple=True)},
    nonzero_tuple_ref, shapes=((3, 4),), dtypes=((B,),), rule=const(I64), alias=False)
op_row("nonzero", {"nonzero": lambda F, x: F.nonzero(x), "Tensor.nonzero": lambda F, x: x.nonzero(),
                   "argwhere": lambda F, x: F.argwhere(x),
                   "Tensor.argwhere": lambda F, x: x.argwhere()},
       np.argwhere, rule=const(I64), domains=("halves",), differentiable=False)
op_row("nonzero(as_tuple=True)", {"Tensor.nonzero": lambda F, x: x.nonzero(as_tuple=True)},
       nonzero_tuple_ref, shapes=((2, 3, 4),), rule=const(I64), domains=("halves",),
       differentiable=False)
