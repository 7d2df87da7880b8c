"""The Pareto (type I) distribution."""

from __future__ import annotations

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """A Pareto distribution: ``scale * exp(X)`` for ``X ~ Exponential(alpha)``.

    Args:
        scale (float or Tensor): minimum value (positive).
        alpha (float or Tensor): tail index (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Pareto
        >>> Pareto(1.0, 3.0).mean
        tensor(1.5000)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(Pareto, batch_shape, _instance, ("scale", "alpha"))

    @property
    def mean(self):
        """``alpha scale / (alpha - 1)`` (infinite for ``alpha <= 1``)."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        """``scale``."""
        return self.scale

    @property
    def variance(self):
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))`` (infinite for ``alpha <= 2``)."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        """``log(scale / alpha) + 1 + 1 / alpha``.

        Example:
            >>> from ferric.distributions import Pareto
            >>> Pareto(1.0, 1.0).entropy()
            tensor(2.)
        """
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
