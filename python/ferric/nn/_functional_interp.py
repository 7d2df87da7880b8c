"""``interpolate`` / ``upsample*`` (re-exported by ``ferric.nn.functional``).

Every mode is separable: the output is built one spatial dimension at a time, last
dimension first (the order of PyTorch's CPU kernel, whose innermost loop runs over the
last dimension). The per-dimension source indices and weights are small vectors computed
on the host with PyTorch's formulas in PyTorch's precision (``float`` for float32 inputs
and for every nearest mode, ``double`` for float64 linear/cubic) and with the multiply-
adds its kernel fuses, so results agree with PyTorch's to the last bit or within an ulp
or two. A dimension is then resampled either by one matrix product with the dense
(out x in) interpolation matrix (dimensions up to ``_DENSE_MAX`` pixels, finite inputs)
or as ``sum_k x.index_select(d, idx_k) * w_k`` (nearest modes, larger dimensions,
non-finite inputs, where a zero weight times an inf would spread NaN). Both are
differentiable ferric ops, so gradients come from the core autograd; nothing loops over
pixels in Python. See ``docs/nn.md``.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np

from .. import _core
from .._core import Tensor

_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
# the mode each input rank needs for the dimension-specific interpolating modes
_RANK_OF_MODE = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_RANK_NAME = {3: "linear", 4: "bilinear", 5: "trilinear"}
_CUBIC_A = -0.75


def _is_integer(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool) or (
        isinstance(x, Tensor) and x.dim() == 0 and x.dtype == _core.int64)


def _output_and_scales(input, size, scale_factor, mode, recompute_scale_factor):
    """PyTorch's Python-side resolution of ``size`` / ``scale_factor``: returns the
    output sizes and the scales handed to the kernel (``None`` when the kernel derives
    them from the sizes)."""
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    "Tuple[int, int, int], but got size with types "
                    f"{[type(x) for x in size]}"
                )
            out = [int(s) for s in size]
        else:
            out = [int(size)] * dim
    elif scale_factor is not None:
        out = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {spatial} and scale_factor of "
                    f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                    "...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out = [int(spatial[i] * scales[i]) for i in range(dim)]
        scales = None
    elif out is None:
        # the kernel's own rule (ATen's compute_output_size): truncate in * scale
        out = [int(spatial[i] * scales[i]) for i in range(dim)]
    return out, scales


def _check_sizes(name, input, out):
    """ATen's ``upsample_{1,2,3}d_common_check``."""
    spatial = list(input.shape[2:])
    letters = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}[len(spatial)]
    if any(s <= 0 for s in spatial) or any(s <= 0 for s in out):
        ins = ", ".join(f"{k}: {v}" for k, v in zip(letters, spatial, strict=True))
        outs = ", ".join(f"{k}: {v}" for k, v in zip(letters, out, strict=True))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({ins}) "
            f"output ({outs}) [{name}]"
        )
    if input.numel() == 0 and any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(
            f"Non-empty {len(spatial) + 2}D data tensor expected but got a tensor with "
            f"sizes {list(input.shape)} [{name}]"
        )


# ---------------------------------------------------------------------------- indices


def _scale_value(scale, in_size, out_size, ft):
    # ATen's compute_scales_value: 1/scale when the caller gave a scale, else in/out
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(in_size) / ft(out_size)


def _area_scale(in_size, out_size, align_corners, scale, ft):
    # ATen's area_pixel_compute_scale
    if align_corners:
        return ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    return _scale_value(scale, in_size, out_size, ft)


def _fma(a, b, c, ft):
    """``a * b + c`` rounded once, elementwise: what PyTorch's kernels compute where the
    compiler fused a multiply-add (its AVX2/AVX-512 builds). float32: the product is
    exact in float64; float64: exact rational arithmetic (the vectors are one entry per
    output position along one dimension)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, ft), np.asarray(b, ft), np.asarray(c, ft))
    if ft is np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)
    out = [float(Fraction(x) * Fraction(y) + Fraction(z))
           for x, y, z in zip(a.ravel().tolist(), b.ravel().tolist(), c.ravel().tolist(),
                              strict=True)]
    return np.asarray(out, dtype=np.float64).reshape(a.shape)


def _source_index(ratio, out_size, align_corners, cubic, ft):
    # ATen's area_pixel_compute_source_index, vectorised over the output positions:
    # scale * (i + 0.5) - 0.5, one fused multiply-add in PyTorch's kernel
    dst = np.arange(out_size).astype(ft)
    if align_corners:
        return ratio * dst
    src = _fma(ratio, dst + ft(0.5), ft(-0.5), ft)
    return src if cubic else np.where(src < 0, ft(0), src).astype(ft)


def _guard(real, in_size, ft):
    # ATen's guard_index_and_lambda: the lower neighbour and the fraction past it
    idx = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.minimum(np.maximum(real - idx.astype(ft), ft(0)), ft(1)).astype(ft)
    return idx, lam


def _nearest_taps(in_size, out_size, scale, exact):
    """Source index of each output position (ATen's nearest_idx / nearest_exact_idx),
    computed in float as ATen does for every dtype."""
    i = np.arange(out_size)
    if not exact:
        if out_size == in_size:
            return [i], None
        if out_size == 2 * in_size:
            return [i >> 1], None
    s = _scale_value(scale, in_size, out_size, np.float32)
    if exact:
        # floorf((i + 0.5) * scale): the product is a double rounded to float by floorf
        pos = ((i + 0.5) * np.float64(s)).astype(np.float32)
    else:
        pos = i.astype(np.float32) * s
    return [np.minimum(np.floor(pos).astype(np.int64), in_size - 1)], None


def _linear_taps(in_size, out_size, scale, align_corners, ft):
    if out_size == in_size:
        # ATen's weights 1 and 0 on the same index (so an inf becomes NaN, as there)
        i = np.arange(out_size)
        return [i, i], [np.ones(out_size, ft), np.zeros(out_size, ft)]
    ratio = _area_scale(in_size, out_size, align_corners, scale, ft)
    real = _source_index(ratio, out_size, align_corners, False, ft)
    i0, lam1 = _guard(real, in_size, ft)
    i1 = i0 + (i0 < in_size - 1)
    return [i0, i1], [ft(1) - lam1, lam1]


def _cubic_weights(t, ft):
    a = ft(_CUBIC_A)

    def conv1(x):  # |x| <= 1
        return ((a + ft(2)) * x - (a + ft(3))) * x * x + ft(1)

    def conv2(x):  # 1 < |x| < 2; PyTorch's kernel fuses the two inner multiply-adds
        return _fma(_fma(a, x, -(ft(5) * a), ft), x, ft(8) * a, ft) * x - ft(4) * a

    x2 = ft(1) - t
    return [conv2(t + ft(1)), conv1(t), conv1(x2), conv2(x2 + ft(1))]


def _cubic_taps(in_size, out_size, scale, align_corners, ft):
    ratio = _area_scale(in_size, out_size, align_corners, scale, ft)
    real = _source_index(ratio, out_size, align_corners, True, ft)
    idx, t = _guard(real, in_size, ft)
    taps = [np.clip(idx - 1 + j, 0, in_size - 1) for j in range(4)]
    return taps, [w.astype(ft) for w in _cubic_weights(t, ft)]


def _aa_filter(x, cubic, ft):
    # the anti-aliasing filters: triangle (bilinear), Keys cubic with a = -0.5 (bicubic)
    x = np.abs(x)
    if not cubic:
        return np.where(x < 1, ft(1) - x, ft(0)).astype(ft)
    a = ft(-0.5)
    c1 = ((a + ft(2)) * x - (a + ft(3))) * x * x + ft(1)
    c2 = _fma(_fma(a, x, -(ft(5) * a), ft), x, ft(8) * a, ft) * x - ft(4) * a
    return np.where(x < 1, c1, np.where(x < 2, c2, ft(0))).astype(ft)


def _aa_taps(in_size, out_size, scale, align_corners, cubic, ft):
    """ATen's anti-aliased weights: a filter stretched by the scale when downsampling,
    over the input pixels whose centres it covers, normalised to sum 1 (the taps of
    shorter windows are padded with zero weights)."""
    if in_size == out_size:
        return None  # ATen skips the dimension
    ratio = _area_scale(in_size, out_size, align_corners, scale, ft)
    interp = 4 if cubic else 2
    support = ft(interp * 0.5) * ratio if ratio >= 1 else ft(interp * 0.5)
    width = int(np.ceil(support)) * 2 + 1
    invscale = ft(1) / ratio if ratio >= 1 else ft(1)
    center = ratio * (np.arange(out_size).astype(ft) + ft(0.5))
    xmin = np.maximum((center - support + ft(0.5)).astype(np.int64), 0)
    xsize = np.clip(np.minimum((center + support + ft(0.5)).astype(np.int64), in_size) - xmin,
                    0, width)
    j = np.arange(width)
    valid = j[None, :] < xsize[:, None]
    pos = (j[None, :] + xmin[:, None]).astype(ft) - center[:, None] + ft(0.5)
    w = np.where(valid, _aa_filter(pos * invscale, cubic, ft), ft(0)).astype(ft)
    # the normaliser, summed left to right as ATen does
    total = np.zeros(out_size, ft)
    for k in range(width):
        total = (total + w[:, k]).astype(ft)
    w = np.where(total[:, None] != 0, w / np.where(total == 0, ft(1), total)[:, None],
                 w).astype(ft)
    idx = np.where(valid, j[None, :] + xmin[:, None], xmin[:, None])
    idx = np.minimum(idx, in_size - 1)
    return [idx[:, k] for k in range(width)], [w[:, k] for k in range(width)]


def _apply_dim(x, axis, taps, weights):
    """``sum_k x.index_select(axis, taps[k]) * weights[k]``, accumulated left to right."""
    shape = [-1] + [1] * (x.dim() - 1 - axis)
    out = None
    for k, idx in enumerate(taps):
        g = x.index_select(axis, _core.tensor(idx, dtype=_core.int64))
        if weights is not None:
            w = _core.tensor(weights[k], dtype=x.dtype).reshape(shape)
            g = g * w
        out = g if out is None else out + g
    return out


# Dimensions up to this size are resampled by one matrix product with the dense
# (out x in) interpolation matrix instead of one gather per tap: ferric's GEMM is several
# times faster than its gathers, and the zeros of the matrix add nothing to a finite sum
# (products are accumulated in the same order, x0 * w0 first). Larger dimensions would
# waste too many multiplications on zeros.
_DENSE_MAX = 256


def _dense_dim(x, axis, taps, weights, in_size, ft):
    out_size = len(taps[0])
    w = np.zeros((out_size, in_size), dtype=ft)
    rows = np.arange(out_size)
    for idx, wk in zip(taps, weights, strict=True):
        np.add.at(w, (rows, idx), wk)
    mat = _core.tensor(w, dtype=x.dtype)
    # contiguous operands: the product takes one kernel path (one rounding of each
    # multiply-add) whatever the input's strides
    if axis == x.dim() - 1:
        return x.contiguous() @ mat.T
    if axis == x.dim() - 2:
        return mat @ x.contiguous()
    return (mat @ x.movedim(axis, -2).contiguous()).movedim(-2, axis)


def _resample(input, out_size, scales, taps_of, dense=False):
    x = input
    # the dense path only for finite inputs: there an inf times a zero weight is NaN
    dense = dense and bool(input.isfinite().all())
    ft = np.float64 if input.dtype == _core.float64 else np.float32
    for d in reversed(range(len(out_size))):
        axis = d + 2
        in_size = input.shape[axis]
        scale = None if scales is None else scales[d]
        taps = taps_of(in_size, out_size[d], scale)
        if taps is None:
            continue
        if dense and taps[1] is not None and in_size <= _DENSE_MAX:
            x = _dense_dim(x, axis, taps[0], taps[1], in_size, ft)
        else:
            x = _apply_dim(x, axis, *taps)
    if x is input:
        x = input.clone()
    return x


def _check_dtype(name, input):
    # ATen dispatches the kernels over the floating types (and uint8, which ferric lacks);
    # `name` is the dispatch that refuses the dtype first in ATen
    if not input.is_floating_point():
        raise NotImplementedError(
            f'"{name}" not implemented for \'{_dtype_name(input.dtype)}\'')


def _dtype_name(dtype):
    return {"int64": "Long", "bool": "Bool", "int32": "Int", "uint8": "Byte"}.get(
        str(dtype).replace("ferric.", ""), str(dtype))


def _nearest(input, out_size, scales, exact):
    n = len(out_size)
    suffix = "_exact" if exact else ""
    _check_sizes(f"upsample_nearest{suffix}{n}d", input, out_size)
    _check_dtype("upsample_nearest2d_channels_last" if n == 2 else
                 "compute_indices_weights_nearest", input)
    return _resample(input, out_size, scales,
                     lambda i, o, s: _nearest_taps(i, o, s, exact))


def _antialiased(input, out_size, scales, align_corners, cubic):
    name = "_upsample_bicubic2d_aa" if cubic else "_upsample_bilinear2d_aa"
    _check_sizes(name, input, out_size)
    _check_dtype("compute_index_ranges_weights", input)
    ft = np.float64 if input.dtype == _core.float64 else np.float32
    return _resample(input, out_size, scales,
                     lambda i, o, s: _aa_taps(i, o, s, align_corners, cubic, ft), True)


def _linear(input, out_size, scales, align_corners, cubic):
    n = len(out_size)
    name = "upsample_bicubic2d" if cubic else f"upsample_{_RANK_NAME[n + 2]}{n}d"
    _check_sizes(name, input, out_size)
    kernel = "cubic" if cubic else "linear"
    _check_dtype("upsample_bilinear2d_channels_last" if name == "upsample_bilinear2d" else
                 f"compute_indices_weights_{kernel}", input)
    ft = np.float64 if input.dtype == _core.float64 else np.float32
    if cubic:
        return _resample(input, out_size, scales,
                         lambda i, o, s: _cubic_taps(i, o, s, align_corners, ft), True)
    return _resample(input, out_size, scales,
                     lambda i, o, s: _linear_taps(i, o, s, align_corners, ft), True)


def _area(input, out_size):
    if input.dim() == 3:
        return _core.adaptive_avg_pool1d(input, out_size)
    if input.dim() == 4:
        return _core.adaptive_avg_pool2d(input, out_size)
    # adaptive average pooling is separable: average over each dimension in turn
    x = input
    for d in reversed(range(3)):
        axis = d + 2
        moved = x.movedim(axis, -1)
        shape = list(moved.shape)
        flat = moved.reshape(1, -1, shape[-1])
        pooled = _core.adaptive_avg_pool1d(flat, [out_size[d]])
        x = pooled.reshape(shape[:-1] + [out_size[d]]).movedim(-1, axis)
    return x


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    r"""Down/up samples ``input`` to ``size`` or by ``scale_factor``.

    ``input`` is ``(N, C, W)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``. Modes:
    ``nearest``, ``nearest-exact``, ``linear`` (3-D), ``bilinear`` / ``bicubic`` (4-D),
    ``trilinear`` (5-D) and ``area`` (adaptive average pooling). The source position of
    each output index follows PyTorch: with ``align_corners=True`` the corner pixels of
    input and output are aligned; with a ``scale_factor`` (and
    ``recompute_scale_factor`` not set) the kernel uses ``1 / scale_factor`` as the step,
    otherwise ``in / out``. Bicubic uses ``A = -0.75`` and clamps taps at the border.

    Args:
        input (Tensor): the input tensor.
        size (int or Tuple[int]): the output spatial size.
        scale_factor (float or Tuple[float]): the multiplier for the spatial size.
        mode (str): the algorithm. Default: ``'nearest'``.
        align_corners (bool, optional): align corner pixels (interpolating modes only).
        recompute_scale_factor (bool, optional): recompute the scale from the floored
            output size instead of passing ``scale_factor`` to the kernel.
        antialias (bool): anti-aliased resampling (bilinear and bicubic on 4-D inputs):
            the filter widens with the downscaling factor, as in PIL. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([[[1.0, 2.0, 4.0]]])
        >>> F.interpolate(x, scale_factor=2, mode="nearest")
        tensor([[[1., 1., 2., 2., 4., 4.]]])
        >>> F.interpolate(x, size=5, mode="linear", align_corners=True)
        tensor([[[1.0000, 1.5000, 2.0000, 3.0000, 4.0000]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    rank = input.dim()
    out_size, scales = _output_and_scales(input, size, scale_factor, mode,
                                          recompute_scale_factor)
    if antialias:
        if not (mode in ("bilinear", "bicubic") and rank == 4):
            raise ValueError(
                "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                "and requires a 4-D tensor as input"
            )
        return _antialiased(input, out_size, scales, align_corners, mode == "bicubic")
    if rank in (3, 4, 5):
        if mode in ("nearest", "nearest-exact"):
            return _nearest(input, out_size, scales, mode == "nearest-exact")
        if mode == "area":
            _check_sizes(f"adaptive_avg_pool{rank - 2}d", input, out_size)
            return _area(input, out_size)
        if _RANK_OF_MODE.get(mode) == rank:
            return _linear(input, out_size, scales, align_corners, mode == "bicubic")
        if mode in ("linear", "bilinear", "trilinear"):
            raise NotImplementedError(
                f"Got {rank}D input, but {mode} mode needs {_RANK_OF_MODE[mode]}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {rank}D) for the "
        "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})"
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    r"""Deprecated alias of :func:`interpolate` (PyTorch warns the same way).

    Args:
        input (Tensor): the input tensor.
        size (int or tuple of ints, optional): the output size.
        scale_factor (float or tuple of floats, optional): the multiplier for the spatial size.
        mode (str): the interpolation mode. Default: ``'nearest'``.
        align_corners (bool, optional): align the corner pixels of input and output.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.upsample(ferric.ones(1, 1, 2), scale_factor=2).shape  # doctest: +SKIP
        ferric.Size([1, 1, 4])
    """
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    r"""Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')``.

    Args:
        input (Tensor): the input tensor.
        size (int or tuple of ints, optional): the output size.
        scale_factor (float or tuple of floats, optional): the multiplier for the spatial size.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.upsample_nearest(ferric.ones(1, 1, 2), 3).shape  # doctest: +SKIP
        ferric.Size([1, 1, 3])
    """
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` "
        "instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    r"""Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``.

    Args:
        input (Tensor): the input tensor.
        size (int or tuple of ints, optional): the output size.
        scale_factor (float or tuple of floats, optional): the multiplier for the spatial size.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.upsample_bilinear(ferric.ones(1, 1, 2, 2), 3).shape  # doctest: +SKIP
        ferric.Size([1, 1, 3, 3])
    """
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` "
        "instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
