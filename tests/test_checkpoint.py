"""``ferric.utils.checkpoint``: checkpointed segments give the same outputs and
gradients as plain ones (inputs and parameters, dropout included: the RNG state of the
forward is restored for the recomputation), the forward keeps no graph inside the
segment, and the warnings/errors of PyTorch 2.13 for ``use_reentrant``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ferric
from ferric import nn
from ferric.autograd import gradcheck
from ferric.utils.checkpoint import checkpoint, checkpoint_sequential, detach_variable


def _model():
    ferric.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 8),
                         nn.ReLU(), nn.Linear(8, 2)).double()


def _grads(model, x, run):
    model.zero_grad()
    x = x.detach().requires_grad_()
    ferric.manual_seed(5)
    out = run(model, x)
    (out ** 2).sum().backward()
    return out.detach(), x.grad, [p.grad.clone() for p in model.parameters()]


RUNS = {
    "plain": lambda m, x: m(x),
    "checkpoint reentrant": lambda m, x: checkpoint(m, x, use_reentrant=True),
    "checkpoint non-reentrant": lambda m, x: checkpoint(m, x, use_reentrant=False),
    "sequential 2": lambda m, x: checkpoint_sequential(m, 2, x, use_reentrant=True),
    "sequential 3 list": lambda m, x: checkpoint_sequential(list(m.children()), 3, x,
                                                            use_reentrant=False),
}


@pytest.mark.parametrize("kind", [k for k in RUNS if k != "plain"])
def test_same_outputs_and_gradients_as_without_checkpointing(kind):
    model = _model()
    x = ferric.randn(5, 4, dtype=ferric.float64)
    want = _grads(model, x, RUNS["plain"])
    got = _grads(model, x, RUNS[kind])
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-12)
    for g, w in zip(got[2], want[2], strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-15)


def test_without_rng_preservation_dropout_masks_differ():
    model = _model()
    x = ferric.randn(64, 4, dtype=ferric.float64)
    want = _grads(model, x, RUNS["plain"])
    got = _grads(model, x, lambda m, t: checkpoint(m, t, use_reentrant=True,
                                                   preserve_rng_state=False))
    assert not np.allclose(got[1].numpy(), want[1].numpy())


def test_forward_keeps_no_graph_inside_the_segment():
    x = ferric.tensor([1.0, 2.0], dtype=ferric.float64, requires_grad=True)
    calls = []

    def seg(t):
        calls.append(ferric.is_grad_enabled())
        return (t * t).sin()

    y = checkpoint(seg, x, use_reentrant=False)
    assert calls == [False]
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    y.sum().backward()
    assert calls == [False, True]
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() * np.cos([1.0, 4.0]))


def test_gradcheck_through_checkpoint():
    w = ferric.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=ferric.float64, requires_grad=True)
    b = ferric.tensor([0.1, 0.2], dtype=ferric.float64, requires_grad=True)
    assert gradcheck(lambda w, b: checkpoint(lambda a, c: (a @ a + c).tanh(), w, b,
                                             use_reentrant=False), (w, b))


def test_parameters_get_gradients_when_no_input_requires_grad():
    lin = nn.Linear(3, 2).double()
    out = checkpoint(lin, ferric.ones(4, 3, dtype=ferric.float64), use_reentrant=False)
    out.sum().backward()
    assert lin.weight.grad is not None
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.full((2, 3), 4.0))


def test_keyword_arguments_and_tuple_outputs():
    x = ferric.tensor([1.0, 2.0], dtype=ferric.float64, requires_grad=True)
    a, b = checkpoint(lambda t, scale=1.0: (t * scale, t.exp()), x, scale=3.0,
                      use_reentrant=False)
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0 + np.exp([1.0, 2.0]))


def test_use_reentrant_warnings_and_errors_as_pytorch():
    x = ferric.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        checkpoint(lambda t: t * 2, x)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        checkpoint_sequential([nn.Identity()], 1, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda t, scale: t * scale, x, scale=2, use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential([nn.Identity()], 1, x, use_reentrant=True, foo=1)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(lambda t: t * 2, ferric.ones(2), use_reentrant=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 2, x, use_reentrant=False)


def test_under_no_grad_it_just_runs():
    with ferric.no_grad():
        y = checkpoint(lambda t: t * 2, ferric.ones(2, requires_grad=True), use_reentrant=False)
    assert y.grad_fn is None


def test_detach_variable():
    x = ferric.ones(2, requires_grad=True) * 2
    y, n = detach_variable((x, 3))
    assert y.grad_fn is None and y.requires_grad and n == 3
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
        detach_variable([x])
