"""Shape and index utilities composed from ferric's differentiable ops (``meshgrid``,
``kron``, ``diff``, ``rot90``, ``tensordot``, ``cross``, ``cdist``, ...).

Each is built from views, ``cat``, ``gather``, ``matmul`` and elementwise ops that carry
their own backward rules, so these need none; the checks and messages are PyTorch's.
"""

from __future__ import annotations

import functools
import itertools
import warnings

from . import _core
from ._core import Tensor
from ._functions import broadcast_shapes, broadcast_tensors
from ._special_functions import _takes_out


def _records(node: str):
    """Decorator for an op composed of other ops that PyTorch computes with a backward node
    of its own: the result passes through a node of PyTorch's name (``_core._named_node``,
    which forwards the gradient unchanged), so ``out.grad_fn`` reads as in PyTorch."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            return _core._named_node(fn(*args, **kwargs), node)
        return call
    return wrap

_TORCH_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "float16": "Half", "bfloat16": "BFloat16"}


def _tname(dtype) -> str:
    """PyTorch's scalar-type name of ``dtype`` (``Float``, ``Long``, ...)."""
    return _TORCH_NAMES.get(str(dtype).split(".")[-1], str(dtype))


def _infer_size(a, b) -> list:
    """The broadcast shape of ``a`` and ``b`` with PyTorch's message when they do not
    broadcast (``a`` and ``b`` named as the op's first and second tensor)."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        x = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        y = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return out


def _wrap_dim(dim: int, ndim: int) -> int:
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim % max(ndim, 1)


def _tensors(args) -> list:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids of 0-d or 1-d tensors: output ``i`` varies along dim ``i``
    (``indexing="ij"``) or, for ``"xy"``, the first two dims are swapped (NumPy's
    Cartesian convention). The outputs are expanded views.

    Args:
        tensors (Tensor...): 0-d or 1-d tensors of one dtype (or one list of them).
        indexing (str, optional): ``"ij"`` (the default, with PyTorch's warning when not
            given) or ``"xy"``.

    Example::

        >>> import ferric
        >>> x, y = ferric.meshgrid(ferric.tensor([1, 2]), ferric.tensor([4, 5, 6]),
        ...                        indexing="ij")
        >>> x
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> y
        tensor([[4, 5, 6],
                [4, 5, 6]])
    """
    ts = _tensors(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    if any(t.dtype != ts[0].dtype for t in ts):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    swap = indexing == "xy" and len(ts) >= 2
    order = list(range(len(ts)))
    if swap:
        order[0], order[1] = 1, 0
    sizes = [ts[i].numel() for i in order]
    out = []
    for i, t in enumerate(ts):
        pos = order.index(i)
        shape = [1] * len(ts)
        shape[pos] = -1
        out.append(t.reshape(shape).expand(sizes))
    return tuple(out)


def cartesian_prod(*tensors) -> Tensor:
    """The Cartesian product of 1-d tensors, one row per combination (like
    ``itertools.product``); a single tensor comes back as it is.

    Args:
        *tensors (Tensor): 1-d tensors.

    Example::

        >>> import ferric
        >>> ferric.cartesian_prod(ferric.tensor([1, 2]), ferric.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """
    ts = _tensors(tensors)
    for t in ts:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return _core.stack([g.flatten() for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-``r`` combinations of the elements of a 1-d tensor, in
    ``itertools.combinations`` order (``combinations_with_replacement`` when asked).

    Args:
        input (Tensor): a 1-d tensor.
        r (int): the length of each combination. Default: 2.
        with_replacement (bool): allow repeated elements. Default: ``False``.

    Example::

        >>> import ferric
        >>> ferric.combinations(ferric.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r == 0:
        return _core.empty(0, dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    combos = list(pick(range(input.shape[0]), r))
    # one column per position, stacked as PyTorch does (its node is StackBackward0)
    columns = [input.index_select(0, _core.tensor([c[k] for c in combos], dtype=_core.int64))
               for k in range(r)]
    return _core.stack(columns, 1)


def _tri_indices(name: str, row: int, col: int, offset: int, dtype, upper: bool) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype is None:
        dtype = _core.int64
    if dtype.is_floating_point or dtype == _core.bool:
        raise NotImplementedError(f'"{name}" not implemented for \'{_tname(dtype)}\'')
    r = _core.arange(row).unsqueeze(1).expand(row, col)
    c = _core.arange(col).unsqueeze(0).expand(row, col)
    keep = (c - r) >= offset if upper else (c - r) <= offset
    return _core.stack([r.masked_select(keep), c.masked_select(keep)]).to(dtype)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None,
                 layout=None) -> Tensor:
    """The indices of the lower triangle of a ``row x col`` matrix as a ``2 x N`` tensor
    (row indices, then column indices), in row-major order; ``offset`` moves the
    diagonal up (positive) or down.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal to stop at (0 the main one, positive above). Default: 0.
        dtype (:class:`ferric.dtype`, optional): the index dtype. Default: ``ferric.int64``.
        device (:class:`ferric.device`, optional): only ``'cpu'``.
        layout (optional): only ``ferric.strided``.

    Example::

        >>> import ferric
        >>> ferric.tril_indices(3, 3)
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]])
    """
    return _tri_indices("tril_indices", row, col, offset, dtype, upper=False)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None,
                 layout=None) -> Tensor:
    """The indices of the upper triangle of a ``row x col`` matrix as a ``2 x N`` tensor.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal to start at (0 the main one, positive above). Default: 0.
        dtype (:class:`ferric.dtype`, optional): the index dtype. Default: ``ferric.int64``.
        device (:class:`ferric.device`, optional): only ``'cpu'``.
        layout (optional): only ``ferric.strided``.

    Example::

        >>> import ferric
        >>> ferric.triu_indices(3, 3, 1)
        tensor([[0, 0, 1],
                [1, 2, 2]])
    """
    return _tri_indices("triu_indices", row, col, offset, dtype, upper=True)


@_records("BlockDiagBackward0")
def block_diag(*tensors) -> Tensor:
    """A block-diagonal matrix of the inputs (0-d inputs are ``1 x 1`` blocks, 1-d ones a
    single row), in the promoted dtype.

    Args:
        *tensors (Tensor): the blocks, 0-d, 1-d or 2-d.

    Example::

        >>> import ferric
        >>> ferric.block_diag(ferric.tensor([[1, 2]]), ferric.tensor(3))
        tensor([[1, 2, 0],
                [0, 0, 3]])
    """
    ts = _tensors(tensors)
    blocks = []
    for i, t in enumerate(ts):
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
        blocks.append(t.reshape(1, 1) if t.dim() == 0 else
                      (t.reshape(1, -1) if t.dim() == 1 else t))
    dtype = _core.float32
    if blocks:
        dtype = blocks[0].dtype
        for b in blocks[1:]:
            dtype = _core.promote_types(dtype, b.dtype)
    cols = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        h, w = b.shape
        parts = [_core.zeros(h, left, dtype=dtype), b.to(dtype),
                 _core.zeros(h, cols - left - w, dtype=dtype)]
        rows.append(_core.cat(parts, 1))
        left += w
    if not rows:
        return _core.zeros(1, 0, dtype=dtype)
    return _core.cat(rows, 0)


@_takes_out("kron", "cast")
@_records("UnsafeViewBackward0")
def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The Kronecker product: block ``(i, j, ...)`` of the result is
    ``input[i, j, ...] * other`` (the shorter shape is padded with leading 1s).

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.kron(ferric.tensor([1, 10]), ferric.tensor([1, 2, 3]))
        tensor([ 1,  2,  3, 10, 20, 30])
    """
    nd = max(input.dim(), other.dim())
    a_shape = [1] * (nd - input.dim()) + list(input.shape)
    b_shape = [1] * (nd - other.dim()) + list(other.shape)
    a = input.reshape([s for d in a_shape for s in (d, 1)])
    b = other.reshape([s for d in b_shape for s in (1, d)])
    return (a * b).reshape([x * y for x, y in zip(a_shape, b_shape, strict=True)])


@_takes_out("diff", "cast")
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, *, out=None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``, or
    ``x[i + 1] ^ x[i]`` for bool), after concatenating ``prepend`` and ``append``.

    Args:
        input (Tensor): the input tensor.
        n (int): how many times to difference. Default: 1.
        dim (int): the dimension to difference along. Default: -1.
        prepend (Tensor, optional): values to put before ``input`` along ``dim``.
        append (Tensor, optional): values to put after ``input`` along ``dim``.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.diff(ferric.tensor([1, 3, 6, 10]))
        tensor([2, 3, 4])
        >>> ferric.diff(ferric.tensor([1, 3, 6, 10]), n=2, prepend=ferric.tensor([0]))
        tensor([1, 1, 1])
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            continue
        if extra.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
    if prepend is not None:
        parts.append(prepend)
    parts.append(input)
    if append is not None:
        parts.append(append)
    x = _core.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x.dtype == _core.bool else hi - lo
    return x


@_records("Rot90Backward0")
def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotates by 90 degrees ``k`` times in the plane of ``dims``, from the first axis
    toward the second.

    Args:
        input (Tensor): the input tensor.
        k (int): the number of quarter turns. Default: 1.
        dims (sequence of two ints): the plane to rotate in. Default: ``(0, 1)``.

    Example::

        >>> import ferric
        >>> ferric.rot90(ferric.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _wrap_dim(dims[0], input.dim()), _wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError("expected rotation dims to be different, but got dim0 = "
                           f"{dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


@_takes_out("take_along_dim", "same")
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *,
                   out=None) -> Tensor:
    """Picks values along ``dim`` at ``indices`` (which broadcasts against ``input``
    elsewhere), like ``numpy.take_along_axis``; without ``dim``, indexes the flattened
    input.

    Args:
        input (Tensor): the input tensor.
        indices (Tensor): the int64 positions to take along ``dim``.
        dim (int, optional): the dimension to index; the flattened input when None.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> t = ferric.tensor([[10, 30, 20], [60, 40, 50]])
        >>> ferric.take_along_dim(t, t.argmax(1, keepdim=True), 1)
        tensor([[30],
                [60]])
    """
    if indices.dtype != _core.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_tname(indices.dtype)}")
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.dim()} dimensions for input, and {indices.dim()} "
            "dimensions for indices")
    d = _wrap_dim(dim, input.dim())
    a_shape, i_shape = list(input.shape), list(indices.shape)
    a_shape[d] = i_shape[d] = 1
    common = list(broadcast_tensors(_core.empty(a_shape), _core.empty(i_shape))[0].shape)
    in_shape, idx_shape = list(common), list(common)
    in_shape[d], idx_shape[d] = input.shape[d], indices.shape[d]
    return input.expand(in_shape).gather(d, indices.expand(idx_shape))


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Splits into views along ``dim``: into ``n`` nearly equal parts (an int; the first
    ``size % n`` parts get one element more) or at the given indices (a list; parts may
    be empty). A 0-d or 1-d int64 tensor means the same.

    Args:
        input (Tensor): the input tensor.
        indices_or_sections (int or sequence of ints or Tensor): the number of parts, or the split
            indices.
        dim (int): the dimension to split along. Default: 0.

    Example::

        >>> import ferric
        >>> ferric.tensor_split(ferric.arange(7), 3)
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
        >>> ferric.tensor_split(ferric.arange(7), [1, 5])
        (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
    """
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got "
                           "a tensor with 0 dims")
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.dtype != _core.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have "
                               f"dtype of long, but got {_tname(t.dtype)}")
        if t.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {t.dim()} dims")
        indices_or_sections = t.item() if t.dim() == 0 else t.tolist()
    d = _wrap_dim(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            bounds.append(start)
            start += q + (1 if i < extra else 0)
        bounds.append(size)
    else:
        bounds = [0] + [min(max(int(i) if i >= 0 else size + int(i), 0), size)
                        for i in indices_or_sections] + [size]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        lo = min(lo, size)
        out.append(input.narrow(d, lo, max(hi - lo, 0)))
    return tuple(out)


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contracts the last ``dims`` dims of ``a`` with the first ``dims`` of ``b`` (an
    int), or the listed dims (two lists), through one matrix product.

    Args:
        a (Tensor): the first operand.
        b (Tensor): the second operand.
        dims (int or pair of sequences): how many trailing/leading dims to contract, or which ones.
            Default: 2.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> a = ferric.arange(6.0).reshape(2, 3)
        >>> ferric.tensordot(a, ferric.ones(3, 2), dims=1)
        tensor([[ 3.,  3.],
                [12., 12.]])
    """
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.dim() == 0 else dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = list(dims[0]), list(dims[1])
        da = [da] if isinstance(da, int) else da
        db = [db] if isinstance(db, int) else db
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    wa = [_wrap_dim(d, a.dim()) for d in da]
    wb = [_wrap_dim(d, b.dim()) for d in db]
    for x, y, xa, yb in zip(da, db, wa, wb, strict=True):
        if a.shape[xa] != b.shape[yb]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[xa]} in dim {x} and second has size {b.shape[yb]} "
                               f"in dim {y}")
    fa = [i for i in range(a.dim()) if i not in wa]
    fb = [i for i in range(b.dim()) if i not in wb]
    k = 1
    for i in wa:
        k *= a.shape[i]
    am = a.permute(fa + wa).reshape(-1, k)
    bm = b.permute(wb + fb).reshape(k, -1)
    res = (am @ bm).reshape([a.shape[i] for i in fa] + [b.shape[i] for i in fb])
    if out is not None:
        if out.shape != res.shape:
            raise RuntimeError(f"tensordot: out has shape {list(out.shape)}, expected "
                               f"{list(res.shape)}")
        return out.copy_(res)
    return res


@_records("TraceBackward0")
def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a 2-d tensor (int64 for integer inputs).

    Args:
        input (Tensor): a 2-d tensor.

    Example::

        >>> import ferric
        >>> ferric.trace(ferric.arange(9).reshape(3, 3))
        tensor(12)
    """
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    if input.dtype == _core.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return input.diagonal().sum()


@_takes_out("cross", "same")
@_records("LinalgCrossBackward0")
def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (broadcasting the other dims).
    Without ``dim`` the first dim of size 3 is used, with PyTorch's deprecation
    warning.

    Args:
        input (Tensor): the input tensor.
        other (Tensor): the second operand (broadcast with ``input``).
        dim (int, optional): the dimension of size 3 holding the vectors.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.cross(ferric.tensor([1.0, 0.0, 0.0]), ferric.tensor([0.0, 1.0, 0.0]),
        ...              dim=0)
        tensor([0., 0., 1.])
    """
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning, stacklevel=2)
        sizes = input.shape if input.dim() == other.dim() else ()
        found = [i for i, s in enumerate(sizes) if s == 3]
        if not found:
            raise RuntimeError("no dimension of size 3 in input")
        dim = found[0]
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input.dtype)} but found "
                           f"{_tname(other.dtype)}")
    a0, a1, a2 = (input.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (other.narrow(d, i, 1) for i in range(3))
    return _core.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def _pnorm(diff: Tensor, p: float) -> Tensor:
    """The p-norm over the last dim (p = 0 counts the non-zeros, p = inf is the max)."""
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(-1)
    return _core.norm(diff, p, dim=-1)


@_records("CdistBackward0")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of ``x1`` (``B x P x M``) and each row of
    ``x2`` (``B x R x M``), as a ``B x P x R`` tensor. For ``p = 2`` the matrix-product
    form ``|a|^2 + |b|^2 - 2 a.b`` is used when a side has more than 25 rows (or always /
    never, by ``compute_mode``), as in PyTorch.

    Args:
        x1 (Tensor): ``B x P x M`` (or ``P x M``) rows.
        x2 (Tensor): ``B x R x M`` (or ``R x M``) rows.
        p (float): the order of the norm, non-negative. Default: 2.
        compute_mode (str): whether ``p = 2`` may use matrix products (see above). Default:
            ``'use_mm_for_euclid_dist_if_necessary'``.

    Example::

        >>> import ferric
        >>> a = ferric.tensor([[0.0, 0.0], [3.0, 4.0]])
        >>> ferric.cdist(a, a)
        tensor([[0., 5.],
                [5., 0.]])
    """
    x1, x2 = _core._autocast_args("fp32", x1, x2)
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_tname(x1.dtype)}")
    if not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: "
                           f"{_tname(x2.dtype)}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_tname(x1.dtype)} but found "
                           f"{_tname(x2.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = list(broadcast_shapes(x1.shape[:-2], x2.shape[:-2]))
    a = x1.expand(batch + list(x1.shape[-2:]))
    b = x2.expand(batch + list(x2.shape[-2:]))
    r1, r2 = a.shape[-2], b.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == _CDIST_MODES[0] and (r1 > 25 or r2 > 25)))
    if use_mm:
        an = a.pow(2).sum(-1, keepdim=True)
        bn = b.pow(2).sum(-1, keepdim=True)
        a_ = _core.cat([a * -2, an, _core.ones_like(an)], -1)
        b_ = _core.cat([b, _core.ones_like(bn), bn], -1)
        return (a_ @ b_.transpose(-1, -2)).clamp_min(0).sqrt()
    return _pnorm(a.unsqueeze(-2) - b.unsqueeze(-3), p)


@_records("PdistBackward0")
def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows ``i < j`` of a 2-d tensor, in
    row-major order of the pairs (the condensed form of ``cdist(x, x)``).

    Args:
        input (Tensor): an ``N x M`` tensor of rows.
        p (float): the order of the norm, non-negative. Default: 2.

    Example::

        >>> import ferric
        >>> ferric.pdist(ferric.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
        tensor([ 5., 10.,  5.])
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    n = input.shape[0]
    if n <= 1:
        return _core.empty(0, dtype=input.dtype)
    ij = triu_indices(n, n, 1)
    return _pnorm(input.index_select(0, ij[0]) - input.index_select(0, ij[1]), p)
