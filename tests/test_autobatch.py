"""``ferric.autobatch``: every batching rule against the same code run eagerly.

Each case is a per-example function applied to several examples of the same shape (so
the calls group) and of different shapes (so they do not); values and the gradients of
every input and parameter must equal the eager ones. The float64 cases are exact to
rounding; the float32 ones to 1e-5 relative.
"""

from __future__ import annotations

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F
from ferric import nn

RTOL = {ferric.float32: 1e-5, ferric.float64: 1e-12}


def _inputs(shapes, dtype, seed):
    g = np.random.default_rng(seed)
    return [ferric.tensor(g.standard_normal(s), dtype=dtype).requires_grad_() for s in shapes]


def _check(fn, examples, params=(), dtype=ferric.float64, grouped=True):
    """Runs ``fn`` over ``examples`` (tuples of tensors) eagerly and under autobatch;
    compares outputs and gradients. Returns the region's stats."""
    def run(batched):
        for p in params:
            p.grad = None
        xs = [tuple(t.detach().clone().requires_grad_(t.requires_grad) for t in ex)
              for ex in examples]
        # each example's inputs as the results of an op (not leaves that require grad,
        # which a region takes for parameters shared by the examples)
        ins = [tuple(t * 1.0 for t in ex) for ex in xs]
        if batched:
            with ferric.autobatch() as ab:
                outs = [fn(*ex) for ex in ins]
        else:
            ab = None
            outs = [fn(*ex) for ex in ins]
        flat = [o for out in outs for o in (out if isinstance(out, tuple) else (out,))]
        loss = sum((o.double() * (i + 1)).sum() for i, o in enumerate(flat)
                   if o.dtype.is_floating_point)
        if isinstance(loss, ferric.Tensor) and loss.requires_grad:
            loss.backward()
        grads = [t.grad for ex in xs for t in ex if t.requires_grad]
        pgrads = [p.grad for p in params]
        return flat, grads, pgrads, ab

    e_out, e_g, e_pg, _ = run(False)
    b_out, b_g, b_pg, ab = run(True)
    rtol = RTOL.get(dtype, 1e-5)
    for a, b in zip(e_out, b_out, strict=True):
        assert type(b) is ferric.Tensor
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=rtol,
                                   atol=rtol)
    for a, b in zip(e_g + e_pg, b_g + b_pg, strict=True):
        if a is None:
            assert b is None
            continue
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=rtol, atol=rtol)
    stats = ab.stats()
    if grouped:   # the examples' calls ran as groups, not one by one
        assert stats["groups"] >= 1 and stats["ops"] >= 2 * stats["groups"], stats
    return stats


def _same(shape, n=4, dtype=ferric.float64, seed=0, arity=1):
    ts = _inputs([shape] * (n * arity), dtype, seed)
    return [tuple(ts[i * arity:(i + 1) * arity]) for i in range(n)]


UNARY = ["sigmoid", "tanh", "exp", "relu", "sin", "abs", "neg", "square", "log1p"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("form", ["function", "method", "functional"])
def test_unary(name, form):
    if form == "functional" and not hasattr(F, name):
        pytest.skip(f"F.{name} is not a function of nn.functional")
    fn = {"function": lambda x: getattr(ferric, name)(x.abs() + 0.1 if name == "log1p" else x),
          "method": lambda x: getattr(x * 1.0, name)(),
          "functional": lambda x: getattr(F, name)(x * 1.0)}[form]
    stats = _check(fn, _same((2, 3)))
    assert stats["groups"] <= 3    # one group per op, not per example


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
@pytest.mark.parametrize("other", ["pending", "shared", "scalar", "rscalar", "broadcast"])
def test_binary(op, other):
    w = ferric.tensor(np.random.default_rng(1).standard_normal(3)).requires_grad_()
    import operator
    f = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
         "div": operator.truediv, "pow": operator.pow}[op]

    def fn(x, y):
        x = x.abs() + 0.5 if op == "pow" else x * 1.0
        if other == "pending":
            return f(x, y * 1.0 + (2.0 if op == "div" else 0.0))
        if other == "shared":
            return f(x, w)
        if other == "scalar":
            return f(x, 1.5)
        if other == "rscalar":
            return f(2.5, x + (3.0 if op in ("div", "pow") else 0.0))
        return f(x, (y * 1.0).sum(0, keepdim=True))   # (1, 3) against (2, 3)

    _check(fn, _same((2, 3), arity=2), params=[w])


def test_function_forms_and_alpha():
    def fn(x, y):
        return ferric.add(x * 1.0, y * 1.0, alpha=2.0) - ferric.mul(x, 3.0) + x.sub(y)

    _check(fn, _same((4,), arity=2))


def test_linear_shared_weight_batches():
    lin = nn.Linear(3, 5).double()
    stats = _check(lambda x: F.relu(lin(x)), _same((1, 3), n=6),
                   params=list(lin.parameters()))
    assert stats["per_op"]["linear"] == 1


@pytest.mark.parametrize("shape_a,shape_b,pend",
                         [((2, 3), (3, 4), "a"), ((3,), (3, 4), "a"), ((2, 3), (3, 4), "b"),
                          ((3,), (3, 4), "b"), ((2, 3), (3, 4), "both")])
def test_matmul(shape_a, shape_b, pend):
    g = np.random.default_rng(2)
    shared_a = ferric.tensor(g.standard_normal(shape_a)).requires_grad_()
    shared_b = ferric.tensor(g.standard_normal(shape_b)).requires_grad_()
    if pend == "a":
        examples = [(t,) for t in _inputs([shape_a] * 3, ferric.float64, 3)]
        fn = lambda a: (a * 1.0) @ shared_b  # noqa: E731
    elif pend == "b":
        examples = [(t,) for t in _inputs([shape_b] * 3, ferric.float64, 3)]
        fn = lambda b: ferric.matmul(shared_a, b * 1.0)  # noqa: E731
    else:
        ts = _inputs([shape_a, shape_b] * 3, ferric.float64, 3)
        examples = [(ts[2 * i], ts[2 * i + 1]) for i in range(3)]
        fn = lambda a, b: (a * 1.0).matmul(b * 1.0)  # noqa: E731
    _check(fn, examples, params=[shared_a, shared_b])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack(dim):
    w = ferric.tensor(np.ones((2, 3))).requires_grad_()

    def fn(x, y):
        a = ferric.cat([x * 1.0, y * 2.0, w], dim=dim)
        b = ferric.stack([x * 1.0, y * 1.0], dim)
        c = ferric.cat([x * 3.0, y * 1.0, x * 1.0], dim)     # all pending: one gather
        return a, b, c

    _check(fn, _same((2, 3), arity=2), params=[w])


@pytest.mark.parametrize("kind,args", [("chunk", (3, 1)), ("chunk", (2, 0)), ("split", (2, 1)),
                                       ("split", ([1, 2], -1)), ("unbind", (0,))])
def test_split_family(kind, args):
    def fn(x):
        parts = getattr(x * 1.0, kind)(*args)
        return tuple(p * (i + 1) for i, p in enumerate(parts))

    stats = _check(fn, _same((2, 3)))
    assert stats["per_op"][kind] == 1


@pytest.mark.parametrize("view", [
    lambda x: x.view(6), lambda x: x.reshape(3, -1), lambda x: x.unsqueeze(0),
    lambda x: x.unsqueeze(-1), lambda x: x.reshape(1, 2, 3).squeeze(0), lambda x: x.squeeze(),
    lambda x: x.transpose(0, 1), lambda x: x.t(), lambda x: x.permute(1, 0),
    lambda x: x.narrow(1, 1, 2), lambda x: x.select(1, -1), lambda x: x[0],
    lambda x: x[:, 1:], lambda x: x[None, ..., -1], lambda x: x[1, ::2],
])
def test_views(view):
    _check(lambda x: view(x * 1.0) * 2.0, _same((2, 3)))


@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 1), False),
                                         (-1, False)])
def test_reductions(op, dim, keepdim):
    def fn(x):
        y = x * 1.0
        if dim is None:
            return getattr(y, op)()
        return getattr(ferric, op)(y, dim, keepdim=keepdim)

    _check(fn, _same((2, 3)))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family(name):
    _check(lambda x: getattr(F, name)(x * 1.0, dim=-1) + getattr(x * 1.0, name)(0),
           _same((2, 3)))


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding(padding_idx):
    emb = nn.Embedding(6, 3, padding_idx=padding_idx).double()
    idx = [ferric.tensor([1, 2, 5]), ferric.tensor([2, 2, 0]), ferric.tensor([4, 3, 1])]

    def run(batched):
        emb.weight.grad = None
        if batched:
            with ferric.autobatch() as ab:
                outs = [emb(i) for i in idx]
            assert ab.stats()["per_op"]["embedding"] == 1
        else:
            outs = [emb(i) for i in idx]
        sum((o * (k + 1)).sum() for k, o in enumerate(outs)).backward()
        return [o.detach().numpy() for o in outs], emb.weight.grad.numpy()

    (e, ge), (b, gb) = run(False), run(True)
    np.testing.assert_allclose(np.array(b), np.array(e), rtol=1e-12)
    np.testing.assert_allclose(gb, ge, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("per_example", ["rows", "vector"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy(reduction, per_example, weighted):
    g = np.random.default_rng(4)
    w = ferric.tensor(g.random(5) + 0.5) if weighted else None
    if per_example == "rows":
        targets = [ferric.tensor([1, 4, -100]), ferric.tensor([0, 0, 3]),
                   ferric.tensor([2, -100, -100])]
        shape = (3, 5)
    else:
        targets = [ferric.tensor(1), ferric.tensor(3), ferric.tensor(-100)]
        shape = (5,)
    xs = _inputs([shape] * 3, ferric.float64, 5)
    examples = [(x,) for x in xs]
    tgt = iter([])

    def fn(x):
        t = next(tgt)
        return F.cross_entropy(x * 1.0, t, weight=w, reduction=reduction)

    def run(batched):
        nonlocal tgt
        tgt = iter(targets)
        ys = [x.detach().clone().requires_grad_() for (x,) in examples]
        if batched:
            with ferric.autobatch():
                outs = [fn(y) for y in ys]
        else:
            outs = [fn(y) for y in ys]
        total = sum(o.nan_to_num().sum() * (k + 1) for k, o in enumerate(outs))
        total.backward()
        return [o.detach().numpy() for o in outs], [y.grad.numpy() for y in ys]

    (eo, eg), (bo, bg) = run(False), run(True)
    for a, b in zip(eo + eg, bo + bg, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched_input", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_rnn_cells(cell, batched_input, with_state):
    m = getattr(nn, cell)(3, 4).double()
    shape = (2, 3) if batched_input else (3,)
    hshape = (2, 4) if batched_input else (4,)

    def fn(x, h, c):
        if not with_state:
            out = m(x * 1.0)
        elif cell == "LSTMCell":
            out = m(x * 1.0, (h * 1.0, c * 1.0))
        else:
            out = m(x * 1.0, h * 1.0)
        return out if isinstance(out, tuple) else (out,)

    ts = _inputs([shape, hshape, hshape] * 3, ferric.float64, 6)
    examples = [tuple(ts[3 * i:3 * i + 3]) for i in range(3)]
    stats = _check(fn, examples, params=list(m.parameters()))
    assert stats["per_op"][cell] == 1


def test_different_shapes_do_not_group_but_agree():
    xs = _inputs([(2, 3), (4, 3), (2, 3), (1, 3)], ferric.float64, 7)
    lin = nn.Linear(3, 2).double()
    stats = _check(lambda x: ferric.tanh(lin(x)).sum(0), [(x,) for x in xs],
                   params=list(lin.parameters()), grouped=False)
    assert stats["per_op"]["linear"] == 3        # (2, 3) twice, (4, 3), (1, 3)


def test_float32_within_rounding():
    lin = nn.Linear(8, 8)
    xs = _inputs([(1, 8)] * 5, ferric.float32, 8)
    _check(lambda x: ferric.sigmoid(lin(x)) * ferric.tanh(x), [(x,) for x in xs],
           params=list(lin.parameters()), dtype=ferric.float32)
