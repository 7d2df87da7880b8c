"""Op-table rows for joining (cat, stack and the *stack helpers), ``pad`` and the
shape-copy ops: flip, roll, repeat, tile, repeat_interleave, tril/triu and diagonals.

Joins take tensors of every dtype pair (the result promotes like the other binary ops);
the rest keep their input's dtype. Every result but ``diagonal``'s is a fresh tensor.
"""

from __future__ import annotations

import numpy as np

from specs.common import (
    ALL,
    F32,
    I64,
    LAYOUTS,
    NO0D,
    NONEMPTY,
    NUM,
    B,
    first,
    fm,
    index_domain,
    inplace_of,
    pairs,
    row,
    same,
    view,
)

PAIRS = tuple(pairs(ALL))


def op(name, forms, ref, **kw):
    """A shape-copy op: the input's dtype, never aliasing it."""
    kw.setdefault("layouts", NO0D)
    return view(name, forms, ref, alias=False, **kw)


def join(name, forms, ref, shapes, **kw):
    """A join of two tensors of every dtype pair (result dtype by promotion)."""
    kw.setdefault("layouts", NO0D)
    return row(name, forms, ref, shapes=shapes, dtypes=PAIRS, alias=False, differentiable=True,
               **kw)


def seq(*names, dim=None):
    """Forms ``F.name([x, y])`` (or ``F.name((x, y), dim)``) for each name."""
    if dim is None:
        return {n: lambda F, *t, n=n: getattr(F, n)(list(t)) for n in names}
    return {n: lambda F, *t, n=n: getattr(F, n)(tuple(t), dim) for n in names}


# --- NumPy references ------------------------------------------------------------------

def diag_embed_ref(offset=0, dim1=-2, dim2=-1):
    def ref(a):
        n = a.shape[-1] + abs(offset)
        out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
        i = np.arange(a.shape[-1])
        rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., rows, cols] = a
        # the two new dims sit last; move them to dim1/dim2 of the result
        nd = out.ndim
        return np.moveaxis(out, (nd - 2, nd - 1), (dim1 % nd, dim2 % nd))
    return ref


def pad_ref(pads, mode="constant", value=0):
    """PyTorch's pad pairs run from the last dim backwards. Negative pads crop, and the
    crop comes first: circular/reflect padding then wraps around the cropped tensor."""
    np_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}[mode]

    def ref(a):
        widths = [(0, 0)] * a.ndim
        for k in range(len(pads) // 2):
            widths[a.ndim - 1 - k] = (pads[2 * k], pads[2 * k + 1])
        a = a[tuple(slice(-min(lo, 0), a.shape[d] + min(hi, 0))
                    for d, (lo, hi) in enumerate(widths))]
        grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
        kw = {"constant_values": np.asarray(value).astype(a.dtype)} if mode == "constant" else {}
        return np.pad(a, grow, mode=np_mode, **kw)
    return ref


# --- flip, roll, repeat, tile, repeat_interleave --------------------------------------------

op("flip", {"flip": lambda F, x: F.flip(x, (0, -1)), "Tensor.flip": lambda F, x: x.flip(0, -1),
            "Tensor.flip(dims=)": lambda F, x: x.flip(dims=[0, -1])},
   lambda a: np.flip(a, (0, -1)), shapes=((2, 3, 4),))
op("flip(-1)", {"flip": lambda F, x: F.flip(x, [-1]), **fm("flip", -1, fn=False)},
   lambda a: a if a.ndim == 0 else np.flip(a, -1), layouts=LAYOUTS)
op("flip(())", fm("flip", ()), lambda a: a, layouts=LAYOUTS)
op("fliplr", fm("fliplr"), np.fliplr, shapes=((2, 3, 4),))
op("flipud", fm("flipud"), np.flipud)
op("flipud(1-d)", fm("flipud"), np.flipud, shapes=((5,),))
op("roll", fm("roll", 5), lambda a: np.roll(a, 5), layouts=LAYOUTS)
op("roll(dims)", {"roll": lambda F, x: F.roll(x, (1, -6), (0, -1)),
                  "Tensor.roll": lambda F, x: x.roll(shifts=(1, -6), dims=(0, -1))},
   lambda a: np.roll(a, (1, -6), (0, -1)))
op("roll(int dim)", fm("roll", -1, 1), lambda a: np.roll(a, -1, 1), shapes=((2, 3, 4),))
op("repeat", fm("repeat", 2, 1, 3, fn=False), lambda a: np.tile(a, (2, 1, 3)), layouts=LAYOUTS)
op("repeat(tuple)", fm("repeat", (2, 2), fn=False), lambda a: np.tile(a, (2, 2)))
op("tile", {"tile": lambda F, x: F.tile(x, (2,)), "Tensor.tile": lambda F, x: x.tile(2)},
   lambda a: np.tile(a, 2), layouts=LAYOUTS)
op("tile(more dims)", {"tile": lambda F, x: F.tile(x, (2, 1, 3)),
                       "Tensor.tile": lambda F, x: x.tile(dims=(2, 1, 3))},
   lambda a: np.tile(a, (2, 1, 3)), layouts=LAYOUTS)
op("repeat_interleave", fm("repeat_interleave", 2), lambda a: np.repeat(a, 2), layouts=LAYOUTS)
op("repeat_interleave(dim)", fm("repeat_interleave", 3, dim=-1),
   lambda a: np.repeat(a, 3, axis=-1))
row("repeat_interleave(tensor, dim)",
    {"repeat_interleave": lambda F, x, r: F.repeat_interleave(x, r, dim=0),
     "Tensor.repeat_interleave": lambda F, x, r: x.repeat_interleave(r, 0)},
    lambda a, r: np.repeat(a, r, axis=0), shapes=((3, 4), (3,)),
    domains=("real", index_domain(0, 3)), dtypes=tuple((d, I64) for d in ALL), rule=first,
    layouts=NO0D, alias=False, differentiable=True, layout_shapes={"zero_size": ((0, 4), (0,))},
    errors=[((I64, F32), NotImplementedError, "not implemented for 'Float'")])
row("repeat_interleave(repeats)", {"repeat_interleave": lambda F, r: F.repeat_interleave(r)},
    lambda r: np.repeat(np.arange(r.shape[0]), r), shapes=((5,),),
    domains=(index_domain(0, 4),), dtypes=((I64,),), rule=first, alias=False, layouts=NO0D)

# --- tril / triu and diagonals ------------------------------------------------------------

for _n, _ref in [("tril", np.tril), ("triu", np.triu)]:
    for _k in (0, 1, -2):
        _args = (_k,) if _k else ()
        _r = op(f"{_n}({_k})", fm(_n, *_args), lambda a, r=_ref, k=_k: r(a, k),
                shapes=((2, 3, 4),) if _k == 1 else ((3, 4),))
        inplace_of(_r, fm(_n + "_", *_args, fn=False), overlap_ok=True)
    op(f"{_n}(diagonal=)", {"Tensor." + _n: lambda F, x, n=_n: getattr(x, n)(diagonal=-1)},
       lambda a, r=_ref: r(a, -1), shapes=((4, 3),))

op("diag(2-d)", fm("diag"), np.diag)
op("diag(2-d, 1)", fm("diag", 1), lambda a: np.diag(a, 1))
op("diag(2-d, -2)", fm("diag", -2), lambda a: np.diag(a, -2), shapes=((4, 3),))
op("diag(1-d)", fm("diag"), np.diag, shapes=((4,),))
op("diag(1-d, -1)", fm("diag", diagonal=-1), lambda a: np.diag(a, -1), shapes=((3,),))
view("diagonal", fm("diagonal"), np.diagonal)
view("diagonal(offset)", fm("diagonal", 1), lambda a: np.diagonal(a, 1))
view("diagonal(3-d)", fm("diagonal", offset=-1, dim1=2, dim2=0),
     lambda a: np.diagonal(a, -1, 2, 0), shapes=((2, 3, 4),))
op("diag_embed", fm("diag_embed"), diag_embed_ref())
op("diag_embed(offset, dims)", fm("diag_embed", 1, 0, 2), diag_embed_ref(1, 0, 2))
op("diag_embed(-2)", fm("diag_embed", -2), diag_embed_ref(-2), shapes=((4,),))

# --- cat / stack and friends --------------------------------------------------------------------

join("cat", {"cat": lambda F, x, y: F.cat([x, y], -1),
             "concat": lambda F, x, y: F.concat((x, y), -1),
             "concatenate": lambda F, x, y: F.concatenate([x, y], dim=-1)},
     lambda a, b: np.concatenate([a, b], -1), ((3, 4), (3, 2)))
join("cat(dim=0)", seq("cat"), lambda a, b: np.concatenate([a, b]), ((3, 4), (2, 4)),
     layout_shapes={"zero_size": ((0, 4), (0, 4))})
join("cat(3 tensors)", {"cat": lambda F, x, y: F.cat([x, y, x], 1)},
     lambda a, b: np.concatenate([a, b, a], 1), ((2, 3, 4), (2, 1, 4)))
join("stack", seq("stack"), lambda a, b: np.stack([a, b]), ((3, 4), (3, 4)), layouts=LAYOUTS)
join("stack(dim=-1)", seq("stack", dim=-1), lambda a, b: np.stack([a, b], -1), ((3, 4), (3, 4)),
     layouts=LAYOUTS)
join("hstack", seq("hstack"), lambda a, b: np.hstack([a, b]), ((3, 4), (3, 2)), layouts=LAYOUTS)
join("hstack(1-d)", seq("hstack"), lambda a, b: np.hstack([a, b]), ((4,), (2,)))
join("vstack", seq("vstack", "row_stack"), lambda a, b: np.vstack([a, b]), ((3, 4), (2, 4)),
     layouts=LAYOUTS, layout_shapes={"zero_size": ((0, 4), (0, 4))})
join("vstack(1-d)", seq("vstack"), lambda a, b: np.vstack([a, b]), ((4,), (4,)),
     layout_shapes={"zero_size": ((0,), (0,))})
join("dstack", seq("dstack"), lambda a, b: np.dstack([a, b]), ((3, 4), (3, 4)), layouts=LAYOUTS)
join("column_stack", seq("column_stack"), lambda a, b: np.column_stack([a, b]), ((3,), (3, 2)),
     layouts=LAYOUTS, layout_shapes={"zero_size": ((0,), (0, 2))})

# --- pad -----------------------------------------------------------------------------------------

NOT_BOOL_PAD = [((B,), NotImplementedError, "not implemented for 'Bool'")]
for _pads, _kw, _shape in [((1, 2), {}, (3, 4)), ((1, 0, 2, 1), {"value": 2.5}, (3, 4)),
                           ((0, 1, 1, 0, 2, 0), {"value": True}, (2, 3, 4)),
                           ((-1, 2), {"value": -1}, (3, 4)), ((2, -2, 0, -1), {}, (3, 4))]:
    op(f"pad{_pads}{'' if not _kw else ', ' + repr(_kw)}",
       {"pad": lambda F, x, p=_pads, k=_kw: F.pad(x, p, **k)},
       pad_ref(_pads, value=_kw.get("value", 0)), shapes=(_shape,),
       # (cropping a dim of size 0 is an error)
       layouts=NO0D if min(_pads[2:] or (0,)) >= 0 else NONEMPTY[:-1])
for _mode in ("reflect", "replicate", "circular"):
    # PyTorch reads a 2-d input as (channels, width) and a 3-d one as (C, H, W)
    op(f"pad({_mode})", {"pad": lambda F, x, m=_mode: F.pad(x, (1, 2), mode=m)},
       pad_ref((1, 2), _mode), layouts=("contiguous", "transposed", "strided", "broadcast"),
       dtypes=same(ALL if _mode == "circular" else NUM),
       errors=NOT_BOOL_PAD if _mode != "circular" else ())
    op(f"pad({_mode}, 2-d)", {"pad": lambda F, x, m=_mode: F.pad(x, (2, 0, 1, 1), mode=m)},
       pad_ref((2, 0, 1, 1), _mode), shapes=((2, 3, 4),),
       # (only a batch dim may be 0 for the non-constant modes)
       layout_shapes={"zero_size": ((0, 2, 3, 4),)},
       dtypes=same(ALL if _mode == "circular" else NUM),
       errors=NOT_BOOL_PAD if _mode != "circular" else ())
op("pad(circular, negative)", {"pad": lambda F, x: F.pad(x, (-1, 2), mode="circular")},
   pad_ref((-1, 2), "circular"), layouts=("contiguous", "transposed", "strided", "broadcast"))
