"""Optimizers and LR schedulers against PyTorch.

Optimizers: the same parameters get the same gradients (computed in NumPy from the
current values, so both runs see their own trajectory) for several steps, with two
parameter groups and a parameter whose gradient is sometimes ``None``; parameters,
``state_dict()`` contents and round trips through both libraries' ``state_dict`` match.
Schedulers: ``get_last_lr()`` and the groups' lr/momentum/betas over many steps.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch_compat import as_lib, assert_close, np_of  # noqa: E402

import ferric  # noqa: E402

SHAPES = [(4, 3), (5,), (2, 2, 2)]
# float64 agrees to rounding; float32 to about an ulp of the operands per step (see
# test_add_alpha_rounds_once_like_torch for the one known rounding difference)
OPT_TOL = {"float64": (1e-13, 1e-15), "float32": (1e-5, 1e-6)}


def _grad(p, step, i):
    """A deterministic, non-trivial gradient of the current parameter values."""
    x = p.astype(np.float64)
    return 2.0 * (x - 0.3 * (i + 1)) + 0.5 * np.cos(3.0 * x + step)


def _params(lib, dtype):
    rng = np.random.default_rng(42)
    return [as_lib(lib, rng.standard_normal(s), dtype, requires_grad=True) for s in SHAPES]


def _groups(params, extra):
    """Two groups: the first with the optimizer defaults, the second with ``extra``."""
    if extra is None:
        return params
    return [{"params": params[:2]}, {"params": params[2:], **extra}]


def _set_grads(lib, params, step, dtype):
    for i, p in enumerate(params):
        if i == 2 and step % 3 == 1:
            p.grad = None  # skipped this step: no state update
            continue
        p.grad = as_lib(lib, _grad(np_of(p), step, i), dtype)


def _run(lib, opt, params, steps, start, dtype):
    for step in range(start, start + steps):
        _set_grads(lib, params, step, dtype)
        opt.step()


OPTIMIZERS = [
    ("SGD", {"lr": 0.1}, None),
    ("SGD", {"lr": 0.1, "momentum": 0.9}, None),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}, {"lr": 0.2}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}, {"momentum": 0.5}),
    ("SGD", {"lr": 0.05, "weight_decay": 0.1}, {"weight_decay": 0.0}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01,
             "maximize": True}, None),
    ("Adam", {}, None),
    ("Adam", {"lr": 0.01, "amsgrad": True}, {"lr": 0.1}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "betas": (0.8, 0.9)}, {"eps": 1e-3}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.05, "maximize": True}, None),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}, None),
    ("AdamW", {}, None),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.2}, {"amsgrad": False}),
    ("AdamW", {"lr": 0.02, "maximize": True, "betas": (0.5, 0.6)}, None),
    ("RMSprop", {}, None),
    ("RMSprop", {"lr": 0.01, "centered": True}, None),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}, {"momentum": 0.0}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1,
                 "alpha": 0.9}, {"centered": False}),
    ("RMSprop", {"lr": 0.01, "maximize": True, "eps": 1e-4}, None),
    ("Adagrad", {}, None),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}, {"lr_decay": 0.5}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.2}, None),
    ("Adagrad", {"lr": 0.1, "eps": 1e-3, "maximize": True}, None),
]
OPT_IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items())}"
           + ("-2groups" if extra else "") for name, kw, extra in OPTIMIZERS]


def _make_opt(lib, name, kw, extra, params):
    return getattr(lib.optim, name)(_groups(params, extra), **kw)


def _tol(dtype, expected):
    """(rtol, atol); float32's atol scales with the tensor's magnitude (an ulp of the
    operands survives cancellation)."""
    r, a = OPT_TOL[dtype]
    if dtype == "float32":
        a = max(a, 4e-7 * float(np.abs(np_of(expected)).max(initial=0.0)))
    return r, a


def _compare_params(fp, tp, dtype, what):
    for i, (f, t) in enumerate(zip(fp, tp, strict=True)):
        r, a = _tol(dtype, t)
        assert_close(f, t, dtype, rtol=r, atol=a, what=f"{what} param {i}")


def _compare_state(f_opt, t_opt, dtype):
    fsd, tsd = f_opt.state_dict(), t_opt.state_dict()
    assert _plain_groups(fsd["param_groups"]) == _plain_groups(tsd["param_groups"])
    assert sorted(fsd["state"]) == sorted(tsd["state"])
    for idx, t_state in tsd["state"].items():
        f_state = fsd["state"][idx]
        assert list(f_state) == list(t_state), idx
        for key, tv in t_state.items():
            fv = f_state[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(fv, ferric.Tensor), (idx, key)
                r, a = _tol(dtype, tv)
                assert_close(fv, tv, dtype, rtol=r, atol=a, what=f"state[{idx}][{key}]")
                assert str(fv.dtype)[7:] == str(tv.dtype)[6:], (idx, key, fv.dtype, tv.dtype)
            else:
                assert fv == tv, (idx, key)


def _plain_groups(groups):
    """Param groups with tensor values turned into floats (for == comparison)."""
    return [{k: (float(v) if isinstance(v, ferric.Tensor | torch.Tensor) else v)
             for k, v in g.items()} for g in groups]


def _state_to(lib, sd):
    """A state dict with its tensors converted to ``lib``."""
    state = {k: {n: (as_lib(lib, v) if isinstance(v, ferric.Tensor | torch.Tensor) else v)
                 for n, v in s.items()} for k, s in sd["state"].items()}
    return {"state": state, "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "kw", "extra"), OPTIMIZERS, ids=OPT_IDS)
def test_optimizer_steps(name, kw, extra, dtype):
    fp, tp = _params(ferric, dtype), _params(torch, dtype)
    f_opt = _make_opt(ferric, name, kw, extra, fp)
    t_opt = _make_opt(torch, name, kw, extra, tp)
    for step in range(6):
        _set_grads(ferric, fp, step, dtype)
        _set_grads(torch, tp, step, dtype)
        f_opt.step()
        t_opt.step()
        _compare_params(fp, tp, dtype, f"step {step}")
    _compare_state(f_opt, t_opt, dtype)
    # zero_grad(set_to_none) in both
    f_opt.zero_grad()
    t_opt.zero_grad()
    assert [p.grad for p in fp] == [None] * 3 == [p.grad for p in tp]


@pytest.mark.xfail(strict=True, reason=(
    "ferric's float32 Tensor.add(other, alpha=a) rounds twice (a*other, then +); torch "
    "computes fma(other, float(a), self) with one rounding: for 10000 N(0,1) float32 "
    "pairs, x.add(y, alpha=-0.1) differs from torch in 880 elements (up to 199 ulp near "
    "cancellation); SGD/RMSprop float32 trajectories (fused kernels too) inherit it"))
def test_add_alpha_rounds_once_like_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(10000).astype(np.float32)
    b = rng.standard_normal(10000).astype(np.float32)
    fa = as_lib(ferric, a).add(as_lib(ferric, b), alpha=-0.1)
    ta = as_lib(torch, a).add(as_lib(torch, b), alpha=-0.1)
    np.testing.assert_array_equal(np_of(fa), np_of(ta))


def _param_group_keys(opt):
    return [sorted(k for k in g if k != "params") for g in opt.param_groups]


@pytest.mark.parametrize(("name", "kw", "extra"), OPTIMIZERS, ids=OPT_IDS)
def test_optimizer_defaults_and_groups(name, kw, extra):
    """The same defaults dict and the same option keys in every group."""
    fp, tp = _params(ferric, "float32"), _params(torch, "float32")
    f_opt = _make_opt(ferric, name, kw, extra, fp)
    t_opt = _make_opt(torch, name, kw, extra, tp)
    assert f_opt.defaults == t_opt.defaults
    assert _param_group_keys(f_opt) == _param_group_keys(t_opt)
    assert _plain_groups([{k: v for k, v in g.items() if k != "params"}
                          for g in f_opt.param_groups]) == _plain_groups(
        [{k: v for k, v in g.items() if k != "params"} for g in t_opt.param_groups])
    assert repr(f_opt) == repr(t_opt)


@pytest.mark.parametrize(("name", "kw", "extra"), OPTIMIZERS, ids=OPT_IDS)
def test_optimizer_state_dict_round_trips(name, kw, extra):
    """After 4 steps: torch's state dict loaded into a fresh ferric optimizer, and
    ferric's loaded into a fresh torch one, continue exactly like the originals."""
    dtype = "float64"
    fp, tp = _params(ferric, dtype), _params(torch, dtype)
    f_opt = _make_opt(ferric, name, kw, extra, fp)
    t_opt = _make_opt(torch, name, kw, extra, tp)
    _run(ferric, f_opt, fp, 4, 0, dtype)
    _run(torch, t_opt, tp, 4, 0, dtype)

    # torch -> ferric
    fp2 = [as_lib(ferric, p, requires_grad=True) for p in tp]
    f_opt2 = _make_opt(ferric, name, kw, extra, fp2)
    f_opt2.load_state_dict(_state_to(ferric, t_opt.state_dict()))
    # ferric -> torch
    tp2 = [as_lib(torch, p, requires_grad=True) for p in fp]
    t_opt2 = _make_opt(torch, name, kw, extra, tp2)
    t_opt2.load_state_dict(_state_to(torch, f_opt.state_dict()))
    # ferric -> ferric
    fp3 = [as_lib(ferric, p, requires_grad=True) for p in fp]
    f_opt3 = _make_opt(ferric, name, kw, extra, fp3)
    f_opt3.load_state_dict(f_opt.state_dict())

    for lib, opt, params in ((ferric, f_opt, fp), (torch, t_opt, tp), (ferric, f_opt2, fp2),
                             (torch, t_opt2, tp2), (ferric, f_opt3, fp3)):
        _run(lib, opt, params, 4, 4, dtype)
    for params in (fp2, fp3):
        _compare_params(params, tp, dtype, "after reload")
    _compare_params(fp, tp2, dtype, "torch from ferric state")
    _compare_state(f_opt2, t_opt, dtype)


def test_optimizer_closure_and_loss():
    """``step(closure)`` re-evaluates the loss with grad enabled and returns it."""
    results = []
    for lib in (ferric, torch):
        w = as_lib(lib, np.array([1.0, -2.0, 0.5]), requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)

        def closure(w=w, opt=opt, lib=lib):
            opt.zero_grad()
            loss = (w * w).sum() + w.sin().sum()
            loss.backward()
            return loss

        losses = [float(opt.step(closure)) for _ in range(5)]
        results.append((losses, np_of(w)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


@pytest.mark.xfail(strict=True, reason=(
    "Tensor.__format__ (Rust, src/python/tensor/protocols.rs): f'{ferric.tensor(0.01)}' gives "
    "'tensor(0.0100)'; torch formats a 0-d tensor with an empty spec as its item "
    "('0.009999999776482582'), which Optimizer.__repr__ shows for a tensor lr (and torch "
    "raises TypeError for a format spec on a non-0-d tensor, ferric returns the repr)"))
def test_optimizer_repr_tensor_lr():
    reprs = [repr(lib.optim.Adam(_params(lib, "float32"), lr=as_lib(lib, np.array(0.01,
                                                                                 np.float32))))
             for lib in (ferric, torch)]
    assert reprs[0] == reprs[1]


def test_tensor_lr():
    """A 1-element tensor lr (Adam) gives the same trajectory as the float."""
    out = []
    for lib in (ferric, torch):
        p = _params(lib, "float64")
        opt = lib.optim.Adam(p, lr=as_lib(lib, np.array(0.01)))
        _run(lib, opt, p, 4, 0, "float64")
        out.append(p)
    _compare_params(out[0], out[1], "float64", "tensor lr")


# -- LR schedulers --------------------------------------------------------------------

def _sched_opt(lib, kind="sgd"):
    p = [as_lib(lib, np.ones(2), requires_grad=True), as_lib(lib, np.ones(3),
                                                              requires_grad=True)]
    groups = [{"params": [p[0]]}, {"params": [p[1]], "lr": 0.05}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


class _Halve:
    """A callable object (its ``__dict__`` is saved in the scheduler's state dict)."""

    def __init__(self):
        self.base = 0.97

    def __call__(self, epoch):
        return self.base ** epoch


SCHEDULERS = [
    ("StepLR", lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 3, gamma=0.5), 20),
    ("StepLR-default-gamma", lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 2), 9),
    ("MultiStepLR", lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(
        o, [2, 5, 5, 9], gamma=0.3), 15),
    ("ExponentialLR", lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, 0.9), 30),
    ("CosineAnnealingLR", lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(
        o, T_max=10, eta_min=0.01), 45),
    ("CosineAnnealingLR-eta0", lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(
        o, T_max=7), 30),
    ("LambdaLR", lambda lib, o: lib.optim.lr_scheduler.LambdaLR(
        o, lambda e: 0.95 ** e), 20),
    ("LambdaLR-per-group", lambda lib, o: lib.optim.lr_scheduler.LambdaLR(
        o, [lambda e: 1.0 / (e + 1), _Halve()]), 20),
    ("MultiplicativeLR", lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(
        o, lambda e: 0.9 if e % 2 else 1.0), 15),
    ("ConstantLR", lambda lib, o: lib.optim.lr_scheduler.ConstantLR(
        o, factor=0.25, total_iters=4), 10),
    ("LinearLR", lambda lib, o: lib.optim.lr_scheduler.LinearLR(
        o, start_factor=0.1, end_factor=0.8, total_iters=6), 12),
    ("PolynomialLR", lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(
        o, total_iters=8, power=2.0), 12),
    ("SequentialLR", lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.LinearLR(o, 0.2, total_iters=3),
            lib.optim.lr_scheduler.ExponentialLR(o, 0.8)], milestones=[3]), 12),
    ("ChainedScheduler", lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=4),
         lib.optim.lr_scheduler.ExponentialLR(o, 0.9)]), 12),
    ("OneCycleLR-cos", lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=1.0, total_steps=30), 29),
    ("OneCycleLR-linear", lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[1.0, 0.5], epochs=4, steps_per_epoch=6, pct_start=0.4,
        anneal_strategy="linear", div_factor=10.0, final_div_factor=100.0), 23),
    ("OneCycleLR-three-phase", lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.8, total_steps=25, three_phase=True, base_momentum=0.8,
        max_momentum=0.95), 24),
    ("OneCycleLR-nomomentum", lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.8, total_steps=10, cycle_momentum=False), 9),
    ("CyclicLR", lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4), 30),
    ("CyclicLR-triangular2-asym", lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3, step_size_down=5,
        mode="triangular2", base_momentum=0.7, max_momentum=0.95), 40),
    ("CyclicLR-exp_range", lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.001, 0.1, step_size_up=5, mode="exp_range", gamma=0.9), 30),
    ("CyclicLR-scale_fn", lambda lib, o: lib.optim.lr_scheduler.CyclicLR(
        o, 0.001, 0.1, step_size_up=2, scale_fn=_Halve(), scale_mode="iterations",
        cycle_momentum=False), 20),
    ("CosineAnnealingWarmRestarts", lambda lib, o: lib.optim.lr_scheduler
     .CosineAnnealingWarmRestarts(o, T_0=5), 23),
    ("CosineAnnealingWarmRestarts-mult", lambda lib, o: lib.optim.lr_scheduler
     .CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001), 40),
]


def _lr_trace(lib, make, steps, kind="sgd"):
    opt = _sched_opt(lib, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = make(lib, opt)
        trace = [_snapshot(opt, sched)]
        for _ in range(steps):
            opt.step()
            sched.step()
            trace.append(_snapshot(opt, sched))
    return trace, opt, sched


def _snapshot(opt, sched):
    groups = [(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups]
    return [float(x) for x in sched.get_last_lr()], groups


def _assert_traces(ft, tt):
    assert len(ft) == len(tt)
    for i, ((f_last, f_groups), (t_last, t_groups)) in enumerate(zip(ft, tt, strict=True)):
        np.testing.assert_allclose(f_last, t_last, rtol=1e-14, atol=0, err_msg=f"step {i}")
        for fg, tg in zip(f_groups, t_groups, strict=True):
            assert math.isclose(fg[0], tg[0], rel_tol=1e-14), (i, fg, tg)
            assert (fg[1] is None) == (tg[1] is None)
            if tg[1] is not None:
                assert math.isclose(fg[1], tg[1], rel_tol=1e-14), (i, fg, tg)
            if tg[2] is not None:
                np.testing.assert_allclose(fg[2], tg[2], rtol=1e-14)


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize(("sid", "make", "steps"), SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_sequence(sid, make, steps, kind):
    ft, _, _ = _lr_trace(ferric, make, steps, kind)
    tt, _, _ = _lr_trace(torch, make, steps, kind)
    _assert_traces(ft, tt)


@pytest.mark.parametrize(("sid", "make", "steps"), SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_state_dict(sid, make, steps):
    """Same state_dict keys; a reload mid-way continues the same sequence."""
    half = steps // 2
    _, f_opt, f_sched = _lr_trace(ferric, make, half)
    _, t_opt, t_sched = _lr_trace(torch, make, half)
    fsd, tsd = f_sched.state_dict(), t_sched.state_dict()
    assert sorted(fsd) == sorted(tsd)
    for k in ("last_epoch", "_step_count", "base_lrs", "_last_lr"):
        if k in tsd:
            assert fsd[k] == pytest.approx(tsd[k], rel=1e-14), k
    # reload into fresh twins and run the remaining steps
    traces = []
    for lib, sd in ((ferric, fsd), (torch, tsd)):
        opt = _sched_opt(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched = make(lib, opt)
            sched.load_state_dict(sd)
            for g, lr in zip(opt.param_groups, sd["_last_lr"], strict=True):
                g["lr"] = lr
            trace = []
            for _ in range(steps - half):
                opt.step()
                sched.step()
                trace.append(_snapshot(opt, sched))
        traces.append(trace)
    _assert_traces(*traces)


@pytest.mark.parametrize(("t0", "mult"), [(4, 1), (3, 2), (2, 3)])
def test_warm_restarts_fractional_epochs(t0, mult):
    """``step(epoch + i / iters)`` inside epochs, as in PyTorch's docs example."""
    traces = []
    for lib in (ferric, torch):
        opt = _sched_opt(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, t0, mult, 0.01)
        trace = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in range(12):
                for i in range(3):
                    opt.step()
                    sched.step(epoch + i / 3)
                    trace.append(_snapshot(opt, sched))
        traces.append((trace, sched.T_i, sched.T_cur, sched.last_epoch))
    _assert_traces(traces[0][0], traces[1][0])
    assert traces[0][1:] == pytest.approx(traces[1][1:], rel=1e-14)


PLATEAU = [
    ({}, "min"),
    ({"mode": "max", "factor": 0.5, "patience": 2}, "max"),
    ({"patience": 1, "cooldown": 2, "factor": 0.3}, "min"),
    ({"patience": 0, "min_lr": [0.02, 0.001], "factor": 0.5}, "min"),
    ({"patience": 1, "min_lr": 0.01, "threshold": 0.1, "threshold_mode": "abs"}, "min"),
    ({"mode": "max", "patience": 1, "threshold": 0.05, "threshold_mode": "rel",
      "cooldown": 1}, "max"),
    ({"patience": 0, "factor": 0.999, "eps": 1e-3}, "min"),
]


def _metrics(n=40):
    # noisy, plateauing curve (and the negative for mode='max')
    rng = np.random.default_rng(0)
    return [float(1.0 / (1 + 0.2 * i) + 0.05 * rng.standard_normal()) for i in range(n)]


@pytest.mark.parametrize(("kw", "mode"), PLATEAU, ids=[str(k) for k, _ in PLATEAU])
def test_reduce_lr_on_plateau(kw, mode):
    metrics = _metrics()
    if mode == "max":
        metrics = [-m for m in metrics]
    traces, scheds = [], []
    for lib in (ferric, torch):
        opt = _sched_opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        trace = []
        for m in metrics:
            opt.step()
            sched.step(m)
            trace.append(_snapshot(opt, sched))
        traces.append(trace)
        scheds.append(sched)
    _assert_traces(*traces)
    fsd, tsd = scheds[0].state_dict(), scheds[1].state_dict()
    assert sorted(fsd) == sorted(tsd)
    for k in ("best", "num_bad_epochs", "cooldown_counter", "last_epoch", "min_lrs",
              "mode", "threshold_mode", "eps", "factor", "patience"):
        assert fsd[k] == tsd[k], k


def test_reduce_lr_on_plateau_tensor_metric():
    out = []
    for lib in (ferric, torch):
        opt = _sched_opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        for m in (1.0, 2.0, 3.0):
            sched.step(as_lib(lib, np.array(m)))
        out.append(sched.get_last_lr())
    assert out[0] == out[1]


def test_optimizer_state_dict_hooks():
    """Pre/post hooks of state_dict and load_state_dict: call order, prepend, and
    replacing results."""
    out = []
    for lib in (ferric, torch):
        calls = []
        p = _params(lib, "float64")
        opt = lib.optim.Adam(p, lr=0.1)
        _run(lib, opt, p, 2, 0, "float64")
        opt.register_state_dict_pre_hook(lambda o, c=calls: c.append("sd-pre"))
        opt.register_state_dict_pre_hook(lambda o, c=calls: c.append("sd-pre-first"),
                                          prepend=True)

        def post(o, sd, c=calls):
            c.append(("sd-post", sorted(sd)))
            return {**sd, "extra": 1}

        opt.register_state_dict_post_hook(post)
        sd = opt.state_dict()

        def load_pre(o, sd, c=calls):
            c.append(("load-pre", sorted(sd)))
            sd = dict(sd)
            sd.pop("extra")
            sd["param_groups"][0]["lr"] = 0.5
            return sd

        opt.register_load_state_dict_pre_hook(load_pre)
        opt.register_load_state_dict_post_hook(
            lambda o, c=calls: c.append(("load-post", o.param_groups[0]["lr"])))
        opt.load_state_dict(sd)
        handle = opt.register_state_dict_pre_hook(lambda o, c=calls: c.append("removed"))
        handle.remove()
        opt.state_dict()
        out.append((calls, sorted(sd)))
    assert out[0] == out[1]


def _warmup_cls(lib, base):
    class Warmup(getattr(lib.optim.lr_scheduler, base)):
        """A user-defined scheduler: linear warmup then inverse square root."""

        def __init__(self, optimizer, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            step = max(self.last_epoch, 1)
            scale = min(step / self.warmup, (self.warmup / step) ** 0.5)
            return [base_lr * scale for base_lr in self.base_lrs]

    return Warmup


@pytest.mark.parametrize("base", ["LRScheduler", "_LRScheduler"])
def test_custom_scheduler_subclass(base):
    traces = []
    for lib in (ferric, torch):
        opt = _sched_opt(lib)
        sched = _warmup_cls(lib, base)(opt, 4)
        trace = [_snapshot(opt, sched)]
        for _ in range(12):
            opt.step()
            sched.step()
            trace.append(_snapshot(opt, sched))
        traces.append((trace, sorted(sched.state_dict())))
    _assert_traces(traces[0][0], traces[1][0])
    assert traces[0][1] == traces[1][1]
