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


_UNINIT_SHAPE_MSG = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes.")


class _UninitializedMixin:
    # what `materialize` turns the object into
    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None):
        r"""Gives the tensor storage of ``shape`` (uninitialised values) and turns it into
        a ``cls_to_become`` in place, keeping the object (and so every reference)."""
        if dtype is None:
            dtype = self._lazy_dtype
        if isinstance(shape, int):
            shape = (shape,)
        self.data = _core.empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINIT_SHAPE_MSG)

    def size(self, dim=None):
        raise RuntimeError(_UNINIT_SHAPE_MSG)

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(_UninitializedMixin, Parameter):
    r"""A parameter whose shape is not known yet (the weights of the ``Lazy*`` modules):
    ``materialize(shape)`` turns it into a regular :class:`Parameter`, in place.

    Args:
        requires_grad (bool): Default: ``True``.
        dtype (ferric.dtype, optional): the dtype it will have.

    Example:
        >>> from ferric import nn
        >>> p = nn.UninitializedParameter()
        >>> p
        <UninitializedParameter>
        >>> p.materialize((2, 3))
        >>> type(p).__name__, p.shape
        ('Parameter', ferric.Size([2, 3]))
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        self = Parameter.__new__(cls, _core.empty(0, **({} if dtype is None else
                                                         {"dtype": dtype})), requires_grad)
        self._lazy_dtype = dtype
        return self

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, None, self._lazy_dtype)
        return memo[id(self)]


class _MaterializedBuffer(Tensor):
    """What an :class:`UninitializedBuffer` becomes; lazy modules store its ``.data``."""


class UninitializedBuffer(_UninitializedMixin, Tensor):
    r"""A buffer whose shape is not known yet (the running statistics of the lazy norm
    layers): ``materialize(shape)`` gives it storage.

    Example:
        >>> from ferric import nn
        >>> nn.UninitializedBuffer()
        <UninitializedBuffer>
    """

    cls_to_become = _MaterializedBuffer

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        self = Tensor.__new__(cls)
        self.data = _core.empty(0, **({} if dtype is None else {"dtype": dtype}))
        self.requires_grad_(requires_grad)
        self._lazy_dtype = dtype
        self.persistent = persistent
        return self

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


__all__ += ["UninitializedBuffer", "UninitializedParameter"]
