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


# ---------------------------------------------------------------- inference tensors
# PyTorch 2.13: tensors allocated under inference_mode are read-only outside it and may
# not be set to require grad there; views of normal tensors made inside stay normal.

INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed"


@pytest.mark.parametrize("write", [
    lambda t: t.add_(1), lambda t: t.fill_(2.0), lambda t: t.zero_(),
    lambda t: t.__setitem__(0, 5.0), lambda t: t.copy_(ferric.ones(2)),
    lambda t: t.mul_(ferric.ones(2)), lambda t: t.uniform_(),
], ids=["add_", "fill_", "zero_", "setitem", "copy_", "mul_", "uniform_"])
def test_inference_tensor_is_read_only_outside_the_mode(write):
    with ferric.inference_mode():
        t = ferric.ones(2)
        assert ferric.is_inference_mode_enabled() and t.is_inference()
        write(t)  # allowed inside
    before = t.clone()
    with pytest.raises(RuntimeError, match=INPLACE):
        write(t)
    np.testing.assert_array_equal(t.numpy(), before.numpy())
    assert not ferric.is_inference_mode_enabled()


def test_inference_tensor_cannot_require_grad_outside_the_mode():
    with ferric.inference_mode():
        t = ferric.ones(2)
        t.requires_grad_(True)  # allowed inside, as in PyTorch
    u = t.detach()
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor "
                                           "outside InferenceMode is not allowed."):
        u.requires_grad_(True)


def test_normal_tensors_stay_normal_in_inference_mode():
    x = ferric.ones(3)
    with ferric.inference_mode():
        v = x[1:]
        assert not v.is_inference()
        with ferric.inference_mode(False):
            assert not ferric.is_inference_mode_enabled()
            assert not ferric.ones(1).is_inference()
    v.add_(1)
    x.mul_(2)
    np.testing.assert_array_equal(x.numpy(), [2.0, 4.0, 4.0])
    assert not x.clone().is_inference()
