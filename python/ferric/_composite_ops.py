"""Arithmetic and statistics utilities composed from ferric's differentiable ops:
``lerp``, ``addcmul``/``addcdiv``, ``addbmm``/``addmv``/``addr``, ``logcumsumexp``,
``histc``, ``bincount``, ``quantile``/``nanquantile``.

The formulas follow PyTorch's kernels (``lerp``'s two-sided form, ``addcmul``'s
``input + value * t1 * t2``, ``histc``'s bin arithmetic, ``quantile``'s ranks), so the
values match it; gradients come from the ops they are built of.
"""

from __future__ import annotations

import functools
import inspect
import math

from . import _core
from ._core import Tensor
from ._functions import broadcast_shapes
from ._shape_ops import _infer_size, _records, _tname, _wrap_dim
from ._special_functions import _CPP, _dname, _takes_out

_max = max  # `histc` names its arguments min and max, as PyTorch does


def _out_kwarg(op: str, message: str):
    """Adds PyTorch's keyword-only ``out=`` to a composed reduction/scan: out must have
    the input's dtype (``message`` is PyTorch's error, formatted with the two dtype
    names), then the result is written into it by ``_core._out_write``."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(input, *args, out=None, **kwargs):
            if out is not None and isinstance(out, Tensor) and out.dtype != input.dtype:
                raise RuntimeError(message.format(want=_tname(input.dtype),
                                                  got=_tname(out.dtype)))
            r = fn(input, *args, **kwargs)
            return r if out is None else _core._out_write(op, out, r, "same")
        sig = inspect.signature(fn)
        extra = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
        call.__signature__ = sig.replace(parameters=[*sig.parameters.values(), extra])
        return call
    return wrap

# --- interpolation and fused multiply-adds --------------------------------------------


@_takes_out("lerp", "cast")
def lerp(input: Tensor, end: Tensor, weight, *, out=None) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``, evaluated as PyTorch does
    (from ``end`` when ``|weight| >= 0.5``, which is exact at ``weight == 1``).

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points (same dtype).
        weight (float or Tensor): the weights (a tensor of the same dtype broadcasts).
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.lerp(ferric.tensor([0.0, 10.0]), ferric.tensor([10.0, 20.0]), 0.25)
        tensor([ 2.5000, 12.5000])
    """
    if input.dtype != end.dtype:
        raise RuntimeError(f"expected dtype {_short(input.dtype)} for `end` but got dtype "
                           f"{_short(end.dtype)}")
    if not input.dtype.is_floating_point:
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise NotImplementedError(f"\"lerp_kernel_{kind}\" not implemented for "
                                  f"'{_tname(input.dtype)}'")
    _infer_size(input.shape, end.shape)
    diff = end - input
    if isinstance(weight, Tensor):
        if weight.dtype != input.dtype:
            raise RuntimeError(f"expected dtype {_short(input.dtype)} for `weight` but got "
                               f"dtype {_short(weight.dtype)}")
        low = weight.abs() < 0.5
        out = _core.where(low, input + weight * diff, end - diff * (1 - weight))
        return _core._named_node(out, "LerpBackward1")
    out = input + diff * weight if abs(weight) < 0.5 else end - diff * (1 - weight)
    return _core._named_node(out, "LerpBackward0")


def _short(dtype) -> str:
    """The dtype as PyTorch's lerp message spells it (``float``, ``double``, ``long``)."""
    return {"float32": "float", "float64": "double", "int64": "long"}.get(
        str(dtype).split(".")[-1], str(dtype).split(".")[-1])


@_takes_out("addcmul", "cast")
@_records("AddcmulBackward0")
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    """``input + value * tensor1 * tensor2`` (broadcast, promoted).

    Args:
        input (Tensor): the tensor to add to.
        tensor1 (Tensor): the first factor.
        tensor2 (Tensor): the second factor.
        value (Number): the multiplier for ``tensor1 * tensor2``. Default: 1.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.addcmul(ferric.ones(2), ferric.tensor([1.0, 2.0]), ferric.tensor([3.0, 4.0]),
        ...                value=0.5)
        tensor([2.5000, 5.0000])
    """
    return input + tensor1 * value * tensor2


@_takes_out("addcdiv", "cast")
@_records("AddcdivBackward0")
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    """``input + value * tensor1 / tensor2`` (true division; integer ``tensor1`` and
    ``tensor2`` are rejected as PyTorch does).

    Args:
        input (Tensor): the tensor to add to.
        tensor1 (Tensor): the numerator.
        tensor2 (Tensor): the denominator.
        value (Number): the multiplier for ``tensor1 / tensor2``. Default: 1.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.addcdiv(ferric.ones(2), ferric.tensor([1.0, 2.0]), ferric.tensor([4.0, 4.0]),
        ...                value=2)
        tensor([1.5000, 2.0000])
    """
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return input + tensor1 * value / tensor2


def _scale_add(input: Tensor, prod: Tensor, beta, alpha) -> Tensor:
    """``beta * input + alpha * prod``; ``input`` is ignored (not even NaN propagates)
    when ``beta == 0``, as in BLAS."""
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return prod.expand(broadcast_shapes(input.shape, prod.shape)).clone()
    return (input if beta == 1 else input * beta) + prod


@_takes_out("addmv", "same")
@_records("AddmvBackward0")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``.

    Args:
        input (Tensor): the vector to add.
        mat (Tensor): the ``n x m`` matrix.
        vec (Tensor): the vector of length ``m``.
        beta (Number): the multiplier for ``input``. Default: 1.
        alpha (Number): the multiplier for ``mat @ vec``. Default: 1.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.addmv(ferric.ones(2), ferric.eye(2), ferric.tensor([2.0, 3.0]), beta=2)
        tensor([4., 5.])
    """
    if mat.dim() != 2 or vec.dim() != 1 or mat.shape[1] != vec.shape[0] or (
            input.dim() > 1 or (input.dim() == 1 and input.shape[0] not in (1, mat.shape[0]))):
        raise RuntimeError(
            f"size mismatch, got input ({','.join(map(str, input.shape))}), mat "
            f"({'x'.join(map(str, mat.shape))}), vec ({','.join(map(str, vec.shape))})")
    return _scale_add(input, _core.mv(mat, vec), beta, alpha)


@_takes_out("addr", "cast")
@_records("AddrBackward0")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``.

    Args:
        input (Tensor): the matrix to add.
        vec1 (Tensor): the first vector (the rows).
        vec2 (Tensor): the second vector (the columns).
        beta (Number): the multiplier for ``input``. Default: 1.
        alpha (Number): the multiplier for the outer product. Default: 1.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.addr(ferric.zeros(2, 2), ferric.tensor([1.0, 2.0]), ferric.tensor([3.0, 4.0]))
        tensor([[3., 4.],
                [6., 8.]])
    """
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D"
                           if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    prod = _core.outer(vec1, vec2)
    target = list(prod.shape)
    lead = len(target) - input.dim()
    for i, size in enumerate(input.shape):
        if lead < 0 or (size != 1 and size != target[lead + i]):
            raise RuntimeError(
                f"The expanded size of the tensor ({target[max(lead + i, 0)]}) must match the "
                f"existing size ({size}) at non-singleton dimension {max(lead + i, 0)}.  "
                f"Target sizes: {target}.  Tensor sizes: {list(input.shape)}")
    return _scale_add(input, prod, beta, alpha)


@_takes_out("addbmm", "same", lambda r, o: (
    "self and mat2 must have the same dtype, but got "
    f"{_tname(o)} and {_tname(r)}"))
@_records("AddbmmBackward0")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1,
           out=None) -> Tensor:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``.

    Args:
        input (Tensor): the matrix to add.
        batch1 (Tensor): the first batch of matrices, ``b x n x m``.
        batch2 (Tensor): the second batch of matrices, ``b x m x p``.
        beta (Number): the multiplier for ``input``. Default: 1.
        alpha (Number): the multiplier for the sum of products. Default: 1.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> b = ferric.ones(3, 2, 2)
        >>> ferric.addbmm(ferric.zeros(2, 2), b, b)
        tensor([[6., 6.],
                [6., 6.]])
    """
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
            f"{batch2.shape[1]}x{batch2.shape[2]})")
    return _scale_add(input, _core.bmm(batch1, batch2).sum(0), beta, alpha)


# --- scans ---------------------------------------------------------------------------

_BLOCK = 64


@_out_kwarg("logcumsumexp", "expected scalar_type {want} but found {got}")
@_records("LogcumsumexpBackward0")
def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))`` without overflow or underflow: each block of 64
    positions is a masked ``logsumexp`` over its prefix, and a running total carries
    across blocks.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to accumulate along.
        out (Tensor, optional): the output tensor (of ``input``'s dtype).

    Example::

        >>> import ferric
        >>> ferric.logcumsumexp(ferric.tensor([0.0, 0.0, -1000.0, 1000.0]), 0)
        tensor([0.0000e+00, 6.9315e-01, 6.9315e-01, 1.0000e+03])
    """
    if not input.dtype.is_floating_point:
        raise NotImplementedError("\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{_tname(input.dtype)}'")
    if input.dim() == 0:
        _wrap_dim(dim, 0)
        return input.clone()
    d = _wrap_dim(dim, input.dim())
    x = input.movedim(d, -1)
    n = x.shape[-1]
    if n == 0 or x.numel() == 0:
        return input.clone()
    blocks, carry = [], None
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        blk = x.narrow(-1, start, m)
        # rows i, columns j: blk[j], hidden where j > i
        later = _core.ones(m, m, dtype=_core.bool).triu(1)
        grid = blk.unsqueeze(-2).expand(list(blk.shape[:-1]) + [m, m])
        cum = grid.masked_fill(later, -math.inf).logsumexp(-1)
        if carry is not None:
            pair = _core.stack([cum, carry.unsqueeze(-1).expand(cum.shape)])
            cum = pair.logsumexp(0)
        carry = cum.select(-1, m - 1)
        blocks.append(cum)
    return _core.cat(blocks, -1).movedim(-1, d)


# --- counting ------------------------------------------------------------------------


@_takes_out("histc", "same", lambda r, o: (
    "torch.histogram: input tensor and hist tensor should have the same dtype, but got "
    f"input {_dname(r, _CPP)} and hist {_dname(o, _CPP)}"))
def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """A histogram of ``bins`` equal-width bins over ``[min, max]`` (the data's range
    when both are 0); elements outside are ignored, ``max`` itself counts in the last
    bin. The bin of ``x`` is ``int((x - min) * bins / (max - min))`` in the input's
    dtype, as PyTorch computes it.

    Args:
        input (Tensor): the input tensor.
        bins (int): the number of bins. Default: 100.
        min (Number): the lower end of the range. Default: 0.
        max (Number): the upper end of the range. Default: 0.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.histc(ferric.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=4)
        tensor([0., 2., 1., 1.])
    """
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{_tname(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.numel() > 0:
        lo, hi = input.min().item(), input.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        def show(v):
            return "-nan" if math.isnan(v) else (f"{v:g}" if math.isfinite(v) else
                                                ("inf" if v > 0 else "-inf"))
        raise RuntimeError(f"torch.histc: range of [{show(lo)}, {show(hi)}] is not finite")
    x = input.detach().reshape(-1)
    # the edges in the input's dtype, as the kernel reads them
    edges = _core.tensor([lo, hi], dtype=input.dtype)
    left, right = edges[0], edges[1]
    inside = (x >= left).logical_and(x <= right)
    x = x.masked_select(inside)
    pos = ((x - left) * bins / (right - left)).to(_core.int64).clamp(max=bins - 1)
    out = _core.zeros(bins, dtype=input.dtype)
    return out.index_add(0, pos, _core.ones(pos.shape[0], dtype=input.dtype))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each value of a 1-d tensor of non-negative integers (or the sums of
    ``weights`` at them), ``max(input) + 1`` long at least ``minlength``. Weighted counts
    are float32 for float32 weights, else float64, as in PyTorch.

    Args:
        input (Tensor): a 1-d tensor of non-negative integers.
        weights (Tensor, optional): a weight per element of ``input``, summed instead of counted.
        minlength (int): the least length of the result. Default: 0.

    Example::

        >>> import ferric
        >>> ferric.bincount(ferric.tensor([0, 1, 1, 3]))
        tensor([1, 2, 0, 1])
        >>> ferric.bincount(ferric.tensor([0, 1, 1]), weights=ferric.tensor([0.5, 1.0, 2.0]))
        tensor([0.5000, 3.0000])
    """
    if input.dtype.is_floating_point or input.dtype == _core.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{_tname(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1 or (input.numel() > 0 and input.min().item() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = _max(minlength, input.max().item() + 1 if input.numel() else 0)
    if weights is None:
        out = _core.zeros(n, dtype=_core.int64)
        return out.index_add(0, input, _core.ones(input.shape[0], dtype=_core.int64))
    wdt = weights.dtype if weights.dtype in (_core.float32, _core.float64) else _core.float64
    out = _core.zeros(n, dtype=wdt)
    out = out.index_add(0, input, weights.detach().to(wdt))
    if weights.requires_grad and _core.is_grad_enabled():
        # PyTorch has no derivative for bincount: the result stays in the graph under a
        # NotImplemented node whose backward raises
        out = _not_implemented("bincount", out, weights)
    return out


def _not_implemented(aten: str, out: Tensor, *inputs: Tensor) -> Tensor:
    """``out`` (computed outside the graph) as the result of PyTorch's ``NotImplemented``
    node over ``inputs``: its backward raises ``RuntimeError: derivative for aten::<aten>
    is not implemented``, as PyTorch's does."""
    def backward(*grads):
        raise RuntimeError(f"derivative for aten::{aten} is not implemented")

    recorded = _core._record_function(aten, [out], list(inputs), [True], backward)[0]
    return _core._named_node(recorded, "NotImplemented")


# --- quantiles -----------------------------------------------------------------------

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, input: Tensor, q, dim, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qt = _core.tensor([float(q)], dtype=input.dtype)
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        scalar_q = q.dim() == 0
        qt = q.reshape(-1)
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if dim is None:
        x = input.reshape(-1)
    else:
        d = _wrap_dim(dim, input.dim())
        x = input.unsqueeze(0) if input.dim() == 0 else input.movedim(d, -1)
    if x.shape[-1] == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if not scalar_q and qt.numel() and (qt.detach().min().item() < 0 or
                                        qt.detach().max().item() > 1):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    qt = qt.detach()
    srt = x.sort(-1).values
    n = srt.shape[-1]
    nan = srt.detach().isnan()
    lead = list(srt.shape[:-1])
    if ignore_nan:
        count = nan.logical_not().sum(-1, keepdim=True)
        ranks = qt * (count - 1).to(input.dtype)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        ranks = (qt * (n - 1)).expand(lead + [qt.shape[0]])
        ranks = ranks.masked_fill(nan.any(-1, keepdim=True), n - 1)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(_core.int64)
    out = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = _core.full_like(ranks, 0.5).masked_fill(ranks == below.to(ranks.dtype), 0)
        else:
            weights = ranks - below.to(ranks.dtype)
        above = srt.gather(-1, ranks.ceil().to(_core.int64))
        out = lerp(out, above, weights)
    # (..., q) -> (q, ...)
    out = out.movedim(-1, 0)
    if keepdim:
        if dim is None:
            out = out.reshape([out.shape[0]] + [1] * input.dim())
        elif input.dim() > 0:
            out = out.unsqueeze(d + 1)
    return out.squeeze(0) if scalar_q else out


@_out_kwarg("quantile", "quantile() out tensor must be same dtype as the input tensor")
@_records("SqueezeBackward4")
def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles of ``input`` (over everything, or along ``dim``); a 1-d
    ``q`` adds a leading dim. Between two data points the value is interpolated
    (``linear``, ``lower``, ``higher``, ``midpoint``, ``nearest``); a NaN in a slice
    makes its quantiles NaN.

    Args:
        input (Tensor): the input tensor.
        q (float or Tensor): the quantile(s), in ``[0, 1]``.
        dim (int, optional): the dimension to reduce; everything when None.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.
        interpolation (str): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or
            ``'nearest'``. Default: ``'linear'``.
        out (Tensor, optional): the output tensor (of ``input``'s dtype).

    Example::

        >>> import ferric
        >>> t = ferric.tensor([[1.0, 2.0, 3.0, 4.0], [0.0, 10.0, 20.0, 30.0]])
        >>> ferric.quantile(t, 0.5, dim=1)
        tensor([ 2.5000, 15.0000])
        >>> ferric.quantile(t, ferric.tensor([0.25, 0.75]), dim=1, interpolation="lower")
        tensor([[ 1.,  0.],
                [ 3., 20.]])
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


@_out_kwarg("nanquantile", "quantile() out tensor must be same dtype as the input tensor")
@_records("SqueezeBackward4")
def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` ignoring NaN values (a slice of only NaN gives NaN).

    Args:
        input (Tensor): the input tensor.
        q (float or Tensor): the quantile(s), in ``[0, 1]``.
        dim (int, optional): the dimension to reduce; everything when None.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.
        interpolation (str): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or
            ``'nearest'``. Default: ``'linear'``.
        out (Tensor, optional): the output tensor (of ``input``'s dtype).

    Example::

        >>> import ferric
        >>> ferric.nanquantile(ferric.tensor([1.0, float("nan"), 3.0]), 0.5)
        tensor(2.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)
