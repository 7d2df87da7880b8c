"""Nested-tensor support in ``ferric.nn``: the functional forms and the layers whose
``forward`` has a nested branch (``RNN``/``LSTM``/``GRU``, ``MultiheadAttention``).

``ferric.nn`` does not import this package; it declares where a nested tensor may come
in (``ferric/nn/_nested_hook.py``) and the handlers below are registered there when
this module is imported (by ``ferric.nested``). The functions that act on each row of
their input independently (``_ROWWISE``: activations, dropout, ``embedding``; and
``linear``, ``layer_norm``, ``rms_norm`` on the dims after the ragged one) run the
unchanged function once on the packed buffer. Explicit handlers, rather than a
``__torch_function__``-style protocol, keep the set of nested-capable functions visible
in one list.
"""

from __future__ import annotations

from .. import _core
from ..nn import _nested_hook
from . import _ops
from ._ragged import _short
from ._tensor import NestedTensor

# Functions that map each input row to one output row (element by element, or a row
# of indices to a row of embeddings): nested input -> the function on the packed values.
_ROWWISE = (
    "relu", "relu_", "leaky_relu", "hardtanh", "relu6", "elu", "selu", "celu", "gelu",
    "silu", "mish", "hardsigmoid", "hardswish", "softplus", "logsigmoid", "sigmoid",
    "tanh", "softsign", "tanhshrink", "hardshrink", "softshrink", "threshold", "dropout",
    "embedding",
)


def is_nested(x):
    return type(x) is NestedTensor


def _check_trailing(nt, count, op):
    """``op`` works on the last ``count`` dims, which must all come after the ragged one."""
    if nt.dim() - 1 - nt._ridx < count:
        raise RuntimeError(
            f"{op}(): the last {count} dim(s) of a nested tensor of shape {nt._shape_str()} "
            "include the ragged dim; only dims after it can be used"
        )


def _check_all_nested(op, named):
    for name, t in named:
        if not is_nested(t):
            raise RuntimeError(
                f"{op}: query, key and value must all be nested tensors when one is; {name} "
                f"is a dense tensor of shape {tuple(t.shape)}"
            )


def _rowwise(op, trailing=None):
    """The handler running ``fn`` on the packed values (``trailing(*args)``: how many
    trailing dims ``fn`` works on, which must come after the ragged dim)."""
    def handle(fn, input, *args, **kwargs):
        if trailing is not None:
            _check_trailing(input, trailing(*args, **kwargs), op)
        out = fn(input._values, *args, **kwargs)
        # in-place forms return the packed buffer itself: hand back the nested tensor
        return input if out is input._values else input._wrap(out)
    return handle


def _normalized_count(normalized_shape, *args, **kwargs):
    return 1 if isinstance(normalized_shape, int) else len(tuple(normalized_shape))


def _sdpa(fn, query, key, value, *args, **kwargs):
    named = (("query", query), ("key", key), ("value", value))
    _check_all_nested("scaled_dot_product_attention()", named)
    return _ops.scaled_dot_product_attention(query, key, value, *args, **kwargs)


def _dense_only(op, hint):
    def handle(fn, *args, **kwargs):
        raise NotImplementedError(f"{op}(): not supported for nested tensors; {hint}")
    return handle


def _handlers():
    """What ``nn`` does with nested inputs, by the name it asks for (see ``_nested_hook``)."""
    out = {name: _rowwise(name) for name in _ROWWISE}
    out["linear"] = _rowwise("linear", lambda *a, **k: 1)
    out["layer_norm"] = _rowwise("layer_norm", _normalized_count)
    out["rms_norm"] = _rowwise("rms_norm", _normalized_count)
    out["scaled_dot_product_attention"] = _sdpa
    out["multi_head_attention_forward"] = _dense_only(
        "multi_head_attention_forward",
        "use nn.MultiheadAttention(batch_first=True), which accepts nested inputs")
    # the layers' nested branches
    out["RNNBase.forward"] = rnn_forward
    out["MultiheadAttention.forward"] = mha_forward
    return out


# ---------------------------------------------------------------------- RNN layers


def _rnn_packing(ragged):
    """Index tensors turning the packed nested buffer into an ``nn.utils.rnn`` packed
    sequence and back: ``(index, batch_sizes, sorted_indices, inverse)`` where
    ``values.index_select(0, index)`` is the time-major packed data (items sorted by
    decreasing length, stably) and ``data.index_select(0, inverse)`` undoes it. Cached
    on the structure, which every layer and step of a batch shares."""
    if ragged._rnn_pack is None:
        lengths, starts = ragged.lengths, ragged.starts
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        batch_sizes, index = [], []
        for t in range(ragged.max_len):
            active = [i for i in order if lengths[i] > t]
            batch_sizes.append(len(active))
            index.extend(starts[i] + t for i in active)
        inverse = [0] * len(index)
        for p, row in enumerate(index):
            inverse[row] = p
        ragged._rnn_pack = tuple(
            _core.tensor(x, dtype=_core.int64)
            for x in (index, batch_sizes, order, inverse))
    return ragged._rnn_pack


def rnn_forward(module, input, hx):
    """``RNN``/``LSTM``/``GRU`` on a nested ``(B, j, input_size)`` batch: the items run
    as one packed sequence (no padding steps), the output is nested ``(B, j, D * H)``;
    ``h_n`` (and ``c_n``) are ``(layers * D, B, H)`` in the batch order, as for padded
    input. ``batch_first`` does not matter: a nested tensor is always batch-major."""
    from ..nn.utils.rnn import PackedSequence

    name = type(module).__name__
    if input.dim() != 3 or input._ridx != 1:
        raise RuntimeError(
            f"{name}: a nested input must have shape (B, j, input_size), got "
            f"{input._shape_str()}"
        )
    empty = [i for i, n in enumerate(input._ragged.lengths) if n == 0]
    if empty:
        raise RuntimeError(
            f"{name}: the items of a nested input must be non-empty; item(s) "
            f"{_short(empty)} have length 0"
        )
    index, batch_sizes, order, inverse = _rnn_packing(input._ragged)
    packed = PackedSequence(input._values.index_select(0, index), batch_sizes, order, None)
    out, hidden = module.forward(packed, hx)
    return input._wrap(out.data.index_select(0, inverse)), hidden


# ---------------------------------------------------------------------- attention


def _linear(x, weight, bias):
    out = x.matmul(weight.t())
    return out if bias is None else out + bias


def mha_forward(mha, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
    """``MultiheadAttention`` on nested ``(B, j, E)`` query/key/value: projections run
    on the packed buffers, attention per item (``is_causal`` applies per item). Returns
    ``(nested output, None)``; masks and attention weights have no nested form."""
    op = "MultiheadAttention"
    named = (("query", query), ("key", key), ("value", value))
    _check_all_nested(op, named)
    if not mha.batch_first:
        raise RuntimeError(
            f"{op}: nested inputs need batch_first=True (a nested tensor is (B, j, E))"
        )
    if key_padding_mask is not None or attn_mask is not None:
        raise NotImplementedError(
            f"{op}: key_padding_mask and attn_mask are not supported for nested inputs (the "
            "items carry no padding); use is_causal=True for a per-item causal mask"
        )
    if need_weights:
        raise NotImplementedError(
            f"{op}: need_weights=True is not supported for nested inputs (the weights of "
            "ragged items do not form one tensor); pass need_weights=False"
        )
    if mha.bias_k is not None or mha.add_zero_attn:
        raise NotImplementedError(f"{op}: add_bias_kv and add_zero_attn are not supported "
                                  "for nested inputs")
    for n, t in named:
        if t.dim() != 3 or t._ridx != 1:
            raise RuntimeError(f"{op}: nested {n} must have shape (B, j, E), got "
                               f"{t._shape_str()}")
    e = query.shape[-1]
    if e != mha.embed_dim:
        raise AssertionError(
            f"was expecting embedding dimension of {mha.embed_dim}, but got {e}"
        )
    heads = mha.num_heads
    b = mha.in_proj_bias
    bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
    if mha._qkv_same_embed_dim:
        if query is key and key is value:
            # self-attention: one projection matmul for q, k and v
            q, k, v = _linear(query._values, mha.in_proj_weight, b).chunk(3, -1)
            q, k, v = query._wrap(q), query._wrap(k), query._wrap(v)
        else:
            wq, wk, wv = mha.in_proj_weight.chunk(3)
            q = query._wrap(_linear(query._values, wq, bq))
            k = key._wrap(_linear(key._values, wk, bk))
            v = value._wrap(_linear(value._values, wv, bv))
    else:
        q = query._wrap(_linear(query._values, mha.q_proj_weight, bq))
        k = key._wrap(_linear(key._values, mha.k_proj_weight, bk))
        v = value._wrap(_linear(value._values, mha.v_proj_weight, bv))
    head_dim = mha.embed_dim // heads
    q, k, v = (t.unflatten(-1, (heads, head_dim)).transpose(1, 2) for t in (q, k, v))
    dropout_p = mha.dropout if mha.training else 0.0
    out = _ops.scaled_dot_product_attention(q, k, v, None, dropout_p, is_causal)
    out = out.transpose(1, 2).flatten(-2)
    return out._wrap(_linear(out._values, mha.out_proj.weight, mha.out_proj.bias)), None


_nested_hook.register(NestedTensor, _handlers())
