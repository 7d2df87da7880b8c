"""``F.fractional_max_pool2d/3d`` and ``nn.FractionalMaxPool2d/3d`` against PyTorch 2.13
(tests/fixtures/fractional_max_pool, recorded by its generate.py; PyTorch is not needed
here): values, indices, input gradients, node names, reprs and errors, with recorded
``_random_samples`` and with seeded draws (ferric's ``rand`` is PyTorch's, so the same
windows come out). Then a NumPy reference of ATen's window placement on every layout,
float64 gradcheck, and the window properties (increasing, inside the input, covering it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import variants
from recorded import POOL_RTOL, case_id, check_pooling_case, load_fixture, replay_tests

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.autograd import gradcheck
from ferric.nn._functional_fractional import _intervals

FIXTURE = load_fixture("fractional_max_pool")


def _int64_indices(indices, case):
    assert indices.dtype == ferric.int64


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: case_id(c, 70))
def test_matches_pytorch(case):
    check_pooling_case(case, POOL_RTOL[case["dtype"]], requires_grad=case["grad"],
                       check_indices=_int64_indices)


test_fixture_version, test_repr_matches_pytorch, test_errors_match_pytorch = replay_tests(
    FIXTURE, error_seed=0)


# ------------------------------------------------------------------- NumPy reference


def _reference(a, u, pool, out):
    """ATen's loops: windows from ``generate_intervals`` (samples ``(w, h)`` in 2-d,
    ``(t, h, w)`` in 3-d), scanned in row-major order; a greater value or NaN replaces."""
    nd = len(pool)
    lead, spatial = a.shape[:-nd], a.shape[-nd:]
    planes = a.reshape(-1, *spatial)
    us = u.reshape(-1, nd)
    order = (1, 0) if nd == 2 else (0, 1, 2)
    vals = np.empty((planes.shape[0], *out))
    idx = np.empty((planes.shape[0], *out), dtype=np.int64)
    for p in range(planes.shape[0]):
        starts = []
        for d in range(nd):
            s = us[p, order[d]]
            alpha = (spatial[d] - pool[d]) / (out[d] - 1) if out[d] > 1 else 0.0
            seq = [int((i + s) * alpha) - int(s * alpha) for i in range(out[d] - 1)]
            starts.append(seq + [spatial[d] - pool[d]])
        for pos in np.ndindex(*out):
            best, at = -math.inf, -1
            for tap in np.ndindex(*pool):
                where = tuple(starts[d][pos[d]] + tap[d] for d in range(nd))
                v = planes[(p, *where)]
                if v > best or math.isnan(v):
                    best, at = v, int(np.ravel_multi_index(where, spatial))
            vals[(p, *pos)], idx[(p, *pos)] = best, at
    return vals.reshape(*lead, *out), idx.reshape(*lead, *out)


@pytest.mark.parametrize("fn, pool, out, shape", [
    (F.fractional_max_pool2d, (2, 3), (4, 3), (2, 3, 9, 8)),
    (F.fractional_max_pool2d, (3, 3), (3, 5), (3, 8, 9)),
    (F.fractional_max_pool3d, (2, 2, 3), (3, 2, 3), (1, 2, 7, 5, 8)),
    (F.fractional_max_pool3d, (1, 2, 2), (4, 2, 3), (2, 6, 5, 6)),
])
def test_matches_numpy_on_every_layout(fn, pool, out, shape):
    rng = np.random.default_rng(9)
    arr = rng.integers(0, 5, size=shape).astype(np.float64)
    nd = len(pool)
    lead = shape[:-nd - 1] or (1,)
    u = rng.uniform(0, 1, size=(*lead, shape[-nd - 1], nd))
    for kind, t, values in variants(arr, ("contiguous", "transposed", "permuted", "stepped",
                                          "expanded")):
        want_v, want_i = _reference(values, u, pool, out)
        got_v, got_i = fn(t, pool, out, return_indices=True,
                          _random_samples=ferric.tensor(u))
        np.testing.assert_array_equal(got_v.numpy(), want_v, err_msg=kind)
        np.testing.assert_array_equal(got_i.numpy(), want_i, err_msg=kind)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), k=st.integers(1, 6), o=st.integers(1, 20),
       u=st.floats(0, 1, exclude_max=True))
def test_windows_increase_stay_inside_and_cover_the_input(n, k, o, u):
    if o + k - 1 > n:
        return
    starts = _intervals(np.array([u]), n, o, k)[0]
    assert starts[0] == 0 or o == 1
    assert starts[-1] == n - k
    assert all(0 <= s <= n - k for s in starts)
    assert all(b >= a for a, b in zip(starts, starts[1:], strict=False))
    # consecutive windows leave no gap when the ratio allows it
    if (n - k) <= (o - 1) * k:
        assert all(b - a <= k for a, b in zip(starts, starts[1:], strict=False))


@pytest.mark.parametrize("fn, args, shape, nd", [
    (F.fractional_max_pool2d, (2, (3, 4)), (1, 2, 6, 7), 2),
    (F.fractional_max_pool2d, ((3, 2), 3), (2, 7, 6), 2),
    (F.fractional_max_pool3d, (2, (2, 3, 2)), (1, 1, 5, 6, 5), 3),
])
def test_gradcheck(fn, args, shape, nd):
    rng = np.random.default_rng(3)
    x = ferric.tensor(rng.standard_normal(shape), requires_grad=True)
    batch = shape[0] if len(shape) == nd + 2 else 1
    u = ferric.tensor(rng.uniform(0, 1, size=(batch, shape[-nd - 1], nd)))
    assert gradcheck(lambda t: fn(t, *args, _random_samples=u), (x,))


def test_module_draws_new_windows_unless_samples_are_given():
    x = ferric.randn(2, 3, 20, 20)
    pool = nn.FractionalMaxPool2d(2, output_size=9, return_indices=True)
    draws = {tuple(pool(x)[1].reshape(-1).tolist()) for _ in range(5)}
    assert len(draws) > 1
    u = ferric.rand(2, 3, 2)
    fixed = nn.FractionalMaxPool2d(2, output_size=9, _random_samples=u)
    assert ferric.equal(fixed(x), fixed(x))
    assert "_random_samples" in dict(fixed.named_buffers())
