"""The Laplace distribution."""

from __future__ import annotations

from .. import _core
from .._dtype_info import finfo
from ._loc_scale import _LocScale

__all__ = ["Laplace"]


class Laplace(_LocScale):
    """A Laplace distribution with location ``loc`` and scale ``scale``.

    Args:
        loc (float or Tensor): mean.
        scale (float or Tensor): scale (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Laplace
        >>> Laplace(0.0, 1.0).variance
        tensor(2.)
    """


    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def variance(self):
        """``2 scale ** 2``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """``sqrt(2) scale``."""
        return (2 ** 0.5) * self.scale

    def _standard_sample(self, shape):
        # the inverse CDF of u ~ U(eps - 1, 1), PyTorch's draw
        eps = finfo(self.loc.dtype).eps
        u = _core.empty(tuple(shape), dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return -(u.sign() * _core.log1p(-u.abs()))

    def log_prob(self, value):
        """Log density at ``value``.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Laplace
            >>> Laplace(0.0, 1.0).log_prob(ferric.tensor(1.0))
            tensor(-1.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        return -_core.log(2 * self.scale) - _core.abs(value - self.loc) / self.scale

    def cdf(self, value):
        """Cumulative distribution function.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Laplace
            >>> Laplace(0.0, 1.0).cdf(ferric.tensor(0.0))
            tensor(0.5000)
        """
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * _core.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        """Quantile function.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Laplace
            >>> Laplace(0.0, 1.0).icdf(ferric.tensor(0.5))
            tensor(0.)
        """
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _core.log1p(-2 * term.abs())

    def entropy(self):
        """``1 + log(2 scale)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Laplace
            >>> Laplace(0.0, 1.0).entropy()
            tensor(1.6931)
        """
        return 1 + _core.log(2 * self.scale)
