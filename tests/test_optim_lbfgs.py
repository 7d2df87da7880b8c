"""LBFGS against PyTorch 2.13 (tests/fixtures/optim_breadth, recorded by its
generate.py): Rosenbrock functions and small least-squares problems, with and without
``line_search_fn="strong_wolfe"``, several ``step(closure)`` calls each, in float64 and
float32.

After every call the loss, the parameters, the iteration and evaluation counters and the
number of closure calls match PyTorch's; the final state dict has PyTorch's layout and
values; PyTorch's state dict after the first call, loaded into a fresh ferric LBFGS,
continues PyTorch's run.

How closely is set by the problem, not picked by hand: the generator also runs PyTorch
from every starting value moved by one ulp and records how far that carries PyTorch
itself (``spread``). ferric must stay within ten times that spread (and at least within
a few ulps); on well-conditioned problems that is ~1e-15, on fixed-step Rosenbrock,
which amplifies any rounding difference about a thousandfold per call, ~1e-8 in float64
and a few percent in float32. The counters must match wherever one ulp cannot change them
in PyTorch either.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from optim_fixture import (
    EPS,
    FIXTURE,
    assert_same_value,
    assert_state_dict,
    dec,
    deviation,
    line_search_start,
)

import ferric

CASES = FIXTURE["lbfgs"]
PROBLEMS = FIXTURE["problems"]
ULPS = 8
# the loss of a least-squares fit sums squared residuals that cancel (A @ w - y): the
# forward pass alone (PyTorch's matrix-vector product adds in another order) moves it by
# an ulp of A @ w per residual, some tens of ulps of the loss in float32
LOSS_ULPS = 64
SPREAD_FACTOR = 10


def _case_id(case):
    kw = dec(case["kwargs"])
    return f"{case['problem']}-{'-'.join(f'{k}={v}' for k, v in kw.items())}-{case['dtype']}"


class _Run:
    """A ferric LBFGS on a recorded problem, with a closure counting its calls."""

    def __init__(self, case, values=None):
        spec = PROBLEMS[case["problem"]]
        dtype = getattr(ferric, case["dtype"])
        values = values or list(spec["params"].values())
        self.params = [ferric.tensor(v, dtype=dtype, requires_grad=True) for v in values]
        self.namespace = {k: ferric.tensor(v, dtype=dtype) for k, v in spec["data"].items()}
        self.namespace.update(zip(spec["params"], self.params, strict=True))
        self.loss_text = spec["loss"]
        self.opt = ferric.optim.LBFGS(self.params, **dec(case["kwargs"]))
        self.calls = 0

    def closure(self):
        self.calls += 1
        self.opt.zero_grad()
        loss = eval(self.loss_text, {"torch": ferric}, self.namespace)
        loss.backward()
        return loss


def _tol(case, call):
    return max(ULPS * EPS[case["dtype"]], SPREAD_FACTOR * call["spread"])


def _check_call(case, run, call, i, closure_offset=0):
    loss = run.opt.step(run.closure)
    what = f"call {i}"
    loss_tol = max(LOSS_ULPS * EPS[case["dtype"]] * abs(call["loss"]),
                   SPREAD_FACTOR * call["loss_spread"])
    assert abs(loss.item() - call["loss"]) <= loss_tol, (what, loss.item(), call["loss"])
    got = np.concatenate([np.ravel(p.tolist()) for p in run.params])
    want = np.concatenate([np.ravel(p) for p in call["params"]])
    dev = deviation(got, want)
    assert dev <= _tol(case, call), f"{what}: parameters off by {dev:.3g} (spread " \
                                    f"{call['spread']:.3g})"
    if call["counts_stable"]:
        state = run.opt.state[run.params[0]]
        assert (state["func_evals"], state["n_iter"], run.calls + closure_offset) == (
            call["func_evals"], call["n_iter"], call["closure_calls"]), what


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_lbfgs_matches_pytorch(case):
    run = _Run(case)
    for i, call in enumerate(case["calls"]):
        _check_call(case, run, call, i)
    if all(c["counts_stable"] for c in case["calls"]):
        # the same history, so PyTorch's state layout: keys in order, value types,
        # tensor dtypes and shapes, list lengths and the Nones in `al`. (Values are
        # not compared: near the minimum the directions and `al` are rounding noise;
        # the loaded-state test below checks that the state means the same.)
        assert_state_dict(run.opt.state_dict(), dec(case["calls"][-1]["state"]),
                          case["dtype"], math.inf, "final state")


@pytest.mark.parametrize("case", [c for c in CASES if c["calls"][0]["counts_stable"]],
                         ids=_case_id)
def test_lbfgs_continues_from_pytorch_state_dict(case):
    first = case["calls"][0]
    run = _Run(case, first["params"])
    run.opt.load_state_dict(dec(first["state"]))
    for i, call in enumerate(case["calls"][1:], 1):
        _check_call(case, run, call, i, closure_offset=first["closure_calls"])


@pytest.mark.parametrize("case", CASES[::3], ids=_case_id)
def test_lbfgs_defaults_and_repr(case):
    opt = ferric.optim.LBFGS([ferric.zeros(1, requires_grad=True)], **dec(case["kwargs"]))
    assert opt.defaults == dec(case["defaults"])
    assert repr(opt) == case["repr"]


def _quadratic(dtype=ferric.float64):
    w = ferric.tensor([3.0, -1.0, 0.5], dtype=dtype, requires_grad=True)
    unused = ferric.tensor([7.0], dtype=dtype, requires_grad=True)
    target = ferric.tensor([1.0, 2.0, -1.0], dtype=dtype)
    return w, unused, target


def test_step_returns_the_first_closure_value_and_runs_it_with_grad():
    w, unused, target = _quadratic()
    opt = ferric.optim.LBFGS([w, unused])
    returned = []

    def closure():
        assert ferric.is_grad_enabled()
        opt.zero_grad()
        loss = ((w - target) * (w - target)).sum()
        loss.backward()
        returned.append(loss)
        return loss

    with ferric.no_grad():
        out = opt.step(closure)
    assert out is returned[0]
    assert w.tolist() == pytest.approx([1.0, 2.0, -1.0], abs=1e-12)
    # a parameter without a gradient counts as a zero gradient and does not move
    assert unused.grad is None and unused.tolist() == [7.0]


def test_converged_start_returns_at_once():
    w, _, target = _quadratic()
    opt = ferric.optim.LBFGS([w], tolerance_grad=10.0)

    def closure():
        opt.zero_grad()
        loss = ((w - target) * (w - target)).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert opt.state[w] == {"func_evals": 1, "n_iter": 0}
    assert w.tolist() == [3.0, -1.0, 0.5]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_state_dict_round_trip_through_save(line_search_fn):
    """The state (lists of tensors, ``al`` with Nones, float or tensor ``t``) survives
    ferric.save/load and a reloaded optimizer continues identically."""
    runs = []
    for reload in (False, True):
        w, _, target = _quadratic()
        opt = ferric.optim.LBFGS([w], max_iter=2, history_size=3,
                                 line_search_fn=line_search_fn)

        def closure(opt=opt, w=w, target=target):
            opt.zero_grad()
            loss = ((w - target) * (w - target) * (w - target) * (w - target)).sum()
            loss.backward()
            return loss

        opt.step(closure)
        if reload:
            buffer = io.BytesIO()
            ferric.save(opt.state_dict(), buffer)
            buffer.seek(0)
            saved = ferric.load(buffer)
            w2 = w.detach().clone().requires_grad_(True)
            opt = ferric.optim.LBFGS([w2], max_iter=2, history_size=3,
                                     line_search_fn=line_search_fn)
            opt.load_state_dict(saved)
            assert_same_value(opt.state_dict()["state"], saved["state"], "float64", 0.0,
                              "reloaded")
            w = w2

            def closure(opt=opt, w=w, target=target):
                opt.zero_grad()
                loss = ((w - target) * (w - target) * (w - target) * (w - target)).sum()
                loss.backward()
                return loss

        for _ in range(3):
            opt.step(closure)
        runs.append(w.tolist())
    assert runs[0] == runs[1]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", FIXTURE["line_searches"],
                         ids=lambda c: f"t={c['t']}-max_ls={c['max_ls']}")
def test_strong_wolfe_line_search_matches_pytorch(case, dtype):
    """Given bit-identical function values and slopes, ferric's line search takes every
    decision PyTorch's does: the same number of evaluations, a step of the same kind (a
    float or a 0-d tensor, as in PyTorch) and the same point. The recorded cases run
    every line of PyTorch's line search and cubic interpolation. Nearly all agree to the
    last bit; PyTorch's CPU square root (vectorized, on this AVX-512 build) is not always
    correctly rounded, so a step may differ in its last bit, and the slope there by the
    objective's curvature times that."""
    from ferric.optim.lbfgs import _strong_wolfe

    f0, g, d, evaluate = line_search_start(case, ferric, dtype)
    f_new, g_new, t, evals = _strong_wolfe(evaluate, case["t"], d, f0, g, g.dot(d),
                                           max_ls=case["max_ls"])
    want = case["out"][dtype]
    assert (evals, isinstance(t, ferric.Tensor)) == (want["evals"], want["t_is_tensor"])
    eps = EPS[dtype]
    assert float(t) == pytest.approx(want["t"], rel=4 * eps, abs=0)
    assert f_new == pytest.approx(want["f"], rel=4 * eps, abs=4 * eps)
    assert g_new.tolist() == pytest.approx(want["g"], rel=4 * eps, abs=256 * eps)
