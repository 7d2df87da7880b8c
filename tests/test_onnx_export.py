"""ferric.onnx.export: every covered layer and op, exported and run in onnxruntime, gives
ferric's outputs (float32 tolerance); the graphs pass ``onnx.checker``; dynamic axes
work for other sizes. Errors and warnings are in ``test_onnx_errors.py``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import KINDS, laid_out
from nn_helpers import Fn

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.onnx import UnsupportedOperatorError

onnx = pytest.importorskip("onnx", reason="ONNX export tests need the onnx package "
                           "(pip install 'ferric[onnx]')")
ort = pytest.importorskip("onnxruntime", reason="ONNX export tests run the models in "
                          "onnxruntime (pip install 'ferric[onnx]')")


def run_ort(proto, inputs):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: np.asarray(x.numpy()) for i, x in zip(sess.get_inputs(), inputs,
                                                           strict=True)}
    return sess.run(None, feeds)


def flat(obj):
    if isinstance(obj, ferric.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for x in obj for t in flat(x)]
    return []


def check(model, inputs, *, rtol=1e-4, atol=2e-5, **kw):
    """Exports ``model`` on ``inputs``, checks the model and compares onnxruntime's
    outputs with ferric's; returns the ModelProto."""
    if isinstance(model, nn.Module):
        model.eval()
    prog = ferric.onnx.export(model, tuple(inputs), None, **kw)
    proto = prog.model_proto
    onnx.checker.check_model(proto, full_check=True)
    # the traced inputs, then fresh values of the same shapes (a value the trace wrongly
    # folded into a constant shows up there)
    for xs in (inputs, [fresh(x, seed=11 + i) for i, x in enumerate(inputs)]):
        with ferric.no_grad():
            want = flat(model(*xs))
        got = run_ort(proto, xs)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w.numpy(), rtol=rtol, atol=atol)
    return proto


def fresh(x, seed):
    """New values like ``x``: floats redrawn, bool masks kept, indices permuted."""
    if x.numel() == 0:
        return x
    if x.is_floating_point():
        return r(*x.shape, seed=seed).to(x.dtype) * x.abs().max().clamp_min(1)
    if x.dtype == ferric.int64:
        return x.flatten().flip(0).reshape(x.shape)
    return x


def r(*shape, seed=0):
    g = ferric.Generator().manual_seed(seed)
    return ferric.randn(*shape, generator=g)


def _bn(cls, c):
    m = cls(c)
    with ferric.no_grad():  # running statistics that are not 0/1, so they matter
        m.running_mean.copy_(r(c, seed=5) * 0.3)
        m.running_var.copy_(r(c, seed=6).abs() + 0.5)
        m.weight.copy_(r(c, seed=7))
        m.bias.copy_(r(c, seed=8))
    return m


LAYERS = [
    ("linear", lambda: nn.Linear(6, 4), [(3, 6)]),
    ("linear_3d", lambda: nn.Linear(6, 4), [(2, 3, 6)]),
    ("linear_nobias", lambda: nn.Linear(6, 4, bias=False), [(2, 3, 6)]),
    ("bilinear", lambda: nn.Bilinear(3, 4, 2), [(5, 3), (5, 4)]),
    ("conv1d", lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1), [(2, 3, 9)]),
    ("conv1d_dilation_groups", lambda: nn.Conv1d(4, 6, 3, dilation=2, groups=2), [(2, 4, 11)]),
    ("conv2d", lambda: nn.Conv2d(2, 5, 3, padding=1), [(2, 2, 7, 6)]),
    ("conv2d_same", lambda: nn.Conv2d(2, 3, (2, 4), padding="same", bias=False),
     [(1, 2, 6, 7)]),
    ("conv2d_stride", lambda: nn.Conv2d(3, 4, 3, stride=(2, 1), padding=(0, 2)),
     [(2, 3, 8, 5)]),
    ("conv2d_reflect", lambda: nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"),
     [(1, 2, 5, 5)]),
    ("conv_transpose2d", lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1,
                                                    output_padding=1), [(1, 3, 4, 4)]),
    ("conv_transpose1d", lambda: nn.ConvTranspose1d(3, 2, 4, stride=2), [(2, 3, 5)]),
    ("maxpool1d", lambda: nn.MaxPool1d(3, stride=2, padding=1), [(2, 3, 10)]),
    ("maxpool2d", lambda: nn.MaxPool2d(2), [(2, 3, 8, 6)]),
    ("maxpool2d_pad", lambda: nn.MaxPool2d(3, stride=2, padding=1), [(1, 2, 7, 7)]),
    ("maxpool2d_dilation", lambda: nn.MaxPool2d(2, dilation=2), [(1, 2, 7, 7)]),
    ("avgpool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1), [(2, 3, 10)]),
    ("avgpool2d", lambda: nn.AvgPool2d(2), [(2, 3, 8, 6)]),
    ("avgpool2d_nopad_count", lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False),
     [(1, 2, 7, 7)]),
    ("adaptive_avg_global", lambda: nn.AdaptiveAvgPool2d(1), [(2, 3, 5, 7)]),
    ("adaptive_avg_2x2", lambda: nn.AdaptiveAvgPool2d((2, 3)), [(2, 3, 4, 6)]),
    ("adaptive_avg1d", lambda: nn.AdaptiveAvgPool1d(4), [(2, 3, 8)]),
    ("adaptive_max2d", lambda: nn.AdaptiveMaxPool2d((1, 1)), [(2, 3, 5, 5)]),
    ("adaptive_max1d", lambda: nn.AdaptiveMaxPool1d(2), [(2, 3, 6)]),
    ("batchnorm1d", lambda: _bn(nn.BatchNorm1d, 4), [(5, 4)]),
    ("batchnorm1d_3d", lambda: _bn(nn.BatchNorm1d, 4), [(5, 4, 3)]),
    ("batchnorm2d", lambda: _bn(nn.BatchNorm2d, 3), [(2, 3, 4, 4)]),
    ("batchnorm_no_stats", lambda: nn.BatchNorm2d(3, track_running_stats=False),
     [(4, 3, 2, 2)]),
    ("layernorm", lambda: nn.LayerNorm(6), [(2, 3, 6)]),
    ("layernorm_2d_noaffine", lambda: nn.LayerNorm((3, 6), elementwise_affine=False),
     [(2, 3, 6)]),
    ("groupnorm", lambda: nn.GroupNorm(2, 4), [(2, 4, 3, 3)]),
    ("rmsnorm", lambda: nn.RMSNorm(6), [(2, 3, 6)]),
    ("instancenorm", lambda: nn.InstanceNorm2d(3), [(2, 3, 4, 4)]),
    ("dropout_eval", lambda: nn.Dropout(0.5), [(3, 4)]),
    ("dropout2d_eval", lambda: nn.Dropout2d(0.5), [(2, 3, 4, 4)]),
    ("flatten", lambda: nn.Flatten(), [(2, 3, 4, 5)]),
    ("flatten_mid", lambda: nn.Flatten(1, 2), [(2, 3, 4, 5)]),
    ("unflatten", lambda: nn.Unflatten(1, (2, 6)), [(3, 12)]),
    ("identity", lambda: nn.Identity(), [(3, 4)]),
    ("zeropad2d", lambda: nn.ZeroPad2d((1, 2, 0, 1)), [(1, 2, 3, 3)]),
    ("reflectpad1d", lambda: nn.ReflectionPad1d(2), [(1, 2, 5)]),
    ("replicationpad2d", lambda: nn.ReplicationPad2d(1), [(1, 2, 3, 3)]),
    ("constantpad1d", lambda: nn.ConstantPad1d((2, 1), 0.5), [(1, 2, 3)]),
]

ACTIVATIONS = [
    nn.ReLU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.Tanh(), nn.Sigmoid(),
    nn.Softmax(dim=1), nn.Softmax(dim=-1), nn.LogSoftmax(dim=1), nn.Softmin(dim=1),
    nn.LeakyReLU(0.2), nn.ELU(0.7), nn.SELU(), nn.CELU(1.3), nn.SiLU(), nn.Mish(),
    nn.Softplus(), nn.Softplus(beta=2.0, threshold=3.0), nn.Hardtanh(-0.5, 0.7), nn.ReLU6(),
    nn.Hardsigmoid(), nn.Hardswish(), nn.Softsign(), nn.LogSigmoid(), nn.Tanhshrink(),
    nn.Threshold(0.1, -2.0), nn.Hardshrink(0.4), nn.Softshrink(0.3), nn.GLU(),
    nn.PReLU(), nn.PReLU(4),
]


@pytest.mark.parametrize("name,make,shapes", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_onnxruntime(name, make, shapes):
    ferric.manual_seed(0)
    check(make(), [r(*s, seed=i) * 2 for i, s in enumerate(shapes)])


@pytest.mark.parametrize("act", ACTIVATIONS, ids=[repr(a) for a in ACTIVATIONS])
def test_activation_matches_onnxruntime(act):
    x = r(3, 4, 6) * 3
    check(act, [x])


def test_activation_float64():
    x = r(3, 4).double()
    # (onnxruntime has no float64 Erf or Softplus kernels, so GELU and Softplus are left out)
    for act in (nn.Tanh(), nn.CELU(0.5), nn.Sigmoid(), nn.LayerNorm(4).double(),
                nn.Linear(4, 2).double()):
        check(act, [x], rtol=1e-10, atol=1e-10)


def test_embedding():
    ferric.manual_seed(0)
    emb = nn.Embedding(10, 4, padding_idx=0)
    idx = ferric.tensor([[1, 2, 0], [9, 3, 3]])
    check(emb, [idx])
    bag = Fn(lambda i: F.embedding(i, emb.weight).sum(1))
    check(bag, [idx])


RNNS = [
    ("lstm", lambda: nn.LSTM(5, 7), False),
    ("lstm_2layer_bidir_batch_first", lambda: nn.LSTM(5, 6, num_layers=2, bidirectional=True,
                                                      batch_first=True), True),
    ("lstm_nobias", lambda: nn.LSTM(5, 4, bias=False), False),
    ("gru", lambda: nn.GRU(5, 7), False),
    ("gru_2layer_bidir", lambda: nn.GRU(5, 3, num_layers=2, bidirectional=True), False),
    ("gru_batch_first", lambda: nn.GRU(5, 4, batch_first=True), True),
    ("rnn_tanh", lambda: nn.RNN(5, 4, num_layers=2), False),
    ("rnn_relu_bidir", lambda: nn.RNN(5, 4, nonlinearity="relu", bidirectional=True), False),
]


@pytest.mark.parametrize("name,make,batch_first", RNNS, ids=[c[0] for c in RNNS])
def test_rnn_matches_onnxruntime(name, make, batch_first):
    ferric.manual_seed(0)
    rnn = make()
    x = r(3, 4, 5) if batch_first else r(4, 3, 5)
    check(rnn, [x])
    # with an initial state given as a graph input
    dirs = 2 if rnn.bidirectional else 1
    h0 = r(rnn.num_layers * dirs, 3, rnn.hidden_size, seed=3)
    if isinstance(rnn, nn.LSTM):
        c0 = r(rnn.num_layers * dirs, 3, rnn.hidden_size, seed=4)
        check(Fn(lambda x, h, c: rnn(x, (h, c))), [x, h0, c0])
    else:
        check(Fn(lambda x, h: rnn(x, h)), [x, h0])


def test_rnn_unbatched_and_cells():
    ferric.manual_seed(0)
    check(nn.LSTM(3, 4), [r(5, 3)])
    check(nn.GRU(3, 4, batch_first=True), [r(5, 3)])
    cell = nn.LSTMCell(3, 4)
    check(Fn(lambda x, h, c: cell(x, (h, c))), [r(2, 3), r(2, 4, seed=1), r(2, 4, seed=2)])
    gcell = nn.GRUCell(3, 4)
    check(Fn(lambda x, h: gcell(x, h)), [r(2, 3), r(2, 4, seed=1)])
    rcell = nn.RNNCell(3, 4)
    check(Fn(lambda x: rcell(x)), [r(2, 3)])


def test_rnn_lstm_nodes_are_onnx_lstm():
    proto = check(nn.LSTM(5, 7, num_layers=2), [r(4, 3, 5)])
    assert [n.op_type for n in proto.graph.node].count("LSTM") == 2
    proto = check(nn.GRU(5, 7), [r(4, 3, 5)])
    gru = [n for n in proto.graph.node if n.op_type == "GRU"]
    assert len(gru) == 1
    assert {a.name: a.i for a in gru[0].attribute}["linear_before_reset"] == 1


ATTENTION = [
    ("mha", lambda: nn.MultiheadAttention(8, 2), (5, 3, 8)),
    ("mha_batch_first", lambda: nn.MultiheadAttention(8, 4, batch_first=True), (3, 5, 8)),
    ("mha_kdim", lambda: nn.MultiheadAttention(8, 2, kdim=6, vdim=4), None),
    ("encoder_layer", lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1), (5, 3, 8)),
    ("encoder_layer_gelu_norm_first", lambda: nn.TransformerEncoderLayer(
        8, 2, 16, activation="gelu", norm_first=True, batch_first=True), (3, 5, 8)),
    ("encoder", lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(
        8, 2, 16, batch_first=True), 2, enable_nested_tensor=False), (3, 5, 8)),
    ("decoder_layer", lambda: nn.TransformerDecoderLayer(8, 2, 16), None),
]


@pytest.mark.parametrize("name,make,shape", ATTENTION, ids=[c[0] for c in ATTENTION])
def test_attention_matches_onnxruntime(name, make, shape):
    ferric.manual_seed(0)
    m = make()
    if name == "mha_kdim":
        q, k, v = r(5, 3, 8), r(4, 3, 6, seed=1), r(4, 3, 4, seed=2)
        check(Fn(lambda q, k, v: m(q, k, v)), [q, k, v])
    elif name == "decoder_layer":
        check(m, [r(5, 3, 8), r(4, 3, 8, seed=1)])
    elif name.startswith("mha"):
        x = r(*shape)
        check(Fn(lambda x: m(x, x, x)), [x])
        check(Fn(lambda x: m(x, x, x, need_weights=False)[0]), [x])
        check(Fn(lambda x: m(x, x, x, average_attn_weights=False)), [x])
    else:
        check(m, [r(*shape)])


def test_attention_masks():
    ferric.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = r(2, 5, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    check(Fn(lambda x: m(x, x, x, attn_mask=causal)[0]), [x])
    pad = ferric.tensor([[False] * 5, [False] * 3 + [True] * 2])
    check(Fn(lambda x, p: m(x, x, x, key_padding_mask=p)[0]), [x, pad])
    q, k, v = r(2, 2, 5, 4), r(2, 2, 6, 4, seed=1), r(2, 2, 6, 4, seed=2)
    check(Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), [q, k, v])
    q6 = r(2, 2, 6, 4, seed=3)
    check(Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
          [q6, k, v])


OPS = [
    # reshapes
    ("view", lambda x: x.view(4, -1), [(2, 3, 4)]),
    ("view_tuple", lambda x: x.view((2, 12)), [(2, 3, 4)]),
    ("reshape_size", lambda x: x.reshape(x.size(0), -1), [(2, 3, 4)]),
    ("reshape_shape", lambda x: x.reshape(x.shape[0] * x.shape[1], x.shape[2]), [(2, 3, 4)]),
    ("view_as", lambda x, y: x.view_as(y), [(2, 6), (3, 4)]),
    ("flatten", lambda x: ferric.flatten(x, 1), [(2, 3, 4)]),
    ("flatten_mid", lambda x: x.flatten(1, 2), [(2, 3, 4, 5)]),
    ("flatten_all", lambda x: x.flatten(), [(2, 3, 4)]),
    ("unflatten", lambda x: x.unflatten(1, (2, 2)), [(3, 4, 5)]),
    ("permute", lambda x: x.permute(2, 0, 1), [(2, 3, 4)]),
    ("permute_neg", lambda x: ferric.permute(x, (-1, 0, 1)), [(2, 3, 4)]),
    ("transpose", lambda x: x.transpose(0, 2), [(2, 3, 4)]),
    ("t", lambda x: x.t(), [(2, 3)]),
    ("T", lambda x: x.T, [(2, 3, 4)]),
    ("mT", lambda x: x.mT, [(2, 3, 4)]),
    ("movedim", lambda x: x.movedim(0, -1), [(2, 3, 4)]),
    ("squeeze", lambda x: x.squeeze(), [(2, 1, 3, 1)]),
    ("squeeze_dim", lambda x: x.squeeze(1), [(2, 1, 3, 1)]),
    ("squeeze_noop", lambda x: x.squeeze(0), [(2, 1, 3, 1)]),
    ("unsqueeze", lambda x: x.unsqueeze(-1).unsqueeze(0), [(2, 3)]),
    ("cat", lambda x, y: ferric.cat([x, y], 1), [(2, 3), (2, 4)]),
    ("cat_neg", lambda x, y: ferric.cat((x, y, x), dim=-1), [(2, 3), (2, 4)]),
    ("stack", lambda x, y: ferric.stack([x, y], 1), [(2, 3), (2, 3)]),
    ("split", lambda x: x.split(2, 1), [(2, 5)]),
    ("split_sizes", lambda x: ferric.split(x, [1, 3, 1], dim=1), [(2, 5)]),
    ("chunk", lambda x: x.chunk(3, -1), [(2, 6)]),
    ("unbind", lambda x: x.unbind(1), [(2, 3)]),
    ("slice", lambda x: x[:, 1:3], [(4, 5)]),
    ("slice_step", lambda x: x[::2, -3:], [(5, 6)]),
    ("index_int", lambda x: x[1], [(4, 5)]),
    ("index_mixed", lambda x: x[..., 0, None, 1:], [(2, 3, 4)]),
    ("index_neg", lambda x: x[:, -1], [(2, 3, 4)]),
    ("index_list", lambda x: x[:, [0, 2, 2]], [(2, 3, 4)]),
    ("narrow", lambda x: x.narrow(1, 1, 2), [(2, 4)]),
    ("select", lambda x: x.select(1, -1), [(2, 4)]),
    ("expand", lambda x: x.expand(3, -1, 4), [(1, 2, 1)]),
    ("expand_as", lambda x, y: x.expand_as(y), [(1, 3), (4, 3)]),
    ("repeat", lambda x: x.repeat(2, 1, 3), [(2, 3)]),
    ("flip", lambda x: x.flip(0, 1), [(2, 3)]),
    ("contiguous_clone", lambda x: x.t().contiguous().clone(), [(2, 3)]),
    ("tril_triu", lambda x: x.tril(-1) + x.triu(1), [(4, 4)]),
    # elementwise arithmetic
    ("add_sub_mul_div", lambda x, y: (x + y) * (x - y) / (y.abs() + 1), [(2, 3), (2, 3)]),
    ("broadcast", lambda x, y: x * y + 1.5, [(2, 3), (3,)]),
    ("scalars", lambda x: 2 - x * 3 + 1 / (x.abs() + 1) - x ** 2, [(2, 3)]),
    ("add_alpha", lambda x, y: ferric.add(x, y, alpha=2.5), [(2, 3), (2, 3)]),
    ("rsub_rdiv", lambda x: 1 - x, [(2, 3)]),
    ("pow", lambda x: x.abs().pow(1.5) + ferric.pow(x, 2), [(2, 3)]),
    ("unary_math", lambda x: x.exp() + (x.abs() + 1).log() + x.abs().sqrt() + x.sin()
     + x.cos() + x.tanh() + x.sigmoid() + x.relu() + x.neg() + x.abs().rsqrt().clamp(0, 9),
     [(2, 3)]),
    ("floor_ceil_round", lambda x: x.floor() + x.ceil() + x.round() + x.sign(), [(3, 4)]),
    ("clamp", lambda x: x.clamp(min=-0.5) + x.clamp(max=0.3) + x.clamp(-1, 1), [(3, 4)]),
    ("maximum_minimum", lambda x, y: ferric.maximum(x, y) - ferric.minimum(x, y),
     [(2, 3), (2, 3)]),
    ("where", lambda x, y: ferric.where(x > y, x, y * 2), [(2, 3), (2, 3)]),
    ("masked_fill", lambda x: x.masked_fill(x < 0, 0.25), [(2, 3)]),
    ("compare_cast", lambda x, y: (x > y).float() + (x <= 0).float() + (x == x).long(),
     [(2, 3), (2, 3)]),
    ("logical", lambda x: ((x > 0) & (x < 1)) | ~(x > -1), [(3, 3)]),
    ("floor_divide", lambda x: x // 0.7 + x % 0.7, [(3, 4)]),
    ("div_modes", lambda x: ferric.div(x, 0.3, rounding_mode="trunc")
     + ferric.div(x, 0.3, rounding_mode="floor"), [(3, 4)]),
    ("inplace", lambda x: x.clone().mul_(2).add_(1).relu_(), [(2, 3)]),
    ("inplace_log1p_std", lambda x: x.abs().log1p_() + x.std(0, keepdim=True), [(2, 3)]),
    ("iterate_rows", lambda x: ferric.stack([row * i for i, row in enumerate(x)]), [(3, 4)]),
    ("var_flags", lambda x: x.var(False) + x.var(1, correction=0).sum(), [(3, 4)]),
    ("iadd", lambda x, y: _iadd(x, y), [(2, 3), (2, 3)]),
    ("cast", lambda x: x.double().float() + x.to(ferric.float64).float(), [(2, 3)]),
    # reductions
    ("sum", lambda x: x.sum() + x.sum(1).sum() + x.sum((0, 2), keepdim=True).sum(), [(2, 3, 4)]),
    ("mean", lambda x: x.mean(-1), [(2, 3, 4)]),
    ("mean_dims", lambda x: x.mean((1, 2), keepdim=True), [(2, 3, 4)]),
    ("amax_amin", lambda x: x.amax(1) + x.amin(-1, keepdim=True).squeeze(-1)[:, :1],
     [(2, 3, 3)]),
    ("max_dim", lambda x: x.max(1), [(2, 3, 4)]),
    ("min_dim", lambda x: ferric.min(x, dim=-1, keepdim=True), [(2, 3, 4)]),
    ("max_all", lambda x: x.max() - x.min(), [(2, 3, 4)]),
    ("argmax", lambda x: x.argmax(1) + x.argmin(-1)[:, :1] + x.argmax(), [(2, 3, 3)]),
    ("prod", lambda x: x.prod(1), [(2, 3)]),
    ("var_std", lambda x: x.var(1) + x.std(1, unbiased=False) + x.var(), [(3, 5)]),
    ("logsumexp", lambda x: x.logsumexp(1), [(3, 5)]),
    ("norm", lambda x: x.norm(dim=1) + x.norm(p=1, dim=1) + x.norm(), [(3, 5)]),
    ("cumsum", lambda x: x.cumsum(1), [(3, 5)]),
    ("softmax_fns", lambda x: ferric.softmax(x, 1) + x.log_softmax(-1).exp(), [(3, 5)]),
    ("normalize", lambda x: F.normalize(x, dim=1), [(3, 5)]),
    ("cosine_similarity", lambda x, y: F.cosine_similarity(x, y), [(3, 5), (3, 5)]),
    # matmul
    ("matmul", lambda x, y: x @ y, [(2, 3), (3, 4)]),
    ("matmul_batched", lambda x, y: ferric.matmul(x, y), [(5, 2, 3), (3, 4)]),
    ("bmm", lambda x, y: ferric.bmm(x, y), [(5, 2, 3), (5, 3, 4)]),
    ("mm_mv", lambda x, y: x.mm(y).sum(1) + x.mv(y[:, 0]), [(2, 3), (3, 4)]),
    ("addmm", lambda b, x, y: ferric.addmm(b, x, y, beta=0.5, alpha=2.0), [(4,), (2, 3), (3, 4)]),
    ("einsum", lambda x, y: ferric.einsum("bij,bjk->bik", x, y), [(2, 2, 3), (2, 3, 4)]),
    ("linear_fn", lambda x, w: F.linear(x, w), [(2, 3), (4, 3)]),
    # factories that read traced shapes
    ("zeros_like", lambda x: x + ferric.zeros_like(x) + ferric.ones_like(x), [(2, 3)]),
    ("arange_fixed", lambda x: x + ferric.arange(3), [(2, 3)]),
]


def _iadd(x, y):
    z = x * 1
    z += y
    z *= 2
    return z


@pytest.mark.parametrize("name,fn,shapes", OPS, ids=[c[0] for c in OPS])
def test_op_matches_onnxruntime(name, fn, shapes):
    check(Fn(fn), [r(*s, seed=i) for i, s in enumerate(shapes)], atol=5e-5)


# the cases whose ONNX differs below opset 18 (reductions, norms, shape slicing, ...)
_OLD_OPSET_OPS = {"sum", "mean_dims", "amax_amin", "max_dim", "max_all", "var_std",
                  "logsumexp", "norm", "prod", "flatten_mid", "unflatten", "reshape_size",
                  "tril_triu", "softmax_fns"}


@pytest.mark.parametrize("opset", [13, 17])
def test_older_opsets(opset):
    """Below 18 reductions take attributes, below 17 LayerNorm is composed, below 15
    Shape has no slice attributes, below 14 HardSwish is composed (Trilu is refused)."""
    for name, make, shapes in LAYERS:
        if "norm" in name or "pool" in name:
            ferric.manual_seed(0)
            check(make(), [r(*s, seed=i) * 2 for i, s in enumerate(shapes)],
                  opset_version=opset)
    for name, fn, shapes in OPS:
        if name in _OLD_OPSET_OPS and not (opset < 14 and name == "tril_triu"):
            check(Fn(fn), [r(*s, seed=i) for i, s in enumerate(shapes)], atol=5e-5,
                  opset_version=opset)
    for act in (nn.Hardswish(), nn.GELU(), nn.GELU(approximate="tanh"), nn.Softmax(1)):
        check(act, [r(3, 4, 6) * 3], opset_version=opset)
    x = r(3, 4, 6)
    check(Fn(lambda x: x.view(x.size(0), -1).sum(1)), [x], opset_version=opset,
          input_names=["x"], dynamic_axes={"x": [0]})
    if opset < 14:
        with pytest.raises(UnsupportedOperatorError, match="Trilu needs opset 14"):
            check(Fn(lambda x: x.tril()), [r(3, 3)], opset_version=opset)


@pytest.mark.parametrize("kind", KINDS)
def test_example_input_layouts(kind):
    """The example input may be any view (transposed, stepped, broadcast, empty, 0-d):
    the graph input takes its shape and the values flow as NumPy has them."""
    arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1
    x, values = laid_out(arr, kind)
    fn = Fn(lambda x: (x * 2 + x.abs()).sum(-1) if x.dim() else x * 2 + x.abs())
    proto = check(fn, [x])
    got = run_ort(proto, [x])[0]
    want = values * 2 + np.abs(values)
    np.testing.assert_allclose(got, want.sum(-1) if want.ndim else want, rtol=1e-6)


_DIM = st.integers(1, 5)


@st.composite
def _index(draw):
    shape = draw(st.lists(_DIM, min_size=1, max_size=3))
    items = []
    for n in shape[: draw(st.integers(1, len(shape)))]:
        kind = draw(st.sampled_from(["int", "slice", "full", "none"]))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            stop = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            items.append(slice(start, stop, draw(st.one_of(st.none(), st.integers(1, 3)))))
        elif kind == "none":
            items.append(None)
            items.append(slice(None))
        else:
            items.append(slice(None))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return shape, tuple(items)


@settings(max_examples=40, deadline=None)
@given(_index())
def test_indexing_property(case):
    """Any basic index (ints, slices with steps and out-of-range bounds, None, ...)
    exports to the same values NumPy and ferric give."""
    shape, index = case
    x = ferric.arange(int(np.prod(shape)), dtype=ferric.float32).reshape(shape)
    proto = ferric.onnx.export(Fn(lambda x: x[index] * 1).eval(), (x,)).model_proto
    want = x.numpy()[index] * 1
    got = run_ort(proto, [x])[0]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@settings(max_examples=25, deadline=None)
@given(st.lists(_DIM, min_size=1, max_size=4), st.data())
def test_reduction_property(shape, data):
    """sum/mean/amax over any set of dims, with and without keepdim."""
    rank = len(shape)
    dims = data.draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                              unique_by=lambda d: d % rank))
    keep = data.draw(st.booleans())
    op = data.draw(st.sampled_from(["sum", "mean", "amax"]))
    x = r(*shape)
    fn = Fn(lambda x: getattr(x, op)(tuple(dims), keepdim=keep))
    proto = ferric.onnx.export(fn.eval(), (x,)).model_proto
    want = getattr(np, {"sum": "sum", "mean": "mean", "amax": "max"}[op])(
        x.numpy(), axis=tuple(dims), keepdims=keep)
    np.testing.assert_allclose(run_ort(proto, [x])[0], want, rtol=1e-5, atol=1e-6)
