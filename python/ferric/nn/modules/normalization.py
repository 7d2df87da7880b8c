"""``LayerNorm``, ``GroupNorm``, ``RMSNorm``."""

from __future__ import annotations

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["GroupNorm", "LayerNorm", "RMSNorm"]


def _empty(shape, dtype):
    return _core.empty(*shape, dtype=dtype) if dtype is not None else _core.empty(*shape)


def _affine_parameters(module, shape, affine, bias, dtype):
    """``module.weight`` and ``module.bias`` of ``shape`` (``bias`` only with ``bias``),
    or None parameters without ``affine``; :func:`_reset_affine` fills them."""
    if affine:
        module.weight = Parameter(_empty(shape, dtype))
        if bias:
            module.bias = Parameter(_empty(shape, dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module, affine):
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class LayerNorm(Module):
    r"""Normalizes over the trailing ``normalized_shape`` dims, then applies the
    elementwise affine ``weight`` (ones) and ``bias`` (zeros).

    Example:
        >>> from ferric import nn
        >>> nn.LayerNorm(4)
        LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets ``weight`` to ones and ``bias`` to zeros (when affine)."""
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    r"""Normalizes groups of channels; per-channel affine ``weight``/``bias``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> gn = nn.GroupNorm(2, 4)
        >>> y = gn(ferric.arange(16.0).reshape(2, 4, 2))
        >>> y[0, :2].flatten()
        tensor([-1.3416, -0.4472,  0.4472,  1.3416], grad_fn=<ViewBackward0>)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, (num_channels,), affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets ``weight`` to ones and ``bias`` to zeros (when affine)."""
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    r"""``x / sqrt(mean(x^2) + eps) * weight`` over the trailing dims.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.RMSNorm(2)(ferric.tensor([[3.0, 4.0]]))
        tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_empty(self.normalized_shape, dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Sets ``weight`` to ones (when affine)."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    r"""Local response normalization across channels (AlexNet):
    ``x / (k + alpha / n * sum_{c' near c} x_{c'}^2) ^ beta``.

    Args:
        size (int): the number of neighbouring channels.
        alpha (float): multiplicative factor. Default: ``1e-4``.
        beta (float): exponent. Default: ``0.75``.
        k (float): additive factor. Default: 1.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LocalResponseNorm(2)(ferric.randn(2, 4, 3, 3)).shape
        ferric.Size([2, 4, 3, 3])
    """

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ += ["LocalResponseNorm"]
