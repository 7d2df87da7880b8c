"""NAdam, RAdam, Adamax, Adadelta, Rprop, ASGD and SparseAdam, and the CPU behaviour of
every optimizer's ``foreach``/``fused``/``capturable``/``differentiable`` flags, against
PyTorch 2.13 (tests/fixtures/optim_breadth, recorded by its generate.py; PyTorch is not
needed here).

Each recorded case replays the gradients PyTorch saw for 8 steps (three parameters,
often two groups, one parameter without a gradient every third step) and checks the
parameters after every step to a few ulps of their largest element, the state dict
mid-way and at the end (keys, order, dtypes, values), PyTorch's mid-way state dict
loaded into a fresh ferric optimizer, ``defaults`` and ``repr``. Bad hyperparameters and
unsupported flag combinations raise PyTorch's exception with PyTorch's message.
"""

from __future__ import annotations

import io

import pytest
from optim_fixture import EPS, FIXTURE, assert_state_dict, assert_ulps, dec

import ferric

CASES = FIXTURE["steps"]
MID = FIXTURE["mid"]
# float64 and float32 agree to a few ulps of each tensor's largest element: PyTorch
# fuses some multiply-adds (ferric rounds twice), its float32 sqrt is not always
# correctly rounded, and fused=True runs its own kernels
ULPS = 8


def _case_id(case):
    kw = dec(case["kwargs"])
    extra = "-2groups" if case["extra"] else ""
    return f"{case['optimizer']}-{'-'.join(f'{k}={v}' for k, v in kw.items())}{extra}-" \
           f"{case['dtype']}"


def _make(case, values):
    dtype = getattr(ferric, case["dtype"])
    params = [ferric.tensor(v, dtype=dtype, requires_grad=True) for v in values]
    extra = dec(case["extra"])
    groups = params if extra is None else [{"params": params[:2]},
                                           {"params": params[2:], **extra}]
    return params, getattr(ferric.optim, case["optimizer"])(groups, **dec(case["kwargs"]))


def _replay(case, params, opt, steps, resumed=False):
    """Feeds the recorded gradients of ``steps`` and checks the parameters after each
    against PyTorch's run (``resumed``: the run of PyTorch's optimizer that loaded the
    mid-way state dict, where that differs)."""
    dtype = getattr(ferric, case["dtype"])
    expected = case["params"]
    if resumed and case["resumed_params"] is not None:
        expected = [None] * MID + case["resumed_params"]
    for step in steps:
        for p, g in zip(params, case["grads"][step], strict=True):
            p.grad = None if g is None else ferric.tensor(g, dtype=dtype)
        opt.step()
        for i, (p, want) in enumerate(zip(params, expected[step], strict=True)):
            assert_ulps(p.tolist(), want, case["dtype"], ULPS, f"step {step} param {i}")


def _resumed_final_state(case):
    return dec(case["resumed_final_state"] or case["final_state"])


def _state_tol(case):
    return ULPS * EPS[case["dtype"]]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_steps_and_state_dicts_match_pytorch(case):
    params, opt = _make(case, case["init"])
    _replay(case, params, opt, range(MID))
    assert_state_dict(opt.state_dict(), dec(case["mid_state"]), case["dtype"],
                      _state_tol(case), f"after {MID} steps")
    _replay(case, params, opt, range(MID, len(case["grads"])))
    assert_state_dict(opt.state_dict(), dec(case["final_state"]), case["dtype"],
                      _state_tol(case), "at the end")


def _finish_resumed_run(case, params, opt):
    """Replays the steps after ``MID`` on an optimizer resumed from a state dict and
    checks its final state against PyTorch's."""
    _replay(case, params, opt, range(MID, len(case["grads"])), resumed=True)
    assert_state_dict(opt.state_dict(), _resumed_final_state(case), case["dtype"],
                      _state_tol(case), "at the end")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pytorch_state_dict_loads_and_continues(case):
    """PyTorch's state dict after 4 steps, loaded into a fresh optimizer over PyTorch's
    parameters at that point, continues PyTorch's run."""
    params, opt = _make(case, case["params"][MID - 1])
    opt.load_state_dict(dec(case["mid_state"]))
    _finish_resumed_run(case, params, opt)


@pytest.mark.parametrize("case", CASES[::3], ids=_case_id)
def test_state_dict_round_trip_through_save(case):
    """ferric's own state dict, through ferric.save/load, continues the run too."""
    params, opt = _make(case, case["init"])
    _replay(case, params, opt, range(MID))
    buffer = io.BytesIO()
    ferric.save(opt.state_dict(), buffer)
    buffer.seek(0)
    params2, opt2 = _make(case, [p.tolist() for p in params])
    opt2.load_state_dict(ferric.load(buffer))
    _finish_resumed_run(case, params2, opt2)


@pytest.mark.parametrize("case", CASES[::2], ids=_case_id)
def test_defaults_groups_and_repr(case):
    _, opt = _make(case, case["init"])
    assert opt.defaults == dec(case["defaults"])
    assert repr(opt) == case["repr"]


def _error_params():
    # the same two parameters the generator builds (see _error_params there)
    params = [ferric.tensor([1.0, -2.0], requires_grad=True),
              ferric.tensor([[0.5, 0.25], [-1.0, 3.0]], requires_grad=True)]
    for p in params:
        p.grad = ferric.ones_like(p)
    return params


EXCEPTIONS = {"ValueError": ValueError, "RuntimeError": RuntimeError,
              "TypeError": TypeError, "AssertionError": AssertionError}


@pytest.mark.parametrize("row", FIXTURE["errors"], ids=lambda r: r["expr"])
def test_errors_match_pytorch(row):
    namespace = {"torch": ferric, "P": _error_params()}
    if row["error"] is None:
        eval(row["expr"], namespace)  # PyTorch accepts it: so must ferric
        return
    with pytest.raises(EXCEPTIONS[row["error"]]) as info:
        eval(row["expr"], namespace)
    assert type(info.value) is EXCEPTIONS[row["error"]]
    assert str(info.value) == row["message"]


def test_capturable_error_comes_after_state_init():
    """As in PyTorch, the step creates the group's state before the device check."""
    p = _error_params()
    opt = ferric.optim.NAdam(p, capturable=True)
    with pytest.raises(AssertionError):
        opt.step()
    assert sorted(opt.state[p[0]]) == ["exp_avg", "exp_avg_sq", "mu_product", "step"]


def test_maximize_is_descent_on_the_negated_gradient():
    """maximize=True with gradient g moves exactly like maximize=False with -g."""
    for name in ("NAdam", "RAdam", "Adamax", "Adadelta", "Rprop", "ASGD"):
        runs = []
        for maximize in (False, True):
            w = ferric.tensor([0.5, -1.5, 2.0], dtype=ferric.float64, requires_grad=True)
            opt = getattr(ferric.optim, name)([w], maximize=maximize)
            for k in range(4):
                g = ferric.tensor([1.0, -0.5, 0.25], dtype=ferric.float64) * (k - 1.5)
                w.grad = -g if maximize else g
                opt.step()
            runs.append(w.tolist())
        assert runs[0] == runs[1], name


def test_differentiable_step_records_the_graph():
    """differentiable=True runs the update with autograd on: ASGD's
    ``p' = p (1 - lambd eta) - eta (g + wd p)`` then has ``dp'/dp = 1 - lambd eta - eta wd``
    (1 if the step were not recorded)."""
    base = ferric.tensor([1.0, 2.0], dtype=ferric.float64, requires_grad=True)
    w = base * 1.0
    opt = ferric.optim.ASGD([w], lr=0.1, lambd=0.01, weight_decay=0.5, differentiable=True)
    w.grad = ferric.tensor([0.5, -0.25], dtype=ferric.float64)
    opt.step()
    w.sum().backward()
    eta = ferric.tensor(0.1).item()  # the rate as ASGD stores it (float32)
    assert base.grad.tolist() == pytest.approx([1 - 0.01 * eta - 0.5 * eta] * 2, rel=1e-15)


def test_legacy_state_dicts_upgrade():
    """Old checkpoints lacking newer options, with numeric ``step``/``mu_product``/
    ``eta``/``mu``, load as PyTorch's __setstate__ upgrades them."""
    for name, scalars in (("NAdam", {"mu_product": 0.9}), ("ASGD", {"eta": 0.01, "mu": 1.0}),
                          ("RAdam", {})):
        w = ferric.ones(2, requires_grad=True)
        w.grad = ferric.ones(2)
        opt = getattr(ferric.optim, name)([w])
        opt.step()
        sd = opt.state_dict()
        sd["state"][0]["step"] = 3
        sd["state"][0].update(scalars)
        for key in ("foreach", "maximize", "differentiable", "capturable"):
            del sd["param_groups"][0][key]
        opt2 = getattr(ferric.optim, name)([ferric.ones(2, requires_grad=True)])
        opt2.load_state_dict(sd)
        state = next(iter(opt2.state.values()))
        assert all(isinstance(state[k], ferric.Tensor) for k in ("step", *scalars)), name
        assert state["step"].item() == 3.0
        group = opt2.param_groups[0]
        assert (group["foreach"], group["maximize"], group["capturable"]) == (
            None, False, False)
