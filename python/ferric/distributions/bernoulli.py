"""The Bernoulli distribution."""

from __future__ import annotations

import math

from .. import _core, autograd
from .._size import Size
from ..nn import functional as F
from . import constraints
from ._binary import _ProbsOrLogits
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """A Bernoulli distribution: 1 with probability ``probs``, 0 otherwise. Give exactly
    one of ``probs`` and ``logits`` (log-odds).

    Args:
        probs (Number or Tensor): probability of sampling 1.
        logits (Number or Tensor): log-odds of sampling 1.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Bernoulli
        >>> _ = ferric.manual_seed(0)
        >>> Bernoulli(ferric.tensor([0.3, 0.9])).sample()
        tensor([0., 1.])
    """

    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(Bernoulli, batch_shape, _instance)

    @property
    def param_shape(self) -> Size:
        """Shape of the parameter tensor."""
        return self._param.size()

    @property
    def mean(self):
        """``probs``."""
        return self.probs

    @property
    def mode(self):
        """1 where ``probs > 0.5``, 0 below, NaN at exactly 0.5."""
        mode = (self.probs >= 0.5).to(self.probs)
        return _core.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self):
        """``probs (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=_EMPTY):
        """Draws with ``ferric.bernoulli`` (PyTorch's stream).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Bernoulli
            >>> Bernoulli(0.5).sample((3,)).shape
            ferric.Size([3])
        """
        shape = self._extended_shape(sample_shape)
        with autograd.no_grad():
            return _core.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """``-binary_cross_entropy_with_logits(logits, value)``.

        Args:
            value (Tensor): zeros and ones.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Bernoulli
            >>> Bernoulli(0.25).log_prob(ferric.tensor(1.0))
            tensor(-1.3863)
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """``binary_cross_entropy_with_logits(logits, probs)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Bernoulli
            >>> Bernoulli(0.5).entropy()
            tensor(0.6931)
        """
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        """``[0, 1]`` along a new leading dimension.

        Args:
            expand (bool): expand over the batch dimensions. Default: True.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Bernoulli
            >>> Bernoulli(0.5).enumerate_support()
            tensor([0., 1.])
        """
        values = _core.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (_core.logit(self.probs),)

    def _log_normalizer(self, x):
        return _core.log1p(_core.exp(x))
