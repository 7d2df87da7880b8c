"""The fused Rust kernels behind reductions, softmax and ferric.nn.functional's
cross_entropy / nll_loss / layer_norm / batch_norm / dropout / embedding: values against
NumPy on every layout, PyTorch's node names, gradcheck and gradgradcheck in float64,
thread-count independence, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import STANDARD, variants
from nn_helpers import close, f64, np_layer_norm, np_of, rand

import ferric
import ferric.nn.functional as F
from ferric.autograd import gradcheck, gradgradcheck


def layouts(shape, seed=0):
    """(name, tensor, numpy values) for one logical shape: contiguous, transposed,
    stepped and expanded views (see layouts.py) of values in [-3, 3)."""
    return variants(rand(shape, seed, -3, 3), STANDARD, dtype=ferric.float64)


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


# ------------------------------------------------------------------- reductions


@pytest.mark.parametrize("name,x,a", layouts((5, 7, 6)), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_sum_mean_on_layouts(name, x, a):
    for dim in (None, 0, 1, 2, (0, 2), -1):
        kw = {} if dim is None else {"dim": dim}
        close(x.sum(**kw), a.sum(axis=dim), rtol=1e-12)
        close(x.mean(**kw), a.mean(axis=dim), rtol=1e-12)
        close(x.float().sum(**kw), a.sum(axis=dim), rtol=1e-5, atol=1e-4)


def test_float32_sums_are_accurate_and_edge_cases():
    # 3 million elements: pairwise over blocks keeps float32 close to the exact sum
    a = np.random.default_rng(0).uniform(0, 1, 3_000_001).astype(np.float32)
    exact = a.astype(np.float64).sum()
    got = float(ferric.from_numpy(a).sum())
    assert abs(got - exact) / exact < 1e-6
    m = a[:3_000_000].reshape(3000, 1000)
    close(ferric.from_numpy(m).sum(1), m.astype(np.float64).sum(1), rtol=1e-5)
    close(ferric.from_numpy(m).mean(0), m.astype(np.float64).mean(0), rtol=1e-5)
    assert float(ferric.zeros(0).sum()) == 0.0
    assert np.isnan(float(ferric.zeros(0).mean()))
    close(ferric.zeros(3, 0).sum(1), np.zeros(3))
    close(f64(2.5).sum(), 2.5)
    assert np.isnan(float(f64([1.0, np.nan, 2.0]).sum()))


def _thread_workloads():
    rng = np.random.default_rng(3)
    a = ferric.from_numpy(rng.standard_normal((700, 600)).astype(np.float32))
    b = ferric.from_numpy(rng.standard_normal(300_000).astype(np.float32))
    w = ferric.from_numpy(rng.standard_normal(600).astype(np.float32)).requires_grad_()
    y = F.layer_norm(a, (600,), w)
    y.pow(2).sum().backward()
    t = ferric.tensor(rng.integers(0, 600, 700))
    return [a.sum(), a.sum(1), a.sum(0), a.mean(1), b.sum(), a.t().sum(1), a.softmax(1),
            a.log_softmax(0), a.var(1), a.amax(1), a.logsumexp(1), y, w.grad,
            F.batch_norm(a, None, None, training=True), F.cross_entropy(a, t)]


def test_results_do_not_depend_on_the_thread_count():
    before = ferric.get_num_threads()
    try:
        ferric.set_num_threads(1)
        one = [np_of(t) for t in _thread_workloads()]
        ferric.set_num_threads(3)
        three = [np_of(t) for t in _thread_workloads()]
    finally:
        ferric.set_num_threads(before)
    for s, p in zip(one, three, strict=True):
        np.testing.assert_array_equal(s, p)


# ------------------------------------------------------------------- softmax


@pytest.mark.parametrize("name,x,a", layouts((4, 6, 5), 1), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_softmax_values_on_layouts(name, x, a):
    for dim in (0, 1, 2):
        close(x.softmax(dim), np_softmax(a, dim), rtol=1e-12, atol=1e-14)
        close(F.log_softmax(x, dim), np_log_softmax(a, dim), rtol=1e-12, atol=1e-12)
        close(x.float().softmax(dim), np_softmax(a, dim), rtol=1e-5, atol=1e-6)
        close(x.float().log_softmax(dim), np_log_softmax(a, dim), rtol=1e-5, atol=1e-5)


def test_softmax_edge_cases():
    assert ferric.zeros(0, 3).softmax(1).shape == (0, 3)
    close(f64(3.0).softmax(0), 1.0)
    close(f64(3.0).log_softmax(0), 0.0)
    long_row = rand((2, 5000), 4, -20, 20)
    close(f64(long_row).float().softmax(1), np_softmax(long_row, 1), rtol=1e-4, atol=1e-7)
    close(f64([[1000.0, 1000.0, -np.inf]]).softmax(1), [[0.5, 0.5, 0.0]])
    assert np.isnan(np_of(f64([1.0, np.nan]).log_softmax(0))).all()
    with pytest.raises(NotImplementedError, match="log_softmax_lastdim_kernel_impl"):
        ferric.tensor([1, 2]).log_softmax(0)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_gradients(log, dim):
    x = f64(rand((3, 4), 5), requires_grad=True)
    fn = (lambda t: t.log_softmax(dim)) if log else (lambda t: t.softmax(dim))
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    name = "LogSoftmaxBackward0" if log else "SoftmaxBackward0"
    assert fn(x).grad_fn.name() == name
    # the fused backward on a strided incoming gradient
    xt = f64(rand((4, 3), 6), requires_grad=True)
    y = fn(xt.t())
    g = f64(rand((6, 8), 7))[::2, ::2]
    (gx,) = ferric.autograd.grad(y, xt, g)
    s = np_softmax(np_of(xt).T, dim)
    gn = np_of(g)
    if log:
        want = gn - s * gn.sum(dim, keepdims=True)
    else:
        want = s * (gn - (gn * s).sum(dim, keepdims=True))
    close(gx, want.T, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------- nll / cross entropy


def ce_ref(x, t, w=None, ignore_index=-100, reduction="mean", ls=0.0):
    """PyTorch's cross_entropy for class indices, classes on axis 1 (or 0 for 1-d)."""
    axis = 0 if x.ndim == 1 else 1
    lp = np_log_softmax(x, axis)
    c = x.shape[axis]
    lp_c = np.moveaxis(lp if x.ndim > 1 else lp[None], 1, -1)  # (..., C)
    t = np.asarray(t).reshape(lp_c.shape[:-1])
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    wv = np.ones(c) if w is None else w
    picked = np.take_along_axis(lp_c, safe[..., None], -1)[..., 0]
    wt = wv[safe] * valid
    nll = -picked * wt
    smooth = -(lp_c * wv).sum(-1) * valid
    red = {"none": lambda v: v, "sum": np.sum, "mean": lambda v: v.sum() / wt.sum()}[reduction]
    out = (1 - ls) * red(nll) + ls / c * red(smooth) if ls > 0 else red(nll)
    return np.asarray(out).reshape(np.shape(out) if x.ndim > 1 else ())


CE_CASES = [
    ("2d", (6, 5), [0, 4, 2, -100, 1, 4]),
    ("1d", (5,), 3),
    ("3d", (2, 4, 3), [[0, 1, 3], [3, -100, 2]]),
    ("4d", (2, 3, 2, 2), [[[0, 1], [2, 2]], [[1, 0], [-100, 1]]]),
    ("5d", (2, 3, 2, 1, 2), [[[[0, 1]], [[2, 2]]], [[[1, 0]], [[2, 1]]]]),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,shape,target", CE_CASES, ids=[c[0] for c in CE_CASES])
def test_cross_entropy_class_indices(name, shape, target, reduction):
    x = rand(shape, 8, -3, 3)
    c = shape[0] if len(shape) == 1 else shape[1]
    w = rand(c, 9, 0.2, 1.5)
    t = ferric.tensor(target)
    for weight in (None, w):
        for ls in (0.0, 0.25):
            got = F.cross_entropy(f64(x), t, weight=None if weight is None else f64(weight),
                                  reduction=reduction, label_smoothing=ls)
            close(got, ce_ref(x, target, weight, -100, reduction, ls), rtol=1e-10, atol=1e-12)
    # nll_loss on log-probabilities equals cross entropy
    lp = np_log_softmax(x, 0 if len(shape) == 1 else 1)
    close(F.nll_loss(f64(lp), t, reduction=reduction), ce_ref(x, target, None, -100, reduction),
          rtol=1e-10, atol=1e-12)


def test_cross_entropy_on_layouts_and_ignore_index():
    tgt = ferric.tensor([0, 4, 2, 3, 1, 4])
    for _name, x, a in layouts((6, 5), 10):
        close(F.cross_entropy(x, tgt, ignore_index=4, reduction="none"),
              ce_ref(a, tgt.tolist(), None, 4, "none"), rtol=1e-10, atol=1e-12)
        close(F.cross_entropy(x.float(), tgt), ce_ref(a, tgt.tolist()), rtol=1e-5)
    # every target ignored: mean is nan (0 / 0), sum is 0
    allign = ferric.full((3,), -100)
    assert np.isnan(float(F.cross_entropy(f64(rand((3, 4))), allign)))
    assert float(F.cross_entropy(f64(rand((3, 4))), allign, reduction="sum")) == 0.0
    assert np.isnan(float(F.cross_entropy(f64(rand((3, 4))), allign, label_smoothing=0.1)))
    # an empty batch
    assert np.isnan(float(F.cross_entropy(ferric.zeros(0, 4), ferric.zeros(0, dtype=ferric.int64))))
    assert np.isnan(float(F.cross_entropy(ferric.zeros(0, 4), ferric.zeros(0, 4))))
    # negative label smoothing is accepted and means none (PyTorch checks only <= 1)
    x = f64(rand((3, 4), 11))
    close(F.cross_entropy(x, ferric.tensor([1, 2, 3]), label_smoothing=-0.5),
          F.cross_entropy(x, ferric.tensor([1, 2, 3])))


def test_cross_entropy_probabilities():
    x = rand((4, 5), 12, -3, 3)
    p = np_softmax(rand((4, 5), 13), 1)
    w = rand(5, 14, 0.2, 1.5)
    lp = np_log_softmax(x, 1)
    for ls in (0.0, 0.3):
        t = p * (1 - ls) + ls / 5
        close(F.cross_entropy(f64(x), f64(p), weight=f64(w), label_smoothing=ls),
              -(lp * w * t).sum() / 4)
        close(F.cross_entropy(f64(x), f64(p), reduction="none", label_smoothing=ls),
              -(lp * t).sum(1))
    # float32 logits with float64 probabilities promote, as in PyTorch
    assert F.cross_entropy(f64(x).float(), f64(p)).dtype == ferric.float64
    xv = f64(x[:2, :3], requires_grad=True)
    pv = f64(p[:2, :3], requires_grad=True)
    wv = f64(w[:3], requires_grad=True)
    assert gradcheck(lambda a, b, c: F.cross_entropy(a, b, weight=c, label_smoothing=0.2),
                     (xv, pv, wv))
    assert gradgradcheck(lambda a, b: F.cross_entropy(a, b), (xv, pv))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_gradients(reduction):
    x = f64(rand((3, 4), 15), requires_grad=True)
    t = ferric.tensor([0, -100, 3])
    w = f64(rand(4, 16, 0.5, 1.5))
    for ls in (0.0, 0.2):
        def fn(a, ls=ls):
            return F.cross_entropy(a, t, weight=w, reduction=reduction, label_smoothing=ls)
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    x4 = f64(rand((2, 3, 2, 2), 17), requires_grad=True)
    t4 = ferric.tensor([[[0, 1], [2, 2]], [[1, 0], [2, 1]]])
    assert gradcheck(lambda a: F.nll_loss(a, t4, weight=w[:3], reduction=reduction), (x4,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, t4, reduction=reduction), (x4,))


def test_loss_node_names():
    x = f64(rand((3, 4)), requires_grad=True)
    t = ferric.tensor([0, 1, 3])
    ce = F.cross_entropy(x, t)
    assert ce.grad_fn.name() == "NllLossBackward0"
    assert ce.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    assert F.cross_entropy(x, t, label_smoothing=0.1).grad_fn.name() == "AddBackward0"
    x4 = f64(rand((2, 3, 2, 2)), requires_grad=True)
    t4 = ferric.zeros(2, 2, 2, dtype=ferric.int64)
    assert F.nll_loss(x4, t4).grad_fn.name() == "NllLoss2DBackward0"
    x3 = f64(rand((2, 3, 4)), requires_grad=True)
    assert F.nll_loss(x3, ferric.zeros(2, 4, dtype=ferric.int64)).grad_fn.name() == \
        "NllLoss2DBackward0"
    assert F.nll_loss(x3, ferric.zeros(2, 4, dtype=ferric.int64), reduction="none").shape == (2, 4)


def test_loss_backward_twice_needs_retain_graph():
    x = f64(rand((3, 4)), requires_grad=True)
    loss = F.cross_entropy(x, ferric.tensor([0, 1, 3]))
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


# ------------------------------------------------------------------- layer norm


@pytest.mark.parametrize("name,x,a", layouts((3, 4, 5), 20), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_layer_norm_values_on_layouts(name, x, a):
    w, b = rand((4, 5), 21), rand((4, 5), 22)
    close(F.layer_norm(x, (5,)), np_layer_norm(a, 1), rtol=1e-10, atol=1e-12)
    close(F.layer_norm(x, [4, 5], f64(w), f64(b)), np_layer_norm(a, 2, w, b), rtol=1e-10,
          atol=1e-12)
    close(F.layer_norm(x, 5, f64(w[0]), None, eps=0.1), np_layer_norm(a, 1, w[0], eps=0.1),
          rtol=1e-10, atol=1e-12)
    close(F.layer_norm(x.float(), (5,), bias=f64(b[0]).float()),
          np_layer_norm(a, 1, None, b[0]), rtol=1e-5, atol=1e-5)


def test_layer_norm_gradients_and_node():
    x = f64(rand((3, 4), 23), requires_grad=True)
    w = f64(rand(4, 24), requires_grad=True)
    b = f64(rand(4, 25), requires_grad=True)
    y = F.layer_norm(x, (4,), w, b)
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    assert len(y.grad_fn.next_functions) == 3
    assert gradcheck(lambda *a: F.layer_norm(a[0], (4,), a[1], a[2]), (x, w, b))
    assert gradgradcheck(lambda *a: F.layer_norm(a[0], (4,), a[1], a[2]), (x, w, b))
    x3 = f64(rand((2, 2, 3), 26), requires_grad=True)
    w2 = f64(rand((2, 3), 27), requires_grad=True)
    assert gradcheck(lambda a, c: F.layer_norm(a, (2, 3), c), (x3, w2))
    assert gradgradcheck(lambda a: F.layer_norm(a, (3,)), (x3,))
    assert F.layer_norm(ferric.zeros(0, 4), (4,)).shape == (0, 4)


# ------------------------------------------------------------------- batch norm


def np_batch_norm(x, mean, var, w, b, eps=1e-5):
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return y * w.reshape(shape) + b.reshape(shape)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 2, 3)])
def test_batch_norm_training_eval_and_running_stats(shape):
    a = rand(shape, 30, -2, 3)
    c = shape[1]
    w, b = rand(c, 31), rand(c, 32)
    axes = (0,) + tuple(range(2, len(shape)))
    mean, var = a.mean(axes), a.var(axes)
    n = a.size // c
    rm, rv = f64(rand(c, 33)), f64(rand(c, 34, 0.5, 2))
    rm0, rv0 = np_of(rm).copy(), np_of(rv).copy()
    for _name, x in [("contiguous", f64(a)), ("strided", f64(np.repeat(a, 2, -1))[..., ::2])]:
        rm.copy_(f64(rm0))
        rv.copy_(f64(rv0))
        y = F.batch_norm(x, rm, rv, f64(w), f64(b), training=True, momentum=0.3)
        close(y, np_batch_norm(a, mean, var, w, b), rtol=1e-10, atol=1e-12)
        close(rm, 0.7 * rm0 + 0.3 * mean, rtol=1e-12)
        close(rv, 0.7 * rv0 + 0.3 * var * n / (n - 1), rtol=1e-12)
    close(F.batch_norm(f64(a), rm, rv, training=False), np_batch_norm(a, np_of(rm), np_of(rv),
                                                                   np.ones(c), np.zeros(c)))
    close(F.batch_norm(f64(a).float(), None, None, training=True),
          np_batch_norm(a, mean, var, np.ones(c), np.zeros(c)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradients_and_node(training):
    x = f64(rand((4, 3, 2), 35), requires_grad=True)
    w = f64(rand(3, 36), requires_grad=True)
    b = f64(rand(3, 37), requires_grad=True)
    rm, rv = f64(rand(3, 38)), f64(rand(3, 39, 0.5, 2))

    def fn(a, c, d):
        # fresh running stats each call so gradcheck's repeated calls see the same function
        return F.batch_norm(a, rm.clone(), rv.clone(), c, d, training=training)
    y = fn(x, w, b)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


# ------------------------------------------------------------------- dropout


def test_dropout_matches_the_composite_mask():
    x = f64(rand((5, 7), 40), requires_grad=True)
    for p in (0.2, 0.5, 0.9):
        ferric.manual_seed(123)
        y = F.dropout(x, p)
        ferric.manual_seed(123)
        noise = ferric.empty(5, 7, dtype=ferric.float64).bernoulli_(1 - p).div_(1 - p)
        np.testing.assert_array_equal(np_of(y), np_of(x * noise))
        assert y.grad_fn.name() == "MulBackward0"
        y.sum().backward()
        np.testing.assert_array_equal(np_of(x.grad), np_of(noise))
        x.grad = None
    close(F.dropout(x, 1.0), np.zeros((5, 7)))
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.5, training=False) is x
    # channel dropout zeroes whole channels
    y = F.dropout2d(ferric.ones(4, 6, 3, 3), 0.5)
    per_channel = np_of(y).reshape(4, 6, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    # in place
    z = ferric.ones(100)
    ferric.manual_seed(1)
    F.dropout(z, 0.5, inplace=True)
    assert set(np.unique(np_of(z)).tolist()) <= {0.0, 2.0}


def test_dropout_float32_same_as_torch_formula():
    ferric.manual_seed(7)
    y = F.dropout(ferric.ones(1000), 0.3)
    vals = set(np.unique(np_of(y)).tolist())
    assert vals == {0.0, float(np.float32(1) / np.float32(0.7))}


# ------------------------------------------------------------------- embedding


def test_embedding_values_gradients_and_node():
    w = rand((6, 3), 50)
    idx = ferric.tensor([[0, 2, 5], [2, 2, 1]])
    out = F.embedding(idx, f64(w))
    close(out, w[np_of(idx)])
    # a transposed (non-contiguous) weight
    wt = f64(np.ascontiguousarray(w.T)).t()
    close(F.embedding(idx, wt), w[np_of(idx)])
    weight = f64(w, requires_grad=True)
    y = F.embedding(idx, weight, padding_idx=1, scale_grad_by_freq=True)
    assert y.grad_fn.name() == "EmbeddingBackward0"
    g = rand((2, 3, 3), 51)
    y.backward(f64(g))
    want = np.zeros((6, 3))
    flat, gf = np_of(idx).reshape(-1), g.reshape(-1, 3)
    counts = np.bincount(flat, minlength=6)
    for i, r in zip(flat, gf, strict=True):
        if i != 1:
            want[i] += r / counts[i]
    close(weight.grad, want, rtol=1e-12)
    assert gradcheck(lambda a: F.embedding(idx, a), (weight,))
    # padding_idx and scale_grad_by_freq deliberately differ from the true derivative
    # (as in PyTorch), but the backward's own derivative must still be right
    for kw in ({}, {"padding_idx": 2}, {"scale_grad_by_freq": True}):
        assert gradgradcheck(lambda a, kw=kw: F.embedding(idx, a, **kw), (weight,))
    assert F.embedding(ferric.zeros(0, dtype=ferric.int64), f64(w)).shape == (0, 3)


# ------------------------------------------------------------------- errors

X45 = ferric.randn(4, 5)

ERRORS = [
    (lambda: F.cross_entropy(X45, ferric.tensor([1, 2, 5, 0])), IndexError,
     r"^Target 5 is out of bounds\.$"),
    (lambda: F.nll_loss(X45, ferric.tensor([1, 2, 5, 0]), reduction="none"), IndexError,
     r"^Target 5 is out of bounds\.$"),
    (lambda: F.cross_entropy(ferric.randn(2, 3, 4), ferric.full((2, 4), 7)), IndexError,
     "Target 7 is out of bounds."),
    (lambda: F.cross_entropy(X45, ferric.randn(4, 6)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda: F.cross_entropy(X45, ferric.tensor(1)), ValueError,
     r"Expected input batch_size \(4\) to match target batch_size \(0\)\."),
    (lambda: F.nll_loss(ferric.randn(5), ferric.tensor([1, 2])), ValueError,
     "For 1D input, 1D target must have size 1, but got target size: 2"),
    (lambda: F.cross_entropy(X45, ferric.tensor([1, 2, 3, 0]), label_smoothing=2.0),
     RuntimeError, r"label_smoothing must be between 0\.0 and 1\.0\. Got: 2$"),
    (lambda: F.cross_entropy(X45, ferric.tensor([1, 2, 3, 0]),
                             weight=ferric.ones(5, dtype=ferric.float64)),
     RuntimeError, "expected scalar type Float but found Double"),
    (lambda: F.nll_loss(X45.long(), ferric.tensor([1, 2, 3, 0])), NotImplementedError,
     "\"nll_loss_out_frame\" not implemented for 'Long'"),
    (lambda: F.nll_loss(ferric.randn(3, 4, 5, 2), ferric.zeros(3, 5, 3, dtype=ferric.int64)),
     RuntimeError, r"size mismatch \(got input: \[3, 4, 5, 2\] , target: \[3, 5, 3\]"),
    (lambda: F.nll_loss(ferric.randn(3, 4, 5, 2), ferric.zeros(3, 5, dtype=ferric.int64)),
     RuntimeError, "only batches of spatial targets supported \\(3D tensors\\) but got targets "
                   "of dimension: 2"),
    (lambda: F.nll_loss(ferric.randn(3, 4, 2), ferric.zeros(3, 2, dtype=ferric.int64),
                        weight=ferric.ones(3)),
     RuntimeError, "weight tensor should be defined either for all or no classes"),
    (lambda: F.cross_entropy(ferric.randn(3, 4), ferric.rand(3, 4), ignore_index=1),
     RuntimeError, "ignore_index is not supported for floating point target"),
    (lambda: F.cross_entropy(ferric.randn(3, 4), ferric.rand(3, 4), weight=ferric.ones(3)),
     RuntimeError, r"cross_entropy: weight tensor should be defined either for all 4 classes or "
                   r"no classes but got weight tensor of shape: \[3\]"),
    (lambda: F.cross_entropy(X45, [1, 2]), TypeError,
     r"cross_entropy_loss\(\): argument 'target' \(position 2\) must be Tensor, not list"),
    (lambda: F.nll_loss(X45, ferric.tensor([0, 1, 2, 3]), weight=ferric.ones(5,
                                                                            requires_grad=True)),
     RuntimeError, "the derivative for 'weight' is not implemented."),
    (lambda: F.layer_norm(X45, (4,)), RuntimeError,
     r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but got input of "
     r"size\[4, 5\]"),
    (lambda: F.layer_norm(X45, ()), RuntimeError,
     r"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
     r"element, but got normalized_shape = \[\]"),
    (lambda: F.layer_norm(X45, (5,), weight=ferric.ones(4)), RuntimeError,
     r"Expected weight to be of same shape as normalized_shape, but got weight of shape \[4\] "
     r"and normalized_shape = \[5\]"),
    (lambda: F.layer_norm(X45, (5,), bias=ferric.ones(4)), RuntimeError,
     r"Expected bias to be of same shape as normalized_shape, but got bias of shape \[4\]"),
    (lambda: F.layer_norm(X45.long(), (5,)), NotImplementedError,
     "\"LayerNormKernelImpl\" not implemented for 'Long'"),
    (lambda: F.layer_norm(X45, (5,), weight=ferric.ones(5, dtype=ferric.float64)), RuntimeError,
     r"mixed dtype \(CPU\): expect parameter to have scalar type of Float"),
    (lambda: F.batch_norm(X45, ferric.zeros(3), ferric.ones(5), training=True), RuntimeError,
     "running_mean should contain 5 elements not 3"),
    (lambda: F.batch_norm(X45, ferric.zeros(5), ferric.ones(3), training=True), RuntimeError,
     "running_var should contain 5 elements not 3"),
    (lambda: F.batch_norm(X45, ferric.zeros(5), ferric.ones(5), ferric.ones(3), training=True),
     RuntimeError, "weight should contain 5 elements not 3"),
    (lambda: F.batch_norm(X45, ferric.zeros(5), ferric.ones(5), bias=ferric.ones(3)),
     RuntimeError, "bias should contain 5 elements not 3"),
    (lambda: F.batch_norm(X45, None, None), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda: F.batch_norm(X45, ferric.zeros(5, dtype=ferric.float64), ferric.ones(5),
                          training=True),
     RuntimeError, r"mixed dtype \(CPU\): expect parameter to have scalar type of Float"),
    (lambda: F.batch_norm(X45[:1], ferric.zeros(5), ferric.ones(5), training=True), ValueError,
     "Expected more than 1 value per channel when training"),
    (lambda: F.embedding(ferric.tensor([1, 11]), ferric.randn(10, 3)), IndexError,
     "index out of range in self"),
    (lambda: F.embedding(ferric.tensor([1, 2]), ferric.randn(10)), RuntimeError,
     "'weight' must be 2-D"),
    (lambda: F.embedding(ferric.tensor([1.0, 2]), ferric.randn(10, 3)), RuntimeError,
     "but got torch.FloatTensor instead"),
    (lambda: F.dropout(X45.long(), 0.5), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda: F.dropout(X45, 1.5), ValueError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_errors_leave_running_stats_unchanged():
    rm, rv = ferric.zeros(5), ferric.ones(5)
    with pytest.raises(RuntimeError):
        F.batch_norm(X45, rm, rv, ferric.ones(3), training=True)
    assert np_of(rm).tolist() == [0.0] * 5 and np_of(rv).tolist() == [1.0] * 5


# ------------------------------------------------------------------- optional: PyTorch


def test_against_torch_when_available():
    torch = pytest.importorskip("torch")
    x = rand((5, 4), 60, -3, 3)
    t = [0, 3, -100, 2, 1]
    w = rand(4, 61, 0.3, 1.4)
    for red in ("mean", "sum", "none"):
        for ls in (0.0, 0.1):
            want = torch.nn.functional.cross_entropy(
                torch.tensor(x), torch.tensor(t), weight=torch.tensor(w), reduction=red,
                label_smoothing=ls).numpy()
            got = F.cross_entropy(f64(x), ferric.tensor(t), weight=f64(w), reduction=red,
                                  label_smoothing=ls)
            close(got, want, rtol=1e-12, atol=1e-12)
    torch.manual_seed(5)
    want = torch.nn.functional.dropout(torch.ones(50), 0.4).numpy()
    ferric.manual_seed(5)
    np.testing.assert_array_equal(np_of(F.dropout(ferric.ones(50), 0.4)), want)
