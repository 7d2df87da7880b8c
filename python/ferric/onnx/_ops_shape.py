"""ONNX handlers of shape ops: views, joins, splits, indexing and the factories.

Sizes may be traced (:class:`~ferric.onnx._trace.SymInt`, under ``dynamic_axes``):
shapes are then built at run time from ``Shape`` outputs, so the graph stays valid for
other sizes of the dynamic axes. Split sizes are taken from the example run.
"""

from __future__ import annotations

import numpy as np

from ._graph import INT64_MAX
from ._ops_tensor import _dim, dt, reg
from ._trace import SymInt
from .errors import UnsupportedOperatorError


def _sizes(args):
    """``view(2, 3)``, ``view((2, 3))`` and ``view(ferric.Size([2, 3]))`` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return list(args[0])
    return list(args)


@reg("view", "reshape")
def reshape(s, out, input, *shape, **kwargs):
    if not shape and "shape" in kwargs:
        shape = (kwargs["shape"],)
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):  # view(dtype)
        raise UnsupportedOperatorError("Tensor.view(dtype)", s.g.opset)
    return s.g.op("Reshape", [s.value(input), s.shape_value(_sizes(shape))])


@reg("view_as", "reshape_as")
def reshape_as(s, out, input, other):
    g = s.g
    return g.op("Reshape", [s.value(input), g.shape_of(s.value(other))])


@reg("flatten")
def flatten(s, out, input, start_dim=0, end_dim=-1):
    g = s.g
    rank = input.dim()
    if rank == 0:
        return g.op("Reshape", [s.value(input), g.i64([1])])
    a, b = _dim(start_dim, rank), _dim(end_dim, rank)
    x = s.value(input)
    if a == b:
        return g.op("Identity", [x])
    if b == rank - 1:
        return g.op("Reshape", [x, g.i64([0] * a + [-1])])
    parts = [g.shape_of(x, 0, a)] if a > 0 else []
    parts += [g.i64([-1]), g.shape_of(x, b + 1, rank)]
    return g.op("Reshape", [x, g.op("Concat", parts, axis=0)])


@reg("unflatten")
def unflatten(s, out, input, dim, sizes):
    g = s.g
    rank = input.dim()
    d = _dim(dim, rank)
    x = s.value(input)
    parts = [g.shape_of(x, 0, d)] if d > 0 else []
    parts.append(s.shape_value(list(sizes)))
    if d + 1 < rank:
        parts.append(g.shape_of(x, d + 1, rank))
    return g.op("Reshape", [x, g.op("Concat", parts, axis=0)])


@reg("permute")
def permute(s, out, input, *dims, **kwargs):
    dims = _sizes(dims) if dims else list(kwargs["dims"])
    rank = input.dim()
    return s.g.op("Transpose", [s.value(input)], perm=[_dim(d, rank) for d in dims])


def _swap(s, input, a, b):
    rank = input.dim()
    perm = list(range(rank))
    a, b = _dim(a, rank), _dim(b, rank)
    perm[a], perm[b] = perm[b], perm[a]
    return s.g.op("Transpose", [s.value(input)], perm=perm)


@reg("transpose", "swapaxes", "swapdims")
def transpose(s, out, input, dim0, dim1):
    return _swap(s, input, dim0, dim1)


@reg("t")
def t(s, out, input):
    if input.dim() < 2:
        return s.g.op("Identity", [s.value(input)])
    return _swap(s, input, 0, 1)


@reg("T")
def big_t(s, out, input):
    return s.g.op("Transpose", [s.value(input)], perm=list(range(input.dim()))[::-1])


@reg("mT")
def m_t(s, out, input):
    return _swap(s, input, -2, -1)


@reg("movedim", "moveaxis")
def movedim(s, out, input, source, destination):
    rank = input.dim()
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src, dst = [_dim(d, rank) for d in src], [_dim(d, rank) for d in dst]
    perm = [None] * rank
    for a, b in zip(src, dst, strict=True):
        perm[b] = a
    rest = iter(d for d in range(rank) if d not in src)
    perm = [p if p is not None else next(rest) for p in perm]
    return s.g.op("Transpose", [s.value(input)], perm=perm)


@reg("squeeze")
def squeeze(s, out, input, dim=None):
    g = s.g
    shape = input.shape
    if dim is None:
        axes = [i for i, n in enumerate(shape) if n == 1]
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        axes = [_dim(d, max(input.dim(), 1)) for d in dims]
        axes = [a for a in axes if a < len(shape) and shape[a] == 1]
    if not axes:
        return g.op("Identity", [s.value(input)])
    return g.squeeze(s.value(input), sorted(axes))


@reg("unsqueeze")
def unsqueeze(s, out, input, dim):
    return s.g.unsqueeze(s.value(input), [_dim(dim, input.dim() + 1)])


@reg("cat", "concat", "concatenate")
def cat(s, out, tensors, dim=0, **kwargs):
    dim = kwargs.get("axis", dim)
    d = dt(out)
    items = [x for x in tensors if not (x.dim() == 1 and x.shape[0] == 0)]
    names = [s.value(x, d) for x in items]
    if len(names) == 1:
        return s.g.op("Identity", names)
    return s.g.op("Concat", names, axis=_dim(dim, out.dim()))


@reg("stack")
def stack(s, out, tensors, dim=0):
    g, d = s.g, dt(out)
    axis = _dim(dim, out.dim())
    parts = [g.unsqueeze(s.value(x, d), [axis]) for x in tensors]
    return parts[0] if len(parts) == 1 else g.op("Concat", parts, axis=axis)


@reg("hstack", "vstack")
def hvstack(s, out, tensors):
    axis = 1 if s.current == "hstack" and tensors[0].dim() > 1 else 0
    return cat(s, out, tensors, axis)


def _split_by_sizes(s, input, sizes, axis):
    g = s.g
    if len(sizes) == 1:
        return [g.op("Identity", [s.value(input)])]
    return g.op("Split", [s.value(input), g.i64(sizes)], outputs=len(sizes), axis=axis)


@reg("split", "split_with_sizes", "tensor_split_sizes")
def split(s, out, input, split_size_or_sections, dim=0):
    axis = _dim(dim, input.dim())
    return _split_by_sizes(s, input, [int(o.shape[axis]) for o in out], axis)


@reg("chunk")
def chunk(s, out, input, chunks, dim=0):
    return split(s, out, input, None, dim)


@reg("unbind")
def unbind(s, out, input, dim=0):
    g = s.g
    axis = _dim(dim, input.dim())
    parts = _split_by_sizes(s, input, [1] * len(out), axis)
    return [g.squeeze(p, [axis]) for p in parts]


@reg("__iter__")
def iterate(s, out, input):
    return unbind(s, out, input, 0)


@reg("narrow")
def narrow(s, out, input, dim, start, length):
    g = s.g
    axis = _dim(dim, input.dim())
    if isinstance(start, SymInt) or isinstance(length, SymInt):
        begin = s.dim_value(start)
        end = g.op("Add", [begin, s.dim_value(length)])
        return g.op("Slice", [s.value(input), begin, end, g.i64([axis])])
    start = int(start) + (input.shape[axis] if start < 0 else 0)
    return g.slice(s.value(input), axis, start, start + int(length))


@reg("select")
def select(s, out, input, dim, index):
    g = s.g
    idx = g.scalar(int(index), np.int64) if not isinstance(index, SymInt) else s.value(index)
    return g.op("Gather", [s.value(input), idx], axis=_dim(dim, input.dim()))


@reg("expand")
def expand(s, out, input, *sizes, **kwargs):
    sizes = _sizes(sizes) if sizes else list(kwargs["size"])
    # -1 keeps a size; ONNX Expand broadcasts, so 1 does the same
    sizes = [1 if (not isinstance(n, SymInt) and n == -1) else n for n in sizes]
    return s.g.op("Expand", [s.value(input), s.shape_value(sizes)])


@reg("expand_as", "broadcast_to")
def expand_as(s, out, input, other):
    g = s.g
    if isinstance(other, (tuple, list)):
        return expand(s, out, input, other)
    return g.op("Expand", [s.value(input), g.shape_of(s.value(other))])


@reg("repeat", "tile")
def repeat(s, out, input, *sizes):
    g = s.g
    reps = _sizes(sizes)
    x = s.value(input)
    extra = len(reps) - input.dim()
    if extra > 0:
        x = g.unsqueeze(x, list(range(extra)))
    elif extra < 0:  # tile: missing leading reps are 1
        reps = [1] * -extra + reps
    return g.op("Tile", [x, s.shape_value(reps)])


@reg("flip")
def flip(s, out, input, *dims):
    g = s.g
    x = s.value(input)
    for d in _sizes(dims):
        axis = _dim(d, input.dim())
        x = g.slice(x, axis, -1, -INT64_MAX, -1)
    return x


@reg("tril", "triu")
def trilu(s, out, input, diagonal=0):
    g = s.g
    if g.opset < 14:
        raise UnsupportedOperatorError(s.current, g.opset, "ONNX Trilu needs opset 14")
    return g.op("Trilu", [s.value(input), g.scalar(int(diagonal), np.int64)],
                upper=int(s.current == "triu"))


@reg("gather", "take_along_dim")
def gather(s, out, input, dim, index, **kwargs):
    return s.g.op("GatherElements", [s.value(input), s.value(index, np.int64)],
                  axis=_dim(dim, input.dim()))


@reg("index_select")
def index_select(s, out, input, dim, index):
    return s.g.op("Gather", [s.value(input), s.value(index, np.int64)],
                  axis=_dim(dim, input.dim()))


# -------------------------------------------------------------------- indexing


@reg("__getitem__")
def getitem(s, out, input, index):
    g = s.g
    items = list(index) if isinstance(index, tuple) else [index]
    x = s.value(input)
    rank = input.dim()
    used = sum(1 for i in items if i is not None and i is not Ellipsis and not
               (hasattr(i, "dtype") and str(i.dtype).endswith("bool")))
    axis = 0  # the current axis of ``x``
    tensor_seen = False
    for it in items:
        if it is Ellipsis:
            axis += rank - used
            rank = -1  # a second Ellipsis is refused by the eager run already
        elif it is None:
            x = g.unsqueeze(x, [axis])
            axis += 1
        elif isinstance(it, slice):
            if it.step is not None and it.step <= 0:
                raise UnsupportedOperatorError("__getitem__ with a non-positive step",
                                               g.opset)
            if it != slice(None):
                start = 0 if it.start is None else it.start
                stop = INT64_MAX if it.stop is None else it.stop
                if isinstance(start, SymInt) or isinstance(stop, SymInt):
                    x = g.op("Slice", [x, s.dim_value(start), s.dim_value(stop),
                                       g.i64([axis]), g.i64([it.step or 1])])
                else:
                    x = g.slice(x, axis, int(start), int(stop), it.step or 1)
            axis += 1
        elif isinstance(it, int):
            idx = s.value(it, np.int64) if isinstance(it, SymInt) \
                else g.scalar(int(it), np.int64)
            x = g.op("Gather", [x, idx], axis=axis)
        elif isinstance(it, (list, tuple)) or hasattr(it, "dtype"):
            if tensor_seen or (hasattr(it, "dtype") and str(it.dtype).endswith("bool")):
                raise UnsupportedOperatorError(
                    "__getitem__ with boolean masks or several tensor indices "
                    "(data-dependent shapes)", g.opset)
            tensor_seen = True
            idx = s.value(it, np.int64) if hasattr(it, "dtype") \
                else g.i64([int(v) for v in it])
            x = g.op("Gather", [x, idx], axis=axis)
            axis += 1 if not hasattr(it, "dim") else it.dim()
        else:
            raise UnsupportedOperatorError(f"__getitem__ with {type(it).__name__}", g.opset)
    return x


# -------------------------------------------------------------------- factories


def _filled(s, out, shape_name, value):
    g = s.g
    d = dt(out)
    cst = s.g.onnx.numpy_helper.from_array(np.asarray([value], dtype=d))
    return g.op("ConstantOfShape", [shape_name], value=cst)


@reg("zeros", "ones", "empty", "full", "new_zeros", "new_ones", "new_empty", "new_full")
def factory(s, out, *args, **kwargs):
    name = s.current
    if name.startswith("new_"):
        args = args[1:]
        name = name[4:]
    if name == "full":
        size = kwargs.get("size", args[0] if args else None)
        value = kwargs.get("fill_value", args[1] if len(args) > 1 else None)
    else:
        size = kwargs.get("size", _sizes(args))
        value = 1 if name == "ones" else 0
    return _filled(s, out, s.shape_value(list(size)), value)


@reg("zeros_like", "ones_like", "empty_like", "full_like")
def factory_like(s, out, input, fill_value=None, **kwargs):
    value = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(s.current, fill_value)
    return _filled(s, out, s.g.shape_of(s.value(input)), value)


@reg("arange")
def arange(s, out, start, end=None, step=1, **kwargs):
    g, d = s.g, dt(out)
    if end is None:
        start, end = 0, start
    return g.op("Range", [s.value(start, d), s.value(end, d), s.value(step, d)])
