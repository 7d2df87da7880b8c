"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their single-step cells.

The layers run the recurrence step by step with differentiable ops (the input
projections of all steps are one matmul). Internally every input is handled in the
packed layout of ``nn.utils.rnn``: a time-major ``(sum of batch sizes, features)``
tensor plus per-step batch sizes; a padded input is the special case where every step
has the full batch. Entries that are no longer active simply keep their hidden state,
which is exactly the final state PyTorch reports for packed sequences.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _core
from .. import _nested_hook, init
from .. import functional as F
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._repr import _nondefault_repr
from .module import Module

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _empty(*shape, dtype=None):
    return _core.empty(*shape, dtype=dtype) if dtype is not None else _core.empty(*shape)


def _lin(x, w, b):
    out = x.matmul(w.t())
    return out if b is None else out + b


def _rnn_step(mode, gi, h, c, w_hh, b_hh, w_hr, b_ih=None):
    """One time step for the active rows: ``gi`` is the precomputed input projection
    (``b_ih`` is its bias when not already added)."""
    if mode == "LSTM":
        # the gate activations and the cell update are one fused op (one autograd node
        # per step, PyTorch's ThnnFusedLstmCellBackward0); same formula and order as
        # (gi + b_ih) + (h W_hh^T + b_hh), chunk, sigmoid/tanh, f*c + i*g, o*tanh(c)
        h_new, c_new = _core._thnn_fused_lstm_cell(gi, h.matmul(w_hh.t()), c, b_ih, b_hh)
        if w_hr is not None:
            h_new = h_new.matmul(w_hr.t())
        return h_new, c_new
    if b_ih is not None:
        gi = gi + b_ih
    gh = _lin(h, w_hh, b_hh)
    if mode == "GRU":
        ir, iz, in_ = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r = (ir + hr).sigmoid()
        z = (iz + hz).sigmoid()
        n = (in_ + r * hn).tanh()
        return n + z * (h - n), None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


def _run_direction(mode, data, batch_sizes, h0, c0, weights, reverse):
    """Runs one layer in one direction over packed ``data``; returns (out, h_n, c_n)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    gi_all = _lin(data, w_ih, b_ih)
    offsets = [0]
    for bs in batch_sizes:
        offsets.append(offsets[-1] + bs)
    full = h0.shape[0]
    h, c = h0, c0
    outs = [None] * len(batch_sizes)
    steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    for t in steps:
        bs = batch_sizes[t]
        gi = gi_all.narrow(0, offsets[t], bs)
        h_act = h if bs == full else h.narrow(0, 0, bs)
        c_act = None if c is None else (c if bs == full else c.narrow(0, 0, bs))
        h_new, c_new = _rnn_step(mode, gi, h_act, c_act, w_hh, b_hh, w_hr)
        outs[t] = h_new
        # inactive rows keep their state (their sequence has ended, or for the
        # reverse direction has not started yet)
        h = h_new if bs == full else _core.cat([h_new, h.narrow(0, bs, full - bs)], 0)
        if c is not None:
            c = c_new if bs == full else _core.cat([c_new, c.narrow(0, bs, full - bs)], 0)
    out = outs[0] if len(outs) == 1 else _core.cat(outs, 0)
    return out, h, c


class RNNBase(Module):
    r"""Base class of ``RNN``, ``LSTM`` and ``GRU`` (parameters, checks, the loop)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(input_size, int):
            raise TypeError(
                f"input_size should be of type int, got: {type(input_size).__name__}"
            )
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}"
            )
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden = proj_size if proj_size > 0 else hidden_size
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                params = [Parameter(_empty(gate_size, layer_input, dtype=dtype)),
                          Parameter(_empty(gate_size, real_hidden, dtype=dtype))]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [Parameter(_empty(gate_size, dtype=dtype)),
                               Parameter(_empty(gate_size, dtype=dtype))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(_empty(proj_size, hidden_size, dtype=dtype)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, p in zip(names, params, strict=True):
                    setattr(self, name, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters per layer and direction, as lists ``[w_ih, w_hh, b_ih, b_hh]``."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """No-op (kept for PyTorch compatibility: there is no cuDNN weight buffer)."""

    def reset_parameters(self):
        r"""Re-initialises every weight and bias uniformly in :math:`\pm
        1/\sqrt{\text{hidden\_size}}`.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}" + _nondefault_repr(self, (
            ("proj_size", 0), ("num_layers", 1), ("bias", True), ("batch_first", False),
            ("dropout", 0), ("bidirectional", False)))

    def _layer_weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""

        def get(name):
            return getattr(self, f"{name}_l{layer}{suffix}", None)

        return (get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"),
                get("weight_hr"))

    def _run(self, data, batch_sizes, h0, c0):
        """The multi-layer (bi)directional recurrence on packed data."""
        dirs = 2 if self.bidirectional else 1
        hs, cs = [], []
        x = data
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                out, h, c = _run_direction(
                    self.mode, x, batch_sizes, h0[k], None if c0 is None else c0[k],
                    self._layer_weights(layer, d), reverse=d == 1)
                outs.append(out)
                hs.append(h)
                cs.append(c)
            x = outs[0] if dirs == 1 else _core.cat(outs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = _core.stack(hs, 0)
        c_n = _core.stack(cs, 0) if c0 is not None else None
        return x, h_n, c_n

    def _check_hidden(self, hx, expected, msg):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.shape)))

    def forward(self, input, hx=None):
        if _nested_hook.is_nested(input):  # ferric.nested: items run as one packed sequence
            return _nested_hook.call("RNNBase.forward", self, input, hx)
        name = type(self).__name__
        is_lstm = self.mode == "LSTM"
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        sorted_indices = unsorted_indices = None
        if packed:
            data, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(b) for b in batch_sizes_t.tolist()]
            batch = batch_sizes[0]
            batched = True
            if data.dim() != 2:
                raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
            feat = data.shape[-1]
        else:
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead"
                )
            batched = input.dim() == 3
            x = input if batched else input.unsqueeze(1 if not self.batch_first else 0)
            if self.batch_first:
                x = x.transpose(0, 1)
            T, batch = x.shape[0], x.shape[1]
            feat = x.shape[2]
            batch_sizes = [batch] * T
            data = x.reshape(T * batch, feat)
        if feat != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {feat}"
            )
        h_shape = (self.num_layers * dirs, batch, real_hidden)
        c_shape = (self.num_layers * dirs, batch, self.hidden_size)
        if hx is None:
            h0 = _core.zeros(h_shape, dtype=data.dtype)
            c0 = _core.zeros(c_shape, dtype=data.dtype) if is_lstm else None
        else:
            if is_lstm:
                if not isinstance(hx, tuple | list) or len(hx) != 2:
                    raise TypeError("LSTM: expected hx to be a tuple (h_0, c_0)")
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            want = 3 if batched else 2
            kind = "batched 3-D" if batched else "unbatched 2-D"
            if is_lstm and (h0.dim() != want or c0.dim() != want):
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got "
                    f"({h0.dim()}-D, {c0.dim()}-D) tensors"
                )
            if not is_lstm and h0.dim() != want:
                raise RuntimeError(
                    f"For {kind} input, hx should also be {want}-D but got {h0.dim()}-D tensor"
                )
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
            if is_lstm:
                self._check_hidden(h0, h_shape, "Expected hidden[0] size {}, got {}")
                self._check_hidden(c0, c_shape, "Expected hidden[1] size {}, got {}")
            else:
                self._check_hidden(h0, h_shape, "Expected hidden size {}, got {}")
        out, h_n, c_n = self._run(data, batch_sizes, h0, c0)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if c_n is not None else None
        if packed:
            output = PackedSequence(out, batch_sizes_t, sorted_indices, unsorted_indices)
        else:
            output = out.reshape(len(batch_sizes), batch, out.shape[-1])
            if self.batch_first:
                output = output.transpose(0, 1)
            if not batched:
                output = output.squeeze(0 if self.batch_first else 1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return output, ((h_n, c_n) if is_lstm else h_n)


class RNN(RNNBase):
    r"""Elman RNN: :math:`h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})`
    (``nonlinearity='relu'`` for ReLU).

    Args are ``input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False``. Returns ``(output, h_n)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> rnn = nn.RNN(10, 20, 2)
        >>> out, h = rnn(ferric.randn(5, 3, 10))
        >>> out.shape, h.shape
        (ferric.Size([5, 3, 20]), ferric.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    r"""Long short-term memory (gates in PyTorch's order i, f, g, o; optional
    ``proj_size`` projection). Returns ``(output, (h_n, c_n))``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> lstm = nn.LSTM(input_size=10, hidden_size=20, num_layers=2, batch_first=True)
        >>> out, (h, c) = lstm(ferric.randn(3, 5, 10))
        >>> out.shape, h.shape, c.shape
        (ferric.Size([3, 5, 20]), ferric.Size([2, 3, 20]), ferric.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    r"""Gated recurrent unit (gates in PyTorch's order r, z, n). Returns
    ``(output, h_n)``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> gru = nn.GRU(8, 16, bidirectional=True)
        >>> out, h = gru(ferric.randn(7, 2, 8))
        >>> out.shape, h.shape
        (ferric.Size([7, 2, 32]), ferric.Size([2, 2, 16]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    r"""Base class of :class:`RNNCell`, :class:`LSTMCell` and :class:`GRUCell`: holds
    ``weight_ih`` :math:`(\text{chunks} \cdot H, \text{input\_size})`, ``weight_hh``
    :math:`(\text{chunks} \cdot H, H)` and, with ``bias``, ``bias_ih`` and ``bias_hh``.
    """
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(_empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        r"""Re-initialises every weight and bias uniformly in :math:`\pm
        1/\sqrt{\text{hidden\_size}}`.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, name):
        """PyTorch's Python-level checks; unbatched inputs get a batch dim."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        return (input if batched else input.unsqueeze(0)), batched

    def _check_forward(self, input, hiddens):
        """The checks of PyTorch's cell kernels, in their order (batched tensors)."""
        # (runs every time step: each shape is read once, unpacked as a plain tuple)
        batch, size = input.shape
        if size != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {size} expected {self.input_size}"
            )
        for i, h in enumerate(hiddens):
            shape = tuple(h.shape)
            if len(shape) != 2:
                raise RuntimeError(
                    f"Expected 2D hidden{i} (batch x hidden_size), but got {len(shape)}D tensor"
                )
            if shape[0] != batch:
                raise RuntimeError(
                    f"Input batch size {batch} doesn't match hidden{i} batch size {shape[0]}"
                )
            if shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {shape[1]}, expected "
                    f"{self.hidden_size}"
                )

    def _zeros(self, input):
        return _core.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    r"""One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, hx, "RNNCell")
        if hx is None:
            hx = self._zeros(input)
        elif not batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_forward(input, (hx,))
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        gi = _lin(input, self.weight_ih, self.bias_ih)
        h, _ = _rnn_step(mode, gi, hx, None, self.weight_hh, self.bias_hh, None)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""One LSTM step; returns ``(h', c')``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> cell = nn.LSTMCell(4, 6)
        >>> h, c = cell(ferric.randn(3, 4))
        >>> h.shape, c.shape
        (ferric.Size([3, 6]), ferric.Size([3, 6]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, None, "LSTMCell")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D "
                        "instead"
                    )
        if hx is None:
            z = self._zeros(input)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        self._check_forward(input, hx)
        gi = input.matmul(self.weight_ih.t())
        h, c = _rnn_step("LSTM", gi, hx[0], hx[1], self.weight_hh, self.bias_hh, None,
                         self.bias_ih)
        if not batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    r"""One GRU step: returns ``h'``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, batched = self._prepare(input, hx, "GRUCell")
        if hx is None:
            hx = self._zeros(input)
        elif not batched:
            hx = hx.unsqueeze(0)
        self._check_forward(input, (hx,))
        gi = _lin(input, self.weight_ih, self.bias_ih)
        h, _ = _rnn_step("GRU", gi, hx, None, self.weight_hh, self.bias_hh, None)
        return h if batched else h.squeeze(0)
