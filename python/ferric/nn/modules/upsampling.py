"""``Upsample``, ``UpsamplingNearest2d`` and ``UpsamplingBilinear2d`` (``torch.nn``'s
``upsampling.py``): thin wrappers over ``F.interpolate``."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]


class Upsample(Module):
    r"""Upsamples 1-D, 2-D or 3-D spatial data (``(N, C, W)``, ``(N, C, H, W)``,
    ``(N, C, D, H, W)``) to ``size`` or by ``scale_factor`` with ``mode`` ``'nearest'``,
    ``'nearest-exact'``, ``'linear'``, ``'bilinear'``, ``'bicubic'`` or ``'trilinear'``.

    Args:
        size (int or Tuple[int], optional): the output spatial size.
        scale_factor (float or Tuple[float], optional): the spatial multiplier.
        mode (str): the algorithm. Default: ``'nearest'``.
        align_corners (bool, optional): align corner pixels (interpolating modes).
        recompute_scale_factor (bool, optional): recompute the scale from the output
            size.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> up = nn.Upsample(scale_factor=2, mode="nearest")
        >>> up(ferric.tensor([[[[1.0, 2.0]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.]]]])
        >>> up
        Upsample(scale_factor=2.0, mode='nearest')
    """

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name",
                     "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode,
                             self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state):
        # modules pickled before the option existed recomputed the scale
        if "recompute_scale_factor" not in state:
            state["recompute_scale_factor"] = True
        super().__setstate__(state)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    r"""2-D nearest-neighbour upsampling: ``Upsample(size, scale_factor, 'nearest')``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.UpsamplingNearest2d(scale_factor=2)(ferric.ones(1, 1, 2, 2)).shape
        ferric.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""2-D bilinear upsampling with ``align_corners=True``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.UpsamplingBilinear2d(size=3)(ferric.tensor([[[[0.0, 2.0]]]]))
        tensor([[[[0., 1., 2.],
                  [0., 1., 2.],
                  [0., 1., 2.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
