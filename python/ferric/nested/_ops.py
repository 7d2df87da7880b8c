"""Nested-tensor ops that are not plain row-wise maps: reductions, softmax, matmul,
padding and per-item attention.

Ops over the ragged dim use segment reductions on the packed buffer:
``zeros(B, ...).index_add(0, seg, rows)`` sums every item in one kernel call, and
``x.index_select(0, seg)`` broadcasts one value per item back to its rows; both are
differentiable, so these ops need no backward code. The core has no segmented max
(``scatter_reduce``), so max/min over the ragged dim split the buffer into per-item
views and reduce each (one op per item; exact, including PyTorch's gradient rules).
Attention is per item for the same reason: the scores of ragged items do not form a
rectangle.
"""

from __future__ import annotations

from .. import _core, return_types
from .._core import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..nn._functional_attention import scaled_dot_product_attention as _dense_sdpa
from ._ragged import _norm_dim, _short


class _SplitItems(Function):
    """The packed rows -> one block of rows per item, recorded as ONE autograd node
    whose backward concatenates the items' gradients. (Taking ``B`` separate views would
    give each view its own backward, which scatters into a zero gradient the size of the
    whole buffer: O(B * T) work and memory for B items.) Only for per-item computations
    inside this package: the blocks must not escape, since in-place writes to them would
    bypass the view tracking that ``NestedTensor.unbind`` keeps."""

    @staticmethod
    def forward(ctx, values, lengths):
        return tuple(values.split(lengths, 0))

    @staticmethod
    def backward(ctx, *grads):
        return _core.cat(list(grads), 0), None


def split_items(nt, rows=None, logical=True):
    """The items of ``nt`` (or of ``rows``, packed like ``nt``), for per-item
    computations whose results are concatenated or stacked again: in their logical
    layout, or with ``logical=False`` as blocks of packed rows."""
    rows = nt._values if rows is None else rows
    items = _SplitItems.apply(rows, list(nt._ragged.lengths))
    if logical and nt._ridx != 1:
        items = tuple(t.movedim(0, nt._ridx - 1) for t in items)
    return items


def _norm_dims(dim, ndim):
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted({_norm_dim(d, ndim) for d in dims})


def segment_sum(ragged, rows):
    """``(T, *rest)`` -> ``(B, *rest)``: the sum of every item's rows."""
    out = _core.zeros((ragged.batch, *tuple(rows.shape[1:])), dtype=rows.dtype)
    return out.index_add(0, ragged.seg(), rows)


def _per_item(nt, rows, fn, op):
    """``fn`` applied to every item's rows (views of ``rows``); items must be non-empty."""
    lengths = nt._ragged.lengths
    empty = [i for i, n in enumerate(lengths) if n == 0]
    if empty:
        raise RuntimeError(
            f"{op}(): cannot reduce over the ragged dim of a nested tensor with empty "
            f"items: item(s) {_short(empty)} have length 0"
        )
    return [fn(item) for item in split_items(nt, rows, logical=False)]


def _squeeze_dims(out, dims, keepdim):
    if not keepdim:
        for d in reversed(dims):
            out = out.squeeze(d)
    return out


def _check_float_mean(v):
    if not v.is_floating_point():
        names = {_core.int64: "Long", _core.bool: "Bool"}
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {names.get(v.dtype, str(v.dtype))}"
        )


def reduce(nt, name, dim, keepdim, dtype):
    """``sum``/``mean``/``amax``/``amin`` of a nested tensor over ``dim``.

    Over trailing dims only: a nested result. Over the ragged dim (plus any trailing
    dims): a dense ``(B, ...)`` result. Over batch and ragged dims together: dense.
    """
    v = nt._values if dtype is None else nt._values.to(dtype)
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return getattr(v, name)()
    nd, r, rag = nt.dim(), nt._ridx, nt._ragged
    dims = _norm_dims(dim, nd)
    if 0 in dims:
        if r not in dims:
            raise RuntimeError(
                f"{name}(): reducing along the batch dimension but not the ragged dimension "
                "is not supported for nested tensors"
            )
        vdims = [0] + [nt._vdim(d, name) for d in dims if d not in (0, r)]
        out = getattr(v, name)(vdims, keepdim=True)
        # (1 [ragged], *rest) -> logical keepdim shape (1 [batch], ..., 1 [ragged], ...)
        out = out.movedim(0, r - 1).unsqueeze(0)
        return _squeeze_dims(out, dims, keepdim)
    if r not in dims:
        out = getattr(v, name)([nt._vdim(d, name) for d in dims], keepdim=keepdim)
        ridx = r if keepdim else r - sum(1 for d in dims if d < r)
        return nt._wrap(out, ridx)
    other = [nt._vdim(d, name) for d in dims if d != r]
    if name == "mean":
        _check_float_mean(v)
    if other:
        v = getattr(v, name)(other, keepdim=True)
    if name in ("sum", "mean"):
        if v.dtype == _core.bool:
            v = v.long()
        out = segment_sum(rag, v)
        if name == "mean":
            # every row of an item carries the same weight, so the mean over (ragged,
            # trailing) dims is the segment mean of the per-row means
            out = out / rag.lengths_tensor().reshape(rag.batch, *([1] * (out.dim() - 1)))
    else:
        out = _core.stack(_per_item(nt, v, lambda t: getattr(t, name)(0), name), 0)
    return _squeeze_dims(out.unsqueeze(r), dims, keepdim)


def max_min(nt, name, dim, keepdim):
    """``max``/``min``: of everything (``dim=None``), elementwise against another
    tensor, or ``(values, indices)`` along one dim (per-item indices for the ragged dim)."""
    if dim is None:
        return getattr(nt._values, name)()
    if isinstance(dim, type(nt) | Tensor):
        return nt.maximum(dim) if name == "max" else nt.minimum(dim)
    d, r = _norm_dim(dim, nt.dim()), nt._ridx
    result_type = getattr(return_types, name)
    if d == 0:
        raise RuntimeError(f"{name}(): not supported for NestedTensor on dim=0")
    if d == r:
        pairs = _per_item(nt, nt._values, lambda t: getattr(t, name)(0), name)
        vals = _core.stack([p[0] for p in pairs], 0)
        idx = _core.stack([p[1] for p in pairs], 0)
        if keepdim:
            vals, idx = vals.unsqueeze(r), idx.unsqueeze(r)
        return result_type((vals, idx))
    vals, idx = getattr(nt._values, name)(nt._vdim(d, name), keepdim)
    ridx = r if keepdim or d > r else r - 1
    return result_type((nt._wrap(vals, ridx), nt._wrap(idx, ridx)))


def softmax(nt, dim, dtype, log):
    """Softmax over a trailing dim (row-wise) or over the ragged dim (per item)."""
    op = "log_softmax" if log else "softmax"
    v = nt._values if dtype is None else nt._values.to(dtype)
    d, r = _norm_dim(dim, nt.dim()), nt._ridx
    if d == 0:
        raise RuntimeError(
            f"{op}(): not supported when reducing across the batch dimension for NestedTensor"
        )
    if d != r:
        vd = nt._vdim(d, op)
        return nt._wrap(v.log_softmax(vd) if log else v.softmax(vd))
    rag = nt._ragged
    seg = rag.seg()
    with no_grad():
        # any per-item constant leaves softmax unchanged; the item max keeps exp in range
        rest = tuple(v.shape[1:])
        shift = _core.stack(
            [t.amax(0) if t.shape[0] else _core.zeros(rest, dtype=v.dtype)
             for t in v.detach().split(list(rag.lengths), 0)], 0)
    shifted = v - shift.index_select(0, seg)
    e = shifted.exp()
    total = segment_sum(rag, e)
    if log:
        return nt._wrap(shifted - total.log().index_select(0, seg))
    return nt._wrap(e / total.index_select(0, seg))


def matmul(nt, other):
    """``nt @ w`` with a 1-D/2-D ``w`` (row-wise, on the last dim), or ``nt @ W`` with a
    ``(B, n, m)`` batch of per-item matrices."""
    if isinstance(other, type(nt)):
        raise NotImplementedError(
            "matmul(): nested @ nested is not supported (the result would be ragged in two "
            "dims); use ferric.nn.functional.scaled_dot_product_attention for attention"
        )
    v, r = nt._values, nt._ridx
    if other.dim() in (1, 2) and r != nt.dim() - 1 and v.dim() >= 2:
        return nt._wrap(v.matmul(other))
    if other.dim() == 3 and r == 1 and nt.dim() == 3 and other.shape[0] == nt._ragged.batch:
        mats = (m.squeeze(0) for m in _SplitItems.apply(other, [1] * other.shape[0]))
        outs = [a.matmul(w) for a, w in zip(split_items(nt), mats, strict=True)]
        return nt._wrap(_core.cat(outs, 0))
    raise RuntimeError(
        f"matmul(): a nested tensor of shape {nt._shape_str()} cannot be multiplied by a "
        f"dense tensor of shape {tuple(other.shape)}: use a 1-D or 2-D weight on the last "
        "(non-ragged) dim, or a (B, n, m) batch of per-item matrices"
    )


def to_padded_tensor(nt, padding, output_size=None):
    if isinstance(padding, bool) or not isinstance(padding, int | float):
        raise TypeError(
            f"to_padded_tensor(): padding must be a number, got {type(padding).__name__}"
        )
    v, rag = nt._values, nt._ragged
    trail = tuple(v.shape[1:])
    width = rag.max_len
    flat = _core.full((rag.batch * width, *trail), padding, dtype=v.dtype)
    # index_put is differentiable w.r.t. the values written, so gradients reach the items
    out = flat.index_put((rag.pad_rows(width),), v).reshape(rag.batch, width, *trail)
    if nt._ridx != 1:
        out = out.movedim(1, nt._ridx)
    if output_size is None:
        return out
    size = tuple(output_size)
    if len(size) != out.dim():
        raise RuntimeError(
            "Length of output_size does not match NestedTensor dims. Broadcasting is not "
            "supported."
        )
    if any(s < c for s, c in zip(size, out.shape, strict=True)):
        raise RuntimeError(
            "Value in output_size is less than NestedTensor padded size. Truncation is not "
            "supported."
        )
    pads = []
    for s, c in reversed(list(zip(size, out.shape, strict=True))):
        pads += [0, s - c]
    return _core.pad(out, tuple(pads), value=padding) if any(pads) else out


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Per-item attention for nested ``(B, j, E)`` or ``(B, heads, j, E)`` inputs: item
    ``i`` of the result is the dense attention of item ``i`` of query, key and value.
    The callers (``_functional``) have checked that all three are nested."""
    op = "scaled_dot_product_attention"
    named = (("query", query), ("key", key), ("value", value))
    if attn_mask is not None:
        raise NotImplementedError(
            f"{op}(): attn_mask is not supported with nested query/key/value (the mask of "
            "ragged items is ragged in two dims); use is_causal=True or per-item calls"
        )
    for name, t in named:
        if t._ridx != t.dim() - 2:
            raise RuntimeError(
                f"{op}(): the ragged dim of {name} (shape {t._shape_str()}) must be the "
                "sequence dim -2: (B, j, E) or (B, heads, j, E)"
            )
    if key._ragged is not value._ragged or key._ragged.batch != query._ragged.batch:
        raise RuntimeError(
            f"{op}(): key and value must have the same item lengths and the batch size of "
            f"query; got shapes {query._shape_str()}, {key._shape_str()} and "
            f"{value._shape_str()} with key lengths {_short(key._ragged.lengths)} and value "
            f"lengths {_short(value._ragged.lengths)}"
        )
    back = query._ridx - 1
    outs = [_dense_sdpa(q, k, v, None, dropout_p, is_causal, scale, enable_gqa).movedim(back, 0)
            for q, k, v in zip(split_items(query), split_items(key), split_items(value),
                               strict=True)]
    return query._wrap(_core.cat(outs, 0))
