"""Reading ``torch.save``'s formats: the zip archive and the legacy (pre-1.6) stream.

Zip: ``<archive>/data.pkl`` is the pickle, ``<archive>/data/<key>`` the bytes of each
storage (stored, 64-byte aligned by PyTorch), ``<archive>/byteorder`` the byte order.
Legacy: pickles of the magic number, the protocol version and the system info, then the
object's pickle, the list of storage keys, and each storage as an int64 element count
followed by its bytes. Every storage becomes one 1-D ferric tensor (zero-copy from the
file with ``mmap=True``) and the tensors of the checkpoint are views of it.
"""

from __future__ import annotations

import io
import mmap as _mmap
import os
import pickle
import struct
import zipfile

import numpy as np

from .. import _core
from . import _unpickler
from ._writer import MAGIC_NUMBER, PROTOCOL_VERSION

_CPU_ONLY = ("If you are running on a CPU-only machine, please use torch.load with "
             "map_location=torch.device('cpu') to map your storages to the CPU.")


def _device_error(location: str) -> RuntimeError:
    backend = location.split(":", 1)[0]
    return RuntimeError(
        f"Attempting to deserialize object on a {backend.upper()} device but "
        f"torch.{backend}.is_available() is False. {_CPU_ONLY}")


def _default_restore(base, location: str):
    if location == "cpu" or location.startswith("cpu:"):
        return base
    if location.split(":", 1)[0] in ("cuda", "mps", "xpu", "hpu", "mtia", "meta"):
        raise _device_error(location)
    raise RuntimeError(
        f"don't know how to restore data location of torch.storage.UntypedStorage "
        f"(tagged with {location})")


def _restorer(map_location):
    if map_location is None:
        return _default_restore
    if isinstance(map_location, dict):
        return lambda base, loc: _default_restore(base, str(map_location.get(loc, loc)))
    if isinstance(map_location, bytes):
        map_location = map_location.decode()
    if isinstance(map_location, (str, _unpickler.device)):
        return lambda base, loc: _default_restore(base, str(map_location))
    if callable(map_location):
        def restore(base, loc):
            out = map_location(base, loc)
            return _default_restore(base, loc) if out is None else out
        return restore
    raise TypeError(f"map_location should be a str, device, dict or callable, not "
                    f"{type(map_location).__name__}")


class Context:
    """What the unpickler asks of the file: storages by key, their base tensors."""

    def __init__(self, where: str, map_location) -> None:
        self.where = where
        self.restore = _restorer(map_location)
        self.storages: dict = {}

    def restore_device(self, location: str) -> None:
        self.restore(None, location)

    def storage(self, key: str, row, numel: int, location: str):
        s = self.storages.get(key)
        if s is None:
            s = self.storages[key] = _unpickler.Storage(self, key, row, numel, location)
        return s

    def raw(self, storage) -> np.ndarray:
        raise NotImplementedError  # supplied by each format below

    def make_base(self, storage, row):
        nbytes = storage.nbytes - storage.nbytes % row.itemsize
        raw = self.raw(storage)[:nbytes]
        try:
            arr = row.decode(raw)
        except TypeError:
            raise RuntimeError(
                f"ferric.load: {self.where} holds a tensor of dtype torch.{row.name}, which "
                "ferric does not have") from None
        except OverflowError:
            raise RuntimeError(
                f"ferric.load: {self.where} holds uint64 values beyond the int64 range"
            ) from None
        t = _core.from_numpy(arr)
        native = row.ferric_dtype()
        if native is not None and t.dtype != native:
            t = t.to(native)  # bfloat16: NumPy holds it widened to float32, exact back
        base = self.restore(t, storage.location)
        if not isinstance(base, _core.Tensor) or base.dim() != 1 or \
                base.shape[0] != arr.shape[0]:
            raise RuntimeError(
                f"ferric.load: map_location returned {type(base).__name__} for a storage of "
                f"{arr.shape[0]} elements; it must return the storage (a 1-D tensor) or None")
        self.finish(storage, row, raw, arr, base)
        return base

    def finish(self, storage, row, raw, arr, base) -> None:
        pass


class ZipContext(Context):
    def __init__(self, where, map_location, zf: zipfile.ZipFile, prefix: str,
                 mm, big_endian: bool) -> None:
        super().__init__(where, map_location)
        self.zf, self.prefix, self.mm, self.big = zf, prefix, mm, big_endian

    def raw(self, storage) -> np.ndarray:
        name = f"{self.prefix}data/{storage.key}"
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise RuntimeError(f"ferric.load: {self.where} has no record {name!r} for storage "
                               f"{storage.key}") from None
        need = storage.nbytes
        if info.file_size < need:
            raise RuntimeError(
                f"ferric.load: storage {storage.key} of {self.where} holds {info.file_size} "
                f"bytes but the checkpoint needs {need} ({storage.numel} elements of "
                f"torch.{storage.row.name}); the file is truncated or corrupt")
        if self.mm is not None and info.compress_type == zipfile.ZIP_STORED:
            start = info.header_offset
            head = self.mm[start:start + 30]
            if len(head) < 30 or head[:4] != b"PK\x03\x04":
                raise RuntimeError(f"ferric.load: {self.where}: bad local header for {name!r}")
            n, m = struct.unpack("<HH", head[26:30])
            data = start + 30 + n + m
            if data + need > len(self.mm):
                raise RuntimeError(f"ferric.load: {self.where} is truncated inside {name!r}")
            raw = np.frombuffer(self.mm, dtype=np.uint8, count=need, offset=data)
        else:
            raw = np.empty(need, dtype=np.uint8)
            try:
                with self.zf.open(info) as fh:
                    got = fh.readinto(memoryview(raw)) if need else 0
            except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
                raise RuntimeError(f"ferric.load: {self.where}: cannot read {name!r} ({e})"
                                   ) from None
            if got != need:
                raise RuntimeError(f"ferric.load: {self.where} is truncated inside {name!r}")
        if self.big and storage.row.itemsize > 1:
            raw = _swapped(raw, storage.row)
        return raw


def _swapped(raw: np.ndarray, row) -> np.ndarray:
    width = np.dtype(f"u{row.itemsize}") if row.itemsize in (1, 2, 4, 8) else None
    if width is None:  # complex: swap each half
        half = np.dtype(f"u{row.itemsize // 2}")
        return raw.view(half.newbyteorder(">")).astype(half).view(np.uint8)
    return raw.view(width.newbyteorder(">")).astype(width).view(np.uint8)


def _prefix(zf: zipfile.ZipFile, where: str) -> str:
    names = zf.namelist()
    if not names or "/" not in names[0]:
        raise RuntimeError(f"ferric.load: {where} is a zip archive without PyTorch's records "
                           "(no <archive>/data.pkl)")
    prefix = names[0].split("/", 1)[0] + "/"
    if f"{prefix}data.pkl" not in names:
        if f"{prefix}constants.pkl" in names or f"{prefix}code/" in {n[:len(prefix) + 5]
                                                                     for n in names}:
            raise RuntimeError(f"ferric.load: {where} is a TorchScript archive "
                               "(torch.jit.save), which ferric cannot load")
        raise RuntimeError(f"ferric.load: {where} has no record {prefix}data.pkl")
    return prefix


def load_zip(fh, where: str, map_location, weights_only: bool, use_mmap: bool, path,
             pickle_load_args) -> object:
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {where} is not a "
                           f"complete zip archive ({e})") from None
    with zf:
        # a damaged entry header or record surfaces from zipfile at any read: PyTorch's
        # reader reports it as a RuntimeError
        try:
            prefix = _prefix(zf, where)
            big = False
            if f"{prefix}byteorder" in zf.namelist():
                order = zf.read(f"{prefix}byteorder")
                if order not in (b"little", b"big"):
                    raise ValueError("Unknown endianness type: " + order.decode("latin1"))
                big = order == b"big"
            mm = None
            if use_mmap:
                with open(path, "rb") as raw_fh:
                    size = os.fstat(raw_fh.fileno()).st_size
                    mm = _mmap.mmap(raw_fh.fileno(), size,
                                    access=_mmap.ACCESS_COPY) if size else None
            ctx = ZipContext(where, map_location, zf, prefix, mm, big)
            try:
                data = zf.read(f"{prefix}data.pkl")
            except (zipfile.BadZipFile, OSError, EOFError) as e:
                raise RuntimeError(f"ferric.load: {where}: cannot read data.pkl ({e})") from None
            unpickler = _unpickler.Unpickler(io.BytesIO(data), ctx, weights_only,
                                             **pickle_load_args)
            return unpickler.load()
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {where} ({e})"
                               ) from None


class LegacyContext(Context):
    """Storages come after the pickle: bases start zeroed and are filled afterwards."""

    def __init__(self, where, map_location) -> None:
        super().__init__(where, map_location)
        self.budget = 0  # bytes of the file after the header, set by load_legacy
        self.raws: dict = {}
        self.pending: list = []

    def raw(self, storage) -> np.ndarray:
        r = self.raws.get(storage.key)
        if r is None:
            self.budget -= storage.nbytes
            if self.budget < 0:  # never allocate more than the file can hold
                raise RuntimeError(f"ferric.load: {self.where} names storages larger than the "
                                   "file; it is truncated or corrupt")
            r = self.raws[storage.key] = np.zeros(storage.nbytes, dtype=np.uint8)
        return r

    def finish(self, storage, row, raw, arr, base) -> None:
        self.pending.append((storage, row, raw, arr, base))


def _read_exact(fh, n: int, what: str, where: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise RuntimeError(f"ferric.load: {where} is truncated in {what}")
    return data


def load_legacy(fh, where: str, map_location, weights_only: bool, pickle_load_args) -> object:
    ctx = LegacyContext(where, map_location)
    start = fh.tell()
    ctx.budget = fh.seek(0, os.SEEK_END) - start
    fh.seek(start)

    def unpickle():
        return _unpickler.Unpickler(fh, ctx, weights_only, **pickle_load_args).load()

    if unpickle() != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = unpickle()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    unpickle()  # system info: ferric reads little-endian files only
    result = unpickle()
    keys = unpickle()
    if type(keys) is not list:
        raise RuntimeError(f"ferric.load: {where} is corrupt (no storage key list)")
    for key in keys:
        storage = ctx.storages.get(str(key))
        if storage is None:
            raise RuntimeError(f"ferric.load: {where} lists storage {key!r} that no tensor uses")
        (numel,) = struct.unpack("<q", _read_exact(fh, 8, f"storage {key}", where))
        if numel != storage.numel:
            raise RuntimeError(
                f"storage has wrong byte size: expected {storage.nbytes} got "
                f"{numel * storage.row.itemsize}")
        raw = ctx.raw(storage)
        if fh.readinto(memoryview(raw)) != storage.nbytes:
            raise RuntimeError(f"ferric.load: {where} is truncated in storage {key}")
    for _storage, row, raw, _arr, base in ctx.pending:
        values = row.decode(raw)
        if base.dtype == _core.bfloat16:  # no NumPy view: copy through float32
            base.detach().copy_(_core.from_numpy(values))
            continue
        target = base.detach().numpy()
        if not np.shares_memory(target, raw):
            target[...] = values
    return result


def is_legacy(head: bytes) -> bool:
    magic = pickle.dumps(MAGIC_NUMBER, protocol=2)[2:]
    return head[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05") and \
        head[2:2 + len(magic) - 1] == magic[:-1]
