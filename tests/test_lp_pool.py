"""``F.lp_pool1d/2d/3d`` and ``nn.LPPool1d/2d/3d`` against PyTorch 2.13
(tests/fixtures/lp_pool, recorded by its generate.py; PyTorch is not needed here):
values, input gradients (zero for an all-zero window), node names, reprs and errors;
then a NumPy reference on every memory layout and float64 gradcheck.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from layouts import variants
from recorded import case_id, check_pooling_case, load_fixture, replay_tests

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.autograd import gradcheck

FIXTURE = load_fixture("lp_pool")


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=case_id)
def test_matches_pytorch(case):
    check_pooling_case(case, 1e-5 if case["dtype"] == "float32" else 1e-11)


test_fixture_version, test_repr_matches_pytorch, test_errors_match_pytorch = replay_tests(
    FIXTURE, exact=False)


# ------------------------------------------------------------------- NumPy reference


def _reference(a, p, k, s):
    """``(sum of x ** p over each window) ** (1 / p)`` by loops over the windows (no
    padding, floor mode), ``max |x|`` for ``p = inf``."""
    lead = a.shape[:-len(k)]
    sizes = a.shape[-len(k):]
    outs = [(n - kk) // ss + 1 for n, kk, ss in zip(sizes, k, s, strict=True)]
    flat = a.reshape(-1, *sizes)
    res = np.empty((flat.shape[0], *outs))
    for b in range(flat.shape[0]):
        for pos in np.ndindex(*outs):
            win = flat[(b, *(slice(o * ss, o * ss + kk) for o, kk, ss in
                             zip(pos, k, s, strict=True)))]
            res[(b, *pos)] = np.abs(win).max() if p == math.inf else \
                (win ** p).sum() ** (1 / p)
    return res.reshape(*lead, *outs)


@pytest.mark.parametrize("fn, p, k, s, shape", [
    (F.lp_pool1d, 2.0, (3,), (2,), (2, 3, 9)),
    (F.lp_pool2d, 3.0, (2, 3), (1, 2), (2, 3, 5, 7)),
    (F.lp_pool2d, math.inf, (2, 2), (2, 2), (2, 4, 6)),
    (F.lp_pool3d, 2.0, (2, 2, 3), (1, 2, 2), (1, 2, 4, 5, 7)),
    (F.lp_pool3d, 1.5, (2, 2, 2), (2, 2, 2), (2, 4, 4, 6)),
])
def test_matches_numpy_on_every_layout(fn, p, k, s, shape):
    arr = np.random.default_rng(4).uniform(0.1, 2.0, size=shape)
    kernel = k[0] if fn is F.lp_pool1d else k
    stride = s[0] if fn is F.lp_pool1d else s
    for kind, t, values in variants(arr, ("contiguous", "transposed", "permuted",
                                          "stepped", "expanded")):
        want = _reference(values, p, k, s)
        got = fn(t, p, kernel, stride).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=kind)


@pytest.mark.parametrize("fn, args, shape", [
    (F.lp_pool1d, (2, 3, 2), (2, 2, 7)),
    (F.lp_pool2d, (1.5, (2, 3), (1, 2)), (1, 2, 4, 5)),
    (F.lp_pool3d, (3, 2, 1), (1, 1, 3, 3, 4)),
    (F.lp_pool3d, (math.inf, (2, 1, 2)), (1, 2, 4, 3, 4)),
])
def test_gradcheck(fn, args, shape):
    x = ferric.tensor(np.random.default_rng(6).uniform(0.2, 2.0, size=shape),
                      requires_grad=True)
    assert gradcheck(lambda t: fn(t, *args), (x,))


def test_modules_forward_the_functional():
    x = ferric.rand(2, 3, 4, 4, 4, dtype=ferric.float64)
    assert ferric.equal(nn.LPPool3d(2, 2)(x), F.lp_pool3d(x, 2.0, 2))
    assert ferric.equal(nn.LPPool2d(3, 2, 1)(x[0]), F.lp_pool2d(x[0], 3.0, 2, 1))
    assert ferric.equal(nn.LPPool1d(1, 2)(x[0, 0]), F.lp_pool1d(x[0, 0], 1.0, 2))
