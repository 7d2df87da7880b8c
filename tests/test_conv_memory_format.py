"""Convolutions and 2-d pools return channels-last results for channels-last operands.

PyTorch picks the result's memory format from its operands' `suggest_memory_format()`:
channels-last when the input's (or, for convolutions, the weight's) strides order the dims
N, H, W, C, dense or not, except in the ambiguous layouts (one channel, 1x1 planes) where
NCHW and NHWC strides coincide. The expected strides below were taken from PyTorch 2.15
(the last test compares with PyTorch itself when it is installed). Values and gradients
must not depend on the layout.
"""

from __future__ import annotations

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F


def cl(t):
    return t.contiguous(memory_format=ferric.channels_last)


def rand(*shape, seed=0):
    return ferric.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


X = rand(2, 3, 8, 8)
W = rand(4, 3, 3, 3, seed=1)
WT = rand(3, 4, 3, 3, seed=2)

CASES = [
    # (name, call, expected strides)
    ("conv2d, CL input", lambda: F.conv2d(cl(X), W), (144, 1, 24, 4)),
    ("conv2d, CL input, float64", lambda: F.conv2d(cl(X).double(), W.double()), (144, 1, 24, 4)),
    ("conv2d, CL weight", lambda: F.conv2d(X, cl(W)), (144, 1, 24, 4)),
    ("conv2d, NCHW", lambda: F.conv2d(X, W), (144, 36, 6, 1)),
    ("conv_transpose2d, CL input", lambda: F.conv_transpose2d(cl(X), WT), (400, 1, 40, 4)),
    ("conv_transpose2d, CL weight", lambda: F.conv_transpose2d(X, cl(WT)), (400, 1, 40, 4)),
    ("max_pool2d", lambda: F.max_pool2d(cl(X), 2), (48, 1, 12, 3)),
    ("max_pool2d indices", lambda: F.max_pool2d(cl(X), 2, return_indices=True)[1], (48, 1, 12, 3)),
    ("avg_pool2d", lambda: F.avg_pool2d(cl(X), 2), (48, 1, 12, 3)),
    ("adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(cl(X), 3), (27, 1, 9, 3)),
    ("adaptive_max_pool2d", lambda: F.adaptive_max_pool2d(cl(X), 3), (27, 1, 9, 3)),
    # strides like channels-last without being dense still count
    ("max_pool2d, sliced CL", lambda: F.max_pool2d(cl(X)[:, :, ::2, :], 2), (24, 1, 12, 3)),
    ("conv2d, sliced CL", lambda: F.conv2d(cl(X)[:, :, ::2, :], rand(4, 3, 1, 1)), (128, 1, 32, 4)),
    # ambiguous layouts stay NCHW
    ("conv2d, one channel",
     lambda: F.conv2d(cl(rand(2, 1, 4, 4)), rand(4, 1, 1, 1)), (64, 16, 4, 1)),
    ("max_pool2d, one channel", lambda: F.max_pool2d(cl(rand(2, 1, 4, 4)), 1), (16, 16, 4, 1)),
    ("conv2d, 1x1 planes", lambda: F.conv2d(cl(rand(2, 3, 1, 1)), rand(4, 3, 1, 1)), (4, 1, 1, 1)),
    ("conv2d, batch of one",
     lambda: F.conv2d(cl(rand(1, 3, 4, 4)), rand(4, 3, 1, 1)), (64, 1, 16, 4)),
]


@pytest.mark.parametrize("name,call,strides", CASES, ids=[c[0] for c in CASES])
def test_result_strides_follow_pytorch(name, call, strides):
    assert call().stride() == strides


def test_values_and_gradients_do_not_depend_on_the_layout():
    def run(x):
        x = x.clone().requires_grad_(True)
        w = W.clone().requires_grad_(True)
        y = F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2)
        y = F.adaptive_avg_pool2d(F.avg_pool2d(y, 2), 1)
        (y * rand(*y.shape, seed=5)).sum().backward()
        return x, (y.detach().numpy(), x.grad.numpy(), w.grad.numpy())

    _, want = run(X)
    x, got = run(cl(X))
    assert x.grad.stride() == x.stride()  # the leaf's layout, as in PyTorch
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_module_to_channels_last_gives_channels_last_activations():
    conv = ferric.nn.Conv2d(3, 4, 3, padding=1).to(memory_format=ferric.channels_last)
    y = conv(X)  # the weight alone decides
    assert y.is_contiguous(memory_format=ferric.channels_last) and not y.is_contiguous()


def test_strides_match_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional

    def tcl(t):
        return torch.from_numpy(t.numpy().copy()).contiguous(memory_format=torch.channels_last)

    def tt(t):
        return torch.from_numpy(t.numpy().copy())

    pairs = [
        (F.conv2d(cl(X), W), tf.conv2d(tcl(X), tt(W))),
        (F.conv2d(X, cl(W)), tf.conv2d(tt(X), tcl(W))),
        (F.conv_transpose2d(cl(X), WT), tf.conv_transpose2d(tcl(X), tt(WT))),
        (F.max_pool2d(cl(X), 3, 2, 1), tf.max_pool2d(tcl(X), 3, 2, 1)),
        (F.avg_pool2d(cl(X)[:, :, 1:, ::2], 2), tf.avg_pool2d(tcl(X)[:, :, 1:, ::2], 2)),
        (F.adaptive_avg_pool2d(cl(X).permute(0, 1, 3, 2), 5),
         tf.adaptive_avg_pool2d(tcl(X).permute(0, 1, 3, 2), 5)),
    ]
    for ours, theirs in pairs:
        assert ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
