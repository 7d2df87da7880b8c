"""Pooling modules (the kernels are ``ferric._core`` pooling functions)."""

from __future__ import annotations

from .. import functional as F
from .conv import _single
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "MaxPool1d", "MaxPool2d",
]


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, "
                f"ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                        ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    r"""1-D max pooling over :math:`(N, C, L)` or :math:`(C, L)`
    (:func:`ferric.nn.functional.max_pool1d`).

    Args:
        kernel_size (int): window size.
        stride (int, optional): window step; default ``kernel_size``.
        padding (int): implicit :math:`-\infty` padding. Default: 0.
        dilation (int): spacing of the window's elements. Default: 1.
        return_indices (bool): also return the argmax positions. Default: ``False``.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.MaxPool1d(2)(ferric.tensor([[1.0, 3.0, 2.0, 5.0]]))
        tensor([[3., 5.]])
    """
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    r"""2-D max pooling over ``(N, C, H, W)`` inputs.

    Example:
        >>> from ferric import nn
        >>> nn.MaxPool2d(2)
        MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _fn = staticmethod(F.max_pool2d)


class _AvgPoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolWithDivisor(_AvgPoolNd):
    """``AvgPool2d`` / ``AvgPool3d``: the options as given, and ``divisor_override``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                        self.count_include_pad, self.divisor_override)


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling over :math:`(N, C, L)` or :math:`(C, L)`
    (:func:`ferric.nn.functional.avg_pool1d`).

    Args:
        kernel_size (int): window size.
        stride (int, optional): window step; default ``kernel_size``.
        padding (int): zero padding on both sides. Default: 0.
        ceil_mode (bool): round the output size up. Default: ``False``.
        count_include_pad (bool): count padded zeros in the mean. Default: ``True``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.AvgPool1d(2)(ferric.tensor([[1.0, 3.0, 2.0, 6.0]]))
        tensor([[2., 4.]])
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolWithDivisor):
    r"""2-D average pooling over ``(N, C, H, W)`` inputs.

    Example:
        >>> from ferric import nn
        >>> nn.AvgPool2d(2)
        AvgPool2d(kernel_size=2, stride=2, padding=0)
    """

    _fn = staticmethod(F.avg_pool2d)


class _AdaptivePoolNd(Module):
    """The adaptive pools: ``output_size``; the average ones take nothing else."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    """The adaptive max pools: ``output_size`` and ``return_indices``."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return self._fn(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """1-D average pooling to a fixed output length
    (:func:`ferric.nn.functional.adaptive_avg_pool1d`).

    Args:
        output_size (int): the output length.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.AdaptiveAvgPool1d(2)(ferric.tensor([[1.0, 2.0, 3.0, 4.0]]))
        tensor([[1.5000, 3.5000]])
    """
    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    r"""Average pooling to a fixed ``output_size`` whatever the input size.

    Example:
        >>> from ferric import nn
        >>> nn.AdaptiveAvgPool2d((5, 7))
        AdaptiveAvgPool2d(output_size=(5, 7))
    """

    _fn = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """1-D max pooling to a fixed output length (:func:`ferric.nn.functional.adaptive_max_pool1d`).

    Args:
        output_size (int): the output length.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.AdaptiveMaxPool1d(2)(ferric.tensor([[1.0, 5.0, 3.0, 4.0]]))
        tensor([[5., 4.]])
    """
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """2-D max pooling to a fixed output size (:func:`ferric.nn.functional.adaptive_max_pool2d`).

    Args:
        output_size (int or tuple): the output :math:`(H, W)`; ``None`` keeps that dimension.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.AdaptiveMaxPool2d((1, 2))(ferric.arange(16.0).reshape(1, 4, 4))
        tensor([[[13., 15.]]])
    """
    _fn = staticmethod(F.adaptive_max_pool2d)


class MaxPool3d(_MaxPoolNd):
    r"""3-D max pooling over ``(N, C, D, H, W)`` inputs (2-D pooling of each depth slice,
    then the maximum across depth windows).

    Example:
        >>> from ferric import nn
        >>> nn.MaxPool3d(2)
        MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _fn = staticmethod(F.max_pool3d)


class AvgPool3d(_AvgPoolWithDivisor):
    r"""3-D average pooling over ``(N, C, D, H, W)`` inputs.

    Example:
        >>> from ferric import nn
        >>> nn.AvgPool3d(2)
        AvgPool3d(kernel_size=2, stride=2, padding=0)
    """

    _fn = staticmethod(F.avg_pool3d)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    r"""3-D adaptive average pooling to ``output_size``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.AdaptiveAvgPool3d((1, 2, 2))(ferric.ones(1, 3, 4, 4, 4)).shape
        ferric.Size([1, 3, 1, 2, 2])
    """

    _fn = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    r"""3-D max pooling to a fixed output size
    (:func:`ferric.nn.functional.adaptive_max_pool3d`).

    Args:
        output_size (int or tuple): the output :math:`(D, H, W)`; ``None`` keeps that
            dimension.
        return_indices (bool): also return the argmax positions (into the flattened
            :math:`D \times H \times W` input of each channel). Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.AdaptiveMaxPool3d((1, None, 2))(ferric.arange(16.0).reshape(1, 2, 2, 4))
        tensor([[[[ 9., 11.],
                  [13., 15.]]]])
    """
    _fn = staticmethod(F.adaptive_max_pool3d)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")

    def forward(self, input):
        return self._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                        self.ceil_mode)


class LPPool1d(_LPPoolNd):
    r"""1-D power-average pooling (:func:`ferric.nn.functional.lp_pool1d`): each output is
    :math:`(\sum_{x \in \text{window}} x^p)^{1/p}`.

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int): the window length.
        stride (int, optional): the window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output length up. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LPPool1d(2, 2)(ferric.tensor([[3.0, 4.0]]))
        tensor([[5.]])
    """

    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    r"""2-D power-average pooling (:func:`ferric.nn.functional.lp_pool2d`).

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the window ``(kH, kW)``.
        stride (int or tuple, optional): the window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Example:
        >>> from ferric import nn
        >>> nn.LPPool2d(2, 3, stride=2)
        LPPool2d(norm_type=2, kernel_size=3, stride=2, ceil_mode=False)
    """

    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    r"""3-D power-average pooling (:func:`ferric.nn.functional.lp_pool3d`).

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int or tuple): the window ``(kD, kH, kW)``.
        stride (int or tuple, optional): the window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: ``False``.

    Example:
        >>> from ferric import nn
        >>> nn.LPPool3d(1.5, (3, 2, 2), stride=(2, 1, 2))
        LPPool3d(norm_type=1.5, kernel_size=(3, 2, 2), stride=(2, 1, 2), ceil_mode=False)
    """

    _fn = staticmethod(F.lp_pool3d)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        nd = self._nd
        name = type(self).__name__
        if nd == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, nd) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a "
                             "pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    r"""2-D fractional max pooling (:func:`ferric.nn.functional.fractional_max_pool2d`):
    windows of ``kernel_size`` at pseudo-random positions, drawn for every call (or fixed
    by ``_random_samples``).

    Args:
        kernel_size (int or tuple): the window.
        output_size (int or tuple, optional): the output ``(oH, oW)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the
            input's, in ``(0, 1)``.
        return_indices (bool): also return the flat index of each maximum.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(ferric.ones(1, 2, 8, 8)).shape
        ferric.Size([1, 2, 4, 4])
    """
    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    r"""3-D fractional max pooling (:func:`ferric.nn.functional.fractional_max_pool3d`).

    Args:
        kernel_size (int or tuple): the window (every size positive).
        output_size (int or tuple, optional): the output ``(oT, oH, oW)``.
        output_ratio (float or tuple, optional): the output size as a fraction of the
            input's, in ``(0, 1)``.
        return_indices (bool): also return the flat index of each maximum.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))(ferric.ones(2, 5, 6, 6)).shape
        ferric.Size([2, 2, 3, 3])
    """
    _nd = 3


__all__ += ["AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "AvgPool3d", "MaxPool3d", "LPPool1d",
            "LPPool2d", "LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]
