"""Unpickling ``torch.save`` pickles into ferric objects.

``find_class`` is the only door through which a pickle reaches Python objects (``GLOBAL``,
``STACK_GLOBAL``, ``INST``, ``OBJ`` and the copyreg extension codes all go through it).
With ``weights_only=True`` it opens exactly for what PyTorch's weights-only unpickler
allows: the tensor rebuild functions of ``torch._utils`` (answered by ferric's own
implementations below), ``torch.nn.parameter.Parameter``, ``collections.OrderedDict`` /
``Counter``, ``torch.Size``, ``torch.device``, dtypes, storage classes, ``set``,
``bytearray``, ``complex``, ``_codecs.encode`` and the user's safe globals. Anything
else raises PyTorch's ``UnpicklingError`` before it is imported, let alone called.
With ``weights_only=False`` other names are imported as ``pickle`` does (``torch.X``
names that ferric mirrors resolve to ``ferric.X``).
"""

from __future__ import annotations

import codecs
import importlib
import pickle
from collections import Counter, OrderedDict

from .. import _core, _pickle
from .._device import device
from .._size import Size
from . import _dtypes, _globals, _views

_BLOCKED = ("sys", "os", "posix", "nt")


class _Sealed:
    """ferric's own unpickling helpers: a pickle's BUILD opcode may not change them."""

    def __setstate__(self, state):
        raise pickle.UnpicklingError(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
            f"`add_safe_globals`, but got {type(self)}")


class StorageType(_Sealed):
    """What ``torch.FloatStorage`` & co (and ``torch.storage.UntypedStorage``) unpickle
    as: the dtype row of the storage's bytes."""

    def __init__(self, row: _dtypes.DTypeRow) -> None:
        self.row = row

    def __repr__(self) -> str:
        return f"StorageType(dtype=torch.{self.row.name})"


class MissingDType(_Sealed):
    """A PyTorch dtype ferric does not have (it can still name one in a checkpoint)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (MissingDType, (self.name,))


class Storage(_Sealed):
    """A storage named by a checkpoint: ``key`` (its record), the dtype row it was saved
    with, its element count and saved location. ``base(row)`` is the 1-D ferric tensor
    over its bytes read as ``row`` (made once per dtype, so views share it)."""

    def __init__(self, ctx, key: str, row, numel: int, location: str) -> None:
        self.ctx, self.key, self.row, self.numel, self.location = ctx, key, row, numel, location
        self._bases: dict = {}

    @property
    def nbytes(self) -> int:
        return self.numel * self.row.itemsize

    def base(self, row):
        b = self._bases.get(row.name)
        if b is None:
            b = self._bases[row.name] = self.ctx.make_base(self, row)
        return b


def _tensor(ctx, storage, offset, size, stride, row=None):
    if not isinstance(storage, Storage):
        raise pickle.UnpicklingError(
            f"_rebuild_tensor expects a storage, got {type(storage).__name__}")
    row = row or storage.row
    numel = storage.nbytes // row.itemsize
    _views.check_window("ferric.load", numel, row.itemsize, int(offset), tuple(size),
                        tuple(stride))
    return _views.view_of(storage.base(row), row, int(offset), tuple(size), tuple(stride))


def _row_of_dtype(dtype) -> _dtypes.DTypeRow:
    name = dtype.name if isinstance(dtype, MissingDType) else repr(dtype).rsplit(".", 1)[-1]
    row = _dtypes.BY_NAME.get(name)
    if row is None:
        raise RuntimeError(f"ferric.load: tensors of dtype torch.{name} are not supported")
    return row


def _with_grad(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuilders(ctx) -> dict:
    """The functions of ``torch._utils`` (and ``torch._tensor``) a pickle may call."""

    def rebuild_tensor(storage, storage_offset, size, stride):
        return _tensor(ctx, storage, storage_offset, size, stride)

    def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, metadata=None):
        return _with_grad(_tensor(ctx, storage, storage_offset, size, stride), requires_grad)

    def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, dtype, metadata=None):
        t = _tensor(ctx, storage, storage_offset, size, stride, _row_of_dtype(dtype))
        return _with_grad(t, requires_grad)

    def rebuild_parameter(data, requires_grad, backward_hooks, state=None):
        cls = _pickle._parameter_class
        if not isinstance(data, _core.Tensor) or cls is None:
            raise pickle.UnpicklingError("_rebuild_parameter expects a tensor")
        p = cls(data, requires_grad)
        if state:
            _set_state(p, state)
        return p

    def rebuild_from_type_v2(func, new_type, args, state):
        ret = func(*args)
        if new_type is not _core.Tensor and isinstance(new_type, type) and \
                issubclass(new_type, _core.Tensor) and type(ret) is not new_type:
            ret = _pickle._as_subclass(ret, new_type)
        if state:
            _set_state(ret, state)
        return ret

    def rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
        ctx.restore_device(str(device))
        return _with_grad(data.to(dtype=dtype), requires_grad)

    def unsupported(kind):
        def refuse(*args, **kwargs):
            raise RuntimeError(f"ferric.load: the checkpoint holds {kind} tensors, which "
                               "ferric does not support")
        return refuse

    return {
        "torch._utils._rebuild_tensor": rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
        "torch._utils._rebuild_device_tensor_from_cpu_tensor":
            rebuild_device_tensor_from_cpu_tensor,
        "torch._utils._rebuild_qtensor": unsupported("quantized"),
        "torch._utils._rebuild_sparse_tensor": unsupported("sparse"),
        "torch._utils._rebuild_meta_tensor_no_storage": unsupported("meta"),
        "torch._utils._rebuild_nested_tensor": unsupported("nested"),
        "torch._utils._rebuild_wrapper_subclass": unsupported("wrapper-subclass"),
        "torch._utils._rebuild_device_tensor_from_numpy": unsupported("NumPy-backed device"),
    }


def _set_state(obj, state) -> None:
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
        for k, v in (slots or {}).items():
            setattr(obj, k, v)
    if state:
        obj.__dict__.update(state)


def _get_layout(name):
    return getattr(_core, str(name).rsplit(".", 1)[-1], name)


def _allowed(ctx) -> dict:
    """{"module.name": object} for every global a weights-only load may use."""
    rc = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.Size": Size,
        "torch.Tensor": _core.Tensor,
        "torch.device": device,
        "torch.serialization._get_layout": _get_layout,
        "_codecs.encode": codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.UntypedStorage": StorageType(_dtypes.UNTYPED),
    }
    if _pickle._parameter_class is not None:
        rc["torch.nn.parameter.Parameter"] = _pickle._parameter_class
    for row in _dtypes.ROWS:
        d = row.ferric_dtype()
        rc[f"torch.{row.name}"] = d if d is not None else MissingDType(row.name)
        if row.storage:
            rc[f"torch.{row.storage}"] = StorageType(row)
    for name in _dtypes.UNSUPPORTED:
        rc[f"torch.{name}"] = MissingDType(name)
    rc.update(_rebuilders(ctx))
    return rc


# renames that pickle applies to Python 2 names (the ones torch checkpoints meet)
_RENAMES = {("__builtin__", "set"): ("builtins", "set"),
            ("__builtin__", "bytearray"): ("builtins", "bytearray"),
            ("__builtin__", "complex"): ("builtins", "complex")}


def unsupported_global(full_path: str) -> pickle.UnpicklingError:
    shown = full_path.removeprefix("builtins.")
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`ferric.serialization.add_safe_globals([{shown}])` or the "
        f"`ferric.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function."
    )


class Unpickler(pickle.Unpickler):
    """The unpickler of ``ferric.load`` for PyTorch checkpoints."""

    def __init__(self, file, ctx, weights_only: bool, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self.ctx = ctx
        self.weights_only = weights_only
        self.allowed = _allowed(ctx)

    def find_class(self, module, name):
        module, name = _RENAMES.get((module, name), (module, name))
        full = f"{module}.{name}"
        if full in self.allowed:
            return self.allowed[full]
        user = _globals.by_path()
        if full in user:
            return user[full]
        if self.weights_only:
            if module in _BLOCKED:
                raise pickle.UnpicklingError(
                    f"Trying to load unsupported GLOBAL {full} whose module {module} is "
                    "blocked.")
            raise unsupported_global(full)
        if module == "torch" or module.startswith("torch."):
            # PyTorch classes that ferric mirrors under the same path
            try:
                target = importlib.import_module("ferric" + module[len("torch"):])
                for part in name.split("."):
                    target = getattr(target, part)
                return target
            except (ImportError, AttributeError):
                pass
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if type(pid) is not tuple or not pid:
            raise pickle.UnpicklingError(
                f"persistent_load id must be tuple or int, but got {type(pid)}")
        kind = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
        if kind != "storage" or len(pid) not in (5, 6):
            raise pickle.UnpicklingError(
                f"Only persistent_load of storage is allowed, but got {kind!r}")
        storage_type, key, location, numel = pid[1:5]
        if not isinstance(storage_type, StorageType):
            raise pickle.UnpicklingError(f"unknown storage type {storage_type!r}")
        if isinstance(location, bytes):
            location = location.decode("ascii")
        if type(numel) is not int or numel < 0 or not isinstance(key, (str, int)):
            raise pickle.UnpicklingError(f"malformed storage id {pid!r}")
        if len(pid) == 6 and pid[5] is not None:
            raise RuntimeError("ferric.load: storage views of the pre-1.0 format are not "
                               "supported")
        return self.ctx.storage(str(key), storage_type.row, numel, str(location))
