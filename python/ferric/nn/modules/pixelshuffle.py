"""``PixelShuffle`` and ``PixelUnshuffle`` (``torch.nn``'s ``pixelshuffle.py``)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    r"""Rearranges ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)`` (sub-pixel convolution).

    Args:
        upscale_factor (int): the factor ``r``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.PixelShuffle(3)(ferric.randn(1, 9, 4, 4)).shape
        ferric.Size([1, 1, 12, 12])
    """

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    r"""Rearranges ``(*, C, H r, W r)`` into ``(*, C r^2, H, W)``: the inverse of
    :class:`PixelShuffle`.

    Args:
        downscale_factor (int): the factor ``r``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.PixelUnshuffle(3)(ferric.randn(1, 1, 12, 12)).shape
        ferric.Size([1, 9, 4, 4])
    """

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
