"""Loss modules: thin wrappers over ``ferric.nn.functional`` with PyTorch's options."""

from __future__ import annotations

from .. import functional as F
from .._functional_loss import _legacy_reduction
from .module import Module

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss",
    "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss",
    "MSELoss", "MarginRankingLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss",
    "SoftMarginLoss",
]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        # a buffer, so it follows .to()/.double() and appears in state_dict
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    r"""Mean absolute error ``|x - y|``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.L1Loss()(ferric.tensor([1.0, 2.0]), ferric.tensor([0.0, 4.0]))
        tensor(1.5000)
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    r"""Mean squared error ``(x - y)^2``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.MSELoss()(ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 4.0]))
        tensor(2.)
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    r"""Smooth L1 loss: :math:`0.5 (x - y)^2 / \beta` where :math:`|x - y| < \beta`, else :math:`|x
    - y| - 0.5 \beta` (:func:`ferric.nn.functional.smooth_l1_loss`).

    Args:
        size_average, reduce: deprecated; use ``reduction``.
        beta (float): where the loss turns from quadratic to linear. Default: 1.0.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.SmoothL1Loss()(ferric.tensor([0.5, 3.0]), ferric.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    r"""Huber loss: :math:`0.5 (x - y)^2` where :math:`|x - y| < \delta`, else :math:`\delta (|x -
    y| - 0.5 \delta)` (:func:`ferric.nn.functional.huber_loss`).

    Args:
        delta (float): where the loss turns from quadratic to linear. Default: 1.0.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.HuberLoss(delta=2.0)(ferric.tensor([0.5, 3.0]), ferric.tensor([0.0, 0.0]))
        tensor(2.0625)
    """
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    r"""Kullback-Leibler divergence with ``input`` given as log-probabilities: :math:`y (\log y -
    x)` (``reduction='batchmean'`` divides the sum by the batch size, the true KL divergence)
    (:func:`ferric.nn.functional.kl_div`).

    Args:
        size_average, reduce: deprecated; use ``reduction``.
        log_target (bool): ``target`` is given as log-probabilities too. Default: ``False``.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> p = ferric.tensor([[0.25, 0.75]])
        >>> nn.KLDivLoss(reduction='batchmean')(p.log(), ferric.tensor([[0.5, 0.5]]))
        tensor(0.1438)
    """
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class BCELoss(_WeightedLoss):
    r"""Binary cross-entropy between probabilities ``input`` and targets in [0, 1]: :math:`-w [y
    \log x + (1 - y) \log(1 - x)]`, logs clamped at -100
    (:func:`ferric.nn.functional.binary_cross_entropy`).

    Args:
        weight (Tensor, optional): a rescaling weight per element.
        size_average, reduce: deprecated; use ``reduction``.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.BCELoss()(ferric.tensor([0.8, 0.2]), ferric.tensor([1.0, 0.0]))
        tensor(0.2231)
    """
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    r"""Binary cross entropy on logits (a sigmoid fused with BCE, numerically stable).

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.BCEWithLogitsLoss()(ferric.tensor([0.0, 0.0]), ferric.tensor([0.0, 1.0]))
        tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    r"""Negative log likelihood of the target classes given log-probabilities.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> logp = ferric.tensor([[0.5, 0.5], [0.9, 0.1]]).log()
        >>> nn.NLLLoss()(logp, ferric.tensor([0, 1]))
        tensor(1.4979)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    r"""Cross entropy between logits and class indices or class probabilities.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.CrossEntropyLoss()(ferric.tensor([[0.0, 0.0]]), ferric.tensor([1]))
        tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class PoissonNLLLoss(_Loss):
    r"""Negative log-likelihood of a Poisson target: :math:`e^x - y x` with ``log_input=True``, else
    :math:`x - y \log(x + \epsilon)` (:func:`ferric.nn.functional.poisson_nll_loss`).

    Args:
        log_input (bool): ``input`` is the log of the rate. Default: ``True``.
        full (bool): add the Stirling term. Default: ``False``.
        size_average, reduce: deprecated; use ``reduction``.
        eps (float): avoids :math:`\log 0` when ``log_input=False``. Default: 1e-8.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.PoissonNLLLoss()(ferric.tensor([0.0, 1.0]), ferric.tensor([1.0, 2.0]))
        tensor(0.8591)
    """
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    r"""Negative log-likelihood of a Gaussian target with predicted mean ``input`` and variance
    ``var``: :math:`0.5 (\log \max(v, \epsilon) + (x - y)^2 / \max(v, \epsilon))`
    (:func:`ferric.nn.functional.gaussian_nll_loss`).

    Args:
        full (bool): add the constant :math:`0.5 \log 2\pi`. Default: ``False``.
        eps (float): lower clamp of the variance. Default: 1e-6.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> loss = nn.GaussianNLLLoss()
        >>> loss(ferric.tensor([0.0, 1.0]), ferric.tensor([0.5, 1.0]), ferric.ones(2))
        tensor(0.0625)
    """
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class SoftMarginLoss(_Loss):
    r"""Two-class logistic loss for targets :math:`y \in \{-1, 1\}`: :math:`\log(1 + e^{-y x})`
    (:func:`ferric.nn.functional.soft_margin_loss`).

    Args:
        size_average, reduce: deprecated; use ``reduction``.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.SoftMarginLoss()(ferric.tensor([2.0, -1.0]), ferric.tensor([1.0, 1.0]))
        tensor(0.7201)
    """
    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    r"""Ranking loss for pairs: :math:`\max(0, -y (x_1 - x_2) + \text{margin})` with :math:`y = 1`
    when :math:`x_1` should rank higher, :math:`-1` otherwise
    (:func:`ferric.nn.functional.margin_ranking_loss`).

    Args:
        margin (float): Default: 0.0.
        size_average, reduce: deprecated; use ``reduction``.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> loss = nn.MarginRankingLoss(margin=0.5)
        >>> loss(ferric.tensor([1.0, 0.0]), ferric.tensor([0.8, 1.0]), ferric.tensor([1.0, -1.0]))
        tensor(0.1500)
    """
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    r"""Hinge embedding loss for targets in :math:`\{-1, 1\}`: :math:`x` where :math:`y = 1`,
    :math:`\max(0, \text{margin} - x)` where :math:`y = -1`
    (:func:`ferric.nn.functional.hinge_embedding_loss`).

    Args:
        margin (float): Default: 1.0.
        size_average, reduce: deprecated; use ``reduction``.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.HingeEmbeddingLoss()(ferric.tensor([0.3, 0.4]), ferric.tensor([1.0, -1.0]))
        tensor(0.4500)
    """
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    r"""Cosine embedding loss: :math:`1 - \cos(x_1, x_2)` where :math:`y = 1`, :math:`\max(0,
    \cos(x_1, x_2) - \text{margin})` where :math:`y = -1`
    (:func:`ferric.nn.functional.cosine_embedding_loss`).

    Args:
        margin (float): Default: 0.0.
        size_average, reduce: deprecated; use ``reduction``.
        reduction (str): ``'none'``, ``'mean'`` (default) or ``'sum'``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> a = ferric.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> b = ferric.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> nn.CosineEmbeddingLoss()(a, b, ferric.tensor([1.0, -1.0]))
        tensor(1.)
    """
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


# ---------------------------------------------------------------------------- margin,
# triplet and CTC losses (functional forms in nn/_functional_margin_loss.py)


class MultiLabelMarginLoss(_Loss):
    r"""Multi-class multi-label hinge loss between scores ``(N, C)`` and int64 targets
    padded with ``-1``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> loss = nn.MultiLabelMarginLoss()
        >>> loss(ferric.tensor([[0.1, 0.2, 0.4, 0.8]]), ferric.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    r"""Multi-label one-versus-all logistic loss, averaged over the classes.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.MultiLabelSoftMarginLoss()(ferric.zeros(1, 2), ferric.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    r"""Multi-class hinge loss (``p`` = 1 or 2) between scores and class indices.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.MultiMarginLoss()(ferric.tensor([[0.1, 0.2, 0.4, 0.8]]), ferric.tensor([3]))
        tensor(0.3250)
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                "MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    r"""Triplet loss ``max(d(a, p) - d(a, n) + margin, 0)`` with the pairwise p-distance.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> a, pos, neg = ferric.zeros(1, 2), ferric.ones(1, 2), ferric.zeros(1, 2)
        >>> nn.TripletMarginLoss()(a, pos, neg)
        tensor(2.4142)
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} "
                "instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    r"""Triplet loss with a custom ``distance_function`` (default:
    :class:`PairwiseDistance`).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> a, pos, neg = ferric.zeros(1, 2), ferric.ones(1, 2), ferric.zeros(1, 2)
        >>> nn.TripletMarginWithDistanceLoss()(a, pos, neg)
        tensor(2.4142)
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead")
        from .distance import PairwiseDistance

        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    r"""Connectionist Temporal Classification loss (see ``F.ctc_loss``).

    Args:
        blank (int): the blank label. Default: 0.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): zero infinite losses. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> lp = ferric.full((2, 1, 2), 0.5).log()
        >>> nn.CTCLoss(reduction="sum")(lp, ferric.tensor([[1]]), [2], [1])
        tensor(0.2877)
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


__all__ += [
    "CTCLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
    "TripletMarginLoss", "TripletMarginWithDistanceLoss",
]
