"""``ferric.func`` replayed against PyTorch 2.13's recorded ``torch.func``
(``tests/fixtures/func``): jacobians and hessians (tuple argnums, has_aux, pytree
outputs), grad/grad_and_value, vjp, jvp (double-vjp, exact), vmap with in_dims/out_dims
variants and nesting, per-sample gradients through ``vmap(grad(...))`` with
``functional_call``, ensembles through ``stack_module_state``, and the exception types
and messages for common misuse. Plus properties PyTorch's fixture cannot express:
gradcheck through the transforms, randomness modes, restoring parameters."""

from __future__ import annotations

import math

import pytest
from fixture_loader import Recording

import ferric
from ferric.func import functional_call, grad, jacrev, jvp, vjp, vmap

RECORDING = Recording("func", "func_cases", "func.json")
CASES = RECORDING.cases
STRUCTURE_MESSAGES = RECORDING.module.STRUCTURE_MESSAGES


def _same(got, want, path="r"):
    if isinstance(want, dict) and "shape" in want:
        assert isinstance(got, dict) and "shape" in got, f"{path}: {got!r}"
        assert got["shape"] == want["shape"], path
        assert got["dtype"] == want["dtype"], path
        assert got["requires_grad"] == want["requires_grad"], path
        for g, w in zip(got["values"], want["values"], strict=True):
            assert math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12), (path, g, w)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got["dict"]) == sorted(want["dict"]), path
        for k in want["dict"]:
            _same(got["dict"][k], want["dict"][k], f"{path}[{k!r}]")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{path}[{i}]")
    else:
        assert got == want, path


def test_fixture_is_pytorch_2_13():
    RECORDING.check_complete()


@pytest.mark.parametrize("name", sorted(CASES))
def test_func_matches_pytorch(name):
    want, got = RECORDING.replay(name, ferric)
    if "error" in want:
        assert "error" in got, f"no error; PyTorch raised {want['error']}"
        assert got["error"][0] == want["error"][0], got["error"]
        if name in STRUCTURE_MESSAGES:
            cut = want["error"][1].index("TreeSpec")
            assert got["error"][1][:cut] == want["error"][1][:cut]
        else:  # ferric's messages name its own Size class
            assert got["error"][1] == want["error"][1].replace("torch.Size", "ferric.Size")
        return
    assert "error" not in got, got.get("error")
    _same(got["result"], want["result"])


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jvp", "vjp", "vmap_grad"])
def test_transforms_are_differentiable(transform):
    """What a transform returns for inputs requiring grad carries the graph (gradcheck in
    float64 through it, i.e. a second derivative of the inner function)."""
    x = ferric.tensor([0.3, -0.8, 1.1], dtype=ferric.float64, requires_grad=True)

    def f(t):
        return (t.sin() * t ** 2).sum()

    def g(t):
        return t.exp() * t

    run = {
        "grad": lambda t: grad(f)(t),
        "jacrev": lambda t: jacrev(g)(t),
        "jvp": lambda t: jvp(g, (t,), (t.cos(),))[1],
        "vjp": lambda t: vjp(g, t)[1](t * 2)[0],
        "vmap_grad": lambda t: vmap(grad(lambda r: (r.sin() * r).sum()))(t.reshape(3, 1)),
    }[transform]
    assert ferric.autograd.gradcheck(run, (x,))


def test_randomness_modes():
    b = ferric.zeros(3, 2)
    ferric.manual_seed(0)
    same = vmap(lambda r: r + ferric.rand(2), randomness="same")(b)
    assert ferric.equal(same[0], same[1]) and ferric.equal(same[1], same[2])
    ferric.manual_seed(0)
    diff = vmap(lambda r: r + ferric.rand(2), randomness="different")(b)
    assert not ferric.equal(diff[0], diff[1])
    # no random draws: 'error' is fine
    assert vmap(lambda r: r * 2)(b).shape == (3, 2)


def test_functional_call_restores_after_error():
    lin = ferric.nn.Linear(3, 2)
    w, bias = lin.weight, lin.bias
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(lin, ({"weight": ferric.zeros(2, 3)}, {"weight": ferric.ones(2, 3)}),
                        (ferric.ones(3),))
    with pytest.raises(RuntimeError):
        functional_call(lin, {"weight": ferric.zeros(2, 4)}, (ferric.ones(3),))
    assert lin.weight is w and lin.bias is bias
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]


def test_per_sample_grads_equal_a_loop():
    ferric.manual_seed(1)
    model = ferric.nn.Sequential(ferric.nn.Linear(4, 5), ferric.nn.ReLU(),
                                 ferric.nn.Linear(5, 3))
    params = {k: v.detach() for k, v in model.named_parameters()}
    xs, ys = ferric.randn(6, 4), ferric.randint(0, 3, (6,))

    def loss(p, x, y):
        out = functional_call(model, p, (x.unsqueeze(0),))
        return ferric.nn.functional.cross_entropy(out, y.unsqueeze(0))

    batched = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
    for i in range(6):
        model.zero_grad()
        loss(dict(model.named_parameters()), xs[i], ys[i]).backward()
        for k, p in model.named_parameters():
            assert ferric.allclose(batched[k][i], p.grad, atol=1e-6), k
