"""Recurrent layers, their cells, MultiheadAttention and the Transformer blocks against
PyTorch (same machinery as test_vs_torch.py: identical weights and inputs, forward in
float64 and float32, gradients, bit-identical default init, structure and repr)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch_compat import (  # noqa: E402
    Case,
    as_lib,
    check_case,
    check_default_init,
    check_structure,
    with_dtypes,
    with_marks,
)

import ferric  # noqa: E402


def _nn(name, *args, **kwargs):
    return lambda lib: getattr(lib.nn, name)(*args, **kwargs)


def seq(*shapes):
    return lambda rng: [rng.standard_normal(s) if s is not None else None for s in shapes]


def lstm_in(x, h, c):
    return lambda rng: [rng.standard_normal(x), (rng.standard_normal(h),
                                                 rng.standard_normal(c))]


def packed(lengths, enforce_sorted=True, batch_first=False, with_hx=False):
    """Runs the RNN on ``pack_padded_sequence(x, lengths)`` and unpads the result."""

    def call(lib, m, xs):
        rnn = lib.nn.utils.rnn
        p = rnn.pack_padded_sequence(xs[0], lengths, batch_first=batch_first,
                                     enforce_sorted=enforce_sorted)
        out, h = m(p, xs[1]) if with_hx else m(p)
        padded, lens = rnn.pad_packed_sequence(out, batch_first=batch_first)
        return padded, h, lens, out.data

    return call


def pack_seq(lengths, enforce_sorted):
    """Runs the RNN on ``pack_sequence`` of per-length slices of the input."""

    def call(lib, m, xs):
        rnn = lib.nn.utils.rnn
        seqs = [xs[0][:n, i] for i, n in enumerate(lengths)]
        out, h = m(rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted))
        return rnn.pad_packed_sequence(out, batch_first=True, total_length=7)[0], h

    return call


RNN_CASES = [
    Case("RNN", _nn("RNN", 4, 5), seq((6, 3, 4))),
    Case("RNN-relu-2layer", _nn("RNN", 4, 5, 2, nonlinearity="relu"), seq((6, 3, 4))),
    Case("RNN-positional-relu", _nn("RNN", 4, 5, 1, "relu", False), seq((6, 3, 4))),
    Case("RNN-bidir-batchfirst-h0", _nn("RNN", 4, 5, num_layers=2, bidirectional=True,
                                        batch_first=True), seq((3, 6, 4), (4, 3, 5))),
    Case("RNN-unbatched", _nn("RNN", 4, 5, bidirectional=True), seq((6, 4), (2, 5))),
    Case("RNN-dropout-eval", _nn("RNN", 4, 5, 3, dropout=0.5), seq((6, 3, 4)), train=False),
    Case("LSTM", _nn("LSTM", 4, 5), seq((6, 3, 4))),
    Case("LSTM-2layer-bidir-hx", _nn("LSTM", 4, 5, 2, bidirectional=True),
         lstm_in((6, 3, 4), (4, 3, 5), (4, 3, 5))),
    Case("LSTM-batchfirst-nobias", _nn("LSTM", 3, 4, batch_first=True, bias=False),
         seq((2, 5, 3))),
    Case("LSTM-proj", _nn("LSTM", 4, 6, 2, proj_size=3, bidirectional=True),
         lstm_in((5, 2, 4), (4, 2, 3), (4, 2, 6))),
    Case("LSTM-unbatched-hx", _nn("LSTM", 4, 5, batch_first=True),
         lstm_in((6, 4), (1, 5), (1, 5))),
    Case("GRU", _nn("GRU", 4, 5), seq((6, 3, 4))),
    Case("GRU-3layer-bidir-batchfirst", _nn("GRU", 4, 3, 3, batch_first=True,
                                            bidirectional=True), seq((2, 5, 4), (6, 2, 3))),
    Case("GRU-unbatched", _nn("GRU", 4, 5, 2), seq((6, 4))),
    # packed sequences
    Case("RNN-packed-sorted", _nn("RNN", 4, 5, 2), seq((7, 4, 4)),
         call=packed([7, 5, 5, 2])),
    Case("LSTM-packed-unsorted-bidir", _nn("LSTM", 4, 5, 2, bidirectional=True),
         seq((7, 4, 4)), call=packed([3, 7, 1, 5], enforce_sorted=False)),
    Case("LSTM-packed-unsorted-hx", _nn("LSTM", 4, 5),
         lstm_in((7, 3, 4), (1, 3, 5), (1, 3, 5)),
         call=packed([2, 7, 4], enforce_sorted=False, with_hx=True)),
    Case("GRU-packed-batchfirst", _nn("GRU", 4, 5, bidirectional=True, batch_first=True),
         seq((3, 7, 4)), call=packed([4, 7, 7], enforce_sorted=False, batch_first=True)),
    Case("GRU-packed-hx", _nn("GRU", 4, 5, 2, bidirectional=True), seq((7, 3, 4), (4, 3, 5)),
         call=packed([7, 6, 2], with_hx=True)),
    Case("LSTM-pack_sequence", _nn("LSTM", 4, 5), seq((7, 3, 4)),
         call=pack_seq([7, 4, 2], True)),
    Case("GRU-pack_sequence-unsorted", _nn("GRU", 4, 5), seq((7, 3, 4)),
         call=pack_seq([2, 7, 4], False)),
    # cells
    Case("RNNCell", _nn("RNNCell", 4, 5), seq((3, 4), (3, 5))),
    Case("RNNCell-nohx-relu", _nn("RNNCell", 4, 5, nonlinearity="relu"), seq((3, 4))),
    Case("RNNCell-unbatched-nobias", _nn("RNNCell", 4, 5, bias=False), seq((4,), (5,))),
    Case("LSTMCell", _nn("LSTMCell", 4, 5), lstm_in((3, 4), (3, 5), (3, 5))),
    Case("LSTMCell-nohx", _nn("LSTMCell", 4, 5), seq((3, 4))),
    Case("LSTMCell-unbatched", _nn("LSTMCell", 4, 5), lstm_in((4,), (5,), (5,))),
    Case("GRUCell", _nn("GRUCell", 4, 5), seq((3, 4), (3, 5))),
    Case("GRUCell-nohx-unbatched", _nn("GRUCell", 4, 5, bias=False), seq((4,))),
]


def _mask(lib, arr):
    return as_lib(lib, arr)


def mha(key_padding_mask=None, attn_mask=None, **kwargs):
    """Calls MHA(q, k, v) with masks built from fixed NumPy arrays (not inputs: float
    masks carry no gradient)."""

    def call(lib, m, xs):
        kpm = None if key_padding_mask is None else _mask(lib, key_padding_mask)
        am = None if attn_mask is None else _mask(lib, attn_mask)
        if am is not None and am.is_floating_point():
            am = am.to(xs[0].dtype)
        if kpm is not None and kpm.is_floating_point():
            kpm = kpm.to(xs[0].dtype)
        return m(xs[0], xs[1], xs[2], key_padding_mask=kpm, attn_mask=am, **kwargs)

    return call


_KPM = np.array([[False, False, True, False, True], [False, True, False, False, False]])
_AM_BOOL = np.triu(np.ones((4, 5), dtype=bool), 2)
_AM_FLOAT = np.random.default_rng(5).standard_normal((4, 5))
_AM_3D = np.random.default_rng(6).standard_normal((2 * 2, 4, 5))
_AM_SQUARE = np.random.default_rng(7).standard_normal((5, 5))
_CAUSAL = np.triu(np.full((4, 4), -np.inf), 1)
_KPM_FLOAT = np.where(_KPM, -np.inf, 0.0)

MHA_CASES = [
    Case("MHA", _nn("MultiheadAttention", 8, 2), seq((4, 2, 8), (5, 2, 8), (5, 2, 8)),
         call=mha()),
    Case("MHA-selfattn", _nn("MultiheadAttention", 8, 4),
         lambda rng: [rng.standard_normal((4, 2, 8))] * 3, call=mha()),
    Case("MHA-kpm", _nn("MultiheadAttention", 8, 2), seq((4, 2, 8), (5, 2, 8), (5, 2, 8)),
         call=mha(key_padding_mask=_KPM)),
    Case("MHA-kpm-float", _nn("MultiheadAttention", 8, 2),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)), call=mha(key_padding_mask=_KPM_FLOAT)),
    Case("MHA-boolmask-noavg", _nn("MultiheadAttention", 8, 2),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)),
         call=mha(attn_mask=_AM_BOOL, average_attn_weights=False)),
    Case("MHA-floatmask-kpm", _nn("MultiheadAttention", 8, 2),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)),
         call=mha(key_padding_mask=_KPM, attn_mask=_AM_FLOAT)),
    Case("MHA-3dmask", _nn("MultiheadAttention", 8, 2), seq((4, 2, 8), (5, 2, 8), (5, 2, 8)),
         call=mha(attn_mask=_AM_3D)),
    Case("MHA-noweights", _nn("MultiheadAttention", 8, 2),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)), call=mha(need_weights=False)),
    Case("MHA-causal", _nn("MultiheadAttention", 8, 2), seq((4, 2, 8), (4, 2, 8), (4, 2, 8)),
         call=mha(attn_mask=_CAUSAL, is_causal=True)),
    Case("MHA-batchfirst", _nn("MultiheadAttention", 6, 3, batch_first=True),
         seq((2, 4, 6), (2, 5, 6), (2, 5, 6)), call=mha(key_padding_mask=_KPM)),
    Case("MHA-kdim-vdim", _nn("MultiheadAttention", 8, 2, kdim=3, vdim=5),
         seq((4, 2, 8), (5, 2, 3), (5, 2, 5)), call=mha(attn_mask=_AM_BOOL)),
    Case("MHA-nobias", _nn("MultiheadAttention", 8, 2, bias=False),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)), call=mha()),
    Case("MHA-bias-kv-zero-attn", _nn("MultiheadAttention", 8, 2, add_bias_kv=True,
                                      add_zero_attn=True),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)), call=mha()),
    Case("MHA-unbatched", _nn("MultiheadAttention", 8, 2),
         seq((4, 8), (5, 8), (5, 8)), call=mha(key_padding_mask=_KPM[0])),
    Case("MHA-dropout-eval", _nn("MultiheadAttention", 8, 2, dropout=0.5),
         seq((4, 2, 8), (5, 2, 8), (5, 2, 8)), call=mha(), train=False),
]


def encoder(src_mask=None, kpm=None, is_causal=False, mask_kw="src_mask"):
    def call(lib, m, xs):
        sm = None if src_mask is None else _mask(lib, src_mask)
        if sm is not None and sm.is_floating_point():
            sm = sm.to(xs[0].dtype)
        k = None if kpm is None else _mask(lib, kpm)
        return m(xs[0], src_key_padding_mask=k, is_causal=is_causal, **{mask_kw: sm})

    return call


def decoder(tgt_mask=None, memory_kpm=None):
    def call(lib, m, xs):
        tm = None if tgt_mask is None else _mask(lib, tgt_mask).to(xs[0].dtype)
        k = None if memory_kpm is None else _mask(lib, memory_kpm)
        return m(xs[0], xs[1], tgt_mask=tm, memory_key_padding_mask=k)

    return call


def transformer(lib, m, xs):
    mask = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=xs[0].dtype)
    return m(xs[0], xs[1], tgt_mask=mask, src_key_padding_mask=_mask(lib, _KPM),
             memory_key_padding_mask=_mask(lib, _KPM))


def _layer(name, *args, **kwargs):
    return _nn(name, *args, dim_feedforward=12, **kwargs)


TRANSFORMER_CASES = [
    Case("EncoderLayer", _layer("TransformerEncoderLayer", 8, 2, dropout=0.0),
         seq((5, 2, 8)), call=encoder()),
    Case("EncoderLayer-normfirst-gelu", _layer(
        "TransformerEncoderLayer", 8, 2, dropout=0.0, norm_first=True, activation="gelu"),
         seq((5, 2, 8)), call=encoder(kpm=_KPM)),
    Case("EncoderLayer-eval-batchfirst", _layer(
        "TransformerEncoderLayer", 8, 4, batch_first=True, layer_norm_eps=1e-3),
         seq((2, 5, 8)), call=encoder(kpm=_KPM), train=False),
    Case("EncoderLayer-causal-nobias", _layer(
        "TransformerEncoderLayer", 8, 2, dropout=0.0, bias=False),
         seq((4, 2, 8)), call=encoder(src_mask=_CAUSAL, is_causal=True)),
    Case("Encoder-2layers-norm", lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(8, 2, 12, dropout=0.0), 2, norm=lib.nn.LayerNorm(8),
        enable_nested_tensor=False), seq((5, 2, 8)),
         call=encoder(src_mask=_AM_SQUARE, kpm=_KPM, mask_kw="mask")),
    Case("DecoderLayer", _layer("TransformerDecoderLayer", 8, 2, dropout=0.0),
         seq((4, 2, 8), (5, 2, 8)), call=decoder(tgt_mask=_CAUSAL, memory_kpm=_KPM)),
    Case("DecoderLayer-normfirst-eval", _layer(
        "TransformerDecoderLayer", 8, 2, norm_first=True, activation="gelu"),
         seq((4, 2, 8), (5, 2, 8)), call=decoder(), train=False),
    Case("Decoder-2layers", lambda lib: lib.nn.TransformerDecoder(
        lib.nn.TransformerDecoderLayer(8, 2, 12, dropout=0.0), 2),
         seq((4, 2, 8), (5, 2, 8)), call=decoder(tgt_mask=_CAUSAL)),
    Case("Transformer", lambda lib: lib.nn.Transformer(
        8, 2, 1, 1, 12, dropout=0.0), seq((5, 2, 8), (4, 2, 8)), call=transformer),
]

CASES = RNN_CASES + MHA_CASES + TRANSFORMER_CASES
CASE_IDS = [c.id for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS)


@pytest.mark.parametrize(("case", "dtype"), with_dtypes(CASES))
def test_forward_backward(case, dtype):
    check_case(case, dtype)


@pytest.mark.parametrize("case", with_marks(RNN_CASES + MHA_CASES[:4]))
def test_permuted_input(case):
    check_case(case, "float64", layout="permuted")


@pytest.mark.parametrize("case", with_marks(CASES, numeric=False))
def test_default_init_is_bit_identical(case):
    check_default_init(case.make, seed=11)


@pytest.mark.parametrize("case", with_marks(CASES, numeric=False))
def test_structure(case):
    check_structure(case.make)


_LEFT = np.array([[False, False, True, True, True], [False, False, False, False, False],
                  [False, True, True, True, True]])
_GAP = np.array([[False, True, False, False, False], [False] * 5,
                 [False, False, True, True, True]])


@pytest.mark.parametrize(("layer_kw", "kpm", "grad", "with_norm", "float_mask"), [
    ({"batch_first": True}, _LEFT, False, False, False),
    ({"batch_first": True}, _LEFT, False, True, False),
    ({"batch_first": True, "activation": "gelu"}, _LEFT, False, True, True),
    ({"batch_first": True}, _GAP, False, False, False),  # not left-aligned: no zeros
    ({"batch_first": True}, _LEFT, True, False, False),  # grad enabled: no zeros
    ({"batch_first": True, "nhead": 1}, _LEFT, False, False, False),  # odd heads
    ({}, _LEFT.T.copy(), False, False, False),  # sequence-first
], ids=["left", "left-norm", "gelu-floatmask", "gap", "grad", "odd-heads", "seq-first"])
def test_encoder_inference_padding_like_torch(layer_kw, kpm, grad, with_norm, float_mask):
    """Inference with a key padding mask: where PyTorch packs the batch into a nested
    tensor, the padded positions come back as zeros (then the final norm)."""
    layer_kw = dict(layer_kw)
    nhead = layer_kw.pop("nhead", 2)
    batch_first = layer_kw.get("batch_first", False)
    mask = kpm if batch_first else kpm.T
    shape = (3, 5, 8) if batch_first else (5, 3, 8)
    x = np.random.default_rng(1).standard_normal(shape)
    outs = []
    for lib in (ferric, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            enc = lib.nn.TransformerEncoder(
                lib.nn.TransformerEncoderLayer(8, nhead, 12, **layer_kw), 2,
                norm=lib.nn.LayerNorm(8) if with_norm else None)
        enc.eval()
        m = as_lib(lib, np.where(mask, -np.inf, 0.0) if float_mask else mask)
        if float_mask:
            m = m.float()
        src = as_lib(lib, x).float()
        with lib.set_grad_enabled(grad):
            outs.append(enc(src, src_key_padding_mask=m))
    np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(),
                               rtol=1e-5, atol=1e-5)
