"""Writing ``torch.save``'s formats: the zip archive (default) and the legacy stream.

The pickle names PyTorch's own globals (``torch._utils._rebuild_tensor_v2``,
``torch.FloatStorage``, ``torch.Size``, ``torch.float32`` ...) so that ``torch.load``
(weights-only included) rebuilds PyTorch objects; ferric writes those ``GLOBAL``
opcodes itself (PyTorch need not be installed). Everything else pickles as ``pickle``
pickles it, at PyTorch's default protocol 2.
"""

from __future__ import annotations

import io
import pickle
import struct
import sys
import zipfile
from collections import OrderedDict

from .. import _core, _pickle
from .._device import device
from .._size import Size
from . import _dtypes, _views
from ._unpickler import MissingDType

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
ALIGNMENT = 64


class Global:
    """A ``module.name`` written as a ``GLOBAL`` opcode without importing it."""

    _cache: dict = {}

    def __new__(cls, module: str, name: str):
        key = (module, name)
        if key not in cls._cache:
            obj = super().__new__(cls)
            obj.module, obj.name = module, name
            cls._cache[key] = obj
        return cls._cache[key]

    def __call__(self, *args):  # pickle's reduce protocol requires a callable
        raise TypeError(f"{self.module}.{self.name} is only a name for torch.load")


class StorageRef:
    def __init__(self, key: str, row, numel: int) -> None:
        self.key, self.row, self.numel = key, row, numel


class _Discard:
    def write(self, data) -> int:
        return len(data)


class TorchPickler(pickle._Pickler):
    """A pickler whose tensors are PyTorch's ``_rebuild_tensor_v2`` calls over storages.

    It extends the pure-Python pickler (``pickle._Pickler``): only its ``save`` can be
    overridden per object, which writing ``GLOBAL torch ...`` without importing torch needs.

    ``groups`` is ``None`` on the first pass (which only collects the tensors, so that
    each shared storage's extent is known before any of its tensors is written)."""

    def __init__(self, file, protocol: int, groups, legacy: bool) -> None:
        super().__init__(file, protocol=protocol)
        self.groups = groups
        self.legacy = legacy
        self.seen: list = []
        self.used: dict = {}  # key -> (StorageRef, group)

    def save(self, obj, save_persistent_id=True):
        if type(obj) is Global:
            if id(obj) in self.memo:
                self.write(self.get(self.memo[id(obj)][0]))
                return
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            self.memoize(obj)
            return
        if isinstance(obj, _core.dtype):
            self.save(Global("torch", _dtypes.row_of(obj).name))
            return
        if isinstance(obj, MissingDType):
            self.save(Global("torch", obj.name))
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        if type(obj) is not StorageRef:
            return None
        row = obj.row
        kind = Global("torch", row.storage) if row.storage else \
            Global("torch.storage", "UntypedStorage")
        numel = obj.numel if row.storage else obj.numel * row.itemsize
        pid = ("storage", kind, obj.key, "cpu", numel)
        return pid + (None,) if self.legacy else pid

    def reducer_override(self, obj):
        if isinstance(obj, _core.Tensor):
            return self._reduce_tensor(obj)
        if type(obj) is Size:
            return (Global("torch", "Size"), (tuple(obj),))
        if type(obj) is device:
            return (Global("torch", "device"), (str(obj),))
        return NotImplemented

    def _storage_of(self, t):
        if self.groups is None:
            self.seen.append(t)
            return StorageRef("0", _dtypes.row_of(t.dtype), 0), 0
        if t.numel() == 0:
            key = str(len(self.used))
            ref = StorageRef(key, _dtypes.row_of(t.dtype), 0)
            self.used[key] = (ref, None)
            return ref, 0
        gkey = (repr(t.dtype), t.data_ptr() - t.storage_offset() * t.element_size())
        group = self.groups[gkey]
        if len(group) == 4:  # first use: number the storage in order of appearance
            key = str(len(self.used))
            ref = StorageRef(key, _dtypes.row_of(t.dtype), group[2] - group[1])
            self.used[key] = (ref, group)
            group.append(ref)
        return group[4], t.storage_offset() - group[1]

    def _reduce_tensor(self, obj):
        param_cls = _pickle._parameter_class
        if param_cls is not None and isinstance(obj, param_cls):
            data = obj.detach()
            state = dict(obj.__dict__) or None
            if type(obj) is param_cls and state is None:
                return (Global("torch._utils", "_rebuild_parameter"),
                        (data, obj.requires_grad, OrderedDict()))
            if type(obj) is param_cls:
                return (Global("torch._utils", "_rebuild_parameter_with_state"),
                        (data, obj.requires_grad, OrderedDict(), state))
        t = obj.detach()
        ref, offset = self._storage_of(t)
        args: tuple = (ref, offset, tuple(t.shape), tuple(t.stride()), obj.requires_grad,
                       OrderedDict())
        func = Global("torch._utils", "_rebuild_tensor_v2")
        if not ref.row.storage:
            func = Global("torch._utils", "_rebuild_tensor_v3")
            args = args + (t.dtype,)
        state = dict(obj.__dict__) or None
        if type(obj) is _core.Tensor and state is None:
            return (func, args)
        return (Global("torch._tensor", "_rebuild_from_type_v2"),
                (func, type(obj), args, state))


def _pickle_obj(obj, protocol: int, legacy: bool) -> tuple[bytes, TorchPickler]:
    first = TorchPickler(_Discard(), protocol, None, legacy)
    first.dump(obj)
    groups = {k: list(v) for k, v in _views.storage_groups(first.seen).items()}
    first.seen.clear()
    buf = io.BytesIO()
    pickler = TorchPickler(buf, protocol, groups, legacy)
    pickler.dump(obj)
    return buf.getvalue(), pickler


def _storage_data(entry) -> memoryview:
    ref, group = entry
    if group is None:
        return memoryview(b"")
    return _views.storage_bytes(group[3], group[1], group[2])


def _aligned_record(zf: zipfile.ZipFile, name: str, data) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = len(data)
    start = zf.fp.tell() + 30 + len(name.encode("utf-8")) + 4
    pad = -start % ALIGNMENT
    # the 'FB' padding field PyTorch's writer uses, so record data starts 64-aligned
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    with zf.open(info, "w") as dest:
        dest.write(data)


def write_zip(obj, fh, archive: str, protocol: int, byteorder_record: bool) -> None:
    data_pkl, pickler = _pickle_obj(obj, protocol, legacy=False)
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
        _aligned_record(zf, f"{archive}/data.pkl", data_pkl)
        if byteorder_record:
            _aligned_record(zf, f"{archive}/byteorder", sys.byteorder.encode())
        for key, entry in pickler.used.items():
            _aligned_record(zf, f"{archive}/data/{key}", _storage_data(entry))
        _aligned_record(zf, f"{archive}/version", b"3\n")


def write_legacy(obj, fh, protocol: int) -> None:
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for head in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(head, fh, protocol=protocol)
    data_pkl, pickler = _pickle_obj(obj, protocol, legacy=True)
    fh.write(data_pkl)
    keys = sorted(pickler.used)
    pickle.dump(keys, fh, protocol=protocol)
    for key in keys:
        ref = pickler.used[key][0]
        fh.write(struct.pack("<q", ref.numel))
        fh.write(_storage_data(pickler.used[key]))
