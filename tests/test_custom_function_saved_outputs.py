"""A custom ``autograd.Function`` that saves its own outputs (the double-backward tutorial's
``Exp`` and ``Sinh`` patterns): the saved outputs read back in ``backward`` are the node's
results, so a ``create_graph=True`` backward differentiates through them again, as in
PyTorch. The reference values are the analytic derivatives."""

from __future__ import annotations

import math

import pytest

import ferric
from ferric.autograd import gradcheck, gradgradcheck


class Exp(ferric.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = x.exp()
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return r * g


class SinhWithIntermediates(ferric.autograd.Function):
    """Returns (sinh, exp(x), exp(-x)), saving the last two outputs."""

    @staticmethod
    def forward(ctx, x):
        ex, emx = x.exp(), (-x).exp()
        out = (ex - emx) / 2
        ctx.save_for_backward(ex, emx)
        return out, ex, emx

    @staticmethod
    def backward(ctx, g, gex, gemx):
        ex, emx = ctx.saved_tensors
        # the intermediates are outputs too: their gradients (nonzero in a double
        # backward, which differentiates through them) must be accumulated
        return g * (ex + emx) / 2 + gex * ex - gemx * emx


def sinh(x):
    out, _, _ = SinhWithIntermediates.apply(x)
    return out


@pytest.mark.parametrize("x0", [-1.5, 0.0, 0.7, 2.0])
def test_double_backward_through_a_saved_output(x0):
    x = ferric.tensor(x0, dtype=ferric.float64, requires_grad=True)
    y = Exp.apply(x)
    (g,) = ferric.autograd.grad(y, x, create_graph=True)
    assert g.grad_fn is not None and g.grad_fn.name() == "MulBackward0"
    (gg,) = ferric.autograd.grad(g, x)
    assert gg.item() == pytest.approx(math.exp(x0), rel=1e-12)


def test_double_backward_through_saved_extra_outputs():
    x = ferric.tensor([-1.0, 0.25, 1.5], dtype=ferric.float64, requires_grad=True)
    (g,) = ferric.autograd.grad(sinh(x).sum(), x, create_graph=True)
    assert g.tolist() == pytest.approx([math.cosh(v) for v in (-1.0, 0.25, 1.5)], rel=1e-12)
    (gg,) = ferric.autograd.grad(g.sum(), x)
    assert gg.tolist() == pytest.approx([math.sinh(v) for v in (-1.0, 0.25, 1.5)], rel=1e-12)


@pytest.mark.parametrize("fn", [Exp.apply, sinh], ids=["exp", "sinh"])
def test_gradcheck_and_gradgradcheck(fn):
    x = ferric.tensor([[0.3, -0.8], [1.1, 0.05]], dtype=ferric.float64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_saved_output_modified_in_place_is_caught():
    x = ferric.tensor([0.5, 1.0], dtype=ferric.float64, requires_grad=True)
    y = Exp.apply(x)
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_plain_backward_and_no_graph_mode_unchanged():
    x = ferric.tensor([0.5, 1.0], dtype=ferric.float64, requires_grad=True)
    Exp.apply(x).sum().backward()
    assert x.grad.tolist() == pytest.approx([math.exp(0.5), math.exp(1.0)], rel=1e-12)
    with ferric.no_grad():
        y = Exp.apply(x)
    assert y.grad_fn is None and not y.requires_grad
