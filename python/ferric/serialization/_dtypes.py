"""The dtypes of PyTorch checkpoints and what ferric makes of each.

One row per PyTorch dtype: its name (``torch.<name>`` in pickles), its legacy storage
class (``torch.<Storage>``, what ``torch.save`` names for a typed storage), the NumPy
layout of its bytes in the file, and the ferric dtype a storage of it loads as when
ferric does not have the dtype itself (``widen``: exact conversions only). A dtype ferric
gains is picked up from the extension at load time (``getattr(_core, name)``) and then
loads natively; a new PyTorch dtype is one more row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core


@dataclass(frozen=True)
class DTypeRow:
    name: str  # torch.<name>
    storage: str | None  # torch.<storage> for typed storages (None: new dtypes, untyped)
    layout: str | None  # NumPy dtype of the bytes on file (None: converted by `decode`)
    itemsize: int
    widen: str | None  # the ferric dtype it loads as when ferric lacks it (exact)

    def ferric_dtype(self):
        """The ferric dtype of this name, or None if this build does not have it."""
        d = getattr(_core, self.name, None)
        return d if isinstance(d, _core.dtype) else None

    def decode(self, raw: np.ndarray) -> np.ndarray:
        """The file's bytes (a uint8 array) as values ferric can hold."""
        if self.name == "bfloat16":
            # bfloat16 is the upper half of a float32
            return (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
        assert self.layout is not None
        arr = raw.view(self.layout)
        if self.ferric_dtype() is not None:
            return arr
        if self.widen is None:
            raise TypeError(self.name)
        if self.name == "uint64" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise OverflowError(self.name)
        return arr.astype(self.widen)


ROWS = (
    DTypeRow("float32", "FloatStorage", "<f4", 4, None),
    DTypeRow("float64", "DoubleStorage", "<f8", 8, None),
    DTypeRow("int64", "LongStorage", "<i8", 8, None),
    DTypeRow("bool", "BoolStorage", "|b1", 1, None),
    DTypeRow("float16", "HalfStorage", "<f2", 2, "float32"),
    DTypeRow("bfloat16", "BFloat16Storage", None, 2, "float32"),
    DTypeRow("int32", "IntStorage", "<i4", 4, "int64"),
    DTypeRow("int16", "ShortStorage", "<i2", 2, "int64"),
    DTypeRow("int8", "CharStorage", "|i1", 1, "int64"),
    DTypeRow("uint8", "ByteStorage", "|u1", 1, "int64"),
    DTypeRow("uint16", None, "<u2", 2, "int64"),
    DTypeRow("uint32", None, "<u4", 4, "int64"),
    DTypeRow("uint64", None, "<u8", 8, "int64"),
    DTypeRow("complex64", "ComplexFloatStorage", "<c8", 8, None),
    DTypeRow("complex128", "ComplexDoubleStorage", "<c16", 16, None),
)

BY_NAME = {r.name: r for r in ROWS}
BY_STORAGE = {r.storage: r for r in ROWS if r.storage}
# torch.storage.UntypedStorage: bytes; the tensor's rebuild names the dtype
UNTYPED = DTypeRow("uint8", None, "|u1", 1, "int64")
# other dtype globals PyTorch's weights-only unpickler accepts but ferric cannot hold
UNSUPPORTED = ("qint8", "qint32", "quint8", "quint4x2", "quint2x4", "complex32",
               "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
               "float8_e8m0fnu", "float4_e2m1fn_x2", "bits8", "bits16", "bits1x8",
               "bits2x4", "bits4x2", *(f"uint{i}" for i in range(1, 8)),
               *(f"int{i}" for i in range(1, 8)))


def row_of(dtype) -> DTypeRow:
    """The row of a ferric dtype (for saving)."""
    name = repr(dtype).rsplit(".", 1)[-1]
    row = BY_NAME.get(name)
    if row is None:
        raise TypeError(f"ferric.save: no PyTorch storage type is known for dtype {name}")
    return row
