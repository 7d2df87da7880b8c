"""The ragged structure shared by nested tensors: item lengths, offsets, segment ids.

A nested tensor of ``B`` items stores its rows packed in one ``(T, *trailing)`` buffer,
``T = sum(lengths)``; item ``i`` is rows ``starts[i] : starts[i] + lengths[i]``. The
structure is immutable and *interned* by its lengths, so every nested tensor with the
same lengths shares one ``_Ragged`` object: structure checks of binary ops are an
identity test, the index tensors built for segment reductions are built once, and the
ragged size prints with one symbol (``j1``) as PyTorch's nested ints do.
"""

from __future__ import annotations

import itertools
import weakref

from .. import _core

_numbers = itertools.count(1)
_interned: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class _Layout:
    """A tensor layout constant (``ferric.jagged``), compared by identity."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"ferric.{self.name}"

    def __reduce__(self):
        return self.name


jagged = _Layout("jagged")


class NestedInt:
    """The size of the ragged dimension in ``nt.shape`` (PyTorch's nested int ``j1``).

    It equals the ragged size of every nested tensor with the same lengths and nothing
    else; it has no single integer value, so ``int(j)`` and arithmetic raise ``TypeError``
    instead of silently picking one item's length. Use ``nt.offsets()`` or
    ``[t.shape[0] for t in nt.unbind()]`` for the per-item lengths.
    """

    __slots__ = ("_ragged",)

    def __init__(self, ragged):
        self._ragged = ragged

    def __repr__(self):
        return f"j{self._ragged.number}"

    def __eq__(self, other):
        return isinstance(other, NestedInt) and other._ragged is self._ragged

    def __hash__(self):
        return hash(("NestedInt", self._ragged.number))

    def _no_value(self, *_):
        raise TypeError(
            f"the ragged size {self!r} of a nested tensor has no single integer value "
            f"(item lengths {_short(self._ragged.lengths)}); use nt.offsets() or the items' "
            "shapes"
        )

    __int__ = __index__ = __float__ = __bool__ = _no_value
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _no_value
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = _no_value
    __lt__ = __le__ = __gt__ = __ge__ = _no_value


def _norm_dim(dim, ndim):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    return dim % ndim


def _short(seq, limit=8):
    """A list for an error message, elided in the middle when long."""
    seq = list(seq)
    if len(seq) <= limit:
        return str(seq)
    head = ", ".join(str(s) for s in seq[: limit // 2])
    tail = ", ".join(str(s) for s in seq[-limit // 2:])
    return f"[{head}, ..., {tail}] ({len(seq)} items)"


class _Ragged:
    """Lengths of the items of a nested batch plus index tensors derived from them
    (built lazily, then cached for every nested tensor sharing the structure)."""

    __slots__ = ("lengths", "starts", "total", "max_len", "number", "_offsets", "_seg",
                 "_lengths_t", "_pad_rows", "_rnn_pack", "__weakref__")

    def __init__(self, lengths):
        self.lengths = lengths
        starts, acc = [], 0
        for n in lengths:
            starts.append(acc)
            acc += n
        self.starts = tuple(starts)
        self.total = acc
        self.max_len = max(lengths) if lengths else 0
        self.number = next(_numbers)
        self._offsets = self._seg = self._lengths_t = self._rnn_pack = None
        self._pad_rows = {}

    @property
    def batch(self):
        return len(self.lengths)

    def offsets(self):
        """``(B + 1,)`` int64: item ``i`` is rows ``offsets[i]:offsets[i + 1]``."""
        if self._offsets is None:
            self._offsets = _core.tensor(list(self.starts) + [self.total], dtype=_core.int64)
        return self._offsets

    def lengths_tensor(self):
        if self._lengths_t is None:
            self._lengths_t = _core.tensor(list(self.lengths), dtype=_core.int64)
        return self._lengths_t

    def seg(self):
        """``(T,)`` int64 segment ids: the item each packed row belongs to (the index of
        every segment reduction: ``zeros(B, ...).index_add(0, seg, rows)``)."""
        if self._seg is None:
            self._seg = _core.arange(self.batch).repeat_interleave(self.lengths_tensor())
        return self._seg

    def pad_rows(self, width):
        """``(T,)`` int64: the row of each packed row in a ``(B * width, ...)`` padded
        buffer (item ``i``, position ``p`` -> ``i * width + p``)."""
        rows = self._pad_rows.get(width)
        if rows is None:
            seg = self.seg()
            local = _core.arange(self.total) - self.offsets().index_select(0, seg)
            rows = seg * width + local
            self._pad_rows[width] = rows
        return rows


def ragged_for(lengths):
    """The interned structure for these item lengths (a tuple of non-negative ints)."""
    lengths = tuple(lengths)
    r = _interned.get(lengths)
    if r is None:
        r = _Ragged(lengths)
        _interned[lengths] = r
    return r
