"""Autograd of the matmul family (and the random family's autograd behaviour):
gradcheck and gradgradcheck (float64) of every differentiable op on contiguous,
transposed, step-sliced and expanded (stride-0) operands, broadcast batch dims, PyTorch's
node names, and random factories/samplers with `requires_grad`."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import gradcheck_laid_out, uniform_leaf

import ferric

F64 = ferric.float64
KINDS = ["contiguous", "transposed", "stepped", "expanded_last"]  # see layouts.py


leaf, check = uniform_leaf, gradcheck_laid_out


def eq(spec):
    return lambda *ts: ferric.einsum(spec, *ts)


# (name, fn, operand shapes, PyTorch's node name for the result or None)
OPS = [
    ("mm", lambda a, b: a.mm(b), [(2, 3), (3, 4)], "MmBackward0"),
    ("mm:fn", lambda a, b: ferric.mm(a, b), [(3, 2), (2, 2)], "MmBackward0"),
    ("bmm", lambda a, b: a.bmm(b), [(2, 2, 3), (2, 3, 2)], "BmmBackward0"),
    ("mv", lambda a, v: a.mv(v), [(2, 3), (3,)], "MvBackward0"),
    ("dot", lambda a, b: a.dot(b), [(3,), (3,)], "DotBackward0"),
    ("vdot", lambda a, b: ferric.vdot(a, b), [(3,), (3,)], "VdotBackward0"),
    ("outer", lambda a, b: a.outer(b), [(3,), (2,)], "MulBackward0"),
    ("ger", lambda a, b: ferric.ger(a, b), [(2,), (3,)], "MulBackward0"),
    ("addmm", lambda i, a, b: i.addmm(a, b), [(2, 4), (2, 3), (3, 4)], "AddmmBackward0"),
    ("addmm:scaled", lambda i, a, b: ferric.addmm(i, a, b, beta=0.5, alpha=-2),
     [(2, 4), (2, 3), (3, 4)], "AddmmBackward0"),
    ("addmm:broadcast-input", lambda i, a, b: ferric.addmm(i, a, b, alpha=3),
     [(4,), (2, 3), (3, 4)], "AddmmBackward0"),
    ("addmm:beta0", lambda i, a, b: ferric.addmm(i, a, b, beta=0), [(2, 1), (2, 3), (3, 4)],
     "AddmmBackward0"),
    ("baddbmm", lambda i, a, b: i.baddbmm(a, b), [(2, 2, 4), (2, 2, 3), (2, 3, 4)],
     "BaddbmmBackward0"),
    ("baddbmm:broadcast-input", lambda i, a, b: ferric.baddbmm(i, a, b, beta=2, alpha=0.5),
     [(2, 4), (2, 2, 3), (2, 3, 4)], "BaddbmmBackward0"),
    # matmul: every dispatch path of PyTorch's matmul
    ("matmul:1x1", lambda a, b: a.matmul(b), [(3,), (3,)], "DotBackward0"),
    ("matmul:2x1", lambda a, b: a.matmul(b), [(2, 3), (3,)], "MvBackward0"),
    ("matmul:1x2", lambda a, b: a @ b, [(3,), (3, 2)], "SqueezeBackward4"),
    ("matmul:2x2", lambda a, b: a @ b, [(2, 3), (3, 2)], "MmBackward0"),
    ("matmul:3x2", lambda a, b: a @ b, [(2, 2, 3), (3, 2)], "UnsafeViewBackward0"),
    ("matmul:3x1", lambda a, b: a @ b, [(2, 2, 3), (3,)], "UnsafeViewBackward0"),
    ("matmul:1x3", lambda a, b: ferric.matmul(a, b), [(3,), (2, 3, 2)], "UnsafeViewBackward0"),
    ("matmul:2x3", lambda a, b: a @ b, [(2, 3), (2, 3, 2)], "CloneBackward0"),
    ("matmul:3x3", lambda a, b: a @ b, [(2, 2, 3), (2, 3, 2)], "UnsafeViewBackward0"),
    ("matmul:3x3-batch-of-one", lambda a, b: a @ b, [(1, 2, 3), (2, 3, 2)], "CloneBackward0"),
    ("matmul:broadcast", lambda a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)], "UnsafeViewBackward0"),
    ("matmul:4x1", lambda a, b: a @ b, [(2, 1, 2, 3), (3,)], "UnsafeViewBackward0"),
    ("matmul:1x4", lambda a, b: a @ b, [(3,), (2, 1, 3, 2)], "UnsafeViewBackward0"),
    ("rmatmul", lambda a, b: b.__rmatmul__(a), [(2, 3), (3, 2)], "MmBackward0"),
    # einsum: contractions, diagonals, sums, ellipses, several operands, sublists
    ("einsum:mm", eq("ij,jk->ik"), [(2, 3), (3, 2)], None),
    ("einsum:bmm", eq("bij,bjk->bik"), [(2, 2, 3), (2, 3, 2)], None),
    ("einsum:trace", eq("ii"), [(3, 3)], None),
    ("einsum:diag", eq("ii->i"), [(3, 3)], None),
    ("einsum:sum", eq("ij->"), [(2, 3)], None),
    ("einsum:transpose", eq("ij->ji"), [(2, 3)], None),
    ("einsum:outer", eq("i,j->ij"), [(2,), (3,)], None),
    ("einsum:inner", eq("i,i"), [(3,), (3,)], None),
    ("einsum:hadamard", eq("ij,ij->ij"), [(2, 3), (2, 3)], None),
    ("einsum:ellipsis", eq("...ij,...jk"), [(2, 2, 3), (3, 2)], None),
    ("einsum:three", eq("bn,anm,bm->ba"), [(2, 3), (2, 3, 2), (2, 2)], None),
    ("einsum:partial-diag", eq("iij,jk->ik"), [(2, 2, 3), (3, 2)], None),
    ("einsum:sum-one-side", eq("ij,jk->i"), [(2, 3), (3, 2)], None),
    ("einsum:sublist", lambda a, b: ferric.einsum(a, [0, 1], b, [1, 2], [0, 2]),
     [(2, 3), (3, 2)], None),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "fn", "shapes", "node"), OPS, ids=[r[0] for r in OPS])
def test_gradcheck(name, fn, shapes, node, kind):
    check(fn, shapes, kind)


@pytest.mark.parametrize(("name", "fn", "shapes", "node"),
                         [r for r in OPS if r[3]], ids=[r[0] for r in OPS if r[3]])
def test_node_names(name, fn, shapes, node):
    out = fn(*[leaf(s, seed) for seed, s in enumerate(shapes)])
    assert out.grad_fn.name() == node


# Every differentiable op of the family must have a gradient row above.
DIFFERENTIABLE = "matmul rmatmul mm bmm mv dot vdot outer ger addmm baddbmm einsum".split()


def test_registry_every_differentiable_op_has_a_gradient_test():
    covered = {r[0].split(":")[0] for r in OPS}
    missing = [n for n in DIFFERENTIABLE if n not in covered]
    assert not missing, f"no gradcheck row for {missing}"
    for n in DIFFERENTIABLE:
        method = "__rmatmul__" if n == "rmatmul" else n
        assert hasattr(ferric.Tensor, method) or hasattr(ferric, n), n


# ------------------------------------------------------------------ gradients by value


def np_grads(a, b, g):
    """d(sum(g * (a @ b))) for batched matrices with NumPy broadcasting."""
    ga = g @ np.swapaxes(b, -1, -2)
    gb = np.swapaxes(a, -1, -2) @ g
    return ga, gb


def reduce_to(x, shape):
    while x.ndim > len(shape):
        x = x.sum(0)
    for i, s in enumerate(shape):
        if s == 1 and x.shape[i] != 1:
            x = x.sum(i, keepdims=True)
    return x


@pytest.mark.parametrize(("sa", "sb"), [
    ((2, 1, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((5, 2, 3), (1, 3, 4)),
    ((4, 2, 3), (3, 2)),
    ((2, 3), (4, 3, 2)),
    ((1, 1, 2, 3), (2, 1, 3, 2)),
])
def test_broadcast_batch_gradients_are_summed_to_operand_shapes(sa, sb):
    a, b = leaf(sa, 1), leaf(sb, 2)
    out = a @ b
    g = np.random.default_rng(3).uniform(-1, 1, size=tuple(out.shape))
    out.backward(ferric.tensor(g, dtype=F64))
    an, bn = a.detach().numpy(), b.detach().numpy()
    assert np.allclose(out.detach().numpy(), an @ bn)
    ga, gb = np_grads(an, bn, g)
    assert tuple(a.grad.shape) == sa and tuple(b.grad.shape) == sb
    assert np.allclose(a.grad.numpy(), reduce_to(ga, sa))
    assert np.allclose(b.grad.numpy(), reduce_to(gb, sb))


def test_only_the_operand_that_requires_grad_gets_one():
    w = leaf((3, 2))
    x = ferric.tensor(np.ones((4, 3)), dtype=F64)
    out = x @ w
    out.backward(ferric.ones(4, 2, dtype=F64))
    assert np.allclose(w.grad.numpy(), np.full((3, 2), 4.0))
    assert x.grad is None and not x.requires_grad


def test_an_operand_is_saved_only_for_the_other_operands_gradient():
    # like PyTorch: x @ w with only x requiring grad saves w, not x, so changing x in
    # place afterwards is fine while changing w is detected
    x = leaf((2, 3))
    w = ferric.tensor(np.ones((3, 2)), dtype=F64)
    out = x @ w
    with ferric.no_grad():
        x.mul_(2.0)
    out.backward(ferric.ones(2, 2, dtype=F64))
    assert np.allclose(x.grad.numpy(), np.full((2, 3), 2.0))
    out = x @ w
    w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward(ferric.ones(2, 2, dtype=F64))


def test_addmm_beta_zero_ignores_input_nans_but_gradient_is_zero():
    i = ferric.tensor([[float("nan"), 1.0]], dtype=F64, requires_grad=True)
    a, b = leaf((1, 3), 1), leaf((3, 2), 2)
    out = ferric.addmm(i, a, b, beta=0)
    assert not np.isnan(out.detach().numpy()).any()
    out.backward(ferric.ones(1, 2, dtype=F64))
    assert np.array_equal(i.grad.numpy(), np.zeros((1, 2)))


def test_float32_gradients_keep_dtype():
    a = ferric.randn(3, 4, requires_grad=True)
    b = ferric.randn(4, 2, requires_grad=True)
    (a @ b).backward(ferric.ones(3, 2))
    assert a.grad.dtype == ferric.float32 and b.grad.dtype == ferric.float32
    assert np.allclose(a.grad.numpy(), np.ones((3, 2)) @ b.detach().numpy().T, atol=1e-6)


def test_outer_promotes_and_casts_gradients_back():
    a = ferric.tensor([1.0, 2.0], dtype=ferric.float32, requires_grad=True)
    b = ferric.tensor([3.0, 4.0, 5.0], dtype=F64, requires_grad=True)
    out = a.outer(b)
    assert out.dtype == F64
    out.backward(ferric.ones(2, 3, dtype=F64))
    assert a.grad.dtype == ferric.float32 and np.allclose(a.grad.numpy(), [12.0, 12.0])
    assert np.allclose(b.grad.numpy(), [3.0, 3.0, 3.0])


def test_einsum_without_grad_records_nothing_and_matches_the_graph_path():
    a, b = leaf((2, 3), 1), leaf((3, 4), 2)
    with ferric.no_grad():
        plain = ferric.einsum("ij,jk->ik", a, b)
    assert plain.grad_fn is None and not plain.requires_grad
    graph = ferric.einsum("ij,jk->ik", a, b)
    assert graph.requires_grad
    assert np.array_equal(plain.numpy(), graph.detach().numpy())


def test_empty_products_give_zero_gradients():
    a, b = leaf((2, 0)), leaf((0, 3))
    out = a @ b
    out.backward(ferric.ones(2, 3, dtype=F64))
    assert a.grad.shape == (2, 0) and b.grad.shape == (0, 3)
    c, d = leaf((0, 3)), leaf((3, 2))
    out = c @ d
    out.backward(ferric.zeros(0, 2, dtype=F64))
    assert np.array_equal(d.grad.numpy(), np.zeros((3, 2)))


def test_second_backward_without_retain_graph_raises():
    a, b = leaf((2, 3)), leaf((3, 2))
    out = a @ b
    out.backward(ferric.ones(2, 2, dtype=F64), retain_graph=True)
    out.backward(ferric.ones(2, 2, dtype=F64))
    assert np.allclose(a.grad.numpy(), 2 * np.ones((2, 2)) @ b.detach().numpy().T)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward(ferric.ones(2, 2, dtype=F64))


def test_errors_are_unchanged_with_autograd():
    a, b = leaf((2, 3)), leaf((4, 2))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        a @ b
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        leaf(()) @ a
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions"):
        leaf((2, 2, 3)) @ leaf((2, 4, 2))
    with pytest.raises(RuntimeError, match="Expected 1-D argument self"):
        a.outer(leaf((3,)))
    with pytest.raises(RuntimeError, match="einsum"):
        ferric.einsum("ij,jk", a, b)


# ------------------------------------------------------------------ random family


@pytest.mark.parametrize("make_leaf", [
    lambda: ferric.rand(2, 3, requires_grad=True),
    lambda: ferric.randn(2, 3, dtype=F64, requires_grad=True),
    lambda: ferric.normal(0.0, 1.0, size=(2, 3), requires_grad=True),
    lambda: ferric.rand_like(ferric.zeros(2, 3), requires_grad=True),
    lambda: ferric.randn_like(ferric.zeros(2, 3), requires_grad=True),
    lambda: ferric.randperm(6, dtype=F64, requires_grad=True).reshape(2, 3),
])
def test_random_factories_make_leaves_that_require_grad(make_leaf):
    x = make_leaf()
    assert x.requires_grad
    w = leaf((3, 2)).to(x.dtype).detach().requires_grad_()
    (x.detach().requires_grad_() @ w).backward(ferric.ones(2, 2, dtype=x.dtype))
    assert w.grad is not None
    if x.is_leaf:
        assert x.grad_fn is None


def test_random_factories_reject_requires_grad_for_integers():
    for f in (lambda: ferric.randint(3, (2,), requires_grad=True),
              lambda: ferric.randperm(3, requires_grad=True)):
        with pytest.raises(RuntimeError, match="floating point"):
            f()


def test_random_like_does_not_inherit_requires_grad():
    assert not ferric.randn_like(leaf((2,))).requires_grad


SAMPLERS = [
    ("uniform_", lambda t: t.uniform_(-1, 1), "UniformBackward0"),
    ("normal_", lambda t: t.normal_(), "NormalBackward0"),
    ("exponential_", lambda t: t.exponential_(), "ExponentialBackward0"),
    ("cauchy_", lambda t: t.cauchy_(), "CauchyBackward0"),
    ("log_normal_", lambda t: t.log_normal_(), "LogNormalBackward0"),
    ("geometric_", lambda t: t.geometric_(0.5), "GeometricBackward0"),
    ("bernoulli_", lambda t: t.bernoulli_(0.3), "BernoulliBackward2"),
    ("bernoulli_:tensor", lambda t: t.bernoulli_(ferric.full((3,), 0.5)), "BernoulliBackward1"),
    ("random_", lambda t: t.random_(), "RandomBackward2"),
    ("random_:to", lambda t: t.random_(5), "RandomBackward1"),
    ("random_:to-kw", lambda t: t.random_(to=5), "RandomBackward1"),
    ("random_:from-to-kw", lambda t: t.random_(2, to=5), "RandomBackward0"),
    ("random_:from-to", lambda t: t.random_(1, 5), "RandomBackward0"),
]


@pytest.mark.parametrize(("name", "fn", "node"), SAMPLERS, ids=[s[0] for s in SAMPLERS])
def test_inplace_samplers_on_leaves_raise_and_on_non_leaves_give_zero_gradients(name, fn, node):
    x = leaf((3,))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        fn(x)
    with ferric.no_grad():
        fn(x)  # allowed without a graph, like PyTorch
    assert x.is_leaf and x.grad_fn is None

    # the graph path draws exactly what the plain path draws
    ferric.manual_seed(7)
    plain = fn(ferric.zeros(3, dtype=F64))
    ferric.manual_seed(7)
    y = x * 2
    out = fn(y)
    assert out is y
    assert y.grad_fn.name() == node
    assert np.array_equal(y.detach().numpy(), plain.numpy())
    (y * 3).backward(ferric.ones(3, dtype=F64))
    assert np.array_equal(x.grad.numpy(), np.zeros(3))


def test_bernoulli_and_normal_with_tensor_parameters_have_zero_gradients():
    p = ferric.tensor([0.2, 0.7, 0.5], dtype=F64, requires_grad=True)
    s = ferric.bernoulli(p)
    assert s.grad_fn.name() == "BernoulliBackward0"
    s.backward(ferric.ones(3, dtype=F64))
    assert np.array_equal(p.grad.numpy(), np.zeros(3))
    mean, std = leaf((3,), 1), ferric.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    assert ferric.normal(mean, 1.0).grad_fn.name() == "NormalBackward1"
    assert ferric.normal(0.0, std).grad_fn.name() == "NormalBackward2"
    n = ferric.normal(mean, std)
    assert n.grad_fn.name() == "NormalBackward3"
    n.backward(ferric.ones(3, dtype=F64))
    assert np.array_equal(mean.grad.numpy(), np.zeros(3))
    assert np.array_equal(std.grad.numpy(), np.zeros(3))
    with ferric.no_grad():
        assert not ferric.normal(mean, std).requires_grad


def test_multinomial_is_not_differentiable():
    p = ferric.tensor([0.2, 0.7, 0.1], dtype=F64, requires_grad=True)
    assert not ferric.multinomial(p, 2).requires_grad
