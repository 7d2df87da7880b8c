"""Advanced indexing, gather/scatter, index_* ops, masks, where and nonzero vs NumPy."""

import numpy as np
import pytest
from layouts import assert_same as check
from layouts import laid_out, random_values

import ferric

DTYPES = ["float32", "float64", "int64", "bool"]
LAYOUTS = ["contiguous", "permuted", "row_stepped", "expanded"]  # see layouts.py
RNG = np.random.default_rng(0)


def rand(shape, dtype):
    return random_values(RNG, shape, dtype)


def fkey(key):
    """Converts NumPy index arrays inside a key into ferric tensors (lists stay lists)."""
    conv = lambda k: ferric.tensor(k) if isinstance(k, np.ndarray) else k  # noqa: E731
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


M4 = RNG.random(4) > 0.5
M45 = RNG.random((4, 5)) > 0.5
M5 = RNG.random(5) > 0.3

# (key, numpy-reference key or None when NumPy agrees with PyTorch), on shape (4, 5, 6)
GET_KEYS = [
    ([0, 2], None),
    ([-1, -4, 0, 0], None),
    ((slice(None), [1, -1]), None),
    ((np.array([[0, 1], [2, 3]]),), None),
    (([0, 1], [1, 2]), None),
    (([0, 1], slice(None), [2, 3]), None),
    ((Ellipsis, [0, 5]), None),
    ((None, [1, 2]), None),
    (([1], None, [2]), None),
    ((np.array([[0], [1]]), [0, 1, 2]), None),
    (([],), None),
    ((slice(1, None, 2), [4, 0], slice(None, None, 3)), None),
    (M4, None),
    (M45, None),
    ((slice(None), M5), None),
    ((M4, slice(None), [0]), None),
    ((1, [0, 2]), None),
    (([0, 1], 1, [2, 3]), None),
    # PyTorch applies ints as `select` first, so these differ from NumPy's placement
    ((1, slice(None), [0, 1]), lambda a: a[1][:, [0, 1]]),
    ((slice(None), 2, [[0], [3]]), lambda a: a[:, 2][:, [[0], [3]]]),
    (True, None),
    (False, None),
    ((None, True, 1), lambda a: a[None, True][:, :, 1]),
]


def np_ref(a, key, ref):
    if callable(ref):
        return ref(a)
    return a[key]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(GET_KEYS)))
def test_getitem(case, dtype, layout):
    key, ref = GET_KEYS[case]
    t, a = laid_out(rand((4, 5, 6), dtype), layout)
    check(t[fkey(key)], np_ref(a, key, ref))


@pytest.mark.parametrize(
    "shape,key",
    [
        ((0, 3), [[]]),
        ((0, 3), (slice(None), [0, 2])),
        ((0, 3), np.zeros(0, bool)),
        ((3, 0), [0, 2]),
        ((3,), [[]]),
        ((), True),
        ((), (None, False)),
        ((), np.array(True)),
    ],
)
@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
def test_getitem_zero_size_and_0d(shape, key):
    a = rand(shape, "float32")
    t = ferric.tensor(a)
    # PyTorch reads a list holding lists as a tuple of indices (NumPy no longer does)
    np_key = tuple(key) if isinstance(key, list) and any(isinstance(k, list) for k in key) else key
    if isinstance(np_key, tuple) and any(isinstance(k, list) and not k for k in np_key):
        np_key = tuple(np.array(k, dtype=np.int64) if isinstance(k, list) else k for k in np_key)
    check(t[fkey(key)], a[np_key])


def test_strided_and_expanded_index_tensors():
    a = np.arange(24).reshape(4, 6)
    t = ferric.tensor(a)
    idx = np.array([[0, 1, 2], [3, 2, 1]])
    check(t[:, laid_out(idx.T.copy(), "transposed")[0]], a[:, idx.T])
    check(t[ferric.tensor([1, 3]).expand(2, 2), 0], a[np.broadcast_to([1, 3], (2, 2)), 0])
    check(t[ferric.tensor([0, 1, 2, 3, 0, 1, 2, 3])[::3]], a[[0, 3, 2]])


def test_0d_int_tensor_index_is_a_select_view():
    t = ferric.arange(6).reshape(3, 2)
    v = t[ferric.tensor(1)]
    check(v, np.array([2, 3]))
    v[0] = 40
    assert t[1, 0].item() == 40
    # mixed with a tensor index it selects first, like PyTorch
    x = ferric.arange(24).reshape(2, 3, 4)
    check(x[ferric.tensor(1), :, [0, 1]], np.arange(24).reshape(2, 3, 4)[1][:, [0, 1]])


# keys where NumPy's placement agrees with PyTorch's
SET_KEYS = [key for key, ref in GET_KEYS if ref is None]


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "row_stepped"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(SET_KEYS)))
def test_setitem(case, dtype, layout):
    key = SET_KEYS[case]
    t, a = laid_out(rand((4, 5, 6), dtype), layout)
    a = a.copy()
    shape = a[key].shape
    value = rand(shape, dtype)
    a[key] = value
    t[fkey(key)] = ferric.tensor(value)
    check(t, a)
    # scalar values broadcast
    a[key] = 1
    t[fkey(key)] = 1
    check(t, a)


def test_setitem_broadcasts_and_casts_value():
    a = np.zeros((4, 5), np.int64)
    t = ferric.tensor(a)
    a[[0, 2]] = np.array([1.7, -2.2, 3.9, 4.0, 5.5]).astype(np.int64)
    t[[0, 2]] = ferric.tensor([1.7, -2.2, 3.9, 4.0, 5.5], dtype=ferric.float64)
    check(t, a)
    b = np.zeros((3, 4), np.float32)
    x = ferric.tensor(b)
    b[b == 0] = 2
    x[x == 0] = 2
    check(x, b)


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_setitem_through_views_writes_base(layout):
    base_np = np.arange(48, dtype=np.float64).reshape(6, 8)
    base = ferric.tensor(base_np)
    if layout == "transposed":
        v, vn = base.t(), base_np.T
    else:
        v, vn = base[1::2, ::3], base_np[1::2, ::3]
    v[[0, 2], [1, 0]] = ferric.tensor([-1.0, -2.0], dtype=ferric.float64)
    vn[[0, 2], [1, 0]] = [-1.0, -2.0]
    mask = vn > 20
    v[ferric.tensor(mask)] = 0.5
    vn[mask] = 0.5
    check(base, base_np)


def test_setitem_value_aliasing_destination():
    a = np.arange(6, dtype=np.float32)
    t = ferric.tensor(a)
    t[[1, 2, 3]] = t[0:3]
    a[[1, 2, 3]] = a[0:3].copy()
    check(t, a)


def test_setitem_duplicates_last_write_wins():
    t = ferric.zeros(3)
    t[[0, 0, 1]] = ferric.tensor([1.0, 2.0, 3.0])
    check(t, np.array([2.0, 3.0, 0.0], np.float32))


@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (
            lambda: ferric.arange(3)[[5]],
            IndexError,
            "index 5 is out of bounds for dimension 0 with size 3",
        ),
        (lambda: ferric.arange(3)[[-4]], IndexError, "out of bounds"),
        (
            lambda: ferric.zeros(3, 4)[:, [4]],
            IndexError,
            "index 4 is out of bounds for dimension 0 with size 4",
        ),
        (
            lambda: ferric.arange(3)[ferric.tensor([True, False])],
            IndexError,
            "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor "
            "[3] at index 0",
        ),
        (lambda: ferric.zeros(3, 4)[[0, 1], [0, 1, 2]], IndexError, "shape mismatch"),
        (lambda: ferric.zeros(3)[ferric.tensor([0.0])], IndexError, "tensors used as indices"),
        (lambda: ferric.zeros(3)[[0], [0]], IndexError, "too many indices"),
        (lambda: ferric.zeros(0)[[0]], IndexError, "out of bounds"),
    ],
)
def test_getitem_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg.replace("[", r"\[").replace("]", r"\]")):
        fn()


def test_setitem_errors_leave_input_unchanged():
    t = ferric.arange(4)
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 9]] = 5
    check(t, np.arange(4))
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape"):
        t[[0, 1]] = ferric.tensor([1, 2, 3])
    check(t, np.arange(4))
    # PyTorch 2.13 allows index_put_ into an expanded tensor: every alias gets the value
    e = ferric.zeros(3).expand(2, 3)
    e[[0]] = 1.0
    check(e, np.ones((2, 3), np.float32))


# ---------------------------------------------------------------- index_put_ / take


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_index_put_accumulate(dtype):
    a = rand((5, 3), dtype)
    t = ferric.tensor(a)
    rows = np.array([0, 4, 0, 2, 0])
    cols = np.array([1, 1, 1, 0, 2])
    vals = rand(5, dtype)
    ref = a.copy()
    np.add.at(ref, (rows, cols), vals)
    r = t.index_put((ferric.tensor(rows), ferric.tensor(cols)), ferric.tensor(vals), True)
    check(r, ref)
    check(t, a)  # out-of-place leaves the input alone
    t.index_put_((ferric.tensor(rows),), ferric.tensor(np.ones(3, a.dtype)), accumulate=False)
    ref2 = a.copy()
    ref2[rows] = 1
    check(t, ref2)
    # PyTorch's argument parser takes tensors only (no None for "all of this dim")
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 0"):
        ferric.index_put_(t, (None, ferric.tensor([2])), ferric.tensor(np.zeros(1, a.dtype)))
    check(t, ref2)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination"):
        t.index_put_((ferric.tensor([0]),), ferric.tensor([True]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take(layout):
    t, a = laid_out(rand((3, 4), "float64"), layout)
    idx = np.array([[0, -1], [5, 11]])
    check(t.take(ferric.tensor(idx)), np.take(a, idx))
    check(ferric.take(t, ferric.tensor([], dtype=ferric.int64)), np.take(a, np.zeros(0, int)))
    with pytest.raises(IndexError, match="out of range: tried to access index 12"):
        t.take(ferric.tensor([12]))


# ------------------------------------------------------------- index_select / add / fill


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dim, dtype, layout):
    t, a = laid_out(rand((4, 3, 5), dtype), layout)
    idx = np.array([2, 0, 2])
    check(t.index_select(dim, ferric.tensor(idx)), np.take(a, idx, axis=dim))
    check(
        ferric.index_select(t, dim, ferric.tensor([], dtype=ferric.int64)),
        np.take(a, np.zeros(0, int), axis=dim),
    )


def test_index_select_0d_and_errors():
    x = ferric.tensor(3.5)
    check(x.index_select(0, ferric.tensor([0])), np.array(3.5, np.float32))
    with pytest.raises(RuntimeError, match="Index to scalar can have only 1 value"):
        x.index_select(0, ferric.tensor([0, 0]))
    t = ferric.zeros(3, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        t.index_select(0, ferric.tensor([3]))
    with pytest.raises(IndexError, match="index out of range in self"):
        t.index_select(0, ferric.tensor([-1]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        t.index_select(0, ferric.tensor([[0]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64"):
        t.index_select(0, ferric.tensor([0.0]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.index_select(2, ferric.tensor([0]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_index_add_and_fill(dtype):
    a = rand((4, 3), dtype)
    src = rand((4, 2), dtype)
    idx = np.array([2, 2])
    ref = a.copy()
    np.add.at(ref, (slice(None), idx), src * 2)
    t = ferric.tensor(a)
    check(t.index_add(1, ferric.tensor(idx), ferric.tensor(src), alpha=2), ref)
    t.index_add_(1, ferric.tensor(idx), ferric.tensor(src), alpha=2)
    check(t, ref)
    ref[[0, -1]] = 7
    check(t.index_fill(0, ferric.tensor([0, -1]), 7), ref)
    t.index_fill_(0, ferric.tensor([0, -1]), ferric.tensor(7))
    check(t, ref)
    # (a RuntimeError in PyTorch's index_add_, unlike index_select's IndexError)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 1 with size 3"):
        t.index_add_(1, ferric.tensor([3, 0]), ferric.tensor(src))
    with pytest.raises(RuntimeError, match="Number of indices"):
        t.index_add_(1, ferric.tensor([0]), ferric.tensor(src))
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 3"):
        t.index_fill_(1, ferric.tensor([9]), 0)
    check(t, ref)


# ----------------------------------------------------------------------- gather / scatter


def gather_ref(a, dim, idx):
    sl = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(idx.shape))
    return np.take_along_axis(a[sl], idx, axis=dim)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dim, dtype, layout):
    t, a = laid_out(rand((4, 5, 3), dtype), layout)
    shape = [3, 2, 3]
    shape[dim] = 6
    idx = RNG.integers(0, a.shape[dim], shape)
    check(t.gather(dim, ferric.tensor(idx)), gather_ref(a, dim, idx))
    check(ferric.gather(t, dim, laid_out(idx, "permuted")[0]), gather_ref(a, dim, idx))


def test_gather_special_shapes():
    check(ferric.tensor(2.0).gather(0, ferric.tensor(0)), np.array(2.0, np.float32))
    e = ferric.zeros(3, 2).gather(1, ferric.zeros(3, 0, dtype=ferric.int64))
    assert e.shape == (3, 0)
    idx = ferric.tensor([[0, 1]]).expand(3, 2)
    a = np.arange(6.0).reshape(3, 2)
    check(ferric.tensor(a).gather(1, idx), gather_ref(a, 1, np.broadcast_to([[0, 1]], (3, 2))))


@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (
            lambda x: x.gather(1, ferric.tensor([[3]])),
            RuntimeError,
            "index 3 is out of bounds for dimension 1 with size 3",
        ),
        (lambda x: x.gather(1, ferric.tensor([[-1]])), RuntimeError, "out of bounds"),
        (
            lambda x: x.gather(1, ferric.tensor([0])),
            RuntimeError,
            "Index tensor must have the same number of dimensions as input tensor",
        ),
        (
            lambda x: x.gather(1, ferric.zeros(3, 1, dtype=ferric.int64)),
            RuntimeError,
            "Size does not match at dimension 0",
        ),
        (lambda x: x.gather(0, ferric.tensor([[0.0]])), RuntimeError,
         "Expected dtype int32/int64"),
        (lambda x: x.gather(2, ferric.tensor([[0]])), IndexError, "Dimension out of range"),
    ],
)
def test_gather_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(ferric.zeros(2, 3))


def scatter_ref(a, dim, idx, src, op=None):
    out = a.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[dim] = idx[pos]
        v = src[pos] if isinstance(src, np.ndarray) else src
        tgt = tuple(tgt)
        if op == "add":
            out[tgt] = out[tgt] + v
        elif op == "multiply":
            out[tgt] = out[tgt] * v
        else:
            out[tgt] = v
    return out


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "row_stepped"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter(dim, dtype, layout):
    t, a = laid_out(rand((4, 5), dtype), layout)
    a = a.copy()
    # unique targets per line, so NumPy's put_along_axis is an exact reference
    idx = np.argsort(RNG.random((4, 5)), axis=dim)
    src = rand((4, 5), dtype)
    ref = a.copy()
    np.put_along_axis(ref, idx, src, axis=dim)
    check(t.scatter(dim, ferric.tensor(idx), ferric.tensor(src)), ref)
    # smaller index and bigger src, duplicates, in place
    small = RNG.integers(0, a.shape[dim], (3, 2))
    big = rand((4, 6), dtype)
    t.scatter_(dim, ferric.tensor(small), ferric.tensor(big))
    check(t, scatter_ref(a, dim, small, big))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_scatter_reduce_and_add(dtype):
    a = rand((3, 4), dtype)
    idx = RNG.integers(0, 3, (5, 4))
    src = rand((5, 4), dtype)
    t = ferric.tensor(a)
    check(
        t.scatter_add(0, ferric.tensor(idx), ferric.tensor(src)), scatter_ref(a, 0, idx, src, "add")
    )
    check(
        ferric.scatter_add(t, 0, ferric.tensor(idx), ferric.tensor(src)),
        scatter_ref(a, 0, idx, src, "add"),
    )
    check(
        t.scatter(0, ferric.tensor(idx), ferric.tensor(src), reduce="multiply"),
        scatter_ref(a, 0, idx, src, "multiply"),
    )
    check(t.scatter(0, ferric.tensor(idx), 2, reduce="add"), scatter_ref(a, 0, idx, 2, "add"))
    check(t.scatter(0, ferric.tensor(idx), value=3), scatter_ref(a, 0, idx, 3))
    t.scatter_add_(0, ferric.tensor(idx), ferric.tensor(src))
    check(t, scatter_ref(a, 0, idx, src, "add"))


def test_scatter_errors_leave_input_unchanged():
    t = ferric.zeros(2, 3)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 1 with size 3"):
        t.scatter_(1, ferric.tensor([[0, 3]]), 1.0)
    check(t, np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        t.scatter_(1, ferric.tensor([[0]]), ferric.tensor([[1.0]], dtype=ferric.float64))
    with pytest.raises(RuntimeError, match="Expected index \\[3, 1\\] to be no larger than self"):
        t.scatter_(1, ferric.zeros(3, 1, dtype=ferric.int64), ferric.zeros(3, 1))
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        t.scatter_(1, ferric.tensor([[0]]), 1.0, reduce="max")
    with pytest.raises(RuntimeError, match="more than one element"):
        ferric.zeros(3).expand(2, 3).scatter_(1, ferric.tensor([[0]]), 1.0)
    # the source aliasing the destination is read before it is overwritten
    x = ferric.arange(4)
    x.scatter_(0, ferric.tensor([1, 2, 3, 0]), x)
    check(x, np.array([3, 0, 1, 2]))


# ------------------------------------------------------------------------------ masks


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_fill_and_select(dtype, layout):
    t, a = laid_out(rand((3, 4), dtype), layout)
    for mask in [rand((3, 4), "bool"), rand((4,), "bool"), rand((3, 1), "bool")]:
        fm = ferric.tensor(mask)
        check(t.masked_fill(fm, 1), np.where(mask, np.ones((), a.dtype), a))
        check(t.masked_fill(fm, ferric.tensor(0)), np.where(mask, np.zeros((), a.dtype), a))
        check(ferric.masked_select(t, fm), a[np.broadcast_to(mask, a.shape)])
    # mask broadcasting beyond the input's shape (out of place only)
    m3 = rand((2, 3, 4), "bool")
    check(t.masked_fill(ferric.tensor(m3), 0), np.where(m3, np.zeros((), a.dtype), a))
    check(t.masked_select(ferric.tensor(m3)), np.broadcast_to(a, m3.shape)[m3])


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "row_stepped"])
def test_masked_fill_inplace_and_scatter(layout):
    t, a = laid_out(rand((3, 4), "float64"), layout)
    a = a.copy()
    mask = rand((3, 4), "bool")
    t.masked_fill_(ferric.tensor(mask), -1.5)
    a[mask] = -1.5
    check(t, a)
    src = rand(12, "float64")
    mask = rand(4, "bool")
    full = np.broadcast_to(mask, a.shape)
    ref = a.copy()
    ref[full] = src[: full.sum()]
    check(t.masked_scatter(ferric.tensor(mask), ferric.tensor(src)), ref)
    t.masked_scatter_(ferric.tensor(mask), ferric.tensor(src))
    check(t, ref)


def test_mask_edge_cases_and_errors():
    x = ferric.tensor(2.0)
    check(x.masked_fill(ferric.tensor(True), 5.0), np.array(5.0, np.float32))
    check(x.masked_select(ferric.tensor(False)), np.zeros(0, np.float32))
    check(
        ferric.zeros(0, 3).masked_select(ferric.zeros(0, 3, dtype=ferric.bool)),
        np.zeros(0, np.float32),
    )
    b = ferric.tensor([True, False, True])
    b.masked_fill_(b, False)  # mask aliasing the destination
    check(b, np.array([False, False, False]))
    t = ferric.zeros(3)
    with pytest.raises(
        RuntimeError,
        match="masked_fill_ only supports boolean masks, but got mask with dtype long int",
    ):
        t.masked_fill_(ferric.tensor([1, 0, 1]), 1.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        t.masked_fill(ferric.tensor([True, False, True]), ferric.tensor([1.0]))
    with pytest.raises(RuntimeError):
        t.masked_fill_(ferric.zeros(2, 3, dtype=ferric.bool), 1.0)
    with pytest.raises(RuntimeError, match="expected BoolTensor for mask"):
        t.masked_select(ferric.tensor([1, 0, 1]))
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        t.masked_scatter_(ferric.tensor([True, True, False]), ferric.tensor([1.0]))
    check(t, np.zeros(3, np.float32))


# ---------------------------------------------------------------------- where / nonzero


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_where(dtype, layout):
    t, a = laid_out(rand((3, 4), dtype), layout)
    cond = rand((3, 4), "bool")
    other = rand((4,), dtype)
    check(ferric.where(ferric.tensor(cond), t, ferric.tensor(other)), np.where(cond, a, other))
    check(t.where(ferric.tensor(cond[0]), ferric.tensor(other)), np.where(cond[0], a, other))
    c3 = rand((2, 1, 4), "bool")
    check(ferric.where(ferric.tensor(c3), t, ferric.tensor(other)), np.where(c3, a, other))


@pytest.mark.parametrize(
    "x,y,dtype",
    [
        (ferric.tensor([1, 2]), 1.5, ferric.float32),
        (ferric.tensor([1.0, 2.0], dtype=ferric.float64), 0.5, ferric.float64),
        (ferric.tensor([1, 2]), ferric.tensor(0.5), ferric.float32),
        (ferric.tensor([1.0, 2.0]), ferric.tensor(0.5, dtype=ferric.float64), ferric.float32),
        (ferric.tensor([True, False]), 2, ferric.int64),
        (3, 0, ferric.int64),
        (1.0, 0, ferric.float32),
        (True, False, ferric.bool),
        (ferric.tensor([1, 2]), ferric.tensor([0.5, 1.5], dtype=ferric.float64), ferric.float64),
    ],
)
def test_where_promotion(x, y, dtype):
    cond = ferric.tensor([True, False])
    r = ferric.where(cond, x, y)
    assert r.dtype == dtype
    r2 = ferric.where(cond, y, x)
    assert r2.dtype == dtype


def test_where_errors():
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        ferric.where(ferric.tensor([1, 0]), 1.0, 0.0)
    with pytest.raises(RuntimeError):
        ferric.where(ferric.tensor([True, False]), ferric.zeros(3), 0.0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero(dtype, layout):
    t, a = laid_out(rand((3, 4, 2), dtype), layout)
    check(t.nonzero(), np.argwhere(a))
    check(ferric.argwhere(t), np.argwhere(a))
    for got, ref in zip(ferric.nonzero(t, as_tuple=True), np.nonzero(a), strict=True):
        check(got, ref)
    for got, ref in zip(ferric.where(t != 0), np.nonzero(a), strict=True):
        check(got, ref)


def test_nonzero_0d_and_empty():
    check(ferric.tensor(5).nonzero(), np.zeros((1, 0), np.int64))
    check(ferric.tensor(0.0).nonzero(), np.zeros((0, 0), np.int64))
    (r,) = ferric.tensor(5).nonzero(as_tuple=True)
    check(r, np.array([0]))
    check(ferric.zeros(0, 3).nonzero(), np.zeros((0, 2), np.int64))


def test_advanced_index_backward_accumulates():
    # the autograd rule of `x[idx]` scatter-adds through `index_put_accumulate`
    x = ferric.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2]].backward(ferric.tensor([1.0, 2.0, 3.0]))
    check(x.grad, np.array([3.0, 0.0, 3.0], np.float32))
    w = ferric.zeros(2, 3, requires_grad=True)
    w[ferric.tensor([[True, False, True], [False, False, True]])].backward(
        ferric.tensor([1.0, 2.0, 3.0])
    )
    check(w.grad, np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], np.float32))
    v = ferric.zeros(3, requires_grad=True)
    v[ferric.tensor(1)].backward(ferric.tensor(5.0))
    check(v.grad, np.array([0.0, 5.0, 0.0], np.float32))
