"""Batching rules: for each op, how one call is recorded and how a group of calls runs.

A rule's ``record(graph, args, kwargs)`` looks at one call. When it can defer the call
it works out the per-example output shape and dtype and a *signature* (everything two
calls must share to run as one kernel) and returns the handle(s) from ``graph.add``.
Otherwise it returns ``NotImplemented`` and the caller runs the op eagerly on evaluated
inputs, so an unusual argument never changes a result: it only costs batching (and an
invalid one raises the op's own error, at the user's line).

``run(graph, nodes)`` gets the bucket's nodes (same signature, same depth) and returns
the batched result: the op applied once to ``(B, *shape)`` inputs. Pending inputs are
gathered with ``graph.gather``; a shared tensor (a weight) is passed once and broadcast;
a per-example ordinary tensor (a label) is stacked.
"""

from __future__ import annotations

from .. import _core
from ._graph import ARGS, DEPTH, DTYPE, SHAPE, Pending

Tensor = _core.Tensor
_stack = _core.stack
_cat = _core.cat
_FLOATS = frozenset({_core.float32, _core.float64, _core.float16, _core.bfloat16})
_NO_KWARGS: dict = {}   # shared by the records without keyword arguments; never written


def _broadcast(a, b):
    """The broadcast of two shapes, or None when they do not broadcast."""
    if a == b:
        return a
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=False):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)


def _lift(x, rank, out_rank):
    """A batched ``(B, *s)`` input with ``len(s) == rank`` reshaped so that it broadcasts
    against other operands as the per-example value did against a result of rank
    ``out_rank``: size-1 dims go between the batch dim and ``s``."""
    if rank >= out_rank:
        return x
    shape = tuple(x.shape)
    return x.reshape((shape[0],) + (1,) * (out_rank - rank) + shape[1:])


def _dim(d, rank):
    """A per-example dim (maybe negative) as a dim of the batched tensor, or None."""
    if not isinstance(d, int) or isinstance(d, bool):
        return None
    if d < 0:
        d += rank
    if d < 0 or d >= max(rank, 1):
        return None
    return d + 1


# operand kinds, the first item of an operand's signature part
PENDING, SHARED, OWN, NUMBER = 0, 1, 2, 3


class _Each:
    """An ordinary tensor that is an example's own input (stacked when the group runs),
    as opposed to one shared by every example (a parameter)."""

    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


def _shared(t):
    """Whether an ordinary tensor operand is shared by the examples rather than each
    example's own: a tensor that requires grad and is a leaf (a parameter)."""
    return t.requires_grad and t.is_leaf


def _operand(g, x, numbers=False):
    """(signature part, recorded arg, shape, dtype or None, depth) of one operand, or
    None when it is none of these kinds: ``PENDING`` (a pending tensor, recorded as its
    node), ``SHARED`` (an ordinary tensor shared by the examples, by identity),
    ``OWN`` (an example's own ordinary tensor, stacked when the group runs) and, when
    ``numbers``, ``NUMBER`` (a Python number, by value)."""
    t = type(x)
    if t is Pending:
        n = g.nodes[id(x)]
        return (PENDING, n[SHAPE], n[DTYPE]), n, n[SHAPE], n[DTYPE], n[DEPTH]
    if t is float or t is int:
        if not numbers:
            return None
        return (NUMBER, t, x), x, (), None, 0
    if isinstance(x, Tensor):
        s = tuple(x.shape)
        if _shared(x):
            return (SHARED, id(x)), x, s, x.dtype, 0
        return (OWN, s, x.dtype), _Each(x), s, x.dtype, 0
    return None


def _batch(g, xs):
    """The recorded operands ``xs`` of a group's nodes (one per node) as one value: the
    pending ones gathered, an example's own tensors stacked to ``(B, *shape)``; a shared
    tensor or a number is returned as it is (the same for every node)."""
    x = xs[0]
    t = type(x)
    if t is list:
        return g.gather(xs)
    if t is _Each:
        return _stack([e.t for e in xs])
    return x


def _rows(g, nodes, j):
    """Operand ``j`` of a group (see ``_batch``)."""
    return _batch(g, [n[ARGS][j] for n in nodes])


def _expanded(g, xs, shape):
    """``_batch`` with a shared tensor expanded to ``(B, *shape)`` too."""
    y = _batch(g, xs)
    if type(xs[0]) is list or type(xs[0]) is _Each:
        return y
    return y.unsqueeze(0).expand((len(xs),) + shape)


class Rule:
    name = "?"

    def __init__(self, name=None, fn=None):
        if name is not None:
            self.name = name
        self.fn = fn    # the op that runs a group (rules that call one function)

    def record(self, g, args, kwargs):  # pragma: no cover - every rule overrides it
        return NotImplemented

    def run(self, g, nodes, kw):  # pragma: no cover
        raise NotImplementedError


# --------------------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------------------
class Unary(Rule):
    """``fn(x, *scalars, **kw)`` applied elementwise to a float tensor (activations,
    ``exp``, ``tanh``, ...). ``inplace`` forms are not deferred."""

    def record(self, g, args, kwargs):
        if len(args) == 1 and not kwargs and type(args[0]) is Pending:
            n = g.nodes[id(args[0])]       # the common case first
            if n[DTYPE] in _FLOATS:
                return g.add(self, (self, n[SHAPE], n[DTYPE]), (n,), _NO_KWARGS, n[SHAPE],
                             n[DTYPE], n[DEPTH] + 1)
            return NotImplemented
        x = args[0] if args else kwargs.get("input")
        o = _operand(g, x)
        if o is None or o[3] not in _FLOATS or o[0][0] == SHARED:
            return NotImplemented
        extra = args[1:]
        if kwargs:
            if not args or kwargs.get("inplace") or "out" in kwargs:
                return NotImplemented
            for k, v in kwargs.items():
                if type(v) not in (int, float, bool) and not (
                        k == "approximate" and v in ("none", "tanh")):
                    return NotImplemented   # the eager call validates anything else
            kw = tuple(sorted(kwargs.items()))
        else:
            kw = ()
        for e in extra:
            if e is True or type(e) not in (int, float, bool):
                return NotImplemented  # F.relu(x, True) is in place; tensors, strings
        key = (self, o[0], extra, kw)
        return g.add(self, key, (o[1],) + extra, kwargs, o[2], o[3], o[4] + 1)

    def run(self, g, nodes, kw):
        n0 = nodes[0]
        return self.fn(_rows(g, nodes, 0), *n0[ARGS][1:], **kw)


class Binary(Rule):
    """An elementwise op of two operands, each a pending tensor, an ordinary tensor
    shared by the group (same object), or a Python number."""

    def __init__(self, name, fn, kw_ok=(), num_first=False, tensors_only=False):
        self.name = name
        self.fn = fn
        self.kw_ok = kw_ok
        self.num_first = num_first   # a Python number may come first (reflected operators)
        self.numbers = not tensors_only

    def record(self, g, args, kwargs):
        if len(args) != 2:
            return NotImplemented
        a, b = args
        if not kwargs and type(a) is Pending and type(b) is Pending:
            # the common case first: two pending operands of one shape and dtype
            nodes = g.nodes
            na = nodes[id(a)]
            nb = nodes[id(b)]
            s = na[SHAPE]
            dt = na[DTYPE]
            if s == nb[SHAPE] and dt == nb[DTYPE] and dt in _FLOATS:
                da = na[DEPTH]
                db = nb[DEPTH]
                return g.add(self, (self, s, dt), (na, nb), _NO_KWARGS, s, dt,
                             (da if da > db else db) + 1)
        if kwargs:
            for k in kwargs:
                if k not in self.kw_ok:
                    return NotImplemented
        oa = _operand(g, a, self.num_first and self.numbers)
        ob = _operand(g, b, self.numbers)
        if oa is None or ob is None:
            return NotImplemented
        if oa[0][0] in (SHARED, NUMBER) and ob[0][0] in (SHARED, NUMBER):
            return NotImplemented    # nothing differs between examples: run it now
        dtype = oa[3] if oa[3] is not None else ob[3]
        if dtype not in _FLOATS or (ob[3] is not None and ob[3] != dtype):
            return NotImplemented
        shape = _broadcast(oa[2], ob[2])
        if shape is None:
            return NotImplemented
        kw = tuple(sorted(kwargs.items())) if kwargs else ()
        key = (self, oa[0], ob[0], dtype, kw)
        return g.add(self, key, (oa[1], ob[1]), kwargs, shape, dtype,
                     (oa[4] if oa[4] > ob[4] else ob[4]) + 1)

    def run(self, g, nodes, kw):
        n0 = nodes[0]
        rank = len(n0[SHAPE])
        ops = []
        for j in (0, 1):
            x = n0[ARGS][j]
            y = _rows(g, nodes, j)
            if type(x) is list:
                y = _lift(y, len(x[SHAPE]), rank)
            elif type(x) is _Each:
                y = _lift(y, x.t.dim(), rank)
            ops.append(y)
        return self.fn(ops[0], ops[1], **kw)


def _flip(fn):
    return lambda a, b, **kw: fn(b, a, **kw)


# --------------------------------------------------------------------------------------
# linear algebra
# --------------------------------------------------------------------------------------
class Linear(Rule):
    """``F.linear(x, weight, bias)`` with ``x`` pending and the weight/bias shared."""

    name = "linear"

    def __init__(self, fn):
        self.fn = fn

    def record(self, g, args, kwargs):
        if kwargs:
            args = args + tuple(kwargs.get(k) for k in ("input", "weight", "bias")[len(args):]
                                if k in kwargs)
        if len(args) < 2:
            return NotImplemented
        x, w = args[0], args[1]
        b = args[2] if len(args) > 2 else None
        if type(w) is Pending or type(b) is Pending:
            return NotImplemented
        if not isinstance(w, Tensor) or (b is not None and not isinstance(b, Tensor)):
            return NotImplemented
        o = _operand(g, x)
        if o is None or o[0][0] == SHARED:
            return NotImplemented    # a shared input: nothing differs, it runs now
        d, rec, s, dtype, depth = o
        ws = w.shape
        if (len(ws) != 2 or not s or s[-1] != ws[1] or w.dtype != dtype
                or dtype not in _FLOATS):
            return NotImplemented
        if b is not None and (tuple(b.shape) != (ws[0],) or b.dtype != dtype):
            return NotImplemented     # the eager call checks (or broadcasts) the rest
        key = (self, d, id(w), id(b))
        return g.add(self, key, (rec, w, b), None, s[:-1] + (ws[0],), dtype, depth + 1)

    def run(self, g, nodes, kw):
        n0 = nodes[0]
        return self.fn(_rows(g, nodes, 0), n0[ARGS][1], n0[ARGS][2])


def _mm_shape(a, b):
    """The matmul of per-example shapes ``a @ b`` for the cases batching keeps exact."""
    if len(a) == 2 and len(b) == 2:
        return (a[0], b[1]) if a[1] == b[0] else None
    if len(a) == 1 and len(b) == 2:
        return (b[1],) if a[0] == b[0] else None
    return None


class Matmul(Rule):
    """``a @ b`` with 1-d/2-d per-example operands, one or both pending."""

    name = "matmul"

    def __init__(self, fn):
        self.fn = fn

    def record(self, g, args, kwargs):
        if kwargs or len(args) != 2:
            return NotImplemented
        oa = _operand(g, args[0])
        ob = _operand(g, args[1])
        if oa is None or ob is None:
            return NotImplemented
        ka, kb = oa[0][0], ob[0][0]
        if ka == SHARED and kb == SHARED:
            return NotImplemented    # nothing differs between examples: run it now
        sa, sb = oa[2], ob[2]
        if oa[3] != ob[3] or oa[3] not in _FLOATS:
            return NotImplemented
        # a 1-d per-example left operand only against a shared matrix (else matmul's
        # broadcasting of the batched operands would not be per example)
        if ka != SHARED and len(sa) == 1 and kb != SHARED:
            return NotImplemented
        shape = _mm_shape(sa, sb)
        if shape is None:
            return NotImplemented
        depth = (oa[4] if oa[4] > ob[4] else ob[4]) + 1
        key = (self, oa[0], ob[0], oa[3])
        return g.add(self, key, (oa[1], ob[1]), None, shape, oa[3], depth)

    def run(self, g, nodes, kw):
        return self.fn(_rows(g, nodes, 0), _rows(g, nodes, 1))


# --------------------------------------------------------------------------------------
# joining and splitting
# --------------------------------------------------------------------------------------
class Join(Rule):
    """``cat(tensors, dim)`` / ``stack(tensors, dim)`` of per-example tensors."""

    def __init__(self, name, fn, stack):
        self.name = name
        self.fn = fn
        self.stack = stack

    def record(self, g, args, kwargs):
        tensors = args[0] if args else kwargs.get("tensors")
        dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
        if len(args) > 2 or (kwargs and set(kwargs) - {"tensors", "dim"}):
            return NotImplemented
        if not isinstance(tensors, (list, tuple)) or not tensors:
            return NotImplemented
        descs = []
        recs = []
        shapes = []
        dtype = None
        depth = 0
        pending = False
        for t in tensors:
            o = _operand(g, t)
            if o is None:
                return NotImplemented
            d, r, s, dt, dp = o
            if dtype is None:
                dtype = dt
            elif dt != dtype:
                return NotImplemented
            pending = pending or d[0] == PENDING
            descs.append(d)
            recs.append(r)
            shapes.append(s)
            if dp > depth:
                depth = dp
        if not pending:
            return NotImplemented
        rank = len(shapes[0])
        for s in shapes:
            if len(s) != rank:
                return NotImplemented
        if self.stack:
            bd = _dim(dim, rank + 1)
            if bd is None:
                return NotImplemented
            for s in shapes:
                if s != shapes[0]:
                    return NotImplemented
            shape = shapes[0][:bd - 1] + (len(shapes),) + shapes[0][bd - 1:]
        else:
            bd = _dim(dim, rank)
            if bd is None or rank == 0:
                return NotImplemented
            d = bd - 1
            for s in shapes:
                if s[:d] != shapes[0][:d] or s[d + 1:] != shapes[0][d + 1:]:
                    return NotImplemented
            shape = shapes[0][:d] + (sum(s[d] for s in shapes),) + shapes[0][d + 1:]
        key = (self, tuple(descs), bd, dtype)
        return g.add(self, key, (tuple(recs), tuple(shapes)), bd, shape, dtype, depth + 1)

    def run(self, g, nodes, kw):
        n0 = nodes[0]
        recs, shapes = n0[ARGS]
        if len(recs) > 1 and all(type(x) is list for x in recs) and all(
                sh == shapes[0] for sh in shapes):
            return self._run_flat(g, nodes, kw, len(recs), shapes[0])
        parts = [_expanded(g, [n[ARGS][0][j] for n in nodes], shapes[j])
                 for j in range(len(recs))]
        return self.fn(parts, kw)

    def _run_flat(self, g, nodes, bd, count, shape):
        return _join_flat(g, nodes, bd, count, shape, self.stack)


def _join_flat(g, nodes, bd, count, shape, stack):
    """``Join.run`` when every part is pending and of one shape: the ``count * B`` values
    are gathered at once (part-major), then moved into place: two or three ops instead
    of one gather per part."""
    b = len(nodes)
    x = g.gather([n[ARGS][0][j] for j in range(count) for n in nodes])
    x = x.reshape((count, b) + shape).movedim(0, bd)      # (B, ..., count, ...)
    if stack:
        return x
    return x.reshape((b,) + shape[:bd - 1] + (count * shape[bd - 1],) + shape[bd:])


def _split_sizes(kind, size, arg):
    """The sizes the pieces of a dim of ``size`` get from chunk/split/unbind."""
    if kind == "unbind":
        return None
    if kind == "chunk":
        if not isinstance(arg, int) or arg <= 0:
            return None
        step = -(-size // arg) if size else 0
        if step == 0:
            return [0] * min(arg, 1) if size == 0 else None
        sizes = [step] * (size // step)
        if size % step:
            sizes.append(size % step)
        return sizes
    if isinstance(arg, int) and not isinstance(arg, bool):
        if arg <= 0:
            return None
        sizes = [arg] * (size // arg)
        if size % arg or not sizes:
            sizes.append(size % arg)
        return sizes
    if isinstance(arg, (list, tuple)) and all(isinstance(s, int) for s in arg):
        return list(arg) if sum(arg) == size else None
    return None


class Split(Rule):
    """``chunk``/``split``/``unbind``: several outputs, each a view of the batched input."""

    def __init__(self, kind):
        self.name = kind
        self.kind = kind

    def record(self, g, args, kwargs):
        if not args or type(args[0]) is not Pending:
            return NotImplemented
        x = args[0]
        n = g.nodes[id(x)]
        rest = args[1:]
        if self.kind == "unbind":
            arg = None
            dim = rest[0] if rest else kwargs.get("dim", 0)
            if len(rest) > 1 or (kwargs and set(kwargs) - {"dim"}):
                return NotImplemented
        else:
            name = "chunks" if self.kind == "chunk" else "split_size_or_sections"
            arg = rest[0] if rest else kwargs.get(name, kwargs.get("split_size"))
            dim = rest[1] if len(rest) > 1 else kwargs.get("dim", 0)
            if len(rest) > 2 or (kwargs and set(kwargs) - {name, "split_size", "dim"}):
                return NotImplemented
        rank = len(n[SHAPE])
        bd = _dim(dim, rank)
        if bd is None or rank == 0:
            return NotImplemented
        size = n[SHAPE][bd - 1]
        if self.kind == "unbind":
            shapes = [n[SHAPE][:bd - 1] + n[SHAPE][bd:]] * size
            sizes = None
        else:
            sizes = _split_sizes(self.kind, size, arg)
            if sizes is None:
                return NotImplemented
            shapes = [n[SHAPE][:bd - 1] + (s,) + n[SHAPE][bd:] for s in sizes]
        key = (self, n[SHAPE], n[DTYPE], bd, tuple(sizes) if sizes else None)
        return g.add_multi(self, key, (n,), (bd, sizes), shapes, n[DTYPE], n[DEPTH] + 1)

    def run(self, g, nodes, kw):
        bd, sizes = kw
        x = g.gather([n[ARGS][0] for n in nodes])
        if sizes is None:
            return x.unbind(bd)
        return x.split(sizes, bd)


# --------------------------------------------------------------------------------------
# views and reductions
# --------------------------------------------------------------------------------------
def _resolve_shape(shape, numel):
    """``view``/``reshape`` sizes with a -1 resolved, or None."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    out = []
    infer = -1
    known = 1
    for i, s in enumerate(shape):
        if not isinstance(s, int) or isinstance(s, bool):
            return None
        if s == -1:
            if infer >= 0:
                return None
            infer = i
            out.append(-1)
        elif s < 0:
            return None
        else:
            known *= s
            out.append(s)
    if infer >= 0:
        if known == 0 or numel % known:
            return None
        out[infer] = numel // known
    elif known != numel:
        return None
    return tuple(out)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class View(Rule):
    """``view``/``reshape``/``unsqueeze``/``squeeze``/``flatten``/``transpose``/
    ``permute``/``t``/``narrow``/``select`` of a pending tensor: the same op on the
    batched tensor with the dims shifted past the batch dim."""

    def __init__(self, kind):
        self.name = kind
        self.kind = kind

    def record(self, g, args, kwargs):
        if kwargs or not args or type(args[0]) is not Pending:
            return NotImplemented
        n = g.nodes[id(args[0])]
        s = n[SHAPE]
        rank = len(s)
        rest = args[1:]
        kind = self.kind
        if kind in ("view", "reshape"):
            shape = _resolve_shape(rest, _numel(s))
            if shape is None:
                return NotImplemented
            params = shape
        elif kind == "unsqueeze":
            if len(rest) != 1:
                return NotImplemented
            d = _dim(rest[0], rank + 1)
            if d is None:
                return NotImplemented
            shape = s[:d - 1] + (1,) + s[d - 1:]
            params = shape
        elif kind == "squeeze":
            if not rest:
                shape = tuple(v for v in s if v != 1)
            elif len(rest) == 1:
                d = _dim(rest[0], rank)
                if d is None:
                    return NotImplemented
                shape = s if s[d - 1] != 1 else s[:d - 1] + s[d:]
            else:
                return NotImplemented
            params = shape
        elif kind == "transpose":
            if len(rest) != 2:
                return NotImplemented
            d0, d1 = _dim(rest[0], rank), _dim(rest[1], rank)
            if d0 is None or d1 is None or rank == 0:
                return NotImplemented
            lst = list(s)
            lst[d0 - 1], lst[d1 - 1] = lst[d1 - 1], lst[d0 - 1]
            shape = tuple(lst)
            params = (d0, d1)
        elif kind == "t":
            if rest or rank > 2:
                return NotImplemented
            shape = s[::-1]
            params = (1, 2) if rank == 2 else None
        elif kind == "permute":
            dims = rest[0] if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else rest
            bds = [_dim(d, rank) for d in dims]
            if len(bds) != rank or None in bds or len(set(bds)) != rank:
                return NotImplemented
            shape = tuple(s[d - 1] for d in bds)
            params = (0, *bds)
        elif kind == "narrow":
            if len(rest) != 3:
                return NotImplemented
            d = _dim(rest[0], rank)
            start, length = rest[1], rest[2]
            if d is None or rank == 0 or not isinstance(start, int) or not isinstance(
                    length, int):
                return NotImplemented
            size = s[d - 1]
            if start < 0:
                start += size
            if start < 0 or length < 0 or start + length > size:
                return NotImplemented
            shape = s[:d - 1] + (length,) + s[d:]
            params = (d, start, length)
        elif kind == "select":
            if len(rest) != 2:
                return NotImplemented
            d = _dim(rest[0], rank)
            i = rest[1]
            if d is None or rank == 0 or not isinstance(i, int):
                return NotImplemented
            size = s[d - 1]
            if i < -size or i >= size:
                return NotImplemented
            shape = s[:d - 1] + s[d:]
            params = (d, i)
        else:
            return NotImplemented
        key = (self, s, n[DTYPE], params)
        return g.add(self, key, (n,), params, shape, n[DTYPE], n[DEPTH] + 1)

    def run(self, g, nodes, kw):
        x = g.gather([n[ARGS][0] for n in nodes])
        p = kw
        kind = self.kind
        if kind in ("view", "reshape", "unsqueeze", "squeeze"):
            return x.reshape((len(nodes),) + p)
        if kind == "transpose":
            return x.transpose(p[0], p[1])
        if kind == "t":
            return x if p is None else x.transpose(1, 2)
        if kind == "permute":
            return x.permute(p)
        if kind == "narrow":
            return x.narrow(p[0], p[1], p[2])
        return x.select(p[0], p[1])


class Reduce(Rule):
    """``sum``/``mean`` of a pending float tensor over all its dims or given ones."""

    def record(self, g, args, kwargs):
        if not args or type(args[0]) is not Pending:
            return NotImplemented
        n = g.nodes[id(args[0])]
        rest = args[1:]
        dim = rest[0] if rest else kwargs.get("dim")
        keepdim = rest[1] if len(rest) > 1 else kwargs.get("keepdim", False)
        if len(rest) > 2 or (kwargs and set(kwargs) - {"dim", "keepdim"}):
            return NotImplemented
        if n[DTYPE] not in _FLOATS or not isinstance(keepdim, bool):
            return NotImplemented
        s = n[SHAPE]
        rank = len(s)
        if rank == 0:
            return NotImplemented
        if dim is None:
            dims = tuple(range(1, rank + 1))
        else:
            ds = dim if isinstance(dim, (list, tuple)) else (dim,)
            dims = tuple(sorted({_dim(d, rank) for d in ds}))
            if not dims or None in dims or len(dims) != len(ds):
                return NotImplemented
        if keepdim:
            shape = tuple(1 if i + 1 in dims else v for i, v in enumerate(s))
        else:
            shape = tuple(v for i, v in enumerate(s) if i + 1 not in dims)
        key = (self, s, n[DTYPE], dims, keepdim)
        return g.add(self, key, (n,), (dims, keepdim), shape, n[DTYPE], n[DEPTH] + 1)

    def run(self, g, nodes, kw):
        dims, keepdim = kw
        x = g.gather([n[ARGS][0] for n in nodes])
        return self.fn(x, dims, keepdim)
