"""``nn.utils.parametrize`` and the parametrizations (``weight_norm``, ``spectral_norm``,
``orthogonal``) plus the legacy ``nn.utils.weight_norm``/``spectral_norm``, against
PyTorch 2.13 (tests/fixtures/parametrize, recorded by its generate.py; PyTorch is not
needed here): outputs, parametrized weights, state dicts (keys and values, including the
seeded power-iteration vectors) and the gradients of every parameter; then the
parametrize mechanics (class swap, caching, chaining, removal, assignment, errors) and
float64 gradcheck of each map.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pytest

import ferric
from ferric import nn
from ferric.autograd import gradcheck
from ferric.nn.utils import parametrizations as P
from ferric.nn.utils import parametrize

FIXTURE = json.loads(
    (pathlib.Path(__file__).parent / "fixtures/parametrize/parametrize.json").read_text())


def _t(values, shape=None):
    t = ferric.tensor(np.asarray(values, dtype=np.float64))
    return t.reshape(shape) if shape is not None else t


def _close(actual, expected, what, tol=1e-10):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64).ravel(),
                               np.asarray(expected, dtype=np.float64).ravel(),
                               rtol=tol, atol=tol, err_msg=what)


def _build(case):
    out_f, in_f = case["shape"]
    m = nn.Linear(in_f, out_f).double()
    with ferric.no_grad():
        m.weight.copy_(_t(case["weight"], (out_f, in_f)))
        m.bias.copy_(_t(case["bias"]))
    ferric.manual_seed(123)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return eval(case["call"], {"P": P, "nn": nn, "m": m})


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["name"])
def test_matches_pytorch(case):
    m = _build(case)
    assert type(m).__name__ == case["class"]
    assert repr(m) == case["repr"]
    state = m.state_dict()
    assert list(state) == list(case["initial_state"])
    for k, want in case["initial_state"].items():
        # orthogonal's base completes a tall matrix with random columns: not comparable
        if not k.endswith(".base"):
            _close(state[k].tolist(), want, f"initial {k}")
    x = _t(case["x"], (2, case["shape"][1]))
    y = m(x)
    _close(y.tolist(), case["out"], "output")
    y.backward(_t(case["upstream"], tuple(y.shape)))
    _close(m.weight.tolist(), case["param_weight"], "weight")
    for k, want in case["state"].items():
        _close(m.state_dict()[k].tolist(), want, k)
    grads = {k: p.grad for k, p in m.named_parameters()}
    assert list(grads) == list(case["grads"])
    for k, want in case["grads"].items():
        _close(grads[k].tolist(), want, f"grad {k}", tol=1e-9)


def test_assignment_goes_through_right_inverse():
    rec = FIXTURE["assign"]
    m = P.orthogonal(nn.Linear(4, 4).double())
    m.weight = _t(rec["assigned"], (4, 4))
    _close(m.weight.tolist(), rec["weight"], "assigned weight")


def test_fixture_version():
    assert FIXTURE["torch_version"].startswith("2.13")


class _Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).mT


class _Scale(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * self.k

    def right_inverse(self, x):
        return x / self.k


def test_register_remove_and_class_swap():
    m = nn.Linear(3, 3)
    w = m.weight
    parametrize.register_parametrization(m, "weight", _Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert m.parametrizations.weight.original is w  # same Parameter object
    assert ferric.equal(m.weight, m.weight.mT)
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and m.weight is w
    assert ferric.equal(w, w.mT)  # left parametrized
    assert not hasattr(m, "parametrizations")


def test_remove_without_leaving_parametrized_restores_original():
    m = nn.Linear(3, 3)
    before = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", _Scale(2.0))
    assert ferric.allclose(m.weight, before)  # right_inverse made original = w / 2
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert ferric.allclose(m.weight, before / 2)


def test_chaining_assignment_and_cache():
    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", _Scale(2.0))
    parametrize.register_parametrization(m, "weight", _Scale(3.0))
    target = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
    m.weight = target
    assert ferric.allclose(m.weight, target)
    assert ferric.allclose(m.parametrizations.weight.original, target / 6)
    assert m.weight is not m.weight
    with parametrize.cached():
        assert m.weight is m.weight
    out = m(ferric.ones(1, 2))
    out.sum().backward()
    assert m.parametrizations.weight.original.grad is not None


def test_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(m, "nope", _Symmetric())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(m, "weight")

    class Shape(nn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(m, "weight", Shape())
    assert type(m) is nn.Linear  # a failed registration changes nothing
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        P.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    with pytest.raises(ValueError, match="Expected a matrix"):
        P.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        P.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))


def test_legacy_weight_norm_state_dict_loads_into_parametrization():
    with pytest.warns(FutureWarning):
        old = nn.utils.weight_norm(nn.Linear(3, 2))
    new = P.weight_norm(nn.Linear(3, 2))
    new.load_state_dict(old.state_dict())
    x = ferric.randn(4, 3)
    assert ferric.allclose(new(x), old(x))


@pytest.mark.parametrize("mode", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (2, 4)])
def test_orthogonal_is_orthogonal_and_trains(mode, shape):
    ferric.manual_seed(0)
    m = P.orthogonal(nn.Linear(shape[1], shape[0]).double(), orthogonal_map=mode)
    opt = ferric.optim.SGD(m.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        m(ferric.randn(3, shape[1], dtype=ferric.float64)).pow(2).sum().backward()
        opt.step()
    q = m.weight
    small = min(shape)
    gram = q.mT @ q if shape[0] >= shape[1] else q @ q.mT
    assert float((gram - ferric.eye(small, dtype=ferric.float64)).abs().max()) < 1e-10


@pytest.mark.parametrize("name", ["weight_norm", "spectral_norm", "orthogonal_exp",
                                  "orthogonal_cayley", "orthogonal_house"])
def test_gradcheck(name):
    ferric.manual_seed(1)
    lin = nn.Linear(3, 3).double()
    if name == "weight_norm":
        mod = P._WeightNorm(0)
        args = mod.right_inverse(lin.weight.detach())
    elif name == "spectral_norm":
        mod = P._SpectralNorm(lin.weight.detach()).eval()
        args = (lin.weight.detach(),)
    else:
        maps = {"orthogonal_exp": P._OrthMaps.matrix_exp,
                "orthogonal_cayley": P._OrthMaps.cayley,
                "orthogonal_house": P._OrthMaps.householder}
        mod = P._Orthogonal(lin.weight, maps[name], use_trivialization=False)
        args = (ferric.randn(3, 3, dtype=ferric.float64) * 0.5,)
    inputs = tuple(a.detach().clone().requires_grad_(True) for a in args)
    assert gradcheck(lambda *a: mod(*a), inputs)
