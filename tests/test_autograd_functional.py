"""``ferric.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp): values,
nesting of tuple inputs/outputs, detaching, ``strict`` and the error types compared with
PyTorch 2.13 (``fixtures/extra_ops/autograd_functional.json``), plus finite-difference
checks of the Jacobian and Hessian and ``create_graph`` double differentiation."""

from __future__ import annotations

import numpy as np
import pytest
from _fixture_compare import assert_same_case
from fixture_loader import Recording

import ferric
from ferric.autograd import functional as AF

RECORDING = Recording("extra_ops", "autograd_functional_cases", "autograd_functional.json")
CASES = RECORDING.cases


def test_fixture_is_from_pytorch_2_13_and_matches_the_cases():
    RECORDING.check_complete()


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_same_case(*RECORDING.replay(name, ferric), name)


def _fd_jacobian(f, x, eps=1e-6):
    """Central differences: ``J[i, j] = d f(x)_i / d x_j`` for a NumPy function."""
    cols = []
    for j in range(x.size):
        d = np.zeros_like(x)
        d.flat[j] = eps
        cols.append(((f(x + d) - f(x - d)) / (2 * eps)).ravel())
    return np.stack(cols, 1)


FUNCS = [
    ("sin-square", lambda t: t.sin() * t ** 2, lambda a: np.sin(a) * a ** 2),
    ("matmul-tanh", lambda t: (t.reshape(2, 2) @ t.reshape(2, 2)).tanh(),
     lambda a: np.tanh(a.reshape(2, 2) @ a.reshape(2, 2))),
    ("softmax", lambda t: t.softmax(0), lambda a: np.exp(a) / np.exp(a).sum()),
]


@pytest.mark.parametrize("f, ref", [pytest.param(f, r, id=n) for n, f, r in FUNCS])
def test_jacobian_matches_finite_differences(f, ref):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    got = AF.jacobian(f, ferric.tensor(x, dtype=ferric.float64))
    want = _fd_jacobian(ref, x).reshape(got.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, ref", [pytest.param(f, r, id=n) for n, f, r in FUNCS])
def test_hessian_and_products_agree(f, ref):
    x = ferric.tensor([0.3, -0.7, 1.1, 0.5], dtype=ferric.float64)
    v = ferric.tensor([1.0, -0.5, 0.25, 2.0], dtype=ferric.float64)

    def scalar(t):
        return (f(t) ** 2).sum()

    h = AF.hessian(scalar, x)
    np.testing.assert_allclose(h.numpy(), h.numpy().T, rtol=1e-10, atol=1e-12)
    _, hv = AF.hvp(scalar, x, v)
    _, vh = AF.vhp(scalar, x, v)
    np.testing.assert_allclose(hv.numpy(), h.numpy() @ v.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(vh.numpy(), v.numpy() @ h.numpy(), rtol=1e-9, atol=1e-12)
    j = AF.jacobian(f, x).reshape(-1, 4)
    _, jv = AF.jvp(f, x, v)
    _, vj = AF.vjp(f, x, ferric.ones_like(f(x)))
    np.testing.assert_allclose(jv.reshape(-1).numpy(), j.numpy() @ v.numpy(), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(vj.numpy(), j.numpy().sum(0), rtol=1e-9,
                               atol=1e-12)


def test_create_graph_allows_third_derivatives():
    x = ferric.tensor([0.5, 1.5], dtype=ferric.float64, requires_grad=True)
    h = AF.hessian(lambda t: (t ** 4).sum(), x, create_graph=True)
    (g,) = ferric.autograd.grad(h.sum(), x)
    np.testing.assert_allclose(g.numpy(), 24 * x.detach().numpy())


def test_inputs_are_not_modified_and_need_no_grad():
    x = ferric.tensor([1.0, 2.0])
    AF.jacobian(lambda t: t * 3, x)
    assert not x.requires_grad and x.grad is None and x.tolist() == [1.0, 2.0]
