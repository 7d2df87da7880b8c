"""Operand gradients of matrix products come in PyTorch's layout: an operand stored
column-major (``weight.t()``) gets a column-major gradient, computed as ``(g^T @ a)^T``
(fixture recorded from PyTorch 2.13 by ``fixtures/mm_grad_layout/generate.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import ferric

HERE = Path(__file__).parent / "fixtures" / "mm_grad_layout"
sys.path.insert(0, str(HERE))
from mm_grad_layout_cases import CASES  # noqa: E402

RECORDED = json.loads((HERE / "mm_grad_layout.json").read_text())["cases"]


def test_every_case_is_recorded():
    assert set(RECORDED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_layout_and_values(name):
    ferric.manual_seed(0)
    out, operands, grad = CASES[name](ferric)
    grads = ferric.autograd.grad(out, operands, grad)
    assert [list(g.stride()) for g in grads] == RECORDED[name]["strides"]
    assert [list(g.shape) for g in grads] == RECORDED[name]["shapes"]
    # the values are the usual ones whatever the layout: compare with float64 sums
    g64 = grad.numpy().astype(np.float64)
    ops64 = [o.detach().numpy().astype(np.float64) for o in operands]
    if name == "linear":
        x, w, _ = ops64
        want = [g64 @ w, g64.T @ x, g64.sum(0)]
    else:
        a, b = ops64
        rows_a, rows_g = a.reshape(-1, a.shape[-1]), g64.reshape(-1, g64.shape[-1])
        want = [g64 @ b.T, rows_a.T @ rows_g]
    for got, ref in zip(grads, want, strict=True):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5, atol=1e-5)
