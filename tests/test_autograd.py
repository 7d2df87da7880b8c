"""Autograd: gradients of every differentiable elementwise/view op (gradcheck in float64 on
contiguous and non-contiguous inputs), and the engine's behaviour: accumulation, retain /
create graph, grad modes, in-place checks, hooks, custom Functions, anomaly mode, memory
and threads."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest
from layouts import leaf_and_view, uses
from nn_helpers import WrongGradient

import ferric
from ferric.autograd import gradcheck, gradgradcheck


def leaf(shape, lo=-2.0, hi=2.0, seed=0):
    rng = np.random.default_rng(seed)
    return ferric.tensor(rng.uniform(lo, hi, size=shape), dtype=ferric.float64, requires_grad=True)


UNARY = [
    ("neg", lambda x: -x, None),
    ("abs", lambda x: x.abs(), None),
    ("exp", lambda x: x.exp(), None),
    ("exp2", lambda x: x.exp2(), None),
    ("sgn", lambda x: x.sgn(), None),
    ("angle", lambda x: x.angle(), None),
    ("deg2rad", lambda x: x.deg2rad(), None),
    ("rad2deg", lambda x: x.rad2deg(), None),
    ("expm1", lambda x: x.expm1(), None),
    ("log", lambda x: x.log(), (0.5, 2.0)),
    ("log2", lambda x: x.log2(), (0.5, 2.0)),
    ("log10", lambda x: x.log10(), (0.5, 2.0)),
    ("log1p", lambda x: x.log1p(), (0.0, 2.0)),
    ("sqrt", lambda x: x.sqrt(), (0.5, 2.0)),
    ("rsqrt", lambda x: x.rsqrt(), (0.5, 2.0)),
    ("square", lambda x: x.square(), None),
    ("reciprocal", lambda x: x.reciprocal(), (0.5, 2.0)),
    ("sin", lambda x: x.sin(), None),
    ("cos", lambda x: x.cos(), None),
    ("tan", lambda x: x.tan(), (-1.0, 1.0)),
    ("asin", lambda x: x.asin(), (-0.9, 0.9)),
    ("acos", lambda x: x.acos(), (-0.9, 0.9)),
    ("atan", lambda x: x.atan(), None),
    ("sinh", lambda x: x.sinh(), None),
    ("asinh", lambda x: x.asinh(), None),
    ("acosh", lambda x: x.acosh(), (1.5, 3.0)),
    ("atanh", lambda x: x.atanh(), (-0.9, 0.9)),
    ("cosh", lambda x: x.cosh(), None),
    ("tanh", lambda x: x.tanh(), None),
    ("sigmoid", lambda x: x.sigmoid(), None),
    ("relu", lambda x: x.relu(), None),
    ("erf", lambda x: x.erf(), None),
    ("erfc", lambda x: x.erfc(), None),
    ("frac", lambda x: x.frac(), None),
    # piecewise constant: zero gradients (inputs stay away from the jumps)
    ("floor", lambda x: x.floor(), None),
    ("ceil", lambda x: x.ceil(), None),
    ("round", lambda x: x.round(), None),
    ("trunc", lambda x: x.trunc(), None),
    ("sign", lambda x: x.sign(), None),
    ("gelu", lambda x: ferric.gelu(x), None),
    ("gelu_tanh", lambda x: ferric.gelu(x, approximate="tanh"), None),
    ("silu", lambda x: ferric.silu(x), None),
    ("mish", lambda x: ferric.mish(x), None),
    ("logsigmoid", lambda x: ferric.logsigmoid(x), None),
    ("softplus", lambda x: ferric.softplus(x, beta=2.0, threshold=3.0), None),
    ("leaky_relu", lambda x: ferric.leaky_relu(x, 0.2), None),
    ("elu", lambda x: ferric.elu(x, 0.7), None),
    ("clamp", lambda x: x.clamp(-0.5, 0.7), None),
    ("clamp_min", lambda x: x.clamp(min=0.3), None),
    ("pow_scalar", lambda x: x ** 3, None),
    ("pow_frac", lambda x: x ** 1.5, (0.5, 2.0)),
    ("rpow", lambda x: 2.0 ** x, None),
    ("add_scalar", lambda x: x + 1.5, None),
    ("rsub_scalar", lambda x: 1.5 - x, None),
    ("mul_scalar", lambda x: x * -2.0, None),
    ("rdiv_scalar", lambda x: 3.0 / x, (0.5, 2.0)),
    ("to_float32_and_back", lambda x: x.float().double() * 1.0, None),
    ("clone", lambda x: x.clone(), None),
    # special functions (op-table rows; more in tests/test_special.py)
    ("lgamma", lambda x: x.lgamma(), (0.5, 3.0)),
    ("digamma", lambda x: x.digamma(), (0.5, 3.0)),
    ("erfinv", lambda x: x.erfinv(), (-0.9, 0.9)),
    ("i0", lambda x: x.i0(), None),
    ("sinc", lambda x: x.sinc(), None),
    ("special_entr", lambda x: ferric.special.entr(x), (0.5, 2.0)),
    ("special_ndtri", lambda x: ferric.special.ndtri(x), (0.1, 0.9)),
    ("special_log_ndtr", lambda x: ferric.special.log_ndtr(x), (-4.0, 3.0)),
    ("special_erfcx", lambda x: ferric.special.erfcx(x), None),
    ("special_i0e", lambda x: ferric.special.i0e(x), None),
    ("special_i1", lambda x: ferric.special.i1(x), None),
    ("special_i1e", lambda x: ferric.special.i1e(x), None),
]

# ops whose derivative jumps at points the random inputs avoid with probability 1; their
# second derivative is zero almost everywhere, which gradgradcheck also verifies
# zero first derivatives are constants: there is no second-order graph to check
NO_DOUBLE = {"to_float32_and_back", "floor", "ceil", "round", "trunc", "sign", "sgn", "angle"}


@pytest.mark.parametrize("name,fn,domain", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("kind", ["contiguous", "transposed", "stepped", "expanded_last"])
def test_unary_gradcheck(name, fn, domain, kind):
    lo, hi = domain or (-2.0, 2.0)
    shape = (3, 4)
    x, view = leaf_and_view(np.random.default_rng(1).uniform(lo, hi, size=shape), kind)
    if name == "to_float32_and_back":
        # a float32 round trip loses precision, so check the gradient path exactly instead
        fn(view(x)).backward(ferric.ones(*shape, dtype=ferric.float64))
        # 1 where the view reads the base (4 for the broadcast one), 0 in a stepped gap
        assert np.array_equal(x.grad.numpy(), uses(view, tuple(x.shape)))
        assert x.grad.dtype == ferric.float64
        return
    assert gradcheck(lambda t: fn(view(t)), (x,))
    if name not in NO_DOUBLE and kind == "contiguous":
        assert gradgradcheck(lambda t: fn(view(t)), (x,))


BINARY = [
    ("add", lambda a, b: a + b, None),
    ("sub", lambda a, b: a - b, None),
    ("mul", lambda a, b: a * b, None),
    ("div", lambda a, b: a / b, (0.5, 2.0)),
    ("pow", lambda a, b: a ** b, (0.5, 2.0)),
    ("maximum", lambda a, b: ferric.maximum(a, b), None),
    ("minimum", lambda a, b: ferric.minimum(a, b), None),
    ("atan2", lambda a, b: ferric.atan2(a, b), (0.5, 2.0)),
    ("copysign", lambda a, b: ferric.copysign(a, b), (0.5, 2.0)),
    ("hypot", lambda a, b: ferric.hypot(a, b), (0.5, 2.0)),
    ("logaddexp", lambda a, b: ferric.logaddexp(a, b), None),
    ("logaddexp2", lambda a, b: ferric.logaddexp2(a, b), None),
    ("fmax", lambda a, b: ferric.fmax(a, b), None),
    ("fmin", lambda a, b: ferric.fmin(a, b), None),
    ("ldexp", lambda a, b: ferric.ldexp(a, b), None),
    ("nextafter", lambda a, b: ferric.nextafter(a, b), None),
    ("remainder", lambda a, b: ferric.remainder(a, b), (0.5, 2.0)),
    ("fmod", lambda a, b: ferric.fmod(a, b), (0.5, 2.0)),
    ("add_alpha", lambda a, b: a.add(b, alpha=2.5), None),
    ("sub_alpha", lambda a, b: a.sub(b, alpha=0.5), None),
    ("xlogy", lambda a, b: ferric.xlogy(a, b), (0.5, 2.0)),
    ("special_xlog1py", lambda a, b: ferric.special.xlog1py(a, b), (0.5, 2.0)),
    # zeta has no derivative in s (PyTorch raises): s is a constant here
    ("special_zeta", lambda a, b: ferric.special.zeta(ferric.full_like(a.detach(), 2.5), b)
     + 0 * a, (0.5, 2.0)),
    # (the gradient in the shape `a` raises, as in PyTorch: tests/test_special_bessel.py)
    ("igamma", lambda a, b: ferric.special.gammainc(ferric.full_like(a.detach(), 2.5), b)
     + 0 * a, (0.5, 3.0)),
    ("igammac", lambda a, b: ferric.special.gammaincc(ferric.full_like(a.detach(), 1.5), b)
     + 0 * a, (0.5, 3.0)),
]


@pytest.mark.parametrize("name,fn,domain", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (4,)), ((2, 3, 4), (1, 4))])
def test_binary_gradcheck(name, fn, domain, shapes):
    lo, hi = domain or (-2.0, 2.0)
    a = leaf(shapes[0], lo, hi, seed=2)
    b = leaf(shapes[1], lo, hi, seed=3)
    assert gradcheck(fn, (a, b))
    # (copysign's and nextafter's first derivatives are piecewise constant)
    if name not in ("remainder", "fmod", "maximum", "minimum", "copysign", "nextafter"):
        assert gradgradcheck(fn, (a, b))


def test_binary_gradcheck_noncontiguous_operands():
    a = leaf((4, 3))
    b = leaf((3, 8))
    assert gradcheck(lambda x, y: x.t() * y[:, ::2] + y[:, 1::2].exp(), (a, b))


VIEWS = [
    ("view", lambda x: x.view(4, 3)),
    ("reshape", lambda x: x.t().reshape(-1)),
    ("permute", lambda x: x.unsqueeze(0).permute(2, 0, 1)),
    ("transpose", lambda x: x.transpose(0, 1)),
    ("T", lambda x: x.T),
    ("expand", lambda x: x[:, :1].expand(3, 5)),
    ("squeeze", lambda x: x[:1].squeeze(0)),
    ("unsqueeze", lambda x: x.unsqueeze(1)),
    ("flatten", lambda x: x.flatten()),
    ("unflatten", lambda x: x.unflatten(1, (2, 2))),
    ("narrow", lambda x: x.narrow(1, 1, 2)),
    ("select", lambda x: x.select(0, 1)),
    ("getitem_basic", lambda x: x[1:, None, ::2]),
    ("getitem_int", lambda x: x[-1]),
    ("getitem_ellipsis", lambda x: x[..., 1]),
    ("unbind", lambda x: x.unbind(1)[2] * 2),
    ("chunk", lambda x: x.chunk(2, 1)[1] * 3),
    ("split", lambda x: x.split([1, 3], 1)[1].exp()),
    ("movedim", lambda x: x.unsqueeze(2).movedim(0, 2)),
    ("contiguous", lambda x: x.t().contiguous()),
]


@pytest.mark.parametrize("name,fn", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_gradcheck(name, fn):
    x = leaf((3, 4))
    assert gradcheck(fn, (x,))
    assert gradgradcheck(lambda t: fn(t) * fn(t), (x,))


def test_registry_every_differentiable_elementwise_op_has_a_gradient_test():
    """Every differentiable row of the op tables (read from ``_core``) has a gradcheck
    row above; rows sharing a name (``gelu`` and its tanh form) are told apart by their
    variant."""
    tested = {u[0] for u in UNARY} | {b[0] for b in BINARY}
    rows = [r for r in ferric._core._op_table()
            if r["differentiable"] and r["family"] != "reduction"]
    names = [r["name"] for r in rows]
    differentiable = set()
    for r in rows:
        if names.count(r["name"]) > 1 and r["variant"].lower() != r["name"]:
            differentiable.add(_snake(r["variant"]))
        else:
            differentiable.add(r["name"])
    # ops outside the tables (binary family, clamp) until they get their rows
    differentiable |= {"clamp", "add", "sub", "mul", "div", "pow", "maximum", "minimum",
                       "atan2", "remainder", "fmod"}
    missing = sorted(differentiable - tested)
    assert not missing, f"differentiable ops without a gradient test: {missing}"


def _snake(camel):
    return "".join("_" + c.lower() if c.isupper() else c for c in camel).lstrip("_")


# ---------------------------------------------------------------- engine behaviour


def test_gradients_accumulate_across_backward_calls():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(ferric.ones(2))
    (x * 3).backward(ferric.ones(2))
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad = None
    (x * 2).backward(ferric.ones(2))
    assert x.grad.tolist() == [2.0, 2.0]


def test_implicit_gradient_only_for_scalars():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (x * 2).backward()
    y = (x * 2)[0]
    y.backward()
    assert x.grad.tolist() == [2.0, 0.0]


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        ferric.tensor([1.0]).backward()


def test_second_backward_raises_and_retain_graph_allows_it():
    x = ferric.tensor([3.0], requires_grad=True)
    y = (x * x)[0]
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [12.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_graph_without_saved_tensors_can_rerun():
    x = ferric.tensor([3.0], requires_grad=True)
    y = (x + 1)[0]
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0]


def test_create_graph_hessian_vector_product():
    x = ferric.tensor([1.0, 2.0], dtype=ferric.float64, requires_grad=True)
    y = (x ** 3 * x[0]).exp2()  # some non-quadratic function
    y2 = y[0] + y[1]
    (g,) = ferric.autograd.grad(y2, x, create_graph=True)
    v = ferric.tensor([0.5, -1.0], dtype=ferric.float64)
    (hv,) = ferric.autograd.grad((g * v)[0] + (g * v)[1], x)
    # finite-difference check of H v
    eps = 1e-6

    def grad_at(arr):
        t = ferric.tensor(arr, dtype=ferric.float64, requires_grad=True)
        yy = (t ** 3 * t[0]).exp2()
        (gg,) = ferric.autograd.grad(yy[0] + yy[1], t)
        return gg.numpy()

    base = x.detach().numpy()
    fd = (grad_at(base + eps * v.numpy()) - grad_at(base - eps * v.numpy())) / (2 * eps)
    assert np.allclose(hv.numpy(), fd, rtol=1e-5, atol=1e-6)


def test_autograd_grad_allow_unused_and_no_accumulation():
    x = ferric.tensor([1.0], requires_grad=True)
    z = ferric.tensor([1.0], requires_grad=True)
    y = (x * 2)[0]
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        ferric.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = ferric.autograd.grad(y, [x, z], allow_unused=True)
    assert gx.tolist() == [2.0] and gz is None
    assert x.grad is None


def test_backward_inputs_restricts_accumulation():
    a = ferric.tensor([1.0], requires_grad=True)
    b = ferric.tensor([2.0], requires_grad=True)
    (a * b)[0].backward(inputs=[a])
    assert a.grad.tolist() == [2.0] and b.grad is None


def test_leaf_and_grad_fn_properties():
    x = ferric.tensor([1.0], requires_grad=True)
    y = x * 2
    assert x.is_leaf and not y.is_leaf
    assert x.grad_fn is None
    assert y.grad_fn.name() == "MulBackward0"
    (nxt, nr), = y.grad_fn.next_functions
    assert nxt.name() == "torch::autograd::AccumulateGrad" and nr == 0
    assert ferric.tensor([1.0]).is_leaf
    d = y.detach()
    assert d.is_leaf and not d.requires_grad
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="floating point"):
        ferric.tensor([1, 2]).requires_grad_()


def test_retain_grad():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad
    (y * y).backward(ferric.ones(2))
    assert y.grad.tolist() == [6.0, 12.0]


def test_grad_modes_and_decorators():
    x = ferric.tensor([1.0], requires_grad=True)
    with ferric.no_grad():
        assert not (x * 2).requires_grad
        assert not ferric.is_grad_enabled()
        with ferric.enable_grad():
            assert (x * 2).requires_grad
    assert ferric.is_grad_enabled()

    @ferric.no_grad()
    def f(t):
        return t * 2

    @ferric.no_grad
    def g(t):
        return t * 2

    assert not f(x).requires_grad and not g(x).requires_grad
    ferric.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    ferric.set_grad_enabled(True)
    with ferric.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    with ferric.inference_mode():
        assert not (x * 2).requires_grad


def test_grad_mode_is_thread_local():
    seen = []
    with ferric.no_grad():
        th = threading.Thread(target=lambda: seen.append(ferric.is_grad_enabled()))
        th.start()
        th.join()
    assert seen == [True]


def test_inplace_on_leaf_requiring_grad_raises():
    x = ferric.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[0] = 2.0
    with ferric.no_grad():
        x.add_(1)  # allowed: parameter updates
    assert x.tolist() == [2.0]


def test_modified_saved_tensor_is_detected():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * 2  # MulBackward saves nothing of y; ExpBackward saved its output y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*ExpBackward0"):
        z.backward(ferric.ones(2))


def test_inplace_on_non_saved_tensor_gives_correct_gradients():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(3)
    y.mul_(x)  # y = (2x + 3) * x  -> dy/dx = 4x + 3
    y.backward(ferric.ones(2))
    assert x.grad.tolist() == [7.0, 11.0]
    assert y.grad_fn.name() == "MulBackward0"


def test_setitem_with_grad_flows_to_value_and_base():
    w = ferric.tensor([5.0, 7.0], requires_grad=True)
    x = ferric.zeros(3, 2)
    x[1] = w * 2
    x.backward(ferric.ones(3, 2))
    assert w.grad.tolist() == [2.0, 2.0]
    a = ferric.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    b[0] = 10.0
    b.backward(ferric.tensor([1.0, 1.0, 1.0]))
    assert a.grad.tolist() == [0.0, 1.0, 1.0]


def test_tensor_hooks_replace_and_remove():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (x * 2).backward(ferric.ones(2))
    assert seen == [[2.0, 2.0]] and x.grad.tolist() == [20.0, 20.0]
    h.remove()
    x.grad = None
    (x * 2).backward(ferric.ones(2))
    assert x.grad.tolist() == [2.0, 2.0]
    y = x * 3
    y.register_hook(lambda g: g * 0)
    x.grad = None
    (y * 1).backward(ferric.ones(2))
    assert x.grad.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ferric.tensor([1.0]).register_hook(lambda g: g)


def test_hook_exception_propagates_unchanged():
    x = ferric.tensor([1.0], requires_grad=True)

    def bad(g):
        raise KeyError("from hook")

    x.register_hook(bad)
    with pytest.raises(KeyError, match="from hook"):
        (x * 2).backward(ferric.ones(1))


def test_post_accumulate_grad_hook():
    x = ferric.tensor([1.0], requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.tolist()))
    (x * 4).backward(ferric.ones(1))
    assert calls == [[4.0]]


class Cube(ferric.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None


class SortLike(ferric.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = ferric.tensor([1, 0])
        ctx.mark_non_differentiable(idx)
        return x * 2, idx

    @staticmethod
    def backward(ctx, g, g_idx):
        assert g_idx is None
        return g * 2


def test_custom_function():
    x = ferric.tensor([2.0], dtype=ferric.float64, requires_grad=True)
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.backward(ferric.ones(1, dtype=ferric.float64))
    assert x.grad.tolist() == [24.0]
    assert gradcheck(lambda t: Cube.apply(t, 1.5), (leaf((3,)),))
    out, idx = SortLike.apply(x)
    assert out.requires_grad and not idx.requires_grad
    out.backward(ferric.ones(1, dtype=ferric.float64))


def test_custom_function_needs_input_grad():
    seen = {}

    class F(ferric.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    F.apply(ferric.tensor([1.0], requires_grad=True), ferric.tensor([1.0]))
    assert seen["needs"] == (True, False)


def test_gradcheck_detects_wrong_gradient():
    with pytest.raises(ferric.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(WrongGradient.apply, (leaf((2,)),))
    assert gradcheck(WrongGradient.apply, (leaf((2,)),), raise_exception=False) is False


def test_anomaly_mode_names_op_and_forward_trace():
    x = ferric.tensor([0.0, 1.0], requires_grad=True)
    with ferric.autograd.detect_anomaly():
        y = x.sqrt()  # the line that creates SqrtBackward0
        z = y * 0.0
        with pytest.raises(RuntimeError) as e:
            z.backward(ferric.ones(2))
    msg = str(e.value)
    assert "SqrtBackward0" in msg and "nan" in msg
    assert "test_autograd.py" in msg and "x.sqrt()" in msg
    assert not ferric.autograd.is_anomaly_enabled()


def test_saved_tensors_released_after_backward():
    ctxs = []

    class Keep(ferric.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctxs.append(weakref.ref(ctx))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = Keep.apply(x) * x  # MulBackward0 saves y's data and x
    assert ctxs[0]() is not None
    y.backward(ferric.ones(2))
    # the node ran without retain_graph: its closure, context and saved tensors are gone
    assert ctxs[0]() is None
    with pytest.raises(RuntimeError, match="second time"):
        y.backward(ferric.ones(2))


def test_graph_is_freed_with_its_outputs():
    x = ferric.tensor([1.0], requires_grad=True)
    y = x * 2
    r = weakref.ref(y)
    del y
    gc.collect()
    assert r() is None


def test_custom_function_context_does_not_leak():
    x = ferric.tensor([1.0], requires_grad=True)
    y = Cube.apply(x, 1.0)
    r = weakref.ref(y)
    del y
    # no gc.collect(): the graph must be freed by reference counting alone
    assert r() is None


def test_deep_chain_backward_and_destruction():
    x = ferric.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(150_000):
        y = y * 1.0
    y.backward(ferric.ones(1))
    assert x.grad.tolist() == [1.0]
    z = x
    for _ in range(150_000):
        z = z + 0.0
    del z  # destroying an un-run 150k-node graph must not overflow the stack


def test_graph_tensor_from_another_thread_raises_clean_error():
    x = ferric.tensor([1.0], requires_grad=True)
    y = x * 2
    plain = ferric.tensor([1.0, 2.0])
    errors, results = [], []

    def work():
        try:
            results.append((plain * 2).tolist())
            _ = y * 3
        except RuntimeError as e:
            errors.append(str(e))

    th = threading.Thread(target=work)
    th.start()
    th.join()
    assert results == [[2.0, 4.0]]
    assert errors and "another thread" in errors[0]


# in-place writes through views rebase the base's history (PyTorch's CopySlices); the
# expected gradients were computed with PyTorch 2.15
VIEW_INPLACE = [
    ("row_mul", lambda x: _b(x, lambda b: b[1].mul_(3)), None),
    ("column_mul", lambda x: _b(x, lambda b: b[:, 1].mul_(3)), None),
    ("transposed_view", lambda x: _b(x, lambda b: b.t().mul_(3)), None),
    ("composed_view", lambda x: _b(x, lambda b: b.t()[1].mul_(3)), None),
    ("two_inplace", lambda x: _b(x, lambda b: b.t()[1].mul_(3).exp_()), None),
    ("grad_operand", lambda x: _b(x, lambda b: b.t()[1].add_(x[:, 0] * 3)), None),
]


def _b(x, write):
    b = x * 2
    write(b)
    return b * b


@pytest.mark.parametrize("name,fn,_", VIEW_INPLACE, ids=[v[0] for v in VIEW_INPLACE])
def test_inplace_through_views_gradcheck(name, fn, _):
    x = ferric.tensor(np.arange(1.0, 10.0).reshape(3, 3) / 10, dtype=ferric.float64,
                      requires_grad=True)
    assert gradcheck(fn, (x,))


def test_inplace_through_view_matches_pytorch():
    x = ferric.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v = b[1:]
    v.mul_(10)
    b.backward(ferric.ones(3))
    assert x.grad.tolist() == [1.0, 10.0, 10.0]
    assert b.grad_fn.name() == "CopySlices" and v.grad_fn.name() == "AsStridedBackward0"


def test_inplace_on_view_of_leaf_raises():
    w = ferric.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        w[0].mul_(2)


@pytest.mark.parametrize("dtype", [ferric.float32, ferric.float64])
def test_weight_used_every_step_accumulates_in_its_own_layout(dtype):
    # x @ w.t() at every step gives w gradients laid out like w.t(): the engine sums them
    # in place (dense + dense, same strides); the result must equal the NumPy sum
    rng = np.random.default_rng(3)
    w_np = rng.standard_normal((5, 3))
    xs = [rng.standard_normal((2, 3)) for _ in range(4)]
    w = ferric.tensor(w_np, dtype=dtype, requires_grad=True)
    h = None
    for x in xs:
        y = ferric.tensor(x, dtype=dtype).matmul(w.t())
        h = y if h is None else h + y * 1.5
    h.sum().backward()
    want = xs[0].sum(0) + 1.5 * sum(x.sum(0) for x in xs[1:])
    got = w.grad.numpy()
    assert got.shape == (5, 3)
    np.testing.assert_allclose(got, np.broadcast_to(want, (5, 3)), rtol=1e-5)
    # a second backward adds into the existing .grad
    g_before = got.copy()
    (ferric.tensor(xs[0], dtype=dtype).matmul(w.t())).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), g_before + xs[0].sum(0), rtol=1e-5)


# ------------------------------------------- graph kept where PyTorch keeps it (issue 15)


def test_pow_function_forms_keep_the_graph():
    x = ferric.tensor([0.5, 2.0], dtype=ferric.float64, requires_grad=True)
    for y, want in [(ferric.pow(x, 1.5), 1.5 * np.array([0.5, 2.0]) ** 0.5),
                    (ferric.pow(2.0, x), np.log(2.0) * 2.0 ** np.array([0.5, 2.0])),
                    (ferric.pow(x, x), np.array([0.5, 2.0]) ** np.array([0.5, 2.0])
                     * (np.log([0.5, 2.0]) + 1))]:
        (g,) = ferric.autograd.grad(y.sum(), x)
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)


def test_nan_to_num_gradient_passes_only_where_finite():
    x = ferric.tensor([1.0, float("nan"), float("inf"), -2.0], dtype=ferric.float64,
                      requires_grad=True)
    y = x * 3
    z = y.nan_to_num()
    assert z.grad_fn.name() == "NanToNumBackward0"
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 0.0, 3.0])
    w = x * 1
    w.nan_to_num_(posinf=5.0)
    assert w.grad_fn.name() == "NanToNumBackward0"


def test_floor_divide_records_a_node_whose_backward_raises():
    x = ferric.tensor([3.5, -2.0], requires_grad=True)
    y = ferric.floor_divide(x, 2)
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        y.sum().backward()


def test_rounded_division_has_a_zero_gradient():
    a = ferric.tensor([3.5, -2.5], requires_grad=True)
    b = ferric.tensor([2.0, 2.0], requires_grad=True)
    y = a.div(b, rounding_mode="floor")
    assert y.grad_fn.name() == "DivBackward2"
    y.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0, 0.0]


def test_in_place_logical_ops_keep_the_graph_of_a_float_tensor():
    x = ferric.tensor([0.0, 1.5], requires_grad=True)
    y = x * 2
    y.logical_and_(ferric.tensor([1.0, 1.0]))
    assert y.requires_grad and y.grad_fn.name() == "MulBackward0"
    assert y.tolist() == [0.0, 1.0]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.logical_not_()
