"""``ChannelShuffle`` (``torch.nn``'s ``channelshuffle.py``)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    r"""Divides the channels of ``(N, C, *)`` into ``groups`` and interleaves them
    (ShuffleNet).

    Args:
        groups (int): the number of groups; divides ``C``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ChannelShuffle(2)(ferric.arange(4.).reshape(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
