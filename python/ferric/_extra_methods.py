"""Tensor methods for the names of ``_extra_flags``/``_extra_shape``/``_extra_nn`` that
PyTorch also has as methods (``t.is_nonzero()``, ``t.hsplit(2)``, ``t.cov()``,
``t.clamp_max_(1.0)``, ...). Each forwards to the module function with ``self`` first
and carries that function's docstring."""

from __future__ import annotations

import functools

from . import _extra_flags as XF
from . import _extra_nn as XN
from . import _extra_shape as XS
from ._core import Tensor

_METHODS = {
    "is_nonzero": XF.is_nonzero, "is_same_size": XF.is_same_size, "is_signed": XF.is_signed,
    "positive": XS.positive, "adjoint": XS.adjoint, "hsplit": XS.hsplit, "vsplit": XS.vsplit,
    "dsplit": XS.dsplit, "split_with_sizes": XS.split_with_sizes, "diagflat": XS.diagflat,
    "cov": XS.cov, "corrcoef": XS.corrcoef, "dist": XS.dist, "hardshrink": XN.hardshrink,
    "prelu": XN.prelu, "clamp_max_": XN.clamp_max_, "clamp_min_": XN.clamp_min_,
    "resize_as_": XN.resize_as_,
}


def _method(fn, name):
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def install() -> None:
    """Attaches the methods (never replacing one the Rust class defines)."""
    for name, fn in _METHODS.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, _method(fn, name))
