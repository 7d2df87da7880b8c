"""Accuracy of the special functions against reference values (mpmath at 40 digits, or
SciPy where its float64 is exact enough) recorded in
``tests/fixtures/special/special.json`` over each function's whole range (tiny, huge,
negative, near poles and roots): float64 results within a few ulp (a small absolute
floor where the function crosses zero), float32 results within an ulp or two of the
float64 value rounded. Layout variants, dtypes and in-place forms are the spec rows'
job (``tests/specs/special.py``); names, gradients and errors are checked against
PyTorch in ``tests/test_shape_ops.py``; float64 gradcheck is below and in
``tests/test_autograd.py``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ferric
from ferric.autograd import gradcheck, gradgradcheck

DENSE = json.loads((Path(__file__).parent / "fixtures" / "special" / "special.json")
                   .read_text())["dense"]

S = ferric.special
UNARY = {
    "lgamma": ferric.lgamma, "digamma": ferric.digamma, "erfinv": ferric.erfinv,
    "i0": ferric.i0, "sinc": ferric.sinc, "special_entr": S.entr, "special_ndtri": S.ndtri,
    "special_log_ndtr": S.log_ndtr, "special_erfcx": S.erfcx, "special_i0e": S.i0e,
    "special_i1": S.i1, "special_i1e": S.i1e,
    **{f"polygamma{n}": (lambda t, n=n: ferric.polygamma(n, t)) for n in range(5)},
    **{f"mvlgamma{p}": (lambda t, p=p: ferric.mvlgamma(t, p)) for p in (1, 2, 3)},
}
# (max ulp in float64, absolute floor) per function (log_ndtr's upper tail inherits the
# up to 1e-12 relative error of libm's erfc beyond x = 20); the floor covers the zero
# crossings (digamma's root, sinc's zeros, lgamma at 1 and 2), where SciPy's own
# relative accuracy ends too
ULPS = {"lgamma": (8, 2e-15), "digamma": (8, 2e-15), "polygamma0": (8, 2e-15),
        "sinc": (8, 1e-15), "polygamma2": (16, 0), "polygamma3": (16, 0),
        "polygamma4": (16, 0), "special_log_ndtr": (8192, 1e-300), "mvlgamma1": (8, 2e-15),
        "mvlgamma2": (8, 1e-14),
        "mvlgamma3": (8, 1e-14)}


def ulp_error(got, want):
    spacing = np.spacing(np.abs(want).astype(np.float64))
    return np.abs(got - want) / np.maximum(spacing, np.finfo(np.float64).tiny)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float64_within_a_few_ulp_of_the_reference(name):
    xs, want = (np.array(v, np.float64) for v in DENSE[name])
    got = UNARY[name](ferric.tensor(xs)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want)), xs[np.isnan(got) != np.isnan(want)]
    fin = np.isfinite(want)
    assert np.array_equal(got[~fin], want[~fin])
    max_ulp, floor = ULPS.get(name, (8, 0))
    bad = (ulp_error(got[fin], want[fin]) > max_ulp) & (np.abs(got[fin] - want[fin]) > floor)
    assert not bad.any(), list(zip(xs[fin][bad][:5], got[fin][bad][:5], want[fin][bad][:5],
                                   strict=True))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float32_is_the_float64_value_rounded(name):
    xs, want = (np.array(v, np.float64) for v in DENSE[name])
    x32 = xs.astype(np.float32)
    keep = x32.astype(np.float64) == xs  # inputs that float32 holds exactly
    got = UNARY[name](ferric.tensor(x32[keep])).numpy()
    want = UNARY[name](ferric.tensor(xs[keep])).numpy().astype(np.float32)
    close = np.isclose(got, want, rtol=2.5e-7, atol=1e-30, equal_nan=True)
    assert close.all(), list(zip(xs[keep][~close][:5], got[~close][:5], want[~close][:5],
                                 strict=True))


def test_zeta_within_a_few_ulp_of_the_reference():
    s, q, want = (np.array(v, np.float64) for v in DENSE["special_zeta"])
    got = S.zeta(ferric.tensor(s), ferric.tensor(q)).numpy()
    assert (ulp_error(got, want) <= 8).all()


def test_edge_values_as_pytorch():
    inf, nan = float("inf"), float("nan")
    t = ferric.tensor
    cases = [
        (ferric.digamma(t([0.0, -0.0, -2.0, -inf, inf])), [-inf, inf, nan, nan, inf]),
        (ferric.lgamma(t([0.0, -1.0, -inf, inf])), [inf, inf, inf, inf]),
        (ferric.erfinv(t([-1.0, 1.0, 1.5, -0.0])), [-inf, inf, nan, -0.0]),
        (ferric.i0(t([inf, -inf])), [nan, nan]),  # PyTorch's exp(x)/sqrt(x) = inf/inf
        (S.i1e(t([inf, -inf])), [0.0, -0.0]),
        (S.ndtri(t([-0.1, 0.0, 1.0, 1.1])), [nan, -inf, inf, nan]),
        (S.log_ndtr(t([-inf, inf])), [-inf, -0.0]),
        (S.erfcx(t([-inf, inf])), [inf, 0.0]),
        (S.entr(t([-1.0, 0.0, inf])), [-inf, 0.0, -inf]),
        (S.zeta(t([1.0, 0.5, 2.0, 2.5]), t([1.0, 1.0, 0.0, -1.5])), [inf, nan, inf, nan]),
        (ferric.xlogy(t([0.0, 0.0, 1.0]), t([nan, 0.0, 0.0])), [nan, 0.0, -inf]),
        (ferric.sinc(t([0.0, inf])), [1.0, nan]),
    ]
    for got, want in cases:
        np.testing.assert_array_equal(got.numpy(), np.array(want, np.float32))
        num = ~np.isnan(np.array(want))
        assert np.array_equal(np.signbit(got.numpy())[num], np.signbit(np.array(want))[num])


PARAM_GRAD = [
    ("polygamma", lambda x: ferric.polygamma(2, x), (0.5, 3.0)),
    ("mvlgamma", lambda x: ferric.mvlgamma(x, 3), (1.5, 4.0)),
    ("logit", lambda x: ferric.logit(x), (0.1, 0.9)),
    ("logit_eps", lambda x: ferric.logit(x, eps=0.05), (0.1, 0.9)),
    ("ndtr", lambda x: S.ndtr(x), (-3.0, 3.0)),
]


@pytest.mark.parametrize("name,fn,domain", PARAM_GRAD, ids=[p[0] for p in PARAM_GRAD])
def test_parameterised_gradcheck(name, fn, domain):
    x = ferric.tensor(np.random.default_rng(5).uniform(*domain, size=(3, 4)),
                      requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_zeta_has_no_gradient_in_s():
    s = ferric.tensor([3.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta'"):
        S.zeta(s, 2.0).sum().backward()


def test_special_namespace_aliases():
    x = ferric.tensor([0.3, 1.7])
    for alias, target in [("psi", ferric.digamma), ("gammaln", ferric.lgamma),
                          ("expit", ferric.sigmoid), ("exp2", ferric.exp2),
                          ("expm1", ferric.expm1), ("log1p", ferric.log1p),
                          ("erf", ferric.erf), ("erfc", ferric.erfc), ("i0", ferric.i0),
                          ("sinc", ferric.sinc), ("digamma", ferric.digamma)]:
        np.testing.assert_array_equal(getattr(S, alias)(x).numpy(), target(x).numpy())
    assert set(S.__all__) <= set(dir(S))
