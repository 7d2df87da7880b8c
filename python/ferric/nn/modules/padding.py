"""Padding modules over ``F.pad`` (constant, zero, reflection, replication)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
]


def _expand(padding, n):
    return tuple(padding) if isinstance(padding, tuple | list) else (padding,) * (2 * n)


class _ConstantPadNd(Module):
    _n = 1

    def __init__(self, padding, value):
        super().__init__()
        self.padding = _expand(padding, self._n)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with a constant.

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right)``.
        value (float): the fill value.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ConstantPad1d(1, 9.0)(ferric.tensor([[1.0, 2.0, 3.0]]))
        tensor([[9., 1., 2., 3., 9.]])
    """
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dimensions with a constant.

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right, top, bottom)``.
        value (float): the fill value.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ConstantPad2d(1, 9.0)(ferric.arange(4.0).reshape(1, 2, 2))
        tensor([[[9., 9., 9., 9.],
                 [9., 0., 1., 9.],
                 [9., 2., 3., 9.],
                 [9., 9., 9., 9.]]])
    """
    _n = 2


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros.

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ZeroPad1d((1, 0))(ferric.tensor([[1.0, 2.0, 3.0]]))
        tensor([[0., 1., 2., 3.]])
    """
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dimensions with zeros.

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right, top, bottom)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ZeroPad2d((1, 0, 0, 1))(ferric.arange(4.0).reshape(1, 2, 2))
        tensor([[[0., 0., 1.],
                 [0., 2., 3.],
                 [0., 0., 0.]]])
    """
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _ModePadNd(Module):
    _n = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        self.padding = _expand(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Pads the last dimension with the reflection of the input (the edge not repeated).

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ReflectionPad1d(2)(ferric.tensor([[1.0, 2.0, 3.0]]))
        tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    """Pads the last 2 dimensions with the reflection of the input (the edge not repeated).

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right, top, bottom)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ReflectionPad2d(1)(ferric.arange(4.0).reshape(1, 2, 2))
        tensor([[[3., 2., 3., 2.],
                 [1., 0., 1., 0.],
                 [3., 2., 3., 2.],
                 [1., 0., 1., 0.]]])
    """
    _n, _mode = 2, "reflect"


class ReplicationPad1d(_ModePadNd):
    """Pads the last dimension by repeating the edge values.

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ReplicationPad1d(2)(ferric.tensor([[1.0, 2.0, 3.0]]))
        tensor([[1., 1., 1., 2., 3., 3., 3.]])
    """
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    """Pads the last 2 dimensions by repeating the edge values.

    Args:
        padding (int or tuple): the same size on every side, or ``(left, right, top, bottom)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ReplicationPad2d(1)(ferric.arange(4.0).reshape(1, 2, 2))
        tensor([[[0., 0., 1., 1.],
                 [0., 0., 1., 1.],
                 [2., 2., 3., 3.],
                 [2., 2., 3., 3.]]])
    """
    _n, _mode = 2, "replicate"
