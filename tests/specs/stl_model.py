"""A plain-Python model of GNU libstdc++'s ``std::sort``, ``std::nth_element`` and
``std::partial_sort``, which PyTorch's CPU kernels run on (value, index) pairs compared
by value only: it predicts the order PyTorch gives tied values in ``sort(stable=False)``,
``topk`` and ``mode``. Independent of ferric's Rust port (``src/kernels/sort/stl.rs``);
checked against PyTorch by ``tests/fixtures/sort``.

Every function works on a list ``a`` of (key, index) pairs in place, comparing keys with
``<`` (callers make keys so that "first" means "smallest").
"""

from __future__ import annotations


def _lt(x, y):
    return x[0] < y[0]


def _insertion(a, f, l):
    for i in range(f + 1, l):
        if _lt(a[i], a[f]):
            a[f:i + 1] = [a[i]] + a[f:i]
        else:
            _linear(a, i)


def _linear(a, last):
    v = a[last]
    while _lt(v, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = v


def _pivot(a, f, l):
    x, y, z = f + 1, f + (l - f) // 2, l - 1
    if _lt(a[x], a[y]):
        m = y if _lt(a[y], a[z]) else (z if _lt(a[x], a[z]) else x)
    else:
        m = x if _lt(a[x], a[z]) else (z if _lt(a[y], a[z]) else y)
    a[f], a[m] = a[m], a[f]
    lo, hi = f + 1, l
    while True:
        while _lt(a[lo], a[f]):
            lo += 1
        hi -= 1
        while _lt(a[f], a[hi]):
            hi -= 1
        if lo >= hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _adjust(a, f, hole, n, v):
    top = child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if _lt(a[f + child], a[f + child - 1]):
            child -= 1
        a[f + hole] = a[f + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[f + hole] = a[f + child - 1]
        hole = child - 1
    while hole > top and _lt(a[f + (hole - 1) // 2], v):
        a[f + hole] = a[f + (hole - 1) // 2]
        hole = (hole - 1) // 2
    a[f + hole] = v


def _heap_select(a, f, m, l):
    n = m - f
    for p in range((n - 2) // 2, -1, -1) if n >= 2 else ():
        _adjust(a, f, p, n, a[f + p])
    for i in range(m, l):
        if _lt(a[i], a[f]):
            v = a[i]
            a[i] = a[f]
            _adjust(a, f, 0, n, v)


def _sort_heap(a, f, l):
    while l - f > 1:
        l -= 1
        v = a[l]
        a[l] = a[f]
        _adjust(a, f, 0, l - f, v)


def _introsort(a, f, l, depth):
    while l - f > 16:
        if depth == 0:
            _heap_select(a, f, l, l)
            _sort_heap(a, f, l)
            return
        depth -= 1
        cut = _pivot(a, f, l)
        _introsort(a, cut, l, depth)
        l = cut


def sort(a, f=0, l=None):
    l = len(a) if l is None else l
    if l - f < 2:
        return
    _introsort(a, f, l, 2 * ((l - f).bit_length() - 1))
    if l - f > 16:
        _insertion(a, f, f + 16)
        for i in range(f + 16, l):
            _linear(a, i)
    else:
        _insertion(a, f, l)


def nth_element(a, nth):
    f, l = 0, len(a)
    if nth >= l:
        return
    depth = 2 * (l.bit_length() - 1)
    while l - f > 3:
        if depth == 0:
            _heap_select(a, f, nth + 1, l)
            a[f], a[nth] = a[nth], a[f]
            return
        depth -= 1
        cut = _pivot(a, f, l)
        if cut <= nth:
            f = cut
        else:
            l = cut
    _insertion(a, f, l)


def topk(a, k):
    """PyTorch's CPU top-k order of the k smallest keys (sorted=True)."""
    if k * 64 <= len(a):
        _heap_select(a, 0, k, len(a))
        _sort_heap(a, 0, k)
    else:
        nth_element(a, k - 1)
        sort(a, 0, k - 1)
    return a[:k]
