"""PyTorch's top-level spellings of functional ops (``torch.dropout(input, p, train)``,
``torch.layer_norm``, ``torch.kl_div(..., reduction=1)``, ...), which differ from
``nn.functional``'s in argument order, required arguments and integer ``reduction``
codes (1 ``"mean"``, 2 ``"sum"``, any other int ``"none"``, which is also what the
bindings' default gives); and the top-level in-place forms
(``torch.abs_(t)``, ``torch.zero_(t)``, ...) of Tensor methods."""

from __future__ import annotations

import math

from . import _core
from ._core import Tensor
from .nn import functional as F

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(op, reduction):
    # PyTorch's top-level bindings treat any int other than 1 (mean) and 2 (sum) as
    # "none", and their default comes out as 0 (the schema's `Mean` default is not what
    # the Python binding applies): `torch.kl_div(x, y)` is unreduced
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise TypeError(f"{op}(): argument 'reduction' must be int, not "
                        f"{type(reduction).__name__}")
    return _REDUCTIONS.get(reduction, "none")


def _train_flag(op, train):
    if not isinstance(train, bool):
        raise TypeError(f"{op}(): argument 'train' (position 3) must be bool, not "
                        f"{type(train).__name__}")


def _check_p(p):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def _alpha_noise(input, p, feature):
    """PyTorch's alpha-dropout transform: ``input * a * mask + b(mask)`` keeping the
    self-normalizing mean and variance (SELU's alpha)."""
    shape = tuple(input.shape)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (input.dim() - 2)
    keep = _core.empty(shape, dtype=input.dtype).bernoulli_(1 - p)
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = (keep - 1) * (alpha * a) + alpha * a * p
    return input * (keep * a) + b


def _dropout_family(name, input, p, train, kind, inplace):
    _train_flag(name, train)
    _check_p(p)
    if not train or p == 0 or input.numel() == 0:
        return input
    if kind == "plain":
        out = F.dropout(input, p, True, inplace)
    elif kind == "feature":
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        out = F.dropout2d(input, p, True, inplace) if input.dim() == 4 else \
            _feature_mask(input, p, inplace)
    else:
        if p == 1:
            out = input * 0
        else:
            out = _alpha_noise(input, p, kind == "feature_alpha")
        if inplace:
            return input.copy_(out)
    return out


def _feature_mask(input, p, inplace):
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = _core.empty(shape, dtype=input.dtype).bernoulli_(1 - p)
    scale = keep / (1 - p) if p < 1 else keep
    return input.mul_(scale) if inplace else input * scale


def _doc(sig, what, args, example):
    lines = "\n".join(f"        {a}" for a in args)
    return (f"{sig}\n\n{what}\n\nArgs:\n{lines}\n\nExample::\n\n        >>> import ferric\n"
            + "\n".join(f"        {e}" for e in example) + "\n")


def _make_dropout(name, kind, inplace):
    def fn(input, p, train):
        return _dropout_family(name, input, p, train, kind, inplace)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(
        f"{name}(input, p, train) -> Tensor",
        f"PyTorch's top-level ``torch.{name}``: {kind.replace('_', ' ')} dropout with "
        "probability ``p`` when ``train`` is ``True`` (both required, positional as in "
        "PyTorch)" + (", in place." if inplace else "."),
        ["input (Tensor): the input.", "p (float): probability of zeroing an element.",
         "train (bool): apply dropout (``False`` returns ``input``)."],
        [f">>> ferric.{name}(ferric.ones(3), 0.5, False)", "tensor([1., 1., 1.])"])
    return fn


dropout = _make_dropout("dropout", "plain", False)
dropout_ = _make_dropout("dropout_", "plain", True)
feature_dropout = _make_dropout("feature_dropout", "feature", False)
feature_dropout_ = _make_dropout("feature_dropout_", "feature", True)
alpha_dropout = _make_dropout("alpha_dropout", "alpha", False)
alpha_dropout_ = _make_dropout("alpha_dropout_", "alpha", True)
feature_alpha_dropout = _make_dropout("feature_alpha_dropout", "feature_alpha", False)
feature_alpha_dropout_ = _make_dropout("feature_alpha_dropout_", "feature_alpha", True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
               cudnn_enable=True):
    """Layer normalization over the trailing ``normalized_shape`` dimensions (PyTorch's
    top-level spelling, with the ignored ``cudnn_enable``).

    Args:
        input (Tensor): the input.
        normalized_shape (list of ints): the trailing shape to normalize over.
        weight (Tensor, optional): elementwise scale.
        bias (Tensor, optional): elementwise shift.
        eps (float, optional): added to the variance.
        cudnn_enable (bool, optional): ignored (CPU).

    Example::

        >>> import ferric
        >>> ferric.layer_norm(ferric.tensor([[1.0, 3.0]]), [2])
        tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Group normalization over ``num_groups`` channel groups (PyTorch's top-level
    spelling).

    Args:
        input (Tensor): the input ``(N, C, *)``.
        num_groups (int): number of groups dividing ``C``.
        weight (Tensor, optional): per-channel scale.
        bias (Tensor, optional): per-channel shift.
        eps (float, optional): added to the variance.
        cudnn_enabled (bool, optional): ignored (CPU).

    Example::

        >>> import ferric
        >>> ferric.group_norm(ferric.tensor([[1.0, 3.0]]), 1)
        tensor([[-1.0000,  1.0000]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """Instance normalization (PyTorch's top-level form: every argument positional and
    required, weight and bias before the running statistics).

    Args:
        input (Tensor): the input ``(N, C, *)``.
        weight (Tensor or None): per-channel scale.
        bias (Tensor or None): per-channel shift.
        running_mean (Tensor or None): running means, updated when given.
        running_var (Tensor or None): running variances, updated when given.
        use_input_stats (bool): normalize with the input's statistics.
        momentum (float): running-statistics momentum.
        eps (float): added to the variance.
        cudnn_enabled (bool): ignored (CPU).

    Example::

        >>> import ferric
        >>> x = ferric.tensor([[[1.0, 3.0]]])
        >>> ferric.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[[-1.0000,  1.0000]]])
    """
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """Batch normalization (PyTorch's top-level form: every argument positional and
    required, weight and bias before the running statistics).

    Args:
        input (Tensor): the input ``(N, C, *)``.
        weight (Tensor or None): per-channel scale.
        bias (Tensor or None): per-channel shift.
        running_mean (Tensor or None): running means.
        running_var (Tensor or None): running variances.
        training (bool): use batch statistics (and update the running ones).
        momentum (float): running-statistics momentum.
        eps (float): added to the variance.
        cudnn_enabled (bool): ignored (CPU).

    Example::

        >>> import ferric
        >>> x = ferric.tensor([[1.0], [3.0]])
        >>> ferric.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                        eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Looks up rows of ``weight`` (PyTorch's top-level form: weight first, and
    ``padding_idx=-1`` meaning none).

    Args:
        weight (Tensor): the embedding matrix ``(num_embeddings, dim)``.
        indices (Tensor): integer indices.
        padding_idx (int, optional): row whose gradient stays zero (-1: none).
        scale_grad_by_freq (bool, optional): scale gradients by inverse frequency.
        sparse (bool, optional): must be ``False`` (no sparse gradients in ferric).

    Example::

        >>> import ferric
        >>> ferric.embedding(ferric.tensor([[0.0, 1.0], [2.0, 3.0]]), ferric.tensor([1]))
        tensor([[2., 3.]])
    """
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)


def _simple(name, target, sig, what, args, example, call=None):
    def fn(*a, **kw):
        return (call or getattr(F, target))(*a, **kw)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(sig, what, args, example)
    return fn


selu = _simple("selu", "selu", "selu(input) -> Tensor", "SELU, elementwise.",
               ["input (Tensor): the input."],
               [">>> ferric.selu(ferric.tensor([0.0]))", "tensor([0.])"],
               call=lambda input: F.selu(input))
selu_ = _simple("selu_", "selu", "selu_(input) -> Tensor", "SELU, in place.",
                ["input (Tensor): the input, overwritten."],
                [">>> ferric.selu_(ferric.tensor([0.0]))", "tensor([0.])"],
                call=lambda input: F.selu(input, inplace=True))
celu = _simple("celu", "celu", "celu(input, alpha=1.) -> Tensor", "CELU, elementwise.",
               ["input (Tensor): the input.", "alpha (float, optional): the CELU alpha."],
               [">>> ferric.celu(ferric.tensor([1.0]))", "tensor([1.])"],
               call=lambda input, alpha=1.0: F.celu(input, alpha))
celu_ = _simple("celu_", "celu", "celu_(input, alpha=1.) -> Tensor", "CELU, in place.",
                ["input (Tensor): the input, overwritten.",
                 "alpha (float, optional): the CELU alpha."],
                [">>> ferric.celu_(ferric.tensor([1.0]))", "tensor([1.])"],
                call=lambda input, alpha=1.0: F.celu(input, alpha, inplace=True))
prelu = _simple("prelu", "prelu", "prelu(input, weight) -> Tensor",
                "PReLU with learnable slopes ``weight``.",
                ["input (Tensor): the input.", "weight (Tensor): the slopes (1 or C)."],
                [">>> ferric.prelu(ferric.tensor([-2.0, 1.0]), ferric.tensor([0.25]))",
                 "tensor([-0.5000,  1.0000])"])
rrelu = _simple("rrelu", "rrelu",
                "rrelu(input, lower=1./8, upper=1./3, training=False, generator=None) -> Tensor",
                "Randomized leaky ReLU (the mean slope when not training).",
                ["input (Tensor): the input.", "lower (float, optional): lowest slope.",
                 "upper (float, optional): highest slope.",
                 "training (bool, optional): sample slopes.",
                 "generator (Generator, optional): the random generator."],
                [">>> ferric.rrelu(ferric.tensor([1.0]))", "tensor([1.])"],
                call=lambda input, lower=1.0 / 8, upper=1.0 / 3, training=False,
                generator=None: F.rrelu(input, lower, upper, training, generator=generator))
rrelu_ = _simple("rrelu_", "rrelu",
                 "rrelu_(input, lower=1./8, upper=1./3, training=False, generator=None)",
                 "Randomized leaky ReLU, in place.",
                 ["input (Tensor): the input, overwritten.",
                  "lower (float, optional): lowest slope.",
                  "upper (float, optional): highest slope.",
                  "training (bool, optional): sample slopes.",
                  "generator (Generator, optional): the random generator."],
                 [">>> ferric.rrelu_(ferric.tensor([1.0]))", "tensor([1.])"],
                 call=lambda input, lower=1.0 / 8, upper=1.0 / 3, training=False,
                 generator=None: F.rrelu(input, lower, upper, training, True,
                                         generator=generator))
threshold = _simple("threshold", "threshold", "threshold(input, threshold, value) -> Tensor",
                    "Replaces elements not greater than ``threshold`` by ``value``.",
                    ["input (Tensor): the input.", "threshold (float): the threshold.",
                     "value (float): the replacement."],
                    [">>> ferric.threshold(ferric.tensor([0.5, 2.0]), 1.0, 0.0)",
                     "tensor([0., 2.])"],
                    call=lambda input, threshold, value: F.threshold(input, threshold, value))
threshold_ = _simple("threshold_", "threshold", "threshold_(input, threshold, value) -> Tensor",
                     "Threshold, in place.",
                     ["input (Tensor): the input, overwritten.",
                      "threshold (float): the threshold.", "value (float): the replacement."],
                     [">>> ferric.threshold_(ferric.tensor([0.5, 2.0]), 1.0, 0.0)",
                      "tensor([0., 2.])"],
                     call=lambda input, threshold, value: F.threshold(input, threshold, value,
                                                                      True))
hardshrink = _simple("hardshrink", "hardshrink", "hardshrink(input, lambd=0.5) -> Tensor",
                     "Zeroes elements with ``|x| <= lambd``.",
                     ["input (Tensor): the input.", "lambd (float, optional): the cut-off."],
                     [">>> ferric.hardshrink(ferric.tensor([0.2, 1.0]))", "tensor([0., 1.])"])
pixel_shuffle = _simple("pixel_shuffle", "pixel_shuffle",
                        "pixel_shuffle(input, upscale_factor) -> Tensor",
                        "Rearranges ``(*, C r^2, H, W)`` into ``(*, C, H r, W r)``.",
                        ["input (Tensor): the input.", "upscale_factor (int): ``r``."],
                        [">>> ferric.pixel_shuffle(ferric.zeros(1, 4, 2, 2), 2).shape",
                         "ferric.Size([1, 1, 4, 4])"])
pixel_unshuffle = _simple("pixel_unshuffle", "pixel_unshuffle",
                          "pixel_unshuffle(input, downscale_factor) -> Tensor",
                          "The inverse of :func:`pixel_shuffle`.",
                          ["input (Tensor): the input.", "downscale_factor (int): ``r``."],
                          [">>> ferric.pixel_unshuffle(ferric.zeros(1, 1, 4, 4), 2).shape",
                           "ferric.Size([1, 4, 2, 2])"])
channel_shuffle = _simple("channel_shuffle", "channel_shuffle",
                          "channel_shuffle(input, groups) -> Tensor",
                          "Shuffles the channels of ``(N, C, *)`` in ``groups`` groups.",
                          ["input (Tensor): the input.", "groups (int): the group count."],
                          [">>> ferric.channel_shuffle(ferric.arange(4.).reshape(1, 4, 1), 2)"
                           ".flatten()", "tensor([0., 2., 1., 3.])"])
bilinear = _simple("bilinear", "bilinear", "bilinear(input1, input2, weight, bias=None)",
                   "The bilinear map ``x1^T W x2 + b``.",
                   ["input1 (Tensor): ``(N, in1)``.", "input2 (Tensor): ``(N, in2)``.",
                    "weight (Tensor): ``(out, in1, in2)``.",
                    "bias (Tensor, optional): ``(out,)``."],
                   [">>> ferric.bilinear(ferric.ones(1, 2), ferric.ones(1, 2), "
                    "ferric.ones(1, 2, 2))", "tensor([[4.]])"])
cosine_similarity = _simple(
    "cosine_similarity", "cosine_similarity", "cosine_similarity(x1, x2, dim=1, eps=1e-8)",
    "Cosine similarity of ``x1`` and ``x2`` along ``dim``.",
    ["x1 (Tensor): first input.", "x2 (Tensor): second input (broadcast).",
     "dim (int, optional): the dimension.", "eps (float, optional): norm floor."],
    [">>> ferric.cosine_similarity(ferric.tensor([[1.0, 0.0]]), ferric.tensor([[1.0, 1.0]]))",
     "tensor([0.7071])"])
pairwise_distance = _simple(
    "pairwise_distance", "pairwise_distance",
    "pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False)",
    "The ``p``-norm of ``x1 - x2 + eps`` along the last dimension.",
    ["x1 (Tensor): first input.", "x2 (Tensor): second input.",
     "p (float, optional): the norm order.", "eps (float, optional): added to the difference.",
     "keepdim (bool, optional): keep the reduced dimension."],
    [">>> ferric.pairwise_distance(ferric.tensor([[0.0, 0.0]]), ferric.tensor([[3.0, 4.0]]))",
     "tensor([5.0000])"])


def kl_div(input, target, reduction=0, *, log_target=False):
    """KL divergence with an integer ``reduction`` (1 mean over all elements, 2 sum, any
    other int none; the default is unreduced, as PyTorch's binding behaves).

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities when ``log_target``).
        reduction (int, optional): 1 mean, 2 sum, else none.
        log_target (bool, optional): ``target`` is in log space.

    Example::

        >>> import ferric
        >>> ferric.kl_div(ferric.tensor([0.0]), ferric.tensor([1.0]))
        tensor([0.])
        >>> ferric.kl_div(ferric.tensor([0.0, 1.0]), ferric.tensor([1.0, 1.0]), 2)
        tensor(-1.)
    """
    mode = _reduction("kl_div", reduction)
    out = F.kl_div(input, target, reduction="none", log_target=log_target)
    if mode == "mean":  # every element, as ATen's kl_div (F.kl_div warns for this mode)
        return out.mean()
    return out.sum() if mode == "sum" else out


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """Cosine embedding loss with an integer ``reduction`` (1 mean, 2 sum,
    any other int none; the default is unreduced, as PyTorch's binding behaves).

    Args:
        input1 (Tensor): first embeddings.
        input2 (Tensor): second embeddings.
        target (Tensor): 1 (similar) or -1 (dissimilar).
        margin (float, optional): margin for dissimilar pairs.
        reduction (int, optional): 1 mean, 2 sum, else none.

    Example::

        >>> import ferric
        >>> x = ferric.tensor([[1.0, 0.0]])
        >>> ferric.cosine_embedding_loss(x, x, ferric.tensor([1.0]))
        tensor([0.])
    """
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction("cosine_embedding_loss", reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """Hinge embedding loss with an integer ``reduction`` (1 mean, 2 sum,
    any other int none; the default is unreduced, as PyTorch's binding behaves).

    Args:
        input (Tensor): distances.
        target (Tensor): 1 or -1.
        margin (float, optional): the margin.
        reduction (int, optional): 1 mean, 2 sum, else none.

    Example::

        >>> import ferric
        >>> ferric.hinge_embedding_loss(ferric.tensor([0.5]), ferric.tensor([1.0]))
        tensor([0.5000])
    """
    return F.hinge_embedding_loss(input, target, margin,
                                  reduction=_reduction("hinge_embedding_loss", reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """Margin ranking loss with an integer ``reduction`` (1 mean, 2 sum,
    any other int none; the default is unreduced, as PyTorch's binding behaves).

    Args:
        input1 (Tensor): first scores.
        input2 (Tensor): second scores.
        target (Tensor): 1 (input1 ranks higher) or -1.
        margin (float, optional): the margin.
        reduction (int, optional): 1 mean, 2 sum, else none.

    Example::

        >>> import ferric
        >>> ferric.margin_ranking_loss(ferric.tensor([1.0]), ferric.tensor([2.0]),
        ...                            ferric.tensor([1.0]))
        tensor([1.])
    """
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction("margin_ranking_loss", reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    """Triplet margin loss with an integer ``reduction`` (1 mean, 2 sum,
    any other int none; the default is unreduced, as PyTorch's binding behaves).

    Args:
        anchor (Tensor): anchors.
        positive (Tensor): positive examples.
        negative (Tensor): negative examples.
        margin (float, optional): the margin.
        p (float, optional): the distance norm.
        eps (float, optional): added to differences.
        swap (bool, optional): use the distance swap.
        reduction (int, optional): 1 mean, 2 sum, else none.

    Example::

        >>> import ferric
        >>> a = ferric.tensor([[0.0, 0.0]])
        >>> ferric.triplet_margin_loss(a, a, a + 3.0)
        tensor([0.])
    """
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """Poisson negative log-likelihood (PyTorch's top-level form: every argument
    positional and required, integer ``reduction``).

    Args:
        input (Tensor): the predicted rate (its log when ``log_input``).
        target (Tensor): the observed counts.
        log_input (bool): ``input`` is a log-rate.
        full (bool): add the Stirling term.
        eps (float): keeps the log finite when not ``log_input``.
        reduction (int): 1 mean, 2 sum, else none.

    Example::

        >>> import ferric
        >>> ferric.poisson_nll_loss(ferric.tensor([0.0]), ferric.tensor([1.0]), True,
        ...                         False, 1e-8, 1)
        tensor(1.)
    """
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction("poisson_nll_loss", reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    """Binary cross entropy on logits, integer ``reduction`` (1 mean, 2 sum, any
    other int none; the default is unreduced, as PyTorch's binding behaves).

    Args:
        input (Tensor): logits.
        target (Tensor): targets in [0, 1].
        weight (Tensor, optional): per-element weight.
        pos_weight (Tensor, optional): weight of positive examples.
        reduction (int, optional): 1 mean, 2 sum, else none.

    Example::

        >>> import ferric
        >>> ferric.binary_cross_entropy_with_logits(ferric.tensor([0.0]), ferric.tensor([1.0]))
        tensor([0.6931])
    """
    from .autograd.grad_mode import is_grad_enabled

    for name, w in (("weight", weight), ("pos_weight", pos_weight)):
        if w is not None and w.requires_grad and is_grad_enabled():
            raise RuntimeError("The function 'binary_cross_entropy_with_logits' is not "
                               f"differentiable with respect to argument '{name}'. This input "
                               "cannot have requires_grad True.")
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits",
                                                    reduction), pos_weight=pos_weight)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """1-D max pooling returning ``(values, indices)``; an empty ``stride`` means
    ``kernel_size``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int): the window.
        stride (int, optional): the step (default: the window).
        padding (int, optional): implicit negative-infinity padding.
        dilation (int, optional): spacing of window elements.
        ceil_mode (bool, optional): round the output length up.

    Example::

        >>> import ferric
        >>> ferric.max_pool1d_with_indices(ferric.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
        (tensor([[3., 2.]]), tensor([[1, 2]]))
    """
    if isinstance(stride, (list, tuple)) and len(stride) == 0:
        stride = None
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode,
                        return_indices=True)


# ------------------------------------------------------- top-level in-place forms
_INPLACE = ("abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ "
            "asinh_ atan_ atanh_ ceil_ cos_ cosh_ erf_ erfc_ exp2_ expm1_ fix_ floor_ frac_ "
            "log10_ log1p_ log2_ log_ neg_ negative_ reciprocal_ round_ rsqrt_ sin_ sinh_ "
            "sqrt_ square_ tan_ trunc_ zero_ detach_ nan_to_num_ xlogy_ addmv_ clip_").split()


def _make_inplace(name):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(
        f"{name}(input, *args, **kwargs) -> Tensor",
        f"In-place ``input.{name}(...)`` as a function (``torch.{name}``); returns "
        "``input``.",
        ["input (Tensor): the tensor modified in place.",
         f"\\*args, \\*\\*kwargs: the other arguments of ``Tensor.{name}``."],
        [f">>> t = ferric.tensor([0.25]); ferric.{name} is not None", "True"])
    return fn


for _n in _INPLACE:
    globals()[_n] = _make_inplace(_n)
del _n


def clamp_max_(input, max):  # noqa: A002  (PyTorch's argument name)
    """Clamps ``input`` in place to at most ``max``; returns ``input``.

    Args:
        input (Tensor): the tensor modified in place.
        max (Number or Tensor): the upper bound.

    Example::

        >>> import ferric
        >>> ferric.clamp_max_(ferric.tensor([1.0, 3.0]), 2.0)
        tensor([1., 2.])
    """
    return input.clamp_(max=max)


def clamp_min_(input, min):  # noqa: A002  (PyTorch's argument name)
    """Clamps ``input`` in place to at least ``min``; returns ``input``.

    Args:
        input (Tensor): the tensor modified in place.
        min (Number or Tensor): the lower bound.

    Example::

        >>> import ferric
        >>> ferric.clamp_min_(ferric.tensor([1.0, 3.0]), 2.0)
        tensor([2., 3.])
    """
    return input.clamp_(min=min)


def resize_as_(input, the_template, *, memory_format=None):
    """Resizes ``input`` in place to the shape of ``the_template``: the leading elements
    (row-major) are kept, new ones are zero (PyTorch leaves them uninitialized). A tensor
    that requires grad cannot be resized (``RuntimeError``, as PyTorch).

    Args:
        input (Tensor): the tensor resized in place.
        the_template (Tensor): the tensor whose shape to take.
        memory_format (ferric.memory_format, optional): ignored (contiguous result).

    Example::

        >>> import ferric
        >>> ferric.resize_as_(ferric.tensor([1.0, 2.0, 3.0, 4.0]), ferric.zeros(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    if input.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(the_template.shape)
    if shape == tuple(input.shape):
        return input
    new = _core.zeros(shape, dtype=input.dtype)
    n = min(new.numel(), input.numel())
    if n:
        new.view(-1)[:n] = input.reshape(-1)[:n]
    input.data = new
    return input
