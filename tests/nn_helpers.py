"""Helpers shared by the tests/test_nn_*.py files and other autograd tests (not a test
module itself)."""

from __future__ import annotations

import numpy as np

import ferric
from ferric.autograd import gradcheck


def f64(a, requires_grad=False):
    return ferric.tensor(np.asarray(a, dtype=np.float64), dtype=ferric.float64,
                         requires_grad=requires_grad)


def rand(shape, seed=0, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


def np_of(t):
    return t.detach().numpy()


def close(actual, expected, rtol=1e-5, atol=1e-6):
    a = np_of(actual) if isinstance(actual, ferric.Tensor) else np.asarray(actual)
    np.testing.assert_allclose(a, expected, rtol=rtol, atol=atol)


def module_gradcheck(module, *inputs, out=None, atol=1e-5):
    """gradcheck w.r.t. the float inputs that require grad and every parameter of
    ``module`` (already in float64). The parameters are passed to gradcheck as inputs, so
    its in-place perturbations reach the module."""
    params = [p for p in module.parameters() if p.requires_grad]
    n = len(inputs)

    def fn(*args):
        res = module(*args[:n])
        return out(res) if out is not None else res

    assert gradcheck(fn, (*inputs, *params), atol=atol)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_layer_norm(x, dims, w=None, b=None, eps=1e-5):
    axes = tuple(range(-dims, 0))
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def np_mha(q, k, v, w_in, b_in, w_out, b_out, heads, attn_mask=None, kpm=None):
    """Sequence-first (L, N, E) multi-head attention; returns (out, per-head weights).
    ``attn_mask`` is an additive float (L, S) mask; ``kpm`` a bool (N, S) padding mask."""
    L, N, E = q.shape
    S = k.shape[0]
    hd = E // heads
    wq, wk, wv = np.split(w_in, 3)
    bq, bk, bv = np.split(b_in, 3)
    qp, kp, vp = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv

    def heads_of(x, n):
        return x.reshape(n, N, heads, hd).transpose(1, 2, 0, 3)  # N, H, len, hd

    Q, K, V = heads_of(qp, L), heads_of(kp, S), heads_of(vp, S)
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(hd)
    if attn_mask is not None:
        scores = scores + attn_mask
    if kpm is not None:
        scores = np.where(kpm[:, None, None, :], -np.inf, scores)
    w = np_softmax(scores)
    o = (w @ V).transpose(2, 0, 1, 3).reshape(L, N, E)
    return o @ w_out.T + b_out, w


class Fn(ferric.nn.Module):
    """A module whose forward is ``fn`` (for ops that are not layers)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Square(ferric.autograd.Function):
    """A custom autograd function: ``x * x``, saving ``x`` for its backward ``2 * x * g``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class WrongGradient(ferric.autograd.Function):
    """A custom autograd function with a wrong backward: forward ``2 * x``, backward
    ``3 * g`` (gradcheck must report it)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3
