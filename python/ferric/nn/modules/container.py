"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice

from ..._core import Tensor
from ..parameter import Parameter
from .module import Module, _addindent, typename

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _renumber(module):
    # keep the keys "0".."n-1" after a deletion, as PyTorch does
    module._modules = OrderedDict(
        (str(i), m) for i, m in enumerate(module._modules.values())
    )


def _check_iterable(method, values):
    if not isinstance(values, Iterable):
        raise TypeError(
            method + " should be called with an iterable of key/value pairs, "
            "but got " + type(values).__name__
        )


def _update_pairs(kind, pairs):
    """The ``(key, value)`` pairs of the iterable ``pairs`` given to ``kind.update``, each
    checked as PyTorch checks them (an iterable of length 2), one at a time."""
    for j, pair in enumerate(pairs):
        if not isinstance(pair, Iterable):
            raise TypeError(
                kind + " update sequence element #" + str(j)
                + " should be Iterable; is" + type(pair).__name__
            )
        if len(pair) != 2:
            raise ValueError(
                kind + " update sequence element #" + str(j) + " has length "
                + str(len(pair)) + "; 2 is required"
            )
        yield pair[0], pair[1]


class Sequential(Module):
    r"""Runs its modules one after the other, feeding each output to the next.

    Built from modules (named ``"0"``, ``"1"``, ...) or from an ``OrderedDict`` of names
    to modules.

    Example:
        >>> from ferric import nn
        >>> nn.Sequential(nn.Linear(4, 3), nn.ReLU())
        Sequential(
          (0): Linear(in_features=4, out_features=3, bias=True)
          (1): ReLU()
        )
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx, module):
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        for layer in list(other):
            self.append(layer)
        return self

    def __mul__(self, other):
        if not isinstance(other, int):
            raise TypeError(
                f"unsupported operand type(s) for *: {type(self)} and {type(other)}"
            )
        if other <= 0:
            raise ValueError(
                f"Non-positive multiplication factor {other} for {type(self)}"
            )
        ret = Sequential()
        for _ in range(other):
            for layer in self:
                ret.append(layer)
        return ret

    __rmul__ = __mul__

    def pop(self, key):
        """Removes the module at index ``key`` and returns it."""
        v = self[key]
        del self[key]
        return v

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, input):
        for module in self:
            input = module(input)
        return input

    def append(self, module):
        """Adds ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Inserts ``module`` before position ``index``; returns ``self``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Appends every module of ``sequential`` (any iterable of modules); returns ``self``."""
        for layer in sequential:
            self.append(layer)
        return self


class _NumberedList:
    """What :class:`ModuleList` and :class:`ParameterList` share: children named
    ``"0"``, ``"1"``, ... and indexed like a list (negative indices count from the end)."""

    def _get_abs_string_index(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]


class ModuleList(_NumberedList, Module):
    r"""Holds submodules in a list (registered, unlike a plain Python list).

    Example:
        >>> from ferric import nn
        >>> nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        ModuleList(
          (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
        )
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._get_abs_string_index(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self):
        # runs of identical children print once, as "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = [[0, 0, reprs[0]]]
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1][2]:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            if start == end:
                local = f"({start}): {r}"
            else:
                local = f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(local, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index, module):
        """Inserts ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        """Adds ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Removes the module at index ``key`` and returns it."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules):
        """Appends every module of the iterable ``modules``; returns ``self``."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    r"""Holds submodules in an ordered dict (insertion order).

    Example::

        >>> from ferric import nn
        >>> d = nn.ModuleDict({"enc": nn.Linear(4, 2), "act": nn.ReLU()})
        >>> list(d.keys()), len(list(d.parameters()))
        (['enc', 'act'], 2)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Removes every module."""
        self._modules.clear()

    def pop(self, key):
        """Removes the module named ``key`` and returns it."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        """The names, in insertion order."""
        return self._modules.keys()

    def items(self):
        """The ``(name, module)`` pairs, in insertion order."""
        return self._modules.items()

    def values(self):
        """The modules, in insertion order."""
        return self._modules.values()

    def update(self, modules):
        """Adds (or replaces) modules from a mapping or an iterable of ``(name, module)`` pairs."""
        _check_iterable("ModuleDict.update", modules)
        if isinstance(modules, Mapping | ModuleDict):
            for key, module in modules.items():
                self[key] = module
            return
        for key, module in _update_pairs("ModuleDict", modules):
            self[key] = module


def _param_line(k, p, type_str):
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.size())
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({k}): {kind} containing: [{type_str(p)} of size {size}]"
    return f"  ({k}): Object of type: {type(p).__name__}"


class ParameterList(_NumberedList, Module):
    r"""Holds parameters in a list; plain tensors appended are wrapped in ``Parameter``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> ps = nn.ParameterList([ferric.zeros(2), ferric.ones(3)])
        >>> [type(p).__name__ for p in ps], sum(p.numel() for p in ps.parameters())
        (['Parameter', 'Parameter'], 5)
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, param):
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, idx, param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def append(self, value):
        """Adds ``value`` at the end (a tensor is wrapped in a ``Parameter``); returns ``self``."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        """Appends every value of the iterable ``values``; returns ``self``."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        # (PyTorch prints the dtype here but the tensor type name in ParameterDict)
        return "\n".join(_param_line(k, p, lambda t: t.dtype) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    r"""Holds parameters in a dict; plain tensors are wrapped in ``Parameter``.

    A plain ``dict`` passed to the constructor or ``update`` is inserted in sorted key
    order (as in PyTorch); ``OrderedDict``/``ParameterDict``/pairs keep their order.
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value):
        attr = self._key_to_attr(key)
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        """A shallow copy: a new ``ParameterDict`` holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        """Returns the parameter named ``key``, first setting it to ``default`` if absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Removes every parameter."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        """Removes the parameter named ``key`` and returns it."""
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        """Removes and returns the last inserted ``(name, parameter)`` pair."""
        k, _ = self._keys.popitem()
        self._keys[k] = None
        return k, self.pop(k)

    def get(self, key, default=None):
        """The parameter named ``key``, or ``default`` if absent."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ``ParameterDict`` with each of ``keys`` set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """The names, in insertion order."""
        return self._keys.keys()

    def items(self):
        """The ``(name, parameter)`` pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The parameters, in insertion order."""
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Adds (or replaces) parameters from a mapping or an iterable of ``(name, value)`` pairs.
        """
        # (PyTorch's message names ``ParametersDict``)
        _check_iterable("ParametersDict.update", parameters)
        if isinstance(parameters, OrderedDict | ParameterDict):
            for key, p in parameters.items():
                self[key] = p
        elif isinstance(parameters, Mapping):
            for key, p in sorted(parameters.items()):
                self[key] = p
        else:
            for key, p in _update_pairs("ParameterDict", parameters):
                self[key] = p

    def extra_repr(self):
        return "\n".join(_param_line(k, p, typename) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self
