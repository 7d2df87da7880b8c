"""ferric.optim.lr_scheduler: learning-rate sequences recorded from PyTorch 2.x by hand
(same optimizer, same scheduler arguments; the values are compared exactly, since the
same float expressions are evaluated in the same order), plus chaining, explicit epochs,
state dicts, OneCycleLR's momentum cycling and limits, ReduceLROnPlateau and errors."""

from __future__ import annotations

import warnings

import pytest

import ferric
from ferric import optim
from ferric.optim import lr_scheduler as S


def make(opt="SGD"):
    """Two groups (lr 0.1 and 0.5) so per-group behaviour is exercised."""
    p = ferric.zeros(2, requires_grad=True)
    q = ferric.zeros(1, requires_grad=True)
    groups = [{"params": [p]}, {"params": [q], "lr": 0.5}]
    if opt == "SGD":
        return optim.SGD(groups, lr=0.1, momentum=0.9)
    return optim.Adam(groups, lr=0.1)


SCHEDULERS = {
    "step": lambda o: S.StepLR(o, step_size=3, gamma=0.5),
    "multistep": lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "exp": lambda o: S.ExponentialLR(o, gamma=0.9),
    "cos": lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
    "lambda": lambda o: S.LambdaLR(o, lambda e: 1.0 / (1 + e)),
    "lambda2": lambda o: S.LambdaLR(o, [lambda e: 0.9**e, lambda e: e + 1]),
    "mult": lambda o: S.MultiplicativeLR(o, lambda e: 0.95),
    "const": lambda o: S.ConstantLR(o, factor=0.5, total_iters=4),
    "linear": lambda o: S.LinearLR(o, start_factor=0.25, total_iters=6),
    "poly": lambda o: S.PolynomialLR(o, total_iters=8, power=2.0),
    "onecycle": lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=12),
    "onecycle_lin3": lambda o: S.OneCycleLR(
        o, max_lr=[1.0, 2.0], epochs=3, steps_per_epoch=4, anneal_strategy="linear",
        three_phase=True, pct_start=0.25, div_factor=10.0, final_div_factor=100.0),
    "seq": lambda o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.8)],
        milestones=[4]),
    "chain": lambda o: S.ChainedScheduler(
        [S.ExponentialLR(o, gamma=0.9), S.StepLR(o, step_size=2, gamma=0.5)]),
}

# group 0's lr after construction and after each of 15 steps (12 for OneCycleLR), as
# printed by PyTorch 2.x
EXPECTED = {
    "step": [
        0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.00625,
        0.00625, 0.00625, 0.003125
    ],
    "multistep": [
        0.1, 0.1, 0.03, 0.03, 0.03, 0.0026999999999999997, 0.0026999999999999997,
        0.0026999999999999997, 0.0026999999999999997, 0.0008099999999999998,
        0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
        0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998
    ],
    "exp": [
        0.1, 0.09000000000000001, 0.08100000000000002, 0.07290000000000002, 0.06561000000000002,
        0.05904900000000002, 0.05314410000000002, 0.04782969000000002, 0.043046721000000024,
        0.03874204890000002, 0.03486784401000002, 0.03138105960900001, 0.028242953648100012,
        0.025418658283290013, 0.022876792454961013, 0.020589113209464913
    ],
    "cos": [
        0.1, 0.09140576474687263, 0.06890576474687263, 0.04109423525312736, 0.018594235253127367,
        0.01, 0.018594235253127367, 0.04109423525312739, 0.06890576474687267, 0.09140576474687269,
        0.10000000000000006, 0.09140576474687272, 0.06890576474687268, 0.0410942352531274,
        0.01859423525312738, 0.01
    ],
    "lambda": [
        0.1, 0.05, 0.03333333333333333, 0.025, 0.020000000000000004, 0.016666666666666666,
        0.014285714285714285, 0.0125, 0.011111111111111112, 0.010000000000000002,
        0.009090909090909092, 0.008333333333333333, 0.007692307692307693, 0.007142857142857143,
        0.006666666666666667, 0.00625
    ],
    "lambda2": [
        0.1, 0.09000000000000001, 0.08100000000000002, 0.0729, 0.06561, 0.05904900000000001,
        0.05314410000000001, 0.04782969000000001, 0.04304672100000001, 0.03874204890000001,
        0.03486784401000001, 0.031381059609000006, 0.028242953648100012, 0.02541865828329001,
        0.02287679245496101, 0.02058911320946491
    ],
    "mult": [
        0.1, 0.095, 0.09025, 0.0857375, 0.08145062499999998, 0.07737809374999999,
        0.07350918906249998, 0.06983372960937498, 0.06634204312890622, 0.0630249409724609,
        0.05987369392383786, 0.05688000922764597, 0.05403600876626367, 0.05133420832795048,
        0.04876749791155295, 0.046329123015975304
    ],
    "const": [
        0.05, 0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
    ],
    "linear": [
        0.025, 0.037500000000000006, 0.05, 0.0625, 0.075, 0.08750000000000001, 0.1, 0.1, 0.1, 0.1,
        0.1, 0.1, 0.1, 0.1, 0.1, 0.1
    ],
    "poly": [
        0.1, 0.0765625, 0.05625, 0.03906250000000001, 0.02500000000000001, 0.014062500000000006,
        0.006250000000000002, 0.0015625000000000005, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    ],
    "onecycle": [
        0.040000000000000036, 0.3497896542195831, 0.8792851591221287, 0.9944154354509117,
        0.9330129698414117, 0.811745653949763, 0.6473789976951033, 0.46263710266697505,
        0.28306099820869923, 0.1334775301888306, 0.03456698742539522, 4e-06, 0.034566987425395164
    ],
    "onecycle_lin3": [
        0.1, 0.55, 1.0, 0.55, 0.09999999999999998, 0.08585714285714287, 0.07171428571428572,
        0.05757142857142858, 0.043428571428571434, 0.02928571428571429, 0.015142857142857152,
        0.0010000000000000009, -0.013142857142857137
    ],
    "seq": [
        0.010000000000000002, 0.04, 0.07, 0.1, 0.1, 0.08000000000000002, 0.06400000000000002,
        0.051200000000000016, 0.04096000000000002, 0.03276800000000001, 0.026214400000000013,
        0.02097152000000001, 0.016777216000000008, 0.013421772800000007, 0.010737418240000006,
        0.008589934592000005
    ],
    "chain": [
        0.1, 0.09000000000000001, 0.04050000000000001, 0.03645000000000001, 0.016402500000000004,
        0.014762250000000005, 0.0066430125000000026, 0.005978711250000003, 0.0026904200625000015,
        0.0024213780562500013, 0.0010896201253125005, 0.0009806581127812504,
        0.0004412961507515627, 0.00039716653567640646, 0.00017872494105438292,
        0.00016085244694894464
    ],
}

# the second group where it is not simply 5x the first
EXPECTED_GROUP1 = {
    "cos": [0.5, 0.45320916362186214, 0.33070916362186215, 0.1792908363781379,
            0.0567908363781379, 0.01, 0.05679083637813787, 0.17929083637813795,
            0.33070916362186226, 0.45320916362186237, 0.5000000000000002, 0.4532091636218625,
            0.3307091636218623, 0.17929083637813803, 0.05679083637813795, 0.01],
    "lambda2": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0],
    "onecycle_lin3": [0.2, 1.1, 2.0, 1.1, 0.19999999999999996, 0.17171428571428574,
                      0.14342857142857143, 0.11514285714285716, 0.08685714285714287,
                      0.05857142857142858, 0.030285714285714305, 0.0020000000000000018,
                      -0.026285714285714273],
}


def run(name, opt="SGD"):
    o = make(opt)
    sched = SCHEDULERS[name](o)
    seq = [sched.get_last_lr()]
    for _ in range(len(EXPECTED[name]) - 1):
        o.step()
        sched.step()
        seq.append(sched.get_last_lr())
    return o, sched, seq


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_sequence_matches_pytorch(name):
    o, sched, seq = run(name)
    assert [s[0] for s in seq] == EXPECTED[name]
    if name in EXPECTED_GROUP1:
        assert [s[1] for s in seq] == EXPECTED_GROUP1[name]
    assert [g["lr"] for g in o.param_groups] == seq[-1]
    if name not in ("seq", "chain"):
        assert sched.last_epoch == len(seq) - 1


@pytest.mark.parametrize("name", ["onecycle", "onecycle_lin3"])
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_onecycle_momentum_and_limit(name, opt):
    momenta = {
        "onecycle": [0.9177302443521267, 0.8625744625914449, 0.8505584586887436,
                     0.856698729810778, 0.8688255099070633, 0.8852622412794547,
                     0.9037365046793212, 0.9216941869558779, 0.9366525935914912,
                     0.9465436874322102, 0.95, 0.9465436874322102],
        "onecycle_lin3": [0.8999999999999999, 0.85, 0.8999999999999999] + [0.95] * 9,
    }[name]
    o = make(opt)
    sched = SCHEDULERS[name](o)
    seen = []
    for _ in range(12):
        o.step()
        sched.step()
        g = o.param_groups[0]
        seen.append(g["momentum"] if opt == "SGD" else g["betas"][0])
    assert seen == momenta
    if opt == "Adam":
        assert o.param_groups[0]["betas"][1] == 0.999
    assert [s[0] for s in [sched.get_last_lr()]] == [EXPECTED[name][-1]]
    o.step()
    with pytest.raises(ValueError, match="Tried to step 13 times. The specified number of "
                                         "total steps is 12"):
        sched.step()


def test_onecycle_sets_group_keys():
    o = make()
    S.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=10)
    g = o.param_groups[1]
    assert (g["initial_lr"], g["max_lr"], g["min_lr"]) == (0.08, 2.0, 0.08 / 1e4)
    assert (g["max_momentum"], g["base_momentum"], g["momentum"]) == (0.95, 0.85, 0.95)


def test_explicit_epoch_uses_the_closed_form():
    o = make()
    sched = S.StepLR(o, 3, 0.5)
    got = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for e in (4, 7, 1):
            sched.step(e)
            got.append(sched.get_last_lr())
    assert any("epoch parameter in `scheduler.step()`" in str(w.message) for w in caught)
    assert got == [[0.05, 0.25], [0.025, 0.125], [0.1, 0.5]]
    o = make()
    sched = S.CosineAnnealingLR(o, 4)
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in (2, 9):
            sched.step(e)
            got.append(sched.get_last_lr())
    assert got == [[0.05, 0.25], [0.08535533905932739, 0.4267766952966369]]


def test_base_lrs_and_initial_lr():
    o = make()
    sched = S.ExponentialLR(o, gamma=0.5)
    assert sched.base_lrs == [0.1, 0.5] and sched.last_epoch == 0
    assert [g["initial_lr"] for g in o.param_groups] == [0.1, 0.5]
    o.step()
    sched.step()
    # resuming with last_epoch keeps the recorded initial_lr
    resumed = S.ExponentialLR(o, gamma=0.5, last_epoch=1)
    assert resumed.base_lrs == [0.1, 0.5]


def test_stacked_schedulers_compose():
    o = make()
    a = S.StepLR(o, step_size=2, gamma=0.1)
    b = S.ExponentialLR(o, gamma=0.5)
    lrs = []
    for _ in range(4):
        o.step()
        a.step()
        b.step()
        lrs.append(o.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.05, 0.0025, 0.00125, 0.0000625])


@pytest.mark.parametrize("name", ["step", "cos", "lambda", "onecycle", "seq", "poly"])
def test_state_dict_round_trip(name):
    o, sched, _ = run(name)
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == sched.last_epoch
    # as in PyTorch, the optimizer state is loaded after the scheduler is built (building
    # one writes initial learning rates into the groups)
    o2 = make()
    sched2 = SCHEDULERS[name](o2)
    o2.load_state_dict(o.state_dict())
    sched2.load_state_dict(sd)
    # both continue identically from here
    if name.startswith("onecycle"):
        return
    for _ in range(3):
        for opt_, s in ((o, sched), (o2, sched2)):
            opt_.step()
            s.step()
    assert sched2.get_last_lr() == sched.get_last_lr()
    assert [g["lr"] for g in o2.param_groups] == [g["lr"] for g in o.param_groups]


@pytest.mark.parametrize("name", ["multistep", "onecycle", "lambda", "seq", "cos"])
def test_state_dict_saves_with_ferric_save(name, tmp_path):
    pytest.importorskip("safetensors")
    _, sched, _ = run(name)
    sd = sched.state_dict()
    ferric.save(sd, tmp_path / "sched.safetensors")
    loaded = ferric.load(tmp_path / "sched.safetensors")  # weights_only by default
    assert loaded == sd


def test_lambda_state_dict_keeps_callable_objects_only():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate**epoch

    o = make()
    sched = S.LambdaLR(o, [lambda e: 1.0, Decay()])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [None, {"rate": 0.5}]
    sd["lr_lambdas"][1]["rate"] = 0.25
    sched.load_state_dict(sd)
    assert sched.lr_lambdas[1].rate == 0.25


def test_warns_when_stepped_before_the_optimizer():
    o = make()
    sched = S.StepLR(o, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    o = make()
    sched = S.StepLR(o, 2)
    o.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_get_lr_outside_step_warns():
    sched = S.StepLR(make(), 2)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


# metric, then (lr group 0, lr group 1, num_bad_epochs, cooldown_counter, best) as
# PyTorch reports them after each step(metric)
PLATEAU_METRICS = [1.0, 0.95, 0.99, 1.2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49, 0.48, 0.3, 0.3, 0.3,
                   0.3, 0.3, 0.3, 0.3]
PLATEAU_EXPECTED = [
    [0.1, 0.5, 0, 0, 1.0], [0.1, 0.5, 1, 0, 1.0], [0.1, 0.5, 2, 0, 1.0],
    [0.05, 0.25, 0, 1, 1.0], [0.05, 0.25, 0, 0, 0.5], [0.05, 0.25, 1, 0, 0.5],
    [0.05, 0.25, 2, 0, 0.5], [0.025, 0.2, 0, 1, 0.5], [0.025, 0.2, 0, 0, 0.5],
    [0.025, 0.2, 1, 0, 0.5], [0.025, 0.2, 2, 0, 0.5], [0.025, 0.2, 0, 0, 0.3],
    [0.025, 0.2, 1, 0, 0.3], [0.025, 0.2, 2, 0, 0.3], [0.0125, 0.2, 0, 1, 0.3],
    [0.0125, 0.2, 0, 0, 0.3], [0.0125, 0.2, 1, 0, 0.3], [0.0125, 0.2, 2, 0, 0.3],
]


@pytest.mark.parametrize("mode,threshold_mode", [("min", "rel"), ("max", "abs")])
def test_reduce_on_plateau(mode, threshold_mode):
    o = make()
    sched = S.ReduceLROnPlateau(o, mode=mode, factor=0.5, patience=2, threshold=0.1,
                                threshold_mode=threshold_mode, cooldown=1,
                                min_lr=[0.01, 0.2])
    sign = 1 if mode == "min" else -1
    got = []
    for m in PLATEAU_METRICS:
        # 0-d tensors are accepted like floats
        sched.step(ferric.tensor(sign * m, dtype=ferric.float64))
        got.append(sched.get_last_lr() + [sched.num_bad_epochs, sched.cooldown_counter,
                                          sched.best])
    expected = [row[:4] + [sign * row[4]] for row in PLATEAU_EXPECTED]
    assert got == expected


def test_reduce_on_plateau_state_dict():
    o = make()
    sched = S.ReduceLROnPlateau(o, patience=0)
    sched.step(1.0)
    sched.step(2.0)
    sd = sched.state_dict()
    sched2 = S.ReduceLROnPlateau(make(), mode="max")
    sched2.load_state_dict(sd)
    assert sched2.mode == "min" and sched2.best == 1.0 and sched2.last_epoch == 2
    assert sched.get_last_lr() == pytest.approx([0.01, 0.05])


P = ferric.zeros(1, requires_grad=True)
ERRORS = [
    (lambda: S.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (lambda: S.StepLR(optim.SGD([P]), 2, last_epoch=3), KeyError,
     "param 'initial_lr' is not specified in param_groups\\[0\\]"),
    (lambda: S.LambdaLR(optim.SGD([P]), [lambda e: 1, lambda e: 2]), ValueError,
     "Expected 1 lr_lambdas, but got 2"),
    (lambda: S.ReduceLROnPlateau(optim.SGD([P]), factor=1.0), ValueError, "Factor should be"),
    (lambda: S.ReduceLROnPlateau(optim.SGD([P]), mode="avg"), ValueError, "mode avg is unknown"),
    (lambda: S.ReduceLROnPlateau(optim.SGD([P]), threshold_mode="x"), ValueError,
     "threshold mode x is unknown"),
    (lambda: S.ReduceLROnPlateau(optim.SGD([P]), min_lr=[0.1, 0.2]), ValueError,
     "expected 1 min_lrs, got 2"),
    (lambda: S.OneCycleLR(optim.SGD([P]), max_lr=0.1), ValueError,
     "You must define either total_steps OR"),
    (lambda: S.OneCycleLR(optim.SGD([P]), max_lr=0.1, total_steps=0), ValueError,
     "Expected positive integer total_steps, but got 0"),
    (lambda: S.OneCycleLR(optim.SGD([P]), 0.1, epochs=2, steps_per_epoch=-1), ValueError,
     "Expected positive integer steps_per_epoch, but got -1"),
    (lambda: S.OneCycleLR(optim.SGD([P]), 0.1, total_steps=10, pct_start=1), ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    (lambda: S.OneCycleLR(optim.SGD([P]), 0.1, total_steps=10, anneal_strategy="exp"),
     ValueError, "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    (lambda: S.OneCycleLR(optim.SGD([P]), max_lr=[0.1, 0.2], total_steps=10), ValueError,
     "max_lr must have the same length as optimizer.param_groups"),
    (lambda: S.OneCycleLR(optim.Adagrad([P]), max_lr=0.1, total_steps=10), ValueError,
     "optimizer must support momentum or beta1"),
    (lambda: S.ConstantLR(optim.SGD([P]), factor=2), ValueError,
     "Constant multiplicative factor expected to be between 0 and 1"),
    (lambda: S.LinearLR(optim.SGD([P]), start_factor=0), ValueError,
     "Starting multiplicative factor expected to be greater than 0"),
    (lambda: S.SequentialLR(optim.SGD([P]), [], []), ValueError,
     "SequentialLR expects at least one scheduler"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS)
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


@pytest.mark.parametrize("module", ["ferric.optim.lr_scheduler"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
