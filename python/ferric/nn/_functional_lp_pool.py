"""Power-average pooling, ``lp_pool1d/2d/3d`` (re-exported by ``ferric.nn.functional``),
composed as PyTorch composes it: ``(sum over the window of x ** p) ** (1 / p)``, the sum
being an average pool of ``x ** p`` times the window size, with the sign of a negative
sum kept and its magnitude clamped at 0 by ``relu`` (so an all-zero window has a zero
gradient). ``p = inf`` is a max pool of ``|x|``; ``p = -inf`` the minimum of ``|x|``.
"""

from __future__ import annotations

import math

from .. import _core
from ._functional_conv3d import avg_pool3d, max_pool3d


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg, maxp, window):
    if isinstance(norm_type, (int, float)):
        if norm_type == math.inf:
            return maxp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -math.inf:
            return -maxp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (_core.sign(out) * _core.relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""1-d power-average pooling over ``(N, C, L)`` (or ``(C, L)``) inputs: each output is
    :math:`(\sum_{x \in \text{window}} x^p)^{1/p}`.

    Args:
        input (Tensor): the input.
        norm_type (float): the power ``p`` (``inf``: the maximum of ``|x|``).
        kernel_size (int): the window length.
        stride (int, optional): the window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output length up. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.lp_pool1d(ferric.tensor([[3.0, 4.0, 1.0, 1.0]]), 2, 2)
        tensor([[5.0000, 1.4142]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, _core.avg_pool1d,
                    _core.max_pool1d, kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""2-d power-average pooling over ``(N, C, H, W)`` (or ``(C, H, W)``) inputs: each
    output is :math:`(\sum_{x \in \text{window}} x^p)^{1/p}`.

    Args:
        input (Tensor): the input.
        norm_type (float): the power ``p`` (``inf``: the maximum of ``|x|``).
        kernel_size (int or tuple): the window ``(kH, kW)``.
        stride (int or tuple, optional): the window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.lp_pool2d(ferric.ones(1, 4, 4), 1, 2)
        tensor([[[4., 4.],
                 [4., 4.]]])
    """
    kh, kw = _tuple(kernel_size, 2)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, _core.avg_pool2d,
                    _core.max_pool2d, kh * kw)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""3-d power-average pooling over ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) inputs:
    each output is :math:`(\sum_{x \in \text{window}} x^p)^{1/p}`.

    Args:
        input (Tensor): the input.
        norm_type (float): the power ``p`` (``inf``: the maximum of ``|x|``).
        kernel_size (int or tuple): the window ``(kD, kH, kW)``.
        stride (int or tuple, optional): the window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.lp_pool3d(ferric.ones(1, 1, 2, 2, 2), 2, 2).flatten()
        tensor([2.8284])
    """
    kd, kh, kw = _tuple(kernel_size, 3)
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, avg_pool3d, max_pool3d,
                    kd * kh * kw)
