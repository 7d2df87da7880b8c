"""``ferric.nn.init``: in-place parameter initialisers (``torch.nn.init``).

They draw from ferric's generator with the same calls, in the same order, as PyTorch,
so ``ferric.manual_seed(s)`` followed by the same initialisation yields PyTorch's values.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _core
from ..autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_",
    "normal_", "ones_", "orthogonal_", "trunc_normal_", "uniform_", "xavier_normal_",
    "xavier_uniform_", "zeros_",
]


def calculate_gain(nonlinearity, param=None):
    r"""The recommended gain for a nonlinearity (e.g. ``sqrt(2)`` for ReLU).

    Example:
        >>> from ferric.nn import init
        >>> init.calculate_gain('tanh')
        1.6666666666666667
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int | float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills ``tensor`` with draws from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills ``tensor`` with draws from N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills ``tensor`` from N(mean, std^2) truncated to [a, b].

    Uses PyTorch's current sampler with the same generator calls: when the interval holds
    more than 30% of the mass, redraw the out-of-range normals until none is left;
    otherwise rejection-sample uniform proposals on [a, b] against the normal density.
    """

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution "
            "of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        mass = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if mass > 0.3:
            # bounds rounded to the tensor's dtype, so the rejection test matches the
            # values the tensor can hold
            lo = _core.tensor(a, dtype=tensor.dtype).item()
            hi = _core.tensor(b, dtype=tensor.dtype).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not bool(mask.any()):
                    break
                fresh = _core.empty_like(result).normal_(mean, std, generator=generator)
                result = _core.where(mask, fresh, result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = _core.empty_like(tensor)
        accept_buf = _core.empty_like(tensor)

        def log_ratio(c):
            # log of the normal density relative to its peak on [a, b]
            return c.sub(mean).div(std).pow(2).mul(-0.5).sub(log_peak)

        tensor.uniform_(a, b, generator=generator)
        pending = accept_buf.uniform_(generator=generator).log().gt(log_ratio(tensor))
        if not bool(pending.any()):
            return tensor
        result = tensor
        while True:
            candidates.uniform_(a, b, generator=generator)
            result = _core.where(pending, candidates, result)
            reject = accept_buf.uniform_(generator=generator).log().gt(log_ratio(candidates))
            pending = _core.where(pending, reject, pending)
            if not bool(pending.any()):
                break
        tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Fills ``tensor`` with ``val`` in place (outside the graph).

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.init.constant_(ferric.empty(2, 2), 0.5)
        tensor([[0.5000, 0.5000],
                [0.5000, 0.5000]])
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills ``tensor`` with ones, in place and without recording a graph; returns it.

    Example:
        >>> import ferric
        >>> ferric.nn.init.ones_(ferric.empty(2))
        tensor([1., 1.])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills ``tensor`` with zeros, in place and without recording a graph; returns it.

    Example:
        >>> import ferric
        >>> ferric.nn.init.zeros_(ferric.empty(2))
        tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-D tensor with the identity matrix.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.init.eye_(ferric.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_core.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fills a 3/4/5-D conv weight with the Dirac delta (identity convolution)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    arr = np.zeros(tuple(sizes))
    for g in range(groups):
        for d in range(min_dim):
            idx = (g * out_per_group + d, d) + tuple(s // 2 for s in sizes[2:])
            arr[idx] = 1
    with no_grad():
        tensor.copy_(_core.tensor(arr, dtype=tensor.dtype))
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot).

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> w = nn.init.xavier_uniform_(ferric.empty(30, 20))
        >>> bool(w.abs().max() <= (6 / (30 + 20)) ** 0.5)
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """He's ``std = gain / sqrt(fan)`` for ``tensor``; None, after PyTorch's warning, for a
    zero-element tensor (which the kaiming initialisers leave as it is)."""
    if 0 in tuple(tensor.shape):
        # stacklevel 3: the warning points at the caller of kaiming_*_
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with ``bound = gain * sqrt(3 / fan)`` (He)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with ``std = gain / sqrt(fan)`` (He)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal draw (LAPACK's
    Householder QR through NumPy; PyTorch uses the same algorithm, so values agree to
    rounding)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _core.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    a = flat.numpy()
    if rows < cols:
        a = a.T
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.copy_(_core.tensor(np.ascontiguousarray(q), dtype=tensor.dtype)
                     .reshape(tuple(tensor.shape)))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills a 2-D tensor as a sparse matrix: N(0, std^2) entries with a ``sparsity``
    fraction of each column zeroed."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            idx = _core.randperm(rows, generator=generator)[:num_zeros]
            for r in idx.tolist():
                tensor[r, col] = 0
    return tensor


# the un-suffixed names are deprecated aliases in PyTorch
def _deprecated(fn):
    def wrapper(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{fn.__name__[:-1]}` is now deprecated in favor of "
            f"`nn.init.{fn.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return fn(*args, **kwargs)

    wrapper.__name__ = fn.__name__[:-1]
    return wrapper


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
