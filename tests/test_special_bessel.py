"""The Bessel-type functions, ``gammainc``/``gammaincc`` and the orthogonal polynomials
of ``ferric.special`` against SciPy's float64 values and PyTorch 2.13's recorded values
(``tests/fixtures/special_bessel``; PyTorch and SciPy are not imported): accuracy over
each function's range, PyTorch's edge values (0, negative, +-inf, NaN, degrees that are
negative, fractional, NaN or huge), dtypes and errors, autograd (no graph for the
functions PyTorch does not differentiate, the gradient of ``gammainc`` in ``x`` only),
and every memory layout of ``tests/layouts.py``. The op-table spec rows
(``tests/specs/special.py``) add the dtype combinations and Python-number forms."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import variants

import ferric
from ferric.autograd import gradcheck

FIX = json.loads((Path(__file__).parent / "fixtures" / "special_bessel"
                  / "special_bessel.json").read_text())
S = ferric.special
UNARY = sorted(FIX["unary"])
POLYS = sorted(FIX["poly"])

# (relative tolerance, absolute floor) against SciPy in float64: the floor covers the
# zeros of the oscillating functions, where a relative error is meaningless (SciPy's own
# values there are accurate to about 1e-16 absolutely); Ai far left and J/Y far out
# inherit the rounding of their phase argument
DENSE_TOL = {
    "airy_ai": (1e-12, 1e-14), "bessel_j0": (1e-12, 1e-15), "bessel_j1": (1e-12, 1e-15),
    "bessel_y0": (1e-12, 1e-15), "bessel_y1": (1e-12, 1e-15),
    "spherical_bessel_j0": (1e-14, 1e-17),
}


def run(name, x, dtype=ferric.float64):
    return getattr(S, name)(ferric.tensor(np.asarray(x, np.float64), dtype=dtype)).numpy()


@pytest.mark.parametrize("name", UNARY)
def test_float64_matches_scipy_over_the_range(name):
    xs, want = (np.array(v, np.float64) for v in FIX["dense"][name])
    got = run(name, xs)
    fin = np.isfinite(want)
    assert np.array_equal(got[~fin], want[~fin])
    rtol, floor = DENSE_TOL.get(name, (1e-13, 0.0))
    bad = np.abs(got[fin] - want[fin]) > rtol * np.abs(want[fin]) + floor
    assert not bad.any(), list(zip(xs[fin][bad][:5], got[fin][bad][:5], want[fin][bad][:5],
                                   strict=True))


@pytest.mark.parametrize("name", UNARY)
def test_grid_and_edge_values(name):
    """0, -0, negatives, +-inf and NaN as PyTorch; finite values as SciPy."""
    xs, want = (np.array(v, np.float64) for v in FIX["unary"][name])
    got = run(name, xs)
    assert np.array_equal(np.isnan(got), np.isnan(want)), xs[np.isnan(got) != np.isnan(want)]
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf])
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", UNARY)
def test_float32_is_the_float64_value_rounded(name):
    xs = np.array([v for v in FIX["unary"][name][0]], np.float64)
    got = run(name, xs, ferric.float32)
    assert got.dtype == np.float32
    want = run(name, xs).astype(np.float32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", UNARY)
def test_layouts(name):
    base = np.linspace(-6.0, 6.0, 24).reshape(4, 6)
    for kind, t, vals in variants(base, dtype=ferric.float64):
        got = getattr(S, name)(t)
        assert got.shape == vals.shape
        flat = run(name, vals.ravel()).reshape(vals.shape)
        np.testing.assert_array_equal(got.numpy(), flat, err_msg=kind)


def _poly_call(name, x, n, dtype):
    return getattr(S, name)(ferric.tensor(np.asarray(x), dtype=dtype),
                            ferric.tensor(np.asarray(n), dtype=dtype)).numpy()


def _poly_recorded(name, column):
    """The recorded points ``x``, degrees ``n`` and the values of ``column`` (``torch64``,
    ``torch32`` or ``scipy``) of polynomial ``name``, as float64 arrays."""
    t = FIX["poly"][name]
    return (np.array(t[k], np.float64) for k in ("x", "n", column))


def _assert_close_by_degree(got, want, n, rtols, atol):
    """The same infinities as ``want`` and its finite values within ``rtols[0]`` for
    degrees up to 20, ``rtols[1]`` above."""
    fin = np.isfinite(want)
    assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)])
    for sel, rtol in (((n <= 20), rtols[0]), ((n > 20), rtols[1])):
        np.testing.assert_allclose(got[fin & sel], want[fin & sel], rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", POLYS)
def test_polynomials_match_pytorch_float64(name):
    """Negative, fractional, NaN, infinite and huge degrees, |x| > 1, x = +-inf / NaN:
    PyTorch's values (its algorithm, run in float64)."""
    x, n, want = _poly_recorded(name, "torch64")
    got = _poly_call(name, x, n, ferric.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), list(
        zip(x[np.isnan(got) != np.isnan(want)][:5], n[np.isnan(got) != np.isnan(want)][:5],
            strict=True))
    # PyTorch's build contracts the recurrences' a*b - c into fused multiply-adds: the
    # last bits differ, and over hundreds of steps that adds up
    _assert_close_by_degree(got, want, n, (1e-13, 1e-8), atol=1e-300)


@pytest.mark.parametrize("name", POLYS)
def test_polynomials_match_pytorch_float32(name):
    """In float32 PyTorch evaluates in float32 (its Hermite limit is 128 there, its
    recurrences overflow sooner): ferric does the same."""
    x, n, want = _poly_recorded(name, "torch32")
    got = _poly_call(name, x, n, ferric.float32).astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    # (where PyTorch's fused multiply-add rounds to the largest float32, ferric's
    # separate multiply overflows: the same value as far as float32 can tell)
    big = float(np.finfo(np.float32).max)
    got, want = (np.where(np.abs(v) >= big, np.sign(v) * np.inf, v) for v in (got, want))
    _assert_close_by_degree(got, want, n, (1e-5, 1e-3), atol=1e-5)


@pytest.mark.parametrize("name", POLYS)
def test_polynomials_match_scipy_on_the_orthogonality_interval(name):
    x, n, want = _poly_recorded(name, "scipy")
    have = ~np.isnan(want)
    assert have.sum() > 100
    got = _poly_call(name, x[have], n[have], ferric.float64)
    np.testing.assert_allclose(got, want[have], rtol=1e-9, atol=1e-9)


def test_polynomial_degrees_follow_pytorch_rules():
    x = ferric.tensor([0.3, 0.3, 0.3, 0.3, 0.3], dtype=ferric.float64)
    n = ferric.tensor([2.9, -0.5, -1.0, math.nan, math.inf], dtype=ferric.float64)
    # truncated toward zero; negative, NaN and out-of-range degrees give 0
    got = S.chebyshev_polynomial_t(x, n).tolist()
    assert got == [2 * 0.3 * 0.3 - 1, 1.0, 0.0, 0.0, 0.0]
    assert math.isnan(S.hermite_polynomial_h(ferric.tensor([0.5]), 129).item())
    assert not math.isnan(S.hermite_polynomial_h(ferric.tensor([0.5], dtype=ferric.float64),
                                                 129).item())


@pytest.mark.parametrize("name", POLYS)
def test_polynomial_layouts_and_broadcasting(name):
    fn = getattr(S, name)
    xs = np.linspace(-1.2, 1.2, 24).reshape(4, 6)
    ns = np.array([0.0, 1.0, 2.0, 5.0, 9.0, 12.0])
    for kind, t, vals in variants(xs, dtype=ferric.float64):
        got = fn(t, ferric.tensor(ns[: vals.shape[-1]] if vals.ndim else ns[0]))
        flat = _poly_call(name, np.broadcast_to(vals, got.shape).ravel(),
                          np.broadcast_to(ns[: vals.shape[-1]] if vals.ndim else ns[0],
                                          got.shape).ravel(), ferric.float64)
        np.testing.assert_array_equal(got.numpy().ravel(), flat, err_msg=kind)
    # a column of points against a row of degrees
    got = fn(ferric.tensor([[0.25], [0.5]], dtype=ferric.float64), ferric.tensor([1, 2, 3]))
    assert got.shape == (2, 3) and got.dtype == ferric.float64


def test_polynomial_dtypes_and_python_numbers():
    f = S.chebyshev_polynomial_t
    assert f(ferric.tensor([1, 2]), ferric.tensor([3])).dtype == ferric.float32
    assert f(ferric.tensor([True]), ferric.tensor([3])).tolist() == [1.0]
    assert f(ferric.tensor([0.5]), ferric.tensor([3.0], dtype=ferric.float64)).dtype == \
        ferric.float64
    assert f(0.5, ferric.tensor([3])).tolist() == [-1.0]
    assert f(ferric.tensor([0.5]), 3).tolist() == [-1.0]
    with pytest.raises(TypeError, match=r"(?s)special_chebyshev_polynomial_t\(\) received an "
                                        r"invalid combination of arguments - got \(float, "
                                        r"int\).*\(Tensor x, Tensor n"):
        f(0.5, 3)
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        f(ferric.tensor([0.5, 0.2]), ferric.tensor([1, 2, 3]))


HALF = [ferric.float16, ferric.bfloat16]


@pytest.mark.parametrize("dtype", HALF)
def test_half_types_raise_like_pytorch(dtype):
    x = ferric.tensor([0.5], dtype=dtype)
    with pytest.raises(NotImplementedError, match="\"bessel_j0_cpu\" not implemented for"):
        S.bessel_j0(x)
    with pytest.raises(NotImplementedError,
                       match="\"scaled_modified_bessel_k1_cpu\" not implemented for"):
        S.scaled_modified_bessel_k1(x)
    with pytest.raises(NotImplementedError,
                       match="\"chebyshev_polynomial_t_cpu\" not implemented for"):
        S.chebyshev_polynomial_t(x, 3)
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for"):
        S.gammainc(x, x)


def test_integer_inputs():
    assert S.bessel_j0(ferric.tensor([1, 2])).dtype == ferric.float32
    assert S.airy_ai(ferric.tensor([True])).dtype == ferric.float32
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        S.gammainc(ferric.tensor([1, 2]), ferric.tensor([1]))
    with pytest.raises(NotImplementedError, match="\"igammac_cpu\" not implemented for 'Bool'"):
        S.gammaincc(ferric.tensor([True]), ferric.tensor([True]))
    assert S.gammainc(ferric.tensor([1.0]), ferric.tensor([True])).dtype == ferric.float32
    with pytest.raises(TypeError, match=r"special_bessel_j0\(\): argument 'input' "
                                        r"\(position 1\) must be Tensor, not float"):
        S.bessel_j0(0.5)
    with pytest.raises(TypeError, match=r"special_gammainc\(\): argument 'input' "
                                        r"\(position 1\) must be Tensor, not float"):
        S.gammainc(2.0, ferric.tensor([1.0]))


@pytest.mark.parametrize("name", UNARY + POLYS)
def test_no_graph_like_pytorch(name):
    """PyTorch does not differentiate these: the output has no grad_fn."""
    x = ferric.tensor([0.5, 1.5], dtype=ferric.float64, requires_grad=True)
    fn = getattr(S, name)
    y = fn(x) if name in UNARY else fn(x, 3)
    assert y.grad_fn is None and not y.requires_grad
    if name in POLYS:
        n = ferric.tensor([2.0, 3.0], dtype=ferric.float64, requires_grad=True)
        assert fn(0.5, n).grad_fn is None


GAMMA = ("gammainc", "gammaincc")


@pytest.mark.parametrize("name", GAMMA)
def test_gamma_grid(name):
    a, x, want = (np.array(v, np.float64) for v in FIX["gamma"][name])
    got = getattr(S, name)(ferric.tensor(a), ferric.tensor(x)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want)), list(
        zip(a[np.isnan(got) != np.isnan(want)], x[np.isnan(got) != np.isnan(want)],
            strict=True))[:5]
    fin = ~np.isnan(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name,node", [("gammainc", "IgammaBackward0"),
                                       ("gammaincc", "IgammacBackward0")])
def test_gamma_gradient_in_x_only(name, node):
    fn = getattr(S, name)
    a = ferric.tensor([0.5, 2.0, 7.5], dtype=ferric.float64)
    x = ferric.tensor([0.3, 2.5, 6.0], dtype=ferric.float64, requires_grad=True)
    y = fn(a, x)
    assert type(y.grad_fn).__name__ == node
    assert gradcheck(lambda t: fn(a, t), (x,))
    # broadcasting: the gradient sums over the broadcast dim
    xb = ferric.tensor([1.5], dtype=ferric.float64, requires_grad=True)
    assert gradcheck(lambda t: fn(a, t), (xb,))
    # backward through the shape parameter raises at backward time, as PyTorch
    a2 = a.clone().requires_grad_()
    y = fn(a2, x)
    op = "igamma" if name == "gammainc" else "igammac"
    with pytest.raises(NotImplementedError,
                       match=f"the derivative for '{op}: input' is not implemented."):
        y.sum().backward()


def test_top_level_and_method_aliases():
    a, x = ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 3.0])
    want = S.gammainc(a, x).tolist()
    assert ferric.igamma(a, x).tolist() == want
    assert a.igamma(x).tolist() == want
    assert a.igammac(x).tolist() == S.gammaincc(a, x).tolist()
    b = a.clone()
    assert b.igamma_(x) is b and b.tolist() == want
    b = a.clone()
    b.igammac_(x)
    assert b.tolist() == S.gammaincc(a, x).tolist()
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ferric.tensor([1.0]).igamma_(ferric.tensor([2.0, 3.0]))
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        a.igamma(2.0)


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, 60.0))
def test_wronskians(x):
    """J1 Y0 - J0 Y1 = 2 / (pi x) and I0 K1 + I1 K0 = 1 / x tie the kernels together
    (an error in any one of them breaks the identity)."""
    t = ferric.tensor([x], dtype=ferric.float64)
    j0, j1, y0, y1 = (getattr(S, n)(t).item() for n in
                      ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"))
    assert math.isclose(j1 * y0 - j0 * y1, 2 / (math.pi * x), rel_tol=1e-12)
    if x < 700:
        i0, i1 = S.modified_bessel_i0(t).item(), S.modified_bessel_i1(t).item()
        k0, k1 = S.modified_bessel_k0(t).item(), S.modified_bessel_k1(t).item()
        if math.isfinite(i0) and k0 > 0:
            assert math.isclose(i0 * k1 + i1 * k0, 1 / x, rel_tol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 50.0), st.floats(0.0, 100.0))
def test_gammainc_and_gammaincc_are_complements(a, x):
    p = S.gammainc(ferric.tensor([a], dtype=ferric.float64),
                   ferric.tensor([x], dtype=ferric.float64)).item()
    q = S.gammaincc(ferric.tensor([a], dtype=ferric.float64),
                    ferric.tensor([x], dtype=ferric.float64)).item()
    assert 0.0 <= p <= 1.0 and 0.0 <= q <= 1.0
    assert math.isclose(p + q, 1.0, rel_tol=1e-13)
