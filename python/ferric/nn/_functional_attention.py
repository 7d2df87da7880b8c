"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``
(re-exported by ``ferric.nn.functional``), composed of differentiable ops."""

from __future__ import annotations

import math
import warnings

from .. import _core
from ._functional_dropout import dropout


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    r"""``softmax(Q K^T * scale + mask) V`` over the last two dims.

    A bool ``attn_mask`` marks the positions that *take part* in attention (True);
    a float mask is added to the scores. ``is_causal`` applies a lower-triangular mask.

    Args:
        query (Tensor): ``(..., L, E)``.
        key (Tensor): ``(..., S, E)``.
        value (Tensor): ``(..., S, Ev)``.
        attn_mask (Tensor, optional): a bool mask (True: attend) or a float bias added to the
            scores.
        dropout_p (float): the dropout probability of the attention weights. Default: 0.
        is_causal (bool): mask out future positions. Default: False.
        scale (float, optional): the score scale. Default: ``1 / sqrt(E)``.
        enable_gqa (bool): let ``key``/``value`` have fewer heads than ``query`` (grouped-query
            attention). Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> q = ferric.tensor([[[1.0, 0.0]]])
        >>> k = ferric.tensor([[[1.0, 0.0], [0.0, 1.0]]])
        >>> v = ferric.tensor([[[1.0, 2.0], [3.0, 4.0]]])
        >>> F.scaled_dot_product_attention(q, k, v)
        tensor([[[1.6605, 2.6605]]])
    """
    query, key, value = _core._autocast_args("lower", query, key, value)
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3)
        value = value.repeat_interleave(rep, -3)
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        keep = _core.ones(L, S, dtype=_core.bool).tril(0)
        scores = scores.masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == _core.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _canonical_mask(mask, name, other_dtype, other_name, target_dtype, check_other=True):
    """Bool masks (True = masked out) become float masks with ``-inf``."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _core.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other_dtype is not None and mask.dtype != other_dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            stacklevel=3,
        )
    if not is_float:
        mask = _core.zeros(tuple(mask.shape), dtype=target_dtype).masked_fill(
            mask, float("-inf"))
    return mask


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's checks of the attention inputs' ranks; True for a batched (3-D) query,
    False for an unbatched (2-D) one."""
    d = query.dim()
    if d not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{d}-D query tensor"
        )
    batched = d == 3
    head = "For batched (3-D) `query`" if batched else "For unbatched (2-D) `query`"
    if key.dim() != d or value.dim() != d:
        raise AssertionError(
            f"{head}, expected `key` and `value` to be {d}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != d - 1:
        raise AssertionError(
            f"{head}, expected `key_padding_mask` to be `None` or {d - 1}-D "
            f"but found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"{head}, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead"
            )
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    return batched


def _lin(x, w, b):
    out = x.matmul(w.t())
    return out if b is None else out + b


def multi_head_attention_forward(
    query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
    bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
    training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
    use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
    v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
    is_causal=False,
):
    """The computation of ``nn.MultiheadAttention`` on sequence-first inputs
    ``(L, N, E)`` (or unbatched ``(L, E)``). Returns ``(output, weights or None)``.

    Args:
        query (Tensor): ``(L, N, E)`` or ``(L, E)``.
        key (Tensor): ``(S, N, E)`` or ``(S, E)``.
        value (Tensor): ``(S, N, E)`` or ``(S, E)``.
        embed_dim_to_check (int): the expected embedding size ``E``.
        num_heads (int): the number of heads.
        in_proj_weight (Tensor, optional): the packed ``(3E, E)`` input projection.
        in_proj_bias (Tensor, optional): the packed ``(3E,)`` input bias.
        bias_k (Tensor, optional): a bias appended to the keys.
        bias_v (Tensor, optional): a bias appended to the values.
        add_zero_attn (bool): append a zero key/value position.
        dropout_p (float): the dropout probability of the attention weights.
        out_proj_weight (Tensor): the ``(E, E)`` output projection.
        out_proj_bias (Tensor, optional): the output bias.
        training (bool): apply dropout. Default: True.
        key_padding_mask (Tensor, optional): ``(N, S)``, True (or a float bias) for padding keys.
        need_weights (bool): also return the attention weights. Default: True.
        attn_mask (Tensor, optional): ``(L, S)`` or ``(N * num_heads, L, S)``, a bool mask (True:
            masked) or a float bias.
        use_separate_proj_weight (bool): use ``q/k/v_proj_weight`` instead of ``in_proj_weight``.
            Default: False.
        q_proj_weight (Tensor, optional): the query projection.
        k_proj_weight (Tensor, optional): the key projection.
        v_proj_weight (Tensor, optional): the value projection.
        static_k (Tensor, optional): precomputed projected keys.
        static_v (Tensor, optional): precomputed projected values.
        average_attn_weights (bool): average the returned weights over the heads. Default: True.
        is_causal (bool): a hint that ``attn_mask`` is the causal mask. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> E = 2
        >>> x = ferric.ones(3, 1, E)
        >>> out, w = F.multi_head_attention_forward(
        ...     x, x, x, E, 1, ferric.eye(E).repeat(3, 1), ferric.zeros(3 * E), None, None, False,
        ...     0.0, ferric.eye(E), ferric.zeros(E))
        >>> out.shape, w.shape
        (ferric.Size([3, 1, 2]), ferric.Size([1, 3, 3]))
    """
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q = _lin(query, q_proj_weight, bq)
        k = _lin(key, k_proj_weight, bk)
        v = _lin(value, v_proj_weight, bv)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        wq, wk, wv = in_proj_weight.chunk(3)
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q, k, v = _lin(query, wq, bq), _lin(key, wk, bk), _lin(value, wv, bv)

    if attn_mask is not None:
        src = key.shape[0]
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, src)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(bsz * num_heads, tgt_len, src)}."
            )
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key.")
        k = _core.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _core.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _core.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _core.pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k is set but bias_v is None" if bias_k is not None
                             else "bias_v is set but bias_k is None")

    # (L, N, E) -> (N * heads, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = static_k if static_k is not None else \
        k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = static_v if static_v is not None else \
        v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        z = _core.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)
        k = _core.cat([k, z], 1)
        v = _core.cat([v, z], 1)
        if attn_mask is not None:
            attn_mask = _core.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _core.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    scores = (q * (1.0 / math.sqrt(head_dim))).matmul(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    out = weights.matmul(v)  # (N * heads, L, head_dim)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _lin(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        weights = weights.squeeze(0)
    return out, weights
