"""Autograd of the reduce op family: gradcheck and gradgradcheck (float64) of every
differentiable reduction, scan and softmax over dims None / int / negative / tuple with
keepdim both ways, on contiguous, transposed, step-sliced and expanded (stride 0) inputs;
PyTorch's node names; and its subgradient conventions (ties, zeros in prod/cumprod, std
and the 2-norm at 0, NaNs, degrees of freedom <= 0), with values checked by hand against
PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from layouts import leaf_and_view

import ferric
from ferric.autograd import gradcheck, gradgradcheck

F64 = ferric.float64
INF = float("inf")
NAN = float("nan")
X3 = (2, 3, 2)


def values(shape, seed=0, lo=0.5, hi=2.0):
    """Random values with random signs, bounded away from 0 (prod, norms, var stay smooth)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def leaf(shape, seed=0, lo=0.5, hi=2.0):
    return ferric.tensor(values(shape, seed, lo, hi), dtype=F64, requires_grad=True)


def tensor(v):
    return ferric.tensor(v, dtype=F64, requires_grad=True)


def make(kind, shape, seed=0):
    """A leaf and a function turning it into an input of `shape` with the layout `kind`."""
    return leaf_and_view(values(shape, seed), kind)


def grad(fn, x):
    """d sum(outputs) / dx (None when no gradient reaches x)."""
    out = fn(x)
    outs = out if isinstance(out, tuple) else (out,)
    total = sum(o.sum() for o in outs if o.requires_grad)
    (g,) = ferric.autograd.grad([total], [x], allow_unused=True)
    return g


def close(got, want):
    got = np.asarray(got.tolist() if hasattr(got, "tolist") else got, dtype=float)
    np.testing.assert_allclose(got, np.asarray(want, dtype=float), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ the op table

def _dims_all(x, d):
    return tuple(range(x.dim())) if d is None else d


# ops with (dim=None | int | tuple, keepdim)
MULTI_DIM = [
    ("sum", lambda x, d, k: x.sum(d, k)),
    ("sum:dtype", lambda x, d, k: x.sum(d, k, dtype=ferric.float32).double()),
    ("nansum", lambda x, d, k: x.nansum(d, k)),
    ("mean", lambda x, d, k: x.mean(d, k)),
    ("nanmean", lambda x, d, k: x.nanmean(d, k)),
    ("amax", lambda x, d, k: x.amax(keepdim=k) if d is None else x.amax(d, k)),
    ("amin", lambda x, d, k: ferric.amin(x, () if d is None else d, k)),
    ("var", lambda x, d, k: x.var(d, keepdim=k)),
    ("var:correction", lambda x, d, k: x.var(d, keepdim=k, correction=0)),
    ("std", lambda x, d, k: x.std(d, keepdim=k)),
    ("std:unbiased", lambda x, d, k: ferric.std(x, d, False, k)),
    ("var_mean", lambda x, d, k: ferric.var_mean(x, d, keepdim=k)),
    ("std_mean", lambda x, d, k: ferric.std_mean(x, d, keepdim=k, correction=2)),
    ("logsumexp", lambda x, d, k: x.logsumexp(_dims_all(x, d), k)),
    ("norm", lambda x, d, k: x.norm(None, d, k)),
    ("norm:1", lambda x, d, k: x.norm(1, d, k)),
    ("norm:3", lambda x, d, k: ferric.norm(x, 3, d, k)),
    ("norm:1.5", lambda x, d, k: x.norm(1.5, d, k)),
    ("norm:0.5", lambda x, d, k: x.norm(0.5, d, k)),
    ("norm:-1", lambda x, d, k: x.norm(-1, d, k)),
    ("norm:inf", lambda x, d, k: x.norm(INF, d, k)),
    ("norm:-inf", lambda x, d, k: x.norm(-INF, d, k)),
    ("norm:fro", lambda x, d, k: x.norm("fro", d, k)),
]

# ops with (dim=None | int, keepdim) or one required dim
ONE_DIM = [
    ("prod", lambda x, d, k: x.prod() if d is None else x.prod(d, k)),
    ("prod:dtype", lambda x, d, k: (x.prod(dtype=ferric.float32) if d is None
                                    else x.prod(d, k, dtype=ferric.float32)).double()),
    ("max", lambda x, d, k: x.max() if d is None else x.max(d, k)),
    ("min", lambda x, d, k: ferric.min(x) if d is None else ferric.min(x, d, keepdim=k)),
    ("aminmax", lambda x, d, k: x.aminmax(dim=d, keepdim=k)),
    ("cumsum", lambda x, d, k: x.cumsum(-1 if d is None else d)),
    ("cumsum:dtype", lambda x, d, k: ferric.cumsum(x, 0 if d is None else d,
                                                  dtype=ferric.float32).double()),
    ("cumprod", lambda x, d, k: x.cumprod(-1 if d is None else d)),
    ("cummax", lambda x, d, k: x.cummax(0 if d is None else d)),
    ("cummin", lambda x, d, k: ferric.cummin(x, -1 if d is None else d)),
    ("softmax", lambda x, d, k: x.softmax(-1 if d is None else d)),
    ("softmax:dtype", lambda x, d, k: x.softmax(0 if d is None else d, dtype=ferric.float32)
     .double()),
    ("log_softmax", lambda x, d, k: ferric.log_softmax(x, 0 if d is None else d)),
    ("max:other", lambda x, d, k: ferric.max(x, x.flip(0))),
    ("min:other", lambda x, d, k: x.min(other=x * 0.5)),
]

KINDS = ["contiguous", "transposed", "stepped", "expanded_last"]  # see layouts.py
# Every dim spelling on contiguous inputs; the other layouts with all dims and with dims
# that include the last (transposed / stepped / expanded) one.
MULTI_DIMS = {"contiguous": [None, 1, -1, (0, 2), (-1, 0)], "other": [None, (-1, 0)]}
ONE_DIMS = {"contiguous": [None, 1, -1], "other": [None, -1]}
# float32 round trips are too coarse for float64 finite differences: first order only,
# with a larger step
LOOSE = {"sum:dtype", "prod:dtype", "cumsum:dtype", "softmax:dtype"}


def _rows(table, dims):
    for kind in KINDS:
        for name, fn in table:
            for d in dims["contiguous" if kind == "contiguous" else "other"]:
                # PyTorch has no keepdim without a dim for these
                keeps = (False,) if d is None and table is ONE_DIM else (False, True)
                for k in keeps:
                    yield pytest.param(name, fn, d, k, kind,
                                       id=f"{name}-dim{d}-keep{int(k)}-{kind}")


def _check_row(name, fn, d, k, kind):
    base, view = make(kind, X3)

    def f(b):
        return fn(view(b), d, k)

    if name in LOOSE:
        assert gradcheck(f, (base,), eps=1e-3, atol=1e-3, rtol=1e-3)
    else:
        assert gradcheck(f, (base,))
        assert gradgradcheck(f, (base,))


@pytest.mark.parametrize(("name", "fn", "d", "k", "kind"), list(_rows(MULTI_DIM, MULTI_DIMS)))
def test_multi_dim_reductions(name, fn, d, k, kind):
    _check_row(name, fn, d, k, kind)


@pytest.mark.parametrize(("name", "fn", "d", "k", "kind"), list(_rows(ONE_DIM, ONE_DIMS)))
def test_one_dim_reductions_scans_softmax(name, fn, d, k, kind):
    _check_row(name, fn, d, k, kind)


# ------------------------------------------------------------------ node names

NODES = [
    ("sum", lambda x: x.sum(), "SumBackward0"),
    ("sum", lambda x: x.sum(0), "SumBackward1"),
    ("sum", lambda x: x.sum(dtype=ferric.float32), "SumBackward0"),
    ("nansum", lambda x: x.nansum(1), "NansumBackward0"),
    ("mean", lambda x: x.mean(), "MeanBackward0"),
    ("mean", lambda x: x.mean((0, 1)), "MeanBackward1"),
    ("nanmean", lambda x: x.nanmean(), "DivBackward0"),
    ("prod", lambda x: x.prod(), "ProdBackward0"),
    ("prod", lambda x: x.prod(1), "ProdBackward1"),
    ("max", lambda x: x.max(), "MaxBackward1"),
    ("max", lambda x: x.max(0).values, "MaxBackward0"),
    ("min", lambda x: x.min(), "MinBackward1"),
    ("min", lambda x: x.min(-1)[0], "MinBackward0"),
    ("max", lambda x: ferric.max(x, x), "MaximumBackward0"),
    ("min", lambda x: ferric.min(x, x), "MinimumBackward0"),
    ("amax", lambda x: x.amax(), "AmaxBackward0"),
    ("amin", lambda x: x.amin(0), "AminBackward0"),
    ("aminmax", lambda x: x.aminmax().max, "AminmaxBackward0"),
    ("var", lambda x: x.var(0), "VarBackward0"),
    ("std", lambda x: x.std(), "StdBackward0"),
    ("var_mean", lambda x: ferric.var_mean(x)[1], "VarMeanBackward0"),
    ("std_mean", lambda x: ferric.std_mean(x, 0)[0], "StdMeanBackward0"),
    ("logsumexp", lambda x: x.logsumexp(0), "LogsumexpBackward0"),
    ("norm", lambda x: x.norm(), "LinalgVectorNormBackward0"),
    ("norm", lambda x: x.norm(INF, 1), "LinalgVectorNormBackward0"),
    ("cumsum", lambda x: x.cumsum(0), "CumsumBackward0"),
    ("cumprod", lambda x: x.cumprod(1), "CumprodBackward0"),
    ("cummax", lambda x: x.cummax(0).values, "CummaxBackward0"),
    ("cummin", lambda x: x.cummin(0).values, "CumminBackward0"),
    ("softmax", lambda x: x.softmax(0), "SoftmaxBackward0"),
    ("softmax", lambda x: x.softmax(0, dtype=ferric.float32), "SoftmaxBackward0"),
    ("log_softmax", lambda x: x.log_softmax(1), "LogSoftmaxBackward0"),
]


@pytest.mark.parametrize(("name", "fn", "node"), NODES, ids=[f"{r[0]}-{r[2]}" for r in NODES])
def test_node_names(name, fn, node):
    assert fn(leaf((3, 4))).grad_fn.name() == node


def test_pytorch_graph_structure():
    x = leaf((3, 4))
    nexts = [n for n, _ in x.softmax(0, dtype=ferric.float32).grad_fn.next_functions]
    assert nexts[0].name() == "ToCopyBackward0"
    nexts = x.nanmean(0).grad_fn.next_functions
    assert nexts[0][0].name() == "NansumBackward0" and nexts[1][0] is None
    v, m = ferric.var_mean(x, 0)
    assert repr(v.grad_fn) == repr(m.grad_fn)  # one node (the repr shows its address)


# ------------------------------------------------------------------ registry

DIFFERENTIABLE = """
sum nansum mean nanmean prod max min amax amin aminmax var std var_mean std_mean logsumexp
norm cumsum cumprod cummax cummin softmax log_softmax
""".split()
NOT_DIFFERENTIABLE = {
    "argmax": lambda x: x.argmax(),
    "argmin": lambda x: x.argmin(1),
    "all": lambda x: x.all(),
    "any": lambda x: x.any(0),
    "count_nonzero": lambda x: x.count_nonzero(),
}


def test_registry_every_differentiable_reduce_op_has_a_gradient_test():
    covered = {r[0].split(":")[0] for r in MULTI_DIM + ONE_DIM}
    missing = [n for n in DIFFERENTIABLE if n not in covered]
    assert not missing, f"no gradcheck row for {missing}"
    named = {r[0] for r in NODES}
    assert not [n for n in DIFFERENTIABLE if n not in named], "missing node-name rows"
    for n in DIFFERENTIABLE + list(NOT_DIFFERENTIABLE):
        assert hasattr(ferric.Tensor, n) or hasattr(ferric, n), n


@pytest.mark.parametrize("name", list(NOT_DIFFERENTIABLE))
def test_integer_and_bool_results_have_no_gradient(name):
    out = NOT_DIFFERENTIABLE[name](leaf((3, 4)))
    assert not out.requires_grad and out.grad_fn is None


def test_indices_and_no_grad_results_carry_no_graph():
    x = leaf((3, 4))
    for r in (x.max(1), x.min(0, True), x.cummax(1), x.cummin(0)):
        assert r.values.requires_grad and not r.indices.requires_grad
    with ferric.no_grad():
        assert not x.sum().requires_grad and not x.softmax(0).requires_grad
        assert not ferric.var_mean(x)[0].requires_grad
    plain = ferric.ones(3, 4, dtype=F64)
    assert plain.sum().grad_fn is None and plain.max(0).values.grad_fn is None


# ------------------------------------------------------------------ 0-d and empty inputs

ZERO_D = [
    ("sum", lambda x: x.sum()), ("sum:dim", lambda x: x.sum(0, True)),
    ("mean", lambda x: x.mean(-1)), ("nansum", lambda x: x.nansum()),
    ("prod", lambda x: x.prod()), ("prod:dim", lambda x: x.prod(0)),
    ("max", lambda x: x.max()), ("max:dim", lambda x: x.max(0)),
    ("amax", lambda x: x.amax()), ("aminmax", lambda x: x.aminmax()),
    ("var:c0", lambda x: x.var(correction=0)), ("logsumexp", lambda x: x.logsumexp(0)),
    ("norm", lambda x: x.norm()), ("norm:3", lambda x: x.norm(3)),
    ("cumsum", lambda x: x.cumsum(0)), ("cumprod", lambda x: x.cumprod(0)),
    ("cummax", lambda x: x.cummax(0)), ("softmax", lambda x: x.softmax(0)),
    ("log_softmax", lambda x: x.log_softmax(-1)),
]


@pytest.mark.parametrize(("name", "fn"), ZERO_D, ids=[r[0] for r in ZERO_D])
def test_zero_dim_inputs(name, fn):
    x = leaf(())
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("fn", [
    lambda x: x.sum(0), lambda x: x.mean(1), lambda x: x.prod(1), lambda x: x.prod(),
    lambda x: x.cumsum(0), lambda x: x.cumprod(1), lambda x: x.cummax(0).values,
    lambda x: x.softmax(1), lambda x: x.logsumexp(0), lambda x: x.norm(2, 0),
    lambda x: x.amax(1), lambda x: x.var(0),
])
def test_empty_inputs_get_empty_gradients(fn):
    x = ferric.zeros(0, 3, dtype=F64, requires_grad=True)
    out = fn(x)
    out.sum().backward()
    assert x.grad is not None and tuple(x.grad.shape) == (0, 3)


# ------------------------------------------------------------------ ties, zeros, NaN

def test_ties_share_the_gradient_of_amax_amin_and_full_max_min():
    x = tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    third = 1 / 3
    close(grad(lambda t: t.amax(1), x), [[0, 0.5, 0.5], [third, third, third]])
    close(grad(lambda t: t.amin(), x), [[1, 0, 0], [0, 0, 0]])
    close(grad(lambda t: t.max(), tensor([1.0, 3.0, 3.0])), [0, 0.5, 0.5])
    close(grad(lambda t: t.min(), tensor([1.0, 1.0, 3.0])), [0.5, 0.5, 0])
    # norm(inf) is amax(|x|): ties of either sign share it, with the sign
    close(grad(lambda t: t.norm(INF), tensor([-3.0, 3.0, 1.0])), [-0.5, 0.5, 0])
    close(grad(lambda t: t.norm(-INF), tensor([-1.0, 3.0, 1.0])), [-0.5, 0, 0.5])


def test_aminmax_spreads_each_output_over_its_ties():
    close(grad(lambda t: t.aminmax(), tensor([1.0, 1.0, 2.0, 2.0, 2.0])),
          [0.5, 0.5, 1 / 3, 1 / 3, 1 / 3])
    x = tensor([[1.0, 1.0, 2.0], [3.0, 3.0, 3.0]])
    close(grad(lambda t: t.aminmax(dim=1), x), [[0.5, 0.5, 1], [2 / 3, 2 / 3, 2 / 3]])
    # only one output used: the other contributes nothing
    close(grad(lambda t: t.aminmax().max, tensor([1.0, 4.0, 4.0])), [0, 0.5, 0.5])


def test_max_with_dim_and_cummax_send_the_gradient_to_the_index():
    close(grad(lambda t: t.max(0).values, tensor([1.0, 3.0, 3.0])), [0, 1, 0])
    close(grad(lambda t: t.min(1, keepdim=True).values, tensor([[2.0, 0.0, 0.0]])), [[0, 1, 0]])
    # ties move cummax's index forward, like PyTorch's kernel
    close(grad(lambda t: t.cummax(0).values, tensor([1.0, 1.0, 0.0, 2.0])), [1, 2, 0, 1])
    close(grad(lambda t: t.cummin(0).values, tensor([3.0, 1.0, 2.0, 1.0])), [1, 2, 0, 1])


@pytest.mark.parametrize("fn", [
    lambda t: t.prod(), lambda t: t.prod(1), lambda t: t.prod(0, keepdim=True),
    lambda t: t.cumprod(1), lambda t: t.cumprod(0),
])
@pytest.mark.parametrize("zeros", [[(0, 1)], [(1, 1)], [(0, 1), (1, 1)],
                                   [(0, 0), (0, 2), (1, 0), (2, 3)]])
def test_prod_and_cumprod_with_zeros_are_exact_and_twice_differentiable(fn, zeros):
    x = leaf((3, 4), seed=3)
    with ferric.no_grad():
        for idx in zeros:
            x[idx] = 0.0
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0], [1.0, 1.0, 0.0], [0.0, -1.5, 2.0, 0.5],
                                    [-1.0, -0.0, 1.0], [0.0, 2.0, 0.0, 3.0]])
def test_one_dim_prod_and_cumprod_with_zeros(values):
    # narrow views of 1-d inputs are contiguous with an offset (the kernels must honour it)
    for fn in (lambda t: t.cumprod(0), lambda t: t.prod(), lambda t: t.prod(0, True)):
        assert gradcheck(fn, (tensor(values),))
        assert gradgradcheck(fn, (tensor(values),))


def test_prod_and_cumprod_zero_values_match_pytorch():
    close(grad(lambda t: t.prod(), tensor([2.0, 0.0, 3.0])), [0, 6, 0])
    close(grad(lambda t: t.prod(), tensor([2.0, 0.0, 0.0])), [0, 0, 0])
    close(grad(lambda t: t.prod(1), tensor([[2.0, 0.0, 3.0], [0.0, 5.0, 0.0]])),
          [[0, 6, 0], [0, 0, 0]])
    close(grad(lambda t: t.cumprod(0), tensor([2.0, 0.0, 3.0, 0.0, 5.0])), [1, 8, 0, 0, 0])
    # the first-order kernel and the differentiable (create_graph) path agree
    x = tensor([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, -2.0, 0.0]])
    g = ferric.tensor([[0.3, -1.0, 2.0, 0.7], [1.0, 0.2, -0.4, 0.9]], dtype=F64)
    (a,) = ferric.autograd.grad([x.cumprod(1)], [x], [g])
    (b,) = ferric.autograd.grad([x.cumprod(1)], [x], [g], create_graph=True)
    close(a, b.detach())


def test_std_and_two_norm_have_zero_subgradient_at_zero():
    close(grad(lambda t: t.std(), tensor([2.0, 2.0, 2.0])), [0, 0, 0])
    close(grad(lambda t: t.std(0), tensor([[1.0, 2.0], [1.0, 3.0]])),
          [[0, -1 / math.sqrt(2)], [0, 1 / math.sqrt(2)]])
    close(grad(lambda t: t.norm(), tensor([0.0, 0.0])), [0, 0])
    close(grad(lambda t: t.norm(dim=1), tensor([[0.0, 0.0], [3.0, 4.0]])), [[0, 0], [0.6, 0.8]])
    close(grad(lambda t: t.norm(3), tensor([0.0, 0.0])), [0, 0])
    close(grad(lambda t: t.norm(1.5), tensor([0.0, 0.0])), [0, 0])
    close(grad(lambda t: t.norm(1), tensor([0.0, 1.0])), [0, 1])
    close(grad(lambda t: t.norm(0.5), tensor([0.0, 1.0])), [0, 1])


def test_norm_zero_has_no_gradient_like_pytorch():
    x = tensor([1.0, 0.0, 2.0])
    x.norm(0).backward()
    assert x.grad is None
    assert gradcheck(lambda t: t.norm(0, 0), (leaf((3, 2)),))


def test_nan_handling():
    nan_x = [1.0, NAN, 3.0]
    close(grad(lambda t: t.max(), tensor(nan_x)), [0, 1, 0])
    g = grad(lambda t: t.amax(), tensor(nan_x))
    assert all(math.isnan(v) for v in g.tolist())
    close(grad(lambda t: t.nansum(), tensor(nan_x)), [1, 0, 1])
    close(grad(lambda t: t.nanmean(), tensor(nan_x)), [0.5, 0, 0.5])
    g = grad(lambda t: t.logsumexp(0), tensor([-INF, -INF]))
    assert all(math.isnan(v) for v in g.tolist())


def test_var_with_no_degrees_of_freedom():
    g = grad(lambda t: t.var(), tensor([1.0]))
    assert math.isnan(g.tolist()[0])
    close(grad(lambda t: t.var(correction=3), tensor([1.0, 2.0])), [INF, INF])
    close(grad(lambda t: t.var(0, correction=3), tensor([1.0, 2.0])), [1, -1])
    # the mean output of var_mean stays usable when the variance is undefined
    close(grad(lambda t: ferric.var_mean(t)[1], tensor([4.0])), [1])
    x = tensor([1.0, 2.0, 4.0])
    close(grad(lambda t: ferric.var_mean(t), x), [-4 / 3 + 1 / 3, -1 / 3 + 1 / 3, 5 / 3 + 1 / 3])


# ------------------------------------------------------------------ dtypes, saved tensors

def test_dtype_arguments_cast_the_gradient_back():
    x = leaf((3, 4))
    for out in (x.sum(dtype=ferric.float32), x.cumsum(1, dtype=ferric.float32),
                x.softmax(0, dtype=ferric.float32), x.prod(dtype=ferric.float32)):
        (g,) = ferric.autograd.grad([out.sum()], [x])
        assert g.dtype == F64 and tuple(g.shape) == (3, 4)
    y = ferric.ones(2, 3, requires_grad=True)
    y.norm(dtype=F64).backward()
    assert y.grad.dtype == ferric.float32


def test_modified_saved_input_is_detected():
    x = leaf((3, 4))
    y = x.clone()
    z = y.prod(1)
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    # sum saves nothing: in-place changes afterwards are fine
    y = x.clone()
    s = y.sum()
    y.mul_(2.0)
    s.backward()
    close(x.grad, np.ones((3, 4)))


def test_softmax_backward_is_second_order_correct():
    # d/dx of sum(softmax(x) * w) twice through create_graph matches gradgradcheck's view
    x = leaf((2, 5))
    w = ferric.tensor(np.linspace(-1, 1, 10).reshape(2, 5), dtype=F64)
    (g,) = ferric.autograd.grad([(x.softmax(1) * w).sum()], [x], create_graph=True)
    assert g.requires_grad
    assert gradgradcheck(lambda t: t.log_softmax(0), (x,))


def test_broadcast_gradients_are_summed_with_the_reduction_kernel():
    # the engine's sum_to: a (1, 4) and a (3, 1) operand broadcast to (2, 3, 4)
    a = leaf((1, 4))
    b = leaf((3, 1), seed=1)
    c = leaf((2, 1, 1), seed=2)
    ((a * b) * c).sum().backward()
    an, bn, cn = (np.asarray(t.detach().tolist()) for t in (a, b, c))
    ones = np.ones((2, 3, 4))
    close(a.grad, (ones * bn * cn).sum(axis=(0, 1)).reshape(1, 4))
    close(b.grad, (ones * an * cn).sum(axis=(0, 2)).reshape(3, 1))
    close(c.grad, (ones * an * bn).sum(axis=(1, 2)).reshape(2, 1, 1))
