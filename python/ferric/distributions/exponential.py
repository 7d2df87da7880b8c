"""The exponential distribution."""

from __future__ import annotations

from .. import _core
from .._size import Size
from . import constraints
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """An exponential distribution with rate ``rate``.

    Args:
        rate (float or Tensor): rate (positive), ``1 / mean``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Exponential
        >>> Exponential(ferric.tensor([2.0])).mean
        tensor([0.5000])
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        scalar = _is_number(rate)
        batch_shape = Size() if scalar else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """Zero."""
        return _core.zeros_like(self.rate)

    @property
    def stddev(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """``rate ** -2``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape=_EMPTY):
        """``exponential_()`` draws divided by ``rate`` (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Exponential
            >>> Exponential(1.0).rsample((2,)).shape
            ferric.Size([2])
        """
        shape = self._extended_shape(sample_shape)
        return _core.empty(tuple(shape), dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value):
        """Log density at ``value``.

        Args:
            value (Tensor): points to score (non-negative).

        Example:
            >>> import ferric
            >>> from ferric.distributions import Exponential
            >>> Exponential(2.0).log_prob(ferric.tensor(1.0))
            tensor(-1.3069)
        """
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """``1 - exp(-rate value)``.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Exponential
            >>> Exponential(1.0).cdf(ferric.tensor(0.0))
            tensor(0.)
        """
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _core.exp(-self.rate * value)

    def icdf(self, value):
        """``-log1p(-value) / rate``.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Exponential
            >>> Exponential(1.0).icdf(ferric.tensor(0.0))
            tensor(0.)
        """
        return -_core.log1p(-value) / self.rate

    def entropy(self):
        """``1 - log(rate)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Exponential
            >>> Exponential(1.0).entropy()
            tensor(1.)
        """
        return 1.0 - _core.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_core.log(-x)
