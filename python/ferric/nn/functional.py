"""``ferric.nn.functional``: the functional forms of the layers (``torch.nn.functional``).

Dropout, embedding, layer norm and batch norm (and cross entropy / nll_loss in
``_functional_loss``) are fused Rust ops with their own autograd nodes; the rest is
composed of differentiable ferric ops, so gradients (and higher-order gradients) come
from the core autograd. Convolution and pooling forward to the Rust kernels in
``ferric._core``. Losses live in ``_functional_loss``, attention in
``_functional_attention`` and element-wise dropout in ``_functional_dropout``; all are
re-exported here.

The functions marked ``@_nested_hook.routed`` (and the two attention functions) accept
``ferric.nested`` tensors: the hook hands a nested input to the handler that
``ferric.nested`` registered (see ``_nested_hook.py``); a dense input goes straight
through.
"""

from __future__ import annotations

import warnings

from .. import _core
from .._core import Tensor
from ..autograd.grad_mode import no_grad
from . import _functional_attention, _nested_hook
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

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "avg_pool1d", "avg_pool2d", "batch_norm", "bilinear", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "celu", "conv1d", "conv2d", "conv_transpose1d",
    "conv_transpose2d", "cosine_embedding_loss", "cosine_similarity", "cross_entropy",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "elu", "embedding", "fold",
    "gaussian_nll_loss", "gelu", "glu", "group_norm", "hardshrink", "hardsigmoid",
    "hardswish", "hardtanh", "hinge_embedding_loss", "huber_loss", "kl_div", "l1_loss",
    "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid", "margin_ranking_loss",
    "max_pool1d", "max_pool2d", "max_pool2d_with_indices", "mish", "mse_loss",
    "multi_head_attention_forward", "nll_loss", "normalize", "one_hot", "pad",
    "pairwise_distance", "poisson_nll_loss", "prelu", "relu", "relu6", "relu_", "rms_norm",
    "scaled_dot_product_attention", "selu", "sigmoid", "silu", "smooth_l1_loss",
    "soft_margin_loss", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh",
    "tanhshrink", "threshold", "unfold",
]
__all__ += [
    "channel_shuffle", "ctc_loss", "embedding_bag", "interpolate", "local_response_norm",
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

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.linear(ferric.ones(1, 2), ferric.tensor([[1., 2.]]), ferric.tensor([0.5]))
        tensor([[3.5000]])
    """
    # one core op: the bias is written into the output and the GEMM accumulates onto it
    return _core._linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    r"""Applies :math:`y_k = x_1^T A_k x_2 + b_k`; ``weight`` is ``(out, in1, in2)``."""
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


# ---------------------------------------------------------------------------- activations


def _inplace(input, fn):
    """``inplace=True`` for activations without an in-place kernel: ``fn`` (the
    out-of-place form) runs and its result is copied into ``input``, which is returned.
    When autograd records, ``fn`` runs on a clone, so the nodes it saves do not see the
    overwrite, and ``copy_`` rebases ``input``'s history (gradients flow through ``fn``
    to the old value, as PyTorch's in-place kernels give); a leaf that requires grad
    raises PyTorch's error before anything is written."""
    if input.requires_grad and _core.is_grad_enabled():
        if input.is_leaf:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation.")
        return input.copy_(fn(input.clone()))
    with no_grad():
        return input.copy_(fn(input))


@_nested_hook.routed
def relu(input, inplace=False):
    """``max(0, x)`` elementwise."""
    return input.relu_() if inplace else _core.relu(input)


@_nested_hook.routed
def relu_(input):
    r"""In-place :func:`relu`: writes :math:`\max(0, x)` into ``input`` and returns it.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.relu_(x)
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
        >>> x
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
    """
    return input.relu_()


@_nested_hook.routed
def leaky_relu(input, negative_slope=0.01, inplace=False):
    r"""Applies LeakyReLU: :math:`x` if :math:`x \ge 0`, else :math:`\text{negative\_slope} \cdot x`
    element-wise.

    Args:
        input (Tensor): the input.
        negative_slope (float): slope for negative inputs. Default: 0.01.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.leaky_relu(x, 0.1)
        tensor([-0.2000, -0.0500,  0.0000,  0.5000,  2.0000])
    """
    if inplace:
        return _inplace(input, lambda x: _core.leaky_relu(x, negative_slope))
    return _core.leaky_relu(input, negative_slope)


@_nested_hook.routed
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Applies HardTanh: ``x`` clamped to ``[min_val, max_val]`` element-wise.

    Args:
        input (Tensor): the input.
        min_val (float): lower bound. Default: -1.0.
        max_val (float): upper bound. Default: 1.0.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardtanh(x)
        tensor([-1.0000, -0.5000,  0.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


@_nested_hook.routed
def relu6(input, inplace=False):
    r"""Applies ReLU6: :math:`\min(\max(0, x), 6)` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.relu6(x)
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


@_nested_hook.routed
def elu(input, alpha=1.0, inplace=False):
    r"""Applies ELU: :math:`x` if :math:`x > 0`, else :math:`\alpha (e^x - 1)` element-wise.

    Args:
        input (Tensor): the input.
        alpha (float): the :math:`\alpha` value. Default: 1.0.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.elu(x)
        tensor([-0.8647, -0.3935,  0.0000,  0.5000,  2.0000])
    """
    if inplace:
        return _inplace(input, lambda x: _core.elu(x, alpha))
    return _core.elu(input, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_nested_hook.routed
def selu(input, inplace=False):
    r"""Applies SELU: :math:`\text{scale} \cdot \text{elu}(x, \alpha)` with PyTorch's constants
    (:math:`\alpha \approx 1.6733`, :math:`\text{scale} \approx 1.0507`) element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.selu(x)
        tensor([-1.5202, -0.6918,  0.0000,  0.5254,  2.1014])
    """
    if inplace:
        return _inplace(input, lambda x: _core.elu(x, _SELU_ALPHA) * _SELU_SCALE)
    return _core.elu(input, _SELU_ALPHA) * _SELU_SCALE


@_nested_hook.routed
def celu(input, alpha=1.0, inplace=False):
    r"""Applies CELU: :math:`\max(0, x) + \min(0, \alpha (e^{x/\alpha} - 1))` element-wise.

    Args:
        input (Tensor): the input.
        alpha (float): the :math:`\alpha` value. Default: 1.0.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.celu(x)
        tensor([-0.8647, -0.3935,  0.0000,  0.5000,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    if inplace:
        return _inplace(input, lambda x: _core.elu(x / alpha, 1.0) * alpha)
    return _core.elu(input / alpha, 1.0) * alpha


@_nested_hook.routed
def gelu(input, approximate="none"):
    """GELU; ``approximate='tanh'`` uses the tanh approximation."""
    return _core.gelu(input, approximate)


@_nested_hook.routed
def silu(input, inplace=False):
    r"""Applies SiLU (swish): :math:`x \sigma(x)` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.silu(x)
        tensor([-0.2384, -0.1888,  0.0000,  0.3112,  1.7616])
    """
    if inplace:
        return _inplace(input, _core.silu)
    return _core.silu(input)


@_nested_hook.routed
def mish(input, inplace=False):
    r"""Applies Mish: :math:`x \tanh(\text{softplus}(x))` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.mish(x)
        tensor([-0.2525, -0.2207,  0.0000,  0.3752,  1.9440])
    """
    if inplace:
        return _inplace(input, _core.mish)
    return _core.mish(input)


@_nested_hook.routed
def hardsigmoid(input, inplace=False):
    r"""Applies Hardsigmoid: :math:`\text{relu6}(x + 3) / 6` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardsigmoid(x)
        tensor([0.1667, 0.4167, 0.5000, 0.5833, 0.8333])
    """
    if inplace:
        return _inplace(input, lambda x: (x + 3.0).clamp(0.0, 6.0) / 6.0)
    return (input + 3.0).clamp(0.0, 6.0) / 6.0


@_nested_hook.routed
def hardswish(input, inplace=False):
    r"""Applies Hardswish: :math:`x \cdot \text{relu6}(x + 3) / 6` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardswish(x)
        tensor([-0.3333, -0.2083,  0.0000,  0.2917,  1.6667])
    """
    if inplace:
        return _inplace(input, lambda x: x * (x + 3.0).clamp(0.0, 6.0) / 6.0)
    return input * (input + 3.0).clamp(0.0, 6.0) / 6.0


@_nested_hook.routed
def softplus(input, beta=1.0, threshold=20.0):
    r"""Applies Softplus: :math:`\frac{1}{\beta} \log(1 + e^{\beta x})`, linear where :math:`\beta x
    > \text{threshold}` element-wise.

    Args:
        input (Tensor): the input.
        beta (float): the :math:`\beta` value. Default: 1.0.
        threshold (float): above it the function is linear. Default: 20.0.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.softplus(x)
        tensor([0.1269, 0.4741, 0.6931, 0.9741, 2.1269])
    """
    return _core.softplus(input, beta, threshold)


@_nested_hook.routed
def logsigmoid(input):
    r"""Applies :math:`\log \sigma(x) = -\text{softplus}(-x)` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.logsigmoid(x)
        tensor([-2.1269, -0.9741, -0.6931, -0.4741, -0.1269])
    """
    return _core.logsigmoid(input)


@_nested_hook.routed
def sigmoid(input):
    """Applies the logistic sigmoid :math:`1 / (1 + e^{-x})` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.sigmoid(x)
        tensor([0.1192, 0.3775, 0.5000, 0.6225, 0.8808])
    """
    return input.sigmoid()


@_nested_hook.routed
def tanh(input):
    """Applies the hyperbolic tangent element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.tanh(x)
        tensor([-0.9640, -0.4621,  0.0000,  0.4621,  0.9640])
    """
    return input.tanh()


@_nested_hook.routed
def softsign(input):
    """Applies :math:`x / (1 + |x|)` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.softsign(x)
        tensor([-0.6667, -0.3333,  0.0000,  0.3333,  0.6667])
    """
    return input / (input.abs() + 1)


@_nested_hook.routed
def tanhshrink(input):
    r"""Applies :math:`x - \tanh(x)` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.tanhshrink(x)
        tensor([-1.0360, -0.0379,  0.0000,  0.0379,  1.0360])
    """
    return input - input.tanh()


@_nested_hook.routed
def hardshrink(input, lambd=0.5):
    r"""Applies hard shrinkage: :math:`x` where :math:`|x| > \lambda`, else 0 element-wise.

    Args:
        input (Tensor): the input.
        lambd (float): the :math:`\lambda` value. Default: 0.5.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardshrink(x)
        tensor([-2.,  0.,  0.,  0.,  2.])
    """
    return _core.where(input.abs() > lambd, input, 0.0)


@_nested_hook.routed
def softshrink(input, lambd=0.5):
    r"""Applies soft shrinkage: :math:`x - \lambda` above :math:`\lambda`, :math:`x + \lambda` below
    :math:`-\lambda`, else 0 element-wise.

    Args:
        input (Tensor): the input.
        lambd (float): the :math:`\lambda` value. Default: 0.5.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.softshrink(x)
        tensor([-1.5000,  0.0000,  0.0000,  0.0000,  1.5000])
    """
    if lambd < 0:
        raise RuntimeError(
            f"lambda must be greater or equal to 0, but found to be {lambd}."
        )
    return _core.where(input > lambd, input - lambd,
                       _core.where(input < -lambd, input + lambd, 0.0))


@_nested_hook.routed
def threshold(input, threshold, value, inplace=False):
    r"""Applies a threshold: :math:`x` where :math:`x > \text{threshold}`, else ``value``
    element-wise.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): the replacement below it.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.threshold(x, 0.1, 20.0)
        tensor([20.0000, 20.0000, 20.0000,  0.5000,  2.0000])
    """
    if inplace:
        return _inplace(input, lambda x: _core.where(x > threshold, x, value))
    return _core.where(input > threshold, input, value)


def glu(input, dim=-1):
    r"""Gated linear unit: splits ``input`` in halves :math:`a, b` along ``dim`` and returns
    :math:`a \otimes \sigma(b)`.

    Args:
        input (Tensor): the input. Its size along ``dim`` must be even.
        dim (int): the dimension to split. Default: -1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.glu(ferric.tensor([[1.0, 2.0, 0.0, 0.0]]))
        tensor([[0.5000, 1.0000]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def prelu(input, weight):
    """``max(0, x) + weight * min(0, x)``; ``weight`` has 1 or ``C`` (= dim 1) entries."""
    input, weight = _core._autocast_args("lower", input, weight)
    if weight.numel() != 1:
        if input.dim() == 0 or weight.numel() != input.shape[min(1, input.dim() - 1)]:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = "
                f"{input.shape[1] if input.dim() > 1 else 1}."
            )
        if input.dim() >= 2:
            weight = weight.reshape([input.shape[1]] + [1] * (input.dim() - 2))
    else:
        weight = weight.reshape(())
    return _core.where(input >= 0, input, weight * input)


def _softmax_dim(name, ndim):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return input.log_softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    r"""Softmin along ``dim``: :math:`\text{softmax}(-x)`; the values along ``dim`` sum to 1.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise over.
        dtype (ferric.dtype, optional): cast ``input`` to it first.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.softmin(ferric.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([0.6652, 0.2447, 0.0900])
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return (-input).softmax(dim, dtype=dtype)


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
    """Zeroes whole channels of ``(N, C, L)`` / ``(C, L)`` inputs."""
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of ``(N, C, H, W)`` / ``(C, H, W)`` inputs."""
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
    """``(*,)`` int64 class indices -> ``(*, num_classes)`` int64 one-hot rows."""
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


# ---------------------------------------------------------------------------- normalization


def _norm_dims(input, normalized_shape, name="normalized_shape"):
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(ns)
    if k == 0 or input.dim() < k or tuple(input.shape[input.dim() - k:]) != ns:
        raise RuntimeError(
            f"Given {name}={list(ns)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in ns)}], but got input of size{list(input.shape)}"
        )
    return tuple(range(-k, 0))


@_nested_hook.routed
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes over the trailing ``normalized_shape`` dims (biased variance), then
    scales by ``weight`` and shifts by ``bias``: one fused Rust op
    (``NativeLayerNormBackward0``)."""
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return _core._layer_norm(input, ns, weight, bias, eps)


@_nested_hook.routed
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2) + eps)`` over the trailing dims (eps defaults to the dtype's
    machine epsilon)."""
    dims = _norm_dims(input, normalized_shape)
    if eps is None:
        eps = 2.220446049250313e-16 if input.dtype == _core.float64 else 1.1920928955078125e-07
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def _channel_shape(input):
    return [1, input.shape[1]] + [1] * (input.dim() - 2)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalizes each group of ``C / num_groups`` channels (and all spatial positions)."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    x = input.reshape(n, num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    out = ((x - mean) * (var + eps).rsqrt()).reshape(tuple(input.shape))
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalizes each channel (dim 1) with batch statistics (``training``, also updating
    the running statistics in place) or with the running statistics: one fused Rust op
    (``NativeBatchNormBackward0``)."""
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or more input (got {input.dim()}D input)")
    if training:
        _verify_batch_size(input.size())
    return _core._batch_norm(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalizes each (sample, channel) over its spatial positions."""
    dims = tuple(range(2, input.dim()))
    if use_input_stats or running_mean is None:
        mean = input.mean(dims, keepdim=True)
        var = input.var(dims, unbiased=False, keepdim=True)
        if running_mean is not None:
            n = input.numel() // (input.shape[0] * input.shape[1])
            with no_grad():
                running_mean.copy_(mean.detach().mean(0).reshape(-1) * momentum
                                   + running_mean * (1 - momentum))
                v = var.detach().mean(0).reshape(-1) * (n / max(n - 1, 1))
                running_var.copy_(v * momentum + running_var * (1 - momentum))
    else:
        shape = _channel_shape(input)
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) * (var + eps).rsqrt()
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    res = input / denom
    if out is not None:
        out.copy_(res)
        return out
    return res


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``."""
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


# ---------------------------------------------------------------------------- padding


def pad(input, pad, mode="constant", value=None):
    """Pads the trailing dims: ``pad = (left_last, right_last, left_prev, ...)``."""
    return _core.pad(input, pad, mode, value)


# ---------------------------------------------------------------------------- conv / pool
# These forward to the Rust kernels with PyTorch's signatures.


def _kernel(name):
    fn = getattr(_core, name, None)
    if fn is None:
        raise NotImplementedError(f"ferric._core.{name} is not available in this build")
    return fn


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""1-D convolution (cross-correlation) over an input of shape :math:`(N, C_{in}, L)` or
    :math:`(C_{in}, L)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{out}, C_{in} / \text{groups}, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): step of the window. Default: 1.
        padding (int, tuple or str): zeros added on both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing of the kernel taps. Default: 1.
        groups (int): split of the channels into groups. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 1, 5)
        >>> F.conv1d(x, ferric.ones(2, 1, 3))
        tensor([[[3., 3., 3.],
                 [3., 3., 3.]]])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv1d")(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""2-D convolution (cross-correlation) over an input of shape :math:`(N, C_{in}, H, W)` or
    :math:`(C_{in}, H, W)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{out}, C_{in} / \text{groups}, kH, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): step of the window. Default: 1.
        padding (int, tuple or str): zeros added on each side, or ``'valid'`` / ``'same'``. Default:
            0.
        dilation (int or tuple): spacing of the kernel taps. Default: 1.
        groups (int): split of the channels into groups. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 1, 4, 4)
        >>> F.conv2d(x, ferric.ones(1, 1, 3, 3), padding=1)
        tensor([[[[4., 6., 6., 4.],
                  [6., 9., 9., 6.],
                  [6., 9., 9., 6.],
                  [4., 6., 6., 4.]]]])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv2d")(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""1-D transposed convolution (the gradient of :func:`conv1d` with respect to its input) over
    :math:`(N, C_{in}, L)` or :math:`(C_{in}, L)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{in}, C_{out} / \text{groups}, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): Default: 1.
        padding (int or tuple): removed from both sides of the output. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): Default: 1.
        dilation (int or tuple): Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.conv_transpose1d(ferric.ones(1, 1, 3), ferric.ones(1, 1, 2), stride=2)
        tensor([[[1., 1., 1., 1., 1., 1.]]])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv_transpose1d")(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""2-D transposed convolution (the gradient of :func:`conv2d` with respect to its input) over
    :math:`(N, C_{in}, H, W)` or :math:`(C_{in}, H, W)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{in}, C_{out} / \text{groups}, kH, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): Default: 1.
        padding (int or tuple): removed from each side of the output. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): Default: 1.
        dilation (int or tuple): Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.conv_transpose2d(ferric.ones(1, 1, 2, 2), ferric.ones(1, 1, 2, 2), stride=2).shape
        ferric.Size([1, 1, 4, 4])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv_transpose2d")(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""1-D max pooling over :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        input (Tensor): the input.
        kernel_size (int): window size.
        stride (int, optional): window step; default ``kernel_size``.
        padding (int): implicit :math:`-\infty` padding on both sides. Default: 0.
        dilation (int): spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output size up. Default: ``False``.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.max_pool1d(ferric.tensor([[1.0, 3.0, 2.0, 5.0, 4.0]]), 2)
        tensor([[3., 5.]])
    """
    return _kernel("max_pool1d")(input, kernel_size, stride, padding, dilation, ceil_mode,
                                 return_indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """2-D max pooling that also returns the flat index (within each plane) of each maximum:
    :func:`max_pool2d` with ``return_indices=True``.

    Args:
        input (Tensor): the input.
        kernel_size, stride, padding, dilation, ceil_mode: as in :func:`max_pool2d`.
        return_indices (bool): accepted for PyTorch compatibility.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> out, idx = F.max_pool2d_with_indices(x, 2)
        >>> idx
        tensor([[[ 5,  7],
                 [13, 15]]])
    """
    return _kernel("max_pool2d_with_indices")(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""2-D max pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window step; default ``kernel_size``.
        padding (int or tuple): implicit :math:`-\infty` padding. Default: 0.
        dilation (int or tuple): spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output size up. Default: ``False``.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.max_pool2d(x, 2)
        tensor([[[ 5.,  7.],
                 [13., 15.]]])
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)
    return _kernel("max_pool2d")(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling over :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        input (Tensor): the input.
        kernel_size (int): window size.
        stride (int, optional): window step; default ``kernel_size``.
        padding (int): zero padding on both sides. Default: 0.
        ceil_mode (bool): round the output size up. Default: ``False``.
        count_include_pad (bool): count padded zeros in the mean. Default: ``True``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.avg_pool1d(ferric.tensor([[1.0, 3.0, 2.0, 6.0]]), 2)
        tensor([[2., 4.]])
    """
    return _kernel("avg_pool1d")(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window step; default ``kernel_size``.
        padding (int or tuple): zero padding. Default: 0.
        ceil_mode (bool): round the output size up. Default: ``False``.
        count_include_pad (bool): count padded zeros in the mean. Default: ``True``.
        divisor_override (int, optional): divide by this instead of the window size.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.avg_pool2d(x, 2)
        tensor([[[ 2.5000,  4.5000],
                 [10.5000, 12.5000]]])
    """
    return _kernel("avg_pool2d")(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    """1-D average pooling to a fixed output length: the windows are chosen so the output has
    ``output_size`` elements.

    Args:
        input (Tensor): the input. :math:`(N, C, L)` or :math:`(C, L)`.
        output_size (int): the output length.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.adaptive_avg_pool1d(ferric.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]), 2)
        tensor([[2., 5.]])
    """
    return _kernel("adaptive_avg_pool1d")(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling to a fixed output size.

    Args:
        input (Tensor): the input. :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        output_size (int or tuple): the output :math:`(H, W)`; ``None`` keeps that dimension.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.adaptive_avg_pool2d(x, 1)
        tensor([[[7.5000]]])
    """
    return _kernel("adaptive_avg_pool2d")(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D max pooling to a fixed output length.

    Args:
        input (Tensor): the input. :math:`(N, C, L)` or :math:`(C, L)`.
        output_size (int): the output length.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.adaptive_max_pool1d(ferric.tensor([[1.0, 5.0, 3.0, 4.0]]), 2)
        tensor([[5., 4.]])
    """
    return _kernel("adaptive_max_pool1d")(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D max pooling to a fixed output size.

    Args:
        input (Tensor): the input. :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        output_size (int or tuple): the output :math:`(H, W)`.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.adaptive_max_pool2d(x, (2, 1))
        tensor([[[ 7.],
                 [15.]]])
    """
    if isinstance(input, Tensor) and input.dtype in (_core.float16, _core.bfloat16):
        # the Rust kernel writes past its half-precision buffers: pool in float32 (the
        # maximum is exact) and cast back
        out = _kernel("adaptive_max_pool2d")(input.float(), output_size, return_indices)
        values, indices = out if return_indices else (out, None)
        values = _core._named_node(values.to(input.dtype), "AdaptiveMaxPool2DBackward0")
        return (values, indices) if return_indices else values
    return _kernel("adaptive_max_pool2d")(input, output_size, return_indices)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding blocks: ``(N, C, H, W)`` -> ``(N, C*prod(kernel), L)``."""
    return _kernel("unfold")(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums sliding blocks back: the adjoint of :func:`unfold`."""
    return _kernel("fold")(input, output_size, kernel_size, dilation, padding, stride)

