"""``pixel_shuffle`` / ``pixel_unshuffle``, ``channel_shuffle``, ``local_response_norm``,
``rrelu`` and ``embedding_bag`` (re-exported by ``ferric.nn.functional``).

All are compositions of differentiable ferric ops (views, ``index_select``,
``index_add``, pooling), so autograd comes from the core; host-side work is limited to
small index vectors (bag boundaries) computed once per call.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._core import Tensor
from ..autograd.grad_mode import no_grad

# ---------------------------------------------------------------------------- shuffles


def pixel_shuffle(input, upscale_factor):
    r"""Rearranges ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)``.

    Args:
        input (Tensor): the input tensor.
        upscale_factor (int): the factor ``r`` to increase the spatial resolution by.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.pixel_shuffle(ferric.arange(8.).reshape(1, 4, 1, 2), 2)
        tensor([[[[0., 2., 1., 3.],
                  [4., 6., 5., 7.]]]])
    """
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    r"""Rearranges ``(*, C, H r, W r)`` into ``(*, C r^2, H, W)``: the inverse of
    :func:`pixel_shuffle`.

    Args:
        input (Tensor): the input tensor.
        downscale_factor (int): the factor ``r`` to decrease the spatial resolution by.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.pixel_unshuffle(ferric.arange(16.).reshape(1, 1, 4, 4), 2).shape
        ferric.Size([1, 4, 2, 2])
    """
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input "
            f"with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(
            f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    r"""Splits the ``C`` channels (dim 1) into ``groups`` and interleaves them:
    ``(N, g, C/g, *)`` transposed to ``(N, C/g, g, *)``.

    Args:
        input (Tensor): ``(N, C, *)`` input.
        groups (int): the number of groups (divides ``C``).

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.channel_shuffle(ferric.arange(4.).reshape(1, 4, 1, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    g = int(groups)
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. "
                           f"Value of groups:{g}")
    n, c, *rest = input.shape
    if c % g:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {g} "
            "groups."
        )
    x = input.reshape(n, g, c // g, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle

# ---------------------------------------------------------------------------- normalization


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    r"""Normalizes each element by the sum of squares over ``size`` neighbouring channels:
    ``x / (k + alpha / size * sum x^2) ^ beta`` (channels on dim 1, zero padded).

    Args:
        input (Tensor): ``(N, C, *)`` input, 3-D or more.
        size (int): the number of neighbouring channels in the window.
        alpha (float): multiplicative factor. Default: ``1e-4``.
        beta (float): exponent. Default: ``0.75``.
        k (float): additive factor. Default: ``1``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.local_response_norm(ferric.ones(1, 3, 1), 2, alpha=1.0, k=0.0).flatten()
        tensor([1.6818, 1.0000, 1.0000])
    """
    input, = _core._autocast_args("fp32", input)
    dim = input.dim()
    if dim < 3:
        # (PyTorch's message has the run of spaces of a continued string literal)
        raise ValueError(f"Expected 3D or higher dimensionality {' ' * 24} input (got {dim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    sq = input * input
    n, c = input.shape[0], input.shape[1]
    # the squared channels as a (N, 1, C, rest) image, zero padded on the channel axis and
    # averaged over windows of `size` channels (PyTorch pools (size, 1[, 1]) the same way)
    div = sq.reshape(n, 1, c, -1)
    div = _core.pad(div, [0, 0, size // 2, (size - 1) // 2], "constant", 0.0)
    div = _core.avg_pool2d(div, [size, 1], [1, 1], [0, 0], False, True, None)
    div = div.reshape(tuple(input.shape))
    div = (div * alpha + k).pow(beta)
    return input / div


# ---------------------------------------------------------------------------- rrelu


def _rrelu_noise(input, lower, upper, generator):
    """PyTorch's CPU rule: each non-positive element (in row-major order) draws a double
    ``U(lower, upper)`` from the generator, rounded to the input's dtype; the others get
    1. ``lower``/``upper`` are first rounded to the input's dtype, as ATen does."""
    flat = input.detach().reshape(-1)
    neg = flat <= 0
    k = int(neg.sum())
    noise = _core.ones(flat.numel(), dtype=input.dtype)
    if k:
        lo, hi = float(lower), float(upper)
        if input.dtype != _core.float64:
            lo, hi = float(np.float32(lo)), float(np.float32(hi))
        draws = _core.empty(k, dtype=_core.float64)
        draws.uniform_(lo, hi, generator=generator)
        noise[neg] = draws.to(input.dtype)
    return noise.reshape(tuple(input.shape))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False,
          generator=None):
    r"""Randomized leaky ReLU: in training, each negative element is multiplied by a
    slope drawn from ``U(lower, upper)``; in evaluation the slope is
    ``(lower + upper) / 2``.

    Seeded runs draw the same slopes as PyTorch (one double per non-positive element,
    in order, from ``generator`` or the default generator).

    Args:
        input (Tensor): the input tensor.
        lower (float): lower bound of the uniform distribution. Default: ``1/8``.
        upper (float): upper bound of the uniform distribution. Default: ``1/3``.
        training (bool): draw random slopes. Default: ``False``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.rrelu(ferric.tensor([-1.0, 2.0]), 0.2, 0.4)
        tensor([-0.3000,  2.0000])
    """
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"rrelu_with_noise\" not implemented for '{input.dtype}'")
    if training:
        if lower > upper:
            raise RuntimeError("Lower bound should be less than or equal to the upper bound")
        noise = _rrelu_noise(input, lower, upper, generator)
        if inplace:
            return input.mul_(noise)
        return input * noise
    slope = (lower + upper) / 2
    if inplace:
        return _leaky_inplace(input, slope)
    return _core.leaky_relu(input, slope)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    r"""In-place :func:`rrelu`.

    Args:
        input (Tensor): the input tensor.
        lower (float): the lower bound of the random slope. Default: 1/8.
        upper (float): the upper bound of the random slope. Default: 1/3.
        training (bool): draw random slopes (else the mean slope). Default: False.
        generator (:class:`ferric.Generator`, optional): the random number generator to draw from.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-1.0, 2.0])
        >>> _ = F.rrelu_(x, 0.2, 0.4)
        >>> x
        tensor([-0.3000,  2.0000])
    """
    return rrelu(input, lower, upper, training, True, generator)


def _leaky_inplace(input, slope):
    # x * where(x > 0, 1, slope): one in-place multiply whose backward reads the factor
    # (a constant), never the overwritten input
    with no_grad():
        factor = _core.full_like(input, float(slope)).masked_fill(input > 0, 1.0)
    return input.mul_(factor)


# ---------------------------------------------------------------------------- embedding_bag

_BAG_MODES = ("sum", "mean", "max")


def _bags(input, offsets, include_last_offset):
    """Flat indices and the bag of each, from a 2-D ``input`` or 1-D ``input`` +
    ``offsets`` (host-side: bag boundaries are small)."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        b, length = input.shape
        flat = input.reshape(-1)
        bag = np.repeat(np.arange(b), length)
        return flat, bag, b
    if input.dim() != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if not isinstance(offsets, Tensor) or offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if offsets.dtype != _core.int64:
        raise RuntimeError(
            "embedding_bag: expected offsets to be a Long tensor, got "
            f"{offsets.dtype}")
    offs = np.asarray(offsets.tolist(), dtype=np.int64)
    n = input.shape[0]
    if include_last_offset:
        if offs.size < 1:
            raise RuntimeError("include_last_offset: numBags should be at least 1")
        bounds = offs
        b = offs.size - 1
    else:
        bounds = np.concatenate([offs, [n]])
        b = offs.size
    if offs.size and offs[0] != 0:
        raise RuntimeError(
            f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
            f"start from position 0. However, got {int(offs[0])}")
    if offs.size and offs[-1] > n:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {n}, but got "
            f"offsets[-1] of {int(offs[-1])}")
    if np.any(np.diff(bounds) < 0):
        raise RuntimeError("offsets must be monotonically non-decreasing")
    bag = np.full(n, -1, dtype=np.int64)
    for i in range(b):  # one slice assignment per bag
        bag[bounds[i]:bounds[i + 1]] = i
    return input, bag, b


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    r"""Sums, averages or takes the maximum of bags of embeddings without materialising
    the per-index embeddings of a Python loop.

    ``input`` is a 2-D ``(B, N)`` tensor of fixed-size bags, or a 1-D tensor cut into
    bags at ``offsets``. ``per_sample_weights`` (``mode='sum'`` only) scales each
    embedding; indices equal to ``padding_idx`` are left out (and out of the mean's
    count); an empty bag gives zeros. Gradients are dense (``sparse`` is accepted).

    Args:
        input (Tensor): int64 indices into ``weight``.
        weight (Tensor): ``(num_embeddings, embedding_dim)`` table.
        offsets (Tensor, optional): start of each bag in a 1-D ``input``.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        per_sample_weights (Tensor, optional): a float weight per index.
        include_last_offset (bool): ``offsets`` has one more entry (the end).
        padding_idx (int, optional): an index that contributes nothing.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> w = ferric.arange(6.).reshape(3, 2)
        >>> F.embedding_bag(ferric.tensor([0, 2, 1]), w, ferric.tensor([0, 2]), mode="sum")
        tensor([[4., 6.],
                [2., 3.]])
    """
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None:
        if input.shape != per_sample_weights.shape:
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not "
                f"None, then it must have the same shape as the input ({input.shape})"
            )
        if mode != "sum":
            raise NotImplementedError(
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}'). Please open a feature "
                "request on the Pytorch GitHub."
            )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dtype != _core.int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype} instead (while checking arguments "
            "for embedding_bag)")
    num, d = weight.shape
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("padding_idx must be within the number of embeddings")
        if padding_idx < 0:
            padding_idx += num
    flat, bag, b = _bags(input, offsets, include_last_offset)
    idx = np.asarray(flat.tolist(), dtype=np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        where = int(np.nonzero((idx < 0) | (idx >= num))[0][0])
        raise RuntimeError(
            f"Index {where} of input takes value {int(idx[where])} which is not in the valid "
            f"range [0, {num})")
    psw = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    keep = bag >= 0
    if padding_idx is not None:
        keep &= idx != padding_idx
    pos = np.nonzero(keep)[0]
    if max_norm is not None:
        _renorm_rows(weight, np.unique(idx[pos]), max_norm, norm_type)
    rows_t = _core.tensor(idx[pos].tolist(), dtype=_core.int64)
    bag_t = _core.tensor(bag[pos].tolist(), dtype=_core.int64)
    emb = weight.index_select(0, rows_t)
    if scale_grad_by_freq and emb.requires_grad:
        emb = _scale_grad_by_freq(emb, idx[pos])
    if mode == "max":
        return _bag_max(emb, bag[pos], b, d)
    if psw is not None:
        w = psw.index_select(0, _core.tensor(pos.tolist(), dtype=_core.int64))
        emb = emb * w.unsqueeze(1)
    out = _core.zeros(b, d, dtype=weight.dtype).index_add(0, bag_t, emb)
    if mode == "mean":
        counts = np.bincount(bag[pos], minlength=b).astype(np.float64)
        out = out / _core.tensor(np.maximum(counts, 1.0).tolist(),
                                 dtype=weight.dtype).unsqueeze(1)
    return out


def _renorm_rows(weight, rows, max_norm, norm_type):
    # PyTorch's embedding_renorm_: rows of norm above max_norm scaled (in place, untracked)
    # to max_norm / (norm + 1e-7)
    if rows.size == 0:
        return
    with no_grad():
        idx = _core.tensor(rows.tolist(), dtype=_core.int64)
        sel = weight.index_select(0, idx)
        norms = sel.norm(norm_type, 1, keepdim=True)
        scale = _core.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_put_((idx,), sel * scale)


def _scale_grad_by_freq(emb, rows):
    # the gradient of each looked-up row divided by how often its index occurs in the
    # mini-batch; the values are untouched
    counts = np.bincount(rows)[rows].astype(np.float64)
    scale = _core.tensor((1.0 / counts).tolist(), dtype=emb.dtype).unsqueeze(1)
    emb = emb.clone()
    emb.register_hook(lambda g: g * scale)
    return emb


def _bag_max(emb, bag, b, d):
    """Per-bag maximum: the bags laid out as a padded ``(B, longest, D)`` block (padding
    ``-inf``), reduced with ``max``; empty bags give 0 (as PyTorch)."""
    counts = np.bincount(bag, minlength=b)
    longest = int(counts.max()) if counts.size else 0
    if longest == 0:
        return _core.zeros(b, d, dtype=emb.dtype)
    # slot of each embedding inside its bag: its rank among the earlier entries of the bag
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(bag.size) - starts[bag]
    gather = np.full(b * longest, emb.shape[0], dtype=np.int64)
    gather[bag * longest + rank] = np.arange(bag.size)
    pad = _core.full((1, d), float("-inf"), dtype=emb.dtype)
    table = _core.cat([emb, pad], 0)
    block = table.index_select(0, _core.tensor(gather.tolist(), dtype=_core.int64))
    out = block.reshape(b, longest, d).max(1).values
    empty = _core.tensor((counts == 0).tolist(), dtype=_core.bool).unsqueeze(1)
    return _core.where(empty, 0.0, out)
