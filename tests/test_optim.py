"""ferric.optim: update formulas vs a NumPy re-implementation of PyTorch's single-tensor
code paths and vs trajectories recorded from PyTorch 2.x by hand (torch is never needed
to run these tests); parameter groups, zero_grad, closures, hooks, state dicts and
their round trip through ferric.save/load; hyperparameter validation."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest

import ferric
from ferric import optim

TARGET = np.array([0.3, 0.1, -0.4])
START = np.array([1.0, -2.0, 0.5])
STEPS = 6


def grad_at(p: np.ndarray, s: int) -> np.ndarray:
    """The synthetic gradient used by every trajectory: d/dp sum((p - c)^2) plus a
    step-dependent offset, so momentum and bias corrections are exercised."""
    return (p - TARGET) * 2.0 + 0.1 * (s % 3 - 1)


# -- NumPy references (PyTorch's formulas, written out) ------------------------------


def ref_sgd(p, steps, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False,
            maximize=False):
    buf, out = None, []
    for s in range(steps):
        g = grad_at(p, s)
        g = -g if maximize else g
        if weight_decay:
            g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return out


def ref_adam(p, steps, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
             amsgrad=False, maximize=False, decoupled=False):
    b1, b2 = betas
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    out = []
    for s in range(steps):
        t = s + 1
        g = grad_at(p, s)
        g = -g if maximize else g
        if weight_decay:
            if decoupled:
                p = p * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * p
        m = m + (1 - b1) * (g - m)
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / math.sqrt(1 - b2**t) + eps
        p = p - lr / (1 - b1**t) * m / denom
        out.append(p)
    return out


def ref_adamw(p, steps, weight_decay=1e-2, **kw):
    return ref_adam(p, steps, weight_decay=weight_decay, decoupled=True, **kw)


def ref_rmsprop(p, steps, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                centered=False):
    sq = np.zeros_like(p)
    gavg = np.zeros_like(p)
    buf = np.zeros_like(p)
    out = []
    for s in range(steps):
        g = grad_at(p, s)
        if weight_decay:
            g = g + weight_decay * p
        sq = alpha * sq + (1 - alpha) * g * g
        if centered:
            gavg = gavg + (1 - alpha) * (g - gavg)
            avg = np.sqrt(sq - gavg * gavg) + eps
        else:
            avg = np.sqrt(sq) + eps
        if momentum > 0:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
        out.append(p)
    return out


def ref_adagrad(p, steps, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                eps=1e-10):
    acc = np.full_like(p, initial_accumulator_value)
    out = []
    for s in range(steps):
        g = grad_at(p, s)
        if weight_decay:
            g = g + weight_decay * p
        clr = lr / (1 + s * lr_decay)
        acc = acc + g * g
        p = p - clr * g / (np.sqrt(acc) + eps)
        out.append(p)
    return out


REFS = {"SGD": ref_sgd, "Adam": ref_adam, "AdamW": ref_adamw, "RMSprop": ref_rmsprop,
        "Adagrad": ref_adagrad}

# (optimizer, options, final parameters after 6 float32 steps as PyTorch 2.x computes
# them, recorded by hand with torch.optim on the same synthetic gradients)
CASES = [
    ("SGD", dict(lr=0.1), [0.4780576229095459, -0.45594561100006104, -0.16951361298561096]),
    ("SGD", dict(lr=0.1, momentum=0.9),
     [-0.19848403334617615, 1.586643099784851, -1.0402787923812866]),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1),
     [-0.07288237661123276, 1.2085036039352417, -0.8268629908561707]),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True),
     [9.29430866241455, -27.648706436157227, 11.218809127807617]),
    ("Adam", dict(lr=0.1), [0.42369818687438965, -1.405618667602539, -0.08507708460092545]),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-3, weight_decay=0.1, amsgrad=True),
     [0.7038469910621643, -1.701509714126587, 0.20283937454223633]),
    ("Adam", dict(lr=0.1, betas=(0.3, 0.7), maximize=True),
     [1.635394811630249, -2.612020254135132, 1.129793643951416]),
    ("AdamW", dict(lr=0.1), [0.41960808634757996, -1.3952642679214478, -0.08648723363876343]),
    ("AdamW", dict(lr=0.1, weight_decay=0.5, amsgrad=True),
     [0.2526770830154419, -0.9525884389877319, -0.14328180253505707]),
    ("RMSprop", dict(lr=0.01), [0.6674460172653198, -1.6492087841033936, 0.1590348184108734]),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1),
     [0.7650704979896545, -1.761071801185608, 0.26298102736473083]),
    ("RMSprop", dict(lr=0.01, momentum=0.9),
     [0.0272233746945858, -0.8563448786735535, -0.5425880551338196]),
    ("Adagrad", dict(lr=0.1), [0.6690707206726074, -1.6509865522384644, 0.16072043776512146]),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5),
     [0.7284433841705322, -1.7025524377822876, 0.21851769089698792]),
]
IDS = [f"{name}-{i}" for i, (name, _, _) in enumerate(CASES)]


def run(name, kw, dtype, steps=STEPS, opt_out=None):
    p = ferric.tensor(START.tolist(), dtype=dtype, requires_grad=True)
    opt = getattr(optim, name)([p], **kw)
    traj = []
    for s in range(steps):
        g = grad_at(np.array(p.detach().tolist()), s)
        p.grad = ferric.tensor(g.tolist(), dtype=dtype)
        opt.step()
        traj.append(p.detach().tolist())
    if opt_out is not None:
        opt_out.append(opt)
    return np.array(traj)


@pytest.mark.parametrize("name,kw,_", CASES, ids=IDS)
def test_trajectory_matches_numpy_reference_float64(name, kw, _):
    expected = np.array(REFS[name](START.copy(), STEPS, **kw))
    np.testing.assert_allclose(run(name, kw, ferric.float64), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,kw,torch_final", CASES, ids=IDS)
def test_trajectory_matches_pytorch_float32(name, kw, torch_final):
    traj = run(name, kw, ferric.float32)
    np.testing.assert_allclose(traj[-1], torch_final, rtol=2e-6, atol=1e-6)
    expected = np.array(REFS[name](START.copy(), STEPS, **kw))
    np.testing.assert_allclose(traj, expected, rtol=1e-4, atol=1e-5)


def test_full_trajectories_match_pytorch():
    # every step of two common configurations, as PyTorch prints them (float32)
    adam = [[0.8999999761581421, -1.899999976158142, 0.4000000059604645],
            [0.8002882599830627, -1.8002535104751587, 0.300203800201416],
            [0.7010931968688965, -1.70095956325531, 0.20076575875282288],
            [0.6055253744125366, -1.6018402576446533, 0.10360995680093765],
            [0.5130805373191833, -1.5032813549041748, 0.008352212607860565],
            [0.42369818687438965, -1.405618667602539, -0.08507708460092545]]
    sgd = [[0.8700000047683716, -1.5700000524520874, 0.33000001311302185],
           [0.6389999985694885, -0.8490000367164612, 0.031000031158328056],
           [0.353300005197525, -0.02030005492269993, -0.3342999517917633],
           [0.09551002830266953, 0.7595899105072021, -0.6662099361419678],
           [-0.09560294449329376, 1.3295729160308838, -0.911686897277832],
           [-0.19848403334617615, 1.586643099784851, -1.0402787923812866]]
    np.testing.assert_allclose(run("Adam", dict(lr=0.1), ferric.float32), adam, rtol=1e-6)
    np.testing.assert_allclose(run("SGD", dict(lr=0.1, momentum=0.9), ferric.float32), sgd,
                               rtol=2e-6, atol=5e-7)


# -- mechanics ------------------------------------------------------------------------


def params(*values, dtype=ferric.float32):
    return [ferric.tensor(v, dtype=dtype, requires_grad=True) for v in values]


def test_step_is_in_place_and_outside_the_graph():
    (p,) = params([1.0, 2.0])
    storage = p.data_ptr()
    p.grad = ferric.tensor([1.0, 1.0])
    optim.SGD([p], lr=0.5).step()
    assert p.data_ptr() == storage
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p.tolist() == [0.5, 1.5]
    assert ferric.is_grad_enabled()


def test_params_without_grad_are_skipped():
    p, q = params([1.0], [2.0])
    opt = optim.Adam([p, q], lr=0.1)
    p.grad = ferric.tensor([1.0])
    opt.step()
    assert q.tolist() == [2.0]
    assert q not in opt.state and p in opt.state
    assert set(opt.state[p]) == {"step", "exp_avg", "exp_avg_sq"}


def test_param_groups_options_and_defaults():
    p, q = params([1.0], [1.0])
    opt = optim.SGD([{"params": [p]}, {"params": q, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[0]["momentum"] == 0 and opt.param_groups[1]["momentum"] == 0.9
    assert opt.param_groups[1]["params"] == [q] or opt.param_groups[1]["params"][0] is q
    p.grad = ferric.tensor([1.0])
    q.grad = ferric.tensor([1.0])
    opt.step()
    assert p.tolist() == pytest.approx([0.9]) and q.tolist() == pytest.approx([0.5])
    assert "momentum_buffer" not in opt.state[p] and "momentum_buffer" in opt.state[q]


def test_add_param_group():
    p, q, r = params([1.0], [1.0], [1.0])
    opt = optim.Adam([p], lr=0.1, betas=(0.8, 0.9))
    opt.add_param_group({"params": [q], "lr": 0.01})
    assert opt.param_groups[1]["lr"] == 0.01 and opt.param_groups[1]["betas"] == (0.8, 0.9)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter"):
        opt.add_param_group({"params": [p, r]})
    assert len(opt.param_groups) == 2


def test_named_parameters_keep_names():
    p, q = params([1.0], [2.0])
    opt = optim.SGD([("a", p), ("b", q)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]


def test_duplicate_parameter_in_one_group_warns():
    (p,) = params([1.0])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p, p], lr=0.1)


def test_zero_grad():
    p, q = params([1.0, 2.0], [3.0])
    opt = optim.SGD([p, q], lr=0.1)
    p.grad = ferric.tensor([5.0, 6.0])
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and p.grad.tolist() == [0.0, 0.0] and g.tolist() == [0.0, 0.0]
    assert q.grad is None
    opt.zero_grad()
    assert p.grad is None


def test_closure_runs_with_grad_and_returns_loss():
    (p,) = params([3.0])
    opt = optim.SGD([p], lr=0.25)
    seen = []

    def closure():
        opt.zero_grad()
        seen.append(ferric.is_grad_enabled())
        loss = p * p  # elementwise: d/dp = 2p
        loss.backward(ferric.ones(1))
        return loss

    with ferric.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert loss.tolist() == [9.0]
    assert p.tolist() == [1.5]


def test_sgd_first_momentum_buffer_is_a_copy_of_the_gradient():
    (p,) = params([1.0])
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = ferric.tensor([2.0])
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    assert buf.tolist() == [2.0]
    p.grad.mul_(10)  # the buffer must not alias the gradient
    assert buf.tolist() == [2.0]


def test_step_counter_is_a_float32_tensor():
    for cls in (optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad):
        (p,) = params([1.0])
        opt = cls([p])
        p.grad = ferric.tensor([1.0])
        opt.step()
        opt.step()
        step = opt.state[p]["step"]
        assert isinstance(step, ferric.Tensor) and step.dim() == 0
        assert step.dtype == ferric.float32 and step.item() == 2.0


def test_adagrad_state_exists_before_the_first_step():
    (p,) = params([1.0, 2.0])
    opt = optim.Adagrad([p], initial_accumulator_value=0.25)
    assert opt.state[p]["sum"].tolist() == [0.25, 0.25]
    assert opt.state[p]["step"].item() == 0.0


def test_step_hooks():
    (p,) = params([1.0])
    opt = optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    opt.step()
    h1.remove()
    opt.step()
    assert calls == [("pre", True), ("post", True), ("post", True)]


def test_subclass_step_calling_super_fires_hooks_once():
    class Clipped(optim.SGD):
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    p.grad.clamp_(-1.0, 1.0)
            return super().step(closure)

    (p,) = params([0.0])
    opt = Clipped([p], lr=1.0)
    calls = []
    opt.register_step_post_hook(lambda o, a, k: calls.append(1))
    p.grad = ferric.tensor([5.0])
    opt.step()
    assert calls == [1] and p.tolist() == [-1.0]


def test_repr_matches_pytorch_layout():
    p, q = params([1.0], [1.0])
    opt = optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=0.1)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n")
    assert "\n\nParameter Group 1\n" in text and text.endswith("    weight_decay: 0\n)")
    assert "    lr: 0.5\n" in text and "params" not in text


# -- state dicts ----------------------------------------------------------------------


def trained(cls, kw, steps=3):
    p, q = params([1.0, -1.0], [0.5])
    opt = cls([{"params": [p]}, {"params": [q], "lr": 0.05}], **kw)
    for s in range(steps):
        p.grad = ferric.tensor([0.3 * s - 0.2, 0.7])
        q.grad = ferric.tensor([s + 0.5])
        opt.step()
    return opt, p, q


ALL = [(optim.SGD, dict(lr=0.1, momentum=0.9)), (optim.Adam, dict(lr=0.1, amsgrad=True)),
       (optim.AdamW, dict(lr=0.1)), (optim.RMSprop, dict(momentum=0.5, centered=True)),
       (optim.Adagrad, dict(lr=0.1))]


@pytest.mark.parametrize("cls,kw", ALL, ids=[c.__name__ for c, _ in ALL])
def test_state_dict_format(cls, kw):
    opt, p, q = trained(cls, kw)
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert set(sd["state"]) == {0, 1}
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["param_groups"][1]["lr"] == 0.05
    assert sd["state"][0] is opt.state[p]  # by reference, like PyTorch


@pytest.mark.parametrize("via_file", [False, True])
@pytest.mark.parametrize("cls,kw", ALL, ids=[c.__name__ for c, _ in ALL])
def test_state_dict_round_trip_continues_identically(cls, kw, via_file):
    opt, p, q = trained(cls, kw)
    sd = opt.state_dict()
    if via_file:
        buf = io.BytesIO()
        ferric.save(sd, buf)
        buf.seek(0)
        sd = ferric.load(buf)
    # a fresh optimizer over copies of the parameters picks up where the first left off
    p2 = p.detach().clone().requires_grad_()
    q2 = q.detach().clone().requires_grad_()
    opt2 = cls([{"params": [p2]}, {"params": [q2]}], **kw)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[1]["lr"] == 0.05 and opt2.param_groups[0]["params"][0] is p2
    for a, b in ((p, p2), (q, q2)):
        for key, value in opt.state[a].items():
            assert opt2.state[b][key] is not value  # cloned on load
            assert opt2.state[b][key].tolist() == value.tolist()
    for opt_, pp, qq in ((opt, p, q), (opt2, p2, q2)):
        pp.grad = ferric.tensor([0.1, 0.2])
        qq.grad = ferric.tensor([-0.3])
        opt_.step()
    assert p2.tolist() == p.tolist() and q2.tolist() == q.tolist()


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    opt, p, _ = trained(optim.Adam, dict(lr=0.1))
    sd = opt.state_dict()
    p64 = ferric.zeros(2, dtype=ferric.float64, requires_grad=True)
    q64 = ferric.zeros(1, dtype=ferric.float64, requires_grad=True)
    opt2 = optim.Adam([{"params": [p64]}, {"params": [q64]}])
    opt2.load_state_dict(sd)
    assert opt2.state[p64]["exp_avg"].dtype == ferric.float64
    assert opt2.state[p64]["step"].dtype == ferric.float32  # step keeps its dtype


def test_loading_old_numeric_step():
    (p,) = params([1.0])
    opt = optim.Adam([p], lr=0.1)
    opt.load_state_dict({"state": {0: {"step": 4, "exp_avg": ferric.zeros(1),
                                       "exp_avg_sq": ferric.zeros(1)}},
                         "param_groups": [dict(opt.state_dict()["param_groups"][0])]})
    assert isinstance(opt.state[p]["step"], ferric.Tensor)
    p.grad = ferric.tensor([1.0])
    opt.step()
    assert opt.state[p]["step"].item() == 5.0


def test_load_state_dict_errors():
    opt, _, _ = trained(optim.SGD, dict(lr=0.1))
    sd = opt.state_dict()
    (p,) = params([1.0, 2.0])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([p], lr=0.1).load_state_dict(sd)
    p, q = params([1.0], [1.0])
    one_group = optim.SGD([p, q], lr=0.1)
    bad = {"state": {}, "param_groups": [{**sd["param_groups"][0], "params": [0]}]}
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group"):
        one_group.load_state_dict(bad)


# -- validation -----------------------------------------------------------------------

P = ferric.zeros(1, requires_grad=True)
ERRORS = [
    (lambda: optim.SGD([P], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda: optim.SGD([P], momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
    (lambda: optim.SGD([P], weight_decay=-1e-3), ValueError, "Invalid weight_decay value"),
    (lambda: optim.SGD([P], nesterov=True), ValueError, "Nesterov momentum requires a momentum"),
    (lambda: optim.SGD([P], momentum=0.9, dampening=0.1, nesterov=True), ValueError,
     "zero dampening"),
    (lambda: optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (lambda: optim.SGD(P, lr=0.1), TypeError,
     "should be an iterable of Tensors or dicts, but got ferric.FloatTensor"),
    (lambda: optim.SGD([P, 3]), TypeError, "but one of the params is int"),
    (lambda: optim.SGD([P * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda: optim.SGD([{"params": [P]}, {"params": [P]}]), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda: optim.SGD([P]).add_param_group([P]), TypeError, "param_group must be a dict"),
    (lambda: optim.SGD([P]).add_param_group({"params": {P}}), TypeError, "ordered collections"),
    (lambda: optim.Adam([P], lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
    (lambda: optim.Adam([P], eps=-1.0), ValueError, "Invalid epsilon value: -1.0"),
    (lambda: optim.Adam([P], betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0"),
    (lambda: optim.Adam([P], betas=(0.9, -0.1)), ValueError, "Invalid beta parameter at index 1"),
    (lambda: optim.Adam([P], betas=(0, 0.9)), ValueError, "betas must be either both floats"),
    (lambda: optim.Adam([P], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda: optim.AdamW([P], lr=-2.5), ValueError, "Invalid learning rate: -2.5"),
    (lambda: optim.RMSprop([P], alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda: optim.RMSprop([P], momentum=-1), ValueError, "Invalid momentum value: -1"),
    (lambda: optim.RMSprop([P], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda: optim.Adagrad([P], lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda: optim.Adagrad([P], initial_accumulator_value=-1), ValueError,
     "Invalid initial_accumulator_value value: -1"),
    (lambda: optim.Adagrad([P], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda: optim.Optimizer([P], {}).step(), NotImplementedError, ""),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_errors(call, exc, msg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
            call()


def test_defaults_match_pytorch():
    (p,) = params([1.0])
    g = optim.SGD([p]).param_groups[0]
    assert (g["lr"], g["momentum"], g["dampening"], g["weight_decay"], g["nesterov"]) == (
        1e-3, 0, 0, 0, False)
    g = optim.Adam([p]).param_groups[0]
    assert (g["lr"], g["betas"], g["eps"], g["weight_decay"], g["amsgrad"]) == (
        1e-3, (0.9, 0.999), 1e-8, 0, False)
    assert optim.AdamW([p]).param_groups[0]["weight_decay"] == 1e-2
    g = optim.RMSprop([p]).param_groups[0]
    assert (g["lr"], g["alpha"], g["eps"], g["momentum"], g["centered"]) == (
        1e-2, 0.99, 1e-8, 0, False)
    g = optim.Adagrad([p]).param_groups[0]
    assert (g["lr"], g["lr_decay"], g["initial_accumulator_value"], g["eps"]) == (
        1e-2, 0, 0, 1e-10)


def test_large_parameter_update_is_vectorised():
    # one step over a million elements must take milliseconds, not a Python loop's seconds
    import time

    p = ferric.zeros(1_000_000, requires_grad=True)
    p.grad = ferric.ones(1_000_000)
    opt = optim.Adam([p], lr=0.1)
    start = time.perf_counter()
    opt.step()
    assert time.perf_counter() - start < 2.0
    assert p[0].item() == pytest.approx(-0.1, rel=1e-5)


@pytest.mark.parametrize("module", ["ferric.optim.sgd", "ferric.optim.adam", "ferric.optim.adamw"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
