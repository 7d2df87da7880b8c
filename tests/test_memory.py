"""Memory stays flat across training loops: process RSS over a 10 000-step MLP loop
written with raw tensor ops, no reference cycles left by graph-carrying steps, and no
leaks from custom autograd Functions, tensor hooks, retain_grad or create_graph.

The graph tape holds Python objects (hooks, Function contexts) behind Rust reference
counts that Python's cycle collector cannot see, so a leak there would never be
reclaimed; these tests prove that everything a step creates is freed by reference
counting alone."""

from __future__ import annotations

import gc
import os
import weakref

import pytest

import ferric

MIB = 1 << 20
STATM = "/proc/self/statm"


def rss_bytes():
    with open(STATM) as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _sum_is_differentiable():
    return ferric.ones(2, requires_grad=True).sum().requires_grad


class MLP:
    """A 32-64-10 MLP as raw tensors: randn init, `x @ w + b`, relu."""

    def __init__(self, seed=0):
        ferric.manual_seed(seed)
        self.w1 = (ferric.randn(32, 64) * 0.1).requires_grad_()
        self.b1 = ferric.zeros(64, requires_grad=True)
        self.w2 = (ferric.randn(64, 10) * 0.1).requires_grad_()
        self.b2 = ferric.zeros(10, requires_grad=True)
        self.params = [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x):
        return (x @ self.w1 + self.b1).relu() @ self.w2 + self.b2


def mse(out, y):
    d = out - y
    sq = d * d
    if _SUM_DIFFERENTIABLE:
        return sq.sum(1).mean()
    # reductions without autograd: reduce with products by ones (matmul is differentiable)
    n, k = out.shape
    return sq @ ferric.ones(k) @ ferric.full((n,), 1.0 / n)


_SUM_DIFFERENTIABLE = _sum_is_differentiable()


def sgd_step(model, lr, zero_grad_in_place=False):
    with ferric.no_grad():
        for p in model.params:
            p -= lr * p.grad
            if zero_grad_in_place:
                p.grad.zero_()
            else:
                p.grad = None


def data(seed=1):
    ferric.manual_seed(seed)
    return ferric.randn(16, 32), ferric.randn(16, 10)


@pytest.mark.skipif(not os.path.exists(STATM), reason="needs /proc/self/statm (Linux)")
def test_training_loop_rss_is_flat_over_10000_steps():
    model = MLP()
    x, y = data()
    first = None
    for step in range(10_000):
        loss = mse(model(x), y)
        loss.backward()
        if first is None:
            first = loss.item()
        sgd_step(model, 0.01, zero_grad_in_place=step % 2 == 1)
        if step == 500:
            gc.collect()
            warm = rss_bytes()
    gc.collect()
    growth = rss_bytes() - warm
    assert loss.item() < first  # it trained
    assert growth < 5 * MIB, f"RSS grew by {growth / MIB:.2f} MiB after warm-up"


def _ferric_tensors():
    return sum(1 for o in gc.get_objects() if isinstance(o, ferric.Tensor))


def test_graph_carrying_steps_leave_no_reference_cycles():
    model = MLP()
    x, y = data()

    def step():
        # with the cycle collector off, the output dies by reference counting alone
        h = (x @ model.w1 + model.b1).relu()
        out = h @ model.w2 + model.b2
        mse(out, y).backward()
        sgd_step(model, 0.01)
        return [weakref.ref(out)]

    _leak_check(step, iterations=300)


class Scale(ferric.autograd.Function):
    contexts: list = []

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        ctx.note = "kept on the context"
        Scale.contexts.append(weakref.ref(ctx))
        return x @ w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g @ w.t(), x.t() @ g


def _leak_check(step, iterations=1000):
    """Runs `step` (returning weakrefs to what it created) with the cycle collector off
    and checks that everything died and no Python objects piled up."""
    for _ in range(10):
        step()
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        before = len(gc.get_objects())
        tensors = _ferric_tensors()
        alive = 0
        for _ in range(iterations):
            alive += sum(r() is not None for r in step())
        assert alive == 0, f"{alive} objects outlived their step"
        assert _ferric_tensors() <= tensors
        assert len(gc.get_objects()) <= before + 50
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_custom_function_contexts_do_not_leak():
    w = ferric.randn(4, 3, requires_grad=True)
    x = ferric.randn(2, 4)

    def step():
        Scale.contexts.clear()
        out = Scale.apply(x, w)
        loss = mse(out, ferric.zeros(2, 3))
        refs = [weakref.ref(out), weakref.ref(loss)]
        loss.backward()
        w.grad = None
        return refs + list(Scale.contexts)

    _leak_check(step)
    # a context whose graph was never run is freed with its outputs too
    Scale.contexts.clear()
    out = Scale.apply(x, w)
    del out
    assert all(r() is None for r in Scale.contexts)


def test_hooks_and_retain_grad_do_not_leak():
    w = ferric.randn(4, 3, requires_grad=True)
    x = ferric.randn(2, 4)
    scale = ferric.full((4, 3), 0.5)
    calls = [0]

    def count(g):
        calls[0] += 1
        return g * 1.0

    def step():
        h = x @ w
        h.retain_grad()
        # per-step hooks on an intermediate (dies with it) and on a leaf (removed)
        h.register_hook(count)
        handle = w.register_hook(lambda g: g * scale)
        with w.register_hook(lambda g: None):
            loss = mse(h.relu(), ferric.zeros(2, 3))
            loss.backward()
        handle.remove()
        assert h.grad is not None
        refs = [weakref.ref(h), weakref.ref(loss), weakref.ref(h.grad)]
        w.grad = None
        return refs

    _leak_check(step, iterations=1000)
    assert calls[0] >= 1000


def test_leaf_hook_referencing_its_own_tensor_is_collected():
    def make():
        v = ferric.randn(3, requires_grad=True)
        v.register_hook(lambda g: g if v is not None else None)
        return weakref.ref(v)

    r = make()
    gc.collect()
    assert r() is None


@pytest.mark.parametrize("where", ["leaf", "post-accumulate"])
def test_hook_closure_capturing_its_module_is_collected(where):
    # the issue's case: 1,000 models whose tensors' hooks capture the model stayed alive
    def make():
        model = ferric.nn.Linear(3, 2)
        x = model(ferric.randn(4, 3))
        x.sum().backward()
        if where == "leaf":
            model.weight.register_hook(lambda g: g if model.training else g)
        else:
            model.weight.register_post_accumulate_grad_hook(lambda p: model.zero_grad())
        return weakref.ref(model)

    refs = [make() for _ in range(50)]
    gc.collect()
    assert all(r() is None for r in refs)


def test_removed_hook_releases_its_callable():
    v = ferric.randn(3, requires_grad=True)

    def hook(g):
        return g

    r = weakref.ref(hook)
    h = v.register_hook(hook)
    del hook
    assert r() is not None
    h.remove()
    assert r() is None


def test_create_graph_does_not_leak():
    w = ferric.randn(4, 3, requires_grad=True)
    x = ferric.randn(2, 4)

    def step():
        loss = mse(x @ w, ferric.zeros(2, 3))
        (g,) = ferric.autograd.grad(loss, w, create_graph=True)
        penalty = mse(g, ferric.zeros(4, 3))
        penalty.backward()
        refs = [weakref.ref(loss), weakref.ref(g), weakref.ref(penalty)]
        # backward(create_graph=True) makes .grad carry a graph back to the parameter:
        # PyTorch's documented parameter <-> gradient cycle, broken by resetting .grad
        loss2 = mse(x @ w, ferric.zeros(2, 3))
        loss2.backward(create_graph=True)
        refs += [weakref.ref(loss2), weakref.ref(w.grad)]
        w.grad = None
        return refs

    _leak_check(step, iterations=1000)
