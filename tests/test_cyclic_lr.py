"""CyclicLR and CosineAnnealingWarmRestarts against hand-computed schedules (the
comparisons with PyTorch itself are in test_vs_torch_optim.py)."""

from __future__ import annotations

import math
import pickle

import pytest

import ferric
from ferric.optim.lr_scheduler import CosineAnnealingWarmRestarts, CyclicLR


def _opt(kind="sgd", lr=0.5):
    p = ferric.zeros(2, requires_grad=True)
    if kind == "adam":
        return ferric.optim.Adam([p], lr=lr)
    if kind == "adagrad":
        return ferric.optim.Adagrad([p], lr=lr)
    return ferric.optim.SGD([p], lr=lr, momentum=0.9)


def _lrs(sched, n, epochs=None):
    out = [sched.get_last_lr()[0]]
    for i in range(n):
        sched.optimizer.step()
        sched.step() if epochs is None else sched.step(epochs[i])
        out.append(sched.get_last_lr()[0])
    return out


@pytest.mark.parametrize(("mode", "expected"), [
    ("triangular", [0.1, 0.55, 1.0, 0.55, 0.1, 0.55, 1.0, 0.55, 0.1]),
    ("triangular2", [0.1, 0.55, 1.0, 0.55, 0.1, 0.325, 0.55, 0.325, 0.1]),
])
def test_cyclic_lr_policies(mode, expected):
    sched = CyclicLR(_opt(), base_lr=0.1, max_lr=1.0, step_size_up=2, mode=mode)
    assert _lrs(sched, 8) == pytest.approx(expected, rel=1e-12)


def test_cyclic_lr_exp_range_and_asymmetric():
    sched = CyclicLR(_opt(), 0.0, 1.0, step_size_up=1, step_size_down=3, mode="exp_range",
                     gamma=0.5)
    # up in one step, down in three; amplitude * 0.5**iteration
    heights = [0.0, 1.0, 2 / 3, 1 / 3, 0.0, 1.0]
    expected = [h * 0.5**i for i, h in enumerate(heights)]
    assert _lrs(sched, 5) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_cyclic_lr_momentum_moves_inversely():
    opt = _opt("adam")
    sched = CyclicLR(opt, 0.1, 1.0, step_size_up=2, base_momentum=0.8, max_momentum=0.9)
    betas = [opt.param_groups[0]["betas"][0]]
    for _ in range(4):
        opt.step()
        sched.step()
        betas.append(opt.param_groups[0]["betas"][0])
    assert betas == pytest.approx([0.9, 0.85, 0.8, 0.85, 0.9], rel=1e-12)
    assert opt.param_groups[0]["max_momentum"] == 0.9


def test_cyclic_lr_errors_and_state():
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        CyclicLR(_opt(), 0.1, 1.0, mode="saw")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        CyclicLR(_opt("adagrad"), 0.1, 1.0)
    sched = CyclicLR(_opt(), 0.1, 1.0, step_size_up=3, mode="exp_range", gamma=0.9)
    _lrs(sched, 4)
    state = sched.state_dict()
    assert state["_scale_fn_custom"] is None and "_scale_fn_ref" not in state
    other = CyclicLR(_opt(), 0.1, 1.0, step_size_up=3, mode="exp_range", gamma=0.9)
    other.load_state_dict(state)
    assert _lrs(other, 3) == pytest.approx(_lrs(sched, 3), rel=1e-14)
    pickle.loads(pickle.dumps(sched.state_dict()))


def _cosine(base, eta, t_cur, t_i):
    return eta + (base - eta) * (1 + math.cos(math.pi * t_cur / t_i)) / 2


def test_warm_restarts_periods():
    sched = CosineAnnealingWarmRestarts(_opt(lr=1.0), T_0=2, T_mult=2, eta_min=0.1)
    # periods of 2, 4, 8 epochs
    positions = [(0, 2), (1, 2), (0, 4), (1, 4), (2, 4), (3, 4), (0, 8), (1, 8)]
    expected = [_cosine(1.0, 0.1, c, t) for c, t in positions]
    assert _lrs(sched, 7) == pytest.approx(expected, rel=1e-12)
    assert (sched.T_i, sched.T_cur, sched.last_epoch, sched._step_count) == (8, 1, 7, 0)


def test_warm_restarts_fractional_epoch():
    sched = CosineAnnealingWarmRestarts(_opt(lr=1.0), T_0=3, T_mult=2)
    lrs = _lrs(sched, 3, epochs=[1.5, 4.5, 9.0])
    # the periods are [0, 3), [3, 9), [9, 21): 4.5 is 1.5 into the second, 9.0 starts
    # the third
    assert lrs[1:] == pytest.approx([_cosine(1.0, 0.0, 1.5, 3), _cosine(1.0, 0.0, 1.5, 6),
                                     _cosine(1.0, 0.0, 0.0, 12)], rel=1e-12)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"T_0": 0}, "Expected positive integer T_0, but got 0"),
    ({"T_0": 2, "T_mult": 0}, "Expected integer T_mult >= 1, but got 0"),
    ({"T_0": 2, "eta_min": "x"}, "Expected float or int eta_min"),
])
def test_warm_restarts_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CosineAnnealingWarmRestarts(_opt(), **kwargs)
