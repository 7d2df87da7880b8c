"""The continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

import math

from .. import _core
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _broadcast_params

__all__ = ["Uniform"]


class Uniform(Distribution):
    """A uniform distribution on the half-open interval ``[low, high)``.

    Args:
        low (float or Tensor): lower bound (inclusive).
        high (float or Tensor): upper bound (exclusive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Uniform
        >>> Uniform(0.0, 4.0).mean
        tensor(2.)
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        """``low < high``: each bound is constrained by the other."""
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        (self.low, self.high), batch_shape = _broadcast_params(low, high)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``interval(low, high)``."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        """``(low + high) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN: every point of the support is a mode."""
        return math.nan * self.high

    @property
    def stddev(self):
        """``(high - low) / sqrt(12)``."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """``(high - low) ** 2 / 12``."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=_EMPTY):
        """``low + rand * (high - low)`` with ``ferric.rand`` (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Uniform
            >>> Uniform(0.0, 1.0).rsample((3,)).shape
            ferric.Size([3])
        """
        shape = self._extended_shape(sample_shape)
        rand = _core.rand(tuple(shape), dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        """``-log(high - low)`` inside the support, ``-inf`` outside.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Uniform
            >>> Uniform(0.0, 2.0).log_prob(ferric.tensor(1.0))
            tensor(-0.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return _core.log(lb.mul(ub)) - _core.log(self.high - self.low)

    def cdf(self, value):
        """``(value - low) / (high - low)`` clamped to ``[0, 1]``.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Uniform
            >>> Uniform(0.0, 2.0).cdf(ferric.tensor(0.5))
            tensor(0.2500)
        """
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        """``value * (high - low) + low``.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Uniform
            >>> Uniform(0.0, 2.0).icdf(ferric.tensor(0.5))
            tensor(1.)
        """
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Uniform
            >>> Uniform(0.0, 1.0).entropy()
            tensor(0.)
        """
        return _core.log(self.high - self.low)
