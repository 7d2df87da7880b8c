"""The logistic-normal distribution on the simplex."""

from __future__ import annotations

from . import constraints
from ._transforms_compose import StickBreakingTransform
from .normal import Normal
from .transformed_distribution import TransformedDistribution

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """The distribution on the ``K``-simplex of ``StickBreakingTransform`` applied to a
    ``K-1``-dimensional normal with independent coordinates.

    Args:
        loc (float or Tensor): mean of the normal.
        scale (float or Tensor): standard deviation of the normal (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import LogisticNormal
        >>> LogisticNormal(ferric.zeros(3), ferric.ones(3)).rsample().shape
        ferric.Size([4])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(LogisticNormal, batch_shape, _instance)

    @property
    def loc(self):
        """Mean of the underlying normal."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """Standard deviation of the underlying normal."""
        return self.base_dist.base_dist.scale
