"""Pickling, ``copy.copy`` and ``copy.deepcopy`` of tensors and parameters.

``Tensor.__reduce_ex__`` (a thin Rust method) calls :func:`_reduce_tensor`, which
describes a tensor as a NumPy *view* of its memory plus its dtype, shape and autograd
flag. That single description gives PyTorch's three behaviours for free:

* ``pickle`` serialises the NumPy array, so the loaded tensor owns a copy of the data
  (a view is saved as its own elements, not its whole base storage);
* ``copy.copy`` reconstructs without copying the arguments, so the new tensor shares
  memory with the original, as ``copy.copy`` of a ``torch.Tensor`` does;
* ``copy.deepcopy`` goes through :func:`_deepcopy_tensor` (``Tensor.__deepcopy__``),
  which also copies ``.grad`` and refuses non-leaf tensors with PyTorch's message.

Every payload starts with a format version. A payload written by a newer ferric than
the one loading it raises a clear RuntimeError instead of misreading the fields.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from . import _core
from ._core import Tensor

# Bump when the argument list of the _rebuild_* functions changes; keep reading the old
# layouts.
_FORMAT_VERSION = 1

_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8", "bool")

# ``nn.Parameter``, set by ``ferric.nn.parameter`` when it is imported (``import ferric``
# always imports it, so it is set before anything is unpickled). That module builds on
# this one, so this one cannot import it.
_parameter_class: type | None = None


def register_parameter_class(cls: type) -> None:
    """Tells :func:`_rebuild_parameter` which class a pickled parameter comes back as."""
    global _parameter_class
    _parameter_class = cls


def _check_version(version: Any, what: str) -> None:
    if not isinstance(version, int) or version < 1:
        raise RuntimeError(f"cannot unpickle {what}: invalid ferric pickle format {version!r}")
    if version > _FORMAT_VERSION:
        # the version the extension was built as: the same string as ferric.__version__
        ours = _core._build_info()["version"]
        raise RuntimeError(
            f"this {what} was saved by a newer version of ferric (pickle format {version}); "
            f"ferric {ours} reads formats up to {_FORMAT_VERSION}. Upgrade ferric to "
            "load it."
        )


def _dtype_name(t: Tensor) -> str:
    return repr(t.dtype).removeprefix("ferric.")


def _array_of(t: Tensor) -> np.ndarray:
    if t.dtype == _core.bfloat16:
        # NumPy has no bfloat16: its bit patterns, the upper half of exact float32s
        return (t.detach().float().numpy().view(np.uint32) >> 16).astype(np.uint16)
    # a zero-copy view: pickle serialises it, copy.copy shares it, deepcopy copies it
    return t.detach().numpy()


def _tensor_from(array: Any, dtype: str, shape: tuple, what: str) -> Tensor:
    arr = np.asarray(array)
    stored = "uint16" if dtype == "bfloat16" else dtype
    if dtype not in _DTYPES or arr.dtype.name != stored or tuple(arr.shape) != tuple(shape):
        raise RuntimeError(
            f"cannot unpickle {what}: its data ({arr.dtype.name}, shape {tuple(arr.shape)}) "
            f"does not match the recorded dtype {dtype} and shape {tuple(shape)}"
        )
    if dtype == "bfloat16":
        wide = (arr.astype(np.uint32) << 16).view(np.float32)
        return _core.from_numpy(wide).to(_core.bfloat16)
    return _core.from_numpy(arr)


def _as_subclass(t: Tensor, cls: type) -> Tensor:
    # `Tensor.__new__(cls)` skips the subclass's own __new__/__init__ (which may need
    # arguments we do not have), then `.data` points it at `t`'s memory
    out = Tensor.__new__(cls)
    out.data = t
    return out


def _reduce_tensor(t: Tensor, proto: int = 2) -> tuple:
    """``Tensor.__reduce_ex__``. Like PyTorch, ``.grad`` is not pickled; the tensor's
    Python attributes (``__dict__``) and its subclass are."""
    cls = None if type(t) is Tensor else type(t)
    state = dict(t.__dict__) or None
    args = (_FORMAT_VERSION, _array_of(t), _dtype_name(t), tuple(t.shape),
            t.requires_grad, cls, state)
    return (_rebuild_tensor, args)


def _rebuild_tensor(version: int, array: Any, dtype: str, shape: tuple,
                    requires_grad: bool, cls: type | None = None,
                    state: dict | None = None) -> Tensor:
    _check_version(version, "tensor")
    t = _tensor_from(array, dtype, shape, "tensor")
    if cls is not None:
        t = _as_subclass(t, cls)
    if requires_grad:
        t.requires_grad_(True)
    if state:
        t.__dict__.update(state)
    return t


_NON_LEAF_DEEPCOPY = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
    "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
    "because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001"
)


def _deepcopy_tensor(t: Tensor, memo: dict) -> Tensor:
    """``Tensor.__deepcopy__``: new memory, same dtype/shape/values/requires_grad, a
    deep copy of ``.grad`` and of the Python attributes."""
    if id(t) in memo:
        return memo[id(t)]
    if t.grad_fn is not None:
        raise RuntimeError(_NON_LEAF_DEEPCOPY)
    new = t.detach().clone()
    if type(t) is not Tensor:
        new = _as_subclass(new, type(t))
    if t.requires_grad:
        new.requires_grad_(True)
    memo[id(t)] = new
    if t.grad is not None:
        new.grad = copy.deepcopy(t.grad, memo)
    if t.__dict__:
        new.__dict__.update(copy.deepcopy(t.__dict__, memo))
    return new


def _reduce_parameter(p: Tensor) -> tuple:
    """``nn.Parameter.__reduce_ex__``: data, ``requires_grad`` and Python attributes
    (PyTorch's ``_rebuild_parameter_with_state``); ``.grad`` is not pickled."""
    state = dict(p.__dict__) or None
    args = (_FORMAT_VERSION, _array_of(p), _dtype_name(p), tuple(p.shape),
            p.requires_grad, state)
    return (_rebuild_parameter, args)


def _rebuild_parameter(version: int, array: Any, dtype: str, shape: tuple,
                       requires_grad: bool, state: dict | None = None) -> Tensor:
    _check_version(version, "parameter")
    assert _parameter_class is not None, "ferric.nn.parameter registers it on import"
    p = _parameter_class(_tensor_from(array, dtype, shape, "parameter"), requires_grad)
    if state:
        p.__dict__.update(state)
    return p
