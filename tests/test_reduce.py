"""Reductions, scans and softmax against NumPy on every layout, plus error cases."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from layouts import laid_out

import ferric

SHAPE = (2, 3, 4)
LAYOUTS = ["contiguous", "permuted", "row_stepped", "expanded"]  # see layouts.py
FLOATS = ["float32", "float64"]
NUMERIC = FLOATS + ["int64"]
ALL = NUMERIC + ["bool"]
MULTI_DIMS = [None, 0, -1, 1, (0, 2), (-1, 0), (0, 1, 2), ()]
SINGLE_DIMS = [None, 0, 1, -1, 2]


def data(shape, dtype, rng):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(-4, 5, size=shape).astype(np.int64)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def make(layout, dtype, shape=SHAPE, seed=0):
    """A ferric view with the given layout and the NumPy array it holds."""
    t, a = laid_out(data(shape, dtype, np.random.default_rng(seed)), layout)
    assert layout == "contiguous" or not t.is_contiguous()
    return t, a


def np_axis(dims):
    # torch reduces everything for an empty dim list; numpy reduces nothing
    return None if dims == () else dims


def int_acc(a):
    return np.int64 if a.dtype.kind in "bi" else a.dtype


def np_logsumexp(a, axis, keepdims):
    a = a.astype(np.float32) if a.dtype.kind in "bi" else a
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


def np_norm(a, p, axis, keepdims):
    x = np.abs(a)
    if p == math.inf:
        return np.max(x, axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return np.min(x, axis=axis, keepdims=keepdims)
    if p == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(a.dtype)
    return np.sum(x**p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def check(got, want, dtype=None):
    want = np.asarray(want)
    g = np.asarray(got)
    assert isinstance(got, ferric.Tensor)
    assert g.shape == want.shape, (g.shape, want.shape)
    if dtype is not None:
        assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    if g.dtype.kind == "f":
        tol = 1e-5 if g.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(g, want.astype(g.dtype), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(g, want)


# (name, dtypes, dims, ferric call, numpy reference, expected dtype from input dtype)
REDUCTIONS = [
    ("sum", ALL, MULTI_DIMS,
     lambda t, d, k: t.sum(d, k),
     lambda a, d, k: np.sum(a, axis=d, keepdims=k, dtype=int_acc(a)), int_acc),
    ("nansum", ALL, MULTI_DIMS,
     lambda t, d, k: ferric.nansum(t, d, keepdim=k),
     lambda a, d, k: np.nansum(a, axis=d, keepdims=k, dtype=int_acc(a)), int_acc),
    ("mean", FLOATS, MULTI_DIMS,
     lambda t, d, k: t.mean(dim=d, keepdim=k),
     lambda a, d, k: np.mean(a, axis=d, keepdims=k), None),
    ("nanmean", FLOATS, MULTI_DIMS,
     lambda t, d, k: t.nanmean(d, k),
     lambda a, d, k: np.nanmean(a, axis=d, keepdims=k), None),
    ("prod", ALL, SINGLE_DIMS,
     lambda t, d, k: t.prod(d, k) if d is not None else ferric.prod(t),
     lambda a, d, k: np.prod(a, axis=d, keepdims=k and d is not None, dtype=int_acc(a)), int_acc),
    ("amax", ALL, MULTI_DIMS,
     lambda t, d, k: t.amax(d if d is not None else (), k),
     lambda a, d, k: np.max(a, axis=d, keepdims=k), None),
    ("amin", ALL, MULTI_DIMS,
     lambda t, d, k: ferric.amin(t, dim=d if d is not None else (), keepdim=k),
     lambda a, d, k: np.min(a, axis=d, keepdims=k), None),
    ("max.values", ALL, SINGLE_DIMS,
     lambda t, d, k: t.max(d, k).values if d is not None else t.max(),
     lambda a, d, k: np.max(a, axis=d, keepdims=k and d is not None), None),
    ("min.indices", NUMERIC, [0, 1, -1, 2],
     lambda t, d, k: ferric.min(t, dim=d, keepdim=k)[1],
     lambda a, d, k: np.argmin(a, axis=d, keepdims=k), lambda a: np.int64),
    ("argmax", NUMERIC, SINGLE_DIMS,
     lambda t, d, k: t.argmax(d, k),
     lambda a, d, k: np.argmax(a, axis=d, keepdims=k), lambda a: np.int64),
    ("argmin", NUMERIC, SINGLE_DIMS,
     lambda t, d, k: ferric.argmin(t, dim=d, keepdim=k),
     lambda a, d, k: np.argmin(a, axis=d, keepdims=k), lambda a: np.int64),
    ("var", FLOATS, MULTI_DIMS,
     lambda t, d, k: t.var(d, keepdim=k),
     lambda a, d, k: np.var(a, axis=d, keepdims=k, ddof=1), None),
    ("var(correction=0)", FLOATS, MULTI_DIMS,
     lambda t, d, k: t.var(d, correction=0, keepdim=k),
     lambda a, d, k: np.var(a, axis=d, keepdims=k), None),
    ("std(unbiased=False)", FLOATS, MULTI_DIMS,
     lambda t, d, k: t.std(d, False, k),
     lambda a, d, k: np.std(a, axis=d, keepdims=k), None),
    ("std", FLOATS, MULTI_DIMS,
     lambda t, d, k: ferric.std(t, d, keepdim=k, correction=2),
     lambda a, d, k: np.std(a, axis=d, keepdims=k, ddof=2), None),
    ("logsumexp", ALL, [0, -1, (0, 2), (0, 1, 2)],
     lambda t, d, k: ferric.logsumexp(t, d, k),
     np_logsumexp, lambda a: a.dtype if a.dtype.kind == "f" else np.float32),
    ("all", ALL, MULTI_DIMS,
     lambda t, d, k: t.all(d, k),
     lambda a, d, k: np.all(a, axis=d, keepdims=k), lambda a: np.bool_),
    ("any", ALL, MULTI_DIMS,
     lambda t, d, k: ferric.any(t, d, keepdim=k),
     lambda a, d, k: np.any(a, axis=d, keepdims=k), lambda a: np.bool_),
    ("count_nonzero", ALL, MULTI_DIMS,
     lambda t, d, k: t.count_nonzero(d),
     lambda a, d, k: np.count_nonzero(a, axis=d), lambda a: np.int64),
]
for _p in [2, 1, math.inf, -math.inf, 0, 3, 0.5, "fro"]:
    REDUCTIONS.append((
        f"norm(p={_p})", FLOATS, [d for d in MULTI_DIMS if _p != "fro" or d != (0, 1, 2)],
        lambda t, d, k, p=_p: t.norm(p, d, k),
        lambda a, d, k, p=_p: np_norm(a, 2 if p == "fro" else p, d, k), None,
    ))

CASES = [
    pytest.param(row, dtype, layout, dims, id=f"{row[0]}-{dtype}-{layout}-{dims}")
    for row in REDUCTIONS
    for dtype in row[1]
    for layout in LAYOUTS
    for dims in row[2]
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("row,dtype,layout,dims", CASES)
def test_reduction_matches_numpy(row, dtype, layout, dims):
    _, _, _, call, ref, out_dtype = row
    t, a = make(layout, dtype)
    before = a.copy()
    for keepdim in (False, True):
        want = ref(a, np_axis(dims), keepdim)
        dt = out_dtype(a) if out_dtype else a.dtype
        check(call(t, dims, keepdim), want, dt)
    np.testing.assert_array_equal(np.asarray(t), before)


@pytest.mark.parametrize("dtype", ALL)
def test_zero_dim_inputs(dtype):
    t = ferric.tensor(np.array(3, dtype=dtype))
    v = np.asarray(t).item()
    for d in (None, 0, -1):
        check(t.sum(d), np.array(v, dtype=int_acc(np.asarray(t))))
        check(t.sum(d, keepdim=True), np.array(v, dtype=int_acc(np.asarray(t))))
        check(t.amax(d if d is not None else ()), np.array(v))
        check(t.all(d), np.array(bool(v)))
    if dtype != "bool":
        assert t.argmax(0).item() == 0 and t.argmax().item() == 0
        r = t.max(0)
        assert r.values.item() == v and r.indices.item() == 0 and r.values.ndim == 0
    check(t.cumsum(0), np.array(v, dtype=int_acc(np.asarray(t))))
    if dtype in FLOATS:
        assert math.isnan(t.var().item())
        assert t.var(0, correction=0).item() == 0.0
        assert t.softmax(0).item() == 1.0 and t.log_softmax(-1).item() == 0.0
        assert t.mean(0).item() == v


EMPTY = [((0,), None), ((0, 3), 0), ((0, 3), 1), ((3, 0), 1), ((3, 0), 0), ((2, 0, 3), (0, 2))]


@pytest.mark.parametrize("shape,dims", EMPTY)
def test_empty_reductions(shape, dims):
    a = np.zeros(shape, dtype=np.float32)
    t = ferric.zeros(*shape)
    for keepdim in (False, True):
        check(t.sum(dims, keepdim), np.sum(a, axis=dims, keepdims=keepdim))
        with np.errstate(all="ignore"):
            want = np.full_like(np.sum(a, axis=dims, keepdims=keepdim), np.nan)
            check(t.mean(dims, keepdim), want)
        check(t.all(dims, keepdim), np.all(a, axis=dims, keepdims=keepdim))
        check(t.any(dims, keepdim), np.any(a, axis=dims, keepdims=keepdim))
        check(t.logsumexp(dims if dims is not None else (), keepdim),
              np.full(np.sum(a, axis=dims, keepdims=keepdim).shape, -np.inf, np.float32))
        v = t.var(dims, keepdim=keepdim)
        assert v.shape == np.sum(a, axis=dims, keepdims=keepdim).shape
        assert bool(ferric.isnan(v).all())
    if not isinstance(dims, tuple):
        check(t.prod(dims), np.prod(a, axis=dims))


def test_empty_errors_follow_pytorch():
    e = ferric.zeros(0, 3)
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero"):
        e.max(0)
    assert e.max(1).values.shape == (0,) and e.argmax(1).shape == (0,)
    assert e.amax(1).shape == (0,)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified"):
        e.max()
    with pytest.raises(RuntimeError, match=r"min\(\): Expected reduction dim to be specified"):
        ferric.min(e)
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(IndexError, match=r"argmin\(\): Expected reduction dim 0 to have"):
        e.argmin(0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim -2 to have"):
        e.amax(-2)
    with pytest.raises(RuntimeError, match=r"amin\(\): Expected reduction dim to be specified"):
        e.amin()
    with pytest.raises(RuntimeError, match="aminmax"):
        e.aminmax()
    with pytest.raises(RuntimeError, match="inf norm on an empty tensor"):
        e.norm(math.inf)
    assert e.norm().item() == 0.0


def test_nan_propagation_and_ties():
    nan = float("nan")
    x = ferric.tensor([[1.0, nan, 3.0, nan], [2.0, 5.0, 5.0, -1.0], [7.0, 7.0, 7.0, 7.0]])
    for f in (lambda t: t.amax(1), lambda t: t.amin(1), lambda t: t.max(1).values):
        v = f(x).tolist()
        assert math.isnan(v[0]) and v[1:] in ([5.0, 7.0], [-1.0, 7.0])
    assert x.argmax(1).tolist() == [1, 1, 0]
    assert x.argmin(1).tolist() == [1, 3, 0]
    assert x.max(1).indices.tolist() == [1, 1, 0]
    assert x.min(dim=1).indices.tolist() == [1, 3, 0]
    assert x.argmax().item() == 1
    assert math.isnan(x.max().item()) and math.isnan(x.min().item())
    assert math.isnan(x.sum().item()) and x.nansum().item() == 1 + 3 + 2 + 5 + 5 - 1 + 28
    assert x.nanmean(1).tolist()[0] == 2.0
    lse = x.logsumexp(1).tolist()
    assert math.isnan(lse[0])
    inf = float("inf")
    y = ferric.tensor([[-inf, -inf], [inf, 1.0], [inf, -inf], [1000.0, 1000.0]])
    got = y.logsumexp(1).tolist()
    assert got[:3] == [-inf, inf, inf] and abs(got[3] - (1000 + math.log(2))) < 1e-3
    z = ferric.tensor([1.0, nan, 0.5])
    assert [math.isnan(v) for v in z.cummax(0).values.tolist()] == [False, True, True]
    assert z.cummax(0).indices.tolist() == [0, 1, 1]
    w = ferric.tensor([3, 1, 3, 2, 1])
    assert w.cummax(0).indices.tolist() == [0, 0, 2, 2, 2]
    assert w.cummin(0).indices.tolist() == [0, 1, 1, 1, 4]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_scans_match_numpy(dtype, layout, dim):
    t, a = make(layout, dtype)
    acc = int_acc(a)
    check(t.cumsum(dim), np.cumsum(a, axis=dim, dtype=acc), acc)
    check(ferric.cumprod(t, dim), np.cumprod(a, axis=dim, dtype=acc), acc)
    check(t.cumsum(dim, dtype=ferric.float64), np.cumsum(a.astype(np.float64), axis=dim))
    if dtype != "bool":
        vals = np.maximum.accumulate(a, axis=dim)
        r = t.cummax(dim)
        check(r.values, vals, a.dtype)
        # the index points at an element equal to the running max, at or before k
        idx = np.asarray(r.indices)
        picked = np.take_along_axis(a, idx, axis=dim % 3)
        np.testing.assert_array_equal(picked, vals)
        check(ferric.cummin(t, dim).values, np.minimum.accumulate(a, axis=dim), a.dtype)


def np_softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_softmax_matches_numpy(dtype, layout, dim):
    t, a = make(layout, dtype)
    want = np_softmax(a, dim)
    check(t.softmax(dim), want, a.dtype)
    check(ferric.softmax(t, dim=dim), want, a.dtype)
    check(t.log_softmax(dim), np.log(want), a.dtype)
    want64 = np.log(np_softmax(a.astype(np.float64), dim))
    check(ferric.log_softmax(t, dim, dtype=ferric.float64), want64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True])
def test_softmax_rows_with_nan_or_inf_are_nan_and_others_exact(dtype, transposed):
    # the contiguous row kernel (max may skip a NaN; the NaN reaches the row through the
    # sum) and the transposed path (32 lines gathered at a time: 150 rows = 4 x 32 + 22)
    a = np.random.default_rng(2).standard_normal((150, 70)).astype(dtype)
    a[1, 5], a[2, 69], a[3, :] = np.nan, np.inf, -np.inf
    a[149, 0] = np.nan
    t = ferric.tensor(np.ascontiguousarray(a.T)).T if transposed else ferric.tensor(a)
    for fn, ref in ((ferric.softmax, np_softmax), (ferric.log_softmax, None)):
        got = fn(t, 1).numpy()
        bad = [1, 2, 3, 149]
        assert np.isnan(got[bad]).all(), fn.__name__
        good = np.delete(a, bad, axis=0)
        want = np_softmax(good.astype(np.float64), 1)
        want = want if ref is not None else np.log(want)
        np.testing.assert_allclose(np.delete(got, bad, axis=0), want, rtol=1e-5, atol=1e-6)


def test_softmax_is_stable_and_handles_wide_rows():
    x = ferric.tensor([[1000.0, 1000.0, -1000.0]])
    np.testing.assert_allclose(np.asarray(x.softmax(1)), [[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(np.asarray(x.log_softmax(1))[0, :2], [-math.log(2)] * 2, rtol=1e-6)
    big = np.random.default_rng(1).standard_normal((3, 2000)).astype(np.float32)
    check(ferric.tensor(big).softmax(0), np_softmax(big, 0))
    check(ferric.tensor(big).T.softmax(1), np_softmax(big.T, 1))
    i = ferric.tensor([[1, 2], [3, 4]])
    check(i.softmax(1, dtype=ferric.float32), np_softmax(np.array([[1.0, 2], [3, 4]]), 1))
    assert ferric.zeros(0, 3).softmax(1).shape == (0, 3)
    assert ferric.zeros(0, 3, dtype=ferric.int64).log_softmax(0).dtype == ferric.int64


def test_large_sums_are_accurate():
    x = ferric.full((10_000_000,), 0.1)
    assert abs(x.sum().item() - 1e6) / 1e6 < 1e-6
    assert abs(x.mean().item() - 0.1) < 1e-7
    m = ferric.full((250_000, 8), 0.1)
    np.testing.assert_allclose(np.asarray(m.sum(0)), np.full(8, 25_000.0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(m.T.sum(1)), np.full(8, 25_000.0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(m[:, ::2].sum(0)), np.full(4, 25_000.0), rtol=1e-6)
    v = ferric.tensor(np.float32(1e4) + np.arange(100_000, dtype=np.float32) % 7)
    np.testing.assert_allclose(v.var().item(), np.var(np.arange(100_000) % 7, ddof=1), rtol=1e-4)


def test_large_matrix_reductions_match_numpy():
    a = np.random.default_rng(2).standard_normal((300, 500)).astype(np.float32)
    t = ferric.tensor(a)
    for f, g in [
        (lambda t: t.sum(0), lambda a: a.sum(0, dtype=np.float64)),
        (lambda t: t.T.sum(0), lambda a: a.T.sum(0, dtype=np.float64)),
        (lambda t: t.amax(0), lambda a: a.max(0)),
        (lambda t: t.argmax(0), lambda a: a.argmax(0)),
        (lambda t: t.var(0), lambda a: a.astype(np.float64).var(0, ddof=1)),
        (lambda t: t.cumsum(0), lambda a: a.astype(np.float64).cumsum(0)),
        (lambda t: t[::3, 1::2].sum((0, 1)), lambda a: a[::3, 1::2].sum(dtype=np.float64)),
    ]:
        np.testing.assert_allclose(np.asarray(f(t)), g(a), rtol=1e-4, atol=1e-3)


def test_return_types_and_overloads():
    x = ferric.tensor([[1, 5], [4, 2]])
    r = x.max(1)
    values, indices = r
    assert isinstance(r, tuple) and r.values is values and r.indices is indices
    assert values.tolist() == [5, 4] and indices.tolist() == [1, 0]
    assert repr(r).startswith("ferric.return_types.max(\nvalues=tensor([5, 4]),\nindices=")
    assert type(r).__name__ == "max" and ferric.return_types.max is type(r)
    assert ferric.max(x, 0).values.tolist() == [4, 5]
    assert ferric.max(x, dim=1, keepdim=True).values.shape == (2, 1)
    assert ferric.max(x).item() == 5 and ferric.min(x).item() == 1
    assert ferric.max(x, ferric.tensor([3, 3])).tolist() == [[3, 5], [4, 3]]
    assert x.min(ferric.tensor([3, 3])).tolist() == [[1, 3], [3, 2]]
    lo, hi = x.aminmax()
    assert (lo.item(), hi.item()) == (1, 5)
    assert x.aminmax(dim=0).max.tolist() == [4, 5]
    r2 = pickle.loads(pickle.dumps(ferric.return_types.max((1, 2))))
    assert tuple(r2) == (1, 2) and r2.indices == 2
    v, m = ferric.var_mean(ferric.tensor([1.0, 2.0, 3.0, 4.0]))
    assert abs(v.item() - 5 / 3) < 1e-6 and m.item() == 2.5
    s, m = ferric.std_mean(ferric.tensor([[1.0, 3.0]]), 1, correction=0, keepdim=True)
    assert s.tolist() == [[1.0]] and m.tolist() == [[2.0]]
    y = ferric.tensor([1.0, 2.0, 3.0, 4.0])
    assert y.var(False).item() == 1.25
    assert y.std(unbiased=True).item() == pytest.approx(1.2910, 1e-4)
    assert y.var(0, True, True).shape == (1,)
    assert y.var(correction=10).item() == math.inf
    assert y.var(correction=0.5).item() == pytest.approx(5 / 3.5)
    assert y.var(correction=True).item() == pytest.approx(5 / 3)
    assert y.norm(True).item() == 10.0 and y.norm(None).item() == pytest.approx(30**0.5)
    assert ferric.ones(2, 3, 4).norm().item() == pytest.approx(24**0.5)
    assert ferric.ones(2, 3, 4).norm("fro", (0, 1)).shape == (4,)
    assert ferric.tensor([True, True]).sum().dtype == ferric.int64
    assert y.sum(dtype=ferric.float64).dtype == ferric.float64
    assert ferric.tensor([1, 2]).mean(dtype=ferric.float64).item() == 1.5
    assert ferric.tensor([2.7, 3.9]).sum(dtype=ferric.int64).item() == 5
    assert ferric.tensor([1, 2, 3]).logsumexp(0).dtype == ferric.float32
    assert ferric.tensor([2.0, 3.0]).prod(dtype=ferric.float64).dtype == ferric.float64
    assert ferric.tensor([1.0, 1.0]).norm(2, dtype=ferric.float64).dtype == ferric.float64


def test_inputs_unchanged_and_outputs_fresh():
    x = ferric.tensor([[3.0, 1.0], [2.0, 4.0]])
    s = x.sum(0)
    s += 1
    assert x.tolist() == [[3.0, 1.0], [2.0, 4.0]]
    assert x.softmax(1).is_contiguous() and x.T.cumsum(0).is_contiguous()


NI = NotImplementedError  # PyTorch raises it (a RuntimeError subclass) for missing kernels
R = RuntimeError  # and a plain RuntimeError for dtype checks with their own message

ERRORS = [
    (lambda: ferric.tensor([1, 2]).mean(), R,
     "mean(): could not infer output dtype. Input dtype must be either a floating point or "
     "complex dtype. Got: Long"),
    (lambda: ferric.tensor([True]).mean(), R, "Got: Bool"),
    (lambda: ferric.tensor([1.0]).mean(dtype=ferric.int64), R,
     "Optional dtype must be either a floating point or complex dtype. Got: Long"),
    (lambda: ferric.tensor([1, 2]).nanmean(), R,
     "nanmean(): expected input to have floating point or complex dtype but got Long"),
    (lambda: ferric.tensor([1, 2]).var(), R, "std and var only support floating point"),
    (lambda: ferric.tensor([1, 2]).std(0), R, "std and var only support floating point"),
    (lambda: ferric.var_mean(ferric.tensor([1, 2])), R, "std and var only support"),
    (lambda: ferric.tensor([1, 2]).norm(), R,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: ferric.tensor([1, 2]).norm(dtype=ferric.float32), R, "Got Long"),
    (lambda: ferric.tensor([[1, 2]]).softmax(1), NI,
     '"softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    (lambda: ferric.tensor([[1, 2]]).softmax(0), NI,
     '"softmax_kernel_impl" not implemented for \'Long\''),
    (lambda: ferric.tensor([[1, 2]]).log_softmax(0), NI,
     '"log_softmax_kernel_impl" not implemented for \'Long\''),
    (lambda: ferric.tensor([1.0]).softmax(0, dtype=ferric.int64), NI, "softmax_lastdim"),
    (lambda: ferric.tensor([True]).argmax(), NI, "argmax(): does not support bool input"),
    (lambda: ferric.tensor([True]).argmin(0), NI, "argmin(): does not support bool input"),
    (lambda: ferric.ones(2, 3).sum(2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: ferric.ones(2, 3).sum(-3), IndexError, "Dimension out of range"),
    (lambda: ferric.ones(2, 3).sum((0, 0)), RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    (lambda: ferric.ones(2, 3).sum((1, -1)), RuntimeError, "dim 1 appears multiple times"),
    (lambda: ferric.ones(2, 3).amax((0, -2)), RuntimeError, "appears multiple times"),
    (lambda: ferric.ones(2, 3).count_nonzero((0, 0)), RuntimeError, "appears multiple times"),
    (lambda: ferric.ones(2, 3).max(5), IndexError, "Dimension out of range"),
    (lambda: ferric.ones(2, 3).argmax(2), IndexError, "Dimension out of range"),
    (lambda: ferric.ones(2, 3).cumsum(2), IndexError, "Dimension out of range"),
    (lambda: ferric.ones(2, 3).cummax(-3), IndexError, "Dimension out of range"),
    (lambda: ferric.ones(2, 3).softmax(-3), IndexError, "Dimension out of range"),
    (lambda: ferric.tensor(1.0).sum(1), IndexError, "[-1, 0], but got 1"),
    (lambda: ferric.tensor(1.0).max(1), IndexError, "Dimension out of range"),
    (lambda: ferric.zeros(0).argmax(), IndexError,
     "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda: ferric.zeros(2, 0).aminmax(dim=1), IndexError,
     "aminmax: Expected reduction dim 1 to have non-zero size."),
    (lambda: ferric.ones(2, 3).softmax(), TypeError, "dim"),
    (lambda: ferric.softmax(ferric.ones(2)), TypeError, "dim"),
    (lambda: ferric.ones(2, 3).cumsum(), TypeError, "dim"),
    (lambda: ferric.ones(2, 3).logsumexp(), TypeError, "dim"),
    (lambda: ferric.ones(2, 3).logsumexp(None), TypeError, "dim"),
    (lambda: ferric.ones(2, 3).sum(1.5), TypeError, ""),
    (lambda: ferric.ones(2, 3).sum(0, 1), TypeError, "keepdim"),
    (lambda: ferric.ones(2, 3).max((0, 1)), TypeError, ""),
    (lambda: ferric.ones(2, 3).prod((0, 1)), TypeError, ""),
    (lambda: ferric.ones(2, 3).max(keepdim=True), TypeError, "keepdim"),
    (lambda: ferric.ones(2, 3).prod(keepdim=True), TypeError, "keepdim"),
    (lambda: ferric.ones(2, 3).max(1, other=ferric.ones(3)), TypeError, ""),
    (lambda: ferric.max(ferric.ones(2), 2.0), TypeError, ""),
    (lambda: ferric.ones(2).var(0, True, correction=1), TypeError, ""),
    (lambda: ferric.ones(2).var("a"), TypeError, ""),
    (lambda: ferric.ones(2, 2).norm("nuc"), NotImplementedError, "nuclear"),
    (lambda: ferric.ones(2).norm("nuc"), RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda: ferric.ones(2).norm("bad"), RuntimeError,
     "linalg.matrix_norm: Order bad not supported."),
    (lambda: ferric.ones(2, 2, 2).norm("fro", (0, 1, 2)), RuntimeError,
     "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
    (lambda: ferric.ones(2).norm([1]), TypeError, ""),
    (lambda: ferric.ones(2, 3).max(ferric.ones(4)), RuntimeError, "must match"),
    (lambda: ferric.sum([1, 2]), TypeError, ""),
    (lambda: ferric.return_types.max((1, 2, 3)), TypeError, "2-sequence"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS, ids=[f"err{i}" for i in range(len(ERRORS))])
def test_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert msg in str(info.value)


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_into_a_reused_large_buffer(dim, log):
    # outputs >= 1 MiB may take a recycled buffer holding old values: every element
    # must still be written, on the contiguous and the strided paths
    rng = np.random.default_rng(0)
    a = rng.standard_normal((600, 700)).astype(np.float32)
    for _ in range(2):
        junk = ferric.full((600, 700), 7.0) * 3.0  # leaves a freed buffer in the cache
        del junk
        for x in (ferric.tensor(a), ferric.tensor(np.ascontiguousarray(a.T)).t()):
            got = (x.log_softmax(dim) if log else x.softmax(dim)).numpy()
            m = a - a.max(axis=dim, keepdims=True)
            want = m - np.log(np.exp(m).sum(axis=dim, keepdims=True))
            want = want if log else np.exp(want)
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
