"""The normal (Gaussian) distribution."""

from __future__ import annotations

import math

from .. import _core, autograd
from ._loc_scale import _LocScale
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import _standard_normal

__all__ = ["Normal"]


class Normal(_LocScale, ExponentialFamily):
    """A normal distribution with mean ``loc`` and standard deviation ``scale``.

    Args:
        loc (float or Tensor): mean.
        scale (float or Tensor): standard deviation (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Normal
        >>> _ = ferric.manual_seed(0)
        >>> Normal(ferric.tensor([0.0]), ferric.tensor([1.0])).sample()
        tensor([1.5410])
    """

    _mean_carrier_measure = 0

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def stddev(self):
        """``scale``."""
        return self.scale

    @property
    def variance(self):
        """``scale ** 2``."""
        return self.stddev.pow(2)

    def sample(self, sample_shape=_EMPTY):
        """Draws with ``ferric.normal`` (PyTorch's stream: equal samples for one seed).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).sample((3,)).shape
            ferric.Size([3])
        """
        shape = self._extended_shape(sample_shape)
        with autograd.no_grad():
            return _core.normal(self.loc.expand(shape), self.scale.expand(shape))

    def _standard_sample(self, shape):
        return _standard_normal(shape, dtype=self.loc.dtype)

    def log_prob(self, value):
        """Log density at ``value``.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 2.0).log_prob(ferric.tensor(1.0))
            tensor(-1.7371)
        """
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return (-((value - self.loc) ** 2) / (2 * var) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        """Cumulative distribution function, through ``erf``.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).cdf(ferric.tensor(1.0))
            tensor(0.8413)
        """
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) * self.scale.reciprocal() / math.sqrt(2)
        return 0.5 * (1 + _core.erf(z))

    def icdf(self, value):
        """Quantile function, through ``erfinv``.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(1.0, 2.0).icdf(ferric.tensor(0.5))
            tensor(1.)
        """
        return self.loc + self.scale * _core.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """``0.5 + 0.5 log(2 pi) + log(scale)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).entropy()
            tensor(1.4189)
        """
        return 0.5 + 0.5 * math.log(2 * math.pi) + _core.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * _core.log(-math.pi / y)
