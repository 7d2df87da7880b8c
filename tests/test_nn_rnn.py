"""RNN / LSTM / GRU (and cells) against a per-sequence NumPy implementation, including
multi-layer, bidirectional, projections, batch_first, initial states and packed
sequences; the nn.utils.rnn packing helpers; gradchecks in float64."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import close, f64, module_gradcheck, np_of, rand

import ferric
from ferric import nn
from ferric.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def np_cell(mode, x, h, c, p, sfx):
    """One step for one sample, with PyTorch's gate order (i,f,g,o / r,z,n)."""
    w_ih, w_hh = p["weight_ih" + sfx], p["weight_hh" + sfx]
    b_ih = p.get("bias_ih" + sfx, 0)
    b_hh = p.get("bias_hh" + sfx, 0)
    gi = w_ih @ x + b_ih
    gh = w_hh @ h + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        if "weight_hr" + sfx in p:
            h = p["weight_hr" + sfx] @ h
        return h, c
    if mode == "GRU":
        ir, iz, in_ = np.split(gi, 3)
        hr, hz, hn = np.split(gh, 3)
        r, z = _sig(ir + hr), _sig(iz + hz)
        n = np.tanh(in_ + r * hn)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def np_rnn(module, x, h0=None, c0=None, lengths=None):
    """Reference forward for sequence-first x (T, B, F); each sample runs on its own
    (length-limited) sequence. Returns (output (T, B, D*H) zero-padded, h_n, c_n)."""
    p = {k: np_of(v) for k, v in module.named_parameters()}
    mode = module.mode
    T, B, _ = x.shape
    D = 2 if module.bidirectional else 1
    H = module.hidden_size
    Hr = module.proj_size or H
    L = module.num_layers
    lengths = lengths if lengths is not None else [T] * B
    h0 = np.zeros((L * D, B, Hr)) if h0 is None else h0
    c0 = np.zeros((L * D, B, H)) if c0 is None else c0
    out = np.zeros((T, B, D * Hr))
    hn, cn = np.zeros((L * D, B, Hr)), np.zeros((L * D, B, H))
    for b in range(B):
        seq = x[: lengths[b], b]
        for layer in range(L):
            outs = []
            for d in range(D):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                k = layer * D + d
                h, c = h0[k, b], c0[k, b]
                res = [None] * len(seq)
                steps = range(len(seq) - 1, -1, -1) if d else range(len(seq))
                for t in steps:
                    h, c = np_cell(mode, seq[t], h, c, p, sfx)
                    res[t] = h
                hn[k, b] = h
                if c is not None:
                    cn[k, b] = c
                outs.append(np.stack(res))
            seq = np.concatenate(outs, axis=1)
        out[: lengths[b], b] = seq
    return out, hn, cn


CONFIGS = [
    ("rnn_tanh", lambda: nn.RNN(3, 4)),
    ("rnn_relu_bi_h0", lambda: nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)),
    ("lstm_2layer_bi", lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True)),
    ("lstm_proj", lambda: nn.LSTM(3, 5, proj_size=2)),
    ("gru_2layer_nobias", lambda: nn.GRU(3, 4, num_layers=2, bias=False)),
    ("gru_bi", lambda: nn.GRU(3, 2, bidirectional=True)),
]


@pytest.mark.parametrize("name,ctor", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_recurrent_layers_vs_numpy(name, ctor):
    ferric.manual_seed(0)
    m = ctor().double()
    D = 2 if m.bidirectional else 1
    Hr = m.proj_size or m.hidden_size
    x = rand((5, 3, 3), 1, -2, 2)
    h0 = rand((m.num_layers * D, 3, Hr), 2)
    c0 = rand((m.num_layers * D, 3, m.hidden_size), 3)
    is_lstm = m.mode == "LSTM"
    hx = (f64(h0), f64(c0)) if is_lstm else f64(h0)
    out, h = m(f64(x), hx)
    ref_out, ref_h, ref_c = np_rnn(m, x, h0, c0)
    close(out, ref_out)
    if is_lstm:
        close(h[0], ref_h)
        close(h[1], ref_c)
    else:
        close(h, ref_h)
    # zero initial state by default; batch_first; unbatched input
    out0, _ = m(f64(x))
    close(out0, np_rnn(m, x)[0])
    m.batch_first = True
    outb, _ = m(f64(x.transpose(1, 0, 2)))
    close(outb, np_rnn(m, x)[0].transpose(1, 0, 2))
    m.batch_first = False
    outu, hu = m(f64(x[:, 0]))
    close(outu, np_rnn(m, x[:, :1])[0][:, 0])
    assert (hu[0] if is_lstm else hu).shape == (m.num_layers * D, Hr)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences_vs_numpy(mode, enforce_sorted):
    ferric.manual_seed(1)
    m = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True).double()
    lengths = [5, 4, 2, 2] if enforce_sorted else [2, 5, 2, 4]
    x = rand((5, 4, 3), 4)
    h0 = rand((4, 4, 4), 5)
    hx = (f64(h0), f64(h0 * 0.5)) if mode == "LSTM" else f64(h0)
    packed = pack_padded_sequence(f64(x), lengths, enforce_sorted=enforce_sorted)
    out, h = m(packed, hx)
    assert isinstance(out, PackedSequence)
    padded, lens = pad_packed_sequence(out)
    assert lens.tolist() == lengths
    ref_out, ref_h, ref_c = np_rnn(m, x, h0, h0 * 0.5, lengths)
    close(padded, ref_out)
    if mode == "LSTM":
        close(h[0], ref_h)
        close(h[1], ref_c)
    else:
        close(h, ref_h)


def test_cells_vs_numpy():
    ferric.manual_seed(2)
    x, h, c = rand((2, 3), 6), rand((2, 4), 7), rand((2, 4), 8)
    for cell, mode in [(nn.RNNCell(3, 4), "RNN_TANH"), (nn.RNNCell(3, 4, nonlinearity="relu"),
                                                          "RNN_RELU"),
                       (nn.GRUCell(3, 4), "GRU"), (nn.LSTMCell(3, 4, bias=False), "LSTM")]:
        cell = cell.double()
        p = {k: np_of(v) for k, v in cell.named_parameters()}
        ref = [np_cell(mode, x[b], h[b], c[b], p, "") for b in range(2)]
        if mode == "LSTM":
            hy, cy = cell(f64(x), (f64(h), f64(c)))
            close(hy, np.stack([r[0] for r in ref]))
            close(cy, np.stack([r[1] for r in ref]))
            hu, cu = cell(f64(x[0]))
            close(hu, np_cell(mode, x[0], np.zeros(4), np.zeros(4), p, "")[0])
        else:
            close(cell(f64(x), f64(h)), np.stack([r[0] for r in ref]))
            close(cell(f64(x[1])), np_cell(mode, x[1], np.zeros(4), None, p, "")[0])
        module_gradcheck(cell, f64(x[:1, :], requires_grad=True),
                         out=(lambda r: r[0]) if mode == "LSTM" else None)


GRAD_CONFIGS = [
    ("lstm_bi", lambda: nn.LSTM(2, 2, bidirectional=True), lambda r: (r[0], *r[1])),
    ("gru_2layer", lambda: nn.GRU(2, 2, num_layers=2), lambda r: (r[0], r[1])),
    ("rnn", lambda: nn.RNN(2, 2), lambda r: (r[0], r[1])),
]


@pytest.mark.parametrize("name,ctor,out", GRAD_CONFIGS, ids=[g[0] for g in GRAD_CONFIGS])
def test_recurrent_gradcheck(name, ctor, out):
    ferric.manual_seed(3)
    m = ctor().double()
    module_gradcheck(m, f64(rand((3, 1, 2), 9), requires_grad=True), out=out)


def test_packed_gradcheck():
    ferric.manual_seed(4)
    m = nn.GRU(2, 2, bidirectional=True).double()
    x = f64(rand((3, 2, 2), 10), requires_grad=True)

    def fn(inp):
        out, h = m(pack_padded_sequence(inp, [3, 1]))
        return out.data, h

    assert ferric.autograd.gradcheck(fn, (x,))


def test_dropout_between_layers():
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5).double()
    x = f64(rand((4, 2, 3), 11))
    ferric.manual_seed(0)
    a = m(x)[0]
    ferric.manual_seed(1)
    b = m(x)[0]
    assert not np.allclose(np_of(a), np_of(b))  # training: dropout is active
    m.eval()
    close(m(x)[0], np_rnn(m, np_of(x))[0])  # eval: no dropout
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        nn.GRU(3, 4, dropout=0.2)


def test_parameter_names_and_reprs():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    names = [k for k, _ in m.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                         "weight_hr_l0"]
    assert names[5:10] == ["weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse",
                           "bias_hh_l0_reverse", "weight_hr_l0_reverse"]
    assert m.weight_ih_l1.shape == (16, 4) and m.weight_hh_l1.shape == (16, 2)
    assert m.weight_hr_l1_reverse.shape == (2, 4)
    assert len(m.all_weights) == 4 and m._flat_weights_names == names
    assert repr(nn.LSTM(10, 20, 2, batch_first=True, bidirectional=True, dropout=0.5)) == \
        "LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bias=False)) == "RNN(3, 4, bias=False)"
    assert repr(nn.LSTM(3, 4, proj_size=2)) == "LSTM(3, 4, proj_size=2)"
    assert repr(nn.GRUCell(3, 4)) == "GRUCell(3, 4)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(nn.LSTMCell(3, 4, bias=False)) == "LSTMCell(3, 4, bias=False)"
    m.flatten_parameters()


RNN_ERRORS = [
    (lambda: nn.LSTM(3, 4)(ferric.zeros(2, 3, 5)), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 3, got 5"),
    (lambda: nn.GRU(3, 4)(ferric.zeros(2, 2, 3), ferric.zeros(2, 2, 4)), RuntimeError,
     "Expected hidden size (1, 2, 4), got [2, 2, 4]"),
    (lambda: nn.LSTM(3, 4)(ferric.zeros(2, 2, 3), (ferric.zeros(1, 2, 4), ferric.zeros(1, 2, 3))),
     RuntimeError, "Expected hidden[1] size (1, 2, 4), got [1, 2, 3]"),
    (lambda: nn.RNN(3, 4)(ferric.zeros(2, 3), ferric.zeros(1, 1, 4)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: nn.LSTM(3, 4)(ferric.zeros(2, 2, 3), (ferric.zeros(1, 4), ferric.zeros(1, 4))),
     RuntimeError,
     "For batched 3-D input, hx and cx should also be 3-D but got (2-D, 2-D) tensors"),
    (lambda: nn.RNN(3, 4)(ferric.zeros(2)), ValueError,
     "RNN: Expected input to be 2D or 3D, got 1D"),
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, "Unknown nonlinearity 'sigmoid'"),
    (lambda: nn.GRU(3, 4, proj_size=2), ValueError,
     "proj_size argument is only supported for LSTM"),
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError,
     "proj_size has to be smaller than hidden_size"),
    (lambda: nn.LSTM(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: nn.LSTM(3, 4, num_layers=0), ValueError, "num_layers must be greater than zero"),
    (lambda: nn.LSTM(3, 4, dropout=2), ValueError, "dropout should be a number in range [0, 1]"),
    (lambda: nn.LSTM(3, 4.0), TypeError, "hidden_size should be of type int, got: float"),
    (lambda: nn.GRUCell(3, 4)(ferric.zeros(1, 1, 3)), ValueError,
     "GRUCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: pack_padded_sequence(ferric.zeros(3, 2, 1), [1, 2]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True"),
    (lambda: pack_padded_sequence(ferric.zeros(3, 2, 1), [2, 0]), RuntimeError,
     "Length of all samples has to be greater than 0"),
    (lambda: pack_padded_sequence(ferric.zeros(3, 2, 1), [3, 2, 1]), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 3 (batch_size=2)"),
    (lambda: pad_packed_sequence(pack_sequence([ferric.ones(3), ferric.ones(2)]), total_length=2),
     ValueError, "Expected total_length to be at least the length of the longest sequence"),
    (lambda: pad_sequence([ferric.ones(2)], padding_side="middle"), RuntimeError,
     "Expected padding_side to be one of left or right, but got middle."),
]


@pytest.mark.parametrize("call,exc,msg", RNN_ERRORS, ids=[str(i) for i in range(len(RNN_ERRORS))])
def test_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert msg in str(info.value)


def test_packing_utilities():
    seqs = [f64([[1.0], [2.0], [3.0]]), f64([[4.0]]), f64([[5.0], [6.0]])]
    padded = pad_sequence(seqs)
    assert padded.shape == (3, 3, 1)
    close(padded[:, :, 0], [[1, 4, 5], [2, 0, 6], [3, 0, 0]])
    close(pad_sequence(seqs, batch_first=True, padding_value=-1)[1, :, 0], [4, -1, -1])
    close(pad_sequence(seqs, batch_first=True, padding_side="left")[2, :, 0], [0, 5, 6])
    p = pack_sequence(seqs, enforce_sorted=False)
    assert p.batch_sizes.tolist() == [3, 2, 1]
    assert p.sorted_indices.tolist() == [0, 2, 1] and p.unsorted_indices.tolist() == [0, 2, 1]
    close(p.data[:, 0], [1, 5, 4, 2, 6, 3])
    back, lens = pad_packed_sequence(p, batch_first=True, total_length=4)
    assert back.shape == (3, 4, 1) and lens.tolist() == [3, 1, 2]
    close(back[:, :, 0], [[1, 2, 3, 0], [4, 0, 0, 0], [5, 6, 0, 0]])
    for a, b in zip(unpack_sequence(p), seqs, strict=True):
        close(a, np_of(b))
    for a, b in zip(unpad_sequence(padded, [3, 1, 2]), seqs, strict=True):
        close(a, np_of(b))
    # stable descending sort of equal lengths (PyTorch gives [1, 3, 0, 2])
    q = pack_padded_sequence(ferric.zeros(3, 4, 1), ferric.tensor([2, 3, 2, 3]),
                             enforce_sorted=False)
    assert q.sorted_indices.tolist() == [1, 3, 0, 2] and q.unsorted_indices.tolist() == [2, 0, 3, 1]
    assert repr(pack_sequence([ferric.ones(2), ferric.ones(1)])).startswith(
        "PackedSequence(data=tensor([1., 1., 1.]), batch_sizes=tensor([2, 1]), "
        "sorted_indices=None")
    assert p.double().data.dtype == ferric.float64 and p.to(ferric.float64) is p
    # gradients flow through packing and unpacking
    x = f64(rand((3, 2, 2), 12), requires_grad=True)
    assert ferric.autograd.gradcheck(
        lambda t: pad_packed_sequence(pack_padded_sequence(t, [3, 2]))[0], (x,))
