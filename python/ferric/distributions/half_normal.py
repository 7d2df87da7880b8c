"""The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``."""

from __future__ import annotations

import math

from .. import _core
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """The distribution of ``|X|`` for ``X ~ Normal(0, scale)``.

    Args:
        scale (float or Tensor): scale of the normal (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import HalfNormal
        >>> HalfNormal(1.0).log_prob(ferric.tensor(0.0))
        tensor(-0.2258)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See :meth:`Distribution.expand`.

        Args:
            batch_shape (Size): the new batch shape.
            _instance: used by subclasses.

        Example:
            >>> from ferric.distributions import HalfNormal
            >>> HalfNormal(1.0).expand([3]).batch_shape
            ferric.Size([3])
        """
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """Scale of the underlying normal."""
        return self.base_dist.scale

    @property
    def mean(self):
        """``scale sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        """Zero."""
        return _core.zeros_like(self.scale)

    @property
    def variance(self):
        """``scale ** 2 (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        """Twice the normal density on ``value >= 0``, ``-inf`` below.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import HalfNormal
            >>> HalfNormal(2.0).log_prob(ferric.tensor(1.0))
            tensor(-1.0439)
        """
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _core.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        """``2 Phi(value / scale) - 1``.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import HalfNormal
            >>> HalfNormal(1.0).cdf(ferric.tensor(0.0))
            tensor(0.)
        """
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The normal quantile at ``(prob + 1) / 2``.

        Args:
            prob (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import HalfNormal
            >>> HalfNormal(1.0).icdf(ferric.tensor(0.0))
            tensor(0.)
        """
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The normal entropy minus ``log 2``.

        Example:
            >>> from ferric.distributions import HalfNormal
            >>> HalfNormal(1.0).entropy()
            tensor(0.7258)
        """
        return self.base_dist.entropy() - math.log(2)
