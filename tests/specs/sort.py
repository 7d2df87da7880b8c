"""Op-table rows for sorting and selection: sort/argsort/msort, topk, kthvalue, median,
nanmedian and mode, each checked against a NumPy model of PyTorch's CPU results.

Order is PyTorch's: NaN is larger than every number, -0.0 equals 0.0. ``stable=True``
sorts keep equal values in input order (``np.argsort(kind="stable")``; descending puts
NaN first); the default sort, topk and mode order ties as libstdc++'s algorithms leave
them in PyTorch's kernels (``stl_model``); median/nanmedian take the lower median with
ties broken by index (a row with a NaN has the first NaN as its median); mode takes the
most frequent value (the smallest of equally frequent ones); kthvalue resolves ties with
PyTorch's own quickselect (``_pytorch_select``). The models are checked against PyTorch
by the fixtures in ``tests/fixtures/sort``.
"""

from __future__ import annotations

import numpy as np

from specs import stl_model
from specs.common import F32, F64, FLOAT, I64, LAYOUTS, NOT_IMPL, B, const, first, fm, row

REQ = "topk"  # the family's rows wait for Tensor.topk
# a selection over an empty dim raises, so those rows skip the zero-size layout
NONEMPTY = tuple(lay for lay in LAYOUTS if lay != "zero_size")
NUMERIC = ((I64,), (F32,), (F64,))


def asc(a):
    return np.argsort(a, kind="stable")  # NumPy also sorts NaN last


def desc(a):
    nan = np.isnan(a)
    return np.lexsort((np.arange(a.size), -np.where(nan, 0.0, a), ~nan))


def _key(v):
    return (1, 0.0) if np.isnan(v) else (0, float(v) + 0.0)


def _flip(v):
    return (-1, 0.0) if np.isnan(v) else (0, -(float(v) + 0.0))


def std_sort(a, descending=False):
    """PyTorch's default (stable=False) sort order."""
    p = [((_flip if descending else _key)(v), i) for i, v in enumerate(a)]
    stl_model.sort(p)
    return np.array([i for _, i in p], np.int64)


def std_topk(a, k, largest=True):
    p = [((_flip if largest else _key)(v), i) for i, v in enumerate(a)]
    return np.array([i for _, i in stl_model.topk(p, k)], np.int64)


def _pytorch_select(a, k):
    """PyTorch's kthvalue quickselect (median-of-three pivot, Hoare partition) on the row
    in input order; returns the chosen index."""
    key = [(1, 0.0) if np.isnan(v) else (0, v) for v in a]
    p = list(range(a.size))
    lo, hi = 0, a.size - 1

    def gt(i, j):
        return key[p[i]] > key[p[j]]

    def sw(i, j):
        p[i], p[j] = p[j], p[i]

    while hi > lo:
        if hi == lo + 1:
            if gt(lo, hi):
                sw(lo, hi)
            break
        sw(lo + (hi - lo) // 2, lo + 1)
        if gt(lo + 1, hi):
            sw(lo + 1, hi)
        if gt(lo, hi):
            sw(lo, hi)
        if gt(lo + 1, lo):
            sw(lo + 1, lo)
        i, j, piv = lo + 1, hi, key[p[lo]]
        while True:
            i += 1
            while piv > key[p[i]]:
                i += 1
            j -= 1
            while key[p[j]] > piv:
                j -= 1
            if j < i:
                break
            sw(i, j)
        sw(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return p[k]


def _median(a, skip_nan):
    nan = np.isnan(a)
    if not skip_nan and nan.any():
        return int(np.argmax(nan))
    m = a.size - int(nan.sum())
    return 0 if m == 0 else int(asc(a)[(m - 1) // 2])


def _mode(a):
    """PyTorch std::sorts (value, index) by value and takes the last pair of the first
    longest run of equal values."""
    o = std_sort(a)
    best, best_n, run = 0, 0, 0
    for t in range(a.size):
        run += 1
        x, y = a[o[t]], (a[o[t + 1]] if t + 1 < a.size else None)
        if y is None or not (x == y or (np.isnan(x) and np.isnan(y))):
            if run > best_n:
                best, best_n = int(o[t]), run
            run = 0
    return best


def rows_of(fn, dim, keepdim=False, m=None):
    """Applies ``fn(row) -> indices`` (``m`` of them, or one for a selection) along
    ``dim``; returns [values, indices] like PyTorch's named tuples."""
    def ref(a):
        x = a.reshape(1) if a.ndim == 0 else a
        moved = np.moveaxis(x, dim, -1)
        flat = moved.reshape(int(np.prod(moved.shape[:-1])), moved.shape[-1])
        width = m(moved.shape[-1]) if m else 1
        idx = np.zeros((flat.shape[0], width), np.int64)
        for r in range(flat.shape[0]):
            idx[r] = fn(flat[r])
        idx = idx.reshape(moved.shape[:-1] + (width,))
        vals = np.take_along_axis(moved, idx, axis=-1)
        vals, idx = np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
        if a.ndim == 0:
            return [vals.reshape(()), idx.reshape(())]
        if m is None and not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        return [vals, idx]
    return ref


def with_indices(ops):
    return (ops[0][0], I64)


def r(name, forms, ref, **kw):
    kw.setdefault("requires", REQ)
    kw.setdefault("differentiable", True)
    return row(name, forms, ref, alias=False, **kw)


def full(n):
    return n


BOOL_TOPK = [((B,), RuntimeError, "topk does not support bool")]


r("sort", fm("sort"), rows_of(std_sort, -1, m=full), rule=with_indices)
r("sort(0, descending)", fm("sort", 0, True),
  rows_of(lambda a: std_sort(a, True), 0, m=full), rule=with_indices)
r("sort(stable=True)", fm("sort", stable=True, dim=0), rows_of(asc, 0, m=full),
  rule=with_indices)
r("sort(stable=True, descending)", fm("sort", stable=True, dim=-1, descending=True),
  rows_of(desc, -1, m=full), rule=with_indices)
r("argsort", fm("argsort", 0, True), lambda a: rows_of(lambda v: std_sort(v, True), 0,
                                                        m=full)(a)[1],
  rule=const(I64), differentiable=False)
r("msort", fm("msort"), lambda a: rows_of(asc, 0, m=full)(a)[0])
r("topk", fm("topk", 2), rows_of(lambda a: std_topk(a, 2), -1, m=lambda n: 2),
  rule=with_indices, dtypes=NUMERIC, errors=BOOL_TOPK,
  layouts=tuple(lay for lay in NONEMPTY if lay != "scalar"))  # k=2 > one element
r("topk(0, largest=False)", fm("topk", 1, 0, False),
  rows_of(lambda a: std_topk(a, 1, False), 0, m=lambda n: 1), rule=with_indices,
  dtypes=NUMERIC,
  layouts=NONEMPTY)
r("kthvalue", fm("kthvalue", 1), rows_of(lambda a: _pytorch_select(a, 0), -1),
  rule=with_indices, dtypes=NUMERIC, layouts=NONEMPTY,
  errors=[((B,), NOT_IMPL[0], "not implemented for 'Bool'")])
r("kthvalue(0, keepdim)", fm("kthvalue", 2, 0, True),
  rows_of(lambda a: _pytorch_select(a, 1 if a.size > 1 else 0), 0, keepdim=True),
  rule=with_indices, dtypes=NUMERIC, layouts=("contiguous", "transposed", "strided",
                                                "broadcast"))
for _n, _skip in [("median", False), ("nanmedian", True)]:
    r(f"{_n}(dim)", fm(_n, -1), rows_of(lambda a, s=_skip: _median(a, s), -1),
      rule=with_indices, dtypes=NUMERIC, layouts=NONEMPTY,
      errors=[((B,), NOT_IMPL[0], "not implemented for 'Bool'")])
    r(f"{_n}(0, keepdim)", fm(_n, 0, True),
      rows_of(lambda a, s=_skip: _median(a, s), 0, keepdim=True), rule=with_indices,
      dtypes=NUMERIC, layouts=NONEMPTY)
    r(f"{_n}()", fm(_n),
      lambda a, s=_skip: rows_of(lambda v: _median(v, s), 0)(a.reshape(-1))[0]
      if a.size else np.array(np.nan),
      rule=first, dtypes=((F32,), (F64,)),
      layouts=NONEMPTY)
r("mode", fm("mode"), rows_of(_mode, -1), rule=with_indices, layouts=NONEMPTY)
r("mode(0, keepdim)", fm("mode", 0, True), rows_of(_mode, 0, keepdim=True),
  rule=with_indices, layouts=NONEMPTY, dtypes=tuple((d,) for d in FLOAT))


def _search(row_b, row_v, right):
    """PyTorch's binary search with plain comparisons (NaN never compares true)."""
    out = []
    for v in row_v:
        lo, hi = 0, len(row_b)
        while lo < hi:
            mid = (lo + hi) // 2
            b = row_b[mid]
            if (not b > v) if right else (not b >= v):
                lo = mid + 1
            else:
                hi = mid
        out.append(lo)
    return out


def searchsorted_ref(right):
    def ref(a):
        b = np.sort(a, axis=-1, kind="stable")
        flat_b, flat_v = b.reshape(-1, max(a.shape[-1], 1)), a.reshape(-1, max(a.shape[-1], 1))
        out = [_search(rb, rv, right) for rb, rv in zip(flat_b, flat_v, strict=True)]
        return np.array(out, np.int64).reshape(a.shape)
    return ref


NO_SCALAR = tuple(lay for lay in LAYOUTS if lay != "scalar")
r("searchsorted", {"searchsorted": lambda F, x: F.searchsorted(F.sort(x).values, x)},
  searchsorted_ref(False), rule=const(I64), dtypes=NUMERIC, layouts=NO_SCALAR,
  differentiable=False, errors=[((B,), NOT_IMPL[0], "not implemented for 'Bool'")])
r("searchsorted(side=right)",
  {"searchsorted": lambda F, x: F.searchsorted(F.sort(x).values, x, side="right")},
  searchsorted_ref(True), rule=const(I64), dtypes=NUMERIC, layouts=NO_SCALAR,
  differentiable=False)
r("bucketize", {"bucketize": lambda F, x: F.bucketize(x, F.sort(x.reshape(-1)).values,
                                                      right=True)},
  lambda a: np.array(_search(np.sort(a.reshape(-1), kind="stable"), a.reshape(-1), True),
                     np.int64).reshape(a.shape),
  rule=const(I64), dtypes=NUMERIC, differentiable=False)



def unique_ref(consecutive, part):
    """(values, inverse, counts)[part] of PyTorch's unique: runs of equal values (NaN
    never equal), each run's first element as its value, NaNs last when sorted."""
    def ref(a):
        flat = a.reshape(-1)
        order = np.arange(flat.size) if consecutive else asc(flat)
        vals, counts, inv = [], [], np.zeros(flat.size, np.int64)
        for i in order:
            v = flat[i]
            if not vals or np.isnan(v) or np.isnan(vals[-1]) or v != vals[-1]:
                vals.append(v)
                counts.append(0)
            counts[-1] += 1
            inv[i] = len(vals) - 1
        out = (np.array(vals, a.dtype), inv.reshape(a.shape), np.array(counts, np.int64))
        return out[part]
    return ref


for _n, _c in [("unique", False), ("unique_consecutive", True)]:
    r(_n, fm(_n), unique_ref(_c, 0), rule=first, differentiable=False)
    r(f"{_n}(return_inverse, return_counts)",
      {_n: lambda F, x, n=_n: list(getattr(F, n)(x, return_inverse=True,
                                                   return_counts=True)[1:])},
      lambda a, c=_c: [unique_ref(c, 1)(a), unique_ref(c, 2)(a)], rule=const((I64, I64)),
      differentiable=False)
