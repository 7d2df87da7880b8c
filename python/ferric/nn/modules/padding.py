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
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
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
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    _n, _mode = 2, "reflect"


class ReplicationPad1d(_ModePadNd):
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    _n, _mode = 2, "replicate"
