"""The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``."""

from __future__ import annotations

import math

from ._half import _HalfDistribution
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_HalfDistribution):
    """The distribution of ``|X|`` for ``X ~ Normal(0, scale)``.

    ``log_prob``, ``cdf``, ``icdf`` and ``entropy`` fold the normal's onto ``[0, inf)``.

    Args:
        scale (float or Tensor): scale of the normal (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import HalfNormal
        >>> HalfNormal(1.0).log_prob(ferric.tensor(0.0))
        tensor(-0.2258)
    """

    _base_class = Normal

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(HalfNormal, batch_shape, _instance)

    @property
    def mean(self):
        """``scale sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        """``scale ** 2 (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)
