"""``ferric.nn.functional``: the functional forms of the layers (``torch.nn.functional``).

Dropout, embedding, layer norm and batch norm (and cross entropy / nll_loss in
``_functional_loss``) are fused Rust ops with their own autograd nodes; the rest is
composed of differentiable ferric ops, so gradients (and higher-order gradients) come
from the core autograd. Convolution and pooling forward to the Rust kernels in
``ferric._core``. Activations live in ``_functional_activation``, normalisation in
``_functional_norm``, 1-d/2-d convolution and pooling in ``_functional_conv``, losses in
``_functional_loss``, attention in ``_functional_attention`` and element-wise dropout in
``_functional_dropout``; all are re-exported here.

The functions marked ``@_nested_hook.routed`` (and the two attention functions) accept
``ferric.nested`` tensors: the hook hands a nested input to the handler that
``ferric.nested`` registered (see ``_nested_hook.py``); a dense input goes straight
through.
"""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ..autograd.grad_mode import no_grad
from . import _functional_attention, _nested_hook
from ._functional_activation import (
    celu,
    elu,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    relu_,
    selu,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
)
from ._functional_conv import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    conv_transpose1d,
    conv_transpose2d,
    fold,
    max_pool1d,
    max_pool2d,
    max_pool2d_with_indices,
    unfold,
)
from ._functional_conv3d import (
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    avg_pool3d,
    conv3d,
    conv_transpose3d,
    max_pool3d,
)
from ._functional_dropout import _apply_noise, _check_p, dropout
from ._functional_extra import (
    channel_shuffle,
    embedding_bag,
    local_response_norm,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
    rrelu,
    rrelu_,
)
from ._functional_fractional import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ._functional_grid import affine_grid, grid_sample
from ._functional_interp import (
    interpolate,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from ._functional_loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
)
from ._functional_lp_pool import lp_pool1d, lp_pool2d, lp_pool3d
from ._functional_margin_loss import (
    ctc_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._functional_norm import (
    batch_norm,
    cosine_similarity,
    group_norm,
    instance_norm,
    layer_norm,
    normalize,
    pairwise_distance,
    rms_norm,
)

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "avg_pool1d", "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "celu", "conv1d", "conv2d", "conv_transpose1d",
    "conv_transpose2d", "cosine_embedding_loss", "cosine_similarity", "cross_entropy",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "embedding", "fold",
    "gaussian_nll_loss", "gelu", "glu", "group_norm", "hardshrink", "hardsigmoid",
    "hardswish", "hardtanh", "hinge_embedding_loss", "huber_loss", "instance_norm", "kl_div",
    "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid",
    "margin_ranking_loss", "max_pool1d", "max_pool2d", "max_pool2d_with_indices", "mish",
    "mse_loss",
    "multi_head_attention_forward", "nll_loss", "normalize", "one_hot", "pad",
    "pairwise_distance", "poisson_nll_loss", "prelu", "relu", "relu6", "relu_", "rms_norm",
    "scaled_dot_product_attention", "selu", "sigmoid", "silu", "smooth_l1_loss",
    "soft_margin_loss", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh",
    "tanhshrink", "threshold", "unfold",
]
__all__ += [
    "affine_grid", "channel_shuffle", "ctc_loss", "embedding_bag", "grid_sample",
    "interpolate", "local_response_norm",
    "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "native_channel_shuffle", "pixel_shuffle", "pixel_unshuffle", "rrelu", "rrelu_",
    "triplet_margin_loss", "triplet_margin_with_distance_loss", "upsample",
    "upsample_bilinear", "upsample_nearest", "adaptive_avg_pool3d", "avg_pool3d", "conv3d",
    "conv_transpose3d", "max_pool3d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d",
    "lp_pool3d", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d", "fractional_max_pool3d_with_indices",
]

# nested query/key/value: per-item attention; multi_head_attention_forward refuses them
scaled_dot_product_attention = _nested_hook.routed(
    _functional_attention.scaled_dot_product_attention, inputs=3)
multi_head_attention_forward = _nested_hook.routed(
    _functional_attention.multi_head_attention_forward, inputs=3)


# ---------------------------------------------------------------------------- linear


@_nested_hook.routed
def linear(input, weight, bias=None):
    r"""Applies :math:`y = xA^T + b`.

    Args:
        input (Tensor): the input tensor.
        weight (Tensor): ``(out_features, in_features)``.
        bias (Tensor, optional): ``(out_features,)``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.linear(ferric.ones(1, 2), ferric.tensor([[1., 2.]]), ferric.tensor([0.5]))
        tensor([[3.5000]])
    """
    # one core op: the bias is written into the output and the GEMM accumulates onto it
    return _core._linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    r"""Applies :math:`y_k = x_1^T A_k x_2 + b_k`; ``weight`` is ``(out, in1, in2)``.

    Args:
        input1 (Tensor): the first input.
        input2 (Tensor): the second input.
        weight (Tensor): ``(out, in1, in2)``.
        bias (Tensor, optional): ``(out,)``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> w = ferric.ones(1, 2, 3)
        >>> F.bilinear(ferric.tensor([[1.0, 2.0]]), ferric.tensor([[1.0, 0.0, 1.0]]), w)
        tensor([[6.]])
    """
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            "bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if weight.dim() != 3 or input1.shape[-1] != weight.shape[1] or \
            input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match "
            f"weight of shape {list(weight.shape)}"
        )
    out = _core.einsum("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


# ---------------------------------------------------------------------------- dropout


def _feature_dropout(input, p, training, inplace, batched_dim, name):
    _check_p(p)
    if input.dim() not in (batched_dim - 1, batched_dim):
        raise RuntimeError(
            f"{name}: Expected {batched_dim - 1}D or {batched_dim}D input, but received a "
            f"{input.dim()}D input. Note that {name} exists to provide channel-wise dropout "
            "on inputs with spatial dimensions"
        )
    if not training or p == 0.0 or input.numel() == 0:
        return input
    batched = input.dim() == batched_dim
    # unbatched input: a batch-of-one view, so an in-place mask writes into `input`
    x = input if batched else input.unsqueeze(0)
    shape = (x.shape[0], x.shape[1]) + (1,) * (x.dim() - 2)
    out = _apply_noise(x, shape, p, inplace)
    if inplace:
        return input
    return out if batched else out.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of ``(N, C, L)`` / ``(C, L)`` inputs.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``; whole channels are zeroed.
        p (float): the probability of zeroing an element. Default: 0.5.
        training (bool): apply dropout (only in training). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 2, 3)
        >>> F.dropout1d(x, p=0.5, training=False).shape
        ferric.Size([1, 2, 3])
    """
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of ``(N, C, H, W)`` / ``(C, H, W)`` inputs.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``; whole channels are zeroed.
        p (float): the probability of zeroing an element. Default: 0.5.
        training (bool): apply dropout (only in training). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 2, 2, 2)
        >>> F.dropout2d(x, p=0.5, training=False).shape
        ferric.Size([1, 2, 2, 2])
    """
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)` input with
    probability ``p`` and scales the others by :math:`1/(1-p)` (only when ``training``).

    Args:
        input (Tensor): the input.
        p (float): probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout; ``False`` returns ``input``. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 4, 1, 1, 2)
        >>> ferric.equal(F.dropout3d(x, 0.5, training=False), x)
        True
    """
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


# ---------------------------------------------------------------------------- embedding


@_nested_hook.routed
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` selected by the integer ``input`` (shape ``(*, D)``).

    ``padding_idx`` rows get no gradient; ``max_norm`` renormalises the selected rows of
    ``weight`` in place; ``scale_grad_by_freq`` divides gradients by the index counts of
    the mini-batch. ``sparse`` is accepted but gradients are always dense. The lookup and
    its scatter-add backward (``EmbeddingBackward0``) are one Rust op.

    Args:
        input (Tensor): the int64 indices.
        weight (Tensor): the embedding matrix, one row per index.
        padding_idx (int, optional): an index whose row gets no gradient.
        max_norm (float, optional): renormalise the looked-up rows (in place) to at most this norm.
        norm_type (float): the order of the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): scale gradients by the inverse frequency of the indices. Default:
            False.
        sparse (bool): must be False (ferric has no sparse gradients). Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> weight = ferric.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 4.0]])
        >>> F.embedding(ferric.tensor([2, 0]), weight)
        tensor([[2., 4.],
                [0., 0.]])
    """
    n = weight.shape[0] if weight.dim() >= 1 else 0
    if padding_idx is not None:
        if padding_idx >= n or padding_idx < -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx = n + padding_idx
    if max_norm is not None and isinstance(input, Tensor) and input.dtype == _core.int64:
        flat = input.reshape(-1)
        if flat.numel() and (bool((flat < 0).any()) or bool((flat >= n).any())):
            raise IndexError("index out of range in self")
        _embedding_renorm_(weight, flat, max_norm, norm_type)
    return _core._embedding(weight, input, padding_idx, scale_grad_by_freq)


def _embedding_renorm_(weight, flat, max_norm, norm_type):
    with no_grad():
        rows = sorted(set(flat.tolist()))
        if not rows:
            return
        idx = _core.tensor(rows, dtype=_core.int64)
        sel = weight.index_select(0, idx)
        norms = sel.norm(norm_type, 1, keepdim=True)
        scale = _core.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_put_((idx,), sel * scale)


def one_hot(tensor, num_classes=-1):
    """``(*,)`` int64 class indices -> ``(*, num_classes)`` int64 one-hot rows.

    Args:
        tensor (Tensor): int64 class indices.
        num_classes (int): the number of classes (-1: one more than the largest index). Default: -1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.one_hot(ferric.tensor([0, 2, 1]), num_classes=3)
        tensor([[1, 0, 0],
                [0, 0, 1],
                [0, 1, 0]])
    """
    if not isinstance(tensor, Tensor) or tensor.dtype != _core.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    else:
        if bool((tensor < 0).any()):
            raise RuntimeError("Class values must be non-negative.")
        top = int(tensor.max())
        if num_classes == -1:
            num_classes = top + 1
        elif top >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    out = _core.zeros(tuple(tensor.shape) + (num_classes,), dtype=_core.int64)
    if tensor.numel():
        out.scatter_(-1, tensor.unsqueeze(-1), 1)
    return out


# ---------------------------------------------------------------------------- padding


def pad(input, pad, mode="constant", value=None):
    """Pads the trailing dims: ``pad = (left_last, right_last, left_prev, ...)``.

    Args:
        input (Tensor): the input tensor.
        pad (tuple of ints): ``(left, right)`` for the last dimension, then the one before...
        mode (str): ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default:
            ``'constant'``.
        value (float, optional): the fill value of ``'constant'`` padding. Default: 0.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.pad(ferric.tensor([[1.0, 2.0]]), (1, 2), value=-1.0)
        tensor([[-1.,  1.,  2., -1., -1.]])
    """
    return _core.pad(input, pad, mode, value)
