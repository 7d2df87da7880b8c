"""Losses report PyTorch 2.13's backward node (``type(loss.grad_fn).__name__``): the
losses with a node of their own in PyTorch (``MseLossBackward0``, ...) and the ones
PyTorch composes from other ops (``l1_loss`` ends in ``MeanBackward0``), for every
reduction. Recorded by ``fixtures/loss_nodes/generate.py``."""

from __future__ import annotations

import json
import os
import sys
import warnings

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "loss_nodes")
sys.path.insert(0, HERE)

from loss_node_cases import CASES  # noqa: E402

with open(os.path.join(HERE, "pytorch_loss_nodes.json")) as _f:
    NODES = json.load(_f)["nodes"]


def _inputs():
    rng = np.random.default_rng(0)
    x = ferric.tensor(rng.uniform(0.05, 0.95, (4, 3)), requires_grad=True)
    y = ferric.tensor(rng.uniform(0.05, 0.95, (4, 3)))
    return x, y


def test_fixture_covers_the_cases():
    assert sorted(NODES) == sorted(CASES)


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_loss_node_name_as_in_pytorch(case_id):
    x, y = _inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = CASES[case_id](F, ferric, x, y)
    assert type(loss.grad_fn).__name__ == NODES[case_id]
    assert loss.grad_fn.name() == NODES[case_id]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


# d(loss.sum())/dx in NumPy, for losses whose result passes through a named node
GRADS = {
    "mse_loss-mean": lambda x, y: 2 * (x - y) / x.size,
    "binary_cross_entropy-none": lambda x, y: -(y / x - (1 - y) / (1 - x)),
    "soft_margin_loss-sum": lambda x, y: -(2 * y - 1) * _sigmoid(-(2 * y - 1) * x),
    "huber_loss-sum": lambda x, y: np.clip(x - y, -1, 1),
}


@pytest.mark.parametrize("case_id", sorted(GRADS))
def test_named_node_passes_the_gradient_through(case_id):
    x, y = _inputs()
    CASES[case_id](F, ferric, x, y).sum().backward()
    want = GRADS[case_id](x.detach().numpy(), y.numpy())
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-15)


def test_named_node_without_grad_is_the_input():
    t = ferric.ones(3)
    assert ferric._core._named_node(t, "MseLossBackward0") is not None
    assert ferric._core._named_node(t, "MseLossBackward0").grad_fn is None
