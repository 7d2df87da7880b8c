"""``nn.Parameter`` and ``nn.Buffer``: tensors that modules register as their state.

``Parameter`` is a Python subclass of the Rust ``ferric.Tensor`` class. It is created
through ``Tensor.__new__(cls)`` (an empty tensor of the subclass) whose ``.data`` is then
pointed at the given tensor's storage, so the parameter shares memory with ``data``
exactly like ``torch.Tensor._make_subclass`` does, and every op accepts it because it
*is* a ``ferric.Tensor``.
"""

from __future__ import annotations

import copyreg

import numpy as np

from .. import _core
from .._core import Tensor

__all__ = ["Buffer", "Parameter"]


def _rebuild_tensor(array, requires_grad=False, grad=None):
    """Inverse of ``_reduce_tensor``: a tensor (not sharing memory) from a NumPy copy."""
    t = _core.from_numpy(np.array(array, copy=True))
    if requires_grad:
        t.requires_grad_(True)
    if grad is not None:
        t.grad = _rebuild_tensor(grad)
    return t


def _rebuild_parameter(array, requires_grad, grad=None, state=None):
    p = Parameter(_rebuild_tensor(array), requires_grad)
    if grad is not None:
        p.grad = _rebuild_tensor(grad)
    if state:
        p.__dict__.update(state)
    return p


def _numpy_copy(t):
    return np.array(t.detach().numpy(), copy=True)


def _reduce_tensor(t):
    """Pickle/deepcopy support for plain tensors via a NumPy round trip.

    PyTorch only deep-copies graph leaves; so do we (a non-leaf would silently lose its
    history otherwise).
    """
    if t.grad_fn is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001"
        )
    grad = t.grad
    return (
        _rebuild_tensor,
        (_numpy_copy(t), t.requires_grad, None if grad is None else _numpy_copy(grad)),
    )


# The Rust tensor has no pickle support yet; teach pickle and copy.deepcopy (both consult
# copyreg's dispatch table) to round-trip it through NumPy. Only installed when the class
# lacks its own protocol, so a native implementation takes precedence once it exists.
if not any(k in Tensor.__dict__ for k in ("__reduce__", "__reduce_ex__", "__deepcopy__")):
    copyreg.pickle(Tensor, _reduce_tensor)


class Parameter(Tensor):
    r"""A kind of Tensor that is to be considered a module parameter.

    Assigning a ``Parameter`` as a module attribute registers it (it then appears in
    ``parameters()``); assigning a plain tensor does not.

    Args:
        data (Tensor): parameter tensor (shared, not copied).
        requires_grad (bool, optional): if the parameter requires gradient. The
            ``no_grad()`` context does not affect it. Default: ``True``

    Example:
        >>> import ferric
        >>> p = ferric.nn.Parameter(ferric.ones(2))
        >>> p
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        >>> isinstance(p, ferric.Tensor)
        True
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _core.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        self = Tensor.__new__(cls)
        # `.data = ...` rebinds this object to `data`'s storage and layout (no copy) and
        # leaves it without history: a fresh leaf.
        self.data = data
        self.requires_grad_(requires_grad)
        return self

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        state = dict(self.__dict__)
        return (
            _rebuild_parameter,
            (_numpy_copy(self), self.requires_grad, None, state or None),
        )


class _BufferMeta(type):
    # `isinstance(t, Buffer)` holds for the tensors `Buffer(...)` returns (plain tensors
    # carrying a marker), like PyTorch's buffer metaclass.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    r"""A tensor that a module registers as a buffer when assigned as an attribute.

    Args:
        data (Tensor): buffer tensor (shared, not copied).
        persistent (bool, optional): whether the buffer is part of the module's
            ``state_dict``. Default: ``True``
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _core.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t._is_buffer = True
        t.persistent = persistent
        return t
