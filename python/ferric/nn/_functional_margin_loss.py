"""Margin, triplet and CTC losses of ``ferric.nn.functional`` (re-exported there):
``multilabel_margin_loss``, ``multilabel_soft_margin_loss``, ``multi_margin_loss``,
``triplet_margin_loss``, ``triplet_margin_with_distance_loss`` and ``ctc_loss``.

Each is a composite of differentiable ferric ops (gathers, masks, pairwise sums), so
gradients come from the core autograd. ``ctc_loss`` runs the forward (alpha) recursion
over time, vectorised over the batch and the label positions, in probability space with
per-step renormalisation (Graves' scaling), in float64.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .._core import Tensor
from ._functional_loss import _reduce, _reduction


def _check_class_input(name, input, target):
    if input.dim() not in (1, 2) or (input.dim() == 1 and target.dim() > 1):
        raise RuntimeError(
            f"{name}: Expected non-empty vector or matrix with optional 0-dim batch size, "
            f"but got: {list(input.shape)}")


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    r"""Multi-class multi-label hinge loss: for each sample,
    ``sum_{j, i} max(0, 1 - (x[y_j] - x[i])) / C`` over the target classes ``y_j`` (the
    entries of ``target`` before the first ``-1``) and the non-target classes ``i``.

    Args:
        input (Tensor): ``(C)`` or ``(N, C)`` scores.
        target (Tensor): int64 of the same shape, padded with ``-1``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> F.multilabel_margin_loss(x, ferric.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    input, target = _core._autocast_args("fp32", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    _check_class_input("multilabel_margin_loss", input, target)
    if target.shape != input.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: "
            f"{list(input.shape)}")
    unbatched = input.dim() == 1
    x = input.unsqueeze(0) if unbatched else input
    y = target.unsqueeze(0) if unbatched else target
    c = x.shape[1]
    if y.numel() and (bool((y < -1).any()) or bool((y >= c).any())):
        raise RuntimeError("multilabel_margin_loss: target out of range")
    # targets count up to the first -1 of each row
    valid = (y != -1).to(_core.int64).cumprod(1) > 0
    safe = _core.where(valid, y, 0)
    is_target = _core.zeros(x.shape, dtype=x.dtype).scatter_add(
        1, safe, valid.to(x.dtype)) > 0
    xy = x.gather(1, safe)  # (N, C_j): the score of each target
    hinge = (1 - xy.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0.0)  # (N, C_j, C_i)
    mask = valid.unsqueeze(2) & (~is_target).unsqueeze(1)
    loss = _core.where(mask, hinge, 0.0).sum((1, 2)) / c
    if unbatched:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    r"""Multi-label one-versus-all loss on logits: the class mean of
    ``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))`` (times ``weight``).

    Args:
        input (Tensor): ``(N, C)`` logits.
        target (Tensor): ``(N, C)`` of 0/1 labels.
        weight (Tensor, optional): a weight per class.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.multilabel_soft_margin_loss(ferric.zeros(1, 2), ferric.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    loss = -(target * _core.logsigmoid(input) + (1 - target) * _core.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    r"""Multi-class hinge loss: ``sum_{i != y} w[y] max(0, margin - x[y] + x[i])^p / C``.

    Args:
        input (Tensor): ``(N, C)`` or ``(C)`` scores.
        target (Tensor): ``(N)`` or ``()`` int64 classes.
        p (int): 1 or 2. Default: 1.
        margin (float): Default: 1.
        weight (Tensor, optional): a weight per class.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.multi_margin_loss(ferric.tensor([[0.1, 0.2, 0.4, 0.8]]), ferric.tensor([3]))
        tensor(0.3250)
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if input.dim() > 2:
        raise RuntimeError(
            "multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim "
            f"batch size, but got: {list(input.shape)}")
    unbatched = input.dim() <= 1
    x = input.reshape(1, -1) if unbatched else input
    n, c = x.shape
    y = target.reshape(-1)
    if y.numel() != n:
        raise RuntimeError(
            f"inconsistent target size, expected {n} but got {list(target.shape)}")
    if y.numel() and (bool((y < 0).any()) or bool((y >= c).any())):
        raise RuntimeError("target out of range")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(
            f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    xy = x.gather(1, y.unsqueeze(1))
    z = (margin - xy + x).clamp_min(0.0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, y).unsqueeze(1)
    others = _core.arange(c).unsqueeze(0) != y.unsqueeze(1)
    loss = _core.where(others, z, 0.0).sum(1) / c
    if unbatched:
        loss = loss.reshape(tuple(target.shape))
    return _reduce(loss, reduction)


def _same_rank(name, anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D "
            "inputs")


def _pairwise(x1, x2, p, eps):
    # ATen's pairwise_distance: the p-norm of x1 - x2 + eps over the last dim
    dim = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, dim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    r"""``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the pairwise p-distance;
    ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative distance.

    Args:
        anchor, positive, negative (Tensor): ``(N, D)`` or ``(D)``.
        margin (float): Default: 1.
        p (float): the norm degree. Default: 2.
        eps (float): added to the differences. Default: ``1e-6``.
        swap (bool): the distance swap of Balntas et al. Default: ``False``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> a, pos, neg = ferric.zeros(1, 2), ferric.ones(1, 2), ferric.zeros(1, 2)
        >>> F.triplet_margin_loss(a, pos, neg)
        tensor(2.4142)
    """
    anchor, positive, negative = _core._autocast_args("fp32", anchor, positive, negative)
    reduction = _reduction(size_average, reduce, reduction)
    _same_rank("triplet_margin_loss", anchor, positive, negative)
    d_pos = _pairwise(anchor, positive, p, eps)
    d_neg = _pairwise(anchor, negative, p, eps)
    if swap:
        d_neg = _core.minimum(d_neg, _pairwise(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0.0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    r""":func:`triplet_margin_loss` with any ``distance_function`` (default: the
    pairwise Euclidean distance).

    Args:
        anchor, positive, negative (Tensor): the triplets.
        distance_function (Callable, optional): ``(x1, x2) -> distances``.
        margin (float): must be positive. Default: 1.
        swap (bool): the distance swap. Default: ``False``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> a, pos, neg = ferric.zeros(1, 2), ferric.ones(1, 2), ferric.zeros(1, 2)
        >>> l1 = lambda x, y: (x - y).abs().sum(-1)
        >>> F.triplet_margin_with_distance_loss(a, pos, neg, distance_function=l1)
        tensor(3.)
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(
            "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
            f"{margin} instead")
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not a == p == n:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same "
            f"number of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D "
            "inputs")
    dist = distance_function if distance_function is not None else (
        lambda x1, x2: _pairwise(x1, x2, 2.0, 1e-6))
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _core.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0.0), reduction)


# ---------------------------------------------------------------------------- CTC


def _lengths(value, name, n):
    if isinstance(value, Tensor):
        vals = value.reshape(-1).tolist()
    else:
        vals = list(value) if isinstance(value, (list, tuple)) else [value]
    vals = [int(v) for v in vals]
    if len(vals) != n:
        raise RuntimeError(f"Expected tensor to have size at least {n} at dimension 1, but "
                           f"got size {len(vals)} for argument #2 '{name}' "
                           "(while checking arguments for ctc_loss_cpu)")
    return np.asarray(vals, dtype=np.int64)


def _target_rows(targets, target_lengths, n):
    """The label sequence of each sample, from padded ``(N, S)`` or concatenated 1-D
    targets."""
    if targets.dim() == 2:
        rows = targets.tolist()
        return [r[:k] for r, k in zip(rows, target_lengths, strict=True)]
    flat = targets.reshape(-1).tolist()
    out, start = [], 0
    for k in target_lengths:
        out.append(flat[start:start + k])
        start += k
    return out


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    r"""Connectionist Temporal Classification loss: the negative log likelihood of each
    target sequence summed over its alignments to the input frames.

    ``log_probs`` is ``(T, N, C)`` (or ``(T, C)`` unbatched) log-probabilities (usually
    ``log_softmax`` outputs); ``targets`` is padded ``(N, S)`` or the concatenated 1-D
    targets; ``reduction='mean'`` divides each loss by its target length before
    averaging over the batch. ``zero_infinity`` replaces infinite losses (impossible
    alignments) by zero.

    The alpha recursion runs over time in float64 probability space, renormalised at
    every step, vectorised over the batch and the extended label positions; its gradient
    is the autograd of that recursion. Through a ``log_softmax`` the gradient w.r.t. the
    logits equals PyTorch's; w.r.t. ``log_probs`` directly PyTorch's hand-written
    backward adds ``exp(log_probs)`` (it assumes a ``log_softmax`` input), ferric's does
    not.

    Args:
        log_probs (Tensor): ``(T, N, C)`` or ``(T, C)``.
        targets (Tensor): ``(N, S)`` or ``(sum(target_lengths))`` int64 labels.
        input_lengths (Tensor or tuple): ``(N)`` frame counts.
        target_lengths (Tensor or tuple): ``(N)`` label counts.
        blank (int): the blank label. Default: 0.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): zero infinite losses. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> lp = ferric.full((2, 1, 2), 0.5).log()
        >>> F.ctc_loss(lp, ferric.tensor([[1]]), [2], [1], reduction="sum")
        tensor(0.2877)
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.dim() != 3:
        raise RuntimeError(
            f"ctc_loss: expected log_probs to be 2-D or 3-D, got {log_probs.dim()}-D")
    t_max, n, c = lp.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if unbatched and targets.dim() == 1:
        targets = targets.unsqueeze(0)
    in_len = _lengths(input_lengths, "input_lengths", n)
    tg_len = _lengths(target_lengths, "target_lengths", n)
    rows = _target_rows(targets, tg_len, n)
    for i in range(n):
        if in_len[i] > t_max or in_len[i] < 0:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {t_max}, but got value "
                f"{in_len[i]} (while checking arguments for ctc_loss_allocate_outputs)")
        if tg_len[i] < 0:
            raise RuntimeError(f"target_lengths must be non-negative, got {tg_len[i]}")
    s_max = int(tg_len.max()) if n else 0
    width = 2 * s_max + 1
    # extended labels: blank, l1, blank, l2, ..., blank (padded with blanks)
    ext = np.full((n, width), blank, dtype=np.int64)
    skip = np.zeros((n, width), dtype=bool)  # may come from s - 2
    for i, r in enumerate(rows):
        ext[i, 1:2 * len(r):2] = r
        for s in range(3, 2 * len(r), 2):
            skip[i, s] = r[(s - 1) // 2] != r[(s - 3) // 2]
    ext_t = _core.tensor(ext.tolist(), dtype=_core.int64)
    skip_t = _core.tensor(skip.tolist(), dtype=_core.bool)
    # a tensor of this call's own (a hook may be put on it below)
    lp64 = lp.to(_core.float64) if lp.dtype != _core.float64 else lp.clone()
    probs = lp64.exp()  # (T, N, C)
    first = np.zeros((n, width), dtype=bool)
    first[:, 0] = True
    first[:, 1] = tg_len > 0
    first_t = _core.tensor(first.tolist(), dtype=_core.bool)
    # alpha_hat_0 (normalised) and the log of each step's normaliser
    log_scale = _core.zeros(n, dtype=_core.float64)
    alpha = None
    for t in range(t_max):
        emit = probs[t].gather(1, ext_t)  # (N, width)
        if alpha is None:
            cand = _core.where(first_t, emit, 0.0)
        else:
            a1 = _core.pad(alpha, [1, 0])[:, :width]
            a2 = _core.where(skip_t, _core.pad(alpha, [2, 0])[:, :width], 0.0)
            cand = (alpha + a1 + a2) * emit
        total = cand.sum(1, keepdim=True)
        pos = total > 0
        norm = cand / _core.where(pos, total, 1.0)
        step_log = _core.where(pos, _core.where(pos, total, 1.0).log(), float("-inf"))
        live = _core.tensor((t < in_len).tolist(), dtype=_core.bool)
        if alpha is None:
            alpha = _core.where(live.unsqueeze(1), norm, first_t.to(_core.float64))
        else:
            alpha = _core.where(live.unsqueeze(1), norm, alpha)
        log_scale = log_scale + _core.where(live, step_log.squeeze(1), 0.0)
    ends = np.stack([2 * tg_len, np.maximum(2 * tg_len - 1, 0)], 1)
    end_ok = np.stack([np.ones(n, dtype=bool), tg_len > 0], 1)
    if alpha is None:
        alpha = first_t.to(_core.float64)
    fin = _core.where(_core.tensor(end_ok.tolist(), dtype=_core.bool),
                      alpha.gather(1, _core.tensor(ends.tolist(), dtype=_core.int64)),
                      0.0).sum(1)
    ok = fin > 0
    ll = log_scale + _core.where(ok, _core.where(ok, fin, 1.0).log(), float("-inf"))
    # no frames: a likelihood of 1 for an empty target, 0 otherwise
    nll = -ll
    if t_max == 0 or np.any(in_len == 0):
        empty = _core.tensor((in_len == 0).tolist(), dtype=_core.bool)
        none_left = _core.tensor((tg_len == 0).tolist(), dtype=_core.bool)
        nll = _core.where(empty, _core.where(none_left, 0.0, float("inf")), nll)
    if zero_infinity:
        nll = _core.where(nll == float("inf"), 0.0, nll)
    elif lp64.requires_grad and _core.is_grad_enabled():
        _nan_grad_where_infinite(lp64, nll, in_len)
    nll = nll.to(log_probs.dtype)
    if unbatched:
        nll = nll.squeeze(0)
    if reduction == "mean":
        div = _core.tensor(np.maximum(tg_len, 1).tolist(), dtype=log_probs.dtype)
        return (nll / (div.squeeze(0) if unbatched else div)).mean()
    return _reduce(nll, reduction)


def _nan_grad_where_infinite(lp64, nll, in_len):
    """PyTorch's CTC backward gives NaN gradients on the frames of a sample whose loss
    is infinite (no alignment exists) unless ``zero_infinity``; the recursion here would
    give 0, so a hook on the float64 copy of the inputs writes the NaNs."""
    bad = np.isinf(np.asarray(nll.detach().tolist(), dtype=np.float64).reshape(-1))
    if not bad.any():
        return
    t_max = lp64.shape[0]
    frames = np.arange(t_max)[:, None] < in_len[None, :]
    mask = _core.tensor((frames & bad[None, :]).tolist(), dtype=_core.bool).unsqueeze(2)
    lp64.register_hook(lambda g: _core.where(mask, float("nan"), g))
