"""The half-Cauchy distribution: ``|X|`` for ``X ~ Cauchy(0, scale)``."""

from __future__ import annotations

import math

from .. import _core
from ._half import _HalfDistribution
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    """The distribution of ``|X|`` for ``X ~ Cauchy(0, scale)``.

    ``log_prob``, ``cdf``, ``icdf`` and ``entropy`` fold the Cauchy's onto ``[0, inf)``.

    Args:
        scale (float or Tensor): scale of the Cauchy (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import HalfCauchy
        >>> HalfCauchy(1.0).cdf(ferric.tensor(1.0))
        tensor(0.5000)
    """

    _base_class = Cauchy

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(HalfCauchy, batch_shape, _instance)

    @property
    def mean(self):
        """Infinite."""
        return _core.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype)

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
