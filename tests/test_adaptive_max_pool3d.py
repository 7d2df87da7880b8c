"""``F.adaptive_max_pool3d`` / ``nn.AdaptiveMaxPool3d`` against PyTorch 2.13
(tests/fixtures/adaptive_max_pool3d, recorded by its generate.py; PyTorch is not needed
here): values, indices into each channel's flattened ``D * H * W`` input (ties: the first
maximum; NaN: the last one), input gradients, node names, reprs and errors. Then a NumPy
reference on every memory layout, float64 gradcheck, and zero-size shapes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from layouts import variants
from recorded import POOL_RTOL, case_id, check_pooling_case, load_fixture, replay_tests

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.autograd import gradcheck

FIXTURE = load_fixture("adaptive_max_pool3d")


def _indices_dtype_and_shape(indices, case):
    assert str(indices.dtype) == "ferric." + case["indices_dtype"]
    assert list(indices.shape) == case["out_shape"]


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=case_id)
def test_matches_pytorch(case):
    check_pooling_case(case, POOL_RTOL[case["dtype"]], requires_grad=case["grad"],
                       check_indices=_indices_dtype_and_shape)


test_fixture_version, test_repr_matches_pytorch, test_errors_match_pytorch = replay_tests(
    FIXTURE)


def test_a_failed_call_leaves_the_input_alone():
    x = ferric.ones(1, 1, 3, 4, 5)
    with pytest.raises(RuntimeError):
        F.adaptive_max_pool3d(x, (-1, 2, 2))
    assert x.tolist() == ferric.ones(1, 1, 3, 4, 5).tolist()


# ------------------------------------------------------------------- NumPy reference


def _reference(a, size):
    """Loops over ATen's windows: start ``floor(i * L / O)``, end ``ceil((i + 1) * L / O)``;
    a greater value or a NaN replaces the running maximum."""
    *lead, d, h, w = a.shape
    flat = a.reshape(-1, d, h, w)
    od, oh, ow = size
    vals = np.empty((flat.shape[0], od, oh, ow))
    idx = np.empty((flat.shape[0], od, oh, ow), dtype=np.int64)

    def window(i, n, o):
        return range((i * n) // o, -((-(i + 1) * n) // o))

    for b in range(flat.shape[0]):
        for i in range(od):
            for j in range(oh):
                for k in range(ow):
                    best, at = -math.inf, None
                    for z in window(i, d, od):
                        for y in window(j, h, oh):
                            for x in window(k, w, ow):
                                v = flat[b, z, y, x]
                                if at is None or v > best or math.isnan(v):
                                    best, at = v, (z * h + y) * w + x
                    vals[b, i, j, k], idx[b, i, j, k] = best, at
    return vals.reshape(*lead, od, oh, ow), idx.reshape(*lead, od, oh, ow)


@pytest.mark.parametrize("shape, size", [
    ((2, 3, 5, 4, 6), (2, 3, 4)),
    ((3, 7, 5, 4), (3, 2, 3)),
    ((1, 2, 3, 3, 3), (5, 4, 3)),
    ((2, 1, 6, 1, 5), (4, 1, 2)),
])
def test_matches_numpy_on_every_layout(shape, size):
    arr = np.random.default_rng(7).integers(0, 4, size=shape).astype(np.float64)
    for kind, t, values in variants(arr, ("contiguous", "transposed", "permuted",
                                          "channels_last", "stepped", "expanded")):
        want_v, want_i = _reference(values, size)
        got_v, got_i = F.adaptive_max_pool3d(t, size, return_indices=True)
        np.testing.assert_array_equal(got_v.numpy(), want_v, err_msg=kind)
        np.testing.assert_array_equal(got_i.numpy(), want_i, err_msg=kind)


def test_nan_and_infinities_match_numpy():
    rng = np.random.default_rng(11)
    arr = rng.standard_normal((2, 5, 6, 4))
    arr.reshape(-1)[rng.choice(arr.size, 30, replace=False)] = np.nan
    arr.reshape(-1)[rng.choice(arr.size, 20, replace=False)] = np.inf
    arr.reshape(-1)[rng.choice(arr.size, 20, replace=False)] = -np.inf
    want_v, want_i = _reference(arr, (3, 4, 3))
    got_v, got_i = F.adaptive_max_pool3d(ferric.tensor(arr), (3, 4, 3), return_indices=True)
    np.testing.assert_array_equal(got_v.numpy(), want_v)
    np.testing.assert_array_equal(got_i.numpy(), want_i)


# ------------------------------------------------------------------ gradients, shapes


@pytest.mark.parametrize("shape, size", [
    ((1, 2, 5, 4, 6), (2, 3, 4)),
    ((2, 4, 3, 5), (3, None, 2)),
    ((1, 1, 2, 3, 2), (3, 4, 5)),
])
def test_gradcheck(shape, size):
    x = ferric.tensor(np.random.default_rng(5).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: F.adaptive_max_pool3d(t, size), (x,))


def test_gradient_goes_to_the_recorded_index():
    x = ferric.tensor(np.random.default_rng(2).integers(0, 2, (2, 3, 4, 5, 3)).astype(float),
                      requires_grad=True)
    out, idx = F.adaptive_max_pool3d(x, (3, 2, 2), return_indices=True)
    out.sum().backward()
    want = np.zeros((6, 60))
    for row, cols in enumerate(idx.reshape(6, -1).tolist()):
        for c in cols:
            want[row, c] += 1
    np.testing.assert_array_equal(x.grad.reshape(6, 60).numpy(), want)


def test_module_and_no_grad():
    pool = nn.AdaptiveMaxPool3d((1, None, 2), return_indices=True)
    x = ferric.randn(2, 3, 4, 5, requires_grad=True)
    out, idx = pool(x)
    assert out.shape == (2, 1, 4, 2) and idx.shape == (2, 1, 4, 2)
    assert not idx.requires_grad
    with ferric.no_grad():
        assert F.adaptive_max_pool3d(x, 2).grad_fn is None
    assert F.adaptive_max_pool3d(x.detach(), 2).grad_fn is None


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_2d_pool_matches_float32(dtype):
    # F.adaptive_max_pool2d pools half inputs in float32 (the Rust kernel's half path
    # writes past its buffers); the maximum and its index are exact either way
    x = ferric.tensor(np.random.default_rng(8).standard_normal((2, 3, 7, 9)),
                      dtype=getattr(ferric, dtype), requires_grad=True)
    out, idx = F.adaptive_max_pool2d(x, (3, 4), return_indices=True)
    want, want_idx = F.adaptive_max_pool2d(x.detach().float(), (3, 4), return_indices=True)
    assert out.dtype == x.dtype and type(out.grad_fn).__name__ == "AdaptiveMaxPool2DBackward0"
    assert ferric.equal(out.float(), want) and ferric.equal(idx, want_idx)
    out.sum().backward()
    assert x.grad.sum().item() == 2 * 3 * 3 * 4
