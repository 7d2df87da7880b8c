"""The von Mises distribution on the circle."""

from __future__ import annotations

import math

from .. import _core, autograd
from .._size import Size
from . import constraints
from ._loc_scale import _CentredAtLoc
from .distribution import _EMPTY, Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _eval_poly(y, coef):
    coef = list(coef)
    result = coef.pop()
    while coef:
        result = coef.pop() + y * result
    return result


# PyTorch's polynomial approximations of I0 and I1 (Abramowitz & Stegun 9.8.1-9.8.4)
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
                  -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
                  0.32411e-3]
_I1_COEF_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
                  0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]


def _log_modified_bessel_fn(x, order=0):
    """``log I_order(x)`` for ``x > 0``, ``order`` 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = x / 3.75
    y = y * y
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, _COEF_LARGE[order]).log()
    return _core.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best & Fisher (1979): three uniforms per round for every entry until all are
    accepted (PyTorch's loop, so the stream is the same)."""
    done = _core.zeros(tuple(x.shape), dtype=_core.bool)
    while not bool(done.all()):
        u = _core.rand((3,) + tuple(x.shape), dtype=loc.dtype)
        u1, u2, u3 = u.unbind()
        z = _core.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = _core.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(_CentredAtLoc, Distribution):
    """A circular von Mises distribution; ``loc`` and values are angles (any real,
    read modulo ``2 pi``).

    Args:
        loc (Tensor): mean angle, in radians.
        concentration (Tensor): concentration (positive).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import VonMises
        >>> VonMises(ferric.tensor([0.0]), ferric.tensor([1.0])).log_prob(ferric.tensor([0.0]))
        tensor([-1.0738])
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        """``kappa cos(value - loc) - log(2 pi I0(kappa))``.

        Args:
            value (Tensor): angles.

        Example:
            >>> import ferric
            >>> from ferric.distributions import VonMises
            >>> VonMises(ferric.tensor(0.0), ferric.tensor(2.0)).log_prob(ferric.tensor(3.0))
            tensor(-4.6419)
        """
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * _core.cos(value - self.loc)
        return (log_prob - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self):
        return self.loc.to(_core.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_core.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        return _core.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape=_EMPTY):
        """Rejection sampling in float64 (as PyTorch, which avoids a hang at tiny
        concentrations in float32), converted back to the parameters' dtype.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import VonMises
            >>> VonMises(ferric.zeros(2), ferric.ones(2)).sample((3,)).shape
            ferric.Size([3, 2])
        """
        with autograd.no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            x = _core.zeros(shape, dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        """A new ``VonMises`` with the parameters expanded to ``batch_shape``.

        Args:
            batch_shape (Size): the new batch shape.
            _instance: unused (kept for the common signature).

        Example:
            >>> import ferric
            >>> from ferric.distributions import VonMises
            >>> VonMises(ferric.tensor(0.0), ferric.tensor(1.0)).expand([2]).batch_shape
            ferric.Size([2])
        """
        validate_args = self.__dict__.get("_validate_args")
        loc = self.loc.expand(tuple(batch_shape))
        concentration = self.concentration.expand(tuple(batch_shape))
        return type(self)(loc, concentration, validate_args=validate_args)

    @lazy_property
    def variance(self):
        """The circular variance, ``1 - I1(kappa) / I0(kappa)``."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
