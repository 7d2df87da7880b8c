"""The same values in different memory layouts: the inputs of tests checking that an op
does not depend on how its operands are stored.

A :class:`Layout` is a NumPy *base* (the storage) plus a view of it. The view is applied
in the same way to the base itself and to a ferric tensor holding it, so
:meth:`Layout.values` is exactly what the ferric view holds, and an autograd test can
make the base the leaf that ``gradcheck`` perturbs (:func:`leaf_and_view`).

The kinds, each a distinct stride pattern:

- ``contiguous``: row-major.
- ``transposed``: the last two dims swapped in storage (a transposed matrix).
- ``permuted``: every dim reversed in storage (the first dim has stride 1).
- ``channels_last``: dim 1 stored last (``ferric.channels_last`` for 4-d).
- ``stepped``: every other element in every dim of a larger buffer, at offset 1 in the
  first dim; the gaps hold ``JUNK``, so a kernel that reads them shows.
- ``row_stepped``: every other index of the first dim only, at offset 1 (the rows
  themselves stay contiguous).
- ``expanded``: the first index broadcast along the first dim (stride 0).
- ``expanded_last``: the first element of the last dim broadcast along it (innermost
  stride 0).
- ``empty`` and ``0-d``: not layouts of the same values but the edge shapes that go with
  them: the array with its first dim cut to 0, and its first element as a 0-d array.

The broadcast kinds hold the broadcast of part of the array, so their ``values()``
differ from the array (the other kinds hold it exactly). A kind that needs more dims
than the array has falls back to the nearest one that applies (``channels_last`` ->
``permuted`` -> ``transposed`` -> ``stepped``, ``row_stepped`` -> ``stepped``,
``expanded_last`` -> ``expanded``, and a 0-d array is only ever contiguous), so a test
parametrized by kind runs on arrays of any rank; :func:`variants` lists each distinct
layout once.
"""

from __future__ import annotations

import numpy as np

import ferric

KINDS = ("contiguous", "transposed", "permuted", "channels_last", "stepped", "row_stepped",
         "expanded", "expanded_last", "empty", "0-d")
# one of each family of stride patterns: dense, permuted, gapped, broadcast
STANDARD = ("contiguous", "transposed", "stepped", "expanded")

# the dims a kind needs to be distinct from its fallback
_MIN_DIMS = {"contiguous": 0, "transposed": 2, "permuted": 3, "channels_last": 3,
             "stepped": 1, "row_stepped": 2, "expanded": 1, "expanded_last": 2, "empty": 1,
             "0-d": 1}
_FALLBACK = {"transposed": "stepped", "permuted": "transposed", "channels_last": "permuted",
             "stepped": "contiguous", "row_stepped": "stepped", "expanded": "contiguous",
             "expanded_last": "expanded", "empty": "contiguous", "0-d": "contiguous"}


def junk(dtype: np.dtype):
    """What the gaps of a stepped base hold: far from the test values, never zero."""
    return True if dtype == np.bool_ else np.array(7777).astype(dtype)


class Layout:
    """A NumPy ``base`` and the view (``ops``) that turns it into the laid-out input."""

    def __init__(self, kind: str, base: np.ndarray, ops: tuple = ()):
        self.kind, self.base, self.ops = kind, base, ops

    def view(self, x):
        """The laid-out view of ``x``: the base as a NumPy array or as a ferric tensor."""
        is_np = isinstance(x, np.ndarray)
        for op, arg in self.ops:
            if op == "permute":
                x = x.transpose(arg) if is_np else x.permute(*arg)
            elif op == "index":
                x = x[arg]
            else:  # "expand"
                x = np.broadcast_to(x, arg) if is_np else x.expand(*arg)
        return x

    def values(self) -> np.ndarray:
        """What the view holds (a fresh, writable array)."""
        return np.array(self.view(self.base))

    def tensor(self, dtype=None):
        return self.view(ferric.tensor(self.base, dtype=dtype))


def _gapped(arr: np.ndarray, big: tuple, key: tuple) -> tuple[np.ndarray, tuple]:
    """A junk-filled ``big`` buffer with ``arr`` written at ``key``, and the view."""
    base = np.full(big, junk(arr.dtype), dtype=arr.dtype)
    base[key] = arr
    return base, (("index", key),)


def layout(arr, kind: str) -> Layout:
    """``arr``'s values stored as ``kind`` (see the module docstring)."""
    arr = np.asarray(arr)
    if kind not in KINDS:
        raise ValueError(f"unknown layout kind {kind!r}; expected one of {KINDS}")
    nd, shape = arr.ndim, arr.shape
    while nd < _MIN_DIMS[kind] or (kind == "0-d" and arr.size == 0):
        kind = _FALLBACK[kind]
    swap = list(range(nd))
    if nd >= 2:
        swap[-1], swap[-2] = swap[-2], swap[-1]
    perms = {"transposed": tuple(swap), "permuted": tuple(reversed(range(nd))),
             "channels_last": (0, *range(2, nd), 1)}
    if kind in perms:
        perm = perms[kind]
        inverse = tuple(int(i) for i in np.argsort(perm))
        return Layout(kind, np.ascontiguousarray(arr.transpose(perm)), (("permute", inverse),))
    if kind == "stepped":
        key = (slice(1, None, 2),) + (slice(None, None, 2),) * (nd - 1)
        return Layout(kind, *_gapped(arr, tuple(2 * n for n in shape), key))
    if kind == "row_stepped":
        return Layout(kind, *_gapped(arr, (2 * shape[0],) + shape[1:], (slice(1, None, 2),)))
    if kind in ("expanded", "expanded_last"):
        first = (slice(0, 1),) if kind == "expanded" else (..., slice(0, 1))
        small = np.array(arr[first])
        if small.size == 0:  # no first element to broadcast: broadcast junk (size-1 dims)
            small = np.full(tuple(max(n, 1) for n in small.shape), junk(arr.dtype),
                            dtype=arr.dtype)
        return Layout(kind, small, (("expand", shape),))
    if kind == "empty":
        return Layout(kind, np.array(arr[:0]))
    if kind == "0-d":
        return Layout(kind, np.array(arr.reshape(-1)[0]))
    return Layout(kind, np.array(arr))


def laid_out(arr, kind: str, dtype=None):
    """``(ferric tensor, NumPy array of its values)`` for ``arr`` stored as ``kind``."""
    lay = layout(arr, kind)
    return lay.tensor(dtype), lay.values()


def variants(arr, kinds=STANDARD, dtype=None):
    """``[(kind, tensor, values)]``: ``arr`` stored as each of ``kinds``, each distinct
    layout once, named by the kind it falls back to (a 1-d array's ``transposed`` is
    listed as ``stepped``)."""
    out = {}
    for kind in kinds:
        lay = layout(arr, kind)
        if lay.kind not in out:
            out[lay.kind] = (lay.kind, lay.tensor(dtype), lay.values())
    return list(out.values())


def leaf_and_view(arr, kind: str, dtype=ferric.float64):
    """For gradcheck: a leaf holding the base (``requires_grad``) and the function
    turning it into the laid-out input (``fn(leaf)`` equals ``layout(arr, kind).values()``)."""
    lay = layout(arr, kind)
    return ferric.tensor(lay.base, dtype=dtype, requires_grad=True), lay.view


def uniform_leaf(shape, seed=0, bound=1.0):
    """A float64 leaf (``requires_grad``) of values uniform in ``[-bound, bound)``, drawn
    from ``np.random.default_rng(seed)``."""
    values = np.random.default_rng(seed).uniform(-bound, bound, size=shape)
    return ferric.tensor(values, dtype=ferric.float64, requires_grad=True)


def gradcheck_laid_out(fn, shapes, kind, bound=1.0, gradgrad=True):
    """``gradcheck`` (and ``gradgradcheck`` with ``gradgrad``) of ``fn`` on float64 inputs
    of ``shapes`` laid out as ``kind``: input ``i`` holds values uniform in
    ``[-bound, bound)`` drawn with seed ``i``, and the leaf perturbed is its base."""
    made = [leaf_and_view(np.random.default_rng(seed).uniform(-bound, bound, size=s), kind)
            for seed, s in enumerate(shapes)]
    leaves = tuple(m[0] for m in made)

    def f(*ls):
        return fn(*[m[1](x) for m, x in zip(made, ls, strict=True)])

    assert ferric.autograd.gradcheck(f, leaves)
    if gradgrad:
        assert ferric.autograd.gradgradcheck(f, leaves)


def uses(view, base_shape) -> np.ndarray:
    """How many elements of ``view(base)`` read each element of the base: the gradient
    of ``view(leaf).sum()`` with respect to the leaf."""
    n = int(np.prod(base_shape))
    read = view(np.arange(n).reshape(base_shape)).ravel()
    return np.bincount(read, minlength=n).reshape(base_shape).astype(np.float64)


def random_values(rng, shape, dtype: str) -> np.ndarray:
    """An array of ``dtype`` (``"bool"``, ``"int64"`` in [-9, 9], or a float dtype: standard
    normal) drawn from ``rng``, to be laid out."""
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "int64":
        return rng.integers(-9, 10, shape).astype(np.int64)
    return rng.standard_normal(shape).astype(dtype)


def assert_same(t, ref) -> None:
    """``t`` holds exactly ``ref``: the same shape, the same NumPy dtype, equal values."""
    ref = np.asarray(ref)
    got = t.numpy()
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    np.testing.assert_array_equal(got, ref)
