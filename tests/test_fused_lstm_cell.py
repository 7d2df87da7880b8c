"""The fused LSTM cell (`_core._thnn_fused_lstm_cell`, node ThnnFusedLstmCellBackward0)
that nn.LSTMCell and nn.LSTM run on: values against a NumPy cell, gradients by gradcheck
(also second order, which takes the differentiable backward), layouts, errors."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import laid_out
from nn_helpers import np_of

import ferric
from ferric import nn
from ferric.autograd import gradcheck, gradgradcheck

_core = ferric._core


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_cell(ig, hg, cx, bi, bh):
    a = ig + (0 if bi is None else bi) + hg + (0 if bh is None else bh)
    i, f, g, o = np.split(a, 4, axis=1)
    cy = sigmoid(f) * cx + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(cy), cy


def arrays(b, h, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((b, 4 * h)).astype(dtype),
            rng.standard_normal((b, 4 * h)).astype(dtype),
            rng.standard_normal((b, h)).astype(dtype),
            rng.standard_normal(4 * h).astype(dtype),
            rng.standard_normal(4 * h).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "stepped"])
@pytest.mark.parametrize("biases", [(True, True), (False, True), (False, False)])
@pytest.mark.parametrize("b,h", [(1, 5), (3, 4), (0, 3)])
def test_values_match_numpy(dtype, kind, biases, b, h):
    ig, hg, cx, bi, bh = arrays(b, h, dtype)
    bi = bi if biases[0] else None
    bh = bh if biases[1] else None
    hy, cy = _core._thnn_fused_lstm_cell(
        laid_out(ig, kind)[0], laid_out(hg, kind)[0], laid_out(cx, kind)[0],
        None if bi is None else ferric.tensor(bi), None if bh is None else ferric.tensor(bh))
    want_h, want_c = np_cell(ig, hg, cx, bi, bh)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    assert hy.shape == (b, h) and cy.shape == (b, h)
    assert hy.dtype == cy.dtype == ferric.tensor(ig).dtype
    np.testing.assert_allclose(np_of(hy), want_h, rtol=tol, atol=tol)
    np.testing.assert_allclose(np_of(cy), want_c, rtol=tol, atol=tol)


def test_broadcast_gradients_and_unused_outputs():
    ig, hg, cx, bi, bh = (ferric.tensor(a, requires_grad=True) for a in arrays(2, 3, np.float64))
    hy, cy = _core._thnn_fused_lstm_cell(ig, hg, cx, bi, bh)
    assert type(hy.grad_fn).__name__ == "ThnnFusedLstmCellBackward0" or \
        hy.grad_fn.name() == "ThnnFusedLstmCellBackward0"
    # only hy used (cy's gradient is zero), gradient arriving expanded (stride 0)
    hy.sum().backward()
    ig_n, hg_n, cx_n, bi_n, bh_n = (np_of(t) for t in (ig, hg, cx, bi, bh))
    eps = 1e-6
    fd = np.zeros_like(ig_n)
    for idx in np.ndindex(*ig_n.shape):
        p, m = ig_n.copy(), ig_n.copy()
        p[idx] += eps
        m[idx] -= eps
        fd[idx] = (np_cell(p, hg_n, cx_n, bi_n, bh_n)[0].sum()
                   - np_cell(m, hg_n, cx_n, bi_n, bh_n)[0].sum()) / (2 * eps)
    np.testing.assert_allclose(np_of(ig.grad), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np_of(hg.grad), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np_of(bi.grad), fd.sum(0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np_of(bh.grad), fd.sum(0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("biases", [True, False])
def test_gradcheck_first_and_second_order(biases):
    ig, hg, cx, bi, bh = (ferric.tensor(a, requires_grad=True) for a in arrays(2, 3, np.float64, 1))
    args = (ig, hg, cx, bi, bh) if biases else (ig, hg, cx)

    def fn(*a):
        return _core._thnn_fused_lstm_cell(*a)

    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_lstm_cell_module_uses_the_fused_node_and_matches_numpy():
    ferric.manual_seed(0)
    cell = nn.LSTMCell(4, 3).double()
    x = ferric.randn(2, 4, dtype=ferric.float64)
    h0 = ferric.randn(2, 3, dtype=ferric.float64)
    c0 = ferric.randn(2, 3, dtype=ferric.float64)
    h, c = cell(x, (h0, c0))
    assert h.grad_fn.name() == "ThnnFusedLstmCellBackward0"
    w_ih, w_hh, b_ih, b_hh = (np_of(p) for p in (cell.weight_ih, cell.weight_hh,
                                                  cell.bias_ih, cell.bias_hh))
    want_h, want_c = np_cell(np_of(x) @ w_ih.T, np_of(h0) @ w_hh.T, np_of(c0), b_ih, b_hh)
    np.testing.assert_allclose(np_of(h), want_h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np_of(c), want_c, rtol=1e-12, atol=1e-12)


def test_errors_name_the_op_and_shapes():
    g = ferric.zeros(2, 8)
    c = ferric.zeros(2, 2)
    with pytest.raises(RuntimeError, match=r"_thnn_fused_lstm_cell.*input_gates.*\[2, 6\]"):
        _core._thnn_fused_lstm_cell(ferric.zeros(2, 6), ferric.zeros(2, 6), c)
    with pytest.raises(RuntimeError, match=r"hidden_gates.*\[1, 8\]"):
        _core._thnn_fused_lstm_cell(g, ferric.zeros(1, 8), c)
    with pytest.raises(RuntimeError, match=r"cx.*\[2, 3\]"):
        _core._thnn_fused_lstm_cell(g, g, ferric.zeros(2, 3))
    with pytest.raises(RuntimeError, match=r"input_bias.*\[7\]"):
        _core._thnn_fused_lstm_cell(g, g, c, ferric.zeros(7))
    with pytest.raises(RuntimeError, match=r"dtype"):
        _core._thnn_fused_lstm_cell(g, g.double(), c)
    with pytest.raises((RuntimeError, TypeError)):
        _core._thnn_fused_lstm_cell(g.long(), g.long(), c.long())
    with pytest.raises(TypeError):
        _core._thnn_fused_lstm_cell(g, "x", c)


def test_modified_saved_input_is_detected():
    ig, hg, cx = (ferric.tensor(a, requires_grad=True) for a in arrays(1, 2, np.float64)[:3])
    c = cx * 1.0
    hy, _ = _core._thnn_fused_lstm_cell(ig, hg, c)
    c.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        hy.sum().backward()


def test_expanded_cell_state():
    ig, hg, cx, bi, bh = arrays(3, 4, np.float64, 2)
    row = cx[:1]
    hy, cy = _core._thnn_fused_lstm_cell(ferric.tensor(ig), ferric.tensor(hg),
                                         ferric.tensor(row).expand(3, 4), None, None)
    want_h, want_c = np_cell(ig, hg, np.broadcast_to(row, (3, 4)), None, None)
    np.testing.assert_allclose(np_of(hy), want_h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np_of(cy), want_c, rtol=1e-12, atol=1e-12)
