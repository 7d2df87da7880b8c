"""``out=`` on the tensor factories: the values land in the given tensor (converted to its
dtype, resized when the shape differs, its storage kept when large enough) and that same
tensor is returned. Behaviour recorded from PyTorch 2.13.0 running the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import ferric as F

ROWS = [
    # (id, factory call given `out`, out before, expected values, expected dtype)
    ("zeros into int64", lambda o: F.zeros(2, out=o), lambda: F.empty(2, dtype=F.int64),
     [0, 0], F.int64),
    ("zeros shrinks a larger out", lambda o: F.zeros(2, out=o), lambda: F.ones(3),
     [0.0, 0.0], F.float32),
    ("arange grows an empty out", lambda o: F.arange(4, out=o), lambda: F.empty(0),
     [0.0, 1.0, 2.0, 3.0], F.float32),
    ("arange of floats into int64", lambda o: F.arange(3.0, out=o),
     lambda: F.empty(3, dtype=F.int64), [0, 1, 2], F.int64),
    ("ones into a transposed out", lambda o: F.ones(2, 2, out=o), lambda: F.zeros(2, 2).t(),
     [[1.0, 1.0], [1.0, 1.0]], F.float32),
    ("full into a stepped out", lambda o: F.full((2,), 3.0, out=o), lambda: F.zeros(4)[::2],
     [3.0, 3.0], F.float32),
    ("linspace into float64", lambda o: F.linspace(0, 1, 3, out=o),
     lambda: F.empty(3, dtype=F.float64), [0.0, 0.5, 1.0], F.float64),
    ("eye", lambda o: F.eye(2, out=o), lambda: F.empty(2, 2), [[1.0, 0.0], [0.0, 1.0]],
     F.float32),
    ("empty resizes only", lambda o: F.empty(2, 3, out=o).shape, lambda: F.empty(6),
     None, None),
]


@pytest.mark.parametrize("call,make_out,values,dtype", [r[1:] for r in ROWS],
                         ids=[r[0] for r in ROWS])
def test_factory_writes_into_out(call, make_out, values, dtype):
    o = make_out()
    strides = o.stride()
    r = call(o)
    if values is None:
        assert tuple(r) == (2, 3) and tuple(o.shape) == (2, 3)
        return
    assert r is o
    assert o.dtype == dtype
    np.testing.assert_array_equal(o.numpy(), values)
    if tuple(o.shape) == tuple(np.shape(values)):
        assert o.stride() == strides or o.numel() != len(np.ravel(values))


def test_out_keeps_its_storage_when_it_fits():
    # PyTorch resizes in place: a view taken before sees the new values
    x = F.ones(4)
    v = x[:2]
    F.zeros(3, out=x)
    assert x.shape == (3,)
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])


def test_out_under_no_grad_may_require_grad():
    o = F.ones(2, requires_grad=True)
    with F.no_grad():
        r = F.zeros(2, out=o)
    assert r is o
    np.testing.assert_array_equal(o.detach().numpy(), [0.0, 0.0])
