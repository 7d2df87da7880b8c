"""ONNX handlers of the recurrent layers: one ONNX ``LSTM`` / ``GRU`` / ``RNN`` node per
layer, with PyTorch's gate order converted to ONNX's.

PyTorch stacks the LSTM gates as (input, forget, cell, output) and ONNX as (input,
output, forget, cell); GRU gates are (reset, update, new) in PyTorch and (update, reset,
hidden) in ONNX, whose ``linear_before_reset=1`` is PyTorch's formula
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``. ONNX's ``B`` is the input bias and the
hidden bias concatenated, ``W``/``R``/``B`` carry a leading direction axis, and ``Y`` is
``(seq, directions, batch, hidden)``, which a transpose and reshape bring back to
PyTorch's ``(seq, batch, directions * hidden)`` for the next layer.
"""

from __future__ import annotations

import numpy as np

from ._ops_tensor import HANDLERS, dt
from .errors import UnsupportedOperatorError

_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}


def _array(t):
    return np.array(t.detach().numpy(), copy=True)


def _gates(arr, mode, hidden):
    """Rows of a stacked gate matrix (or bias) reordered from PyTorch's to ONNX's order."""
    blocks = [arr[i * hidden:(i + 1) * hidden] for i in range(len(_ORDER[mode]))]
    return np.concatenate([blocks[i] for i in _ORDER[mode]], axis=0)


def rnn_forward(s, out, module, input, hx=None):
    """``RNNBase.forward`` (``nn.LSTM``, ``nn.GRU``, ``nn.RNN``) as ONNX nodes."""
    g = s.g
    mode = module.mode
    name = type(module).__name__
    if not hasattr(input, "dim"):
        raise UnsupportedOperatorError(f"{name} with a PackedSequence input", g.opset,
                                       "pass the padded batch instead")
    if module.proj_size > 0:
        raise UnsupportedOperatorError(f"{name}(proj_size > 0)", g.opset,
                                       "ONNX LSTM has no projection")
    if module.dropout and module.training and module.num_layers > 1:
        raise UnsupportedOperatorError(f"{name} dropout in training mode", g.opset,
                                       "call model.eval() before export")
    d = dt(input)
    dirs = 2 if module.bidirectional else 1
    hidden = module.hidden_size
    batched = input.dim() == 3
    x = s.value(input)
    if not batched:
        x = g.unsqueeze(x, [0 if module.batch_first else 1])
    if module.batch_first:
        x = g.op("Transpose", [x], perm=[1, 0, 2])
    h0 = c0 = None
    if hx is not None:
        h0, c0 = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
        h0 = s.value(h0, d)
        c0 = s.value(c0, d) if c0 is not None else None
        if not batched:
            h0 = g.unsqueeze(h0, [1])
            c0 = g.unsqueeze(c0, [1]) if c0 is not None else None
    op_type = {"LSTM": "LSTM", "GRU": "GRU"}.get(mode, "RNN")
    extra = {"linear_before_reset": 1} if mode == "GRU" else {}
    if op_type == "RNN":
        extra["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * dirs
    hs, cs = [], []
    for layer in range(module.num_layers):
        ws, rs, bs = [], [], []
        for direction in range(dirs):
            w_ih, w_hh, b_ih, b_hh, _ = module._layer_weights(layer, direction)
            ws.append(_gates(_array(w_ih), mode, hidden))
            rs.append(_gates(_array(w_hh), mode, hidden))
            if b_ih is not None:
                bs.append(np.concatenate([_gates(_array(b_ih), mode, hidden),
                                          _gates(_array(b_hh), mode, hidden)]))
        inputs = [x, g.const(np.stack(ws).astype(d), f"{op_type}_W"),
                  g.const(np.stack(rs).astype(d), f"{op_type}_R"),
                  g.const(np.stack(bs).astype(d), f"{op_type}_B") if bs else "", ""]
        first, last = layer * dirs, (layer + 1) * dirs
        inputs.append(g.slice(h0, 0, first, last) if h0 is not None else "")
        if mode == "LSTM":
            inputs.append(g.slice(c0, 0, first, last) if c0 is not None else "")
        while inputs[-1] == "":
            inputs.pop()
        n_out = 3 if mode == "LSTM" else 2
        res = g.op(op_type, inputs, outputs=n_out, hidden_size=hidden,
                   direction="bidirectional" if dirs == 2 else "forward", **extra)
        y = g.op("Transpose", [res[0]], perm=[0, 2, 1, 3])
        x = g.op("Reshape", [y, g.i64([0, 0, -1])])
        hs.append(res[1])
        if mode == "LSTM":
            cs.append(res[2])
    if module.batch_first:
        x = g.op("Transpose", [x], perm=[1, 0, 2])
    h_n = hs[0] if len(hs) == 1 else g.op("Concat", hs, axis=0)
    c_n = (cs[0] if len(cs) == 1 else g.op("Concat", cs, axis=0)) if cs else None
    if not batched:
        x = g.squeeze(x, [0 if module.batch_first else 1])
        h_n = g.squeeze(h_n, [1])
        c_n = g.squeeze(c_n, [1]) if c_n is not None else None
    return [x, h_n] + ([c_n] if c_n is not None else [])


def fused_lstm_cell(s, out, gi, gh, c, b_ih=None, b_hh=None):
    """``LSTMCell``'s fused step: the gates from both projections, then the cell update."""
    g, d = s.g, dt(gi)
    pre = g.op("Add", [s.value(gi, d), s.value(gh, d)])
    for b in (b_ih, b_hh):
        if b is not None:
            pre = g.op("Add", [pre, s.value(b, d)])
    hidden = int(gi.shape[1]) // 4
    i, f, cell, o = g.op("Split", [pre, g.i64([hidden] * 4)], outputs=4, axis=1)
    i, f, o = (g.op("Sigmoid", [v]) for v in (i, f, o))
    c_new = g.op("Add", [g.op("Mul", [f, s.value(c, d)]),
                         g.op("Mul", [i, g.op("Tanh", [cell])])])
    h_new = g.op("Mul", [o, g.op("Tanh", [c_new])])
    return [h_new, c_new]


HANDLERS["_thnn_fused_lstm_cell"] = fused_lstm_cell
