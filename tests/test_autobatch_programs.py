"""``ferric.autobatch`` on whole programs: trees, sequences, data-dependent control flow,
printing inside the region, ops without a rule, in-place writes, and misuse."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferric
import ferric.nn.functional as F
from ferric import nn


def _random_tree(rng, n_leaves):
    nodes = [rng.randrange(20) for _ in range(n_leaves)]
    while len(nodes) > 1:
        i = rng.randrange(len(nodes) - 1)
        nodes[i:i + 2] = [(nodes[i], nodes[i + 1])]
    return nodes[0]


class TreeLSTM(nn.Module):
    """The binary Tree-LSTM of the tree_lstm_batch workload, small."""

    def __init__(self, d=8):
        super().__init__()
        self.emb = nn.Embedding(20, d)
        self.leaf = nn.Linear(d, 3 * d)
        self.comp = nn.Linear(2 * d, 5 * d)
        self.head = nn.Linear(d, 3)
        self.tokens = {t: ferric.tensor([t]) for t in range(20)}

    def encode(self, node):
        if isinstance(node, int):
            i, o, u = self.leaf(self.emb(self.tokens[node])).chunk(3, dim=1)
            c = ferric.sigmoid(i) * ferric.tanh(u)
            return ferric.sigmoid(o) * ferric.tanh(c), c
        (hl, cl), (hr, cr) = self.encode(node[0]), self.encode(node[1])
        i, o, u, fl, fr = self.comp(ferric.cat([hl, hr], dim=1)).chunk(5, dim=1)
        c = ferric.sigmoid(i) * ferric.tanh(u) + ferric.sigmoid(fl) * cl + ferric.sigmoid(fr) * cr
        return ferric.sigmoid(o) * ferric.tanh(c), c

    def loss(self, trees, labels):
        total = None
        for tree, lab in zip(trees, labels, strict=True):
            h, _ = self.encode(tree)
            loss = F.cross_entropy(self.head(h), lab)
            total = loss if total is None else total + loss
        return total / len(trees)


def _grads(model):
    return [None if p.grad is None else p.grad.clone() for p in model.parameters()]


def _run_both(model, step):
    """``step()`` eagerly and inside a region: results, parameter gradients, stats."""
    model.zero_grad()
    eager = step()
    eager.backward()
    ge = _grads(model)
    model.zero_grad()
    with ferric.autobatch() as ab:
        batched = step()
        batched.backward()
    gb = _grads(model)
    return eager, batched, ge, gb, ab


def _close(a, b, rtol):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [ferric.float32, ferric.float64])
def test_tree_lstm_values_and_gradients(dtype):
    ferric.manual_seed(0)
    model = TreeLSTM().to(dtype)
    rng = random.Random(3)
    trees = [_random_tree(rng, rng.randint(2, 12)) for _ in range(8)]
    labels = [ferric.tensor([rng.randrange(3)]) for _ in trees]
    eager, batched, ge, gb, ab = _run_both(model, lambda: model.loss(trees, labels))
    rtol = 1e-5 if dtype == ferric.float32 else 1e-12
    _close(eager.item(), batched.item(), rtol)
    for a, b in zip(ge, gb, strict=True):
        _close(a.numpy(), b.numpy(), rtol)
    stats = ab.stats()
    # thousands of per-node ops ran as far fewer groups; one group for all leaves' Linear
    assert stats["ops"] > 8 * stats["groups"]
    assert "linear x" in ab.plan()


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=5), st.integers(0, 10_000))
def test_tree_lstm_property(sizes, seed):
    """Any forest: the region gives the eager loss and gradients."""
    ferric.manual_seed(seed)
    model = TreeLSTM(d=4).double()
    rng = random.Random(seed)
    trees = [_random_tree(rng, n) for n in sizes]
    labels = [ferric.tensor([rng.randrange(3)]) for _ in trees]
    eager, batched, ge, gb, _ = _run_both(model, lambda: model.loss(trees, labels))
    _close(eager.item(), batched.item(), 1e-12)
    for a, b in zip(ge, gb, strict=True):
        _close(a if a is None else a.numpy(), b if b is None else b.numpy(), 1e-12)


def test_sequences_of_different_lengths_with_lstm_cells():
    ferric.manual_seed(1)
    emb, cell, out = nn.Embedding(30, 6), nn.LSTMCell(6, 5), nn.Linear(5, 4)
    model = nn.ModuleList([emb, cell, out])
    rng = random.Random(2)
    sents = [ferric.tensor([rng.randrange(30) for _ in range(rng.randint(2, 9))])
             for _ in range(7)]
    tags = [ferric.tensor([rng.randrange(4) for _ in range(len(s))]) for s in sents]

    def step():
        total = 0.0
        for s, t in zip(sents, tags, strict=True):
            h = c = None
            logits = []
            for x in emb(s).unbind(0):
                h, c = cell(x) if h is None else cell(x, (h, c))
                logits.append(out(h))
            total = total + F.cross_entropy(ferric.stack(logits), t)
        return total

    eager, batched, ge, gb, ab = _run_both(model, step)
    _close(eager.item(), batched.item(), 1e-5)
    for a, b in zip(ge, gb, strict=True):
        _close(a.numpy(), b.numpy(), 1e-5)
    assert ab.stats()["per_op"]["LSTMCell"] <= 9     # one group per time step


def test_data_dependent_control_flow_forces_just_in_time():
    ferric.manual_seed(2)
    lin = nn.Linear(4, 4).double()
    xs = [ferric.randn(1, 4, dtype=ferric.float64) for _ in range(6)]

    def step():
        outs = []
        for x in xs:
            h = ferric.tanh(lin(x))
            steps = 0
            while h.sum().item() > -0.5 and steps < 3:    # reads a value: evaluates
                h = ferric.tanh(lin(h)) - 0.3
                steps += 1
            outs.append(h * steps)
        return ferric.cat(outs).sum()

    eager, batched, ge, gb, ab = _run_both(lin, step)
    _close(eager.item(), batched.item(), 1e-12)
    for a, b in zip(ge, gb, strict=True):
        _close(a.numpy(), b.numpy(), 1e-12)
    assert ab.stats()["evaluations"] > 1


def test_print_and_values_inside_the_region(capsys):
    lin = nn.Linear(3, 2)
    x = ferric.randn(1, 3)
    expected = repr(ferric.tanh(lin(x)).detach())
    with ferric.autobatch():
        y = ferric.tanh(lin(x))
        assert y.shape == (1, 2) and y.dtype == ferric.float32 and y.dim() == 2
        assert type(y) is not ferric.Tensor             # still pending: shape came free
        print(y.detach())
        assert type(y) is ferric.Tensor                 # printing evaluated it
    assert capsys.readouterr().out.strip() == expected


def test_ops_without_a_rule_run_on_evaluated_values():
    xs = [ferric.randn(3, 4) for _ in range(3)]
    with ferric.autobatch():
        ys = [ferric.cumsum(ferric.sigmoid(x), 1).flip(0) for x in xs]
        zs = [ferric.sort(ferric.tanh(x), dim=1).values for x in xs]
    for x, y, z in zip(xs, ys, zs, strict=True):
        assert ferric.equal(y, ferric.cumsum(ferric.sigmoid(x), 1).flip(0))
        assert ferric.equal(z, ferric.sort(ferric.tanh(x), dim=1).values)


def test_results_are_plain_tensors_after_the_region():
    lin = nn.Linear(3, 2)
    with ferric.autobatch():
        y = lin(ferric.randn(1, 3))
    assert type(y) is ferric.Tensor and y.requires_grad and y.grad_fn is not None
    y.sum().backward()
    assert lin.weight.grad is not None


def test_in_place_write_to_a_read_tensor_evaluates_first():
    w = ferric.ones(3)
    x = ferric.full((3,), 2.0)
    with ferric.autobatch():
        y = ferric.sigmoid(x) * w           # pending, reads w
        w.mul_(10.0)                         # evaluates y with the old w first
        z = ferric.sigmoid(x) * w
    assert ferric.allclose(y, ferric.sigmoid(x))
    assert ferric.allclose(z, ferric.sigmoid(x) * 10.0)


def test_invalid_op_raises_the_eager_error_at_the_call():
    x = ferric.randn(2, 3)
    with ferric.autobatch():
        y = ferric.tanh(x)
        with pytest.raises(RuntimeError, match="size of tensor a"):
            y + ferric.randn(4)     # does not broadcast: the eager op's own error
        with pytest.raises(IndexError):
            y[5]


def test_regions_do_not_nest():
    with ferric.autobatch():
        with pytest.raises(RuntimeError, match="do not nest"):
            with ferric.autobatch():
                pass


def test_pending_tensor_on_another_thread_raises():
    x = ferric.randn(2)
    errors = []
    with ferric.autobatch():
        y = ferric.tanh(x)

        def use():
            try:
                y + 1.0
            except RuntimeError as e:
                errors.append(str(e))

        t = threading.Thread(target=use)
        t.start()
        t.join()
    assert errors and "thread" in errors[0]


def test_exception_inside_the_region_still_evaluates_and_restores():
    x = ferric.randn(2)
    with pytest.raises(ValueError):
        with ferric.autobatch():
            y = ferric.tanh(x)
            raise ValueError("user error")
    assert type(y) is ferric.Tensor and ferric.allclose(y, ferric.tanh(x))
    # the functions are the originals again
    assert ferric.tanh(x).grad_fn is None and type(ferric.tanh(x)) is ferric.Tensor


def test_no_grad_inside_the_region():
    lin = nn.Linear(3, 2)
    with ferric.autobatch():
        with ferric.no_grad():
            a = lin(ferric.randn(1, 3))
        b = lin(ferric.randn(1, 3))
    assert not a.requires_grad and b.requires_grad


def test_optimizer_step_evaluates_first():
    lin = nn.Linear(3, 3)
    opt = ferric.optim.SGD(lin.parameters(), lr=0.5)
    x = ferric.randn(1, 3)
    lin(x).sum().backward()
    before = ferric.tanh(lin(x)).detach()
    with ferric.autobatch():
        y = ferric.tanh(lin(x))     # pending: reads the weight
        opt.step()                  # writes the weight (a fused Rust step)
        z = ferric.tanh(lin(x))
    assert ferric.allclose(y, before)
    assert not ferric.allclose(z, before)


def test_functions_without_a_rule_run_eagerly_inside():
    """A Python-level function with no rule (MSE loss, layer_norm, a composite) runs
    with the region off: its own inner ops never see a pending tensor."""
    lin = nn.Linear(4, 4)
    xs = [ferric.randn(2, 4) for _ in range(3)]
    y = ferric.randn(2, 4)
    eager = [(nn.MSELoss()(lin(x), y).item(), F.layer_norm(lin(x), (4,)),
              ferric.addcmul(lin(x), x, x, value=0.5), nn.Dropout(0.0)(lin(x))) for x in xs]
    with ferric.autobatch():
        got = [(nn.MSELoss()(lin(x), y).item(), F.layer_norm(lin(x), (4,)),
                ferric.addcmul(lin(x), x, x, value=0.5), nn.Dropout(0.0)(lin(x)))
               for x in xs]
    for e, b in zip(eager, got, strict=True):
        assert b[0] == pytest.approx(e[0], rel=1e-6)
        for u, v in zip(e[1:], b[1:], strict=True):
            assert type(v) is ferric.Tensor and ferric.allclose(u, v, atol=1e-6)


def test_pending_values_assigned_to_grad_and_data_are_evaluated():
    p = nn.Parameter(ferric.zeros(3))
    x = ferric.arange(3.0)
    with ferric.autobatch():
        p.grad = ferric.tanh(x)
        q = ferric.zeros(3)
        q.data = ferric.sigmoid(x)
    assert ferric.allclose(p.grad, ferric.tanh(x))
    assert ferric.allclose(q, ferric.sigmoid(x))


def test_linear_with_a_bias_it_cannot_batch_keeps_the_eager_error():
    lin_w = ferric.randn(5, 3)
    x = ferric.randn(2, 3)
    with ferric.autobatch():
        with pytest.raises(RuntimeError):
            F.linear(x, lin_w, ferric.randn(7))
        with pytest.raises(RuntimeError, match="same dtype"):
            F.linear(x, lin_w, ferric.randn(5, dtype=ferric.float64))
        y = F.linear(x, lin_w, ferric.randn(1, 5))    # broadcast bias: the eager path
    assert y.shape == (2, 5) and type(y) is ferric.Tensor


def test_a_region_that_never_reads_evaluates_on_its_own(monkeypatch):
    from ferric._autobatch import _graph

    monkeypatch.setattr(_graph, "MAX_PENDING", 50)
    x = ferric.randn(3)
    with ferric.autobatch() as ab:
        ys = [ferric.tanh(x * float(i)) for i in range(60)]
        assert ab.stats()["evaluations"] >= 2      # every 50 pending ops: evaluated
    assert all(ferric.allclose(y, ferric.tanh(x * float(i))) for i, y in enumerate(ys))


def test_a_method_fetched_before_the_region_raises_on_a_pending_tensor():
    sigmoid = ferric.sigmoid           # Tensor.sigmoid itself: the region cannot route it
    x = ferric.randn(3)
    with ferric.autobatch():
        y = ferric.tanh(x)
        with pytest.raises(RuntimeError, match="pending"):
            sigmoid(y)
        z = ferric.sigmoid(y)          # through the module: fine
    assert ferric.allclose(z, ferric.sigmoid(ferric.tanh(x)))
