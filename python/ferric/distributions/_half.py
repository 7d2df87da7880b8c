"""The shared part of ``HalfNormal`` and ``HalfCauchy``: ``|X|`` for ``X`` a symmetric
distribution located at zero, whose density doubles on ``[0, inf)``."""

from __future__ import annotations

import math

from .. import _core
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__: list[str] = []


class _HalfDistribution(TransformedDistribution):
    """``|X|`` for ``X ~ _base_class(0, scale)``; subclasses set ``_base_class`` and their
    moments."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base_class: type

    def __init__(self, scale, validate_args=None):
        base = self._base_class(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        """Scale of the underlying distribution."""
        return self.base_dist.scale

    @property
    def mode(self):
        """Zero."""
        return _core.zeros_like(self.scale)

    def log_prob(self, value):
        """Twice the base density on ``value >= 0``, ``-inf`` below.

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
        """``2 F(value) - 1`` with ``F`` the base cdf.

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
        """The base quantile at ``(prob + 1) / 2``.

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
        """The base entropy minus ``log 2``.

        Example:
            >>> from ferric.distributions import HalfCauchy
            >>> HalfCauchy(1.0).entropy()
            tensor(1.8379)
        """
        return self.base_dist.entropy() - math.log(2)
