"""Tensor methods for the names of ``_extra_flags``/``_extra_shape``/``_extra_nn`` that
PyTorch also has as methods (``t.is_nonzero()``, ``t.hsplit(2)``, ``t.cov()``,
``t.clamp_max_(1.0)``, ...). Each forwards to the module function with ``self`` first
and carries that function's docstring."""

from __future__ import annotations

import functools

from . import _extra_flags as XF
from . import _extra_more as XM
from . import _extra_nn as XN
from . import _extra_shape as XS
from ._core import Tensor
from ._functions import allclose, isclose

_METHODS = {
    "is_nonzero": XF.is_nonzero, "is_same_size": XF.is_same_size, "is_signed": XF.is_signed,
    "positive": XS.positive, "adjoint": XS.adjoint, "hsplit": XS.hsplit, "vsplit": XS.vsplit,
    "dsplit": XS.dsplit, "split_with_sizes": XS.split_with_sizes, "diagflat": XS.diagflat,
    "cov": XS.cov, "corrcoef": XS.corrcoef, "dist": XS.dist, "hardshrink": XN.hardshrink,
    "prelu": XN.prelu, "clamp_max_": XN.clamp_max_, "clamp_min_": XN.clamp_min_,
    "resize_as_": XN.resize_as_, "allclose": allclose, "isclose": isclose,
    "isreal": XM.isreal, "unsafe_chunk": XM.unsafe_chunk, "unsafe_split": XM.unsafe_split,
    "unsafe_split_with_sizes": XM.unsafe_split_with_sizes, "select_scatter": XM.select_scatter,
    "slice_scatter": XM.slice_scatter, "diagonal_scatter": XM.diagonal_scatter,
}


def _H(self):
    """The conjugate transpose of a 2-D tensor (its transpose: ferric has no complex
    dtypes).

    Example::

        >>> import ferric
        >>> ferric.zeros(2, 3).H.shape
        ferric.Size([3, 2])
    """
    if self.dim() != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.dim()}-D tensor.")
    return self.transpose(0, 1)


def _mH(self):
    """The conjugate transpose of the last two dimensions (``mT``: no complex dtypes).

    Example::

        >>> import ferric
        >>> ferric.zeros(4, 2, 3).mH.shape
        ferric.Size([4, 3, 2])
    """
    if self.dim() < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    return self.transpose(-2, -1)


def _itemsize(self):
    """The size of one element in bytes (``element_size()``).

    Example::

        >>> import ferric
        >>> ferric.zeros(2, dtype=ferric.float64).itemsize
        8
    """
    return self.element_size()


def _nbytes(self):
    """The bytes the elements take: ``numel() * itemsize`` (a view counts its own).

    Example::

        >>> import ferric
        >>> ferric.zeros(2, 3).nbytes
        24
    """
    return self.numel() * self.element_size()


def _is_cpu(self):
    """Whether the tensor is on the CPU (always ``True`` in ferric).

    Example::

        >>> import ferric
        >>> ferric.zeros(1).is_cpu
        True
    """
    return True


_PROPERTIES = {"H": _H, "mH": _mH, "itemsize": _itemsize, "nbytes": _nbytes,
               "is_cpu": _is_cpu}


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
    for name, fget in _PROPERTIES.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, property(fget, doc=fget.__doc__))
