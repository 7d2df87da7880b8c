"""The Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math

from .. import _core
from .._dtype_info import finfo
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _is_number, broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """A Gumbel distribution: ``loc - scale log(-log U)`` for ``U`` uniform on
    ``(tiny, 1 - eps)`` (drawn as PyTorch draws it).

    Args:
        loc (float or Tensor): location.
        scale (float or Tensor): scale (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Gumbel
        >>> Gumbel(0.0, 1.0).log_prob(ferric.tensor(0.0))
        tensor(-1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        if _is_number(loc) and _is_number(scale):
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(_core.full_like(self.loc, info.tiny),
                           _core.full_like(self.loc, 1 - info.eps), validate_args=validate_args)
        transforms = [ExpTransform().inv,
                      AffineTransform(loc=0, scale=-_core.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(Gumbel, batch_shape, _instance, ("loc", "scale"))

    def log_prob(self, value):
        """``y - exp(y) - log(scale)`` with ``y = (loc - value) / scale``.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Gumbel
            >>> Gumbel(0.0, 2.0).log_prob(ferric.tensor(1.0))
            tensor(-1.7997)
        """
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def stddev(self):
        """``pi / sqrt(6) * scale``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        """``stddev ** 2``."""
        return self.stddev.pow(2)

    def entropy(self):
        """``log(scale) + 1 + euler_gamma``.

        Example:
            >>> from ferric.distributions import Gumbel
            >>> Gumbel(0.0, 1.0).entropy()
            tensor(1.5772)
        """
        return self.scale.log() + (1 + euler_constant)
