"""Autograd of the index and join op families: gradcheck and gradgradcheck (float64) of
every differentiable op on contiguous, transposed, step-sliced and expanded inputs,
PyTorch's node names, and the edge cases (repeated indices, masks, 0-d and empty inputs,
dtype promotion, in-place forms, modified saved indices)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from layouts import gradcheck_laid_out, uniform_leaf

import ferric
from ferric.autograd import gradcheck, gradgradcheck

F64 = ferric.float64


def i64(v):
    return ferric.tensor(v, dtype=ferric.int64)


def boolt(v):
    return ferric.tensor(v, dtype=ferric.bool)


MASK = boolt([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
ROW_MASK = boolt([True, False, True, True])
SCATTER_IDX = i64([[0, 2, 1], [1, 0, 2]])  # unique rows within each column (dim 0)
GATHER_IDX = i64([[0, 3, 3], [1, 1, 0], [2, 0, 1]])  # repeats along dim 1


leaf = functools.partial(uniform_leaf, bound=2.0)
check = functools.partial(gradcheck_laid_out, bound=2.0)


def backward_ones(t):
    """`t.sum().backward()` without needing the reduce family."""
    t.backward(ferric.ones(*t.shape, dtype=t.dtype))


def setitem(x, idx, v):
    y = x.clone()
    y[idx] = v
    return y


def inplace(name, *args, **kw):
    def f(x, *rest):
        y = x.clone()
        getattr(y, name)(*args, *rest, **kw)
        return y

    return f


X = (3, 4)
# (name, fn, input shapes, node name of the result or None)
INDEX_OPS = [
    ("index_select", lambda x: x.index_select(0, i64([2, 0, 2])), [X], "IndexSelectBackward0"),
    ("index_select:dim-1", lambda x: ferric.index_select(x, -1, i64([3, 1])), [X], None),
    ("index_add", lambda x, s: x.index_add(0, i64([2, 2]), s, alpha=2.0), [X, (2, 4)],
     "IndexAddBackward0"),
    ("index_add:dim1", lambda x, s: x.index_add(1, i64([0, 3, 0]), s), [X, (3, 3)], None),
    ("index_add_", inplace("index_add_", 1, i64([1, 1])), [X, (3, 2)], "IndexAddBackward0"),
    ("gather", lambda x: x.gather(1, GATHER_IDX), [X], "GatherBackward0"),
    ("gather:dim0", lambda x: ferric.gather(x, 0, i64([[2, 0, 2, 1]])), [X], None),
    ("scatter", lambda x, s: x.scatter(0, SCATTER_IDX, s), [X, (2, 4)], "ScatterBackward0"),
    ("scatter:value", lambda x: x.scatter(0, SCATTER_IDX, 1.5), [X], "ScatterBackward1"),
    ("scatter_", inplace("scatter_", 0, SCATTER_IDX), [X, (2, 3)], "ScatterBackward0"),
    ("scatter_add", lambda x, s: x.scatter_add(1, GATHER_IDX, s), [X, (3, 3)],
     "ScatterAddBackward0"),
    ("scatter_add_", inplace("scatter_add_", 0, i64([[1, 1, 0, 2]])), [X, (2, 4)],
     "ScatterAddBackward0"),
    ("index_fill", lambda x: x.index_fill(1, i64([0, 2, -1]), 2.5), [X], "IndexFillBackward0"),
    ("index_fill:tensor", lambda x, v: x.index_fill(0, i64([1, 1]), v), [X, ()],
     "IndexFillBackward1"),
    ("index_fill_", inplace("index_fill_", 1, i64([3])), [X, ()], "IndexFillBackward1"),
    ("index_put", lambda x, v: x.index_put((i64([0, 2]), i64([1, 3])), v), [X, (2,)],
     "IndexPutBackward0"),
    ("index_put:accumulate",
     lambda x, v: ferric.index_put(x, (i64([0, 2, 0]), i64([1, 3, 1])), v, accumulate=True),
     [X, (3,)], None),
    ("index_put:mask", lambda x, v: x.index_put((MASK,), v), [X, ()], None),
    ("index_put_", inplace("index_put_", (i64([2, 2]),), accumulate=True), [X, (4,)],
     "IndexPutBackward0"),
    ("take", lambda x: x.take(i64([[0, 11], [5, -1], [5, 0]])), [X], "TakeBackward0"),
    ("masked_fill", lambda x: x.masked_fill(MASK, -1.0), [X], "MaskedFillBackward0"),
    ("masked_fill:broadcast", lambda x: x.masked_fill(ROW_MASK, 0.5), [X], None),
    ("masked_fill:tensor", lambda x, v: x.masked_fill(MASK, v), [X, ()], "MaskedFillBackward1"),
    ("masked_fill_", inplace("masked_fill_", ROW_MASK), [X, ()], "MaskedFillBackward1"),
    ("masked_select", lambda x: x.masked_select(MASK), [X], "MaskedSelectBackward0"),
    ("masked_select:broadcast", lambda x: ferric.masked_select(x, ROW_MASK[None]), [(1, 4)],
     None),
    ("masked_scatter", lambda x, s: x.masked_scatter(MASK, s), [X, (9,)],
     "MaskedScatterBackward0"),
    ("masked_scatter:broadcast", lambda x, s: x.masked_scatter(ROW_MASK, s), [X, (3, 4)],
     None),
    ("masked_scatter_", inplace("masked_scatter_", MASK), [X, (2, 3)], "MaskedScatterBackward0"),
    ("where", lambda a, b: ferric.where(MASK, a, b), [X, X], "WhereBackward0"),
    ("where:broadcast", lambda a, b: ferric.where(ROW_MASK, a, b), [X, (4,)], None),
    ("where:scalar", lambda a: ferric.where(MASK, 2.0, a), [X], None),
    ("where:method", lambda a: a.where(MASK, -1), [X], None),
    ("getitem:repeated", lambda x: x[i64([2, 0, 2])], [X], "IndexBackward0"),
    ("getitem:list", lambda x: x[[1, 1], [0, 3]], [X], None),
    ("getitem:mask", lambda x: x[MASK], [X], None),
    ("getitem:row-mask", lambda x: x[:, ROW_MASK], [X], None),
    ("getitem:mixed", lambda x: x[1:, i64([[3], [0]])], [X], None),
    ("getitem:0d-int-tensor", lambda x: x[i64(1)], [X], "SelectBackward0"),
    ("setitem", lambda x, v: setitem(x, i64([0, 2]), v), [X, (4,)], None),
    ("setitem:mask", lambda x, v: setitem(x, MASK, v), [X, ()], None),
]

PAD3 = (1, 3, 4)
JOIN_OPS = [
    ("cat", lambda a, b: ferric.cat([a, b]), [(2, 4), X], "CatBackward0"),
    ("cat:dim1", lambda a, b: ferric.cat((a, b), dim=-1), [(3, 2), X], None),
    ("concat", lambda a, b: ferric.concat([a, b], 1), [X, X], None),
    ("concatenate", lambda a, b: ferric.concatenate([a, b]), [X, X], None),
    ("stack", lambda a, b: ferric.stack([a, b], 1), [X, X], "StackBackward0"),
    ("hstack", lambda a, b: ferric.hstack([a, b]), [X, X], "CatBackward0"),
    ("hstack:1d", lambda a, b: ferric.hstack([a, b]), [(3,), (2,)], None),
    ("vstack", lambda a, b: ferric.vstack([a, b]), [(4,), X], "CatBackward0"),
    ("row_stack", lambda a, b: ferric.row_stack([a, b]), [X, X], None),
    ("dstack", lambda a, b: ferric.dstack([a, b]), [X, X], "CatBackward0"),
    ("column_stack", lambda a, b: ferric.column_stack([a, b]), [(3,), X], "CatBackward0"),
    ("flip", lambda x: x.flip(0, 1), [X], "FlipBackward0"),
    ("fliplr", lambda x: ferric.fliplr(x), [X], "FlipBackward0"),
    ("flipud", lambda x: x.flipud(), [X], "FlipBackward0"),
    ("roll", lambda x: x.roll((1, -5), (0, 1)), [X], "RollBackward0"),
    ("roll:flat", lambda x: ferric.roll(x, 5), [X], None),
    ("repeat", lambda x: x.repeat(2, 1, 2), [X], "RepeatBackward0"),
    ("tile", lambda x: x.tile((2,)), [X], "RepeatBackward0"),
    ("repeat_interleave", lambda x: x.repeat_interleave(2), [X], None),
    ("repeat_interleave:tensor", lambda x: x.repeat_interleave(i64([0, 2, 1]), dim=0), [X],
     "IndexSelectBackward0"),
    ("tril", lambda x: x.tril(), [X], "TrilBackward0"),
    ("tril:diag", lambda x: ferric.tril(x, -1), [X], None),
    ("triu", lambda x: x.triu(1), [X], "TriuBackward0"),
    ("tril_", inplace("tril_", 1), [X], "TrilBackward0"),
    ("triu_", inplace("triu_"), [X], "TriuBackward0"),
    ("diagonal", lambda x: x.diagonal(1), [X], "DiagonalBackward0"),
    ("diagonal:dims", lambda x: ferric.diagonal(x, -1, 1, 0), [X], None),
    ("diag", lambda x: ferric.diag(x, 1), [(3,)], "DiagEmbedBackward0"),
    ("diag:2d", lambda x: x.diag(-1), [X], "DiagonalBackward0_copy"),
    ("diag_embed", lambda x: x.diag_embed(1), [X], "DiagEmbedBackward0"),
    ("pad", lambda x: ferric.pad(x, (1, 2, 0, 1), value=3.0), [X], "ConstantPadNdBackward0"),
    ("pad:crop", lambda x: ferric.pad(x, (-1, 2, 1, -2)), [X], None),
    ("pad:reflect", lambda x: ferric.pad(x, (2, 3), mode="reflect"), [PAD3],
     "ReflectionPad1DBackward0"),
    ("pad:replicate", lambda x: ferric.pad(x, (1, 2, 2, 0), mode="replicate"), [(1,) + PAD3],
     "ReplicationPad2DBackward0"),
    ("pad:circular", lambda x: ferric.pad(x, (2, 1), mode="circular"), [PAD3], None),
]

ALL_OPS = INDEX_OPS + JOIN_OPS
KINDS = ["contiguous", "transposed", "stepped", "expanded_last"]  # see layouts.py
# `x[idx] = v` records autograd.views.index_put, whose gradient for `x` is computed with a
# plain (non-differentiable) write, so only first derivatives are checked for it.
FIRST_ORDER_ONLY = {"setitem", "setitem:mask"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "fn", "shapes", "node"), ALL_OPS, ids=[r[0] for r in ALL_OPS])
def test_gradcheck(name, fn, shapes, node, kind):
    # every op here is linear in its differentiable inputs: the second derivative must
    # come out exactly zero and the backward must itself be differentiable
    second = kind in ("contiguous", "transposed") and name not in FIRST_ORDER_ONLY
    check(fn, shapes, kind, gradgrad=second)


@pytest.mark.parametrize(("name", "fn", "shapes", "node"),
                         [r for r in ALL_OPS if r[3]], ids=[r[0] for r in ALL_OPS if r[3]])
def test_node_names(name, fn, shapes, node):
    out = fn(*[leaf(s, seed) for seed, s in enumerate(shapes)])
    assert out.grad_fn.name() == node


# Every differentiable op of the family must have a gradient row above.
DIFFERENTIABLE = """
index_select index_add index_add_ gather scatter scatter_ scatter_add scatter_add_
index_fill index_fill_ index_put index_put_ take masked_fill masked_fill_ masked_select
masked_scatter masked_scatter_ where getitem setitem
cat concat concatenate stack hstack vstack row_stack dstack column_stack flip fliplr flipud
roll repeat tile repeat_interleave tril tril_ triu triu_ diagonal diag diag_embed pad
""".split()


def test_registry_every_differentiable_op_has_a_gradient_test():
    covered = {r[0].split(":")[0] for r in ALL_OPS}
    missing = [n for n in DIFFERENTIABLE if n not in covered]
    assert not missing, f"no gradcheck row for {missing}"
    for n in DIFFERENTIABLE:
        if n in ("getitem", "setitem", "pad"):
            continue
        assert hasattr(ferric.Tensor, n) or hasattr(ferric, n), n


# ------------------------------------------------------------------ edge cases


@pytest.mark.parametrize(("name", "fn", "shape"), [
    ("index_select", lambda x: x.index_select(0, i64([0])), ()),
    ("index_select:0d-index", lambda x: x.index_select(1, i64(2)), X),
    ("gather", lambda x: x.gather(0, i64(0)), ()),
    ("take", lambda x: x.take(i64([0, 0])), ()),
    ("repeat_interleave", lambda x: x.repeat_interleave(3, dim=0), ()),
    ("repeat", lambda x: x.repeat(2, 3), ()),
    ("flip", lambda x: x.flip(0), ()),
    ("masked_fill", lambda x: x.masked_fill(boolt(True), 1.0), ()),
    ("getitem:0d-bool", lambda x: x[boolt(True)], X),
    ("index_add", lambda x: ferric.zeros(3, dtype=F64).index_add(0, i64([1]), x), ()),
    ("scatter_add", lambda x: ferric.zeros(2, dtype=F64).scatter_add(0, i64([1]), x), ()),
])
def test_zero_dim_inputs(name, fn, shape):
    x = leaf(shape)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize(("name", "fn"), [
    ("index_select", lambda x: x.index_select(0, i64([]))),
    ("gather", lambda x: x.gather(1, ferric.zeros(3, 0, dtype=ferric.int64))),
    ("masked_select", lambda x: x.masked_select(ferric.zeros(3, 4, dtype=ferric.bool))),
    ("take", lambda x: x.take(i64([]))),
    ("repeat", lambda x: x.repeat(0, 1)),
    ("cat:all-empty", lambda x: ferric.cat([x[:0], ferric.zeros(0, 4, dtype=F64)])),
    ("pad:all-cropped", lambda x: ferric.pad(x, (-4, 0))),
])
def test_empty_results_give_zero_gradients(name, fn):
    x = leaf(X)
    out = fn(x)
    assert out.numel() == 0
    out.backward(ferric.zeros(*out.shape, dtype=F64))
    assert np.array_equal(x.grad.numpy(), np.zeros(X))


def test_repeated_indices_accumulate():
    x = leaf((4,))
    x[i64([1, 1, 3, 1])].backward(ferric.ones(4, dtype=F64))
    assert x.grad.tolist() == [0.0, 3.0, 0.0, 1.0]
    y = leaf((4,))
    y.index_select(0, i64([0, 0, 2])).backward(ferric.tensor([1.0, 2.0, 4.0], dtype=F64))
    assert y.grad.tolist() == [3.0, 0.0, 4.0, 0.0]
    z = leaf((4,))
    z.take(i64([-1, 3, 0])).backward(ferric.ones(3, dtype=F64))
    assert z.grad.tolist() == [1.0, 0.0, 0.0, 2.0]


def test_scatter_and_index_put_gradients_of_overwritten_positions():
    x, s = leaf((3,)), leaf((2,), seed=1)
    x.scatter(0, i64([2, 0]), s).backward(ferric.tensor([1.0, 2.0, 3.0], dtype=F64))
    assert x.grad.tolist() == [0.0, 2.0, 0.0]
    assert s.grad.tolist() == [3.0, 1.0]
    x, v = leaf((3,)), leaf((), seed=1)
    x.index_put((i64([1]),), v).backward(ferric.tensor([1.0, 2.0, 3.0], dtype=F64))
    assert x.grad.tolist() == [1.0, 0.0, 3.0]
    assert v.grad.item() == 2.0
    x, v = leaf((3,)), leaf((), seed=1)
    x.index_put((i64([1, 1]),), v, accumulate=True).backward(ferric.ones(3, dtype=F64))
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    assert v.grad.item() == 2.0


def test_fill_value_gradients():
    x, v = leaf(X), leaf((), seed=1)
    backward_ones(x.masked_fill(MASK, v))
    assert v.grad.item() == float(MASK.numpy().sum())
    x, v = leaf(X), leaf((), seed=1)
    # repeated fill indices still fill each position once
    backward_ones(x.index_fill(1, i64([0, 0, -4]), v))
    assert v.grad.item() == 3.0
    assert x.grad[:, 0].tolist() == [0.0, 0.0, 0.0]


def test_masked_scatter_source_gradient_is_padded():
    x, s = leaf((2, 2)), leaf((2, 3), seed=1)
    mask = boolt([[True, False], [True, True]])
    x.masked_scatter(mask, s).backward(ferric.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64))
    assert s.grad.tolist() == [[1.0, 3.0, 4.0], [0.0, 0.0, 0.0]]
    assert x.grad.tolist() == [[0.0, 2.0], [0.0, 0.0]]


def test_scatter_src_larger_than_index_gets_zero_gradient_outside():
    x, s = leaf((3, 3)), leaf((3, 3), seed=1)
    backward_ones(x.scatter_add(0, i64([[1]]), s))
    assert s.grad.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_where_condition_and_python_scalars():
    a = leaf(X)
    out = ferric.where(MASK, a, 0.0)
    assert out.dtype == F64
    backward_ones(out)
    assert np.array_equal(a.grad.numpy(), MASK.numpy().astype(np.float64))
    # integer branch promoted to float: the gradient only reaches the float branch
    b = leaf(X)
    backward_ones(ferric.where(MASK, ferric.ones(3, 4, dtype=ferric.int64), b))
    assert np.array_equal(b.grad.numpy(), (~MASK.numpy()).astype(np.float64))
    assert not ferric.where(MASK, 1.0, 2.0).requires_grad


def test_cat_promotion_casts_gradients_back():
    a = ferric.ones(2, 2, dtype=ferric.float32, requires_grad=True)
    b = ferric.ones(1, 2, dtype=F64, requires_grad=True)
    out = ferric.cat([a, b, ferric.ones(1, 2, dtype=ferric.int64)])
    assert out.dtype == F64
    out.backward(ferric.full((4, 2), 2.0, dtype=F64))
    assert a.grad.dtype == ferric.float32 and a.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert b.grad.dtype == F64


def test_getitem_zero_dim_int_tensor_is_a_select_view():
    x = leaf(X)
    y = x[i64(-1)]
    assert y.grad_fn.name() == "SelectBackward0"
    assert y.shape == (4,)
    assert y.data_ptr() == x.data_ptr() + 8 * 8
    backward_ones(y)
    assert x.grad[2].tolist() == [1.0] * 4


def test_scatter_reduce_has_no_derivative():
    x = leaf(X)
    out = x.scatter(0, SCATTER_IDX, 2.0, reduce="add")
    assert out.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        backward_ones(out)


def test_modified_index_is_detected():
    x, idx = leaf(X), i64([0, 2])
    out = x.index_select(0, idx)
    idx[0] = 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        backward_ones(out)


def test_inplace_on_leaf_raises_and_plain_inplace_still_works():
    x = leaf(X)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.index_fill_(0, i64([0]), 1.0)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.tril_()
    p = ferric.zeros(3, dtype=F64)
    p.index_put_((i64([1]),), ferric.tensor(5.0, dtype=F64))
    assert p.tolist() == [0.0, 5.0, 0.0] and not p.requires_grad
    # a plain tensor written with a value that requires grad joins the graph
    v = leaf((), seed=2)
    p.masked_fill_(boolt([True, False, False]), v)
    assert p.requires_grad
    backward_ones(p)
    assert v.grad.item() == 1.0


def test_no_graph_without_requires_grad_or_under_no_grad():
    x = ferric.ones(3, 4, dtype=F64)
    assert x.gather(1, GATHER_IDX).grad_fn is None
    y = leaf(X)
    with ferric.no_grad():
        assert ferric.cat([y, y]).grad_fn is None
        assert y.flip(0).requires_grad is False


def test_double_backward_of_getitem_and_gather_through_create_graph():
    x = leaf((4,))
    y = x[i64([1, 1, 2])]
    (g,) = ferric.autograd.grad(y * y, (x,), ferric.ones(3, dtype=F64), create_graph=True)
    # d/dx sum_k x[i_k]^2 = 2 * count * x  ->  d^2 = 2 * count on the diagonal
    (gg,) = ferric.autograd.grad(g, (x,), ferric.ones(4, dtype=F64))
    assert gg.tolist() == [0.0, 4.0, 2.0, 0.0]
