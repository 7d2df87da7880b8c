"""Batching rules for ``nn``: embedding lookups, ``cross_entropy`` and the RNN cells."""

from __future__ import annotations

from .. import _core
from ._graph import ARGS, DEPTH, DTYPE, SHAPE, Pending
from ._rules import _FLOATS, PENDING, SHARED, Rule, _expanded, _operand, _rows

Tensor = _core.Tensor
_max = Tensor.max   # the extension's own (a region routes Tensor's methods)
_min = Tensor.min
_numel = Tensor.numel
_INTS = frozenset({_core.int64, _core.int32})


class Embedding(Rule):
    """``F.embedding(indices, weight, padding_idx)``: the lookups of a region with the same
    weight become one lookup (deferred even when no input is pending)."""

    name = "embedding"

    def __init__(self, fn):
        self.fn = fn

    def record(self, g, args, kwargs):
        names = ("input", "weight", "padding_idx", "max_norm", "norm_type",
                 "scale_grad_by_freq", "sparse")
        if kwargs:
            if set(kwargs) - set(names):
                return NotImplemented
            defaults = (None, None, None, None, 2.0, False, False)
            args = args + tuple(kwargs.get(k, d) for k, d in zip(
                names[len(args):], defaults[len(args):], strict=False))
        if len(args) < 2:
            return NotImplemented
        idx, w = args[0], args[1]
        padding_idx = args[2] if len(args) > 2 else None
        if (len(args) > 3 and args[3] is not None) or (len(args) > 5 and args[5]):
            return NotImplemented   # max_norm writes into the weight; freq scaling is global
        if type(w) is Pending or not isinstance(w, Tensor) or len(w.shape) != 2:
            return NotImplemented
        o = _operand(g, idx)
        if o is None or o[3] not in _INTS:
            return NotImplemented
        if not isinstance(padding_idx, (int, type(None))):
            return NotImplemented
        d, rec, s, _, depth = o
        if d[0] == PENDING:
            return NotImplemented   # pending indices: their range cannot be checked now
        if _numel(idx):
            # out-of-range indices raise the eager IndexError here, at the caller's line
            n = w.shape[0]
            if int(_max(idx)) >= n or int(_min(idx)) < 0:
                return NotImplemented
        if padding_idx is not None:
            n = w.shape[0]
            if padding_idx >= n or padding_idx < -n:
                return NotImplemented
        key = (self, d, id(w), padding_idx)
        return g.add(self, key, (rec, w), padding_idx, s + (w.shape[1],), w.dtype, depth + 1)

    def run(self, g, nodes, kw):
        n0 = nodes[0]
        idx = _rows(g, nodes, 0)
        return self.fn(idx, n0[ARGS][1], kw)


class CrossEntropy(Rule):
    """``F.cross_entropy(logits, target)`` per example, with class-index targets:
    logits ``(C,)`` or ``(N, C)``; ``reduction`` ``mean`` (over the example's
    non-ignored targets, weighted as PyTorch does), ``sum`` or ``none``."""

    name = "cross_entropy"

    def __init__(self, fn):
        self.fn = fn

    def record(self, g, args, kwargs):
        names = ("input", "target", "weight", "size_average", "ignore_index", "reduce",
                 "reduction", "label_smoothing")
        defaults = (None, None, None, None, -100, None, "mean", 0.0)
        if kwargs and set(kwargs) - set(names):
            return NotImplemented
        vals = list(args) + [kwargs.get(k, d) for k, d in zip(names[len(args):],
                                                               defaults[len(args):], strict=False)]
        if len(vals) != len(names):
            return NotImplemented
        x, t, w, size_average, ignore, reduce, reduction, smoothing = vals
        if size_average is not None or reduce is not None or type(x) is not Pending:
            return NotImplemented
        if reduction not in ("mean", "sum", "none") or not isinstance(ignore, int):
            return NotImplemented
        if not isinstance(smoothing, (int, float)) or (smoothing and w is not None):
            return NotImplemented
        if w is not None and (type(w) is Pending or not isinstance(w, Tensor)):
            return NotImplemented
        n = g.nodes[id(x)]
        s = n[SHAPE]
        if n[DTYPE] not in _FLOATS or len(s) not in (1, 2):
            return NotImplemented
        o = _operand(g, t)
        if o is None or o[3] not in _INTS or o[2] != s[:-1] or o[0][0] == SHARED:
            return NotImplemented
        if w is not None and (tuple(w.shape) != s[-1:] or w.dtype != n[DTYPE]):
            return NotImplemented
        shape = s[:-1] if reduction == "none" else ()
        params = (w, ignore, reduction, float(smoothing))
        key = (self, s, n[DTYPE], o[0], id(w), ignore, reduction, float(smoothing))
        return g.add(self, key, (n, o[1]), params, shape, n[DTYPE], max(n[DEPTH], o[4]) + 1)

    def run(self, g, nodes, kw):
        w, ignore, reduction, smoothing = kw
        x = _rows(g, nodes, 0)
        t = _rows(g, nodes, 1)
        b = len(nodes)
        c = x.shape[-1]
        loss = self.fn(x.reshape(-1, c), t.reshape(-1), w, ignore_index=ignore,
                       reduction="none", label_smoothing=smoothing).reshape(t.shape)
        if reduction == "none" or loss.dim() == 1 and reduction == "sum":
            return loss
        if loss.dim() == 1:            # one target per example: mean is the loss itself
            if reduction == "mean":    # (0/0 = nan for an ignored target, as PyTorch)
                valid = (t != ignore).to(loss.dtype)
                if w is not None:
                    valid = valid * w[t.clamp(0, c - 1)]
                return loss / valid
            return loss
        if reduction == "sum":
            return loss.sum(1)
        valid = (t != ignore).to(loss.dtype)
        if w is not None:
            valid = valid * w[t.clamp(0, c - 1)]
        return loss.sum(1) / valid.sum(1).reshape(b)


class Cell(Rule):
    """An ``LSTMCell``/``GRUCell`` call: the calls of one cell module become one call on
    the stacked inputs and states."""

    def __init__(self, name, forward, lstm):
        self.name = name
        self.forward = forward
        self.lstm = lstm

    def record(self, g, module, args, kwargs):
        if kwargs or not args or len(args) > 2:
            return NotImplemented
        x = args[0]
        hx = args[1] if len(args) > 1 else None
        ox = _operand(g, x)
        if ox is None or ox[3] not in _FLOATS or len(ox[2]) not in (1, 2):
            return NotImplemented
        if ox[2][-1] != module.input_size or ox[3] != module.weight_ih.dtype:
            return NotImplemented
        states = () if hx is None else (tuple(hx) if self.lstm else (hx,))
        if self.lstm and len(states) not in (0, 2):
            return NotImplemented
        lead = ox[2][:-1]
        hshape = lead + (module.hidden_size,)
        descs = [ox[0]]
        recs = [ox[1]]
        depth = ox[4]
        for h in states:
            oh = _operand(g, h)
            if oh is None or oh[2] != hshape or oh[3] != ox[3]:
                return NotImplemented
            descs.append(oh[0])
            recs.append(oh[1])
            depth = max(depth, oh[4])
        if all(d[0] == SHARED for d in descs):
            return NotImplemented    # nothing differs between examples: run it now
        key = (self, id(module), tuple(descs))
        params = (module, lead, len(states))
        if self.lstm:
            return g.add_multi(self, key, tuple(recs), params, (hshape, hshape), ox[3],
                               depth + 1)
        return g.add(self, key, tuple(recs), params, hshape, ox[3], depth + 1)

    def run(self, g, nodes, kw):
        module, lead, nstates = kw
        b = len(nodes)
        shapes = [lead + (module.input_size,)] + [lead + (module.hidden_size,)] * nstates
        rows = [_expanded(g, [n[ARGS][j] for n in nodes], shapes[j])
                for j in range(1 + nstates)]
        flat = [r.reshape(-1, r.shape[-1]) for r in rows]
        if self.lstm:
            out = self.forward(module, flat[0], tuple(flat[1:]) if nstates else None)
            return tuple(o.reshape((b,) + lead + (module.hidden_size,)) for o in out)
        out = self.forward(module, flat[0], flat[1] if nstates else None)
        return out.reshape((b,) + lead + (module.hidden_size,))
