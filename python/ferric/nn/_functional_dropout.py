"""Element-wise ``dropout`` (re-exported by ``ferric.nn.functional``) and the noise
helpers that the channel-wise ``dropout1d``/``2d``/``3d`` there share with it.

A module of its own because attention (``_functional_attention``) drops out its weights
with it, and ``nn.functional`` imports attention: both build on this file.
"""

from __future__ import annotations

from .. import _core
from . import _nested_hook


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply_noise(input, noise_shape, p, inplace):
    # PyTorch's CPU path: input * (bernoulli(1 - p) / (1 - p)). The Rust kernel draws the
    # noise with the same generator calls in the same order (p == 1 multiplies by a 0-d
    # zero), so seeded runs give PyTorch's mask; the product records MulBackward0.
    if inplace:
        return input.mul_(_core._dropout_noise(list(noise_shape), p, input.dtype))
    return _core._dropout(input, p, list(noise_shape))


@_nested_hook.routed
def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability ``p`` and scales the rest by ``1/(1-p)``
    (only when ``training``).

    Args:
        input (Tensor): the input tensor.
        p (float): the probability of zeroing an element. Default: 0.5.
        training (bool): apply dropout (only in training). Default: True.
        inplace (bool): write the result into ``input``. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(4)
        >>> F.dropout(x, p=0.5, training=False)
        tensor([1., 1., 1., 1.])
        >>> y = F.dropout(x, p=0.5)
        >>> bool(((y == 0) | (y == 2)).all())
        True
    """
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    return _apply_noise(input, tuple(input.shape), p, inplace)
