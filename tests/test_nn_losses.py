"""Loss functions and modules against NumPy, with every reduction, weights, ignore_index,
label smoothing and probability targets; gradchecks in float64; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import close, f64, np_softmax, rand

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.autograd import gradcheck

RED = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


X = rand((6, 5), 1, -3, 3)
Y = rand((6, 5), 2, -3, 3)
P = np_softmax(rand((6, 5), 3), 1)
W = rand(5, 4, 0.2, 1.5)
T = np.array([0, 4, 2, -100, 1, 4])
T_OK = np.array([0, 4, 2, 3, 1, 4])


def _huber(d, delta):
    a = np.abs(d)
    return np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))


def _sl1(d, beta):
    a = np.abs(d)
    return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


POINTWISE = [
    ("mse", nn.MSELoss, {}, lambda x, y: (x - y) ** 2),
    ("l1", nn.L1Loss, {}, lambda x, y: np.abs(x - y)),
    ("huber", nn.HuberLoss, {"delta": 0.7}, lambda x, y: _huber(x - y, 0.7)),
    ("smooth_l1", nn.SmoothL1Loss, {"beta": 0.5}, lambda x, y: _sl1(x - y, 0.5)),
    ("smooth_l1_beta0", nn.SmoothL1Loss, {"beta": 0.0}, lambda x, y: np.abs(x - y)),
    ("soft_margin", nn.SoftMarginLoss, {}, lambda x, y: np.log1p(np.exp(-np.sign(y) * x))),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,cls,kw,ref", POINTWISE, ids=[p[0] for p in POINTWISE])
def test_pointwise_losses(name, cls, kw, ref, reduction):
    target = np.sign(Y) if name == "soft_margin" else Y
    loss = cls(reduction=reduction, **kw)
    close(loss(f64(X), f64(target)), RED[reduction](ref(X, target)))
    x = f64(X[:2, :3], requires_grad=True)
    assert gradcheck(lambda a: loss(a, f64(target[:2, :3])), (x,))


def test_weighted_pointwise_and_broadcast_warning():
    w = rand((6, 5), 5, 0.1, 1.0)
    close(F.mse_loss(f64(X), f64(Y), weight=f64(w)), ((X - Y) ** 2 * w).sum() / w.sum())
    close(F.huber_loss(f64(X), f64(Y), reduction="sum", weight=f64(w)),
          (_huber(X - Y, 1) * w).sum())
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        F.mse_loss(f64(X), f64(Y), weight=f64(w[0]))
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.mse_loss(f64(X[:, :1]), f64(Y[:, 0]))
    close(out, ((X[:, :1] - Y[:, 0]) ** 2).mean())


def test_legacy_size_average_reduce():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        m = nn.MSELoss(size_average=False)
    assert m.reduction == "sum"
    with pytest.warns(UserWarning):
        assert nn.L1Loss(reduce=False).reduction == "none"


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_class_indices(reduction):
    logp = np_log_softmax(X, 1)
    valid = T != -100
    picked = -logp[np.arange(6), np.where(valid, T, 0)] * valid
    ref = {"mean": picked.sum() / valid.sum(), "sum": picked.sum(), "none": picked}[reduction]
    close(F.cross_entropy(f64(X), ferric.tensor(T), reduction=reduction), ref)
    # class weights: the mean divides by the weights of the counted targets
    wt = W[np.where(valid, T, 0)] * valid
    refw = {"mean": (picked * wt).sum() / wt.sum(), "sum": (picked * wt).sum(),
            "none": picked * wt}[reduction]
    close(nn.CrossEntropyLoss(weight=f64(W), reduction=reduction)(f64(X), ferric.tensor(T)), refw)
    # NLLLoss on log-probabilities is the same thing
    close(nn.NLLLoss(weight=f64(W), reduction=reduction)(f64(logp), ferric.tensor(T)), refw)


def test_cross_entropy_label_smoothing_and_ignore_index():
    ls = 0.2
    logp = np_log_softmax(X, 1)
    valid = T != -100
    safe = np.where(valid, T, 0)
    nll = -logp[np.arange(6), safe] * W[safe] * valid
    smooth = -(logp * W).sum(1) * valid
    denom = (W[safe] * valid).sum()
    ref = (1 - ls) * nll.sum() / denom + ls / 5 * smooth.sum() / denom
    close(F.cross_entropy(f64(X), ferric.tensor(T), weight=f64(W), label_smoothing=ls), ref)
    nll_u = -logp[np.arange(6), safe] * valid
    smooth_u = -logp.sum(1) * valid
    ref_sum = (1 - ls) * nll_u.sum() + ls / 5 * smooth_u.sum()
    close(F.cross_entropy(f64(X), ferric.tensor(T), label_smoothing=ls, reduction="sum"), ref_sum)
    ign = F.cross_entropy(f64(X), ferric.tensor(T_OK), ignore_index=4, reduction="none")
    assert np.all(np.asarray(ign.tolist())[T_OK == 4] == 0)
    x = f64(X[:3, :4], requires_grad=True)
    assert gradcheck(lambda a: F.cross_entropy(a, ferric.tensor([0, 3, 1]), weight=f64(W[:4]),
                                               label_smoothing=0.1), (x,))


def test_cross_entropy_probabilities_and_dims():
    ls = 0.3
    logp = np_log_softmax(X, 1)
    tgt = P * (1 - ls) + ls / 5
    ref = -(logp * tgt * W).sum() / 6
    close(F.cross_entropy(f64(X), f64(P), weight=f64(W), label_smoothing=ls), ref)
    close(F.cross_entropy(f64(X), f64(P), reduction="none"), -(logp * P).sum(1))
    # (N, C, d) input with (N, d) targets; unbatched (C,) input with a 0-d target
    x3 = X.reshape(2, 5, 3)
    t3 = np.array([[0, 1, 2], [3, 4, 0]])
    l3 = np_log_softmax(x3, 1)
    ref3 = -np.mean([l3[n, t3[n, d], d] for n in range(2) for d in range(3)])
    close(F.cross_entropy(f64(x3), ferric.tensor(t3)), ref3)
    close(F.cross_entropy(f64(X[0]), ferric.tensor(3)), -np_log_softmax(X[0], 0)[3])
    x = f64(P[:2, :3], requires_grad=True)
    assert gradcheck(lambda a: F.cross_entropy(f64(X[:2, :3]), a), (x,))


def test_cross_entropy_stable_for_large_logits():
    big = f64([[1000.0, 0.0], [-1000.0, 1000.0]])
    close(F.cross_entropy(big, ferric.tensor([0, 0])), 1000.0)
    out = F.binary_cross_entropy_with_logits(f64([1000.0, -1000.0]), f64([0.0, 1.0]),
                                             reduction="none")
    close(out, [1000.0, 1000.0])


def test_binary_cross_entropy():
    x = 1 / (1 + np.exp(-X))
    ref = -(P * np.log(x) + (1 - P) * np.log(1 - x))
    close(F.binary_cross_entropy(f64(x), f64(P), reduction="none"), ref)
    close(nn.BCELoss(weight=f64(W))(f64(x), f64(P)), (ref * W).mean())
    # log is clamped at -100, so exact 0/1 inputs stay finite
    close(F.binary_cross_entropy(f64([0.0, 1.0]), f64([1.0, 0.0]), reduction="sum"), 200.0)
    a = f64(x[:2, :3], requires_grad=True)
    assert gradcheck(lambda t: F.binary_cross_entropy(t, f64(P[:2, :3])), (a,))


def test_binary_cross_entropy_with_logits():
    sig = 1 / (1 + np.exp(-X))
    pw = rand(5, 6, 0.5, 3.0)
    ref = -(pw * P * np.log(sig) + (1 - P) * np.log(1 - sig))
    close(nn.BCEWithLogitsLoss(pos_weight=f64(pw), reduction="none")(f64(X), f64(P)), ref)
    close(F.binary_cross_entropy_with_logits(f64(X), f64(P), weight=f64(W), reduction="sum"),
          (-(P * np.log(sig) + (1 - P) * np.log(1 - sig)) * W).sum())
    a = f64(X[:2, :3], requires_grad=True)
    assert gradcheck(lambda t: F.binary_cross_entropy_with_logits(
        t, f64(P[:2, :3]), pos_weight=f64(pw[:3])), (a,))


def test_kl_div():
    logq = np_log_softmax(X, 1)
    ref = P * (np.log(P) - logq)
    close(F.kl_div(f64(logq), f64(P), reduction="none"), ref)
    close(nn.KLDivLoss(reduction="batchmean")(f64(logq), f64(P)), ref.sum() / 6)
    close(F.kl_div(f64(logq), f64(np.log(P)), reduction="sum", log_target=True), ref.sum())
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss"):
        close(F.kl_div(f64(logq), f64(P)), ref.mean())
    zero_t = P.copy()
    zero_t[:, 0] = 0
    close(F.kl_div(f64(logq), f64(zero_t), reduction="none")[:, 0], np.zeros(6))
    a = f64(logq[:2, :3], requires_grad=True)
    b = f64(P[:2, :3], requires_grad=True)
    assert gradcheck(lambda u, v: F.kl_div(u, v, reduction="batchmean"), (a, b))


def test_other_losses():
    close(F.poisson_nll_loss(f64(X), f64(np.abs(Y))), (np.exp(X) - np.abs(Y) * X).mean())
    var = rand((6, 5), 7, 0.1, 1.0)
    close(F.gaussian_nll_loss(f64(X), f64(Y), f64(var)),
          (0.5 * (np.log(var) + (X - Y) ** 2 / var)).mean())
    y = np.sign(Y[:, 0])
    close(F.margin_ranking_loss(f64(X[:, 0]), f64(X[:, 1]), f64(y), margin=0.2),
          np.maximum(0, -y * (X[:, 0] - X[:, 1]) + 0.2).mean())
    close(F.hinge_embedding_loss(f64(X), f64(np.sign(Y))),
          np.where(np.sign(Y) == 1, X, np.maximum(0, 1 - X)).mean())
    cos = (X * Y).sum(1) / np.sqrt((X * X).sum(1) * (Y * Y).sum(1))
    close(F.cosine_embedding_loss(f64(X), f64(Y), f64(y), margin=0.1),
          np.where(y == 1, 1 - cos, np.maximum(0, cos - 0.1)).mean(), rtol=1e-5)


ERRORS = [
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0, 12, 1])), IndexError,
     "Target 12 is out of bounds."),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0, -3, 1])), IndexError,
     "Target -3 is out of bounds."),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0, 1])), ValueError,
     r"Expected input batch_size \(3\) to match target batch_size \(2\)."),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0.0, 1, 1])), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.zeros(3, 5, dtype=ferric.int64)),
     RuntimeError, "Expected floating point type for target with class probabilities, got Long"),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0, 1, 1]), reduction="bad"),
     ValueError, "bad is not a valid value for reduction"),
    (lambda: nn.CrossEntropyLoss(reduction="avg")(ferric.randn(3, 5), ferric.tensor([0, 1, 1])),
     ValueError, "avg is not a valid value for reduction"),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0, 1, 1]), label_smoothing=1.5),
     RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    (lambda: F.cross_entropy(ferric.randn(3, 5), ferric.tensor([0, 1, 1]), weight=ferric.ones(3)),
     RuntimeError, "weight tensor should be defined either for all 5 classes or no classes but "
                   r"got weight tensor of shape: \[3\]"),
    (lambda: F.cross_entropy(ferric.randn(2, 5, 4), ferric.zeros(2, 3, dtype=ferric.int64)),
     RuntimeError, r"Expected target size \[2, 4\], got \[2, 3\]"),
    (lambda: F.nll_loss(ferric.randn(()), ferric.tensor(0)), ValueError,
     r"Expected 1 or more dimensions \(got 0\)"),
    (lambda: F.smooth_l1_loss(ferric.ones(2), ferric.ones(2), beta=-1), RuntimeError,
     "smooth_l1_loss does not support negative values for beta."),
    (lambda: F.huber_loss(ferric.ones(2), ferric.ones(2), delta=0), RuntimeError,
     "huber_loss does not support non-positive values for delta."),
    (lambda: F.mse_loss(ferric.ones(2), ferric.ones(2), reduction="max"), ValueError,
     "max is not a valid value for reduction"),
    (lambda: F.binary_cross_entropy(ferric.rand(3), ferric.rand(3, 1)), ValueError,
     "Using a target size .* that is different to the input size .* is deprecated"),
    (lambda: F.binary_cross_entropy(ferric.tensor([1.5]), ferric.rand(1)), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy_with_logits(ferric.rand(3), ferric.rand(3, 1)), ValueError,
     r"Target size \(ferric.Size\(\[3, 1\]\)\) must be the same as input size"),
    (lambda: F.kl_div(ferric.rand(3), ferric.rand(3), reduction="x"), ValueError,
     "x is not a valid value for reduction"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
