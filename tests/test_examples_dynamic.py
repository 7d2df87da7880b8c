"""Dynamic control flow: the examples that build a different graph on every call
(examples/dynamic_net.py, examples/tree_lstm.py) train, and a data-dependent loop is
differentiated exactly."""

import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ferric

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- a data-dependent while loop -------------------------------------------------------

def doubling_loop(x, limit=1000.0):
    """`while y.norm() < limit: y = y * 2`, returning y and the number of steps."""
    y, steps = x, 0
    while y.norm() < limit:
        y = y * 2
        steps += 1
    return y, steps


@pytest.mark.parametrize("start", [
    [0.5, -1.0, 2.0],
    [3.0],
    [[1e-3, 2e-3], [-4e-3, 0.0]],  # many doublings
    [2000.0, 1.0],  # already past the limit: zero steps, gradient 1
])
@pytest.mark.parametrize("dtype", [ferric.float32, ferric.float64])
def test_while_loop_gradient_is_analytic(start, dtype):
    x = ferric.tensor(start, dtype=dtype, requires_grad=True)
    y, steps = doubling_loop(x)
    a = np.asarray(start, dtype=np.float64)
    want_steps = 0
    while np.linalg.norm(a) * 2.0 ** want_steps < 1000:
        want_steps += 1
    assert steps == want_steps
    # loss = sum(y^2) = 4^k * sum(x^2): d loss / dx = 2 * 4^k * x
    (y ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 4.0 ** steps * a, rtol=1e-6)


def test_while_loop_gradient_layouts():
    """The loop over a transposed and a step-sliced view gives the same gradient."""
    base = ferric.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=ferric.float64,
                         requires_grad=True)
    for view in (base.t(), base[:, ::2]):
        base.grad = None
        y, steps = doubling_loop(view)
        y.sum().backward()
        mask = np.zeros((2, 3))
        if view.shape == (3, 2):
            mask[:] = 1
        else:
            mask[:, ::2] = 1
        np.testing.assert_allclose(base.grad.numpy(), mask * 2.0 ** steps)


def test_while_loop_gradcheck():
    """Between the points where the step count changes, the loop is smooth."""
    def f(x):
        return doubling_loop(x * x + x.sin())[0]

    x = ferric.tensor([0.3, -0.7, 1.1], dtype=ferric.float64, requires_grad=True)
    assert ferric.autograd.gradcheck(f, (x,))


def test_shared_layer_used_a_random_number_of_times_gets_summed_gradients():
    """A layer applied k times gets the sum of k gradient contributions (gradcheck)."""
    torch = ferric
    w = torch.randn(3, 3, dtype=torch.float64) * 0.5
    w.requires_grad_(True)
    x = torch.randn(2, 3, dtype=torch.float64)

    for depth in range(4):
        def f(w, depth=depth):
            h = x
            for _ in range(depth):
                h = torch.tanh(h @ w)
            return h

        if depth:
            assert torch.autograd.gradcheck(f, (w,))


# --- the examples ---------------------------------------------------------------------

def test_dynamic_net_learns_at_every_depth():
    mod = load("dynamic_net")
    r = mod.main(["--steps", "250", "--log-every", "0", "--seed", "1"])
    assert r["depths_seen"] == [0, 1, 2, 3]
    assert r["final_loss"] < 0.1 * r["first_loss"]
    # one set of weights serves every depth
    assert max(r["per_depth"]) < 0.5 * r["first_loss"]


def test_dynamic_net_depth_changes_the_graph():
    mod = load("dynamic_net")
    import random

    model = mod.DynamicNet(8, 3, random.Random(0))
    x = ferric.ones(4, 1)
    sizes = []
    for depth in range(4):
        seen, stack = set(), [model(x, depth=depth).grad_fn]
        while stack:
            fn = stack.pop()
            if fn not in seen:
                seen.add(fn)
                stack.extend(f for f, _ in fn.next_functions if f is not None)
        sizes.append(len(seen))
    # each pass through the shared layer adds the same ops; only the first adds its two
    # leaves (weight and bias each have one AccumulateGrad node however often used)
    steps = [b - a for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    assert steps[1] == steps[2] > 0 and steps[0] == steps[1] + 2, sizes


def test_tree_lstm_accuracy_improves():
    mod = load("tree_lstm")
    r = mod.main(["--epochs", "3", "--train-size", "150", "--test-size", "100",
                  "--max-depth", "2", "--batch-size", "8", "--quiet", "--seed", "0"])
    acc, loss = r["accuracy"], r["loss"]
    assert len(acc) == 4 and len(loss) == 3
    assert loss[-1] < loss[0]
    assert acc[-1] >= 0.85 and acc[-1] >= acc[0] + 0.3, acc


def test_tree_lstm_trees_have_different_shapes():
    mod = load("tree_lstm")
    import random

    data = mod.make_dataset(random.Random(0), 50, 3)
    assert len({str(t) for t, _ in data}) > 40
    assert len({t.size() for t, _ in data}) > 5
    for t, y in data:
        assert y == int(t.sentiment() > 0) and t.sentiment() != 0
    # the rule: "not" flips its subtree
    tree = mod.Tree("<not>", [mod.Tree("<and>", [mod.Tree("good"), mod.Tree("great")])])
    assert tree.sentiment() == -2


@pytest.mark.parametrize("name, option", [("dynamic_net", "--max-depth"),
                                          ("tree_lstm", "--epochs")])
def test_example_help(name, option):
    r = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), "--help"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout and option in r.stdout and "--seed" in r.stdout


def test_dynamic_net_runs_as_a_script():
    r = subprocess.run([sys.executable, str(EXAMPLES / "dynamic_net.py"), "--steps", "20",
                        "--log-every", "10"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, r.stderr
    losses = [float(line.split()[-1]) for line in r.stdout.splitlines()
              if line.startswith("step")]
    assert len(losses) == 2 and all(math.isfinite(v) for v in losses)


def test_tree_lstm_autobatch_prints_the_same_numbers():
    mod = load("tree_lstm")
    argv = ["--epochs", "1", "--train-size", "60", "--test-size", "40", "--max-depth", "2",
            "--batch-size", "8", "--quiet", "--seed", "1"]
    eager, batched = mod.main(argv), mod.main(argv + ["--autobatch"])
    assert batched["accuracy"] == eager["accuracy"]
    assert batched["loss"] == pytest.approx(eager["loss"], rel=1e-5)


def test_bilstm_tagger_modes_agree_and_learn():
    mod = load("bilstm_tagger")
    argv = ["--steps", "16", "--batch-size", "12", "--quiet"]
    runs = {m: mod.main(argv + ["--mode", m]) for m in ("eager", "autobatch", "packed")}
    for m in ("autobatch", "packed"):
        assert runs[m]["loss"] == pytest.approx(runs["eager"]["loss"], rel=1e-4), m
    assert runs["eager"]["loss"][-1] < runs["eager"]["loss"][0] * 0.8


def test_dynamic_net_whole_script_inside_a_region():
    """An unmodified script (reads values with .item() every step, optimizer steps,
    evaluation under no_grad) inside one region gives the eager numbers exactly."""
    mod = load("dynamic_net")
    argv = ["--steps", "25"]
    eager = mod.main(argv)
    with ferric.autobatch() as ab:
        batched = mod.main(argv)
    assert batched == eager
    assert ab.stats()["evaluations"] > 25
