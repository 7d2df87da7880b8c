"""Views whose base is written in place after they were taken: their gradients see the
write (PyTorch re-derives such a view's grad_fn from the base's current history), and a
leaf that stops requiring grad mid-graph receives nothing.

Expected gradients were recorded from PyTorch 2.13.0 running the same code.
"""

from __future__ import annotations

import numpy as np
import pytest

import ferric


def base_scaled_after_view(F):
    a = F.ones(3, requires_grad=True)
    x = a * 1
    v = x[:2]
    x.mul_(2)
    v.sum().backward()
    return a.grad


def sibling_view_written(F):
    a = F.arange(4.0, requires_grad=True)
    x = a * 1
    v = x[1:3]
    w = x[2:]
    w.mul_(3)
    (v * v).sum().backward()
    return a.grad


def transposed_view_then_two_writes(F):
    a = F.arange(6.0, requires_grad=True)
    x = (a * 1).view(2, 3)
    v = x.t()
    x.add_(x.detach())
    x.exp_()
    v.sum().backward()
    return a.grad


def stepped_view_then_pow(F):
    a = F.ones(4, requires_grad=True)
    x = a * 2
    v = x[::2]
    x.pow_(2)
    v.sum().backward()
    return a.grad


def leaf_stops_requiring_grad(F):
    a = F.ones(3, requires_grad=True)
    y = (a * 2).sum()
    a.requires_grad_(False)
    y.backward()
    return a.grad


ROWS = [
    (base_scaled_after_view, [2.0, 2.0, 0.0]),
    (sibling_view_written, [0.0, 2.0, 36.0, 0.0]),
    (transposed_view_then_two_writes, list(np.exp(2 * np.arange(6.0)))),
    (stepped_view_then_pow, [8.0, 0.0, 8.0, 0.0]),
    (leaf_stops_requiring_grad, None),
]


@pytest.mark.parametrize("case,expected", ROWS, ids=[r[0].__name__ for r in ROWS])
def test_gradient_matches_pytorch(case, expected):
    got = case(ferric)
    if expected is None:
        assert got is None
    else:
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_regenerated_view_reports_pytorchs_node_name():
    a = ferric.ones(4, requires_grad=True)
    x = a * 2
    v = x[::2]
    assert v.grad_fn.name() == "SliceBackward0"
    x.pow_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"


def test_unchanged_base_keeps_the_views_own_node():
    a = ferric.ones(4, requires_grad=True)
    v = (a * 2)[1:]
    assert v.grad_fn.name() == "SliceBackward0"
    v.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 2.0, 2.0, 2.0])
