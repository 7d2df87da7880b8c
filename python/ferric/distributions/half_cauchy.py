"""The half-Cauchy distribution: ``|X|`` for ``X ~ Cauchy(0, scale)``."""

from __future__ import annotations

import math

from .. import _core
from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """The distribution of ``|X|`` for ``X ~ Cauchy(0, scale)``.

    Args:
        scale (float or Tensor): scale of the Cauchy (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import HalfCauchy
        >>> HalfCauchy(1.0).cdf(ferric.tensor(1.0))
        tensor(0.5000)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Cauchy(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See :meth:`Distribution.expand`.

        Args:
            batch_shape (Size): the new batch shape.
            _instance: used by subclasses.

        Example:
            >>> from ferric.distributions import HalfCauchy
            >>> HalfCauchy(1.0).expand([2]).batch_shape
            ferric.Size([2])
        """
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """Scale of the underlying Cauchy."""
        return self.base_dist.scale

    @property
    def mean(self):
        """Infinite."""
        return _core.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

    @property
    def mode(self):
        """Zero."""
        return _core.zeros_like(self.scale)

    @property
    def variance(self):
        """Infinite."""
        return self.base_dist.variance

    def log_prob(self, value):
        """Twice the Cauchy density on ``value >= 0``, ``-inf`` below.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import HalfCauchy
            >>> HalfCauchy(1.0).log_prob(ferric.tensor(0.0))
            tensor(-0.4516)
        """
        if self._validate_args:
            self._validate_sample(value)
        value = _core.as_tensor(value, dtype=self.base_dist.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _core.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        """``2 F(value) - 1`` with ``F`` the Cauchy cdf.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import HalfCauchy
            >>> HalfCauchy(1.0).cdf(ferric.tensor(0.0))
            tensor(0.)
        """
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The Cauchy quantile at ``(prob + 1) / 2``.

        Args:
            prob (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import HalfCauchy
            >>> HalfCauchy(1.0).icdf(ferric.tensor(0.5))
            tensor(1.)
        """
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The Cauchy entropy minus ``log 2``.

        Example:
            >>> from ferric.distributions import HalfCauchy
            >>> HalfCauchy(1.0).entropy()
            tensor(1.8379)
        """
        return self.base_dist.entropy() - math.log(2)
