"""Tensors as (storage, offset, size, stride), both ways.

Loading: a checkpoint names each tensor as a window on a storage. ferric has no
``as_strided``; :func:`view_of` builds the window from view operations on the storage's
1-D base tensor (``narrow``, a split of the last dimension, step slicing, ``unsqueeze``,
``expand``, ``permute``), so every tensor of one storage is a view of one ferric storage
(shared memory and version counter). That covers every layout ``torch.save`` meets in
practice (contiguous, transposed, sliced, stepped, selected, expanded); a layout the
view operations cannot express (overlapping windows such as ``unfold``'s) shares the
storage's memory through NumPy instead, with its own version counter.

Saving: ferric tensors that share a storage are grouped by the address of their
storage's first element, and the group is written as one storage covering the range its
tensors use.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ._dtypes import DTypeRow


def extent(size, stride) -> int:
    """Elements from the first to one past the last element of a strided window."""
    if any(n == 0 for n in size):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True))


def check_window(op: str, numel: int, itemsize: int, offset: int, size, stride) -> None:
    """PyTorch's ``setStorage`` bounds check, with its message."""
    bad = (offset < 0 or any(n < 0 for n in size) or any(s < 0 for s in stride)
           or len(size) != len(stride))
    ext = extent(size, stride) if not bad else 0
    need = offset + ext if ext else 0  # as PyTorch: an empty window needs no storage
    if bad or need > numel:
        raise RuntimeError(
            f"{op}: setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{offset}, and itemsize {itemsize} requiring a storage size of "
            f"{need * itemsize} are out of bounds for storage of size {numel * itemsize}"
        )


class _NoView(Exception):
    pass


def _lead(t, k: int) -> tuple:
    return (slice(None),) * k


def _row_lengths(size: list, stride: list) -> list:
    """For each dim but the last, the row length r its split uses: a divisor of its
    stride (every (s / r)-th row is kept) long enough for the next dim's chunk."""
    need = (size[-1] - 1) * stride[-1] + 1
    rows = []
    for n, s in zip(reversed(size[:-1]), reversed(stride[:-1]), strict=True):
        if need > s:
            raise _NoView
        r = next(d for d in range(need, s + 1) if s % d == 0)
        rows.append(r)
        need = (n - 1) * s + r
    return rows[::-1]


def _build_sorted(base, offset: int, size: list, stride: list):
    """Dims sorted by decreasing stride, all sizes >= 2 and strides >= 1."""
    cur, rel, length = base, offset, base.shape[0]
    for i, r in enumerate(_row_lengths(size, stride)):
        n, s = size[i], stride[i]
        inner = extent(size[i + 1:], stride[i + 1:])
        lead = cur.dim() - 1
        # split the last axis into rows of r elements and keep every t-th row: rows of
        # stride s, each holding the inner window at `rel`
        t, rows = s // r, (n - 1) * (s // r) + 1
        lo, hi = max(0, rel + rows * r - length), min(rel, r - inner)
        if lo > hi:
            raise _NoView
        cur = cur.narrow(lead, rel - lo, rows * r)
        cur = cur.view(*cur.shape[:-1], rows, r)[_lead(cur, lead) + (slice(None, None, t),)]
        rel, length = lo, r
    n, s, lead = size[-1], stride[-1], cur.dim() - 1
    return cur.narrow(lead, rel, (n - 1) * s + 1)[_lead(cur, lead) + (slice(None, None, s),)]


def _try_view(base, offset: int, size, stride):
    keep = [i for i, (n, s) in enumerate(zip(size, stride, strict=True)) if n > 1 and s > 0]
    order = sorted(keep, key=lambda i: -stride[i])
    if order:
        t = _build_sorted(base, offset, [size[i] for i in order], [stride[i] for i in order])
        t = t.permute(*[order.index(i) for i in keep]) if len(order) > 1 else t
    else:
        t = base.narrow(0, offset, 1).view(())
    # put back the size-1 dims and the stride-0 (expanded) dims in their places
    for i in range(len(size)):
        if i not in keep:
            t = t.unsqueeze(i)
    if any(size[i] > 1 and stride[i] == 0 for i in range(len(size))):
        t = t.expand(*size)
    return t


def view_of(base, row: DTypeRow, offset: int, size, stride):
    """The tensor at (offset, size, stride) on the 1-D storage tensor ``base``."""
    size, stride = [int(n) for n in size], [int(s) for s in stride]
    if any(n == 0 for n in size):
        return base.narrow(0, min(offset, base.shape[0]), 0).view(size)
    try:
        t = _try_view(base, offset, size, stride)
        good = (list(t.shape) == size and t.storage_offset() - base.storage_offset() == offset
                and all(st == s for st, s, n in zip(t.stride(), stride, size, strict=True)
                        if n > 1))
        if good:
            return t
    except (_NoView, RuntimeError, ValueError, IndexError):
        pass
    arr = base.numpy()
    item = arr.itemsize
    window = np.lib.stride_tricks.as_strided(arr[offset:], shape=size,
                                             strides=[s * item for s in stride])
    return _core.from_numpy(window)


def storage_groups(tensors) -> dict:
    """Groups ferric tensors by storage: {key: (dtype, lo, hi, anchor)} where [lo, hi)
    is the element range the group uses and ``anchor`` the tensor starting at ``lo``."""
    groups: dict = {}
    for t in tensors:
        if t.numel() == 0:
            continue
        item = t.element_size()
        off = t.storage_offset()
        key = (repr(t.dtype), t.data_ptr() - off * item)
        hi = off + extent(t.shape, t.stride())
        g = groups.get(key)
        if g is None:
            groups[key] = [t.dtype, off, hi, t]
        else:
            if off < g[1]:
                g[1], g[3] = off, t
            g[2] = max(g[2], hi)
    return groups


def storage_bytes(anchor, lo: int, hi: int) -> memoryview:
    """The bytes of elements [lo, hi) of ``anchor``'s storage (``anchor`` starts at lo).

    Every element of the range lies inside the storage (tensors of the group start at
    or after lo and end at or before hi), so the window reads only the storage's memory.
    """
    if anchor.dtype == _core.bfloat16:
        # no NumPy bfloat16: widen the window to float32 (exact) and keep the upper halves
        win = anchor.detach().as_strided((hi - lo,), (1,)).float().numpy()
        return memoryview((win.view("<u4") >> 16).astype("<u2")).cast("B")
    arr = anchor.detach().numpy()
    item = arr.itemsize
    flat = np.lib.stride_tricks.as_strided(arr, shape=(hi - lo,), strides=(item,))
    return memoryview(np.ascontiguousarray(flat)).cast("B")
