"""Loss functions of ``ferric.nn.functional`` (re-exported there).

Cross entropy and nll_loss call the fused Rust ops (``_core._cross_entropy`` /
``_core._nll_loss``); the others are composites of differentiable ferric ops
(BCE-with-logits goes through ``logsigmoid``, so it stays finite for large logits).
Where PyTorch has a backward node of its own for a loss (``MseLossBackward0``, ...), the
composite's result is passed through a node of that name (``_core._named_node``), so
``loss.grad_fn`` reads as in PyTorch; losses PyTorch itself composes from other ops
(``l1_loss``, ``kl_div``, ...) keep the node of their last op, as there.
"""

from __future__ import annotations

import warnings

from .. import _core
from .._core import Tensor

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, emit_warning=True):
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
            "instead.",
            stacklevel=3,
        )
    return ret


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _weighted(loss, weight, input, reduction):
    if weight is None:
        return _reduce(loss, reduction)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean":
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def _warn_broadcast(input, target):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(x - y)^2`` (optionally weighted).

    Args:
        input (Tensor): the input tensor.
        target (Tensor): the target, shaped like ``input`` unless said otherwise.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        weight (Tensor, optional): a weight per element (broadcast).

    Example::

        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.mse_loss(ferric.tensor([1.0, 2.0, 3.0]), ferric.tensor([1.0, 0.0, 3.0]))
        tensor(1.3333)
        >>> F.mse_loss(ferric.tensor([1.0, 2.0]), ferric.tensor([0.0, 0.0]), reduction="none")
        tensor([1., 4.])
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    _warn_broadcast(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    diff = input - target
    return _core._named_node(_weighted(diff * diff, weight, input, reduction),
                             "MseLossBackward0")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|x - y|`` (optionally weighted).

    Args:
        input (Tensor): the input tensor.
        target (Tensor): the target, shaped like ``input`` unless said otherwise.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        weight (Tensor, optional): a weight per element (broadcast).

    Example::

        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.l1_loss(ferric.tensor([1.0, 2.0]), ferric.tensor([0.0, 4.0]), reduction="sum")
        tensor(3.)
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    _warn_broadcast(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _weighted((input - target).abs(), weight, input, reduction)


def _huber(diff, delta):
    # 0.5 d^2 inside |d| < delta, delta (|d| - 0.5 delta) outside
    ad = diff.abs()
    return _core.where(ad < delta, 0.5 * diff * diff, delta * (ad - 0.5 * delta))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",
                   beta=1.0):
    """Huber loss divided by ``beta`` (L1 when ``beta == 0``).

    Args:
        input (Tensor): the input tensor.
        target (Tensor): the target, shaped like ``input`` unless said otherwise.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        beta (float): where the loss turns from quadratic to linear. Default: 1.0.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.smooth_l1_loss(ferric.tensor([0.0, 3.0]), ferric.tensor([0.5, 0.0]))
        tensor(1.3125)
    """
    input, target = _core._autocast_args("fp32", input, target)
    _warn_broadcast(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = input - target
    if beta == 0.0:
        return _reduce(diff.abs(), reduction)
    ad = diff.abs()
    loss = _core.where(ad < beta, 0.5 * diff * diff / beta, ad - 0.5 * beta)
    return _core._named_node(_reduce(loss, reduction), "SmoothL1LossBackward0")


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 d^2`` for ``|d| < delta``, else ``delta (|d| - 0.5 delta)``.

    Args:
        input (Tensor): the input tensor.
        target (Tensor): the target, shaped like ``input`` unless said otherwise.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        delta (float): where the loss turns from quadratic to linear. Default: 1.0.
        weight (Tensor, optional): a weight per element (broadcast).

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.huber_loss(ferric.tensor([0.0, 3.0]), ferric.tensor([0.5, 0.0]))
        tensor(1.3125)
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    _warn_broadcast(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _weighted(_huber(input - target, delta), weight, input, reduction)
    return _core._named_node(loss, "HuberLossBackward0")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(y log x + (1 - y) log(1 - x))`` with the logs clamped at -100 (as PyTorch).

    Args:
        input (Tensor): probabilities in ``[0, 1]``.
        target (Tensor): targets in ``[0, 1]``, shaped like ``input``.
        weight (Tensor, optional): a rescaling weight per element (broadcast).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.binary_cross_entropy(ferric.tensor([0.8, 0.3]), ferric.tensor([1.0, 0.0]))
        tensor(0.2899)
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    # written so that NaN fails the check too, as in PyTorch's kernel
    for name, t in (("input", input), ("target", target)):
        if t.numel() and not bool(((t >= 0) & (t <= 1)).all()):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    log_x = input.log().clamp_min(-100.0)
    log_1mx = (1 - input).log().clamp_min(-100.0)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _core._named_node(_reduce(loss, reduction), "BinaryCrossEntropyBackward0")


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """BCE on logits in the stable form ``(1 - y) x - w_pos(y) logsigmoid(x)``.

    Args:
        input (Tensor): logits.
        target (Tensor): targets in ``[0, 1]``, shaped like ``input``.
        weight (Tensor, optional): a rescaling weight per element (broadcast).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        pos_weight (Tensor, optional): the weight of the positive examples, per class.

    Example::

        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> logits, target = ferric.tensor([0.0, 100.0]), ferric.tensor([1.0, 1.0])
        >>> F.binary_cross_entropy_with_logits(logits, target)
        tensor(0.3466)
    """
    input, target, weight, pos_weight = _core._autocast_args(
        "fp32", input, target, weight, pos_weight)
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    ls = _core.logsigmoid(input)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input - log_weight * ls
    else:
        loss = (1 - target) * input - ls
    if weight is not None:
        loss = loss * weight
    return _core._named_node(_reduce(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0")


def _xlogy(t):
    # t * log(t) with 0 at t == 0 (and a finite gradient there)
    safe = _core.where(t > 0, t, 1.0)
    return t * safe.log()


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    """KL divergence with ``input`` in log space: ``y (log y - x)`` pointwise.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities when ``log_target``).
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        log_target (bool): ``target`` holds log-probabilities. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> log_p = ferric.tensor([0.25, 0.75]).log()
        >>> F.kl_div(log_p, ferric.tensor([0.5, 0.5]), reduction='sum')
        tensor(0.1438)
    """
    input, target = _core._autocast_args("fp32", input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    elif reduction not in ("none", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log likelihood of the target classes: ``-w[y] * input[n, y]``.

    ``input`` is ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` log-probabilities; targets
    equal to ``ignore_index`` contribute nothing (and are left out of the mean's
    denominator, which is the sum of the selected class weights). One fused Rust op
    (``NllLossBackward0``; ``NllLoss2DBackward0`` for inputs of 3+ dims).

    Args:
        input (Tensor): log-probabilities, ``(N, C)`` or ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): class indices (int64).
        weight (Tensor, optional): a weight per class, ``(C,)``.
        size_average (bool, optional): deprecated (see ``reduction``).
        ignore_index (int): a target class that does not count. Default: -100.
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example::

        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> logp = ferric.tensor([[0.0, 1.0], [2.0, 3.0]]).log_softmax(dim=1)
        >>> F.nll_loss(logp, ferric.tensor([1, 0]))
        tensor(0.8133)
        >>> F.nll_loss(logp, ferric.tensor([1, -100]))  # ignore_index=-100 is skipped
        tensor(0.3133)
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    return _core._nll_loss(input, target, weight, reduction, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits ``input`` (classes on dim 1, or dim 0 unbatched).

    ``target`` holds class indices (int64, shape without the class dim) or class
    probabilities (float, same shape as ``input``). ``label_smoothing`` mixes the target
    with the uniform distribution. Computed as PyTorch does: a fused ``log_softmax``
    followed by a fused ``nll_loss`` for class indices, plus the smoothing term.

    Args:
        input (Tensor): unnormalised logits, ``(N, C)`` or ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): class indices (int64) or class probabilities shaped like ``input``.
        weight (Tensor, optional): a weight per class, ``(C,)``.
        size_average (bool, optional): deprecated (see ``reduction``).
        ignore_index (int): a target class that does not count. Default: -100.
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.
        label_smoothing (float): how much probability mass to spread over all classes, in ``[0,
            1]``. Default: 0.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> logits = ferric.tensor([[2.0, 0.0], [0.0, 2.0]])
        >>> F.cross_entropy(logits, ferric.tensor([0, 1]))
        tensor(0.1269)
    """
    input, target, weight = _core._autocast_args("fp32", input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    return _core._cross_entropy(input, target, weight, reduction, ignore_index,
                                label_smoothing)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log likelihood (with the Stirling term when ``full``).

    Args:
        input (Tensor): the predicted rates (their logs when ``log_input``).
        target (Tensor): the target, shaped like ``input`` unless said otherwise.
        log_input (bool): ``input`` holds log-rates. Default: True.
        full (bool): add the Stirling term. Default: False.
        size_average (bool, optional): deprecated (see ``reduction``).
        eps (float): avoids ``log(0)`` when ``log_input`` is False. Default: 1e-08.
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.poisson_nll_loss(ferric.tensor([0.0, 1.0]), ferric.tensor([1.0, 2.0]))
        tensor(0.8591)
    """
    input, target = _core._autocast_args("fp32", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.clamp_min(1.0).log() - target + \
            0.5 * (2 * 3.141592653589793 * target.clamp_min(1.0)).log()
        loss = loss + _core.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood with predicted variance ``var``.

    Args:
        input (Tensor): the predicted means.
        target (Tensor): the target, shaped like ``input`` unless said otherwise.
        var (Tensor or float): the predicted variances (positive).
        full (bool): include the constant term of the loss. Default: False.
        eps (float): the lower clamp of ``var``. Default: 1e-06.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> mean, target = ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 3.0])
        >>> F.gaussian_nll_loss(mean, target, ferric.ones(2))
        tensor(0.2500)
    """
    reduction = _reduction(None, None, reduction)
    if not isinstance(var, Tensor):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _core.full_like(input, float(var))
    elif var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clamp_min(eps)
    diff = input - target
    loss = 0.5 * (var.log() + diff * diff / var)
    if full:
        loss = loss + 0.5 * 1.8378770664093453  # log(2 pi)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-y x))``.

    Args:
        input (Tensor): the input tensor.
        target (Tensor): 1 or -1 per element.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.soft_margin_loss(ferric.tensor([1.0, -1.0]), ferric.ones(2))
        tensor(0.8133)
    """
    input, target = _core._autocast_args("fp32", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    loss = _reduce(_core.softplus(-target * input), reduction)
    return _core._named_node(loss, "SoftMarginLossBackward0")


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -y (x1 - x2) + margin)``.

    Args:
        input1 (Tensor): the first input.
        input2 (Tensor): the second input.
        target (Tensor): 1 (``input1`` should rank higher) or -1.
        margin (float): the margin. Default: 0.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> a, b = ferric.tensor([1.0, 2.0]), ferric.tensor([2.0, 1.0])
        >>> F.margin_ranking_loss(a, b, ferric.tensor([1.0, 1.0]))
        tensor(0.5000)
    """
    input1, input2, target = _core._autocast_args("fp32", input1, input2, target)
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``x`` where ``y == 1``; ``max(0, margin - x)`` where ``y == -1``.

    Args:
        input (Tensor): the input tensor.
        target (Tensor): 1 or -1 per element.
        margin (float): the margin for the -1 elements. Default: 1.0.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.hinge_embedding_loss(ferric.tensor([0.3, 2.0]), ferric.tensor([1, -1]))
        tensor(0.1500)
    """
    input, target = _core._autocast_args("fp32", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _core.zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0.0)
    out_margin = _core.where(target != 1, margin_clamp, zeros)
    out_self = _core.where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` where ``y == 1``; ``max(0, cos - margin)`` where ``y == -1``.

    Args:
        input1 (Tensor): the first input.
        input2 (Tensor): the second input.
        target (Tensor): 1 (similar) or -1 (dissimilar) per pair.
        margin (float): the margin for dissimilar pairs, in ``[-1, 1]``. Default: 0.
        size_average (bool, optional): deprecated (see ``reduction``).
        reduce (bool, optional): deprecated (see ``reduction``).
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``: how to combine the per-element losses.
            Default: ``'mean'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> a = ferric.tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> b = ferric.tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> F.cosine_embedding_loss(a, b, ferric.tensor([1, -1]))
        tensor(0.)
    """
    input1, input2, target = _core._autocast_args("fp32", input1, input2, target)
    reduction = _reduction(size_average, reduce, reduction)
    eps = 1e-12
    dim = input1.dim() - 1
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = _core.zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0.0)
    loss = _core.where(target == 1, pos, zeros) + _core.where(target == -1, neg, zeros)
    return _reduce(loss, reduction)
