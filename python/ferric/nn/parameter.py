"""``nn.Parameter`` and ``nn.Buffer``: tensors that modules register as their state.

``Parameter`` is a Python subclass of the Rust ``ferric.Tensor`` class. It is created
through ``Tensor.__new__(cls)`` (an empty tensor of the subclass) whose ``.data`` is then
pointed at the given tensor's storage, so the parameter shares memory with ``data``
exactly like ``torch.Tensor._make_subclass`` does, and every op accepts it because it
*is* a ``ferric.Tensor``.
"""

from __future__ import annotations

from .. import _core, _pickle
from .._core import Tensor

__all__ = ["Buffer", "Parameter"]


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
        # versioned format shared with plain tensors: see ferric/_pickle.py
        return _pickle._reduce_parameter(self)


_pickle.register_parameter_class(Parameter)


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
