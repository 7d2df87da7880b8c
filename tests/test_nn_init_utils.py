"""nn.init (values from PyTorch for the same seeds, distribution checks, errors),
nn.utils gradient clipping and parameter/vector conversion, and the runnable docstrings
of ferric.nn."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest
from nn_helpers import close, f64, np_of

import ferric
from ferric import nn
from ferric.nn import init

# from PyTorch: torch.manual_seed(0); <init call on torch.empty(2, 3)>
SEEDED = [
    ("xavier_uniform", lambda t: init.xavier_uniform_(t, gain=2.0),
     [-0.016403, 1.175289, -1.803202, -1.612362, -0.843831, 0.587503]),
    ("kaiming_normal", lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
     [1.540996, -0.293429, -2.178789, 0.568431, -1.084522, -1.398595]),
    ("trunc_normal", lambda t: init.trunc_normal_(t, std=0.5),
     [0.770498, -0.146714, -1.089395, 0.284216, -0.542261, -0.699298]),
    ("trunc_normal_narrow", lambda t: init.trunc_normal_(t, a=1.0, b=1.5),
     [1.248128, 1.08443, 1.044239, 1.066015, 1.153711, 1.317039]),
    ("orthogonal", init.orthogonal_,
     [0.573981, -0.109295, -0.811542, -0.345415, -0.930883, -0.118936]),
]


@pytest.mark.parametrize("name,fn,expected", SEEDED, ids=[s[0] for s in SEEDED])
def test_seeded_values_match_pytorch(name, fn, expected):
    ferric.manual_seed(0)
    t = ferric.empty(2, 3)
    assert fn(t) is t
    close(t.reshape(-1), expected, rtol=0, atol=5e-6)


def test_distributions_and_fans():
    ferric.manual_seed(1)
    t = ferric.empty(200, 300)
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(t)
    assert (fan_in, fan_out) == (300, 200)
    assert init._calculate_fan_in_and_fan_out(ferric.empty(4, 3, 2, 5)) == (30, 40)
    init.kaiming_uniform_(t, a=math.sqrt(5))
    bound = 1 / math.sqrt(300)
    assert float(t.abs().max()) <= bound and float(t.abs().max()) > 0.95 * bound
    init.xavier_normal_(t)
    assert abs(float(t.std()) - math.sqrt(2 / 500)) < 0.003
    init.uniform_(t, -2.0, -1.0)
    assert -2.0 <= float(t.min()) and float(t.max()) <= -1.0
    init.normal_(t, 3.0, 0.5)
    assert abs(float(t.mean()) - 3.0) < 0.01
    init.trunc_normal_(t, mean=0.0, std=1.0, a=-0.5, b=0.5)
    assert float(t.abs().max()) <= 0.5
    init.constant_(t, 0.25)
    assert float(t.min()) == float(t.max()) == 0.25
    init.ones_(t)
    init.zeros_(t)
    assert float(t.abs().sum()) == 0
    e = init.eye_(ferric.empty(2, 3))
    close(e, np.eye(2, 3))
    d = init.dirac_(ferric.empty(2, 2, 3))
    close(d, [[[0, 1, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0]]])
    q = init.orthogonal_(ferric.empty(5, 3, dtype=ferric.float64), gain=2.0)
    close(np_of(q).T @ np_of(q), 4 * np.eye(3), atol=1e-10)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ferric.empty(3, 0))


def test_init_does_not_record_history():
    p = nn.Parameter(ferric.empty(2, 2))
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_,
               init.zeros_, init.ones_, init.eye_, init.orthogonal_, init.trunc_normal_):
        assert fn(p) is p and p.grad_fn is None and p.is_leaf


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75


INIT_ERRORS = [
    (lambda: init.calculate_gain("foo"), ValueError, "Unsupported nonlinearity foo"),
    (lambda: init.calculate_gain("leaky_relu", "x"), ValueError,
     "negative_slope x not a valid number"),
    (lambda: init.kaiming_uniform_(ferric.empty(3, 2), mode="x"), ValueError,
     r"Mode x not supported, please use one of \['fan_in', 'fan_out'\]"),
    (lambda: init.xavier_uniform_(ferric.empty(3)), ValueError,
     "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
    (lambda: init.eye_(ferric.empty(3)), ValueError,
     "Only tensors with 2 dimensions are supported"),
    (lambda: init.orthogonal_(ferric.empty(3)), ValueError,
     "Only tensors with 2 or more dimensions are supported"),
]


@pytest.mark.parametrize("call,exc,msg", INIT_ERRORS, ids=[str(i) for i in range(len(INIT_ERRORS))])
def test_init_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# ---------------------------------------------------------------------------- nn.utils


def _params_with_grads(grads):
    ps = []
    for g in grads:
        p = nn.Parameter(ferric.zeros(len(g)))
        p.grad = ferric.tensor(g)
        ps.append(p)
    return ps


def test_clip_grad_norm():
    ps = _params_with_grads([[3.0, 0.0], [0.0, 4.0, 0.0]])
    total = nn.utils.clip_grad_norm_(ps, 1.0)
    close(total, 5.0)
    assert total.dtype == ferric.float32 and total.dim() == 0
    close(ps[0].grad, [3 / (5 + 1e-6), 0.0])
    close(ps[1].grad, [0.0, 4 / (5 + 1e-6), 0.0])
    ps = _params_with_grads([[3.0, -4.0]])
    close(nn.utils.clip_grad_norm_(ps, 10.0), 5.0)
    close(ps[0].grad, [3.0, -4.0])  # below max_norm: unchanged
    ps = _params_with_grads([[3.0, -4.0], [1.0]])
    close(nn.utils.clip_grad_norm_(iter(ps), 1.0, norm_type="inf"), 4.0)
    close(ps[0].grad, [0.75, -1.0], rtol=1e-5)
    ps = _params_with_grads([[3.0, -4.0]])
    close(nn.utils.clip_grad_norm_(ps[0], 1.0, norm_type=1), 7.0)
    close(nn.utils.clip_grad_norm_([nn.Parameter(ferric.ones(2))], 1.0), 0.0)
    ps = _params_with_grads([[3.0, float("nan")]])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite"):
        nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    close(nn.utils.get_total_norm([ferric.tensor([3.0]), ferric.tensor([4.0])]), 5.0)


def test_clip_grad_value_and_vector_conversion():
    ps = _params_with_grads([[3.0, -0.5], [-4.0]])
    assert nn.utils.clip_grad_value_(ps, 1.0) is None
    close(ps[0].grad, [1.0, -0.5])
    close(ps[1].grad, [-1.0])
    m = nn.Linear(2, 2)
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == (6,) and vec.grad_fn is not None
    close(vec[:4], np_of(m.weight).reshape(-1))
    w = m.weight
    nn.utils.vector_to_parameters(ferric.arange(6.0), m.parameters())
    assert m.weight is w
    close(m.weight, [[0, 1], [2, 3]])
    close(m.bias, [4, 5])
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1], m.parameters())


def test_training_step_end_to_end():
    """A few SGD steps on a tiny regression problem reduce the loss."""
    ferric.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    x = f64(np.random.default_rng(0).uniform(-1, 1, (32, 2)))
    y = (x[:, :1] * 2 - x[:, 1:]).detach()
    loss_fn = nn.MSELoss()
    losses = []
    for _ in range(30):
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with ferric.no_grad():
            for p in model.parameters():
                p.sub_(p.grad * 0.1)
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


# ---------------------------------------------------------------------------- docstrings

DOC_MODULES = [
    "ferric.nn", "ferric.nn.parameter", "ferric.nn.functional", "ferric.nn._functional_loss",
    "ferric.nn.init", "ferric.nn.modules.module", "ferric.nn.modules.container",
    "ferric.nn.modules.linear", "ferric.nn.modules.activation", "ferric.nn.modules.loss",
    "ferric.nn.modules.conv", "ferric.nn.modules.pooling", "ferric.nn.modules.normalization",
    "ferric.nn.modules.batchnorm", "ferric.nn.modules.dropout", "ferric.nn.modules.sparse",
    "ferric.nn.modules.flatten", "ferric.nn.modules.rnn", "ferric.nn.utils.clip_grad",
    "ferric.nn.utils.rnn",
]


@pytest.mark.parametrize("name", DOC_MODULES)
def test_docstring_examples_run(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(mod, name):
        # only docstrings defined in this module (not re-exported objects)
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failing docstring example(s) in {name}"
