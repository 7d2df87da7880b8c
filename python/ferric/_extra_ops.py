"""PyTorch functions composed from ferric's ops: ``float_power``, ``signbit``,
``frexp``, the real-tensor no-ops (``conj``, ``conj_physical``, ``resolve_neg``, ...),
``inner``, ``chain_matmul``, ``index_copy``, ``renorm``, ``range``, ``empty_strided``,
``narrow_copy``, ``triangular_solve`` and the window functions (``hann_window``, ...).

Each follows PyTorch's definition (``float_power`` computes in float64; the windows use
PyTorch's formulas in the requested dtype, so their values match it), raises PyTorch's
exception types, and reports PyTorch's backward node where it has its own.
"""

from __future__ import annotations

import builtins
import math
import warnings

from . import _core, _functions, _linalg, _shape_ops, return_types
from ._core import Tensor
from ._shape_ops import _tname, _wrap_dim
from ._tensor_types import _CPP_NAMES


def _out(op: str, out, result: Tensor, rule: str = "cast") -> Tensor:
    if out is None:
        return result
    return _core._out_write(op, out, result, rule)


# --- pointwise ------------------------------------------------------------------------


def float_power(input, exponent, *, out=None) -> Tensor:
    """float_power(input, exponent, *, out=None) -> Tensor

    Raises ``input`` to the power ``exponent`` elementwise, computing in float64 (the
    result is float64 whatever the operands' dtypes).

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.
        out (Tensor, optional): the output tensor (float64).

    Example:
        >>> import ferric
        >>> ferric.float_power(ferric.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=ferric.float64)
    """
    f64 = _core.float64
    base = input.to(f64) if isinstance(input, Tensor) else float(input)
    exp = exponent.to(f64) if isinstance(exponent, Tensor) else exponent
    if not isinstance(base, Tensor):
        if not isinstance(exp, Tensor):
            raise TypeError("float_power() received an invalid combination of arguments: "
                            "got (number, number)")
        result = _core.pow(base, exp)
    else:
        result = base.pow(exp)
    if out is not None and out.dtype != f64:
        raise RuntimeError(f"the output given to float_power has dtype {_tname(out.dtype)} "
                           "but the operation's result requires dtype Double")
    return _out("float_power", out, result, "same")


def float_power_(self: Tensor, exponent) -> Tensor:
    """float_power_(exponent) -> Tensor

    In-place version of :func:`ferric.float_power`; ``self`` must be float64.

    Example:
        >>> import ferric
        >>> x = ferric.tensor([2.0, 3.0], dtype=ferric.float64)
        >>> x.float_power_(2)
        tensor([4., 9.], dtype=ferric.float64)
    """
    if self.dtype != _core.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_tname(self.dtype)} "
                           "but the operation's result requires dtype Double")
    exp = exponent.to(_core.float64) if isinstance(exponent, Tensor) else exponent
    return self.pow_(exp)


def signbit(input: Tensor, *, out=None) -> Tensor:
    """signbit(input, *, out=None) -> Tensor

    True where the sign bit of an element is set: negative numbers, ``-0.0`` and NaN
    with the sign bit (a bool tensor).

    Args:
        input (Tensor): the input tensor.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.signbit(ferric.tensor([-1.5, 0.0, -0.0, 2.0]))
        tensor([ True, False,  True, False])
    """
    x = input.detach()
    if x.dtype.is_floating_point:
        result = _core.copysign(_core.ones_like(x), x).lt(0)
    elif x.dtype == _core.bool:
        result = _core.zeros_like(x)
    else:
        result = x.lt(0)
    return _out("signbit", out, result)


def frexp(input: Tensor, *, out=None):
    """frexp(input, *, out=None) -> (Tensor mantissa, Tensor exponent)

    Splits each element into a mantissa in ``[0.5, 1)`` (in magnitude) and an integer
    exponent with ``input == mantissa * 2 ** exponent``; zeros, infinities and NaN give
    themselves and exponent 0. The exponent is int32.

    Args:
        input (Tensor): a floating-point tensor.
        out (tuple of two Tensors, optional): the output tensors.

    Example:
        >>> import ferric
        >>> ferric.frexp(ferric.tensor([3.0, 0.5, -10.0]))
        ferric.return_types.frexp(
        mantissa=tensor([ 0.7500,  0.5000, -0.6250]),
        exponent=tensor([2, 0, 4], dtype=ferric.int32))
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    f64 = _core.float64
    x = input.detach().to(f64)
    normal = x.isfinite() & x.ne(0)
    mag = _core.where(normal, x.abs(), _core.ones_like(x))
    e = mag.log2().floor() + 1
    # log2 can round up just below a power of two: correct the exponent by one
    half = (e * 0.5).floor()
    m = mag * (-half).exp2() * (half - e).exp2()
    e = e - m.lt(0.5).to(f64) + m.ge(1.0).to(f64)
    e = _core.where(normal, e, _core.zeros_like(e))
    # the mantissa as two exact power-of-two scalings in the input's dtype (one
    # 2**-e alone can overflow), so its gradient is PyTorch's grad / 2**exponent
    half = (e * 0.5).floor()
    s1 = (-half).exp2().to(input.dtype)
    s2 = (half - e).exp2().to(input.dtype)
    mantissa = input * s1 * s2
    if mantissa.requires_grad:
        mantissa = _core._named_node(mantissa, "FrexpBackward0")
    exponent = e.to(_core.int32)
    # both out dtypes are checked before either is written
    return _linalg._out_tuple("frexp", out, return_types.frexp, (mantissa, exponent))


# the conjugation family: real tensors are their own conjugate and are never lazily
# conjugated or negated, so these return ``input`` itself, as PyTorch does


def conj(input: Tensor) -> Tensor:
    """conj(input) -> Tensor

    The complex conjugate; a real tensor is returned unchanged (the same object).

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> import ferric
        >>> x = ferric.tensor([1.0, -2.0])
        >>> ferric.conj(x) is x
        True
    """
    return input


def conj_physical(input: Tensor, *, out=None) -> Tensor:
    """conj_physical(input, *, out=None) -> Tensor

    The complex conjugate, computed eagerly; a real tensor is returned unchanged (or
    copied into ``out``).

    Args:
        input (Tensor): the input tensor.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.conj_physical(ferric.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
    """
    return _out("conj_physical", out, input, "same")


def conj_physical_(input: Tensor) -> Tensor:
    """conj_physical_(input) -> Tensor

    In-place version of :func:`ferric.conj_physical` (nothing to do for real tensors).

    Example:
        >>> import ferric
        >>> ferric.tensor([1.0, -2.0]).conj_physical_()
        tensor([ 1., -2.])
    """
    return input


def resolve_conj(input: Tensor) -> Tensor:
    """resolve_conj(input) -> Tensor

    Materializes a lazy conjugation; real tensors are never lazily conjugated, so
    ``input`` is returned.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> import ferric
        >>> ferric.resolve_conj(ferric.tensor([1.0, 2.0]))
        tensor([1., 2.])
    """
    return input


def resolve_neg(input: Tensor) -> Tensor:
    """resolve_neg(input) -> Tensor

    Materializes a lazy negation; ferric never negates lazily, so ``input`` is
    returned.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> import ferric
        >>> ferric.resolve_neg(ferric.tensor([1.0, 2.0]))
        tensor([1., 2.])
    """
    return input


def is_conj(input: Tensor) -> bool:
    """is_conj(input) -> bool

    Whether ``input`` is a lazily conjugated view: always False for ferric's tensors.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> import ferric
        >>> ferric.is_conj(ferric.tensor([1.0]))
        False
    """
    return False


def is_neg(input: Tensor) -> bool:
    """is_neg(input) -> bool

    Whether ``input`` is a lazily negated view: always False for ferric's tensors.

    Args:
        input (Tensor): the input tensor.

    Example:
        >>> import ferric
        >>> ferric.is_neg(ferric.tensor([1.0]))
        False
    """
    return False


# --- products, indexing, norms ---------------------------------------------------------


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """inner(input, other, *, out=None) -> Tensor

    Inner product over the last dimension: ``sum(input[..., i] * other[..., i])`` for
    every pair of leading indices (the result has shape
    ``input.shape[:-1] + other.shape[:-1]``); a 0-d operand multiplies elementwise.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.inner(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]), ferric.tensor([1.0, 1.0]))
        tensor([3., 7.])
    """
    if input.dim() == 0 or other.dim() == 0:
        return _out("inner", out, input * other, "same")
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return _out("inner", out, _shape_ops.tensordot(input, other, dims=([-1], [-1])), "same")


_CHAIN_WARNED = False


def chain_matmul(*matrices, out=None) -> Tensor:
    """chain_matmul(*matrices, out=None) -> Tensor

    The product of two or more 2-d matrices (deprecated in PyTorch: use
    :func:`ferric.linalg.multi_dot`, which this calls); one matrix gives a copy.

    Args:
        matrices (Tensors...): the 2-d matrices, in order.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> a = ferric.tensor([[1.0, 2.0]])
        >>> ferric.chain_matmul(a, ferric.tensor([[3.0], [4.0]]))
        tensor([[11.]])
    """
    global _CHAIN_WARNED
    if not _CHAIN_WARNED:
        _CHAIN_WARNED = True
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future "
                      "PyTorch release. Use torch.linalg.multi_dot instead, which accepts a "
                      "list of two or more tensors rather than multiple parameters.",
                      UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return _out("chain_matmul", out, matrices[0].clone(), "same")
    from . import linalg

    result = linalg.multi_dot(list(matrices))
    if result.requires_grad:
        # PyTorch's chain_matmul ends in a view of the product
        result = _core._named_node(result, "ViewBackward0")
    return _out("chain_matmul", out, result, "same")


def _check_index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """PyTorch's checks of ``index_copy_`` (before anything is written); the wrapped dim."""
    name = "index_copy_()"
    if not isinstance(index, Tensor) or index.dtype != _core.int64:
        got = _tname(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}: Expected a long tensor for index, but got {got}")
    if index.dim() > 1:
        raise IndexError(f"{name}: Index should have dimension 1 or 0 (got {index.dim()})")
    d = _wrap_dim(dim, self.dim())
    if self.dtype != source.dtype:
        raise RuntimeError(f"{name}: self and source expected to have the same dtype, but "
                           f"got (self) {_tname(self.dtype)} and (source) "
                           f"{_tname(source.dtype)}")
    n = index.numel()
    src_len = source.shape[d] if source.dim() > 0 else 1
    if source.dim() > 0 and n != src_len:
        raise IndexError(f"{name}: Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({src_len})")
    if source.dim() != self.dim() and source.dim() > 0 and self.dim() > 0:
        raise IndexError(f"{name}: When source and destination are not scalars, their "
                         "dimensionality must match. Source dimensionality "
                         f"({source.dim()}), destination dimensionality ({self.dim()})")
    size = self.shape[d] if self.dim() > 0 else 1
    for i in index.reshape(-1).tolist():
        if not -size <= i < size:
            raise IndexError(f"{name}: index {i} is out of bounds for dimension {d} with "
                             f"size {size}")
    return d


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """index_copy_(dim, index, source) -> Tensor

    Copies the slices of ``source`` along ``dim`` into ``self`` at the positions
    ``index`` (``self.select(dim, index[i]) = source.select(dim, i)``); returns ``self``.

    Args:
        dim (int): the dimension along which to index.
        index (Tensor): int64 positions (1-d), one per slice of ``source``.
        source (Tensor): the slices to write (same dtype as ``self``).

    Example:
        >>> import ferric
        >>> x = ferric.zeros(3, 2)
        >>> x.index_copy_(0, ferric.tensor([2, 0]), ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[3., 4.],
                [0., 0.],
                [1., 2.]])
    """
    d = _check_index_copy(self, dim, index, source)
    if self.dim() == 0:
        return self.copy_(source.reshape(()))
    key = (slice(None),) * d + (index.reshape(-1),)
    self[key] = source if source.dim() > 0 else source.expand(self[key].shape)
    return self


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out=None) -> Tensor:
    """index_copy(input, dim, index, source, *, out=None) -> Tensor

    Out-of-place :meth:`Tensor.index_copy_`: a copy of ``input`` with the slices of
    ``source`` along ``dim`` written at the positions ``index``.

    Args:
        input (Tensor): the tensor to copy.
        dim (int): the dimension along which to index.
        index (Tensor): int64 positions (1-d), one per slice of ``source``.
        source (Tensor): the slices to write (same dtype as ``input``).
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.index_copy(ferric.zeros(3), 0, ferric.tensor([2, 0]), ferric.tensor([5.0, 7.0]))
        tensor([7., 0., 5.])
    """
    _check_index_copy(input, dim, index, source)
    result = index_copy_(input.clone(), dim, index, source)
    if result.requires_grad:
        result = _core._named_node(result, "IndexCopyBackward0")
    return result if out is None else _core._out_write("index_copy", out, result, "cast")


def renorm(input: Tensor, p, dim: int, maxnorm, *, out=None) -> Tensor:
    """renorm(input, p, dim, maxnorm, *, out=None) -> Tensor

    Rescales each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm``
    to norm ``maxnorm`` (PyTorch's factor ``maxnorm / (norm + 1e-7)``); the other
    slices are unchanged.

    Args:
        input (Tensor): a floating-point tensor.
        p (float): the norm's exponent (positive).
        dim (int): the dimension whose slices are renormalized.
        maxnorm (float): the largest norm a slice keeps.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.renorm(ferric.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_tname(input.dtype)}")
    d = _wrap_dim(dim, input.dim())
    others = [i for i in builtins.range(input.dim()) if i != d]
    from . import linalg

    norm = linalg.vector_norm(input, p, dim=others, keepdim=True) if others else input.abs()
    factor = _core.where(norm > maxnorm, maxnorm / (norm + 1e-7), _core.ones_like(norm))
    result = input * factor
    if result.requires_grad:
        result = _core._named_node(result, "RenormBackward0")
    return result if out is None else _core._out_write("renorm", out, result, "same")


def renorm_(self: Tensor, p, dim: int, maxnorm) -> Tensor:
    """renorm_(p, dim, maxnorm) -> Tensor

    In-place version of :func:`ferric.renorm`.

    Example:
        >>> import ferric
        >>> ferric.tensor([[3.0, 4.0]]).renorm_(2, 0, 1.0)
        tensor([[0.6000, 0.8000]])
    """
    return self.copy_(renorm(self.detach() if not self.requires_grad else self, p, dim,
                             maxnorm))


def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out=None) -> Tensor:
    """narrow_copy(input, dim, start, length, *, out=None) -> Tensor

    Like :func:`ferric.narrow`, but returns a contiguous copy instead of a view.

    Args:
        input (Tensor): the tensor to narrow.
        dim (int): the dimension to narrow.
        start (int): the first index kept.
        length (int): how many indices are kept.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.narrow_copy(ferric.arange(6).reshape(2, 3), 1, 1, 2)
        tensor([[1, 2],
                [4, 5]])
    """
    result = input.narrow(dim, start, length).clone()
    if result.requires_grad:
        result = _core._named_node(result, "NarrowCopyBackward0")
    return result if out is None else _core._out_write("narrow_copy", out, result, "cast")


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out=None):
    """triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None)

    Solves ``A X = b`` (or ``A^T X = b``) for a triangular ``A`` (deprecated in PyTorch:
    :func:`ferric.linalg.solve_triangular` takes the arguments the other way round).
    Returns ``(solution, cloned_coefficient)``.

    Args:
        b (Tensor): right-hand sides, shape ``(*, n, k)``.
        A (Tensor): triangular matrices, shape ``(*, n, n)``.
        upper (bool): whether ``A`` is upper (default) or lower triangular.
        transpose (bool): solve with ``A``'s transpose.
        unitriangular (bool): assume a unit diagonal.
        out (tuple of two Tensors, optional): the output tensors.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> ferric.triangular_solve(ferric.ones(2, 1), A).solution
        tensor([[0.3750],
                [0.2500]])
    """
    from . import linalg

    if A.dim() < 2 or b.dim() < 2:
        raise RuntimeError("torch.triangular_solve: The input tensor A must have at least 2 "
                           "dimensions.")
    lhs = A.mT if transpose else A
    up = upper != transpose
    sol = linalg.solve_triangular(lhs, b, upper=up, unitriangular=unitriangular)
    res = (sol, A.clone())
    res = tuple(_core._named_node(r, "TriangularSolveBackward0") if r.requires_grad else r
                for r in res)
    if out is None:
        return return_types.triangular_solve(res)
    return return_types.triangular_solve(tuple(
        _core._out_write("triangular_solve", o, r, "same") for o, r in zip(out, res,
                                                                              strict=True)))


# --- creation ---------------------------------------------------------------------------

_RANGE_WARNED = False


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False) -> Tensor:
    """range(start=0, end, step=1, *, dtype=None, ...) -> Tensor

    The values ``start, start + step, ...`` up to and including ``end``, in the default
    dtype unless ``dtype`` is given (deprecated in PyTorch: prefer
    :func:`ferric.arange`, which excludes ``end``).

    Args:
        start (Number): the first value.
        end (Number): the last value (included when reached exactly).
        step (Number): the gap between values.
        dtype (ferric.dtype, optional): the result's dtype.
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ferric.range(1, 4)
        tensor([1., 2., 3., 4.])
    """
    global _RANGE_WARNED
    if not _RANGE_WARNED:
        _RANGE_WARNED = True
        warnings.warn("torch.range is deprecated and will be removed in a future release "
                      "because its behavior is inconsistent with Python's range builtin. "
                      "Instead, use torch.arange, which produces values in [start, end).",
                      UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dtype = dtype if dtype is not None else _functions.get_default_dtype()
    n = int(math.floor((end - start) / step)) + 1
    values = _core.arange(n, dtype=_core.float64) * step + start
    result = values.to(dtype)
    if requires_grad:
        result.requires_grad_(True)
    return _out("range", out, result, "same")


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False) -> Tensor:
    """empty_strided(size, stride, *, dtype=None, ...) -> Tensor

    An uninitialized tensor of shape ``size`` whose elements are laid out with the
    given ``stride`` (in elements) in a storage just large enough for them.

    Args:
        size (tuple of ints): the shape.
        stride (tuple of ints): the stride of each dimension.
        dtype (ferric.dtype, optional): the dtype (default: the default dtype).
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> ferric.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(size)}")
    n = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True))
    dtype = dtype if dtype is not None else _functions.get_default_dtype()
    result = _core.empty(n, dtype=dtype).as_strided(size, stride)
    if requires_grad:
        result.requires_grad_(True)
    return result


# --- window functions (PyTorch's formulas, evaluated in the requested dtype) ------------


def _window(name: str, window_length: int, periodic: bool, dtype, requires_grad: bool, fn):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dtype = dtype if dtype is not None else _functions.get_default_dtype()
    if not dtype.is_floating_point:
        grad = "true" if requires_grad else "false (default)"
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_CPP_NAMES[str(dtype).split('.')[-1]]}, device=cpu, "
                           f"layout=Strided (default), requires_grad={grad}, "
                           "pinned_memory=false, memory_format=(nullopt))")
    if window_length == 0:
        result = _core.empty(0, dtype=dtype)
    elif window_length == 1:
        result = _core.ones(1, dtype=dtype)
    else:
        n = window_length + 1 if periodic else window_length
        result = fn(_core.arange(n, dtype=dtype), n)
        if periodic:
            result = result[:window_length].clone()
    if requires_grad:
        result.requires_grad_(True)
    return result


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False) -> Tensor:
    """hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, ...) -> Tensor

    The Hamming window ``alpha - beta * cos(2 pi n / (N - 1))``; ``periodic=True``
    computes ``N = window_length + 1`` points and drops the last (for spectral
    analysis).

    Args:
        window_length (int): the number of points.
        periodic (bool): the periodic (default) or the symmetric window.
        alpha (float): the constant coefficient.
        beta (float): the cosine coefficient.
        dtype (ferric.dtype, optional): a floating-point dtype.
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> ferric.hamming_window(5, periodic=False)
        tensor([0.0800, 0.5400, 1.0000, 0.5400, 0.0800])
    """
    def fn(k, n):
        return (k * (math.pi * 2.0 / (n - 1))).cos() * (-beta) + alpha

    return _window("hamming_window", window_length, periodic, dtype, requires_grad, fn)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                device=None, requires_grad=False) -> Tensor:
    """hann_window(window_length, periodic=True, *, dtype=None, ...) -> Tensor

    The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (a Hamming window with
    ``alpha = beta = 0.5``); ``periodic`` as for :func:`ferric.hamming_window`.

    Args:
        window_length (int): the number of points.
        periodic (bool): the periodic (default) or the symmetric window.
        dtype (ferric.dtype, optional): a floating-point dtype.
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> ferric.hann_window(5)
        tensor([0.0000, 0.3455, 0.9045, 0.9045, 0.3455])
    """
    def fn(k, n):
        return (k * (math.pi * 2.0 / (n - 1))).cos() * (-0.5) + 0.5

    return _window("hann_window", window_length, periodic, dtype, requires_grad, fn)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                    device=None, requires_grad=False) -> Tensor:
    """bartlett_window(window_length, periodic=True, *, dtype=None, ...) -> Tensor

    The triangular Bartlett window ``1 - |2 n / (N - 1) - 1|``; ``periodic`` as for
    :func:`ferric.hamming_window`.

    Args:
        window_length (int): the number of points.
        periodic (bool): the periodic (default) or the symmetric window.
        dtype (ferric.dtype, optional): a floating-point dtype.
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> ferric.bartlett_window(5)
        tensor([0.0000, 0.4000, 0.8000, 0.8000, 0.4000])
    """
    def fn(k, n):
        w = k * (2.0 / (n - 1))
        first_half = ((n - 1) >> 1) + 1
        return _core.where(k < first_half, w, 2.0 - w)

    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, fn)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                    device=None, requires_grad=False) -> Tensor:
    """blackman_window(window_length, periodic=True, *, dtype=None, ...) -> Tensor

    The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``;
    ``periodic`` as for :func:`ferric.hamming_window`.

    Args:
        window_length (int): the number of points.
        periodic (bool): the periodic (default) or the symmetric window.
        dtype (ferric.dtype, optional): a floating-point dtype.
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> ferric.blackman_window(4, periodic=False)
        tensor([-2.9802e-08,  6.3000e-01,  6.3000e-01, -2.9802e-08])
    """
    def fn(k, n):
        w = k * (math.pi / (n - 1))
        return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42

    return _window("blackman_window", window_length, periodic, dtype, requires_grad, fn)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, ...) -> Tensor

    The Kaiser window ``I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta)`` with
    ``a = (N - 1) / 2``; ``periodic`` as for :func:`ferric.hamming_window`.

    Args:
        window_length (int): the number of points.
        periodic (bool): the periodic (default) or the symmetric window.
        beta (float): the shape parameter.
        dtype (ferric.dtype, optional): a floating-point dtype.
        requires_grad (bool): whether the result requires grad.

    Example:
        >>> import ferric
        >>> ferric.kaiser_window(5)
        tensor([5.2773e-05, 1.0172e-01, 7.9294e-01, 7.9294e-01, 1.0172e-01])
    """
    def fn(k, n):
        a = (n - 1) / 2.0
        x = (k - a) / a
        return (beta * (1 - x * x).abs().sqrt()).i0() / _core.tensor(beta, dtype=k.dtype).i0()

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, fn)
