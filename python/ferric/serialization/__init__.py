"""``ferric.save`` / ``ferric.load``: PyTorch's checkpoint formats, and safetensors.

The rule (see ``docs/serialization.md``):

* ``ferric.save(obj, f)`` writes PyTorch's zip format (what ``torch.save`` writes), so
  ``torch.load(f)`` reads it, weights-only included; ``_use_new_zipfile_serialization=
  False`` writes PyTorch's legacy (pre-1.6) format. A path ending in ``.safetensors`` is
  written in the safetensors format instead (as ``torch.load`` reads such paths with
  the safetensors package); :func:`save_safetensors` does so for any file.
* ``ferric.load(f)`` reads what is in the file: a ``torch.save`` zip archive, a legacy
  ``torch.save`` stream, or a safetensors file (by content; a ``.safetensors`` path is
  always read as safetensors).
"""

from __future__ import annotations

import io
import os
import pickle
import warnings
from struct import error as struct_error
from typing import Any

from . import _globals, _reader, _safetensors, _unpickler, _writer
from ._globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._safetensors import load_safetensors, save_safetensors

__all__ = ["DEFAULT_PROTOCOL", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
           "get_unsafe_globals_in_checkpoint", "load", "load_safetensors", "safe_globals",
           "save", "save_safetensors"]

DEFAULT_PROTOCOL = 2  # torch.serialization.DEFAULT_PROTOCOL

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only "
    "if you got the file from a trusted source."
)
_DOCS = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
         "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def _is_safetensors_path(f) -> bool:
    name = os.fspath(f) if _is_path(f) else getattr(f, "name", None)
    return isinstance(name, (str, bytes)) and os.fsdecode(name).endswith(".safetensors")


def _archive_name(f) -> str:
    if _is_path(f):
        stem = os.path.splitext(os.path.basename(os.fsdecode(os.fspath(f))))[0]
        return stem or "archive"
    return "archive"


def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Saves an object to a disk file in PyTorch's checkpoint format.

    Tensors that share a storage (views) are written as views of one storage, as
    ``torch.save`` writes them. A path ending in ``.safetensors`` is written in the
    safetensors format (see :func:`save_safetensors`).

    Args:
        obj: the object to save (state dicts, tensors, nested containers, any picklable
            object).
        f: a path or a writable binary file.
        pickle_module: accepted for PyTorch's signature; ferric writes the pickle with
            its own pickler (it names PyTorch's globals without importing PyTorch).
            Used for the pickled structure of safetensors files.
        pickle_protocol (int): the pickle protocol (default 2, as PyTorch).
        _use_new_zipfile_serialization (bool): ``False`` writes the legacy format.
        _disable_byteorder_record (bool): leave out the ``byteorder`` record.

    Example:
        >>> import ferric, io
        >>> buf = io.BytesIO()
        >>> ferric.save({"w": ferric.arange(3.0), "step": 7}, buf)
        >>> _ = buf.seek(0)
        >>> ferric.load(buf)
        {'w': tensor([0., 1., 2.]), 'step': 7}
    """
    if _is_safetensors_path(f):
        save_safetensors(obj, f, pickle_module, pickle_protocol)
        return
    if _is_path(f):
        parent = os.path.dirname(os.fsdecode(os.fspath(f)))
        if _use_new_zipfile_serialization and parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        with open(os.fspath(f), "wb") as fh:
            _save_to(obj, fh, _archive_name(f), pickle_protocol,
                     _use_new_zipfile_serialization, _disable_byteorder_record)
        return
    if not hasattr(f, "write"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
    _save_to(obj, f, "archive", pickle_protocol, _use_new_zipfile_serialization,
             _disable_byteorder_record)


def _save_to(obj, fh, archive, protocol, zip_format, no_byteorder) -> None:
    if not zip_format:
        _writer.write_legacy(obj, fh, protocol)
        return
    seekable = getattr(fh, "seekable", lambda: False)()
    target = fh if seekable else io.BytesIO()
    _writer.write_zip(obj, target, archive, protocol, not no_byteorder)
    if not seekable:
        fh.write(target.getvalue())


def _wo_message(message: str) -> str:
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have "
                "two options, \033[1mdo those steps only if you trust the source of the "
                f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load "
                "with `weights_only=True` please check the recommended steps in the following "
                "error message.\n\tWeightsUnpickler error: " + message + _DOCS)
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        text += ("Please file an issue with the following so that we can make "
                 "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
    return text + "\n\n" + message + _DOCS


def _describe(f) -> str:
    if _is_path(f):
        return repr(os.fsdecode(os.fspath(f)))
    return repr(getattr(f, "name", f))


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args) -> Any:
    """Loads an object saved with :func:`save` or ``torch.save`` (or a safetensors file).

    With ``weights_only=True`` (the default, as in PyTorch) the pickle may only rebuild
    tensors, parameters, ``OrderedDict``, nested dicts/lists/tuples/sets, primitive
    values, ``torch.Size``, devices and dtypes, and classes added with
    :func:`add_safe_globals`; anything else raises ``pickle.UnpicklingError`` before it
    is imported. Tensors that were views of one storage come back as views of one ferric
    storage. Storages of dtypes ferric lacks load widened where that is exact (float16 and
    bfloat16 as float32, smaller integers as int64); others (complex) raise RuntimeError.

    Args:
        f: a path or a readable, seekable binary file.
        map_location: where storages go: ``None`` (where they were saved; a CUDA-saved
            checkpoint then raises as on a CPU-only PyTorch), ``'cpu'``, a device, a dict
            ``{saved location: location}``, or a callable ``(storage, location)`` that
            returns the storage (a 1-D tensor) or ``None``.
        pickle_module: as in PyTorch, refused with ``weights_only=True``; checkpoints are
            unpickled with the standard :mod:`pickle` machinery either way (safetensors
            files with a pickled structure use ``pickle_module.Unpickler``).
        weights_only (bool): restrict unpickling as above (default True).
        mmap (bool): map the file's storages into memory instead of reading them (zip
            format and a path only); the tensors share the mapped pages (copy-on-write).
        **pickle_load_args: passed to the unpickler (e.g. ``encoding``).

    Example:
        >>> import ferric, io
        >>> x = ferric.arange(6.0).reshape(2, 3)
        >>> buf = io.BytesIO()
        >>> ferric.save({"x": x, "row": x[1]}, buf)
        >>> _ = buf.seek(0)
        >>> out = ferric.load(buf)
        >>> out["row"].add_(10)
        tensor([13., 14., 15.])
        >>> out["x"]
        tensor([[ 0.,  1.,  2.],
                [13., 14., 15.]])
    """
    weights_only = True if weights_only is None else weights_only
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if not weights_only and pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    if _is_path(f) and _is_safetensors_path(f):
        return load_safetensors(f, map_location, pickle_module, weights_only=weights_only,
                                **pickle_load_args)
    if _is_path(f):
        with open(os.fspath(f), "rb") as fh:
            return _load_from(fh, f, map_location, pickle_module, weights_only, mmap,
                              pickle_load_args)
    if not (hasattr(f, "read") and getattr(f, "seekable", lambda: False)()):
        if not hasattr(f, "read"):
            raise AttributeError(f"'{type(f).__name__}' object has no attribute 'read'")
        f = io.BytesIO(f.read())
    return _load_from(f, f, map_location, pickle_module, weights_only, mmap, pickle_load_args)


def _load_from(fh, f, map_location, pickle_module, weights_only, mmap, pickle_load_args):
    where = _describe(f)
    start = fh.tell()
    head = fh.read(512)
    fh.seek(start)
    if head[:4] == b"PK\x03\x04":
        if mmap and not _is_path(f):
            raise ValueError("f must be a file path in order to use the mmap argument")
        return _guarded(lambda: _reader.load_zip(
            fh, where, map_location, weights_only, bool(mmap), f, pickle_load_args),
            weights_only)
    if mmap:
        name = f"{os.fspath(f)}, " if isinstance(f, str) else ""
        raise RuntimeError(
            "mmap can only be used with files saved with "
            f"`torch.save({name}_use_new_zipfile_serialization=True), please torch.save "
            "your checkpoint with this option in order to use mmap.")
    if _reader.is_legacy(head):
        return _guarded(lambda: _reader.load_legacy(fh, where, map_location, weights_only,
                                                    pickle_load_args), weights_only)
    if head[257:262] == b"ustar":
        raise RuntimeError(f"ferric.load: {where} is in PyTorch's pre-0.4 tar format, which "
                           "ferric cannot read")
    return _safetensors.load_safetensors(fh, map_location, pickle_module,
                                         weights_only=weights_only, **pickle_load_args)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals a ``torch.save`` zip checkpoint names that ``weights_only=True`` would
    refuse (neither allowed by default nor added with :func:`add_safe_globals`), read
    statically from its pickle: nothing is imported or run.

    Args:
        f: a path or a readable binary file holding a zip checkpoint.

    Example:
        >>> import ferric, io
        >>> from fractions import Fraction
        >>> buf = io.BytesIO()
        >>> ferric.save({"w": ferric.ones(2), "ratio": Fraction(1, 3)}, buf)
        >>> _ = buf.seek(0)
        >>> ferric.serialization.get_unsafe_globals_in_checkpoint(buf)
        ['fractions.Fraction']
    """
    import pickletools
    import zipfile

    fh = open(os.fspath(f), "rb") if _is_path(f) else f
    try:
        start = fh.tell()
        if fh.read(4) != b"PK\x03\x04":
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        fh.seek(start)
        with zipfile.ZipFile(fh) as zf:
            prefix = _reader._prefix(zf, _describe(f))
            data = zf.read(f"{prefix}data.pkl")
    finally:
        if fh is not f:
            fh.close()
    allowed = _unpickler.Unpickler(io.BytesIO(), None, True).allowed
    found = set()
    for op, arg, _pos in pickletools.genops(data):
        if op.name in ("GLOBAL", "INST"):
            module, name = str(arg).split(" ", 1)
            module, name = _unpickler._RENAMES.get((module, name), (module, name))
            found.add(f"{module}.{name}")
    return sorted(found - set(allowed) - set(_globals.by_path()))


def _guarded(run, weights_only: bool):
    if not weights_only:
        return run()
    try:
        return run()
    except pickle.UnpicklingError as e:
        raise pickle.UnpicklingError(_wo_message(str(e))) from None
    except (EOFError, IndexError, KeyError, struct_error, ValueError, OverflowError,
            MemoryError, TypeError, AttributeError) as e:
        # a malformed pickle (truncated, bad memo reference, bad opcode argument)
        raise pickle.UnpicklingError(_wo_message(f"{type(e).__name__}: {e}")) from None


# the unpickler's classes, for isinstance checks by users of weights_only=False loads
StorageType = _unpickler.StorageType
