"""The memory order of elementwise results (PyTorch's TensorIterator rule).

A fresh elementwise result takes its inputs' memory order: ``(a.t() + b.t())`` is
transposed, ``x.t().exp()``, ``x.t().clone()`` and ``x.t().double()`` too; broadcast
inputs and numbers do not vote, the first input decides ties, 4-d channels-last inputs
give channels-last results. The table below holds PyTorch's strides for each case (taken
from PyTorch 2.15); the property tests check values against NumPy on random layouts and
that every result is dense; the last test compares strides with PyTorch itself when it is
installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ferric


def laid_out(lib, shape, order, step=None):
    """A float32 tensor of `shape` whose dims sit in memory in `order` (outermost
    first), optionally every other element along dim `step`."""
    base = [shape[o] * (2 if o == step else 1) for o in order]
    t = lib.arange(int(np.prod(base)), dtype=lib.float32).reshape(*base)
    t = t.permute(*np.argsort(order).tolist())
    if step is not None:
        idx = [slice(None)] * len(shape)
        idx[step] = slice(None, None, 2)
        t = t[tuple(idx)]
    return t


def c(*shape):
    return laid_out(ferric, shape, list(range(len(shape))))


def t2(n, m):
    """(n, m) stored as its transpose (strides (1, n))."""
    return laid_out(ferric, (n, m), [1, 0])


def nchw_cl(n, ch, h, w):
    """(N, C, H, W) in channels-last memory order."""
    return laid_out(ferric, (n, ch, h, w), [0, 2, 3, 1])


STRIDE_CASES = [
    # (id, expression, PyTorch's result strides)
    ("contiguous", lambda: c(3, 4) + c(3, 4), (4, 1)),
    ("both-transposed", lambda: t2(3, 4) + t2(3, 4), (1, 3)),
    ("first-decides", lambda: t2(3, 4) * c(3, 4), (1, 3)),
    ("first-decides-2", lambda: c(3, 4) * t2(3, 4), (4, 1)),
    ("broadcast-row-does-not-vote", lambda: t2(3, 4) - c(4), (1, 3)),
    ("broadcast-first", lambda: c(4) - t2(3, 4), (1, 3)),
    ("number", lambda: 2 * t2(3, 4), (1, 3)),
    ("unary", lambda: t2(3, 4).exp(), (1, 3)),
    ("unary-int", lambda: t2(3, 4).long().neg(), (1, 3)),
    ("comparison", lambda: t2(3, 4) < t2(3, 4), (1, 3)),
    ("where", lambda: ferric.where(t2(3, 4) > 2, t2(3, 4), 0.0), (1, 3)),
    ("clamp", lambda: t2(3, 4).clamp(1, 5), (1, 3)),
    ("to-dtype", lambda: t2(3, 4).double(), (1, 3)),
    ("clone", lambda: t2(3, 4).clone(), (1, 3)),
    ("contiguous-method", lambda: t2(3, 4).contiguous(), (4, 1)),
    ("permuted-3d", lambda: laid_out(ferric, (2, 3, 4), [2, 0, 1]).sigmoid(), (3, 1, 6)),
    ("step-slice", lambda: laid_out(ferric, (3, 4), [1, 0], step=0).exp(), (1, 3)),
    ("step-slice-clone", lambda: laid_out(ferric, (3, 4), [1, 0], step=0).clone(), (1, 3)),
    ("channels-last", lambda: nchw_cl(2, 3, 4, 5) + nchw_cl(2, 3, 4, 5), (60, 1, 15, 3)),
    ("channels-last-relu", lambda: nchw_cl(2, 3, 4, 5).relu(), (60, 1, 15, 3)),
    ("nothing-votes", lambda: c(3, 1) + c(1, 4), (4, 1)),
    ("zero-size", lambda: t2(0, 4) + t2(0, 4), (4, 1)),
]


@pytest.mark.parametrize("expr, strides", [c[1:] for c in STRIDE_CASES],
                         ids=[c[0] for c in STRIDE_CASES])
def test_result_strides_match_pytorch(expr, strides):
    assert expr().stride() == strides


def test_transposed_result_values_and_gradients():
    a = t2(5, 7).double().requires_grad_()
    b = t2(5, 7).double()
    y = (a * b).exp() / 1e6
    assert y.stride() == (1, 5)
    y.sum().backward()
    an, bn = a.detach().numpy(), b.numpy()
    np.testing.assert_allclose(y.detach().numpy(), np.exp(an * bn) / 1e6, rtol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), bn * np.exp(an * bn) / 1e6, rtol=1e-12)


def test_views_of_ordered_results_read_the_right_elements():
    y = t2(4, 6) + 1
    ref = np.arange(24, dtype=np.float32).reshape(6, 4).T + 1
    np.testing.assert_array_equal(y.numpy(), ref)
    np.testing.assert_array_equal(y.view(-1).numpy() if y.is_contiguous() else
                                  y.reshape(-1).numpy(), ref.reshape(-1))
    np.testing.assert_array_equal(y.t().contiguous().view(-1).numpy(), ref.T.reshape(-1))
    np.testing.assert_array_equal(y[1:3, ::2].numpy(), ref[1:3, ::2])


@st.composite
def layouts(draw, max_dims=4):
    nd = draw(st.integers(1, max_dims))
    shape = draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd))
    order = draw(st.permutations(range(nd)))
    step = draw(st.one_of(st.none(), st.integers(0, nd - 1)))
    return tuple(shape), list(order), step


def dense(t):
    """Elements fill numel consecutive slots in some order of the dims."""
    dims = sorted((s, n) for s, n in zip(t.stride(), t.shape, strict=True) if n != 1)
    expected = 1
    for s, n in dims:
        if s != expected:
            return False
        expected *= n
    return True


@st.composite
def broadcast_pairs(draw):
    """`a`'s layout and a `b` that broadcasts against it (a trailing part of `a`'s shape,
    some dims set to 1) in its own memory order."""
    shape, order, step = draw(layouts())
    cut = draw(st.integers(0, len(shape)))
    ones = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    bshape = tuple(1 if o else d for d, o in zip(shape, ones, strict=True))[cut:]
    border = list(draw(st.permutations(range(len(bshape)))))
    return (shape, order, step), (bshape, border, None)


@given(broadcast_pairs(), st.booleans(), st.sampled_from(["add", "mul", "lt", "maximum"]))
def test_binary_on_random_layouts_equals_numpy(pair, swap, op):
    a, b = (laid_out(ferric, *spec) for spec in pair)
    if swap:
        a, b = b, a
    r = getattr(ferric, op)(a, b)
    ref = getattr(np, {"add": "add", "mul": "multiply", "lt": "less",
                       "maximum": "maximum"}[op])(a.numpy(), b.numpy())
    np.testing.assert_array_equal(r.numpy(), ref)
    assert dense(r)


@given(layouts(), st.sampled_from(["exp", "neg", "clone", "double", "sigmoid"]))
def test_unary_keeps_a_dense_inputs_strides(lay, op):
    shape, order, step = lay
    x = laid_out(ferric, shape, order, step)
    r = getattr(x, op)()
    assert dense(r)
    if step is None and op in ("clone", "double"):
        assert r.stride() == x.stride()
    ref = {"exp": np.exp, "neg": np.negative, "clone": np.copy,
           "double": lambda v: v.astype(np.float64),
           "sigmoid": lambda v: 1 / (1 + np.exp(-v))}[op](x.numpy())
    np.testing.assert_allclose(r.numpy(), ref, rtol=1e-6)


def _random_case(lib, shape, bshape, specs, kind):
    if not shape:
        a, b = lib.tensor(3.0), lib.tensor(2.0)
    else:
        a = laid_out(lib, *specs[0])
        b = laid_out(lib, *specs[1]) if bshape else lib.tensor(2.0)
    return {"add": lambda: a + b, "lt": lambda: a < b,
            "where": lambda: lib.where(b > 3, a, b), "mul2": lambda: a * 2,
            "exp": a.exp, "clone": a.clone, "double": a.double}[kind]()


def test_strides_match_pytorch_on_random_layouts():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(1500):
        nd = int(rng.integers(0, 5))
        shape = [int(rng.choice([1, 1, 2, 3, 4])) for _ in range(nd)]
        cut = int(rng.integers(0, nd + 1))
        bshape = [s if rng.random() < 0.6 else 1 for s in shape][cut:]
        specs = []
        for s in (shape, bshape):
            order = list(rng.permutation(len(s)))
            step = int(rng.integers(len(s))) if s and rng.random() < 0.3 else None
            specs.append((s, order, step))
        kind = str(rng.choice(["add", "lt", "where", "mul2", "exp", "clone", "double"]))

        rt, rf = (_random_case(lib, shape, bshape, specs, kind) for lib in (torch, ferric))
        assert rf.stride() == rt.stride(), (kind, specs)
        np.testing.assert_allclose(rf.numpy(), rt.numpy(), rtol=1e-6)


@pytest.mark.parametrize("make, strides", [
    (lambda: ferric.randn(3, 4), (4, 1)),
    (lambda: ferric.randn(4, 3).t(), (1, 3)),  # dense leaf: .grad keeps its strides
    (lambda: ferric.randn(3, 8)[:, ::2], (4, 1)),  # not dense: .grad is row-major
], ids=["contiguous", "transposed", "step-slice"])
@pytest.mark.parametrize("x_layout", ["contiguous", "transposed"])
def test_leaf_grad_follows_the_layout_contract(make, strides, x_layout):
    x = ferric.randn(3, 4) if x_layout == "contiguous" else ferric.randn(4, 3).t()
    w = make().requires_grad_()
    for _ in range(2):  # the first gradient is stored, the second added in place
        (x * w).sum().backward()
        assert w.grad.stride() == strides
    np.testing.assert_allclose(w.grad.numpy(), 2 * x.numpy(), rtol=1e-6)


LIKE = ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]


@pytest.mark.parametrize("fn", LIKE)
def test_like_factories_preserve_the_memory_order(fn):
    x = t2(3, 4)
    assert getattr(ferric, fn)(x).stride() == (1, 3)
    assert getattr(ferric, fn)(x, memory_format=ferric.contiguous_format).stride() == (4, 1)
    y = getattr(ferric, fn)(nchw_cl(2, 3, 4, 5).contiguous())
    assert y.stride() == (60, 20, 5, 1)
    z = getattr(ferric, fn)(c(2, 3, 4, 5), memory_format=ferric.channels_last)
    assert z.stride() == (60, 1, 15, 3)


def test_rand_like_fills_in_memory_order():
    # the generator fills memory front to back, so a transposed rand_like holds the
    # transpose of the row-major draw, as in PyTorch
    ferric.manual_seed(7)
    ref = ferric.rand(4, 3).numpy()
    ferric.manual_seed(7)
    r = ferric.rand_like(t2(3, 4))
    np.testing.assert_array_equal(r.numpy(), ref.T)


def test_memory_format_objects():
    cl = ferric.channels_last
    assert repr(cl) == "torch.channels_last"
    assert cl == ferric.channels_last and cl != ferric.contiguous_format
    assert {ferric.contiguous_format, ferric.preserve_format, cl, ferric.channels_last_3d}
    import pickle

    assert pickle.loads(pickle.dumps(cl)) is cl


def test_channels_last_clone_contiguous_and_is_contiguous():
    x = c(2, 3, 4, 5)
    assert x.is_contiguous() and not x.is_contiguous(memory_format=ferric.channels_last)
    y = x.contiguous(memory_format=ferric.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert y.is_contiguous(memory_format=ferric.channels_last) and not y.is_contiguous()
    assert y.contiguous(memory_format=ferric.channels_last) is y
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert x.clone(memory_format=ferric.channels_last).stride() == (60, 1, 15, 3)
    assert y.clone().stride() == (60, 1, 15, 3)
    assert y.clone(memory_format=ferric.contiguous_format).stride() == (60, 20, 5, 1)
    assert (y + 1).stride() == (60, 1, 15, 3)
    assert y.relu().is_contiguous(memory_format=ferric.channels_last)
    v = ferric.empty(2, 3, 4, 5, 6, memory_format=ferric.channels_last_3d)
    assert v.stride() == (360, 1, 90, 18, 3)
    assert v.is_contiguous(memory_format=ferric.channels_last_3d)
    assert ferric.empty(2, 3, 4, 5, memory_format=ferric.channels_last).stride() == (60, 1, 15, 3)


def test_channels_last_gradient_flows_back():
    x = c(2, 3, 4, 5).double().requires_grad_()
    y = x.contiguous(memory_format=ferric.channels_last)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_memory_format_errors():
    x = c(2, 3)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.clone(memory_format=ferric.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        ferric.zeros_like(x, memory_format=ferric.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        t2(2, 3).contiguous(memory_format=ferric.preserve_format)
    assert x.contiguous(memory_format=ferric.preserve_format) is x
    with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format"):
        x.clone(memory_format=3)
    assert not x.is_contiguous(memory_format=ferric.channels_last)


def test_to_memory_format_and_module_to():
    x = c(2, 3, 4, 5)
    y = x.to(memory_format=ferric.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert y.to(memory_format=ferric.channels_last) is y
    assert x.to(ferric.float64, memory_format=ferric.channels_last).stride() == (60, 1, 15, 3)
    assert y.double().stride() == (60, 1, 15, 3)  # preserve_format by default
    conv = ferric.nn.Conv2d(3, 4, 3, padding=1)
    w = conv.weight.detach().clone()
    conv.to(memory_format=ferric.channels_last)
    assert conv.weight.is_contiguous(memory_format=ferric.channels_last)
    assert conv.bias.stride() == (1,)
    np.testing.assert_array_equal(conv.weight.detach().numpy(), w.numpy())
    inp = x.contiguous(memory_format=ferric.channels_last)
    out = conv(inp)
    ref = ferric.nn.functional.conv2d(x, w, conv.bias.detach(), padding=1)
    np.testing.assert_allclose(out.detach().numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    assert conv.weight.grad.stride() == conv.weight.stride()
