"""The matmul kernels' own paths, against NumPy: matrix-vector kernels (row- and
column-contiguous matrices, strided vectors), batches split across the thread pool, the
fused `linear` / `addmm` (bias written into the output, the GEMM accumulating onto it)
on every layout and dtype, its autograd graph (PyTorch's node names, gradcheck), its
errors, and results that do not depend on the number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import laid_out, leaf_and_view

import ferric
import ferric.nn.functional as F
from ferric.autograd import gradcheck, gradgradcheck

DTYPES = {"float32": ferric.float32, "float64": ferric.float64, "int64": ferric.int64}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return rng.integers(-4, 5, size=shape).astype(np.int64)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def check_close(got, want, dtype):
    got = got.numpy()
    assert got.shape == want.shape
    if dtype == "int64":
        np.testing.assert_array_equal(got, want)
    else:
        tol = 2e-4 if dtype == "float32" else 1e-10
        scale = max(1.0, np.abs(want).max(initial=0.0))
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.fixture
def threads():
    """Sets the pool size for a test and restores it afterwards."""
    before = ferric.get_num_threads()
    yield ferric.set_num_threads
    ferric.set_num_threads(before)


# ---- matrix-vector kernels --------------------------------------------------------------

MV_SHAPES = [(7, 5), (19, 37), (64, 200), (300, 1100)]
KINDS = ["contiguous", "transposed", "stepped", "expanded_last"]  # see layouts.py


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("mkind", KINDS)
@pytest.mark.parametrize("vkind", ["contiguous", "stepped", "expanded"])
@pytest.mark.parametrize("shape", MV_SHAPES)
def test_mv_layouts(dtype, mkind, vkind, shape):
    a, an = laid_out(rand(shape, dtype, 1), mkind)
    v, vn = laid_out(rand(shape[1:], dtype, 2), vkind)
    want = an.astype(np.float64) @ vn.astype(np.float64)
    check_close(a.mv(v), want.astype(an.dtype), dtype)
    check_close(a @ v, want.astype(an.dtype), dtype)
    # a vector on the left: v @ a.T is the same product read through the other operand
    check_close(v @ a.T, want.astype(an.dtype), dtype)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_matmul_with_vector_operands_in_batches(dtype):
    x, xn = laid_out(rand((6, 33, 40), dtype, 3), "contiguous")
    xt, xtn = laid_out(rand((6, 33, 40), dtype, 3), "transposed")
    v, vn = laid_out(rand((40,), dtype, 4), "stepped")
    u, un = laid_out(rand((33,), dtype, 5), "contiguous")
    check_close(x @ v, xn @ vn, dtype)
    check_close(xt @ v, xtn @ vn, dtype)
    check_close(u @ x, un @ xn, dtype)
    check_close(u @ xt, un @ xtn, dtype)


def test_dot_paths():
    for n in (0, 1, 15, 16, 17, 1000):
        x, xn = laid_out(rand((n,), "float64", 6), "contiguous")
        y, yn = laid_out(rand((n,), "float64", 7), "stepped")
        assert abs(x.dot(y).item() - float(xn @ yn)) < 1e-12 * max(1, n)


# ---- batches on the pool ----------------------------------------------------------------

BATCHES = [
    ((64, 16, 12), (64, 12, 8)),  # many small products (plain loop)
    ((40, 48, 40), (40, 40, 33)),  # small GEMMs
    ((3, 130, 90), (3, 90, 70)),  # few large products: split inside each
    ((2, 1, 20, 30), (1, 4, 30, 10)),  # broadcast batch dims (stride 0)
    ((8, 64, 100), (8, 100, 1)),  # a batch of matrix-vector products
    ((0, 5, 4), (0, 4, 3)),  # empty batch
    ((4, 5, 0), (4, 0, 3)),  # empty inner dim: zeros
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("kind", ["contiguous", "transposed"])
@pytest.mark.parametrize("sa,sb", BATCHES)
def test_batched_products_match_numpy_on_any_thread_count(threads, dtype, kind, sa, sb):
    a, an = laid_out(rand(sa, dtype, 8), kind)
    b, bn = laid_out(rand(sb, dtype, 9), "contiguous")
    want = np.matmul(an, bn)
    threads(1)
    one = a @ b
    threads(2)
    two = a @ b
    check_close(one, want, dtype)
    # splitting by whole products or inside gemm leaves each sum in the same order
    check_close(two, one.numpy(), dtype)


@pytest.mark.parametrize("m,k,n", [(64, 64, 64), (200, 200, 200), (520, 520, 520), (700, 90, 150),
                                   (300, 500, 1100)])
def test_large_products_are_thread_count_independent(threads, m, k, n):
    # big products are cut into panels of C (columns, or rows when C is tall), each
    # summed in the same order as on one thread: identical bits
    a, an = laid_out(rand((m, k), "float32", 10), "contiguous")
    b, bn = laid_out(rand((k, n), "float32", 11), "transposed")
    threads(1)
    one = (a @ b).numpy()
    threads(2)
    two = (a @ b).numpy()
    np.testing.assert_allclose(one, an.astype(np.float64) @ bn, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(two, one)


def test_large_mv_is_thread_count_independent(threads):
    a, an = laid_out(rand((1200, 1000), "float64", 12), "contiguous")
    v, vn = laid_out(rand((1000,), "float64", 13), "contiguous")
    threads(1)
    one = a.mv(v).numpy()
    threads(2)
    two = a.mv(v).numpy()
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one, an @ vn, rtol=1e-12, atol=1e-12)


# ---- fused addmm / linear ---------------------------------------------------------------

def np_linear(x, w, b):
    out = np.matmul(x, np.swapaxes(w, -1, -2)) if w.ndim == 2 else x @ w
    return out if b is None else out + b


# (input shape, weight shape, bias shape or None)
LINEAR_SHAPES = [
    ((5, 7), (3, 7), (3,)),
    ((5, 7), (3, 7), None),
    ((2, 5, 7), (3, 7), (3,)),
    ((2, 2, 5, 7), (3, 7), (3,)),
    ((7,), (3, 7), (3,)),
    ((7,), (3, 7), None),
    ((2, 5, 7), (3, 7), (5, 3)),  # a 2-D bias: matmul + add
    ((5, 7), (3, 7), (5, 3)),
    ((5, 7), (3, 7), ()),  # a 0-d bias
    ((0, 7), (3, 7), (3,)),
    ((2, 0, 7), (3, 7), (3,)),
    ((5, 0), (3, 0), (3,)),  # empty inner dim: the bias alone
    ((7,), (7,), ()),  # 1-D weight: a dot product plus a scalar
    ((40, 96), (70, 96), (70,)),  # large enough for the GEMM crate
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("xkind", KINDS)
@pytest.mark.parametrize("wkind", ["contiguous", "transposed"])
@pytest.mark.parametrize("shapes", LINEAR_SHAPES)
def test_linear_matches_numpy(dtype, xkind, wkind, shapes):
    sx, sw, sb = shapes
    x, xn = laid_out(rand(sx, dtype, 14), xkind)
    w, wn = laid_out(rand(sw, dtype, 15), wkind)
    b, bn = (None, None) if sb is None else laid_out(rand(sb, dtype, 16), "contiguous")
    with ferric.no_grad():
        got = F.linear(x, w, b)
    check_close(got, np_linear(xn, wn, bn).astype(xn.dtype), dtype)
    # the same numbers with a graph (PyTorch's decomposition rather than the fused op)
    if dtype != "int64":
        wg = w.detach().requires_grad_(True)
        check_close(F.linear(x, wg, b).detach(), np_linear(xn, wn, bn), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_addmm_fused_with_scales(dtype):
    m1, n1 = laid_out(rand((30, 20), dtype, 17), "transposed")
    m2, n2 = laid_out(rand((20, 25), dtype, 18), "contiguous")
    inp, ni = laid_out(rand((25,), dtype, 19), "stepped")
    for beta, alpha in [(1, 1), (2, 3), (0, 2)]:
        got = ferric.addmm(inp, m1, m2, beta=beta, alpha=alpha)
        check_close(got, (beta * ni + alpha * (n1 @ n2)).astype(n1.dtype), dtype)


# ---- wide float32 products: ferric's packed AVX-512 kernel (n >= 512 with a transposed B,
# n >= 640 otherwise; m >= 48, k >= 64; the `gemm` crate elsewhere and without AVX-512) -----

WIDE = [(50, 70, 512), (61, 400, 1000), (130, 100, 777)]  # m, k, n: edge tiles both ways


@pytest.mark.parametrize("akind", KINDS)
@pytest.mark.parametrize("bkind", KINDS)
@pytest.mark.parametrize("m,k,n", WIDE)
def test_wide_float32_products_on_every_layout(akind, bkind, m, k, n):
    a, an = laid_out(rand((m, k), "float32", 20), akind)
    b, bn = laid_out(rand((k, n), "float32", 21), bkind)
    want = an.astype(np.float64) @ bn.astype(np.float64)
    check_close(a @ b, want.astype(np.float32), "float32")


@pytest.mark.parametrize("beta,alpha", [(1, 1), (2, 3), (0.5, -1), (0, 2)])
def test_wide_float32_addmm_and_baddbmm_scale_both_terms(beta, alpha):
    m1, n1 = laid_out(rand((64, 900), "float32", 22), "contiguous")
    m2, n2 = laid_out(rand((900, 600), "float32", 23), "transposed")
    inp, ni = laid_out(rand((64, 600), "float32", 24), "stepped")
    want = beta * ni.astype(np.float64) + alpha * (n1.astype(np.float64) @ n2)
    got = ferric.addmm(inp, m1, m2, beta=beta, alpha=alpha)
    check_close(got, want.astype(np.float32), "float32")
    b1, b2, bi = m1.expand(2, 64, 900), m2.expand(2, 900, 600), inp.expand(2, 64, 600)
    got = ferric.baddbmm(bi, b1, b2, beta=beta, alpha=alpha)
    check_close(got, np.broadcast_to(want, (2, 64, 600)).astype(np.float32), "float32")


def test_addmm_beta_zero_ignores_nan_input():
    inp = ferric.full((4, 3), float("nan"))
    out = ferric.addmm(inp, ferric.ones(4, 2), ferric.ones(2, 3), beta=0)
    assert (out.numpy() == 2).all()


def test_linear_bias_of_another_float_dtype_in_the_add_path():
    # PyTorch adds the bias in place there, so the product's dtype wins
    x = ferric.randn(3, 2, 4).transpose(0, 1)
    w, b = ferric.randn(5, 4), ferric.randn(5, dtype=ferric.float64)
    out = F.linear(x, w, b)
    assert out.dtype == ferric.float32
    want = x.numpy().astype(np.float64) @ w.numpy().T.astype(np.float64) + b.numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def node_names(t):
    """The chain of first non-leaf parents from `t.grad_fn`."""
    out, f = [], t.grad_fn
    while f is not None:
        out.append(f.name())
        nxt = [n for n, _ in f.next_functions if n is not None and "Accumulate" not in n.name()]
        f = nxt[0] if nxt else None
    return out


# (input factory, bias?, PyTorch 2.15's node chain)
GRAPHS = [
    (lambda: ferric.randn(3, 4), True, ["AddmmBackward0", "TBackward0"]),
    (lambda: ferric.randn(3, 4), False, ["MmBackward0", "TBackward0"]),
    (lambda: ferric.randn(2, 3, 4), True, ["UnsafeViewBackward0", "AddmmBackward0", "TBackward0"]),
    (lambda: ferric.randn(2, 3, 4), False, ["UnsafeViewBackward0", "MmBackward0", "TBackward0"]),
    (lambda: ferric.randn(4), True, ["UnsafeViewBackward0", "AddmmBackward0", "TBackward0"]),
    (lambda: ferric.randn(4), False, ["SqueezeBackward4", "MmBackward0", "TBackward0"]),
    (lambda: ferric.randn(3, 2, 4).transpose(0, 1), True,
     ["AddBackward0", "UnsafeViewBackward0", "MmBackward0", "TBackward0"]),
    (lambda: ferric.randn(4, 3).t(), True, ["AddmmBackward0", "TBackward0"]),
]


@pytest.mark.parametrize("make,with_bias,names", GRAPHS)
def test_linear_records_pytorch_nodes(make, with_bias, names):
    w = ferric.randn(5, 4, requires_grad=True)
    b = ferric.randn(5, requires_grad=True) if with_bias else None
    out = F.linear(make(), w, b)
    assert node_names(out) == names


def test_linear_folds_a_contiguous_input_through_a_view():
    x = ferric.randn(2, 3, 4, requires_grad=True)
    out = F.linear(x, ferric.randn(5, 4), ferric.randn(5))
    addmm = out.grad_fn.next_functions[0][0]
    assert addmm.name() == "AddmmBackward0"
    assert [n.name() if n else None for n, _ in addmm.next_functions][1] == "ViewBackward0"


GRAD_CASES = [
    ((3, 4), (5, 4), (5,), "contiguous"),
    ((3, 4), (5, 4), None, "transposed"),
    ((2, 3, 4), (5, 4), (5,), "contiguous"),
    ((2, 3, 4), (5, 4), (5,), "stepped"),
    ((2, 3, 4), (5, 4), (3, 5), "contiguous"),
    ((4,), (5, 4), (5,), "contiguous"),
    ((3, 4), (5, 4), (5,), "expanded_last"),
]


@pytest.mark.parametrize("sx,sw,sb,kind", GRAD_CASES)
def test_linear_gradcheck(sx, sw, sb, kind):
    rng = np.random.default_rng(20)

    def leaf(shape):
        return ferric.tensor(rng.uniform(-1, 1, size=shape), dtype=ferric.float64,
                             requires_grad=True)

    xbase, view = leaf_and_view(rng.uniform(-1, 1, size=sx), kind)
    leaves = (xbase, leaf(sw)) + (() if sb is None else (leaf(sb),))

    def f(x, w, *b):
        return F.linear(view(x), w, b[0] if b else None)

    assert gradcheck(f, leaves)
    assert gradgradcheck(f, leaves)


# (call, exception type, message fragment), as PyTorch 2.15 raises them
W, B = ferric.randn(5, 4), ferric.randn(5)
ERRORS = [
    (lambda: F.linear(ferric.tensor(1.0), W, B), RuntimeError,
     "both arguments to linear need to be at least 1D, but they are 0D and 2D"),
    (lambda: F.linear(ferric.randn(3, 3), W, B), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (3x3 and 4x5)"),
    (lambda: F.linear(ferric.randn(2, 3, 3), W), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (6x3 and 4x5)"),
    (lambda: F.linear(ferric.randn(3, 4, dtype=ferric.float64), W, B), RuntimeError,
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda: F.linear(ferric.randn(2, 3, 4), W, B.double()), RuntimeError,
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda: F.linear(ferric.randn(3, 4), W, ferric.randn(4)), RuntimeError,
     "The expanded size of the tensor (5) must match the existing size (4) at "
     "non-singleton dimension 1.  Target sizes: [3, 5].  Tensor sizes: [4]"),
    (lambda: F.linear(ferric.randn(3, 2, 4).transpose(0, 1), W, ferric.randn(7)),
     RuntimeError, "The size of tensor a (5) must match the size of tensor b (7)"),
    (lambda: F.linear(ferric.randn(2, 3, 4), W, ferric.randn(4, 2, 3, 5)), RuntimeError,
     "output with shape [2, 3, 5] doesn't match the broadcast shape [4, 2, 3, 5]"),
    (lambda: F.linear(ferric.randn(3, 4), ferric.randn(4), B), RuntimeError,
     "addmm: mat2 must be a matrix, got 1-D tensor"),
    (lambda: F.linear(ferric.randn(4, 4), ferric.randn(3, 2, 4)), RuntimeError,
     "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda: F.linear(ferric.randn(4, 4), ferric.randn(3, 4), ferric.ones(3, dtype=ferric.bool)),
     RuntimeError, "self and mat2 must have the same dtype, but got Bool and Float"),
    (lambda: F.linear(ferric.ones(4, 4, dtype=ferric.bool), ferric.ones(3, 4, dtype=ferric.bool),
                      ferric.ones(3, dtype=ferric.bool)),
     NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (lambda: F.linear([1.0], W), TypeError,
     "linear(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda: F.linear(ferric.randn(3, 4), W, 1.0), TypeError,
     "linear(): argument 'bias' (position 3) must be Tensor, not float"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_linear_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert msg in str(info.value)
