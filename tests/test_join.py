"""cat/stack and friends, pad, flip/roll/repeat/tile, tril/triu and diagonals vs NumPy."""

import numpy as np
import pytest
from layouts import assert_same as check
from layouts import laid_out, random_values

import ferric

DTYPES = ["float32", "float64", "int64", "bool"]
LAYOUTS = ["contiguous", "permuted", "row_stepped", "expanded"]  # see layouts.py
RNG = np.random.default_rng(1)


def rand(shape, dtype):
    return random_values(RNG, shape, dtype)


# ------------------------------------------------------------------------- cat / stack


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack(dim, dtype, layout):
    a, b = rand((3, 4), dtype), rand((3, 4), dtype)
    (ta, na), (tb, nb) = laid_out(a, layout), laid_out(b, "transposed")
    check(ferric.cat([ta, tb], dim), np.concatenate([na, nb], axis=dim))
    check(ferric.concat((ta, tb, ta), dim=dim), np.concatenate([na, nb, na], axis=dim))
    check(ferric.concatenate([ta], dim), na)
    check(ferric.stack([ta, tb], dim), np.stack([na, nb], axis=dim))
    check(ferric.stack([ta, tb], dim=2), np.stack([na, nb], axis=2))


def test_cat_uneven_and_zero_size():
    a, b = rand((2, 3), "float32"), rand((2, 5), "float32")
    check(ferric.cat([ferric.tensor(a), ferric.tensor(b)], 1), np.concatenate([a, b], 1))
    z = np.zeros((0, 3), np.float32)
    check(ferric.cat([ferric.tensor(z), ferric.tensor(a)]), np.concatenate([z, a]))
    check(ferric.cat([ferric.tensor(z), ferric.tensor(z)]), z)
    check(ferric.stack([ferric.tensor(1.0), ferric.tensor(2.0)]), np.array([1.0, 2.0], np.float32))


@pytest.mark.parametrize(
    "dtypes,result",
    [
        ((ferric.int64, ferric.float32), ferric.float32),
        ((ferric.bool, ferric.int64), ferric.int64),
        ((ferric.float32, ferric.float64), ferric.float64),
        ((ferric.bool, ferric.bool), ferric.bool),
        ((ferric.int64, ferric.bool, ferric.float64), ferric.float64),
    ],
)
def test_cat_promotes(dtypes, result):
    ts = [ferric.ones(2, 2, dtype=d) for d in dtypes]
    r = ferric.cat(ts)
    assert r.dtype == result
    check(r, np.ones((2 * len(ts), 2), np.dtype(str(result).split(".")[1])))
    assert ferric.stack(ts).dtype == result


def test_cat_skips_legacy_empty_1d():
    a = rand((2, 3), "float32")
    e = ferric.zeros(0)
    check(ferric.cat([e, ferric.tensor(a), e], 1), a)
    r = ferric.cat([e, ferric.zeros(0, dtype=ferric.float64)])
    assert r.shape == (0,) and r.dtype == ferric.float64
    # the skipped tensor still takes part in the dtype promotion
    assert ferric.cat([ferric.zeros(0, dtype=ferric.float64), ferric.tensor(a)]).dtype == (
        ferric.float64
    )


@pytest.mark.parametrize(
    "fn,exc,msg",
    [
        (
            lambda: ferric.cat([ferric.zeros(2, 2), ferric.zeros(3, 3)], 1),
            RuntimeError,
            "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
            "tensor number 1 in the list.",
        ),
        (lambda: ferric.cat([]), ValueError, "expected a non-empty list of Tensors"),
        (
            lambda: ferric.cat([ferric.zeros(2), ferric.zeros(2, 2)]),
            RuntimeError,
            "Tensors must have same number of dimensions: got 1 and 2",
        ),
        (lambda: ferric.cat([ferric.tensor(1.0)]), RuntimeError, "zero-dimensional tensor"),
        (lambda: ferric.cat([ferric.zeros(2)], 1), IndexError, "Dimension out of range"),
        (lambda: ferric.cat([ferric.zeros(2), 3]), TypeError, "expected Tensor as element 1"),
        (lambda: ferric.cat(ferric.zeros(2)), TypeError, "must be tuple of Tensors"),
        (
            lambda: ferric.stack([ferric.zeros(2), ferric.zeros(3)]),
            RuntimeError,
            r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at "
            r"entry 1",
        ),
        (lambda: ferric.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
        (lambda: ferric.stack([ferric.zeros(2)], 2), IndexError, "Dimension out of range"),
        (lambda: ferric.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    ],
)
def test_join_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


@pytest.mark.parametrize(
    "shapes",
    [[(), ()], [(3,), (2,)], [(2, 3), (2, 1)], [(2, 3, 2), (2, 3, 2)]],
)
def test_hstack_vstack_dstack_column_stack(shapes):
    arrs = [rand(s, "float64") for s in shapes]
    ts = [ferric.tensor(a) for a in arrs]
    check(ferric.hstack(ts), np.hstack(arrs))
    if len({np.atleast_2d(a).shape[1:] for a in arrs}) == 1:
        check(ferric.vstack(ts), np.vstack(arrs))
        check(ferric.row_stack(ts), np.vstack(arrs))
    if len({np.atleast_3d(a).shape[:2] for a in arrs}) == 1:
        check(ferric.dstack(ts), np.dstack(arrs))
    if all(a.ndim <= 2 for a in arrs) and len({a.shape[:1] for a in arrs}) == 1:
        check(ferric.column_stack(ts), np.column_stack(arrs))


# ------------------------------------------------------------------------------- pad


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pad", [(1, 2), (0, 0, 2, 1), (1, 1, 1, 1, 1, 1), ()])
def test_pad_constant(pad, dtype, layout):
    t, a = laid_out(rand((2, 3, 4), dtype), layout)
    width = [(0, 0)] * (3 - len(pad) // 2) + [
        (pad[2 * k], pad[2 * k + 1]) for k in reversed(range(len(pad) // 2))
    ]
    check(ferric.pad(t, pad), np.pad(a, width))
    check(ferric.pad(t, pad, value=1), np.pad(a, width, constant_values=1))


def test_pad_negative_crops():
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    t = ferric.tensor(a)
    check(ferric.pad(t, (-1, 2)), np.pad(a[:, 1:], [(0, 0), (0, 2)]))
    check(
        ferric.pad(t, (1, -2, -1, -1), value=7.0),
        np.pad(a[1:-1, :-2], [(0, 0), (1, 0)], constant_values=7),
    )
    assert ferric.pad(t, (-2, -2)).shape == (3, 0)
    with pytest.raises(RuntimeError, match="resulted in a negative output size"):
        ferric.pad(t, (-3, -2))


@pytest.mark.parametrize(
    "mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]
)
@pytest.mark.parametrize("pad", [(2, 1), (1, 2, 2, 0)])
def test_pad_modes(mode, np_mode, pad):
    a = rand((2, 3, 4), "float64")
    width = [(0, 0)] * (3 - len(pad) // 2) + [
        (pad[2 * k], pad[2 * k + 1]) for k in reversed(range(len(pad) // 2))
    ]
    check(ferric.pad(ferric.tensor(a), pad, mode=mode), np.pad(a, width, mode=np_mode))


@pytest.mark.parametrize(
    "args,exc,msg",
    [
        (((1,),), RuntimeError, "Padding length must be divisible by 2"),
        (((1, 1) * 4,), RuntimeError, "Padding length should be less than or equal to two times"),
        (((4, 0), "reflect"), RuntimeError, "Padding size should be less than"),
        (((1, 1), "bogus"), NotImplementedError, "Unrecognised padding mode bogus"),
        (((1, 1), "reflect", 2.0), RuntimeError, "doesn't take in value argument"),
    ],
)
def test_pad_errors(args, exc, msg):
    with pytest.raises(exc, match=msg):
        ferric.pad(ferric.zeros(2, 3), *args)


# ------------------------------------------------------------------------ flip / roll


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [(0,), (1,), (-1, 0), (0, 1, 2), ()])
def test_flip(dims, dtype, layout):
    t, a = laid_out(rand((3, 4, 2), dtype), layout)
    check(t.flip(dims), np.flip(a, dims) if dims else a)
    check(ferric.flip(t, dims), np.flip(a, dims) if dims else a)
    check(t.flip(*dims) if dims else t.flip(dims=()), np.flip(a, dims) if dims else a)
    check(t.fliplr(), np.fliplr(a))
    check(ferric.flipud(t), np.flipud(a))


def test_flip_edge_cases():
    check(ferric.tensor(3.0).flip(0), np.array(3.0, np.float32))
    check(ferric.zeros(0, 2).flip(0), np.zeros((0, 2), np.float32))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        ferric.zeros(2, 2).flip(0, 0)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        ferric.zeros(2).fliplr()
    with pytest.raises(IndexError, match="Dimension out of range"):
        ferric.zeros(2).flip(1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "shifts,dims",
    [
        (1, None),
        (-7, None),
        (2, 0),
        (-1, 1),
        ((1, 2), (0, 1)),
        ((5, -3), (-1, 0)),
        ((1, 1), (1, 1)),
        (0, 1),
    ],
)
def test_roll(shifts, dims, dtype, layout):
    t, a = laid_out(rand((3, 4), dtype), layout)
    check(t.roll(shifts, dims), np.roll(a, shifts, dims))
    check(ferric.roll(t, shifts, dims=dims), np.roll(a, shifts, dims))


def test_roll_edge_cases():
    check(ferric.tensor(2).roll(3), np.array(2))
    check(ferric.zeros(0, 3).roll(1, 1), np.zeros((0, 3), np.float32))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        ferric.zeros(2, 2).roll((1, 2), 0)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        ferric.zeros(2, 2).roll((1, 2))


# -------------------------------------------------------------- repeat / tile / interleave


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reps", [(1, 1), (2, 3), (2, 1, 2), (0, 2)])
def test_repeat_and_tile(reps, dtype, layout):
    t, a = laid_out(rand((2, 3), dtype), layout)
    check(t.repeat(*reps), np.tile(a, reps))
    check(t.repeat(reps), np.tile(a, reps))
    check(t.tile(reps), np.tile(a, reps))
    check(ferric.tile(t, reps[-1:]), np.tile(a, reps[-1:]))


def test_repeat_edge_cases():
    check(ferric.tensor(2.0).repeat(3), np.array([2.0, 2.0, 2.0], np.float32))
    check(ferric.tensor(2.0).tile(()), np.array(2.0, np.float32))
    with pytest.raises(
        RuntimeError, match="Number of dimensions of repeat dims can not be smaller"
    ):
        ferric.zeros(2, 2).repeat(2)
    with pytest.raises(RuntimeError, match="negative dimension"):
        ferric.zeros(2).repeat(-1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_repeat_interleave(dtype, layout):
    t, a = laid_out(rand((3, 2), dtype), layout)
    check(t.repeat_interleave(2), np.repeat(a, 2))
    check(t.repeat_interleave(2, dim=1), np.repeat(a, 2, axis=1))
    r = np.array([1, 0, 3])
    check(ferric.repeat_interleave(t, ferric.tensor(r), dim=0), np.repeat(a, r, axis=0))
    check(t.repeat_interleave(ferric.tensor([2]), dim=-1), np.repeat(a, 2, axis=-1))


def test_repeat_interleave_index_form_and_errors():
    check(ferric.repeat_interleave(ferric.tensor([2, 0, 1])), np.array([0, 0, 2]))
    x = ferric.zeros(3)
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        x.repeat_interleave(ferric.tensor([1, 2]), dim=0)
    with pytest.raises(RuntimeError, match="Repeats must be non-negative"):
        x.repeat_interleave(-1)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        x.repeat_interleave(ferric.tensor([1, -1, 1]))


# --------------------------------------------------------------- tril / triu / diagonals


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (0, 3)])
def test_tril_triu(shape, k, dtype, layout):
    t, a = laid_out(rand(shape, dtype), layout)
    check(t.tril(k), np.tril(a, k))
    check(ferric.triu(t, diagonal=k), np.triu(a, k))
    if layout != "expanded":
        c = t.clone()
        c.tril_(k)
        check(c, np.tril(a, k))
        c = ferric.tensor(a).t() if a.ndim == 2 else ferric.tensor(a)
        c.triu_(k)
        check(c, np.triu(a.T if a.ndim == 2 else a, k))


def test_tril_inplace_through_view_and_errors():
    base = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    t = ferric.tensor(base)
    t[1:, ::2].tril_()
    base[1:, ::2] = np.tril(base[1:, ::2])
    check(t, base)
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        ferric.zeros(3).tril()
    # zeros are one value, so PyTorch writes them through an expanded view (as fill_)
    e = ferric.ones(1, 3).expand(3, 3)
    e.triu_()
    check(e, np.array([[0.0, 0.0, 1.0]] * 3, np.float32))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("offset", [0, 1, -2, 7])
def test_diagonal_diag(offset, dtype, layout):
    t, a = laid_out(rand((3, 4, 5), dtype), layout)
    check(t.diagonal(offset), np.diagonal(a, offset))
    check(ferric.diagonal(t, offset, 2, 0), np.diagonal(a, offset, 2, 0))
    check(t.diagonal(offset, -1, 1), np.diagonal(a, offset, -1, 1))
    check(t[0].diag(offset), np.diag(a[0], offset))
    check(ferric.diag(t[0, 0], offset), np.diag(a[0, 0], offset))


def test_diagonal_is_a_view():
    t = ferric.zeros(3, 3)
    t.diagonal().fill_(1.0)
    check(t, np.eye(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        t.diagonal(0, 1, 1)
    with pytest.raises(RuntimeError, match="Supports 1D or 2D tensors. Got 3D"):
        ferric.zeros(2, 2, 2).diag()


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, 0, 2), (-1, 2, 0)])
def test_diag_embed(offset, dim1, dim2):
    a = rand((2, 3), "float64")
    r = ferric.diag_embed(ferric.tensor(a), offset, dim1, dim2)
    # reference: embed each row, then move the two new axes into place
    n = 3 + abs(offset)
    ref = np.zeros((2, n, n))
    for i in range(2):
        ref[i] = np.diag(a[i], offset)
    d1, d2 = dim1 % 3, dim2 % 3
    batch = [d for d in range(3) if d not in (d1, d2)][0]
    ref = np.moveaxis(ref, [0, 1, 2], [batch, d1, d2])
    check(r, ref)
    check(r.diagonal(offset, dim1, dim2), a)
