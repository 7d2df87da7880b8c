"""Checkpoints in the safetensors format: ``ferric.save(obj, "x.safetensors")``,
``ferric.load`` of a safetensors file, and :func:`save_safetensors` /
:func:`load_safetensors` for file objects.

File format
-----------
Every file written here is a plain safetensors file (written with the
``safetensors`` package), so any safetensors reader (``safetensors.torch.load_file``,
``safetensors.numpy.load_file``, Hugging Face tooling) can read its tensors:

* A *state dict* (a dict of ``str -> Tensor``) is stored under its own keys, exactly as
  ``safetensors.torch.save_file(model.state_dict(), path)`` would store it.
* Any other object (optimizer state dicts with integer keys, nested dicts/lists/tuples,
  numbers, strings, ``None``, dtypes, sizes) is stored as its tensors plus a JSON
  description of the structure in the header metadata under ``"ferric.structure"``;
  tensors are named after their path in the object (``"state.0.exp_avg"``) and referenced
  from the JSON. A tensor object that occurs twice is stored once and comes back as one
  object. JSON nodes are plain JSON values (lists, ints, floats, strings, booleans,
  ``null``) or objects tagged with ``"$"``: ``tensor``, ``dict``, ``odict``, ``counter``,
  ``tuple``, ``set``, ``float`` (non-finite), ``dtype``, ``size``, ``bytes``.
* Objects outside that vocabulary (instances of arbitrary classes) fall back to pickle:
  the pickle (base64, under ``"ferric.pickle"``) refers to the tensors by name through
  persistent ids. Loading such a file needs ``weights_only=False``, as in PyTorch, since
  unpickling can run arbitrary code.

``ferric.load`` of a file without ferric metadata (e.g. written by
``safetensors.torch.save_file``) returns a ``dict`` of name -> tensor in file order.
Every ferric dtype is stored as itself (bfloat16 as safetensors' ``BF16``); the unsigned
types ferric lacks (uint16, uint32, uint64) load as int64. Views are saved as copies.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import pickle
import struct
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor
from .._size import Size
from . import _globals

__all__ = ["load_safetensors", "save_safetensors"]

_STRUCT_KEY = "ferric.structure"
_PICKLE_KEY = "ferric.pickle"
_FORMAT_VERSION = "1"

# little-endian layouts of the safetensors dtypes ferric can represent exactly
_NATIVE = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4",
           "I16": "<i2", "I8": "|i1", "U8": "|u1", "BOOL": "|b1"}
_WIDEN = {"U16": "<u2", "U32": "<u4", "U64": "<u8"}


# mapping types the JSON structure can describe (Counter: MultiStepLR's milestones)
_MAPPINGS = {dict: "dict", OrderedDict: "odict", Counter: "counter"}
_MAPPING_TYPES = {tag: cls for cls, tag in _MAPPINGS.items()}


class _Unsupported(Exception):
    """The object needs the pickle fallback."""


# -- saving -----------------------------------------------------------------------


class _Encoder:
    """Turns an object into JSON-able nodes, collecting its tensors by name."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        # keys whose array holds bfloat16 bit patterns (NumPy has no bfloat16)
        self.bfloat16: set[str] = set()
        self._by_id: dict[int, str] = {}

    def add_tensor(self, t: Tensor, name: str, dedupe: bool = True) -> str:
        if dedupe and id(t) in self._by_id:
            return self._by_id[id(t)]
        key, n = name or "tensor", 1
        while key in self.arrays:
            n += 1
            key = f"{name}#{n}"
        if t.dtype == _core.bfloat16:
            # the upper half of each (exactly widened) float32
            arr = (t.detach().float().numpy().view(np.uint32) >> 16).astype("<u2")
            self.bfloat16.add(key)
        else:
            arr = t.detach().numpy()
        # (not np.ascontiguousarray: it turns 0-d arrays into 1-d ones)
        self.arrays[key] = arr if arr.flags.c_contiguous else arr.copy(order="C")
        self._by_id[id(t)] = key
        return key

    def tensor_node(self, t: Tensor, key: str) -> dict:
        node: dict[str, Any] = {"$": "tensor", "k": key}
        if t.requires_grad:
            node["rg"] = True
        if type(t) is not Tensor:
            node["cls"] = f"{type(t).__module__}:{type(t).__qualname__}"
        return node

    def encode(self, obj, path: str):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if type(obj) is int:
            return obj
        if type(obj) is float:
            return obj if math.isfinite(obj) else {"$": "float", "v": repr(obj)}
        if isinstance(obj, Tensor):
            return self.tensor_node(obj, self.add_tensor(obj, path))
        if type(obj) is list:
            return [self.encode(v, _join(path, i)) for i, v in enumerate(obj)]
        if type(obj) is tuple:
            return {"$": "tuple", "v": [self.encode(v, _join(path, i)) for i, v in enumerate(obj)]}
        if type(obj) in (set, frozenset):
            return {"$": "set", "frozen": type(obj) is frozenset,
                    "v": [self.encode(v, _join(path, i)) for i, v in enumerate(obj)]}
        if type(obj) in _MAPPINGS:
            items = [[self.encode(k, path), self.encode(v, _join(path, k))] for k, v in obj.items()]
            return {"$": _MAPPINGS[type(obj)], "v": items}
        if type(obj) is bytes:
            return {"$": "bytes", "v": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, _core.dtype):
            return {"$": "dtype", "v": str(obj).rsplit(".", 1)[-1]}
        if type(obj).__name__ == "Size" and type(obj).__module__ == "ferric":
            return {"$": "size", "v": list(obj)}
        raise _Unsupported(type(obj))


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def _is_state_dict(obj) -> bool:
    return (type(obj) in (dict, OrderedDict) and len(obj) > 0
            and all(type(k) is str and isinstance(v, Tensor) for k, v in obj.items()))


def _require_safetensors(verb: str):
    try:
        import safetensors.numpy
    except ImportError as e:  # PyTorch's message for the same situation
        raise RuntimeError(
            f"Attempting to {verb} a safetensors file but safetensors is not installed. "
            "Please install safetensors with: pip install safetensors") from e
    return safetensors


def _serialize(obj, pickle_module, pickle_protocol) -> bytes:
    safetensors = _require_safetensors("save")

    enc = _Encoder()
    metadata = {"format": "pt", "ferric.version": _FORMAT_VERSION}
    if _is_state_dict(obj):
        # keys are the tensor names, so other safetensors readers see a normal state dict
        # (tied weights are stored under each name rather than shared)
        items = [[k, enc.tensor_node(v, enc.add_tensor(v, k, dedupe=False))]
                 for k, v in obj.items()]
        metadata[_STRUCT_KEY] = json.dumps(
            {"$": "odict" if type(obj) is OrderedDict else "dict", "v": items})
    else:
        try:
            metadata[_STRUCT_KEY] = json.dumps(enc.encode(obj, ""), allow_nan=False)
        except _Unsupported:
            enc = _Encoder()
            buf = io.BytesIO()
            pickler = pickle_module.Pickler(buf, protocol=pickle_protocol)
            pickler.persistent_id = lambda o: (
                ("ferric.tensor", enc.tensor_node(o, enc.add_tensor(o, "tensor")))
                if isinstance(o, Tensor) else None
            )
            pickler.dump(obj)
            metadata[_PICKLE_KEY] = base64.b64encode(buf.getvalue()).decode("ascii")
    specs = {
        k: safetensors.numpy.TensorSpec(
            dtype="bfloat16" if k in enc.bfloat16 else a.dtype.name, shape=a.shape,
            data_ptr=a.ctypes.data, data_len=a.nbytes)
        for k, a in enc.arrays.items()
    }
    return bytes(safetensors.serialize(specs, metadata=metadata))


def save_safetensors(obj, f, pickle_module=pickle,
                     pickle_protocol: int = pickle.DEFAULT_PROTOCOL) -> None:
    """Saves ``obj`` to ``f`` (a path or a writable binary file) in the safetensors format.

    ``ferric.save(obj, path)`` calls this for paths ending in ``.safetensors``. State
    dicts are ordinary safetensors files; other objects carry their structure in the
    header metadata (see the module docstring for the format).

    Args:
        obj: the object to save.
        f: a path or a writable binary file.

    Example:
        >>> import ferric, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "ckpt.safetensors")
        >>> ferric.save({"w": ferric.ones(2), "step": 3}, path)
        >>> ferric.load(path)
        {'w': tensor([1., 1.]), 'step': 3}
    """
    data = _serialize(obj, pickle_module, pickle_protocol)
    if hasattr(f, "write"):
        f.write(data)
    else:
        with open(os.fspath(f), "wb") as fh:
            fh.write(data)


# -- loading ----------------------------------------------------------------------


def _describe(f) -> str:
    if hasattr(f, "read"):
        return repr(getattr(f, "name", f))
    return repr(os.fspath(f))


def _read_header(data: bytes, where: str) -> dict:
    def bad(why: str) -> RuntimeError:
        return RuntimeError(f"ferric.load: {where} is not a valid safetensors file ({why})")

    if len(data) < 8:
        raise bad(f"{len(data)} bytes is too short for the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise bad(f"header of {n} bytes does not fit in a file of {len(data)} bytes; "
                  "the file is truncated or corrupt")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise bad(f"header is not valid JSON: {e}") from None
    if not isinstance(header, dict):
        raise bad("header is not a JSON object")
    return header


def _to_numpy(dtype: str, shape, raw, name: str, where: str) -> np.ndarray:
    if dtype in _NATIVE:
        arr = np.frombuffer(raw, dtype=_NATIVE[dtype])
    elif dtype in _WIDEN:
        arr = np.frombuffer(raw, dtype=_WIDEN[dtype])
        if dtype == "U64" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise RuntimeError(
                f"ferric.load: tensor {name!r} in {where} holds uint64 values beyond the "
                "int64 range"
            )
        arr = arr.astype(np.int64)
    elif dtype == "BF16":
        # bfloat16 is the upper half of a float32
        arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
    else:
        raise RuntimeError(
            f"ferric.load: tensor {name!r} in {where} has dtype {dtype}, which ferric does "
            "not support"
        )
    return arr.reshape(shape)


class _Decoder:
    def __init__(self, tensors: dict[str, Tensor], weights_only: bool, where: str) -> None:
        self.tensors = tensors
        self.weights_only = weights_only
        self.where = where
        self._made: dict[str, Tensor] = {}

    def tensor(self, node: dict) -> Tensor:
        key = node["k"]
        if key in self._made:
            return self._made[key]
        if key not in self.tensors:
            raise RuntimeError(f"ferric.load: {self.where} refers to a missing tensor {key!r}")
        t = self.tensors[key]
        cls = node.get("cls")
        if cls is not None:
            t = self._subclass(cls, t, bool(node.get("rg")))
        elif node.get("rg"):
            t.requires_grad_(True)
        self._made[key] = t
        return t

    def _subclass(self, path: str, t: Tensor, requires_grad: bool) -> Tensor:
        module, _, qualname = path.partition(":")
        if (self.weights_only and module.split(".")[0] != "ferric"
                and path not in _globals.colon_paths()):
            raise pickle.UnpicklingError(
                f"Weights only load failed: {self.where} contains a tensor of class {path}; "
                "pass weights_only=False if you trust the file"
            )
        import importlib

        cls = importlib.import_module(module)
        for part in qualname.split("."):
            cls = getattr(cls, part, None)
        # the metadata may only name a tensor class: never call anything else it points at
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise pickle.UnpicklingError(
                f"ferric.load: {self.where} names {path!r} as a tensor class, which is not a "
                "Tensor subclass"
            )
        try:
            return cls(t, requires_grad=requires_grad)
        except TypeError:
            return t.requires_grad_(requires_grad)

    def decode(self, node):
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            return node
        tag = node.get("$")
        if tag == "tensor":
            return self.tensor(node)
        if tag in _MAPPING_TYPES:
            pairs = ((self.decode(k), self.decode(v)) for k, v in node["v"])
            return _MAPPING_TYPES[tag](dict(pairs))
        if tag == "tuple":
            return tuple(self.decode(v) for v in node["v"])
        if tag == "set":
            items = (self.decode(v) for v in node["v"])
            return frozenset(items) if node.get("frozen") else set(items)
        if tag == "float":
            return float(node["v"])
        if tag == "bytes":
            return base64.b64decode(node["v"])
        if tag == "dtype":
            d = getattr(_core, str(node["v"]), None)
            if not isinstance(d, _core.dtype):
                raise RuntimeError(f"ferric.load: {self.where} names an unknown dtype "
                                   f"{node['v']!r}")
            return d
        if tag == "size":
            return Size(node["v"])
        raise RuntimeError(f"ferric.load: {self.where} has an unknown structure node {tag!r}")


def load_safetensors(f, map_location=None, pickle_module=None, *,
                     weights_only: bool | None = None, **pickle_load_args) -> Any:
    """Loads an object saved with :func:`save_safetensors`, or a state dict from any
    safetensors file. ``ferric.load`` calls this for safetensors files.

    Args:
        f: a path or a readable binary file.
        map_location: ``None``, ``'cpu'``, a CPU device, a dict of locations, or a callable
            ``(tensor, 'cpu') -> tensor`` applied to every loaded tensor.
        weights_only (bool): refuse files that need unpickling of arbitrary classes
            (default: True, as in PyTorch 2.6+).

    Raises:
        RuntimeError: the file is not a valid (or is a truncated/corrupt) safetensors file.

    Example::

        >>> import io
        >>> import ferric
        >>> buf = io.BytesIO()
        >>> ferric.serialization.save_safetensors({"w": ferric.arange(3.0), "step": 7}, buf)
        >>> _ = buf.seek(0)
        >>> ferric.serialization.load_safetensors(buf)
        {'w': tensor([0., 1., 2.]), 'step': 7}
    """
    from ._reader import _restorer

    safetensors = _require_safetensors("load")

    weights_only = True if weights_only is None else weights_only
    restore = _restorer(map_location)
    where = _describe(f)
    if hasattr(f, "read"):
        data = f.read()
    else:
        with open(os.fspath(f), "rb") as fh:
            data = fh.read()
    data = bytes(data)
    header = _read_header(data, where)
    metadata = header.get("__metadata__") or {}
    try:
        entries = dict(safetensors.deserialize(data))
    except BaseException as e:  # the package's own validation (offsets, sizes, dtypes)
        # a Rust panic surfaces as a BaseException; only interrupts pass through
        if isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit)):
            raise
        raise RuntimeError(
            f"ferric.load: {where} is not a valid safetensors file ({e})") from None

    # file order (by data offset) for files that carry no structure of their own
    def offset(name: str) -> int:
        info = header.get(name)
        return info["data_offsets"][0] if isinstance(info, dict) else 0

    tensors: dict[str, Tensor] = {}
    for name in sorted(entries, key=offset):
        e = entries[name]
        t = _core.from_numpy(_to_numpy(e["dtype"], e["shape"], e["data"], name, where))
        if e["dtype"] == "BF16":
            t = t.to(_core.bfloat16)  # exact: the values were widened to float32
        tensors[name] = restore(t, "cpu")

    decoder = _Decoder(tensors, weights_only, where)
    if _STRUCT_KEY in metadata:
        try:
            return decoder.decode(json.loads(metadata[_STRUCT_KEY]))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise RuntimeError(
                f"ferric.load: {where} has corrupt ferric metadata ({type(e).__name__}: {e})"
            ) from None
    if _PICKLE_KEY in metadata:
        return _unpickle(metadata[_PICKLE_KEY], decoder, weights_only, where,
                         pickle_module or pickle, pickle_load_args)
    return tensors


def _unpickle(payload: str, decoder: _Decoder, weights_only: bool, where: str,
              pickle_module, pickle_load_args) -> Any:
    if weights_only:
        raise pickle.UnpicklingError(
            f"Weights only load failed: {where} stores objects that can only be restored by "
            "unpickling, which can run arbitrary code. Pass weights_only=False to "
            "ferric.load if you trust the source of the file."
        )
    unpickler = pickle_module.Unpickler(io.BytesIO(base64.b64decode(payload)),
                                        **pickle_load_args)

    def persistent_load(pid):
        kind, node = pid
        if kind != "ferric.tensor":
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r} in {where}")
        return decoder.tensor(node)

    unpickler.persistent_load = persistent_load
    return unpickler.load()
