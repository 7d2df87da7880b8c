"""The normalisation functions of ``ferric.nn.functional`` (``layer_norm``,
``batch_norm``, ``group_norm``, ``normalize``, distances), re-exported there."""

from __future__ import annotations

from .. import _core
from ..autograd.grad_mode import no_grad
from . import _nested_hook


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
    (``NativeLayerNormBackward0``).

    Args:
        input (Tensor): the input tensor.
        normalized_shape (int or tuple of ints): the trailing shape to normalise over.
        weight (Tensor, optional): the elementwise scale, shaped ``normalized_shape``.
        bias (Tensor, optional): the elementwise shift, shaped ``normalized_shape``.
        eps (float): added to the variance. Default: 1e-05.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.layer_norm(ferric.tensor([[1.0, 2.0, 3.0]]), (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    return _core._layer_norm(input, ns, weight, bias, eps)


@_nested_hook.routed
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2) + eps)`` over the trailing dims (eps defaults to the dtype's
    machine epsilon).

    Args:
        input (Tensor): the input tensor.
        normalized_shape (int or tuple of ints): the trailing shape to normalise over.
        weight (Tensor, optional): the elementwise scale, shaped ``normalized_shape``.
        eps (float, optional): added to the mean square. Default: the dtype's ``eps``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.rms_norm(ferric.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    dims = _norm_dims(input, normalized_shape)
    if eps is None:
        eps = 2.220446049250313e-16 if input.dtype == _core.float64 else 1.1920928955078125e-07
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def _channel_shape(input):
    return [1, input.shape[1]] + [1] * (input.dim() - 2)


def _channel_affine(out, input, weight, bias):
    """``out * weight + bias`` with the per-channel ``weight`` and ``bias`` (either may be
    None) broadcast along ``input``'s channel dimension (dim 1)."""
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalizes each group of ``C / num_groups`` channels (and all spatial positions).

    Args:
        input (Tensor): the input tensor.
        num_groups (int): the number of groups the channels are divided into.
        weight (Tensor, optional): the per-channel scale.
        bias (Tensor, optional): the per-channel shift.
        eps (float): added to the variance. Default: 1e-05.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([[[1.0], [3.0], [5.0], [9.0]]])
        >>> F.group_norm(x, 2)
        tensor([[[-1.0000],
                 [ 1.0000],
                 [-1.0000],
                 [ 1.0000]]])
    """
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
    return _channel_affine(out, input, weight, bias)


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
    (``NativeBatchNormBackward0``).

    Args:
        input (Tensor): the input tensor.
        running_mean (Tensor, optional): the running mean (updated in training).
        running_var (Tensor, optional): the running variance (updated in training).
        weight (Tensor, optional): the per-channel scale.
        bias (Tensor, optional): the per-channel shift.
        training (bool): normalise with the batch statistics and update the running ones. Default:
            False.
        momentum (float): the update factor of the running statistics. Default: 0.1.
        eps (float): added to the variance. Default: 1e-05.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> F.batch_norm(x, ferric.zeros(2), ferric.ones(2), training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
    """
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or more input (got {input.dim()}D input)")
    if training:
        _verify_batch_size(input.size())
    return _core._batch_norm(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalizes each (sample, channel) over its spatial positions.

    Args:
        input (Tensor): the input tensor.
        running_mean (Tensor, optional): the running mean (updated in training).
        running_var (Tensor, optional): the running variance (updated in training).
        weight (Tensor, optional): the per-channel scale.
        bias (Tensor, optional): the per-channel shift.
        use_input_stats (bool): normalise with each instance's statistics. Default: True.
        momentum (float): the update factor of the running statistics. Default: 0.1.
        eps (float): added to the variance. Default: 1e-05.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([[[1.0, 3.0], [2.0, 6.0]]])
        >>> F.instance_norm(x)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
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
    return _channel_affine(out, input, weight, bias)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim``.

    Args:
        input (Tensor): the input tensor.
        p (float): the order of the norm. Default: 2.
        dim (int): the dimension to normalise along. Default: 1.
        eps (float): the lower bound of the norm. Default: 1e-12.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.normalize(ferric.tensor([[3.0, 4.0], [0.0, 2.0]]), dim=1)
        tensor([[0.6000, 0.8000],
                [0.0000, 1.0000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    res = input / denom
    if out is not None:
        out.copy_(res)
        return out
    return res


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``.

    Args:
        x1 (Tensor): the first input.
        x2 (Tensor): the second input.
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): the lower bound of each norm. Default: 1e-08.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> a = ferric.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> F.cosine_similarity(a, ferric.tensor([[1.0, 0.0], [1.0, 0.0]]))
        tensor([1.0000, 0.7071])
    """
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim.

    Args:
        x1 (Tensor): the first input.
        x2 (Tensor): the second input.
        p (float): the order of the norm. Default: 2.
        eps (float): added to the difference. Default: 1e-06.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.pairwise_distance(ferric.zeros(1, 2), ferric.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)
