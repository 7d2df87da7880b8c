"""The two-parameter Weibull distribution."""

from __future__ import annotations

from .. import _core
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """A Weibull distribution: ``scale * X ** (1 / concentration)`` for
    ``X ~ Exponential(1)``.

    Args:
        scale (float or Tensor): scale (positive).
        concentration (float or Tensor): shape (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Weibull
        >>> Weibull(1.0, 1.0).mean
        tensor(1.)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(_core.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                      AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``scale Gamma(1 + 1/concentration)``."""
        return self.scale * _core.exp(_core.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        """``scale ((k - 1) / k) ** (1 / k)``."""
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        """``scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2)``."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (_core.exp(_core.lgamma(1 + 2 * r))
                                    - _core.exp(2 * _core.lgamma(1 + r)))

    def entropy(self):
        """``euler_gamma (1 - 1/k) + log(scale / k) + 1``.

        Example:
            >>> from ferric.distributions import Weibull
            >>> Weibull(1.0, 1.0).entropy()
            tensor(1.)
        """
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + _core.log(self.scale * r) + 1
