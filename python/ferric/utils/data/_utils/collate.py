"""``default_collate`` (samples -> batch) and ``default_convert`` (one sample's NumPy
data -> tensors), with PyTorch's rules:

* tensors are stacked along a new first dimension;
* NumPy arrays and NumPy scalars become tensors (arrays of strings/objects are errors);
* Python floats become a float64 tensor, ints an int64 tensor, bools a bool tensor;
* strings and bytes are returned as the list they came in;
* mappings, namedtuples and sequences are collated field by field (sequences are
  transposed; tuples come back as lists, as in PyTorch).
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable

import numpy as np

from .... import _core
from ...._core import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# dtype kinds that cannot become tensors: byte strings, unicode, objects
_np_str_obj = re.compile(r"[SaUO]")

_ERR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}"
)


def _rebuild_mapping(elem, values: dict):
    """A mapping of ``elem``'s type holding ``values`` (a plain dict if the type
    cannot be rebuilt from one)."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            out = copy.copy(elem)
            out.update(values)
            return out
        return type(elem)(values)
    except TypeError:
        return values


def _rebuild_sequence(elem, values: list):
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            out = copy.copy(elem)
            for i, v in enumerate(values):
                out[i] = v
            return out
        return type(elem)(values)
    except TypeError:
        return values


def default_convert(data):
    """Converts NumPy arrays/scalars inside ``data`` to tensors, keeping the structure
    (used by ``DataLoader`` when automatic batching is off)."""
    if isinstance(data, Tensor):
        return data
    kind = type(data)
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_", "bytes_"):
        if isinstance(data, np.ndarray) and _np_str_obj.search(data.dtype.str) is not None:
            return data
        return _core.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map: dict[type | tuple[type, ...], Callable] | None = None):
    """Collates a list of samples, dispatching on the type of the first one: an exact
    entry of ``collate_fn_map`` first, then the first ``isinstance`` match, then the
    container rules."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(
            elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
        )
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        # namedtuples of unequal length are truncated, as zip() does in PyTorch
        fields = zip(*batch, strict=False)
        return kind(*(collate(s, collate_fn_map=collate_fn_map) for s in fields))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # each column is the tuple zip() makes; string columns come back as that tuple
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch, strict=True)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERR.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return _core.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _np_str_obj.search(elem.dtype.str) is not None:
        raise TypeError(_ERR.format(elem.dtype))
    return collate([_core.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _core.as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return _core.tensor(batch, dtype=_core.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    # bools are ints too: tensor() keeps them bool, as torch.tensor does
    return _core.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Puts a list of samples into a batch (see the module docstring for the rules).

    Example:
        >>> import ferric
        >>> from ferric.utils.data import default_collate
        >>> default_collate([(ferric.tensor([1.0, 2.0]), 0), (ferric.tensor([3.0, 4.0]), 1)])
        [tensor([[1., 2.],
                [3., 4.]]), tensor([0, 1])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
