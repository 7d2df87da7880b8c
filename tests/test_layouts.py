"""The shared layout helper (`tests/layouts.py`) builds what it says: each kind holds
the array's values (the broadcast kinds: the broadcast of its first slice) in the stride
pattern its name promises, and the autograd form reaches the base."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import KINDS, STANDARD, layout, leaf_and_view, uses, variants

import ferric

A = np.arange(1.0, 25.0).reshape(2, 3, 4)

# kind -> strides of its view of A (elements); every pattern is distinct
STRIDES = {
    "contiguous": (12, 4, 1),
    "transposed": (12, 1, 3),
    "permuted": (1, 2, 6),
    "channels_last": (12, 1, 3),  # (N, C, L): C is innermost
    "stepped": (96, 16, 2),
    "row_stepped": (24, 4, 1),
    "expanded": (0, 4, 1),
    "expanded_last": (3, 1, 0),
}


@pytest.mark.parametrize("kind", list(STRIDES))
def test_each_kind_has_its_strides_and_the_values(kind):
    lay = layout(A, kind)
    t = lay.tensor()
    assert lay.kind == kind and t.stride() == STRIDES[kind]
    assert t.is_contiguous() == (kind == "contiguous")
    np.testing.assert_array_equal(t.numpy(), lay.values())
    if kind == "expanded":
        want = np.broadcast_to(A[:1], A.shape)
    elif kind == "expanded_last":
        want = np.broadcast_to(A[..., :1], A.shape)
    else:
        want = A
    np.testing.assert_array_equal(lay.values(), want)


def test_stepped_starts_at_an_offset_and_its_gaps_hold_junk():
    lay = layout(A, "stepped")
    assert lay.tensor().storage_offset() == 48
    assert lay.base.shape == (4, 6, 8) and (lay.base == 7777).sum() == lay.base.size - A.size


@pytest.mark.parametrize("shape,kind,falls_back_to", [
    ((), "stepped", "contiguous"),
    ((), "expanded", "contiguous"),
    ((5,), "transposed", "stepped"),
    ((5,), "channels_last", "stepped"),
    ((5,), "expanded_last", "expanded"),
    ((3, 4), "channels_last", "transposed"),
    ((3, 4), "permuted", "transposed"),
    ((0,), "0-d", "contiguous"),
])
def test_kinds_needing_more_dims_fall_back(shape, kind, falls_back_to):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    lay = layout(a, kind)
    assert lay.kind == falls_back_to
    np.testing.assert_array_equal(lay.tensor().numpy(), lay.values())


def test_variants_lists_each_distinct_layout_once():
    assert [v[0] for v in variants(np.zeros(5), KINDS)] == [
        "contiguous", "stepped", "expanded", "empty", "0-d"]
    assert [v[0] for v in variants(np.zeros(5), ["row_stepped", "expanded_last"])] == [
        "stepped", "expanded"]
    assert [v[0] for v in variants(np.zeros(()), KINDS)] == ["contiguous"]
    assert [v[0] for v in variants(A)] == list(STANDARD)
    name, t, v = variants(A, ["empty", "0-d"])[1]
    assert t.shape == () and v == 1.0
    assert variants(A, ["empty"])[0][1].shape == (0, 3, 4)


@pytest.mark.parametrize("kind", ["expanded", "expanded_last"])
def test_a_zero_size_array_broadcasts_junk(kind):
    for shape in [(0, 3), (2, 0)]:
        t, v = layout(np.zeros(shape), kind).tensor(), layout(np.zeros(shape), kind).values()
        assert tuple(t.shape) == shape == v.shape


@pytest.mark.parametrize("kind", list(STRIDES))
def test_the_leaf_form_sends_gradients_to_the_base(kind):
    leaf, view = leaf_and_view(A, kind)
    y = view(leaf)
    np.testing.assert_array_equal(y.detach().numpy(), layout(A, kind).values())
    y.sum().backward()
    counts = uses(view, tuple(leaf.shape))
    assert counts.max() == {"expanded": 2, "expanded_last": 4}.get(kind, 1)  # A is (2, 3, 4)
    np.testing.assert_array_equal(leaf.grad.numpy(), counts)
    assert leaf.dtype == ferric.float64 and leaf.is_leaf


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown layout kind 'sliced'"):
        layout(A, "sliced")
