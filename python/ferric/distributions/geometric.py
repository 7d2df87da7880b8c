"""The geometric distribution: failures before the first success."""

from __future__ import annotations

from .. import _core, autograd
from .._dtype_info import finfo
from ..nn import functional as F
from . import constraints
from ._binary import _ProbsOrLogits
from .distribution import _EMPTY
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(_ProbsOrLogits):
    """The number of failures before the first success in Bernoulli trials with success
    probability ``probs`` (or log-odds ``logits``; give exactly one).

    Args:
        probs (Number or Tensor): success probability, in ``(0, 1]``.
        logits (Number or Tensor): log-odds of success.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Geometric
        >>> Geometric(ferric.tensor([0.25])).mean
        tensor([3.])
    """

    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but "
                    f"found invalid values:\n{value.detach()[~valid]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(Geometric, batch_shape, _instance)

    @property
    def mean(self):
        """``1 / probs - 1``."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        """Zero."""
        return _core.zeros_like(self.probs)

    @property
    def variance(self):
        """``(1 / probs - 1) / probs``."""
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=_EMPTY):
        """``floor(log(u) / log1p(-probs))`` with ``u`` from ``uniform_(tiny, 1)``
        (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> from ferric.distributions import Geometric
            >>> Geometric(0.5).sample((3,)).shape
            ferric.Size([3])
        """
        shape = self._extended_shape(sample_shape)
        tiny = finfo(self.probs.dtype).tiny
        with autograd.no_grad():
            u = _core.empty(tuple(shape), dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """``value log1p(-probs) + log(probs)`` (0 at ``probs == 1, value == 0``).

        Args:
            value (Tensor): non-negative integers.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Geometric
            >>> Geometric(0.5).log_prob(ferric.tensor(1.0))
            tensor(-1.3863)
        """
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = _core.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        """``binary_cross_entropy_with_logits(logits, probs) / probs``.

        Example:
            >>> from ferric.distributions import Geometric
            >>> Geometric(0.5).entropy()
            tensor(1.3863)
        """
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
