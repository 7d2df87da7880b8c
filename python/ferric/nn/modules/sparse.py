"""``Embedding``: a lookup table of learnable vectors."""

from __future__ import annotations

from ... import _core
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._repr import _nondefault_repr
from .module import Module

__all__ = ["Embedding"]


class Embedding(Module):
    r"""Maps integer indices to rows of ``weight`` (``num_embeddings x embedding_dim``,
    initialised from N(0, 1)). The ``padding_idx`` row starts at zero and gets no
    gradient.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> emb = nn.Embedding(10, 3, padding_idx=0)
        >>> emb(ferric.tensor([[0, 2], [4, 0]])).shape
        ferric.Size([2, 2, 3])
        >>> emb
        Embedding(10, 3, padding_idx=0)
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx >= num_embeddings or padding_idx < -num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            dt = {} if dtype is None else {"dtype": dtype}
            self.weight = Parameter(_core.empty(num_embeddings, embedding_dim, **dt),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        r"""Re-initialises the parameters as PyTorch does: ``weight`` from :math:`\mathcal N(0, 1)`,
        the ``padding_idx`` row zero.
        """
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}" + _nondefault_repr(self, (
            ("padding_idx", None), ("max_norm", None), ("norm_type", 2),
            ("scale_grad_by_freq", False)))
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An ``Embedding`` whose weight is ``embeddings`` (shared, frozen unless
        ``freeze=False``)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                   _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    r"""Sums, averages or takes the maximum of bags of embeddings: ``input`` is 2-D
    ``(B, N)`` (fixed-size bags) or 1-D with ``offsets``. Gradients are dense (with
    ``sparse=True`` too: the values of a training step are PyTorch's).

    Args:
        num_embeddings (int): the number of rows of the table.
        embedding_dim (int): the size of each embedding.
        max_norm (float, optional): renormalise looked-up rows to at most this norm.
        norm_type (float): the p of ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): scale gradients by inverse index frequency.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse (bool): accepted; gradients are dense.
        include_last_offset (bool): ``offsets`` carries the end of the last bag.
        padding_idx (int, optional): an index that contributes nothing.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(ferric.tensor([1, 2, 4, 5, 4, 3, 2, 9]), ferric.tensor([0, 4])).shape
        ferric.Size([2, 3])
        >>> bag
        EmbeddingBag(10, 3, mode='sum')
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            dt = {} if dtype is None else {"dtype": dtype}
            self.weight = Parameter(_core.empty(num_embeddings, embedding_dim, **dt))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        r"""Re-initialises ``weight`` from :math:`\mathcal N(0, 1)` as PyTorch does, with the
        ``padding_idx`` row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}" + _nondefault_repr(self, (
            ("max_norm", None), ("norm_type", 2), ("scale_grad_by_freq", False)), repr)
        s += f", mode={self.mode!r}"
        return s + _nondefault_repr(self, (("padding_idx", None),), repr)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An ``EmbeddingBag`` over ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


__all__ += ["EmbeddingBag"]
