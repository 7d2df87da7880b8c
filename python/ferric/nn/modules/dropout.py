"""Dropout modules (active only in training mode)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    r"""Zeroes elements with probability ``p`` (scaling the rest by ``1/(1-p)``) while
    training; the identity in eval mode.

    Example:
        >>> from ferric import nn
        >>> nn.Dropout(0.2)
        Dropout(p=0.2, inplace=False)
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels (the :math:`L` planes) with probability ``p`` during training and
    scales the others by :math:`1 / (1 - p)`; the identity in eval mode.

    Args:
        p (float): probability of zeroing a channel. Default: 0.5.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(N, C, L)` or without the batch dimension.
        Output: the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.Dropout1d(0.5).eval()
        >>> x = ferric.ones(2, 3, 4)
        >>> ferric.equal(m(x), x)
        True
    """
    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels (the :math:`H, W` planes) with probability ``p`` during training and
    scales the others by :math:`1 / (1 - p)`; the identity in eval mode.

    Args:
        p (float): probability of zeroing a channel. Default: 0.5.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(N, C, H, W)` or without the batch dimension.
        Output: the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.Dropout2d(0.5).eval()
        >>> x = ferric.ones(2, 3, 4, 4)
        >>> ferric.equal(m(x), x)
        True
    """
    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels (the :math:`D, H, W` planes) with probability ``p`` during training
    and scales the others by :math:`1 / (1 - p)`; the identity in eval mode.

    Args:
        p (float): probability of zeroing a channel. Default: 0.5.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(N, C, D, H, W)` or without the batch dimension.
        Output: the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.Dropout3d(0.5).eval()
        >>> x = ferric.ones(2, 3, 4, 4, 4)
        >>> ferric.equal(m(x), x)
        True
    """
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)
