"""The Kumaraswamy distribution on ``(0, 1)``."""

from __future__ import annotations

import math

from .. import _core
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """The ``n``-th moment, ``b B(1 + n/a, b)``, through ``lgamma``."""
    arg1 = 1 + n / a
    log_value = _core.lgamma(arg1) + _core.lgamma(b) - _core.lgamma(arg1 + b)
    return b * _core.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """A Kumaraswamy distribution: ``(1 - U ** (1/b)) ** (1/a)`` for ``U`` uniform.

    Args:
        concentration1 (float or Tensor): ``a`` (positive).
        concentration0 (float or Tensor): ``b`` (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Kumaraswamy
        >>> Kumaraswamy(ferric.tensor([1.0]), ferric.tensor([1.0])).mean
        tensor([0.5000])
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base = Uniform(_core.full_like(self.concentration0, 0),
                       _core.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(Kumaraswamy, batch_shape, _instance,
                                        ("concentration1", "concentration0"))

    @property
    def mean(self):
        """The first moment."""
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """``((a - 1) / (a b - 1)) ** (1/a)``; NaN when ``a < 1`` or ``b < 1``."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode = _core.where((b < 1) | (a < 1), math.nan, log_mode)
        return log_mode.exp()

    @property
    def variance(self):
        """Second moment minus the squared mean."""
        return (_moments(self.concentration1, self.concentration0, 2)
                - _core.pow(self.mean, 2))

    def entropy(self):
        """``(1 - 1/b) + (1 - 1/a) H_b - log(a b)`` with ``H_b`` the harmonic number.

        Example:
            >>> from ferric.distributions import Kumaraswamy
            >>> Kumaraswamy(1.0, 1.0).entropy()
            tensor(0.)
        """
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = _core.digamma(self.concentration0 + 1) + euler_constant
        return (t0 + t1 * H0 - _core.log(self.concentration1)
                - _core.log(self.concentration0))
