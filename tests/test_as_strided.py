"""``as_strided``: views of any geometry inside the storage, values against PyTorch 2.13
(``fixtures/as_strided``) and NumPy's ``as_strided``, errors with PyTorch's types and
messages, and gradients (``AsStridedBackward0``) by gradcheck, overlapping views
included."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import ferric

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "as_strided")
sys.path.insert(0, HERE)

from as_strided_cases import CASES  # noqa: E402

with open(os.path.join(HERE, "torch_as_strided.json")) as _f:
    TORCH = json.load(_f)["cases"]


def _base(shape, how):
    t = ferric.arange(float(np.prod(shape, dtype=int)), dtype=ferric.float64)
    if how == "transposed":
        return t.reshape(shape).t()
    if how == "offset":
        return t[2:]
    return t.reshape(shape)


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_as_strided_as_pytorch(case_id):
    shape, how, size, stride, offset = CASES[case_id]
    want = TORCH[case_id]
    x = _base(shape, how)
    if "error" in want:
        with pytest.raises(RuntimeError) as e:
            x.as_strided(size, stride, offset)
        assert type(e.value).__name__ == want["error"]
        assert want["message"] in str(e.value)
        return
    y = x.as_strided(size, stride, offset)
    assert list(y.shape) == want["shape"]
    assert y.tolist() == want["values"]
    assert y.stride() == tuple(stride)
    # a view: writes show through the base
    if y.numel():
        y.fill_(-7.0)
        assert bool((x == -7.0).any())


@pytest.mark.parametrize("size, stride, offset", [
    ((4, 3), (2, 1), 0), ((3, 4), (1, 1), 1), ((2, 2, 2), (4, 1, 2), 0), ((5,), (2,), 1),
])
def test_as_strided_matches_numpy(size, stride, offset):
    a = np.arange(12.0)
    want = np.lib.stride_tricks.as_strided(a[offset:], size, [s * 8 for s in stride])
    got = ferric.from_numpy(a).as_strided(size, stride, offset)
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(ferric.as_strided(ferric.from_numpy(a), size, stride,
                                                    offset).numpy(), want)


@pytest.mark.parametrize("how, size, stride, offset", [
    ("contiguous", (4, 3), (2, 1), None),     # overlapping windows: gradients add up
    ("contiguous", (3, 4), (1, 1), 0),
    ("contiguous", (2, 3), (0, 1), 0),        # broadcast
    ("contiguous", (2, 2), (3, 1), 5),        # part of the input gets no gradient
    ("transposed", (2, 2), (1, 4), 0),
    ("offset", (2, 3), (3, 1), None),
    ("contiguous", (0, 3), (1, 1), None),
])
def test_as_strided_gradcheck(how, size, stride, offset):
    shape = (3, 4) if how == "transposed" else (12,)
    x = _base(shape, how).detach().requires_grad_()
    assert ferric.autograd.gradcheck(lambda t: t.as_strided(size, stride, offset), (x,))


def test_as_strided_gradient_sums_overlaps():
    x = ferric.zeros(6, dtype=ferric.float64, requires_grad=True)
    y = x.as_strided((3, 4), (1, 1))
    assert type(y.grad_fn).__name__ == "AsStridedBackward0"
    y.sum().backward()
    # element i is read by the windows that cover it
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]
