"""matmul family (`@`, matmul, mm, bmm, mv, dot, outer, addmm, baddbmm, einsum) vs NumPy.

Every product is checked on contiguous, transposed, step-sliced and expanded (stride 0)
operands, for float32 / float64 / int64, including zero-size dims. Error rows check the
PyTorch exception type and message.
"""

import layouts
import numpy as np
import pytest

import ferric

DTYPES = ["float32", "float64", "int64"]
RTOL = {"float32": 1e-5, "float64": 1e-12, "int64": 0}


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        return rng.integers(-4, 5, size=shape).astype(np.int64)
    return rng.standard_normal(shape).astype(dtype)


def variants(arr):
    """(name, ferric tensor, the NumPy array it holds) for several memory layouts (the
    stepped rows hold junk between them, which must not leak into the result)."""
    return layouts.variants(arr, ("contiguous", "transposed", "row_stepped", "expanded"))


def check(got, want, dtype):
    assert got.dtype == getattr(ferric, dtype)
    assert tuple(got.shape) == want.shape
    g = got.numpy()
    if dtype == "int64":
        np.testing.assert_array_equal(g, want)
    else:
        np.testing.assert_allclose(g, want, rtol=RTOL[dtype], atol=RTOL[dtype] * 10)


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),  # folded into one mm
    ((5, 2, 3), (3,)),
    ((2, 3), (5, 3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (4, 3, 5)),  # (j,1,n,m) @ (k,m,p) -> (j,k,n,p)
    ((4, 1, 2, 3), (1, 5, 3, 2)),
    ((1, 3), (3, 1)),
    ((0, 3), (3, 4)),
    ((2, 0), (0, 4)),
    ((2, 3), (3, 0)),
    ((0, 2, 3), (3, 4)),
    ((3, 0), (0,)),
    ((0,), (0,)),
    ((2, 0, 3), (2, 3, 0)),
    ((17, 70), (70, 33)),  # large enough for the gemm path
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_vs_numpy(sa, sb, dtype):
    a, b = data(sa, dtype, 1), data(sb, dtype, 2)
    for _, ta, na in variants(a):
        for _, tb, nb in variants(b):
            want = np.matmul(na, nb)
            check(ta @ tb, want, dtype)
            check(ferric.matmul(ta, tb), want, dtype)
            check(ta.matmul(tb), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_bmm_mv_dot(dtype):
    a, b = data((4, 5), dtype, 1), data((5, 3), dtype, 2)
    for _, ta, na in variants(a):
        for _, tb, nb in variants(b):
            check(ferric.mm(ta, tb), na @ nb, dtype)
            check(ta.mm(tb), na @ nb, dtype)
    x, y = data((3, 4, 5), dtype, 3), data((3, 5, 2), dtype, 4)
    for _, tx, nx in variants(x):
        for _, ty, ny in variants(y):
            check(ferric.bmm(tx, ty), np.matmul(nx, ny), dtype)
    v = data((5,), dtype, 5)
    for _, ta, na in variants(a):
        for _, tv, nv in variants(v):
            check(ferric.mv(ta, tv), na @ nv, dtype)
    w = data((5,), dtype, 6)
    for _, tv, nv in variants(v):
        for _, tw, nw in variants(w):
            check(ferric.dot(tv, tw), np.asarray(np.dot(nv, nw)), dtype)
            check(tv.vdot(tw), np.asarray(np.dot(nv, nw)), dtype)
            check(ferric.outer(tv, tw), np.outer(nv, nw), dtype)
            check(tv.ger(tw), np.outer(nv, nw), dtype)


def test_outer_promotes_like_a_multiply():
    a = ferric.tensor([1, 2])
    b = ferric.tensor([0.5, 1.5, 2.5])
    r = ferric.outer(a, b)
    assert r.dtype == ferric.float32
    np.testing.assert_allclose(r.numpy(), np.outer([1, 2], [0.5, 1.5, 2.5]))
    t = ferric.tensor([True, False])
    assert ferric.outer(t, t).dtype == ferric.bool


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_addmm_baddbmm(dtype):
    inp, m1, m2 = data((4, 3), dtype, 1), data((4, 5), dtype, 2), data((5, 3), dtype, 3)
    for _, ti, ni in variants(inp):
        check(ferric.addmm(ti, ferric.tensor(m1), ferric.tensor(m2)), ni + m1 @ m2, dtype)
        r = ti.addmm(ferric.tensor(m1), ferric.tensor(m2), beta=0.5, alpha=2)
        check(r, 0.5 * ni + 2 * (m1 @ m2), dtype)
    # the input broadcasts; beta=0 ignores it, even NaN
    row = data((3,), dtype, 4)
    check(
        ferric.addmm(ferric.tensor(row), ferric.tensor(m1), ferric.tensor(m2)), row + m1 @ m2, dtype
    )
    nan = ferric.full((4, 3), float("nan"), dtype=getattr(ferric, dtype))
    check(ferric.addmm(nan, ferric.tensor(m1), ferric.tensor(m2), beta=0), m1 @ m2, dtype)
    b1, b2, bi = data((2, 4, 5), dtype, 5), data((2, 5, 3), dtype, 6), data((4, 3), dtype, 7)
    r = ferric.baddbmm(ferric.tensor(bi), ferric.tensor(b1), ferric.tensor(b2), beta=2, alpha=0.5)
    check(r, 2 * bi + 0.5 * np.matmul(b1, b2), dtype)


def test_addmm_int_scalars_truncate():
    one = ferric.ones(2, 2, dtype=ferric.int64)
    m = ferric.ones(2, 3, dtype=ferric.int64)
    n = ferric.ones(3, 2, dtype=ferric.int64)
    # PyTorch converts beta/alpha to the integer dtype
    assert ferric.addmm(one, m, n, beta=0.5).tolist() == [[3, 3], [3, 3]]
    assert ferric.addmm(one, m, n, alpha=2.5).tolist() == [[7, 7], [7, 7]]


def test_zero_inner_dim_gives_zeros():
    for dtype in DTYPES:
        d = getattr(ferric, dtype)
        r = ferric.ones(2, 0, dtype=d) @ ferric.ones(0, 3, dtype=d)
        assert r.tolist() == [[0, 0, 0], [0, 0, 0]]
        assert ferric.dot(ferric.ones(0, dtype=d), ferric.ones(0, dtype=d)).item() == 0


def test_empty_products_skip_dtype_checks_like_pytorch():
    r = ferric.bmm(_f(2, 0, 3), _f(2, 3, 4, dtype="int64"))
    assert tuple(r.shape) == (2, 0, 4) and r.dtype == ferric.int64
    r = ferric.bmm(_f(2, 2, 0, dtype="bool"), _f(2, 0, 4, dtype="bool"))
    assert r.dtype == ferric.bool and not r.numpy().any()
    r = ferric.mm(_f(2, 0, dtype="bool"), _f(0, 4, dtype="bool"))
    assert tuple(r.shape) == (2, 4)


def test_int64_overflow_wraps():
    big = ferric.tensor([[2**62, 2**62]])
    r = big @ ferric.tensor([[2], [2]])
    assert r.item() == np.matmul(np.array([[2**62, 2**62]]), np.array([[2], [2]])).item()


def test_imatmul_rebinds_like_pytorch():
    a = ferric.ones(2, 2)
    b = a
    a @= ferric.ones(2, 2)
    assert a is not b
    assert b.tolist() == [[1, 1], [1, 1]]
    assert a.tolist() == [[2, 2], [2, 2]]
    assert not hasattr(ferric.Tensor, "__imatmul__")


def test_rmatmul_and_non_tensors():
    a = ferric.tensor([[1.0, 2.0]])
    b = ferric.tensor([[3.0], [4.0]])
    assert b.__rmatmul__(a).tolist() == [[11.0]]
    assert a.__matmul__(3) is NotImplemented
    with pytest.raises(TypeError):
        _ = a @ 3


EINSUM = [
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,jk->ki", [(2, 3), (3, 4)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("i,i", [(4,), (4,)]),
    ("i,j", [(4,), (3,)]),
    ("i,i->i", [(4,), (4,)]),
    ("ba,ab", [(4, 3), (3, 4)]),
    ("Ab,bc", [(4, 3), (3, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 2, 3), (5, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),
    ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,ij,j", [(3,), (3, 4), (4,)]),
    ("iij->j", [(3, 3, 2)]),
    ("iji->ij", [(3, 2, 3)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("ij,jk->ik", [(2, 1), (3, 4)]),  # size-1 dim broadcasts
    ("ij,jk", [(2, 0), (0, 3)]),
    ("ij,jk", [(0, 2), (2, 3)]),
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_einsum_vs_numpy(eq, shapes, dtype):
    arrs = [data(s, dtype, i) for i, s in enumerate(shapes)]
    np_eq = eq.replace(" ", "")
    if np_eq == "ij,jk->ik" and shapes[0] == (2, 1):
        want = np.einsum("ij,jk->ik", np.broadcast_to(arrs[0], (2, 3)), arrs[1])
    else:
        want = np.einsum(np_eq, *arrs)
    for _, t0, n0 in variants(arrs[0]):
        ops = [t0] + [ferric.tensor(a) for a in arrs[1:]]
        if n0 is not arrs[0]:  # expanded variant holds different values
            continue
        got = ferric.einsum(eq, *ops)
        check(got, np.asarray(want), dtype)
    assert ferric.einsum(eq, [ferric.tensor(a) for a in arrs]).shape == np.asarray(want).shape


def test_einsum_dtypes_and_sublist():
    b = ferric.ones(2, 3, dtype=ferric.bool)
    assert ferric.einsum("ij->j", b).dtype == ferric.int64  # sums promote like torch.sum
    assert ferric.einsum("ij,ij->ij", b, b).dtype == ferric.bool  # plain multiply
    x, y = data((2, 3), "float64", 1), data((3, 4), "float64", 2)
    got = ferric.einsum(ferric.tensor(x), [0, 1], ferric.tensor(y), [1, 2], [0, 2])
    np.testing.assert_allclose(got.numpy(), x @ y)
    got = ferric.einsum(ferric.tensor(x), [Ellipsis, 1], ferric.tensor(y), [1, 2])
    np.testing.assert_allclose(got.numpy(), x @ y)


def _f(*s, dtype="float32"):
    return ferric.ones(*s, dtype=getattr(ferric, dtype))


ERRORS = [
    (lambda: ferric.mm(_f(3), _f(3, 2)), RuntimeError, "mm: self must be a matrix, got 1-D tensor"),
    (lambda: ferric.mm(_f(2, 3), _f(3)), RuntimeError, "mm: mat2 must be a matrix, got 1-D tensor"),
    (
        lambda: ferric.mm(_f(2, 3), _f(4, 5)),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
    ),
    (
        lambda: ferric.mm(_f(2, 3), _f(3, 2, dtype="float64")),
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != double",
    ),
    (
        lambda: ferric.mm(_f(2, 3, dtype="bool"), _f(3, 2, dtype="bool")),
        NotImplementedError,
        "\"addmm_impl_cpu_\" not implemented for 'Bool'",
    ),
    (
        lambda: ferric.matmul(ferric.tensor(1.0), _f(2, 2)),
        RuntimeError,
        "both arguments to matmul need to be at least 1D, but they are 0D and 2D",
    ),
    (
        lambda: ferric.matmul(_f(3), _f(4)),
        RuntimeError,
        "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
        "elements, but got 3 and 4 elements respectively",
    ),
    (lambda: _f(2, 3) @ _f(4), RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)"),
    (
        lambda: _f(3) @ _f(4, 5),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)",
    ),
    (
        lambda: _f(2, 3, 4) @ _f(5, 6),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (6x4 and 5x6)",
    ),
    (
        lambda: _f(2, 3, 4) @ _f(2, 5, 6),
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].",
    ),
    (
        lambda: _f(2, 3, 4) @ _f(3, 4, 6),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    (
        lambda: _f(2, 2, 3) @ _f(2, 3, 2, dtype="float64"),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
    (
        lambda: _f(3) @ _f(3, dtype="float64"),
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
    ),
    (
        lambda: _f(2, 3, dtype="bool") @ _f(3, dtype="bool"),
        NotImplementedError,
        "\"addmv_impl_cpu\" not implemented for 'Bool'",
    ),
    (lambda: ferric.bmm(_f(2, 3), _f(2, 3, 4)), RuntimeError, "batch1 must be a 3D tensor"),
    (
        lambda: ferric.bmm(_f(2, 2, 3), _f(3, 3, 4)),
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].",
    ),
    (
        lambda: ferric.bmm(_f(2, 2, 3, dtype="bool"), _f(2, 3, 4, dtype="bool")),
        NotImplementedError,
        "\"bmm\" not implemented for 'Bool'",
    ),
    (
        lambda: ferric.bmm(_f(2, 20, 30, dtype="bool"), _f(2, 30, 40, dtype="bool")),
        NotImplementedError,
        "\"addmm_impl_cpu_\" not implemented for 'Bool'",
    ),
    (
        lambda: ferric.bmm(_f(2, 20, 30), _f(2, 30, 40, dtype="int64")),
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != long int",
    ),
    (
        lambda: ferric.bmm(_f(2, 20, 30, dtype="int64"), _f(2, 30, 40)),
        RuntimeError,
        "expected scalar type Float but found Long",
    ),
    (
        lambda: ferric.dot(_f(3, 1), _f(3)),
        RuntimeError,
        "1D tensors expected, but got 2D and 1D tensors",
    ),
    (
        lambda: ferric.mv(_f(2, 3), _f(3, dtype="float64")),
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Double, Float, and Double",
    ),
    (
        lambda: ferric.outer(_f(2, 2), _f(3)),
        RuntimeError,
        "outer: Expected 1-D argument self, but got 2-D",
    ),
    (
        lambda: ferric.addmm(_f(3, 3), _f(2, 3), _f(3, 2)),
        RuntimeError,
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
        "dimension 1.  Target sizes: [2, 2].  Tensor sizes: [3, 3]",
    ),
    (
        lambda: ferric.addmm(_f(2, 2), _f(2, 3), _f(3, 2, dtype="float64")),
        RuntimeError,
        "self and mat2 must have the same dtype, but got Float and Double",
    ),
    (
        lambda: ferric.matmul(_f(2), 2),
        TypeError,
        "matmul(): argument 'other' (position 2) must be Tensor, not int",
    ),
    (
        lambda: ferric.einsum("ij->ii", _f(2, 2)),
        RuntimeError,
        "einsum(): output subscript i appears more than once in the output",
    ),
    (
        lambda: ferric.einsum("ij->k", _f(2, 2)),
        RuntimeError,
        "einsum(): output subscript k does not appear in the equation for any input operand",
    ),
    (
        lambda: ferric.einsum("ijk", _f(2, 2)),
        RuntimeError,
        "einsum(): the number of subscripts in the equation (3) does not match the number of "
        "dimensions (2) for operand 0 and no ellipsis was given",
    ),
    (
        lambda: ferric.einsum("ij", _f(2, 2), _f(2, 2)),
        RuntimeError,
        "einsum(): more operands were provided than specified in the equation",
    ),
    (
        lambda: ferric.einsum("ij,jk", _f(2, 2)),
        RuntimeError,
        "einsum(): fewer operands were provided than specified in the equation",
    ),
    (
        lambda: ferric.einsum("ij,jk", _f(2, 3), _f(4, 2)),
        RuntimeError,
        "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously "
        "seen size 3",
    ),
    (
        lambda: ferric.einsum("ii", _f(2, 3)),
        RuntimeError,
        "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2",
    ),
    (
        lambda: ferric.einsum("i1", _f(2, 3)),
        RuntimeError,
        "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be "
        "in [a-zA-Z]",
    ),
    (
        lambda: ferric.einsum("ij,jk", _f(2, 3), _f(3, 2, dtype="float64")),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
]


@pytest.mark.parametrize("fn,exc,msg", ERRORS)
def test_errors(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn()
    assert msg in str(info.value)
