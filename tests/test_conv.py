"""Convolutions, pooling and fold/unfold (``ferric._core``, ``torch.nn.functional``
names): forward against direct NumPy references on many parameter combinations and
input layouts, int64 and empty inputs, gradcheck/gradgradcheck in float64, PyTorch's node
names, and the error table (exception types and message fragments)."""

from __future__ import annotations

import itertools

import layouts
import numpy as np
import pytest
from conv_refs import (
    ref_adaptive,
    ref_avg_pool2d,
    ref_conv,
    ref_conv_transpose,
    ref_fold,
    ref_max_pool2d,
    ref_unfold,
)

import ferric
from ferric import _core as C
from ferric.autograd import gradcheck, gradgradcheck

F32, F64, I64 = ferric.float32, ferric.float64, ferric.int64
RNG = np.random.default_rng(1234)


# --- layouts -------------------------------------------------------------------------------

LAYOUTS = ["contiguous", "transposed", "channels_last", "stepped", "expanded"]  # layouts.py


def make(arr, kind="contiguous", dtype=F32):
    """A ferric tensor equal to `arr` stored as `kind`; "expanded" broadcasts `arr[:1]`,
    so `data` builds those arrays equal along dim 0."""
    return layouts.layout(arr, kind).tensor(dtype)


def wlayout(layout):
    """The layout used for weights (only data inputs are built equal along dim 0)."""
    return "stepped" if layout == "expanded" else layout


def rand(*shape):
    return RNG.standard_normal(shape)


def data(layout, *shape):
    a = rand(*shape)
    if layout == "expanded":
        a = np.broadcast_to(a[:1], a.shape).copy()
    return a


def close(t, want, dtype=F32):
    got = t.numpy()
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    tol = 2e-4 if dtype == F32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# --- forward: convolutions -----------------------------------------------------------------

CONV2D = [  # (x shape, w shape, kwargs)
    ((2, 4, 7, 6), (6, 4, 3, 3), {}),
    ((2, 4, 7, 6), (6, 4, 3, 3), dict(padding=1, stride=2)),
    ((2, 4, 9, 8), (6, 2, 3, 2), dict(groups=2, stride=(2, 1), padding=(1, 0), dilation=(2, 1))),
    ((2, 4, 7, 6), (4, 1, 3, 3), dict(groups=4, padding="same", dilation=2)),  # depthwise
    ((2, 3, 7, 6), (5, 3, 2, 4), dict(padding="same")),  # asymmetric 'same'
    ((2, 3, 7, 6), (5, 3, 3, 3), dict(padding="valid")),
    ((2, 4, 7, 6), (5, 4, 1, 1), dict(stride=2)),  # 1x1 with stride: no im2col
    ((2, 4, 7, 6), (5, 4, 1, 1), {}),
    ((1, 3, 5, 5), (2, 3, 1, 1), dict(padding=2)),  # pad beyond a 1x1 kernel
    ((2, 32, 6, 5), (8, 16, 3, 3), dict(groups=2, padding=(2, 1), dilation=(2, 1))),  # shifted
    ((1, 16, 5, 9), (4, 16, 3, 2), dict(padding="same")),  # row copies, asymmetric
    ((2, 32, 5, 4), (3, 32, 3, 3), dict(padding=(1, 2))),  # shifted GEMMs (32 per group)
    ((4, 7, 6), (6, 4, 3, 3), dict(padding=1)),  # unbatched (C, H, W)
    ((2, 4, 7, 6), (6, 4, 3, 3), dict(stride=[3], dilation=[2])),  # one-element lists
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,ws,kw", CONV2D)
def test_conv2d(xs, ws, kw, layout):
    x, w, b = data(layout, *xs), rand(*ws), rand(ws[0])
    want = ref_conv(x, w, b, **kw)
    close(C.conv2d(make(x, layout), make(w, wlayout(layout)), make(b), **kw), want)
    close(C.conv2d(make(x, layout, F64), make(w, "contiguous", F64), **kw),
          ref_conv(x, w, None, **kw), F64)


CONV1D = [
    ((2, 4, 9), (6, 4, 3), {}),
    ((2, 4, 9), (6, 2, 3), dict(groups=2, stride=2, padding=1, dilation=2)),
    ((2, 4, 9), (6, 4, 4), dict(padding="same")),
    ((4, 9), (6, 4, 3), dict(padding=2)),
    ((2, 4, 9), (3, 4, 1), dict(stride=3)),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,ws,kw", CONV1D)
def test_conv1d(xs, ws, kw, layout):
    x, w, b = data(layout, *xs), rand(*ws), rand(ws[0])
    got = C.conv1d(make(x, layout), make(w, wlayout(layout)), make(b), **kw)
    close(got, ref_conv(x, w, b, **kw))


CONV_T = [  # (x shape, w shape (Cin, Cout/g, k...), kwargs)
    ((2, 4, 5, 6), (4, 3, 3, 3), {}),
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(groups=2, stride=2, padding=(1, 0), dilation=(2, 1),
                                      output_padding=1)),
    ((4, 5, 6), (4, 3, 3, 3), dict(stride=3, output_padding=(2, 1))),
    ((2, 4, 5, 6), (4, 2, 2, 2), dict(stride=2, padding=1, dilation=3, output_padding=2)),
    ((2, 4, 3, 3), (4, 1, 3, 3), dict(groups=4, stride=2)),
    ((2, 4, 9), (4, 3, 3), dict(stride=2, output_padding=1)),  # 1-d
    ((4, 9), (4, 2, 4), dict(groups=2, padding=1, dilation=2)),  # 1-d unbatched
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,ws,kw", CONV_T)
def test_conv_transpose(xs, ws, kw, layout):
    f = C.conv_transpose1d if len(ws) == 3 else C.conv_transpose2d
    x, w = data(layout, *xs), rand(*ws)
    b = rand(ws[1] * kw.get("groups", 1))
    got = f(make(x, layout), make(w, wlayout(layout)), make(b), **kw)
    close(got, ref_conv_transpose(x, w, b, **kw))


def test_conv_int64_and_empty():
    x, w = RNG.integers(-5, 5, (2, 3, 6, 5)), RNG.integers(-3, 3, (4, 3, 3, 3))
    got = C.conv2d(ferric.tensor(x), ferric.tensor(w), padding=1)
    assert got.dtype == I64
    np.testing.assert_array_equal(got.numpy(), ref_conv(x, w, padding=1))
    got = C.conv_transpose2d(ferric.tensor(x), ferric.tensor(w.transpose(1, 0, 2, 3)), stride=2)
    np.testing.assert_array_equal(got.numpy(),
                                  ref_conv_transpose(x, w.transpose(1, 0, 2, 3), stride=2))
    # empty batch, empty channels (zeros plus bias), empty output channels per group
    assert C.conv2d(ferric.zeros(0, 3, 5, 5), ferric.ones(2, 3, 3, 3)).shape == (0, 2, 3, 3)
    y = C.conv2d(ferric.zeros(1, 0, 5, 5), ferric.ones(2, 0, 3, 3), ferric.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to([[[[1.0]], [[2.0]]]], (1, 2, 3, 3)))
    y = C.conv_transpose2d(ferric.zeros(0, 4, 5, 5), ferric.ones(4, 2, 3, 3))
    assert y.shape == (0, 2, 7, 7)


# --- forward: pooling and fold/unfold -------------------------------------------------------

POOL = [  # (x shape, kernel, stride, padding, dilation, ceil_mode)
    ((2, 3, 8, 8), 2, None, 0, 1, False),
    ((2, 3, 9, 8), 3, 2, 1, 1, True),
    ((2, 3, 9, 8), (3, 2), (2, 1), (1, 1), (2, 3), False),
    ((2, 3, 9, 8), 2, 3, 0, 1, True),  # ceil: a last window starting inside the input
    ((2, 3, 5, 5), 3, 2, 1, 1, True),  # ceil: the extra window would start in the padding
    ((3, 7, 6), (2, 3), 1, (1, 1), 1, False),  # unbatched
    ((0, 3, 6, 6), 2, None, 0, 1, False),  # empty batch
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,k,s,p,d,ceil", POOL)
def test_max_pool2d(xs, k, s, p, d, ceil, layout):
    x = data(layout, *xs)
    if x.size:
        x.reshape(-1)[[3, 7]] = np.nan  # NaN wins (the last one of a window)
        x.reshape(-1)[[10, 11]] = 0.5  # ties pick the first
        if layout == "expanded":
            x = np.broadcast_to(x[:1], x.shape).copy()
    want, widx = ref_max_pool2d(x, k, s, p, d, ceil)
    t = make(x, layout)
    out, idx = C.max_pool2d(t, k, s, p, d, ceil, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), want.astype(np.float32))
    np.testing.assert_array_equal(idx.numpy(), widx)
    assert idx.dtype == I64
    out2, idx2 = C.max_pool2d_with_indices(t, k, s, p, d, ceil)
    np.testing.assert_array_equal(idx2.numpy(), widx)
    np.testing.assert_array_equal(C.max_pool2d(t, k, s, p, d, ceil).numpy(), out.numpy())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,k,s,p,d,ceil", [r for r in POOL if r[4] == 1])
@pytest.mark.parametrize("cip,div", [(True, None), (False, None), (True, 3)])
def test_avg_pool2d(xs, k, s, p, d, ceil, cip, div, layout):
    x = data(layout, *xs)
    got = C.avg_pool2d(make(x, layout), k, s, p, ceil, cip, div)
    close(got, ref_avg_pool2d(x, k, s, p, ceil, cip, div))


def test_max_pool_empty_window():
    """A window with no rows inside the input (padding + dilation): -inf and PyTorch's
    out-of-plane index; the backward refuses it (PyTorch writes out of bounds)."""
    x = ferric.tensor(np.arange(14.0).reshape(2, 1, 1, 7), requires_grad=True)
    out, idx = C.max_pool2d(x, (2, 2), (1, 3), (1, 1), (2, 1), True, return_indices=True)
    assert np.isneginf(out.detach().numpy()).all()
    np.testing.assert_array_equal(idx.numpy()[0, 0, 0], [7, 9, 12])
    with pytest.raises(RuntimeError, match="index out of range"):
        out.backward(ferric.ones(*out.shape, dtype=F64))


def test_pool_int64():
    x = RNG.integers(-9, 9, (2, 3, 7, 7))
    out, idx = C.max_pool2d(ferric.tensor(x), 3, 2, 1, return_indices=True)
    want, widx = ref_max_pool2d(x, 3, 2, 1)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), widx)
    # integer average pooling truncates toward zero, like PyTorch's
    got = C.avg_pool2d(ferric.tensor(x), 2, 2)
    sums = np.rint(ref_avg_pool2d(x, 2, 2) * 4).astype(np.int64)
    np.testing.assert_array_equal(got.numpy(), np.trunc(sums / 4).astype(np.int64))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,size", [((2, 3, 9, 8), (3, 5)), ((2, 3, 9, 8), 1),
                                     ((2, 3, 9, 8), (None, 3)), ((3, 7, 6), (4, None)),
                                     ((2, 3, 5, 4), 7), ((0, 3, 5, 4), 2)])
def test_adaptive_pools(xs, size, layout):
    x = data(layout, *xs)
    if x.size:
        x.reshape(-1)[5] = np.nan
        if layout == "expanded":
            x = np.broadcast_to(x[:1], x.shape).copy()
    t = make(x, layout)
    close(C.adaptive_avg_pool2d(t, size), ref_adaptive(x, size, "avg"))
    want, widx = ref_adaptive(x, size, "max")
    out, idx = C.adaptive_max_pool2d(t, size, return_indices=True)
    close(out, want)
    np.testing.assert_array_equal(idx.numpy(), widx)
    np.testing.assert_array_equal(C.adaptive_max_pool2d(t, size).numpy(), out.numpy())


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_pools_1d(layout):
    x = data(layout, 2, 3, 11)
    t = make(x, layout)
    x4 = x[:, :, None]
    out, idx = C.max_pool1d(t, 3, 2, 1, return_indices=True)
    want, widx = ref_max_pool2d(x4, (1, 3), (1, 2), (0, 1))
    close(out, want[:, :, 0])
    np.testing.assert_array_equal(idx.numpy(), widx[:, :, 0])
    close(C.max_pool1d(t, 2), ref_max_pool2d(x4, (1, 2))[0][:, :, 0])
    close(C.avg_pool1d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
          ref_avg_pool2d(x4, (1, 3), (1, 2), (0, 1), True, False)[:, :, 0])
    close(C.adaptive_avg_pool1d(t, 4), ref_adaptive(x4, (1, 4), "avg")[:, :, 0])
    out, idx = C.adaptive_max_pool1d(t, 4, return_indices=True)
    want, widx = ref_adaptive(x4, (1, 4), "max")
    close(out, want[:, :, 0])
    np.testing.assert_array_equal(idx.numpy(), widx[:, :, 0])
    assert C.max_pool1d(make(x[0], layout), 2).shape == (3, 5)  # unbatched


FOLD = [  # (image shape, kernel, dilation, padding, stride)
    ((2, 3, 9, 8), 2, 1, 0, 1),
    ((2, 3, 9, 8), (3, 2), (1, 2), 1, (2, 1)),
    ((3, 6, 7), 3, 2, (2, 0), 3),
    ((0, 3, 5, 5), 2, 1, 0, 1),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("xs,k,d,p,s", FOLD)
def test_unfold_fold(xs, k, d, p, s, layout):
    x = data(layout, *xs)
    cols = ref_unfold(x, k, d, p, s)
    close(C.unfold(make(x, layout), k, d, p, s), cols)
    c = data(layout, *cols.shape) if cols.shape[0] else cols
    close(C.fold(make(c, layout), xs[-2:], k, d, p, s), ref_fold(c, xs[-2:], k, d, p, s))


# --- autograd -------------------------------------------------------------------------------

def leaf(*shape, seed=0):
    r = np.random.default_rng(seed)
    return ferric.tensor(r.uniform(-1, 1, shape), dtype=F64, requires_grad=True)


def T(t):
    """A transposed (non-contiguous) view of a leaf, for gradients through strides."""
    return t.transpose(-1, -2)


# op -> list of (function of leaves, leaf shapes); the function applies its own layouts
GRAD_CASES = {
    "conv2d": [
        (lambda x, w, b: C.conv2d(x, w, b, padding=1), [(1, 2, 4, 3), (3, 2, 2, 2), (3,)]),
        (lambda x, w: C.conv2d(T(x), w, stride=2, groups=2, dilation=(1, 2)),
         [(2, 4, 5, 4), (2, 2, 2, 2)]),
        (lambda x, w: C.conv2d(x, w, padding="same"), [(2, 3, 3), (2, 2, 2, 2)]),
        (lambda x, w: C.conv2d(x, w, padding=1), [(1, 32, 2, 2), (2, 32, 2, 2)]),  # shifted
    ],
    "conv1d": [
        (lambda x, w, b: C.conv1d(x[..., ::2], w, b, stride=2, padding=1),
         [(2, 2, 10), (3, 2, 3), (3,)]),
    ],
    "conv_transpose2d": [
        (lambda x, w, b: C.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
         [(1, 2, 3, 2), (2, 2, 2, 3), (2,)]),
        (lambda x, w: C.conv_transpose2d(T(x), w, groups=2, dilation=2), [(4, 2, 3), (4, 1, 2, 2)]),
    ],
    "conv_transpose1d": [
        (lambda x, w: C.conv_transpose1d(x, w, stride=3, output_padding=2), [(1, 2, 3), (2, 2, 2)]),
    ],
    "max_pool2d": [
        (lambda x: C.max_pool2d(x, 2, 1, 1, ceil_mode=True), [(1, 2, 3, 4)]),
        (lambda x: C.max_pool2d(T(x), 3, 2, 1, dilation=(1, 2)), [(2, 5, 4)]),
    ],
    "max_pool2d_with_indices": [
        (lambda x: C.max_pool2d_with_indices(x, 2)[0], [(1, 1, 4, 4)]),
    ],
    "max_pool1d": [(lambda x: C.max_pool1d(x, 2, 1), [(2, 2, 5)])],
    "avg_pool2d": [
        (lambda x: C.avg_pool2d(x, 2, 1, 1, ceil_mode=True, count_include_pad=False),
         [(1, 2, 3, 4)]),
        (lambda x: C.avg_pool2d(T(x), 3, 2, 1, divisor_override=2), [(2, 5, 4)]),
    ],
    "avg_pool1d": [(lambda x: C.avg_pool1d(x, 3, 2, 1), [(2, 2, 6)])],
    "adaptive_avg_pool2d": [(lambda x: C.adaptive_avg_pool2d(T(x), (2, 3)), [(1, 2, 4, 5)])],
    "adaptive_avg_pool1d": [(lambda x: C.adaptive_avg_pool1d(x, 3), [(2, 2, 5)])],
    "adaptive_max_pool2d": [(lambda x: C.adaptive_max_pool2d(x, (3, 2)), [(1, 2, 4, 5)])],
    "adaptive_max_pool1d": [(lambda x: C.adaptive_max_pool1d(x, 2), [(2, 2, 5)])],
    "unfold": [(lambda x: C.unfold(T(x), 2, 2, 1, (2, 1)), [(1, 2, 4, 3)])],
    "fold": [(lambda x: C.fold(x, (3, 4), 2, 1, (1, 0), (2, 1)), [(1, 8, 6)])],
}

# Every differentiable function of this family; a missing gradient test fails here.
DIFFERENTIABLE = {
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d",
    "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "unfold", "fold",
}


def test_every_op_has_gradient_tests():
    assert set(GRAD_CASES) == DIFFERENTIABLE
    assert all(hasattr(C, n) for n in DIFFERENTIABLE)


@pytest.mark.parametrize("op,i", [(op, i) for op, cs in GRAD_CASES.items()
                                  for i in range(len(cs))])
def test_gradcheck(op, i):
    fn, shapes = GRAD_CASES[op][i]
    leaves = tuple(leaf(*s, seed=j) for j, s in enumerate(shapes))
    assert gradcheck(fn, leaves)
    assert gradgradcheck(fn, leaves)


@pytest.mark.parametrize("fn,name", [
    (lambda x, w: C.conv2d(x, w), "ConvolutionBackward0"),
    (lambda x, w: C.conv1d(x[:, :, 0], w[:, :, 0]), "ConvolutionBackward0"),
    (lambda x, w: C.conv_transpose2d(x, w.transpose(0, 1)), "ConvolutionBackward0"),
    (lambda x, w: C.conv2d(x[0], w), "SqueezeBackward1"),
    (lambda x, w: C.max_pool2d(x, 2), "MaxPool2DWithIndicesBackward0"),
    (lambda x, w: C.max_pool2d(x[0], 2), "MaxPool2DWithIndicesBackward0"),
    (lambda x, w: C.max_pool1d(x[0], 2), "SqueezeBackward1"),
    (lambda x, w: C.avg_pool2d(x, 2), "AvgPool2DBackward0"),
    (lambda x, w: C.adaptive_avg_pool2d(x, 2), "AdaptiveAvgPool2DBackward0"),
    (lambda x, w: C.adaptive_max_pool2d(x, 2), "AdaptiveMaxPool2DBackward0"),
    (lambda x, w: C.unfold(x, 2), "Im2ColBackward0"),
    (lambda x, w: C.fold(x[0, 0], 3, 2), "Col2ImBackward0"),
])
def test_node_names(fn, name):
    x, w = leaf(2, 4, 4, 4), leaf(3, 4, 3, 3)
    assert fn(x, w).grad_fn.name() == name


def test_graph_details():
    x, w, b = leaf(2, 3, 5, 5), leaf(4, 3, 3, 3), leaf(4)
    y = C.conv2d(x, w)
    assert [n for n, _ in y.grad_fn.next_functions][2] is None  # no bias: a None edge
    assert len(C.conv2d(x, w, b).grad_fn.next_functions) == 3
    g, = ferric.autograd.grad(y, x, ferric.ones(*y.shape, dtype=F64), create_graph=True)
    assert g.grad_fn.name() == "ConvolutionBackwardBackward0"
    p = C.max_pool2d(x, 2)
    g, = ferric.autograd.grad(p, x, ferric.ones(*p.shape, dtype=F64), create_graph=True)
    assert g.grad_fn.name() == "MaxPool2DWithIndicesBackwardBackward0"
    with ferric.no_grad():
        assert C.conv2d(x, w).grad_fn is None and not C.avg_pool2d(x, 2).requires_grad
    _, idx = C.max_pool2d(x, 2, return_indices=True)
    assert not idx.requires_grad


def test_backward_matches_reference():
    """Gradients of a larger float32 conv (the GEMM tiles) against NumPy adjoints."""
    xn, wn = rand(2, 16, 9, 7), rand(8, 8, 3, 3)
    x = ferric.tensor(xn, dtype=F32, requires_grad=True)
    w = ferric.tensor(wn, dtype=F32, requires_grad=True)
    b = ferric.tensor(rand(8), dtype=F32, requires_grad=True)
    y = C.conv2d(x, w, b, padding=(1, 2), groups=2, stride=(1, 2))
    gy = rand(*y.shape)
    y.backward(ferric.tensor(gy, dtype=F32))
    # the input gradient is the transposed convolution of gy; the weight gradient
    # correlates x with gy (checked through the adjoint identity <A(x,w), gy> = <w, gw>)
    gx_want = np.zeros_like(xn)
    for (ci, hi, wi) in itertools.product(range(16), range(9), range(7)):
        e = np.zeros_like(xn[:1])
        e[0, ci, hi, wi] = 1
        gx_want[:, ci, hi, wi] = (ref_conv(e, wn, None, (1, 2), (1, 2), 1, 2) * gy).sum(
            axis=(1, 2, 3))
    close(x.grad, gx_want)
    gw_want = np.zeros_like(wn)
    for idx in np.ndindex(*wn.shape):
        e = np.zeros_like(wn)
        e[idx] = 1
        gw_want[idx] = (ref_conv(xn, e, None, (1, 2), (1, 2), 1, 2) * gy).sum()
    close(w.grad, gw_want)
    close(b.grad, gy.sum((0, 2, 3)))


def test_empty_batch_backward():
    x, w = leaf(0, 3, 5, 5), leaf(2, 3, 3, 3)
    y = C.conv2d(x, w, padding=1)
    y.backward(ferric.ones(*y.shape, dtype=F64))
    assert x.grad.shape == (0, 3, 5, 5)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((2, 3, 3, 3)))


# --- errors ---------------------------------------------------------------------------------

def f32(*shape):
    return ferric.zeros(*shape)


X4, W4 = f32(1, 3, 5, 5), f32(16, 3, 3, 3)
ERRORS = [
    (lambda: C.conv2d(f32(1, 1, 28, 28), W4), RuntimeError,
     "Given groups=1, weight of size [16, 3, 3, 3], expected input[1, 1, 28, 28] to have 3 "
     "channels, but got 1 channels instead"),
    (lambda: C.conv2d(f32(1, 3, 2, 2), W4), RuntimeError,
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3)"),
    (lambda: C.conv2d(X4, W4, stride=2, padding="same"), RuntimeError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: C.conv2d(X4, W4, padding="foo"), RuntimeError, "Invalid padding string: 'foo'"),
    (lambda: C.conv2d(X4.double(), W4), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda: C.conv2d(X4, W4, f32(16).double()), RuntimeError,
     "Input type (float) and bias type (double) should be the same"),
    (lambda: C.conv2d(X4, W4, f32(3)), RuntimeError,
     "expected bias to be 1-dimensional with 16 elements, but got bias of size [3] instead"),
    (lambda: C.conv2d(X4, f32(15, 3, 3, 3), groups=2), RuntimeError,
     "expected weight to be divisible by 2 at dimension 0"),
    (lambda: C.conv2d(X4, W4, groups=32), RuntimeError,
     "expected weight to be at least 32 at dimension 0"),
    (lambda: C.conv2d(X4, W4, groups=0), RuntimeError, "non-positive groups is not supported"),
    (lambda: C.conv2d(X4, W4, stride=0), RuntimeError, "non-positive stride is not supported"),
    (lambda: C.conv2d(X4, W4, padding=-1), RuntimeError, "negative padding is not supported"),
    (lambda: C.conv2d(X4, W4, dilation=0), RuntimeError, "dilation should be greater than zero"),
    (lambda: C.conv2d(f32(5, 5), W4), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]"),
    (lambda: C.conv2d(X4, f32(16, 3, 3)), RuntimeError, "expected stride to be a single integer"),
    (lambda: C.conv2d(X4, f32(16, 3)), RuntimeError,
     "weight should have at least three dimensions"),
    (lambda: C.conv2d(X4, W4, padding=(1, 2, 3)), RuntimeError,
     "expected padding to be a single integer value or a list of 2 values"),
    (lambda: C.conv2d(X4, f32(0, 3, 3, 3)), RuntimeError,
     "expected weight to be at least 1 at dimension 0"),
    (lambda: C.conv2d(X4, f32(16, 3, 0, 3)), RuntimeError,
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 3"),
    (lambda: C.conv2d(X4.bool(), W4.bool()), NotImplementedError,
     "\"slow_conv2d_cpu\" not implemented for 'Bool'"),
    (lambda: C.conv2d(X4, W4, stride=2.0), TypeError, "stride"),
    (lambda: C.conv2d([1], W4), TypeError, "must be Tensor"),
    (lambda: C.conv1d(f32(1, 3, 5), f32(4, 3, 3), padding=(1, 1)), RuntimeError,
     "a list of 1 values"),
    (lambda: C.conv_transpose2d(X4, f32(4, 2, 3, 3)), RuntimeError,
     "Given transposed=1, weight of size [4, 2, 3, 3], expected input[1, 3, 5, 5] to have 4 "
     "channels, but got 3 channels instead"),
    (lambda: C.conv_transpose2d(X4, f32(3, 2, 3, 3), output_padding=1), RuntimeError,
     "output padding must be smaller than either stride or dilation"),
    (lambda: C.conv_transpose2d(f32(1, 3, 1, 1), f32(3, 2, 1, 1), padding=1), RuntimeError,
     "Calculated output size per channel: (-1 x -1). Output size is too small"),
    (lambda: C.conv_transpose2d(X4, f32(3, 2, 3, 3), f32(3)), RuntimeError,
     "expected bias to be 1-dimensional with 2 elements"),
    (lambda: C.conv_transpose2d(X4, f32(3, 2, 3, 3), padding="same"), TypeError, "padding"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
     "dilation=1"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), 9), RuntimeError,
     "Given input size: (3x8x8). Calculated output size: (3x0x0). Output size is too small"),
    (lambda: C.max_pool2d(f32(1, 1, 1, 1), 2), RuntimeError,
     "Calculated output size: (1x0x0). Output size is too small"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), 2, stride=0), RuntimeError, "stride should not be zero"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda: C.max_pool2d(f32(8, 8), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: C.max_pool2d(f32(2, 0, 8, 8), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), 3, padding=1, dilation=2), None, None),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8), 3, padding=2, dilation=2), RuntimeError,
     "pad should be smaller than or equal to half of kernel size"),
    (lambda: C.max_pool2d(f32(2, 3, 8, 8).bool(), 2), NotImplementedError,
     "\"max_pool2d\" not implemented for 'Bool'"),
    (lambda: C.max_pool1d(f32(3, 8).long(), 2), NotImplementedError, "max_pool1d_impl"),
    (lambda: C.max_pool1d(f32(8), 2), RuntimeError,
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size"),
    (lambda: C.avg_pool2d(f32(2, 3, 8, 8), 2, divisor_override=0), RuntimeError,
     "divisor must be not zero"),
    (lambda: C.avg_pool2d(f32(8, 8), 2), IndexError, "Dimension out of range"),
    (lambda: C.avg_pool2d(f32(2, 3, 8, 8), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size"),
    (lambda: C.avg_pool1d(f32(8), 2), RuntimeError, "Expected 2 to 3 dimensions"),
    (lambda: C.adaptive_avg_pool2d(f32(2, 3, 8, 8), (2, 3, 4)), RuntimeError,
     "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: C.adaptive_avg_pool2d(f32(2, 3, 8, 8), -1), RuntimeError,
     "elements of output_size must be greater than or equal to 0 but received {-1, -1}"),
    (lambda: C.adaptive_avg_pool2d(f32(2, 3, 0, 8), 2), RuntimeError,
     "with dimension 2 being empty"),
    (lambda: C.adaptive_avg_pool2d(f32(8, 8), 2), RuntimeError, "Expected 3D or 4D tensor"),
    (lambda: C.adaptive_avg_pool2d(f32(2, 3, 8, 8).long(), 2), NotImplementedError,
     "\"adaptive_avg_pool2d\" not implemented for 'Long'"),
    (lambda: C.adaptive_max_pool2d(f32(2, 0, 8, 8), 2), RuntimeError,
     "with dimension 1 being empty"),
    (lambda: C.unfold(f32(2, 3, 8, 8), 9), RuntimeError,
     "calculated shape of the array of sliding blocks as (0, 0), but its components must be "
     "at least one"),
    (lambda: C.unfold(f32(2, 3, 8, 8), 0), RuntimeError,
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    (lambda: C.unfold(f32(2, 3, 8, 8), 3, stride=0), RuntimeError,
     "stride should be greater than zero"),
    (lambda: C.unfold(f32(2, 0, 8, 8), 3), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size"),
    (lambda: C.unfold(f32(8, 8), 3), IndexError, "Dimension out of range"),
    (lambda: C.unfold(f32(2, 3, 8, 8).long(), 3), NotImplementedError, "im2col_out_cpu"),
    (lambda: C.fold(f32(2, 26, 36), 8, 3), RuntimeError,
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
     "got input.size(1)=26 and kernel_size=(3, 3)."),
    (lambda: C.fold(f32(2, 27, 35), 8, 3), RuntimeError,
     "expected size of input's dimension 2 to match the calculated number of sliding blocks 6 "
     "* 6 = 36, but got input.size(2)=35."),
    (lambda: C.fold(f32(2, 0, 36), 8, 3), RuntimeError, "Expected 2D or 3D (batch mode) tensor"),
    (lambda: C.fold(f32(2, 27, 36), (8, 8, 8), 3), RuntimeError,
     "It is expected output_size equals to 2, but got size 3"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    fn, exc, frag = ERRORS[i]
    if exc is None:
        fn()  # accepted by PyTorch too
        return
    with pytest.raises(exc) as e:
        fn()
    assert frag in str(e.value)


def test_failed_call_leaves_inputs_unchanged():
    x = leaf(1, 3, 5, 5)
    before = x.detach().clone().numpy()
    with pytest.raises(RuntimeError):
        C.conv2d(x, leaf(2, 4, 3, 3))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None
