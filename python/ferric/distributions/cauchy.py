"""The Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math

from .. import _core
from ._loc_scale import _LocScale

__all__ = ["Cauchy"]


class Cauchy(_LocScale):
    """A Cauchy distribution with median ``loc`` and half width ``scale``.

    Args:
        loc (float or Tensor): mode / median.
        scale (float or Tensor): half width at half maximum (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Cauchy
        >>> Cauchy(0.0, 1.0).cdf(ferric.tensor(1.0))
        tensor(0.7500)
    """


    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        """NaN (undefined)."""
        return _core.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self):
        """Infinite."""
        return _core.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype)

    def _standard_sample(self, shape):
        return _core.empty(tuple(shape), dtype=self.loc.dtype).cauchy_()

    def log_prob(self, value):
        """Log density at ``value``.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Cauchy
            >>> Cauchy(0.0, 1.0).log_prob(ferric.tensor(0.0))
            tensor(-1.1447)
        """
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        """``atan((value - loc) / scale) / pi + 1/2``.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Cauchy
            >>> Cauchy(0.0, 1.0).cdf(ferric.tensor(0.0))
            tensor(0.5000)
        """
        if self._validate_args:
            self._validate_sample(value)
        return _core.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """``tan(pi (value - 1/2)) scale + loc``.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Cauchy
            >>> Cauchy(1.0, 1.0).icdf(ferric.tensor(0.5))
            tensor(1.)
        """
        return _core.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """``log(4 pi scale)``.

        Example:
            >>> from ferric.distributions import Cauchy
            >>> Cauchy(0.0, 1.0).entropy()
            tensor(2.5310)
        """
        return math.log(4 * math.pi) + self.scale.log()
