"""3-d convolution and pooling (re-exported by ``ferric.nn.functional``), composed from
the 2-d Rust kernels.

A 3-d convolution is a sum over the kernel's depth taps of 2-d convolutions: for tap
``kd`` the input depth slices ``kd * dilation + o * stride`` (``o`` over the output
depths) are stacked into the batch and convolved with ``weight[:, :, kd]``; so a call
costs ``kD`` batched 2-d convolutions, whatever the depth. The transposed convolution
scatters ``kD`` batched 2-d transposed convolutions onto their output depths with
``index_add``. Pools pool each depth slice in 2-d, then reduce across depth windows
(a box is separable for the maximum and, with its count, for the mean). Everything is
differentiable ferric ops.
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _core


def _triple(v, name="argument"):
    if isinstance(v, int):
        return (v, v, v)
    v = tuple(int(x) for x in v)
    if len(v) == 1:
        return v * 3
    if len(v) != 3:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 3 "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(v)}")
    return v


def _batched(input, name):
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to {name}, but got input of "
            f"size: {list(input.shape)}")
    return (input.unsqueeze(0), True) if input.dim() == 4 else (input, False)


def _conv_args(input, weight, bias, name):
    """The arguments of ``conv3d``/``conv_transpose3d`` after autocast, the input made
    batched (and whether it was unbatched), with PyTorch's check of the weight's rank."""
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    x, unbatched = _batched(input, name)
    if weight.dim() != 5:
        raise RuntimeError(
            f"Expected 5-dimensional weight for 5-dimensional input {list(x.shape)}, but "
            f"got {weight.dim()}-dimensional weight of size {list(weight.shape)} instead")
    return x, unbatched, weight, bias


def _depth_slices(x, start, count, step):
    # depths start, start + step, ... (count of them) as a batch of 2-d images
    n, c = x.shape[0], x.shape[1]
    xs = x.narrow(2, start, (count - 1) * step + 1)[:, :, ::step] if count else \
        x.narrow(2, 0, 0)
    return xs.transpose(1, 2).reshape(n * count, c, x.shape[3], x.shape[4])


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""3-d convolution over ``(N, C_in, D, H, W)`` (or unbatched) inputs with a
    ``(C_out, C_in / groups, kD, kH, kW)`` weight.

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_out, C_in / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple of ints): the step of the kernel. Default: 1.
        padding (int or tuple of ints or str): implicit padding, or ``'valid'``/``'same'``. Default:
            0.
        dilation (int or tuple of ints): the spacing between window elements. Default: 1.
        groups (int): the number of blocked connections from input to output channels. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.conv3d(ferric.ones(1, 2, 4, 5, 5), ferric.ones(3, 2, 2, 3, 3)).shape
        ferric.Size([1, 3, 3, 3, 3])
    """
    x, unbatched, weight, bias = _conv_args(input, weight, bias, "conv3d")
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{x.shape[1]} channels instead")
    s, d = _triple(stride, "stride"), _triple(dilation, "dilation")
    kd_, kh, kw = weight.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * 3
        elif padding == "same":
            if any(v != 1 for v in s):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for k, dd in zip((kd_, kh, kw), d, strict=True):
                total = dd * (k - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = [(p, p) for p in _triple(padding, "padding")]
    (d0, d1), (h0, h1), (w0, w1) = pads
    if d0 or d1 or h0 != h1 or w0 != w1:
        # depth padding (and any asymmetric 'same' padding) as explicit zeros
        if h0 == h1 and w0 == w1:
            x = _core.pad(x, [0, 0, 0, 0, d0, d1], "constant", 0.0)
            hw_pad = [h0, w0]
        else:
            x = _core.pad(x, [w0, w1, h0, h1, d0, d1], "constant", 0.0)
            hw_pad = [0, 0]
    else:
        hw_pad = [h0, w0]
    n, depth = x.shape[0], x.shape[2]
    d_out = (depth - d[0] * (kd_ - 1) - 1) // s[0] + 1
    if d_out <= 0:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({depth} x {x.shape[3]} x "
            f"{x.shape[4]}). Kernel size: ({kd_} x {kh} x {kw}). Kernel size can't be "
            "greater than actual input size")
    out = None
    for k in range(kd_):
        xs = _depth_slices(x, k * d[0], d_out, s[0])
        y = _core.conv2d(xs, weight[:, :, k], None, list(s[1:]), hw_pad, list(d[1:]),
                         groups)
        out = y if out is None else out + y
    c_out, ho, wo = out.shape[1], out.shape[2], out.shape[3]
    out = out.reshape(n, d_out, c_out, ho, wo).transpose(1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    out = out.contiguous()
    return out.squeeze(0) if unbatched else out


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""3-d transposed convolution (the gradient of :func:`conv3d` w.r.t. its input) with
    a ``(C_in, C_out / groups, kD, kH, kW)`` weight.

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple of ints): the step of the kernel. Default: 1.
        padding (int or tuple of ints): ``dilation * (kernel_size - 1) - padding`` zeros are added
            to each side. Default: 0.
        output_padding (int or tuple of ints): extra size added to one side of the output. Default:
            0.
        groups (int): the number of blocked connections from input to output channels. Default: 1.
        dilation (int or tuple of ints): the spacing between window elements. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.conv_transpose3d(ferric.ones(1, 2, 3, 3, 3), ferric.ones(2, 4, 2, 2, 2),
        ...                    stride=2).shape
        ferric.Size([1, 4, 6, 6, 6])
    """
    x, unbatched, weight, bias = _conv_args(input, weight, bias, "conv_transpose3d")
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {weight.shape[0]} channels, but got "
            f"{x.shape[1]} channels instead")
    s, p = _triple(stride, "stride"), _triple(padding, "padding")
    op, d = _triple(output_padding, "output_padding"), _triple(dilation, "dilation")
    for i in range(3):
        if op[i] >= s[i] and op[i] >= d[i]:
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding_depth: {op[0]}, output_padding_height: {op[1]}, "
                f"output_padding_width: {op[2]}, stride_depth: {s[0]}, stride_height: "
                f"{s[1]}, stride_width: {s[2]}, dilation_depth: {d[0]}, dilation_height: "
                f"{d[1]}, dilation_width: {d[2]}")
    n, c_in, d_in = x.shape[0], x.shape[1], x.shape[2]
    kd_ = weight.shape[2]
    d_out = (d_in - 1) * s[0] - 2 * p[0] + d[0] * (kd_ - 1) + op[0] + 1
    full = max((d_in - 1) * s[0] + d[0] * (kd_ - 1) + 1, p[0] + d_out)
    xs = x.transpose(1, 2).reshape(n * d_in, c_in, x.shape[3], x.shape[4])
    out = None
    for k in range(kd_):
        y = _core.conv_transpose2d(xs, weight[:, :, k], None, list(s[1:]), list(p[1:]),
                                   list(op[1:]), groups, list(d[1:]))
        c_out, ho, wo = y.shape[1], y.shape[2], y.shape[3]
        y = y.reshape(n, d_in, c_out, ho, wo)
        if out is None:
            out = _core.zeros(n, full, c_out, ho, wo, dtype=y.dtype)
        pos = _core.tensor((np.arange(d_in) * s[0] + k * d[0]).tolist(), dtype=_core.int64)
        out = out.index_add(1, pos, y)
    out = out.narrow(1, p[0], d_out).transpose(1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    out = out.contiguous()
    return out.squeeze(0) if unbatched else out


# ---------------------------------------------------------------------------- pools


def _pool_len(size, k, s, p, dil, ceil_mode):
    # ATen's pooling_output_shape
    num = size + 2 * p - dil * (k - 1) - 1
    out = (num + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_args(kernel_size, stride, padding, dilation=1):
    k = _triple(kernel_size, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _triple(stride, "stride")
    return k, s, _triple(padding, "padding"), _triple(dilation, "dilation")


def _check_pool_padding(k, p, dl):
    """PyTorch's refusal of padding larger than half the kernel, per dimension."""
    for i in range(3):
        if p[i] > k[i] // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got pad="
                f"{p[i]}, kernel_size={k[i]} and dilation={dl[i]}")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""3-d max pooling over ``(N, C, D, H, W)`` (or unbatched) inputs; with
    ``return_indices`` also the flat ``D * H * W`` index of each maximum.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple of ints): the size of the window.
        stride (int or tuple of ints, optional): the step of the window. Default: ``kernel_size``.
        padding (int or tuple of ints): implicit padding on each side. Default: 0.
        dilation (int or tuple of ints): the spacing between window elements. Default: 1.
        ceil_mode (bool): round the output size up instead of down. Default: False.
        return_indices (bool): also return the positions of the maxima. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.max_pool3d(ferric.arange(64.).reshape(1, 1, 4, 4, 4), 2).flatten()
        tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """
    _pool_dims(input)
    x, unbatched = _batched(input, "max_pool3d")
    k, s, p, dl = _pool_args(kernel_size, stride, padding, dilation)
    _check_pool_padding(k, p, dl)
    n, c, depth, h, w = x.shape
    d_out = _pool_len(depth, k[0], s[0], p[0], dl[0], ceil_mode)
    # 2-d pooling of every depth slice (channels and depths as channels)
    y, idx2 = _core.max_pool2d_with_indices(x.reshape(n, c * depth, h, w), list(k[1:]),
                                            list(s[1:]), list(p[1:]), list(dl[1:]),
                                            ceil_mode)
    ho, wo = y.shape[2], y.shape[3]
    y = y.reshape(n, c, depth, ho, wo)
    idx2 = idx2.reshape(n, c, depth, ho, wo)
    # depth windows: taps kd at depth o * s - p + kd * dil (outside: -inf, never chosen)
    best = best_idx = None
    for kd in range(k[0]):
        dpos = np.arange(d_out) * s[0] - p[0] + kd * dl[0]
        ok = (dpos >= 0) & (dpos < depth)
        sel = _core.tensor(np.clip(dpos, 0, depth - 1).tolist(), dtype=_core.int64)
        okt = _core.tensor(ok.tolist(), dtype=_core.bool).reshape(1, 1, -1, 1, 1)
        v = _core.where(okt, y.index_select(2, sel), float("-inf"))
        i = idx2.index_select(2, sel) + sel.reshape(1, 1, -1, 1, 1) * (h * w)
        if best is None:
            best, best_idx = v, i
        else:
            # strictly greater (or NaN) replaces, so the first maximum wins, as in ATen
            take = (v > best) | v.isnan()
            best = _core.where(take, v, best)
            best_idx = _core.where(take, i, best_idx)
    if unbatched:
        best, best_idx = best.squeeze(0), best_idx.squeeze(0)
    best = _core._named_node(best, "MaxPool3DWithIndicesBackward0")
    return (best, best_idx) if return_indices else best


def _pool_dims(input):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    r"""3-d average pooling over ``(N, C, D, H, W)`` (or unbatched) inputs.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple of ints): the size of the window.
        stride (int or tuple of ints, optional): the step of the window. Default: ``kernel_size``.
        padding (int or tuple of ints): implicit padding on each side. Default: 0.
        ceil_mode (bool): round the output size up instead of down. Default: False.
        count_include_pad (bool): count the padding zeros in the average. Default: True.
        divisor_override (int, optional): divide by this instead of the window size.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.avg_pool3d(ferric.arange(8.).reshape(1, 1, 2, 2, 2), 2).flatten()
        tensor([3.5000])
    """
    _pool_dims(input)
    x, unbatched = _batched(input, "avg_pool3d")
    k, s, p, dl = _pool_args(kernel_size, stride, padding)
    dhw = x.shape[2:]
    if any(size < kk for size, kk in zip(dhw, k, strict=True)):
        raise RuntimeError(f"input image (T: {dhw[0]} H: {dhw[1]} W: {dhw[2]}) smaller than "
                           f"kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    _check_pool_padding(k, p, dl)
    n, c, depth, h, w = x.shape
    d_out = _pool_len(depth, k[0], s[0], p[0], 1, ceil_mode)
    # window sums of every depth slice in 2-d (divisor 1), then across depth
    sums = _core.avg_pool2d(x.reshape(n, c * depth, h, w), list(k[1:]), list(s[1:]),
                            list(p[1:]), ceil_mode, True, 1)
    ho, wo = sums.shape[2], sums.shape[3]
    sums = sums.reshape(n, c, depth, ho, wo)
    total = None
    for kd in range(k[0]):
        dpos = np.arange(d_out) * s[0] - p[0] + kd
        ok = (dpos >= 0) & (dpos < depth)
        sel = _core.tensor(np.clip(dpos, 0, depth - 1).tolist(), dtype=_core.int64)
        okt = _core.tensor(ok.tolist(), dtype=_core.bool).reshape(1, 1, -1, 1, 1)
        v = _core.where(okt, sums.index_select(2, sel), 0.0)
        total = v if total is None else total + v
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        out = total / divisor_override
    else:
        counts = [_window_counts(size, o, kk, ss, pp, ceil_mode, count_include_pad)
                  for size, o, kk, ss, pp in zip((depth, h, w), (d_out, ho, wo), k, s, p,
                                                  strict=True)]
        div = counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]
        out = total / _core.tensor(div.tolist(), dtype=total.dtype)
    return _core._named_node(out.squeeze(0) if unbatched else out, "AvgPool3DBackward0")


def _window_counts(size, out, k, s, p, ceil_mode, count_include_pad):
    # ATen's divisor per output position: the window clipped to the padded input (and to
    # the input itself unless count_include_pad)
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    full = end - start
    if count_include_pad:
        return full.astype(np.float64)
    return (np.minimum(end, size) - np.maximum(start, 0)).astype(np.float64)


def adaptive_avg_pool3d(input, output_size):
    r"""3-d adaptive average pooling to ``output_size`` (a box average is separable: one
    adaptive 1-d pooling per dimension).

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size (int or tuple of ints): the size of the output.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.adaptive_avg_pool3d(ferric.ones(1, 2, 5, 4, 3), (2, 2, 1)).shape
        ferric.Size([1, 2, 2, 2, 1])
    """
    x, unbatched = _batched(input, "adaptive_avg_pool3d")
    sizes = _adaptive_sizes(x, output_size)
    for axis in (4, 3, 2):
        moved = x.movedim(axis, -1)
        shape = list(moved.shape)
        flat = moved.reshape(1, -1, shape[-1])
        pooled = _core.adaptive_avg_pool1d(flat, [sizes[axis - 2]])
        x = pooled.reshape(shape[:-1] + [sizes[axis - 2]]).movedim(-1, axis)
    return _core._named_node(x.squeeze(0) if unbatched else x, "AdaptiveAvgPool3DBackward0")


def _adaptive_sizes(x, output_size):
    sizes = [output_size] * 3 if isinstance(output_size, int) else list(output_size)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    return [x.shape[i + 2] if v is None else int(v) for i, v in enumerate(sizes)]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    r"""3-d adaptive max pooling over ``(N, C, D, H, W)`` (or unbatched ``(C, D, H, W)``)
    inputs: output cell ``(d, h, w)`` is the maximum of the box
    ``[floor(d * D / oD), ceil((d + 1) * D / oD))`` x (the same for ``H`` and ``W``).
    Each depth slice is pooled in 2-d, then the maximum is taken across the depth window
    (the first maximum wins, a NaN wins over numbers, as in PyTorch).

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size (int or tuple): the output ``(oD, oH, oW)``; an int means a cube, a
            ``None`` entry keeps that input size.
        return_indices (bool): also return the index of each maximum in the flattened
            ``D * H * W`` volume of its channel (int64). Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(24.0).reshape(1, 2, 3, 4)
        >>> out, idx = F.adaptive_max_pool3d(x, (1, 1, 2), return_indices=True)
        >>> out.flatten(), idx.flatten()
        (tensor([21., 23.]), tensor([21, 23]))
    """
    name = "adaptive_max_pool3d"
    sizes = _adaptive_max_sizes(input, output_size, name)
    if len(sizes) != 3:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be 3")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {i} being empty")
    for s in sizes:
        if s < 0:
            shape = list(input.shape[:-3]) + sizes
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                  f"'{_TORCH_NAMES.get(str(input.dtype), input.dtype)}'")
    x, unbatched = _batched(input, name)
    n, c, depth, h, w = x.shape
    od, oh, ow = sizes
    if x.numel() == 0 or od * oh * ow == 0:
        # nothing to pool (no batch, no channels, or an empty output): an empty view
        best = x.reshape(n, c, depth * h * w).narrow(2, 0, 0).reshape(n, c, od, oh, ow)
        best_idx = _core.zeros(n, c, od, oh, ow, dtype=_core.int64)
    elif x.dtype in (_core.float16, _core.bfloat16):
        # the maximum is exact in float32 (and the casts pass gradients through)
        best, best_idx = _adaptive_max_depth(x.float(), sizes)
        best = best.to(x.dtype)
    else:
        best, best_idx = _adaptive_max_depth(x, sizes)
    if unbatched:
        best, best_idx = best.squeeze(0), best_idx.squeeze(0)
    best = _core._named_node(best, "AdaptiveMaxPool3DBackward0")
    return (best, best_idx) if return_indices else best


_TORCH_NAMES = {f"ferric.{k}": v for k, v in (
    ("int64", "Long"), ("int32", "Int"), ("int16", "Short"), ("int8", "Char"),
    ("uint8", "Byte"), ("bool", "Bool"))}


def _adaptive_max_depth(x, sizes):
    # every depth slice pooled in 2-d (channels and depths as channels), with the flat
    # H * W index of each maximum
    n, c, depth, h, w = x.shape
    od, oh, ow = sizes
    y, idx2 = _core.adaptive_max_pool2d(x.reshape(n, c * depth, h, w), [oh, ow], True)
    y = y.reshape(n, c, depth, oh, ow)
    idx2 = idx2.reshape(n, c, depth, oh, ow)
    # depth window of output d: [floor(d * D / oD), ceil((d + 1) * D / oD))
    starts = (np.arange(od) * depth) // od
    ends = -((-(np.arange(od) + 1) * depth) // od)
    best = best_idx = None
    for tap in range(int((ends - starts).max())):
        dpos = starts + tap
        ok = dpos < ends
        sel = _core.tensor(np.minimum(dpos, depth - 1).tolist(), dtype=_core.int64)
        okt = _core.tensor(ok.tolist(), dtype=_core.bool).reshape(1, 1, -1, 1, 1)
        v = y.index_select(2, sel)
        i = idx2.index_select(2, sel) + sel.reshape(1, 1, -1, 1, 1) * (h * w)
        if best is None:  # the first tap is inside every window
            best, best_idx = v, i
        else:
            # a greater value or a NaN replaces (so the first maximum and the last NaN
            # win, as in ATen's kernel); taps past a window's end never do
            take = ((v > best) | v.isnan()) & okt
            best = _core.where(take, v, best)
            best_idx = _core.where(take, i, best_idx)
    return best, best_idx


def _adaptive_max_sizes(input, output_size, name):
    """``output_size`` as a list of ints: PyTorch's ``_list_with_default`` (``None`` keeps
    the matching trailing input size), then its argument parser's type checks."""
    if isinstance(output_size, bool):
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                        "not bool")
    if isinstance(output_size, int):
        return [output_size] * 3
    count = len(output_size)  # TypeError "object of type 'float' has no len()", as PyTorch
    if count >= input.dim():
        raise ValueError(f"Input dimension should be at least {count + 1}")
    defaults = list(input.shape)[-count:] if count else []
    sizes = [d if v is None else v for v, d in zip(output_size, defaults, strict=True)]
    for pos, v in enumerate(sizes):
        try:
            if isinstance(v, float):
                raise TypeError
            sizes[pos] = operator.index(v)
        except TypeError:
            kind = type(v).__name__
            if pos == 0:
                raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple "
                                f"of ints, but found element of type {kind} at pos 0") from None
            raise TypeError(f"{name}(): argument 'output_size' failed to unpack the object at "
                            f"pos 2 with error \"type must be tuple of ints,but got {kind}\"") \
                from None
    return sizes
