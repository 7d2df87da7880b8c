"""Layers against NumPy reference math, gradchecks through every layer in float64,
PyTorch-identical initialisation and dropout masks, reprs and bad-input errors.

Values marked "from PyTorch" were printed by PyTorch 2.x for the same seed (they depend
on the order of the random draws, which ferric reproduces).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from nn_helpers import close, f64, module_gradcheck, np_layer_norm, np_mha, np_of, np_softmax, rand

import ferric
import ferric.nn.functional as F
from ferric import nn

# ---------------------------------------------------------------------------- init order

# from PyTorch: torch.manual_seed(0) then the constructor
INIT_VALUES = [
    ("linear", lambda: nn.Linear(4, 3), lambda m: [m.weight, m.bias],
     [[-0.003743, 0.268222, -0.411523, -0.36797, -0.192577, 0.134079, -0.009907, 0.396445,
       -0.044372, 0.132306, -0.151107, -0.098283], [-0.477674, -0.331141, -0.206112]]),
    ("conv2d", lambda: nn.Conv2d(2, 2, 2), lambda m: [m.weight, m.bias],
     [[-0.002647, 0.189661, -0.29099, -0.260194, -0.136173, 0.094808, -0.007005, 0.280329,
       -0.031376, 0.093555, -0.106848, -0.069496, -0.337767, -0.234152, -0.145743, 0.013097],
      [0.139772, 0.21214]]),
    ("embedding", lambda: nn.Embedding(3, 2, padding_idx=1), lambda m: [m.weight],
     [[1.540996, -0.293429, 0.0, 0.0, -1.084522, -1.398595]]),
    ("gru", lambda: nn.GRU(2, 2), lambda m: list(m.parameters())[2:],
     [[-0.113974, 0.074822, 0.640268, -0.655962, -0.445151, -0.179015],
      [-0.27563, 0.610941, -0.458332, -0.325504, -0.494013, -0.662249]]),
    ("mha", lambda: nn.MultiheadAttention(2, 1), lambda m: [m.in_proj_weight, m.out_proj.weight],
     [[-0.017159, 0.686662, -0.076855, 0.229161, -0.261724, -0.170231, -0.827356, -0.573553,
       -0.356996, 0.032081, 0.34237, 0.519635], [-0.005294, 0.379323, -0.581981, -0.520387]]),
    ("bilinear", lambda: nn.Bilinear(2, 1, 1), lambda m: [m.weight, m.bias],
     [[-0.005294, 0.379323], [-0.581981]]),
]


@pytest.mark.parametrize("name,ctor,get,expected", INIT_VALUES, ids=[r[0] for r in INIT_VALUES])
def test_default_init_matches_pytorch(name, ctor, get, expected):
    ferric.manual_seed(0)
    m = ctor()
    for t, e in zip(get(m), expected, strict=True):
        close(t.reshape(-1), e, rtol=0, atol=2e-6)


def test_dropout_masks_match_pytorch():
    # from PyTorch: manual_seed(0); F.dropout(ones, p)
    ferric.manual_seed(0)
    y = F.dropout(ferric.ones(2, 5), 0.4)
    close(y.reshape(-1), [0, 0, 5 / 3, 0, 0, 0, 5 / 3, 5 / 3, 5 / 3, 5 / 3])
    ferric.manual_seed(0)
    y = F.dropout(ferric.ones(2, 3, 2, dtype=ferric.float64), 0.5)
    close(y.reshape(-1), [0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2])
    ferric.manual_seed(0)
    y = F.dropout2d(ferric.ones(2, 3, 1, 2), 0.5)
    close(y.reshape(-1), [0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0])


# ---------------------------------------------------------------------------- linear


def test_linear_forward_and_errors():
    m = nn.Linear(3, 2).double()
    x = rand((4, 3))
    w, b = np_of(m.weight), np_of(m.bias)
    close(m(f64(x)), x @ w.T + b)
    x3 = rand((2, 5, 3), 1)
    close(m(f64(x3)), x3 @ w.T + b)
    close(m(f64(x[0])), x[0] @ w.T + b)
    nb = nn.Linear(3, 2, bias=False).double()
    assert nb.bias is None and "bias" in nb._parameters
    close(nb(f64(x)), x @ np_of(nb.weight).T)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x3 and "
                                           r"5x2\)"):
        nn.Linear(5, 2)(ferric.randn(4, 3))


def test_bilinear_identity_flatten():
    m = nn.Bilinear(2, 3, 4).double()
    a, b = rand((5, 2)), rand((5, 3), 1)
    w, bias = np_of(m.weight), np_of(m.bias)
    close(m(f64(a), f64(b)), np.einsum("ni,kij,nj->nk", a, w, b) + bias)
    x = ferric.randn(2, 3)
    assert nn.Identity(3, foo=1)(x) is x
    assert nn.Flatten()(ferric.zeros(2, 3, 4, 5)).shape == (2, 60)
    assert nn.Flatten(0, 2)(ferric.zeros(2, 3, 4, 5)).shape == (24, 5)
    assert nn.Unflatten(1, (2, 5))(ferric.zeros(3, 10)).shape == (3, 2, 5)
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, (2, 5.0))


# ---------------------------------------------------------------------------- activations


def _gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _sig(x):
    return 1 / (1 + np.exp(-x))


_A, _S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (nn.GELU(), _gelu),
    (nn.GELU("tanh"), _gelu_tanh),
    (nn.SiLU(), lambda x: x * _sig(x)),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), _sig),
    (nn.Softmax(dim=1), lambda x: np_softmax(x, 1)),
    (nn.LogSoftmax(dim=0), lambda x: np.log(np_softmax(x, 0))),
    (nn.Softmin(dim=1), lambda x: np_softmax(-x, 1)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (nn.CELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x / 0.5) - 1))),
    (nn.SELU(), lambda x: _S * np.where(x > 0, x, _A * (np.exp(x) - 1))),
    (nn.Softplus(2.0, 1.5), lambda x: np.where(2 * x > 1.5, x, np.log1p(np.exp(2 * x)) / 2)),
    (nn.Hardtanh(-0.5, 0.7), lambda x: np.clip(x, -0.5, 0.7)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.Hardsigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (nn.Hardshrink(0.6), lambda x: np.where(np.abs(x) > 0.6, x, 0)),
    (nn.Softshrink(0.6), lambda x: np.where(x > 0.6, x - 0.6, np.where(x < -0.6, x + 0.6, 0))),
    (nn.Threshold(0.1, 20.0), lambda x: np.where(x > 0.1, x, 20.0)),
    (nn.LogSigmoid(), lambda x: -np.log1p(np.exp(-x))),
    (nn.GLU(1), lambda x: x[:, :2] * _sig(x[:, 2:])),
]


@pytest.mark.parametrize("module,ref", ACTIVATIONS, ids=[type(m).__name__ for m, _ in ACTIVATIONS])
def test_activations(module, ref):
    x = rand((3, 4), 2, -3, 3)
    close(module(f64(x)), ref(x), rtol=1e-6, atol=1e-7)
    xt = f64(rand((4, 3), 3, -3, 3)).t()  # non-contiguous input
    close(module(xt), ref(np_of(xt)), rtol=1e-6, atol=1e-7)
    assert module(ferric.tensor(x, dtype=ferric.float32)).dtype == ferric.float32
    module_gradcheck(module, f64(rand((2, 4), 4, -2, 2), requires_grad=True))


def test_prelu_and_inplace_variants():
    m = nn.PReLU(3).double()
    with ferric.no_grad():
        m.weight.copy_(f64([0.1, 0.2, 0.3]))
    x = rand((2, 3, 2), 5)
    close(m(f64(x)), np.where(x >= 0, x, np.array([0.1, 0.2, 0.3])[None, :, None] * x))
    module_gradcheck(m, f64(x, requires_grad=True))
    for fn in (F.relu, F.leaky_relu, F.elu, F.silu, F.hardtanh, F.relu6, F.selu, F.hardswish):
        x = ferric.tensor([-1.5, 0.5, 2.0])
        expected = fn(x.clone())
        out = fn(x, inplace=True)
        assert out is x
        close(x, np_of(expected))
    # with autograd recording, an in-place form without a kernel returns a new tensor
    leafy = ferric.tensor([-1.0, 1.0], requires_grad=True)
    close(F.leaky_relu(leafy * 1, 0.5, inplace=True), [-0.5, 1.0])


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        y = F.softmax(ferric.zeros(2, 3))
    close(y, np.full((2, 3), 1 / 3))
    assert F.log_softmax(ferric.zeros(2, 3), 1, dtype=ferric.float64).dtype == ferric.float64


# ---------------------------------------------------------------------------- normalization


def test_layer_norm():
    m = nn.LayerNorm([3, 4]).double()
    with ferric.no_grad():
        m.weight.copy_(f64(rand((3, 4), 6)))
        m.bias.copy_(f64(rand((3, 4), 7)))
    x = rand((2, 3, 4), 8)
    close(m(f64(x)), np_layer_norm(x, 2, np_of(m.weight), np_of(m.bias)))
    module_gradcheck(m, f64(x, requires_grad=True))
    bare = nn.LayerNorm(4, elementwise_affine=False)
    assert bare.weight is None and list(bare.parameters()) == []
    close(bare(ferric.tensor(x, dtype=ferric.float32)), np_layer_norm(x, 1), rtol=1e-4)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[3, 5\], expected input with "
                                           r"shape \[\*, 3, 5\], but got input of size\[2, 3, 4\]"):
        nn.LayerNorm([3, 5])(ferric.zeros(2, 3, 4))


def test_group_norm_and_rms_norm():
    m = nn.GroupNorm(2, 4).double()
    with ferric.no_grad():
        m.weight.copy_(f64([1.0, 2.0, 3.0, 4.0]))
        m.bias.copy_(f64([0.0, 0.5, 1.0, 1.5]))
    x = rand((2, 4, 3), 9)
    g = x.reshape(2, 2, 6)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    ref = ref.reshape(2, 4, 3) * np.array([1, 2, 3, 4])[:, None] \
        + np.array([0, .5, 1, 1.5])[:, None]
    close(m(f64(x)), ref)
    module_gradcheck(m, f64(x, requires_grad=True))
    with pytest.raises(ValueError, match=r"num_channels \(5\) must be divisible by num_groups"):
        nn.GroupNorm(2, 5)
    with pytest.raises(RuntimeError, match="Expected number of channels in input to be divisible"):
        F.group_norm(ferric.zeros(2, 5, 3), 2)
    r = nn.RMSNorm(3, eps=1e-6).double()
    x = rand((2, 3), 10)
    close(r(f64(x)), x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6))
    module_gradcheck(r, f64(x, requires_grad=True))


def test_batch_norm_train_eval_running_stats():
    m = nn.BatchNorm1d(3).double()
    with ferric.no_grad():
        m.weight.copy_(f64([1.0, 2.0, 0.5]))
        m.bias.copy_(f64([0.1, 0.2, 0.3]))
    x = rand((4, 3, 5), 11, -2, 2)
    y = m(f64(x))
    mu = x.mean(axis=(0, 2))
    var = x.var(axis=(0, 2))
    ref = (x - mu[None, :, None]) / np.sqrt(var[None, :, None] + 1e-5)
    close(y, ref * np.array([1, 2, .5])[None, :, None] + np.array([.1, .2, .3])[None, :, None])
    n = 4 * 5
    close(m.running_mean, 0.1 * mu)
    close(m.running_var, 0.9 + 0.1 * var * n / (n - 1))  # unbiased running variance
    assert int(m.num_batches_tracked) == 1
    m.eval()
    y2 = m(f64(x))
    rm, rv = np_of(m.running_mean), np_of(m.running_var)
    ref2 = (x - rm[None, :, None]) / np.sqrt(rv[None, :, None] + 1e-5)
    close(y2, ref2 * np.array([1, 2, .5])[None, :, None] + np.array([.1, .2, .3])[None, :, None])
    assert int(m.num_batches_tracked) == 1  # eval does not count batches
    m.train()
    module_gradcheck(m, f64(rand((3, 3), 12), requires_grad=True))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        m(ferric.zeros(2, 3, 4, 5, dtype=ferric.float64))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        m(ferric.zeros(1, 3, dtype=ferric.float64))


def test_batch_norm_momentum_none_affine_false_no_tracking():
    m = nn.BatchNorm2d(2, momentum=None, affine=False).double()
    assert m.weight is None and list(m.state_dict()) == [
        "running_mean", "running_var", "num_batches_tracked"]
    xs = [rand((2, 2, 2, 2), s) for s in (13, 14, 15)]
    for x in xs:
        m(f64(x))
    # momentum=None keeps the cumulative average of the batch statistics
    close(m.running_mean, np.mean([x.mean(axis=(0, 2, 3)) for x in xs], axis=0))
    close(m.running_var, np.mean([x.var(axis=(0, 2, 3), ddof=1) for x in xs], axis=0))
    nt = nn.BatchNorm1d(2, track_running_stats=False).double()
    assert nt.running_mean is None and list(nt.state_dict()) == ["weight", "bias"]
    nt.eval()
    x = rand((5, 2), 16)
    close(nt(f64(x)), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5))  # batch stats in eval too
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(f64(x), None, None, training=False)


def test_instance_norm():
    m = nn.InstanceNorm1d(2, affine=True).double()
    x = rand((3, 2, 4), 17)
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    close(m(f64(x)), ref)
    close(m(f64(x[0])), ref[0])
    module_gradcheck(m, f64(x, requires_grad=True))


# ---------------------------------------------------------------------------- dropout


def test_dropout_train_eval():
    d = nn.Dropout(0.25)
    x = ferric.ones(1000)
    ferric.manual_seed(1)
    y = d(x)
    vals = np.unique(np_of(y))
    np.testing.assert_allclose(vals, [0.0, 1 / 0.75], rtol=1e-6)
    assert 0.15 < float((y == 0).double().mean()) < 0.35
    d.eval()
    assert d(x) is x
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    close(F.dropout(ferric.ones(3), 1.0), [0, 0, 0])
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            nn.Dropout(p)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            F.dropout(x, p)
    inp = ferric.ones(6)
    ferric.manual_seed(0)
    out = F.dropout(inp, 0.5, inplace=True)
    assert out is inp and set(inp.tolist()) <= {0.0, 2.0}


def test_dropout_gradient_matches_mask():
    x = f64(rand((3, 4), 18), requires_grad=True)

    def fn(t):
        ferric.manual_seed(3)
        return F.dropout(t, 0.3)

    assert ferric.autograd.gradcheck(fn, (x,))
    y = fn(x)
    y.backward(ferric.ones_like(y))
    mask = np_of(y) != 0
    close(x.grad, mask / 0.7)


def test_feature_dropout_shapes():
    ferric.manual_seed(0)
    y = nn.Dropout2d(0.5)(ferric.ones(4, 6, 3, 3))
    per_channel = np_of(y).reshape(4, 6, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # whole channels
    y1 = nn.Dropout1d(0.5)(ferric.ones(6, 5))  # unbatched (C, L)
    assert np.all(np_of(y1).min(-1) == np_of(y1).max(-1))
    with pytest.raises(RuntimeError, match="dropout2d: Expected 3D or 4D input"):
        F.dropout2d(ferric.ones(2, 2), 0.5)


# ---------------------------------------------------------------------------- embedding


def test_embedding_forward_padding_grad():
    ferric.manual_seed(0)
    e = nn.Embedding(5, 3, padding_idx=1).double()
    assert np_of(e.weight)[1].tolist() == [0, 0, 0]
    idx = ferric.tensor([[0, 1, 4], [1, 4, 4]])
    w = np_of(e.weight).copy()
    out = e(idx)
    close(out, w[np_of(idx)])
    out.backward(ferric.ones_like(out))
    g = np_of(e.weight.grad)
    close(g[1], [0, 0, 0])  # no gradient to the padding row
    close(g[4], [3, 3, 3])
    close(g[0], [1, 1, 1])
    assert repr(e) == "Embedding(5, 3, padding_idx=1)"
    assert nn.Embedding(5, 3, padding_idx=-1).padding_idx == 4
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(IndexError, match="index out of range in self"):
        e(ferric.tensor([5]))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one "
                                           "of the following scalar types: Long, Int; but got "
                                           "torch.FloatTensor instead"):
        e(ferric.tensor([1.0]))


def test_embedding_from_pretrained_max_norm_scale_grad():
    w = f64([[1.0, 2.0], [3.0, 4.0], [0.1, 0.1]])
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and e.weight.data.data_ptr() == w.data_ptr()
    close(e(ferric.tensor([1])), [[3.0, 4.0]])
    e2 = nn.Embedding.from_pretrained(w.clone(), freeze=False, max_norm=1.0)
    e2(ferric.tensor([0, 2]))
    close(e2.weight[0], np.array([1.0, 2.0]) / (np.sqrt(5) + 1e-7))  # renormalised in place
    close(e2.weight[1], [3.0, 4.0])  # not looked up: untouched
    close(e2.weight[2], [0.1, 0.1])  # below max_norm: untouched
    e3 = nn.Embedding(4, 2, scale_grad_by_freq=True).double()
    out = e3(ferric.tensor([0, 0, 0, 2]))
    out.backward(ferric.ones_like(out))
    close(e3.weight.grad, [[1, 1], [0, 0], [1, 1], [0, 0]])
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dim"):
        nn.Embedding.from_pretrained(ferric.zeros(3))


def test_one_hot():
    close(F.one_hot(ferric.tensor([0, 2, 1])), np.eye(3, dtype=np.int64)[[0, 2, 1]])
    assert F.one_hot(ferric.tensor([[1], [0]]), 4).shape == (2, 1, 4)
    assert F.one_hot(ferric.tensor([1])).dtype == ferric.int64
    for bad, msg in [(ferric.tensor([1.0]), "one_hot is only applicable to index tensor"),
                     (ferric.tensor([-1]), "Class values must be non-negative.")]:
        with pytest.raises(RuntimeError, match=msg):
            F.one_hot(bad, 3)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(ferric.tensor([3]), 3)


# ---------------------------------------------------------------------------- attention


def test_scaled_dot_product_attention():
    q, k, v = rand((2, 3, 4), 19), rand((2, 5, 4), 20), rand((2, 5, 4), 21)
    mask = rand((3, 5), 22) > -0.5
    mask[:, 0] = True
    ref = np_softmax(np.where(mask, q @ k.transpose(0, 2, 1) / 2.0, -np.inf)) @ v
    close(F.scaled_dot_product_attention(f64(q), f64(k), f64(v), ferric.tensor(mask)), ref)
    causal = np.tril(np.ones((3, 5), bool))
    ref = np_softmax(np.where(causal, q @ k.transpose(0, 2, 1) * 0.3, -np.inf)) @ v
    close(F.scaled_dot_product_attention(f64(q), f64(k), f64(v), is_causal=True, scale=0.3), ref)
    fm = rand((3, 5), 23)
    ref = np_softmax(q @ k.transpose(0, 2, 1) / 2.0 + fm) @ v
    close(F.scaled_dot_product_attention(f64(q), f64(k), f64(v), attn_mask=f64(fm)), ref)
    ins = [f64(a, requires_grad=True) for a in (q[:, :2, :2], k[:, :3, :2], v[:, :3, :2])]
    assert ferric.autograd.gradcheck(F.scaled_dot_product_attention, ins)


def test_multihead_attention_vs_numpy():
    ferric.manual_seed(0)
    m = nn.MultiheadAttention(8, 2).double()
    with ferric.no_grad():
        m.in_proj_bias.copy_(f64(rand(24, 24)))
        m.out_proj.bias.copy_(f64(rand(8, 25)))
    q, k = rand((3, 2, 8), 26), rand((4, 2, 8), 27)
    kpm = np.array([[False, False, True, False], [False, False, False, True]])
    am = rand((3, 4), 28)
    args = (np_of(m.in_proj_weight), np_of(m.in_proj_bias), np_of(m.out_proj.weight),
            np_of(m.out_proj.bias), 2)
    ref_out, ref_w = np_mha(q, k, k, *args, attn_mask=am, kpm=kpm)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask"):
        out, w = m(f64(q), f64(k), f64(k), key_padding_mask=ferric.tensor(kpm),
                   attn_mask=f64(am))
    close(out, ref_out)
    close(w, ref_w.mean(1))
    _, w_all = m(f64(q), f64(k), f64(k), average_attn_weights=False)
    close(w_all, np_mha(q, k, k, *args)[1])
    out_nw, none = m(f64(q), f64(k), f64(k), need_weights=False)
    assert none is None
    close(out_nw, np_mha(q, k, k, *args)[0])
    # bool attn_mask: True = not allowed
    bm = np.zeros((3, 4), bool)
    bm[:, 2] = True
    close(m(f64(q), f64(k), f64(k), attn_mask=ferric.tensor(bm))[0],
          np_mha(q, k, k, *args, attn_mask=np.where(bm, -np.inf, 0.0))[0])
    # unbatched and batch_first give the same numbers
    close(m(f64(q[:, 0]), f64(k[:, 0]), f64(k[:, 0]))[0],
          np_mha(q[:, :1], k[:, :1], k[:, :1], *args)[0][:, 0])
    bf = nn.MultiheadAttention(8, 2, batch_first=True).double()
    bf.load_state_dict(m.state_dict())
    close(bf(f64(q.transpose(1, 0, 2)), f64(k.transpose(1, 0, 2)), f64(k.transpose(1, 0, 2)))[0],
          np_mha(q, k, k, *args)[0].transpose(1, 0, 2))
    assert list(m.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                    "out_proj.bias"]


def test_multihead_attention_variants_and_grad():
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=5).double()
    assert list(m.state_dict()) == ["q_proj_weight", "k_proj_weight", "v_proj_weight",
                                    "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    out, w = m(f64(rand((2, 1, 4))), f64(rand((3, 1, 3))), f64(rand((3, 1, 5))))
    assert out.shape == (2, 1, 4) and w.shape == (1, 2, 3)
    kv = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True).double()
    _, w = kv(f64(rand((2, 1, 4))), f64(rand((3, 1, 4))), f64(rand((3, 1, 4))))
    assert w.shape == (1, 2, 5)  # 3 keys + bias_k + the zero attention slot
    small = nn.MultiheadAttention(2, 1).double()
    x = f64(rand((2, 1, 2), 29), requires_grad=True)
    module_gradcheck(small, x, x, x, out=lambda r: r[0])
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 2)


def _np_encoder_layer(layer, x, norm_first):
    sa = layer.self_attn
    args = (np_of(sa.in_proj_weight), np_of(sa.in_proj_bias), np_of(sa.out_proj.weight),
            np_of(sa.out_proj.bias), sa.num_heads)

    def ln(t, mod):
        return np_layer_norm(t, 1, np_of(mod.weight), np_of(mod.bias))

    def ff(t):
        h = np.maximum(t @ np_of(layer.linear1.weight).T + np_of(layer.linear1.bias), 0)
        return h @ np_of(layer.linear2.weight).T + np_of(layer.linear2.bias)

    if norm_first:
        h = ln(x, layer.norm1)
        x = x + np_mha(h, h, h, *args)[0]
        return x + ff(ln(x, layer.norm2))
    x = ln(x + np_mha(x, x, x, *args)[0], layer.norm1)
    return ln(x + ff(x), layer.norm2)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer(norm_first):
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=norm_first).double()
    x = rand((3, 2, 4), 30)
    close(layer(f64(x)), _np_encoder_layer(layer, x, norm_first))
    bf = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=norm_first,
                                    batch_first=True).double()
    bf.load_state_dict(layer.state_dict())
    close(bf(f64(x.transpose(1, 0, 2))), _np_encoder_layer(layer, x, norm_first).transpose(1, 0, 2))
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    assert len(enc.layers) == 2 and enc.layers[0] is not layer
    assert list(enc.state_dict())[0] == "layers.0.self_attn.in_proj_weight"
    gelu = nn.TransformerEncoderLayer(2, 1, 3, dropout=0.0, activation="gelu").double()
    module_gradcheck(gelu, f64(rand((2, 1, 2), 31), requires_grad=True))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")


def test_transformer_decoder_and_full_model_shapes():
    ferric.manual_seed(0)
    t = nn.Transformer(4, 2, 1, 1, 6, dropout=0.0)
    out = t(ferric.randn(5, 2, 4), ferric.randn(3, 2, 4),
            tgt_mask=nn.Transformer.generate_square_subsequent_mask(3))
    assert out.shape == (3, 2, 4)
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert np.isneginf(np_of(m)[0, 1]) and np_of(m)[1, 0] == 0


# ---------------------------------------------------------------------------- gradchecks


GRAD_LAYERS = [
    ("linear", lambda: nn.Linear(3, 2), [(2, 3)]),
    ("linear_nobias_3d", lambda: nn.Linear(3, 2, bias=False), [(2, 2, 3)]),
    ("bilinear", lambda: nn.Bilinear(2, 3, 2), [(2, 2), (2, 3)]),
    ("layernorm", lambda: nn.LayerNorm(3), [(2, 3)]),
    ("batchnorm2d", lambda: nn.BatchNorm2d(2), [(2, 2, 1, 2)]),
]


@pytest.mark.parametrize("name,ctor,shapes", GRAD_LAYERS, ids=[g[0] for g in GRAD_LAYERS])
def test_layer_gradcheck(name, ctor, shapes):
    ferric.manual_seed(0)
    m = ctor().double()
    ins = [f64(rand(s, i + 40), requires_grad=True) for i, s in enumerate(shapes)]
    module_gradcheck(m, *ins)


def test_embedding_gradcheck():
    # (without padding_idx: the padding row does change the output but by design gets no
    # gradient, so a finite-difference check of it would fail in PyTorch too)
    e = nn.Embedding(4, 2).double()
    module_gradcheck(e, ferric.tensor([[1, 0], [3, 3]]))


def test_normalize_cosine_pairwise():
    x, y = rand((3, 4), 50), rand((3, 4), 51)
    close(F.normalize(f64(x)), x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12))
    close(F.normalize(f64(x), p=1, dim=0), x / np.abs(x).sum(0))
    cos = (x * y).sum(1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    close(F.cosine_similarity(f64(x), f64(y)), cos)
    close(F.pairwise_distance(f64(x), f64(y)), np.linalg.norm(x - y + 1e-6, axis=1))
    assert ferric.autograd.gradcheck(F.normalize, (f64(x, requires_grad=True),))


def test_padding_modules():
    x = ferric.arange(6.0).reshape(1, 2, 3)
    close(nn.ZeroPad1d(1)(x), np.pad(np_of(x), ((0, 0), (0, 0), (1, 1))))
    close(nn.ConstantPad1d((2, 0), 7.0)(x), np.pad(np_of(x), ((0, 0), (0, 0), (2, 0)),
                                                    constant_values=7))
    close(nn.ReflectionPad1d(2)(x), np.pad(np_of(x), ((0, 0), (0, 0), (2, 2)), mode="reflect"))
    close(nn.ReplicationPad1d(1)(x), np.pad(np_of(x), ((0, 0), (0, 0), (1, 1)), mode="edge"))
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ConstantPad1d((1, 2), 3.5)) == "ConstantPad1d(padding=(1, 2), value=3.5)"


# ---------------------------------------------------------------------------- reprs

# from PyTorch (torch.* names printed as ferric.*)
REPRS = [
    (lambda: nn.BatchNorm2d(3, affine=False, momentum=None),
     "BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, bias=False, "
     "track_running_stats=True)"),
    (lambda: nn.LayerNorm([2, 3], bias=False),
     "LayerNorm((2, 3), eps=1e-05, elementwise_affine=True, bias=False)"),
    (lambda: nn.GroupNorm(2, 4), "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"),
    (lambda: nn.RMSNorm(3), "RMSNorm((3,), eps=None, elementwise_affine=True)"),
    (lambda: nn.InstanceNorm2d(3), "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, "
                                   "bias=False, track_running_stats=False)"),
    (lambda: nn.Embedding(10, 3, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True,
                          sparse=True),
     "Embedding(10, 3, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True)"),
    (lambda: nn.Dropout2d(0.2, True), "Dropout2d(p=0.2, inplace=True)"),
    (lambda: nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (lambda: nn.Unflatten(1, (2, 5)), "Unflatten(dim=1, unflattened_size=(2, 5))"),
    (lambda: nn.Bilinear(2, 3, 4), "Bilinear(in1_features=2, in2_features=3, out_features=4, "
                                   "bias=True)"),
    (lambda: nn.Linear(3, 4, bias=False), "Linear(in_features=3, out_features=4, bias=False)"),
    (lambda: nn.PReLU(), "PReLU(num_parameters=1)"),
    (lambda: nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.ReLU6(), "ReLU6()"),
    (lambda: nn.ReLU(True), "ReLU(inplace=True)"),
    (lambda: nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)"),
    (lambda: nn.GELU("tanh"), "GELU(approximate='tanh')"),
    (lambda: nn.ELU(), "ELU(alpha=1.0)"),
    (lambda: nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.Softshrink(), "Softshrink(0.5)"),
    (lambda: nn.GLU(), "GLU(dim=-1)"),
    (lambda: nn.Softmax(1), "Softmax(dim=1)"),
    (lambda: nn.LogSoftmax(dim=-1), "LogSoftmax(dim=-1)"),
    (lambda: nn.CrossEntropyLoss(), "CrossEntropyLoss()"),
    (lambda: nn.Identity(), "Identity()"),
    (lambda: nn.MultiheadAttention(8, 2),
     "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
     "out_features=8, bias=True)\n)"),
    (lambda: nn.TransformerEncoderLayer(8, 2, 16),
     "TransformerEncoderLayer(\n  (self_attn): MultiheadAttention(\n    (out_proj): "
     "NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n  )\n"
     "  (linear1): Linear(in_features=8, out_features=16, bias=True)\n"
     "  (dropout): Dropout(p=0.1, inplace=False)\n"
     "  (linear2): Linear(in_features=16, out_features=8, bias=True)\n"
     "  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
     "  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n"
     "  (dropout1): Dropout(p=0.1, inplace=False)\n"
     "  (dropout2): Dropout(p=0.1, inplace=False)\n)"),
]


@pytest.mark.parametrize("ctor,expected", REPRS, ids=[str(i) for i in range(len(REPRS))])
def test_reprs(ctor, expected):
    assert repr(ctor()) == expected


# ---------------------------------------------------------------------------- double backward


def test_second_order_gradients_through_layers():
    """The layers are composites of differentiable ops, so create_graph works through them."""
    ferric.manual_seed(0)
    x = f64(rand((2, 3), 60), requires_grad=True)
    seq = f64(rand((2, 1, 2), 61), requires_grad=True)
    target = f64(rand((2, 3), 62, 0, 1))
    mlp = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    ln = nn.LayerNorm(3).double()
    bn = nn.BatchNorm1d(3).double()
    gru = nn.GRUCell(3, 2).double()
    mha = nn.MultiheadAttention(2, 1).double()
    cases = [
        (mlp, x), (ln, x), (bn, x), (gru, x),
        (lambda a: mha(a, a, a)[0], seq),
        (lambda a: F.cross_entropy(a, ferric.tensor([0, 2]), label_smoothing=0.1), x),
        (lambda a: F.binary_cross_entropy_with_logits(a, target), x),
    ]
    for fn, inp in cases:
        assert ferric.autograd.gradgradcheck(fn, (inp,))
