"""``PairwiseDistance`` and ``CosineSimilarity`` (``torch.nn``'s ``distance.py``)."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class PairwiseDistance(Module):
    r"""The p-norm of ``x1 - x2 + eps`` over the last dimension.

    Args:
        p (float): the norm degree. Default: 2.
        eps (float): added to the difference to avoid division by zero. Default: ``1e-6``.
        keepdim (bool): keep the reduced dimension. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.PairwiseDistance()(ferric.zeros(1, 2), ferric.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    r"""Cosine similarity of ``x1`` and ``x2`` along ``dim``:
    ``x1 . x2 / (max(||x1||, eps) max(||x2||, eps))``.

    Args:
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): the smallest norm. Default: ``1e-8``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.CosineSimilarity()(ferric.tensor([[1.0, 0.0]]), ferric.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
