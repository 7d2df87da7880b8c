"""The methods of :class:`~ferric._autobatch._graph.Pending`, installed once at import.

A method with a batching rule records; shape, dtype and dimension queries answer from
the node; everything else evaluates the pending graph (after which the object is an
ordinary ``Tensor``, its class changed in place) and then calls the tensor's own method.
"""

from __future__ import annotations

import types

from .. import _core
from .._size import Size
from ._graph import DTYPE, SHAPE, Pending
from ._intercept import evaluate_for, state, suspended

Tensor = _core.Tensor
_get_ident = __import__("threading").get_ident

# dunders of Tensor that read the value (the others: identity, attribute access, class)
_VALUE_DUNDERS = {
    "__abs__", "__and__", "__array__", "__bool__", "__deepcopy__", "__delitem__",
    "__dlpack__", "__dlpack_device__", "__eq__", "__float__", "__floordiv__", "__format__",
    "__ge__", "__getitem__", "__getstate__", "__gt__", "__iadd__", "__iand__",
    "__ifloordiv__", "__imod__", "__imul__", "__index__", "__int__", "__invert__",
    "__ior__", "__ipow__", "__isub__", "__iter__", "__itruediv__", "__ixor__", "__le__",
    "__lt__", "__matmul__", "__mod__", "__mul__", "__ne__", "__neg__", "__or__", "__pos__",
    "__pow__", "__radd__", "__rand__", "__reduce__", "__reduce_ex__", "__repr__",
    "__rfloordiv__", "__rmatmul__", "__rmod__", "__rmul__", "__ror__", "__rpow__",
    "__rsub__", "__rtruediv__", "__rxor__", "__setitem__", "__str__", "__sub__",
    "__truediv__", "__xor__", "__add__", "__reversed__", "__contains__",
}
_OWN = {"shape", "dtype", "ndim", "dim", "size", "numel", "nelement", "__len__",
        "is_floating_point", "ndimension"}


def _evaluating(name):
    def method(self, *args, **kwargs):
        evaluate_for(self)
        return suspended(getattr(self, name), *args, **kwargs)

    method.__name__ = name
    return method


def _evaluating_property(name, settable):
    def get(self):
        evaluate_for(self)
        return suspended(getattr, self, name)

    def set_(self, value):
        evaluate_for(self)
        suspended(setattr, self, name, value)

    return property(get, set_ if settable else None)


def _recording(name, rule):
    def method(self, *args, **kwargs):
        if state.recording:
            g = state.region
            if g.thread == _get_ident():
                r = rule.record(g, (self,) + args, kwargs)
                if r is not NotImplemented:
                    return r
        evaluate_for(self)   # raises for a pending tensor outside its region's thread
        return suspended(getattr(self, name), *args, **kwargs)

    method.__name__ = name
    return method


def _node(self):
    g = state.region
    if g is None:
        evaluate_for(self)   # raises: the region is gone
    return g.nodes[id(self)]


def _size(self, dim=None):
    s = _node(self)[SHAPE]
    if dim is None:
        return Size(s)
    if not s:
        raise IndexError(
            f"Dimension specified as {dim} but tensor has no dimensions")
    if dim < -len(s) or dim >= len(s):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-len(s)}, {len(s) - 1}], but got {dim})")
    return s[dim]


def _numel(self):
    n = 1
    for v in _node(self)[SHAPE]:
        n *= v
    return n


def _len(self):
    s = _node(self)[SHAPE]
    if not s:
        raise TypeError("len() of a 0-d tensor")
    return s[0]


def install(rules):
    """Gives ``Pending`` its methods: ``rules`` maps method names to batching rules."""
    for name, obj in vars(Tensor).items():
        if name in _OWN:
            continue
        if name.startswith("__") and name not in _VALUE_DUNDERS:
            continue
        rule = rules.get(name)
        if rule is not None and name not in ("linear", "embedding", "cross_entropy"):
            setattr(Pending, name, _recording(name, rule))
        elif isinstance(obj, types.GetSetDescriptorType):
            settable = True
            setattr(Pending, name, _evaluating_property(name, settable))
        elif callable(obj):
            setattr(Pending, name, _evaluating(name))
    Pending.shape = property(lambda self: Size(_node(self)[SHAPE]))
    Pending.dtype = property(lambda self: _node(self)[DTYPE])
    Pending.ndim = property(lambda self: len(_node(self)[SHAPE]))
    Pending.dim = Pending.ndimension = lambda self: len(_node(self)[SHAPE])
    Pending.size = _size
    Pending.numel = Pending.nelement = _numel
    Pending.__len__ = _len
    Pending.is_floating_point = lambda self: _node(self)[DTYPE].is_floating_point
    Pending.__hash__ = Tensor.__hash__
