"""Fractional max pooling, ``fractional_max_pool2d/3d`` (re-exported by
``ferric.nn.functional``), composed from a ``gather`` and elementwise maxima.

The pooling windows are ATen's pseudo-random ones: along a dimension of input size ``n``,
output size ``o`` and window ``k``, the window of output ``i < o - 1`` starts at
``int((i + u) * a) - int(u * a)`` with ``a = (n - k) / (o - 1)`` and ``u`` the plane's
sample in ``[0, 1)`` (computed in the input's dtype, as the kernel does), and the last
window ends at the input's end. The samples are ``_random_samples`` when given, else
``ferric.rand(N, C, 2 or 3)``, the same draw as PyTorch's (so a seeded run picks PyTorch's
windows). Every window's elements are gathered from the flattened plane, and the maximum
taken tap by tap: a greater value or a NaN replaces, so the first maximum (in the
window's row-major order) and the last NaN win, with their flat index, as in ATen.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _core


def _round_bf16(a):
    """float32 values rounded to the nearest bfloat16 (ties to even), kept as float32."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


# per dtype: the NumPy type the kernel's arithmetic runs in, and the rounding to the
# dtype after every operation (c10::Half / BFloat16 compute in float and round back)
_ARITH = {
    "ferric.float64": (np.float64, lambda a: a),
    "ferric.float32": (np.float32, lambda a: a),
    "ferric.float16": (np.float32, lambda a: np.asarray(a, np.float32).astype(np.float16)
                       .astype(np.float32)),
    "ferric.bfloat16": (np.float32, _round_bf16),
}


def _ntuple(v, n):
    return [v] * n if isinstance(v, int) else list(v)


def _intervals(samples, n, o, k, dtype="ferric.float64"):
    """Window starts ``(B, C, o)`` for samples ``(B, C)`` (ATen's ``generate_intervals``,
    in the arithmetic of ``dtype``)."""
    dt, rnd = _ARITH[dtype]
    starts = np.zeros(samples.shape + (o,), dtype=np.int64)
    if o > 1:
        alpha = rnd(np.asarray(dt(n - k) / dt(o - 1), dtype=dt))
        i = np.arange(o - 1).astype(dt)
        u = rnd(samples.astype(dt))[..., None]
        starts[..., :-1] = rnd(rnd(i + u) * alpha).astype(np.int64) - \
            rnd(u * alpha).astype(np.int64)
    if o > 0:
        starts[..., -1] = n - k
    return starts


def _fractional(nd, input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or "
                             "tuple of Ints.")
        ratio = [output_ratio] * nd if isinstance(output_ratio, (int, float)) else \
            list(output_ratio)
        output_size = [int(input.size(i - nd) * ratio[i]) for i in range(nd)]
    samples = _random_samples
    if samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        # half-precision samples are drawn in float32 and rounded (PyTorch draws them in
        # their own dtype: a rare sample can differ in its last bit)
        draw = _core.float32 if input.dtype in (_core.float16, _core.bfloat16) else \
            input.dtype
        samples = _core.rand(n_batch, input.size(-nd - 1), nd, dtype=draw).to(input.dtype)
    pool, out = _ntuple(kernel_size, nd), _ntuple(output_size, nd)
    three = "" if nd == 2 else " three"
    if len(pool) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of"
                           f"{three} Ints")
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of"
                           f"{three} Ints")
    where = name if nd == 2 else f"{name}_out"
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{where}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but got{list(input.shape)} with dimension {i} being empty.")
    spatial = list(input.shape[-nd:])
    names = ("height", "width") if nd == 2 else ("time", "height", "width")
    for size, k, o, what in zip(spatial, pool, out, names, strict=True):
        # ATen's 2-d check allows the windows to reach the end; its 3-d check does not
        if (o + k - 1 > size) if nd == 2 else (o + k - 1 >= size):
            raise RuntimeError(f"{where}(): pool {what} {k} too large relative to input "
                               f"{what} {size}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    n, c = x.shape[0], x.shape[1]
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to be 3D tensor, got: {samples.dim()}D")
    if samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    for o in out:
        if o < 0:
            shape = list(input.shape[:-nd]) + out
            raise RuntimeError(f"Trying to create tensor with negative dimension {o}: {shape}")
    if str(input.dtype) not in _ARITH:
        raise NotImplementedError(f"\"{name}_out_frame\" not implemented for "
                                  f"'{str(input.dtype).split('.')[-1]}'")
    values, indices = _pool(x, samples, spatial, pool, out)
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    values = _core._named_node(values, f"FractionalMaxPool{nd}DBackward0")
    return (values, indices) if return_indices else values


def _pool(x, samples, spatial, pool, out):
    nd = len(spatial)
    n, c = x.shape[0], x.shape[1]
    taps = math.prod(pool)
    if x.numel() == 0 or math.prod(out) == 0 or taps == 0:
        values = x.reshape(n, c, math.prod(spatial)).narrow(2, 0, 0).reshape(n, c, *out)
        if taps == 0 and values.numel():  # empty windows: ATen's initial -inf and -1
            values = _core.full([n, c, *out], -math.inf, dtype=x.dtype)
        return values, _core.full([n, c, *out], -1 if taps == 0 else 0, dtype=_core.int64)
    u = samples.detach()[:n].float().numpy() if x.dtype in (_core.float16, _core.bfloat16) \
        else samples.detach()[:n].numpy()
    # ATen's sample order: (w, h) in 2-d, (t, h, w) in 3-d
    dims_of_sample = (1, 0) if nd == 2 else (0, 1, 2)
    flat = np.zeros((n, c) + tuple(out), dtype=np.int64)
    stride = 1
    per_dim = []
    for d in reversed(range(nd)):
        starts = _intervals(u[..., dims_of_sample[d]], spatial[d], out[d], pool[d],
                            str(x.dtype))
        shape = [n, c] + [1] * nd
        shape[2 + d] = out[d]
        flat = flat + starts.reshape(shape) * stride
        per_dim.append(stride)
        stride *= spatial[d]
    strides = per_dim[::-1]  # element stride of each spatial dim in the flattened plane
    offsets = np.zeros(taps, dtype=np.int64)
    for t, tap in enumerate(np.ndindex(*pool)):  # row-major: ATen's scan order
        offsets[t] = sum(i * s for i, s in zip(tap, strides, strict=True))
    index = flat.reshape(n, c, -1, 1) + offsets  # (N, C, outputs, taps)
    gathered = x.reshape(n, c, -1).gather(
        2, _core.tensor(index.reshape(n, c, -1), dtype=_core.int64))
    gathered = gathered.reshape(n, c, -1, taps)
    index_t = _core.tensor(index, dtype=_core.int64)
    best, best_idx = gathered.select(3, 0), index_t.select(3, 0)
    for t in range(1, taps):
        v = gathered.select(3, t)
        take = (v > best) | v.isnan()
        best = _core.where(take, v, best)
        best_idx = _core.where(take, index_t.select(3, t), best_idx)
    return best.reshape(n, c, *out), best_idx.reshape(n, c, *out)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    r"""2-d fractional max pooling (Graham, 2014) over ``(N, C, H, W)`` or ``(C, H, W)``
    inputs: ``kernel_size`` windows at pseudo-random, increasing positions that cover
    the input, one per output cell.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): the window ``(kH, kW)``.
        output_size (int or tuple, optional): the output ``(oH, oW)``.
        output_ratio (tuple, optional): the output size as a fraction of the input's
            (``int(H * rH)``, ``int(W * rW)``) when ``output_size`` is not given.
        return_indices (bool): also return the flat ``H * W`` index of each maximum.
        _random_samples (Tensor, optional): the samples ``(N, C, 2)`` in ``[0, 1)`` that
            place the windows (drawn with ``ferric.rand`` when not given).

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.fractional_max_pool2d(x, 2, output_size=2,
        ...                         _random_samples=ferric.tensor([[[0.5, 0.5]]]))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    r"""3-d fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)`` inputs
    (see :func:`fractional_max_pool2d`); indices are flat ``T * H * W`` positions.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): the window ``(kT, kH, kW)``.
        output_size (int or tuple, optional): the output ``(oT, oH, oW)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the
            input's when ``output_size`` is not given.
        return_indices (bool): also return the index of each maximum.
        _random_samples (Tensor, optional): the samples ``(N, C, 3)`` in ``[0, 1)``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> F.fractional_max_pool3d(x, 2, output_size=1,
        ...                         _random_samples=ferric.tensor([[[0.5, 0.5, 0.5]]]))
        tensor([[[[[63.]]]]])
    """
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """:func:`fractional_max_pool2d` returning ``(values, indices)`` whatever
    ``return_indices`` says, as PyTorch's function of that name.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple of ints): the size of the window.
        output_size (int or tuple of ints, optional): the output size.
        output_ratio (float or tuple of floats, optional): the output size as a fraction of the
            input size.
        return_indices (bool): also return the positions of the maxima. Default: False.
        _random_samples (Tensor, optional): the random pooling offsets (PyTorch's internal
            argument).

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> out, idx = F.fractional_max_pool2d_with_indices(
        ...     ferric.arange(16.0).reshape(1, 4, 4), 3, 1,
        ...     _random_samples=ferric.tensor([[[0.5, 0.5]]]))
        >>> idx
        tensor([[[15]]])
    """
    return _fractional(2, input, kernel_size, output_size, output_ratio, True,
                       _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None,
                                       output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """:func:`fractional_max_pool3d` returning ``(values, indices)`` whatever
    ``return_indices`` says, as PyTorch's function of that name.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple of ints): the size of the window.
        output_size (int or tuple of ints, optional): the output size.
        output_ratio (float or tuple of floats, optional): the output size as a fraction of the
            input size.
        return_indices (bool): also return the positions of the maxima. Default: False.
        _random_samples (Tensor, optional): the random pooling offsets (PyTorch's internal
            argument).

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> out, idx = F.fractional_max_pool3d_with_indices(
        ...     ferric.arange(8.0).reshape(1, 2, 2, 2), 1, 1,
        ...     _random_samples=ferric.tensor([[[0.0, 0.0, 0.0]]]))
        >>> idx
        tensor([[[[7]]]])
    """
    return _fractional(3, input, kernel_size, output_size, output_ratio, True,
                       _random_samples)
