"""The ``nn`` layers, functions and losses of issue 16 against PyTorch 2.13
(tests/fixtures/nn_breadth, recorded by its generate.py; PyTorch is not needed here):
``pixel_shuffle``/``unshuffle``, ``channel_shuffle``, ``CosineSimilarity``,
``PairwiseDistance``, ``LocalResponseNorm``, ``RReLU`` (seeded draws), ``EmbeddingBag``,
the margin/triplet/CTC losses with every reduction, and ``inplace=True``.

Each case evaluates the recorded expression with ``ferric`` for ``torch`` on the recorded
inputs, compares the value, back-propagates the recorded upstream gradient and compares
the input gradients; reprs and errors (type and message) come from the same fixture.
Then float64 gradcheck of every differentiable function, and layout checks.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from layouts import variants

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.autograd import gradcheck

FIXTURE = json.loads(
    (pathlib.Path(__file__).parent / "fixtures/nn_breadth/nn_breadth.json").read_text())


def _np(values, dtype):
    return np.asarray(values, dtype=np.float32 if dtype == "float32" else np.float64)


def _tensor(spec):
    dtype = getattr(ferric, spec["dtype"])
    vals = _np(spec["values"], spec["dtype"]) if spec["dtype"] != "int64" else \
        np.asarray(spec["values"], dtype=np.int64)
    t = ferric.tensor(vals.reshape(spec["shape"]), dtype=dtype)
    return t.requires_grad_(True) if spec["grad"] else t


def _env():
    return {"torch": ferric, "F": F, "nn": nn}


def _close(actual, expected, dtype, what):
    a = _np(actual, dtype).astype(np.float64)
    e = _np(expected, dtype).astype(np.float64)
    rtol = 2e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol, err_msg=what)


# Where ferric deliberately differs from PyTorch 2.13 (each with a test of its own below).
KNOWN_DIFFERENCES = {
    # PyTorch's CPU backward divides the gradient of the k-th distinct index by the count
    # of the k-th *sorted position*'s index (counts[indices_sorted[k]]), not by that
    # index's own count; ferric scales each row by its own frequency, as documented
    "F.embedding_bag(i, w, o, mode='mean', scale_grad_by_freq=True)": "grads",
    # PyTorch's hardsigmoid backward multiplies by the float32 constant 1/6 in every dtype;
    # ferric divides by 6 (the float64 gradients agree to float32 precision)
    "(lambda y: ((F.hardsigmoid(y, inplace=True) is y), y)[1])(x * 1)": "float32 grads",
}


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["call"][:90])
def test_matches_pytorch(case):
    tensors = {k: _tensor(v) for k, v in case["inputs"].items()}
    out = eval(case["call"], {**_env(), **tensors})
    assert list(out.shape) == case["out_shape"]
    assert str(out.dtype).replace("ferric.", "") == case["out_dtype"]
    _close(out.detach().reshape(-1).tolist(), case["out"], case["out_dtype"], "value")
    if "grads" not in case:
        assert not out.requires_grad
        return
    if KNOWN_DIFFERENCES.get(case["call"]) == "grads":
        return
    dtype = getattr(ferric, case["out_dtype"])
    g = ferric.tensor(_np(case["upstream"], case["out_dtype"]), dtype=dtype)
    out.backward(g.reshape(case["out_shape"]))
    for name, want in case["grads"].items():
        t = tensors[name]
        if want is None:
            assert t.grad is None or not bool(t.grad.any()), name
            continue
        # a float32 computation bounds the accuracy of a float64 input's gradient
        dt = "float32" if "float32" in (case["out_dtype"], case["inputs"][name]["dtype"]) \
            or KNOWN_DIFFERENCES.get(case["call"]) == "float32 grads" else "float64"
        _close(t.grad.reshape(-1).tolist(), want, dt, name)


@pytest.mark.parametrize("rec", FIXTURE["reprs"], ids=lambda r: r["expr"])
def test_repr_matches_pytorch(rec):
    assert repr(eval(rec["expr"], _env())) == rec["repr"].replace("torch.", "ferric.")


@pytest.mark.parametrize("err", FIXTURE["errors"], ids=lambda e: e["expr"][:80])
def test_errors_match_pytorch(err):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked below
        eval(err["expr"], _env())
    assert type(info.value).__name__ == err["type"], str(info.value)
    head = err["message"].replace("torch.", "ferric.").split("<class")[0][:70]
    assert head in str(info.value)


def test_fixture_version():
    assert FIXTURE["torch_version"].startswith("2.13")


# ---------------------------------------------------------------------------- gradcheck


def _f64(*shape, seed=0, lo=None):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) if lo is None else rng.uniform(lo, 2.0, size=shape)
    return ferric.tensor(a, dtype=ferric.float64, requires_grad=True)


LONG = ferric.int64
GRADCHECKS = [
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [(1, 8, 2, 3)]),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [(2, 4, 2)]),
    ("channel_shuffle", lambda x: F.channel_shuffle(x, 2), [(2, 4, 3)]),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, alpha=0.5), [(2, 5, 3)]),
    ("local_response_norm5d", lambda x: F.local_response_norm(x, 2, 0.3, 0.6, 1.5),
     [(1, 4, 2, 2, 2)]),
    ("cosine_similarity", lambda a, b: F.cosine_similarity(a, b), [(3, 4), (3, 4)]),
    ("pairwise_distance", lambda a, b: F.pairwise_distance(a, b, 3.0), [(3, 4), (3, 4)]),
    ("rrelu_eval", lambda x: F.rrelu(x), [(4, 5)]),
    ("embedding_bag_sum", lambda w, p: F.embedding_bag(
        ferric.tensor([1, 2, 4, 1, 0]), w, ferric.tensor([0, 2, 2]), mode="sum",
        per_sample_weights=p), [(5, 3), (5,)]),
    ("embedding_bag_mean", lambda w: F.embedding_bag(
        ferric.tensor([[1, 2], [4, 4]]), w, padding_idx=2), [(5, 3)]),
    ("embedding_bag_max", lambda w: F.embedding_bag(
        ferric.tensor([1, 2, 4, 3]), w, ferric.tensor([0, 3, 3]), mode="max"), [(5, 3)]),
    ("multilabel_margin", lambda x: F.multilabel_margin_loss(
        x, ferric.tensor([[3, 0, -1, 1], [1, 2, 3, 0]]), reduction="none"), [(2, 4)]),
    ("multilabel_soft_margin", lambda x: F.multilabel_soft_margin_loss(
        x, ferric.tensor([[1.0, 0.0, 1.0]])), [(1, 3)]),
    ("multi_margin_p2", lambda x: F.multi_margin_loss(
        x, ferric.tensor([2, 0, 1]), p=2, margin=0.7), [(3, 4)]),
    ("triplet", lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True, margin=2.0),
     [(3, 4), (3, 4), (3, 4)]),
    ("triplet_distance", lambda a, p, n: F.triplet_margin_with_distance_loss(
        a, p, n, margin=3.0, reduction="sum"), [(3, 4), (3, 4), (3, 4)]),
    ("ctc", lambda z: F.ctc_loss(z.log_softmax(2), ferric.tensor([[1, 2, 2], [3, 1, 0]]),
                                 [6, 5], [3, 2]), [(6, 2, 4)]),
    ("conv3d", lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 1), padding=(1, 0, 1),
                                        dilation=(1, 2, 1)), [(1, 2, 4, 4, 3), (2, 2, 2, 2, 2),
                                                              (2,)]),
    ("conv3d_groups_same", lambda x, w: F.conv3d(x, w, padding="same", groups=2),
     [(1, 2, 3, 3, 3), (2, 1, 2, 3, 2)]),
    ("conv_transpose3d", lambda x, w, b: F.conv_transpose3d(
        x, w, b, stride=2, padding=1, output_padding=1), [(1, 2, 2, 2, 2), (2, 2, 3, 2, 2),
                                                          (2,)]),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, 1, 1), [(1, 1, 3, 3, 3)]),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True,
                                          count_include_pad=False), [(1, 2, 4, 3, 4)]),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 1, 3)), [(1, 1, 3, 2, 4)]),
    ("ctc_concat_sum", lambda z: F.ctc_loss(z.log_softmax(2), ferric.tensor([1, 1, 2]),
                                            (5,), (3,), reduction="sum"), [(5, 1, 3)]),
]


@pytest.mark.parametrize(("name", "fn", "shapes"), GRADCHECKS, ids=[g[0] for g in GRADCHECKS])
def test_gradcheck(name, fn, shapes):
    inputs = tuple(_f64(*s, seed=i) for i, s in enumerate(shapes))
    assert gradcheck(fn, inputs)


# ---------------------------------------------------------------------------- layouts


@pytest.mark.parametrize("fn", [
    lambda x: F.pixel_shuffle(x, 2), lambda x: F.channel_shuffle(x, 2),
    lambda x: F.local_response_norm(x, 3), lambda x: F.pixel_unshuffle(x, 2),
    lambda x: F.conv3d(x.unsqueeze(0), ferric.ones(2, 2, 2, 2, 3, dtype=x.dtype), padding=1),
    lambda x: F.max_pool3d(x.unsqueeze(0), 2, 1),
    lambda x: F.avg_pool3d(x.unsqueeze(0), 2, 1, 1),
], ids=["pixel_shuffle", "channel_shuffle", "lrn", "pixel_unshuffle", "conv3d", "max_pool3d",
        "avg_pool3d"])
def test_layouts_agree(fn):
    arr = np.random.default_rng(3).standard_normal((2, 4, 4, 6))
    want = fn(ferric.tensor(arr)).numpy()
    for kind, t, values in variants(arr, ("contiguous", "transposed", "stepped",
                                          "permuted", "expanded")):
        got = fn(t).numpy()
        np.testing.assert_array_equal(got, fn(ferric.tensor(values)).numpy(), err_msg=kind)
        if kind != "expanded":
            np.testing.assert_array_equal(got, want, err_msg=kind)


def test_pixel_shuffle_round_trip_and_zero_size():
    x = ferric.randn(2, 3, 8, 4, 6)
    assert ferric.equal(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), x)
    assert F.pixel_shuffle(ferric.ones(0, 4, 2, 2), 2).shape == (0, 1, 4, 4)
    assert F.embedding_bag(ferric.tensor([], dtype=LONG), ferric.ones(3, 2),
                           ferric.tensor([0, 0]), mode="max").tolist() == [[0, 0], [0, 0]]


# ---------------------------------------------------------------------------- semantics


def test_rrelu_training_matches_seeded_uniform_draws():
    # the slopes are PyTorch's: one float64 U(lower, upper) per non-positive element
    x = ferric.tensor([[-1.0, 2.0, -3.0], [0.0, -0.5, 4.0]], dtype=ferric.float64)
    ferric.manual_seed(11)
    out = F.rrelu(x, 0.1, 0.4, training=True)
    ferric.manual_seed(11)
    draws = ferric.empty(4, dtype=ferric.float64).uniform_(0.1, 0.4)
    neg = x <= 0
    assert ferric.equal(out[neg], x[neg] * draws)
    assert ferric.equal(out[~neg], x[~neg])
    m = nn.RReLU(0.1, 0.4)
    assert ferric.equal(m.eval()(x), F.leaky_relu(x, 0.25))


def test_rrelu_uses_given_generator():
    x = -ferric.ones(5)
    g1, g2 = ferric.Generator().manual_seed(3), ferric.Generator().manual_seed(3)
    a = F.rrelu(x, training=True, generator=g1)
    b = F.rrelu(x, training=True, generator=g2)
    assert ferric.equal(a, b)
    assert len(set(a.tolist())) == 5


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "hardtanh", "relu6", "selu",
                                  "celu", "silu", "hardswish", "hardsigmoid", "mish",
                                  "rrelu", "threshold", "dropout"])
def test_inplace_really_in_place_with_autograd(name):
    """``inplace=True`` writes into the input (same tensor, bumped version) and the
    gradient through it is that of the out-of-place form, for a non-leaf input."""
    args = (0.1, 2.0) if name == "threshold" else ()
    fn = getattr(F, name)
    base = _f64(3, 4, seed=5)
    ref_in = base * 1.5
    kwargs = {"training": False} if name == "dropout" else {}
    ref = fn(ref_in, *args, **kwargs)
    ref.sum().backward()
    want = base.grad.clone()
    base.grad = None
    y = base * 1.5
    out = fn(y, *args, inplace=True, **kwargs)
    assert out is y
    assert ferric.equal(y, ref.detach())
    if out.requires_grad:
        out.sum().backward()
        assert ferric.equal(base.grad, want)


def test_inplace_on_leaf_requiring_grad_raises():
    x = ferric.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        F.leaky_relu(x, inplace=True)


def test_embedding_sparse_flag_trains_like_pytorch_sgd():
    # sparse=True: PyTorch hands SGD a sparse gradient; ferric's dense one gives the same
    # update (rows not looked up stay put, repeated rows accumulate)
    w = ferric.arange(12.0).reshape(4, 3)
    emb = nn.Embedding.from_pretrained(w.clone(), freeze=False, sparse=True)
    opt = ferric.optim.SGD(emb.parameters(), lr=0.5)
    emb(ferric.tensor([1, 3, 1])).pow(2).sum().backward()
    opt.step()
    expected = w.clone()
    expected[1] = w[1] - 0.5 * 2 * 2 * w[1]
    expected[3] = w[3] - 0.5 * 2 * w[3]
    assert ferric.equal(emb.weight.detach(), expected)


def test_embedding_bag_module_and_from_pretrained():
    w = ferric.randn(6, 2)
    bag = nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert not bag.weight.requires_grad
    out = bag(ferric.tensor([0, 1, 5]), ferric.tensor([0, 1]))
    assert ferric.allclose(out, ferric.stack([w[0], w[1] + w[5]]))
    m = nn.EmbeddingBag(10, 3, padding_idx=-1)
    assert m.padding_idx == 9 and not bool(m.weight[9].any())
    idx = ferric.tensor([9, 9, 1])
    out = m(idx, ferric.tensor([0, 2]))
    assert out[0].tolist() == [0.0, 0.0, 0.0]


def test_embedding_bag_scale_grad_by_freq_uses_each_rows_own_count():
    w = ferric.zeros(5, 2, requires_grad=True)
    idx = ferric.tensor([1, 2, 4, 4, 3, 2, 2])
    F.embedding_bag(idx, w, ferric.tensor([0, 3]), mode="sum",
                    scale_grad_by_freq=True).sum().backward()
    # every occurrence contributes 1 / (count of its index): one per distinct index
    assert w.grad[:, 0].tolist() == [0.0, 1.0, 1.0, 1.0, 1.0]


def test_embedding_bag_max_norm_renormalises_rows():
    w = ferric.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    F.embedding_bag(ferric.tensor([0, 1]), w, ferric.tensor([0]), max_norm=1.0)
    assert ferric.allclose(w[0].norm(), ferric.tensor(1.0), atol=1e-6)
    assert w[2].tolist() == [6.0, 8.0]  # not looked up: untouched
