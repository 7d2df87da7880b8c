"""Elementwise ops wired to the SIMD kernels (src/kernels/simd via src/ops/{unary,binary}.rs):
values against NumPy on every layout, PyTorch's special-value semantics, and results that
are bitwise identical whatever the thread count or the input's layout."""

import math
import operator

import layouts
import numpy as np
import pytest

import ferric
import ferric.nn.functional as F

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


# references written without cancellation for negative x (1 + erf(x) loses all digits
# there), so they can check float64 results to a few ULP
def _gelu(x):
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


def _gelu_tanh(x):
    # 0.5 x (1 + tanh(y)) = x / (1 + exp(-2y))
    k = math.sqrt(2.0 / math.pi)
    with np.errstate(over="ignore"):
        return x / (1.0 + np.exp(-2.0 * k * (x + 0.044715 * x**3)))


# (name, ferric op, float64 NumPy reference, input domain)
UNARY = [
    ("exp", ferric.exp, np.exp, "any"),
    ("log", ferric.log, np.log, "pos"),
    ("tanh", ferric.tanh, np.tanh, "any"),
    ("sigmoid", ferric.sigmoid, lambda x: 1.0 / (1.0 + np.exp(-x)), "any"),
    ("silu", F.silu, lambda x: x / (1.0 + np.exp(-x)), "any"),
    ("gelu", F.gelu, _gelu, "any"),
    ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh"), _gelu_tanh, "any"),
    ("erf", ferric.erf, _erf, "any"),
    ("relu", ferric.relu, lambda x: np.maximum(x, 0.0), "any"),
    ("neg", ferric.neg, np.negative, "any"),
    ("abs", ferric.abs, np.abs, "any"),
    ("sqrt", ferric.sqrt, np.sqrt, "pos"),
    ("rsqrt", ferric.rsqrt, lambda x: 1.0 / np.sqrt(x), "pos"),
    ("square", ferric.square, np.square, "any"),
    ("reciprocal", ferric.reciprocal, np.reciprocal, "pos"),
]

BINARY = [
    ("add", ferric.add, np.add),
    ("sub", ferric.sub, np.subtract),
    ("mul", ferric.mul, np.multiply),
    ("div", ferric.div, np.divide),
]

DTYPES = [(ferric.float32, np.float32), (ferric.float64, np.float64)]


def _values(shape, domain, np_dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-6.0, 6.0, size=shape)
    if domain == "pos":
        x = np.abs(x) + 0.01
    return x.astype(np_dtype)


def _layouts(base):
    """(name, ferric view, NumPy array with the same values) for a 2-D float array; the
    row-stepped rows start off any SIMD alignment (every other row of a buffer)."""
    return layouts.variants(base, ("contiguous", "transposed", "stepped", "row_stepped",
                                   "expanded", "empty", "0-d"))


def _close(got, want, np_dtype):
    # float32 kernels are accurate to a few ULP; float64 ones tighter
    rtol = 4e-6 if np_dtype == np.float32 else 1e-13
    atol = 1e-30 if np_dtype == np.float32 else 1e-300
    np.testing.assert_allclose(got, want.astype(np_dtype), rtol=rtol, atol=atol,
                               equal_nan=True)


@pytest.mark.parametrize("dt,np_dt", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name,op,ref,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_matches_numpy_on_every_layout(name, op, ref, domain, dt, np_dt):
    base = _values((37, 29), domain, np_dt)
    for layout, t, arr in _layouts(base):
        out = op(t)
        assert out.dtype == dt, layout
        assert tuple(out.shape) == arr.shape, layout
        _close(out.numpy(), ref(np.asarray(arr, dtype=np.float64)), np_dt)


@pytest.mark.parametrize("dt,np_dt", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name,op,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_matches_numpy_with_broadcasting(name, op, ref, dt, np_dt):
    a = _values((37, 29), "any", np_dt, seed=1)
    b = _values((37, 29), "pos", np_dt, seed=2)
    for la, ta, xa in _layouts(a):
        for lb, tb, xb in _layouts(b):
            if xa.shape != xb.shape and 0 in xa.shape + xb.shape and xa.ndim and xb.ndim:
                continue  # (0, 29) against (37, 29) does not broadcast
            got = op(ta, tb).numpy()
            want = ref(xa, xb)
            assert got.dtype == want.dtype, (la, lb)
            # IEEE add/sub/mul/div are correctly rounded: results are exact
            np.testing.assert_array_equal(got, want, err_msg=f"{la} {lb}")
    # broadcast rows / columns and Python scalars on either side
    ta, tcol, trow = (ferric.from_numpy(a), ferric.from_numpy(b[:, :1].copy()),
                      ferric.from_numpy(b[:1].copy()))
    np.testing.assert_array_equal(op(ta, tcol).numpy(), ref(a, b[:, :1]))
    np.testing.assert_array_equal(op(trow, ta).numpy(), ref(b[:1], a))
    np.testing.assert_array_equal(op(ta, 1.5).numpy(), ref(a, np_dt(1.5)))
    # the reflected operators (2.5 - t, 2.5 / t): a scalar on the left of the run
    pyop = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
            "div": operator.truediv}[name]
    np.testing.assert_array_equal(pyop(2.5, ta).numpy(), ref(np_dt(2.5), a))


@pytest.mark.parametrize("dt,np_dt", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("name,op,ref", BINARY, ids=[b[0] for b in BINARY])
def test_inplace_binary_on_strided_and_broadcast(name, op, ref, dt, np_dt):
    a = _values((37, 29), "any", np_dt, seed=3)
    b = _values((37, 29), "pos", np_dt, seed=4)
    others = [("transposed", lambda: ferric.from_numpy(b.T.copy()).t(), b),
              ("row", lambda: ferric.from_numpy(b[0].copy()), b[0]),
              ("scalar", lambda: 0.75, np_dt(0.75))]
    for la in ("contiguous", "transposed", "stepped", "row_stepped", "empty", "0-d"):
        for lo, make_other, xo in others:
            # a fresh destination each time: the layouts' views are written through
            _, dst, xa = next(v for v in _layouts(a) if v[0] == la)
            if la in ("empty", "0-d") and lo != "scalar":
                continue
            want = ref(np.array(xa), xo)
            r = getattr(dst, name + "_")(make_other())
            assert r is dst
            np.testing.assert_array_equal(dst.numpy(), want, err_msg=f"{la} {lo}")


def test_special_values_follow_pytorch():
    inf, nan = float("inf"), float("nan")
    for dt in (ferric.float32, ferric.float64):
        x = ferric.tensor([-0.0, nan, -inf, inf, -1.0, 0.0], dtype=dt)
        r = ferric.relu(x).numpy()
        assert np.signbit(r[0]) and r[0] == 0  # relu(-0.) is -0., as in PyTorch
        assert np.isnan(r[1])
        assert list(r[2:]) == [0.0, inf, 0.0, 0.0]
        np.testing.assert_array_equal(ferric.exp(x).numpy(),
                                      np.array([1, nan, 0, inf, math.exp(-1), 1], x.numpy().dtype))
        lg = ferric.log(x).numpy()
        assert lg[0] == -inf and np.isnan(lg[1]) and np.isnan(lg[2]) and lg[3] == inf
        assert np.isnan(lg[4]) and lg[5] == -inf
        np.testing.assert_array_equal(ferric.tanh(x).numpy()[[2, 3]], [-1.0, 1.0])
        np.testing.assert_array_equal(ferric.sigmoid(x).numpy()[[2, 3]], [0.0, 1.0])
        assert np.isnan(ferric.sigmoid(x).numpy()[1])
        np.testing.assert_array_equal((x / 0.0).numpy()[[2, 3, 4]], [-inf, inf, -inf])
        mx = ferric.maximum(x, ferric.zeros(6, dtype=dt)).numpy()
        assert np.isnan(mx[1])


def test_integer_ops_unchanged():
    a = ferric.tensor([7, -7, 3, 0])
    b = ferric.tensor([2, 2, -2, 5])
    assert (a + b).tolist() == [9, -5, 1, 5]
    assert (a * b).dtype == ferric.int64
    assert (a // b).tolist() == [3, -4, -2, 0]
    assert (a / b).dtype == ferric.float32
    assert ferric.relu(a).tolist() == [7, 0, 3, 0]
    assert ferric.abs(a).tolist() == [7, 7, 3, 0]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a // ferric.tensor([1, 0, 1, 1])
    assert ferric.exp(ferric.tensor([0, 1])).dtype == ferric.float32


def _bits(t):
    a = t.numpy()
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64).copy()


@pytest.mark.parametrize("dt,np_dt", DTYPES, ids=["float32", "float64"])
def test_bitwise_identical_across_threads_and_layouts(dt, np_dt, restore_threads):
    # 1100 x 1031 > 1.1e6 elements: large enough to split across threads even for add
    base = _values((1100, 1031), "any", np_dt, seed=5)
    pos = np.abs(base) + np_dt(0.5)
    other = _values((1100, 1031), "any", np_dt, seed=6)
    cont, ocont = ferric.from_numpy(base.copy()), ferric.from_numpy(other.copy())
    trans = layouts.layout(base, "transposed").tensor()
    stepped = layouts.layout(base, "stepped").tensor()
    otrans = layouts.layout(other, "transposed").tensor()
    ops = [(name, op, pos if domain == "pos" else base) for name, op, _, domain in UNARY]
    results = {}
    for threads in (1, 2):
        ferric.set_num_threads(threads)
        for name, op, arr in ops:
            for lname in ("contiguous", "transposed", "stepped"):
                results[(name, lname, threads)] = _bits(op(layouts.layout(arr, lname).tensor()))
        for name, op, _ in BINARY:
            for lname, (x, y) in {"contiguous": (cont, ocont), "mixed": (trans, ocont),
                                  "strided": (stepped, otrans)}.items():
                results[(name, lname, threads)] = _bits(op(x, y))
            results[(name + " scalar", "scalar", threads)] = _bits(op(cont, 0.37))
            d = cont.clone()
            getattr(d, name + "_")(ocont)
            results[(name + "_", "contiguous", threads)] = _bits(d)
            d = trans.clone()
            getattr(d, name + "_")(otrans)
            results[(name + "_", "transposed", threads)] = _bits(d.contiguous())
    # every layout and thread count of one op gives the same bits
    reference = {}
    for (name, _, _), bits in results.items():
        ref = reference.setdefault(name, bits)
        assert np.array_equal(ref, bits), name
