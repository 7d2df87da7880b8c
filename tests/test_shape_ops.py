"""The shape/index utilities and composed arithmetic (``meshgrid`` ... ``quantile``)
replayed against PyTorch 2.13's results: values, dtypes, shapes, gradients and the
exception type and message of each bad call (``tests/fixtures/shapeops``: ``shapeops_cases.py``
holds the expressions, ``gen_shapeops.py`` recorded them)."""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import ferric
from ferric.autograd import gradcheck

HERE = Path(__file__).parent / "fixtures" / "shapeops"
sys.path.insert(0, str(HERE))
from shapeops_cases import CASES, PRELUDE  # noqa: E402

RECORDED = json.loads((HERE / "shapeops.json").read_text())["cases"]
NS = {"torch": ferric}
exec(PRELUDE, NS)

# messages PyTorch builds from a C++ tensor printout: compare up to it
PREFIX_ONLY = {"meshgrid_2d": "torch.meshgrid: Expected 0D or 1D tensor in the tensor list"}
# composed ops round differently from PyTorch's fused kernels in the last bits
TOL = {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)}
# PyTorch's trigamma (digamma's derivative) stops its series early: 1e-10 relative error
CASE_TOL = {"grad_digamma": (1e-9, 1e-12)}


def _check(got, want, where, tol=None):
    if isinstance(want, list):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _check(g, w, f"{where}[{i}]", tol)
        return
    if not isinstance(want, dict):
        assert got == want, where
        return
    assert isinstance(got, ferric.Tensor), where
    assert str(got.dtype).split(".")[-1] == want["dtype"], (where, got.dtype)
    assert list(got.shape) == want["shape"], (where, got.shape)
    w = np.array([math.nan if v == "nan" else v for v in want["values"]])
    g = got.detach().reshape(-1).numpy()
    if want["dtype"] in TOL:
        rtol, atol = tol or TOL[want["dtype"]]
        np.testing.assert_allclose(g, w.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=where)


@pytest.mark.parametrize("name,expr", CASES, ids=[c[0] for c in CASES])
def test_case_matches_pytorch(name, expr):
    rec = RECORDED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "error" in rec:
            kind, msg = rec["error"]
            with pytest.raises(Exception) as info:
                eval(expr, NS)
            assert type(info.value).__name__ == kind, (type(info.value), info.value)
            got = str(info.value)
            if name in PREFIX_ONLY:
                assert got.startswith(PREFIX_ONLY[name]), got
            else:
                # ferric's Rust errors name the op first ("lgamma_: result type ...")
                assert got == msg or got.endswith(": " + msg), got
            return
        _check(eval(expr, NS), rec["value"], name, CASE_TOL.get(name))


def leaf(*shape, lo=-2.0, hi=2.0, seed=0):
    rng = np.random.default_rng(seed)
    return ferric.tensor(rng.uniform(lo, hi, size=shape), requires_grad=True)


GRADCHECK = [
    ("meshgrid", lambda a, b: ferric.meshgrid(a, b, indexing="xy")[0] * 2, (leaf(3), leaf(4))),
    ("cartesian_prod", lambda a, b: ferric.cartesian_prod(a, b), (leaf(3), leaf(2))),
    ("combinations", lambda a: ferric.combinations(a, 3), (leaf(5),)),
    ("combinations_with_replacement",
     lambda a: ferric.combinations(a, 2, with_replacement=True), (leaf(4),)),
    ("block_diag", lambda a, b: ferric.block_diag(a, b), (leaf(2, 3), leaf(1))),
    ("kron", lambda a, b: ferric.kron(a, b), (leaf(2, 3), leaf(3, 2))),
    ("diff", lambda a, p: ferric.diff(a, n=2, dim=0, prepend=p), (leaf(4, 3), leaf(1, 3))),
    ("rot90", lambda a: ferric.rot90(a, 3, [1, 0]), (leaf(3, 4),)),
    ("take_along_dim", lambda a: ferric.take_along_dim(a, ferric.tensor([[2], [0], [1]]), 1),
     (leaf(3, 4),)),
    ("tensor_split", lambda a: ferric.tensor_split(a, [1, 3], dim=1)[1] * 3, (leaf(2, 5),)),
    ("tensordot", lambda a, b: ferric.tensordot(a, b, dims=([0, 2], [2, 0])),
     (leaf(2, 3, 4), leaf(4, 5, 2))),
    ("trace", lambda a: ferric.trace(a), (leaf(3, 4),)),
    ("cross", lambda a, b: ferric.cross(a, b, dim=0), (leaf(3, 4), leaf(3, 1))),
    ("cdist", lambda a, b: ferric.cdist(a, b), (leaf(3, 2), leaf(4, 2, seed=1))),
    ("cdist_p1", lambda a, b: ferric.cdist(a, b, p=1), (leaf(3, 2), leaf(4, 2, seed=1))),
    ("cdist_mm", lambda a, b: ferric.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
     (leaf(3, 2), leaf(4, 2, seed=1))),
    ("pdist", lambda a: ferric.pdist(a, p=3), (leaf(4, 2),)),
    ("lerp_scalar", lambda a, b: ferric.lerp(a, b, 0.7), (leaf(3), leaf(3, seed=1))),
    ("lerp_tensor", lambda a, b, w: ferric.lerp(a, b, w), (leaf(3), leaf(3, seed=1),
                                                          leaf(3, lo=0, hi=1, seed=2))),
    ("addcmul", lambda a, b, c: ferric.addcmul(a, b, c, value=0.5),
     (leaf(3), leaf(2, 1), leaf(3, seed=1))),
    ("addcdiv", lambda a, b, c: ferric.addcdiv(a, b, c, value=0.5),
     (leaf(3), leaf(3), leaf(3, lo=1, hi=2))),
    ("addmv", lambda a, m, v: ferric.addmv(a, m, v, beta=0.5, alpha=2),
     (leaf(2), leaf(2, 3), leaf(3))),
    ("addr", lambda a, u, v: ferric.addr(a, u, v, beta=2), (leaf(2, 3), leaf(2), leaf(3))),
    ("addbmm", lambda a, b, c: ferric.addbmm(a, b, c), (leaf(2, 3), leaf(2, 2, 4),
                                                        leaf(2, 4, 3))),
    ("logcumsumexp", lambda a: ferric.logcumsumexp(a, 1), (leaf(2, 70),)),
    ("quantile", lambda a: ferric.quantile(a, ferric.tensor([0.2, 0.5], dtype=ferric.float64),
                                           dim=1), (leaf(3, 6),)),
    ("nanquantile", lambda a: ferric.nanquantile(a, 0.7, dim=0), (leaf(5, 2),)),
]


@pytest.mark.parametrize("name,fn,inputs", GRADCHECK, ids=[g[0] for g in GRADCHECK])
def test_gradcheck(name, fn, inputs):
    assert gradcheck(fn, inputs)


def test_meshgrid_warns_without_indexing():
    with pytest.warns(UserWarning, match="indexing argument"):
        ferric.meshgrid(ferric.arange(2), ferric.arange(3))


def test_cross_without_dim_warns_and_uses_the_first_dim_of_size_3():
    a, b = ferric.tensor([[1.0, 0.0, 0.0]] * 3), ferric.tensor([[0.0, 1.0, 0.0]] * 3)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        got = ferric.cross(a, b)
    np.testing.assert_array_equal(got.numpy(), ferric.cross(a, b, dim=0).numpy())


def test_meshgrid_outputs_are_views():
    x, y = ferric.meshgrid(ferric.arange(3), ferric.arange(4), indexing="ij")
    assert x.stride() == (1, 0) and y.stride() == (0, 1)


def test_inplace_forms_reject_a_leaf_that_requires_grad_and_keep_it():
    x = ferric.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.lerp_(ferric.zeros(3), 0.5)
    np.testing.assert_array_equal(x.detach().numpy(), np.ones(3))


@pytest.mark.parametrize("q", [0.0, 0.1, 0.5, 0.77, 1.0])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(q, method):
    a = np.random.default_rng(3).normal(size=(4, 9))
    got = ferric.quantile(ferric.tensor(a), q, dim=1, interpolation=method).numpy()
    np.testing.assert_allclose(got, np.quantile(a, q, axis=1, method=method), rtol=1e-12)


def test_logcumsumexp_matches_numpy_on_wide_ranges():
    a = np.random.default_rng(4).normal(scale=200, size=(3, 200))
    want = np.logaddexp.accumulate(a, axis=1)
    got = ferric.logcumsumexp(ferric.tensor(a), 1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
