"""The log-normal distribution: ``exp`` of a normal."""

from __future__ import annotations

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Args:
        loc (float or Tensor): mean of the log.
        scale (float or Tensor): standard deviation of the log (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import LogNormal
        >>> LogNormal(0.0, 1.0).mean
        tensor(1.6487)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(LogNormal, batch_shape, _instance)

    @property
    def loc(self):
        """Mean of the log."""
        return self.base_dist.loc

    @property
    def scale(self):
        """Standard deviation of the log."""
        return self.base_dist.scale

    @property
    def mean(self):
        """``exp(loc + scale ** 2 / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """``exp(loc - scale ** 2)``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """``(exp(scale ** 2) - 1) exp(2 loc + scale ** 2)``."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        """The normal entropy plus ``loc``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LogNormal
            >>> LogNormal(0.0, 1.0).entropy()
            tensor(1.4189)
        """
        return self.base_dist.entropy() + self.loc
