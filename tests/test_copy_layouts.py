"""Copies out of transposed layouts, and softmax over lines that are not contiguous.

``x.t().contiguous()``, NCHW <-> channels-last conversions and ``.to(dtype)`` of a
permuted tensor copy in square tiles when the source's unit-stride dim is not the
destination's innermost one (both dims at least 16 long); softmax over the last dim of a
transposed tensor gathers 32 lines at a time into a scratch. These tests use sizes that
cross those thresholds and leave ragged tiles, and compare every element with NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferric


def stored_as(shape, order, dtype="float32", step=None, seed=0):
    """A tensor of `shape` whose dims sit in memory in `order` (outermost first),
    optionally taking every other element along dim `step`; and its NumPy twin."""
    base = [shape[o] * (2 if o == step else 1) for o in order]
    a = np.random.default_rng(seed).standard_normal(base).astype(dtype)
    t = ferric.tensor(a).permute(*np.argsort(order).tolist())
    a = a.transpose(np.argsort(order))
    if step is not None:
        idx = [slice(None)] * len(shape)
        idx[step] = slice(None, None, 2)
        t, a = t[tuple(idx)], a[tuple(idx)]
    return t, a


CASES = [
    # (shape, memory order of the dims, stepped dim)
    ((16, 16), (1, 0), None),
    ((37, 50), (1, 0), None),
    ((300, 129), (1, 0), None),
    ((15, 200), (1, 0), None),  # one side below the tile threshold: element path
    ((40, 33), (1, 0), 1),
    ((3, 45, 70), (0, 2, 1), None),
    ((45, 3, 70), (2, 1, 0), None),
    ((2, 20, 5, 33), (0, 2, 3, 1), None),  # channels-last -> row-major
    ((2, 20, 5, 33), (0, 1, 2, 3), None),
    ((4, 17, 6, 19), (2, 3, 0, 1), 0),
    ((0, 40), (1, 0), None),
]


@pytest.mark.parametrize("shape,order,step", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_contiguous_and_conversions_match_numpy(shape, order, step, dtype):
    t, a = stored_as(shape, order, "float32" if dtype == "int64" else dtype, step)
    if dtype == "int64":
        t, a = (t * 100).long(), (a * 100).astype(np.int64)
    got = t.contiguous()
    assert got.is_contiguous() and got.shape == a.shape
    np.testing.assert_array_equal(got.numpy(), np.ascontiguousarray(a))
    np.testing.assert_array_equal(t.clone(memory_format=ferric.contiguous_format).numpy(), a)
    # a conversion copies through the same tiles, with the cast on the way
    np.testing.assert_array_equal(t.to(ferric.float64).contiguous().numpy(), a.astype(np.float64))
    np.testing.assert_array_equal(t.to(ferric.float32).numpy(), a.astype(np.float32))
    if len(shape) == 4:
        cl = t.contiguous(memory_format=ferric.channels_last)
        assert cl.is_contiguous(memory_format=ferric.channels_last)
        np.testing.assert_array_equal(cl.numpy(), a)
        np.testing.assert_array_equal(cl.contiguous().numpy(), a)


def test_copy_into_a_reused_buffer_writes_every_element():
    # a recycled (>= 1 MiB) buffer holds old values: the tiled copy must cover it all
    t, a = stored_as((700, 530), (1, 0))
    for _ in range(3):
        junk = ferric.full((700, 530), 7.0) * 3.0
        del junk
        np.testing.assert_array_equal(t.contiguous().numpy(), np.ascontiguousarray(a))


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(1, 40), min_size=2, max_size=4),
    seed=st.integers(0, 10_000),
)
def test_random_permutations_copy_exactly(shape, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(shape)).tolist()
    step = int(rng.integers(-1, len(shape)))
    t, a = stored_as(tuple(shape), order, step=None if step < 0 else step, seed=seed)
    np.testing.assert_array_equal(t.contiguous().numpy(), np.ascontiguousarray(a))


def np_softmax(a, axis, log=False):
    a = a.astype(np.float64)
    m = a - a.max(axis=axis, keepdims=True)
    ls = m - np.log(np.exp(m).sum(axis=axis, keepdims=True))
    return ls if log else np.exp(ls)


SOFTMAX_CASES = [
    # the last dim of a transposed matrix: 70 lines = 32 + 32 + 6
    ((70, 50), (1, 0), None, 1),
    ((33, 1031), (1, 0), None, 1),
    ((64, 40), (1, 0), 1, 1),
    # lines along dim 1 with neighbours adjacent along dim 0: the output lines are
    # strided (not back to back), so each goes through a line buffer
    ((70, 33, 3), (2, 1, 0), None, 1),
    ((3, 70, 40), (0, 2, 1), None, 2),
    # contiguous rows around the vector and accumulator widths
    ((5, 1), (0, 1), None, 1),
    ((5, 17), (0, 1), None, 1),
    ((5, 65), (0, 1), None, 1),
    ((4, 1031), (0, 1), None, 1),
]


@pytest.mark.parametrize("shape,order,step,dim", SOFTMAX_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_on_gathered_lines_matches_numpy(shape, order, step, dim, dtype, log):
    t, a = stored_as(shape, order, dtype, step)
    t, a = t * 4, a * 4
    fn = ferric.log_softmax if log else ferric.softmax
    got = fn(t, dim)
    assert got.is_contiguous()
    rtol, atol = (2e-6, 1e-6) if dtype == "float32" else (1e-13, 1e-14)
    np.testing.assert_allclose(got.numpy(), np_softmax(a, dim, log), rtol=rtol, atol=atol)
