"""The continuous Bernoulli distribution on ``[0, 1]`` (Loaiza-Ganem and Cunningham,
2019), with PyTorch's Taylor expansions near ``probs = 0.5``."""

from __future__ import annotations

import math

from .. import _core
from .._size import Size
from ..nn import functional as F
from . import constraints
from ._binary import _ProbsOrLogits
from .distribution import _EMPTY
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_ProbsOrLogits, ExponentialFamily):
    """A continuous Bernoulli distribution: density proportional to
    ``probs**x (1 - probs)**(1 - x)`` on ``[0, 1]``. Give exactly one of ``probs`` and
    ``logits``. Inside ``lims`` (around 0.5) the normaliser and moments use Taylor
    expansions, as PyTorch's do.

    Args:
        probs (Number or Tensor): parameter in ``(0, 1)``.
        logits (Number or Tensor): its log-odds.
        lims (tuple): the unstable region handled by Taylor expansion.
            Default: ``(0.499, 0.501)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import ContinuousBernoulli
        >>> ContinuousBernoulli(ferric.tensor([0.3])).mean
        tensor([0.4302])
    """

    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        if probs is not None:
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_probs_or_logits(ContinuousBernoulli, batch_shape, _instance)
        new._lims = self._lims
        return new

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return _core.where(self._outside_unstable_region(), self.probs,
                           self._lims[0] * _core.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below = _core.where(cut <= 0.5, cut, _core.zeros_like(cut))
        above = _core.where(cut >= 0.5, cut, _core.ones_like(cut))
        log_norm = (_core.log(_core.abs(_core.log1p(-cut) - _core.log(cut)))
                    - _core.where(cut <= 0.5, _core.log1p(-2.0 * below),
                                  _core.log(2.0 * above - 1.0)))
        x = _core.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _core.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        """The mean (a Taylor expansion near ``probs = 0.5``)."""
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (_core.log1p(-cut) - _core.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * _core.pow(x, 2)) * x
        return _core.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        """``sqrt(variance)``."""
        return _core.sqrt(self.variance)

    @property
    def variance(self):
        """The variance (a Taylor expansion near ``probs = 0.5``)."""
        cut = self._cut_probs()
        var = (cut * (cut - 1.0) / _core.pow(1.0 - 2.0 * cut, 2)
               + 1.0 / _core.pow(_core.log1p(-cut) - _core.log(cut), 2))
        x = _core.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _core.where(self._outside_unstable_region(), var, taylor)

    @lazy_property
    def probs(self):
        """The (clamped) parameter in ``(0, 1)``."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        """Shape of the parameter tensor."""
        return self._param.size()

    def rsample(self, sample_shape=_EMPTY):
        """``icdf(u)`` with ``u`` from ``rand``.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> from ferric.distributions import ContinuousBernoulli
            >>> ContinuousBernoulli(0.3).rsample((2,)).shape
            ferric.Size([2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        return self.icdf(_core.rand(shape, dtype=self.probs.dtype))

    def log_prob(self, value):
        """``-bce_with_logits(logits, value) + log C(probs)``.

        Args:
            value (Tensor): points in ``[0, 1]``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import ContinuousBernoulli
            >>> ContinuousBernoulli(0.5).log_prob(ferric.tensor(0.3))
            tensor(0.)
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-F.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        """Cumulative distribution function.

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import ContinuousBernoulli
            >>> ContinuousBernoulli(0.5).cdf(ferric.tensor(0.3))
            tensor(0.3000)
        """
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = ((_core.pow(cut, value) * _core.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = _core.where(self._outside_unstable_region(), cdfs, value)
        return _core.where(value <= 0.0, _core.zeros_like(value),
                           _core.where(value >= 1.0, _core.ones_like(value), unbounded))

    def icdf(self, value):
        """Quantile function.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import ContinuousBernoulli
            >>> ContinuousBernoulli(0.5).icdf(ferric.tensor(0.3))
            tensor(0.3000)
        """
        cut = self._cut_probs()
        inner = ((_core.log1p(-cut + value * (2.0 * cut - 1.0)) - _core.log1p(-cut))
                 / (_core.log(cut) - _core.log1p(-cut)))
        return _core.where(self._outside_unstable_region(), inner, value)

    def entropy(self):
        """``mean (log(1-p) - log p) - log C(p) - log(1-p)``.

        Example:
            >>> from ferric.distributions import ContinuousBernoulli
            >>> ContinuousBernoulli(0.5).entropy()
            tensor(0.)
        """
        log_probs0 = _core.log1p(-self.probs)
        log_probs1 = _core.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        unstable = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = _core.where(unstable, x, (self._lims[0] - 0.5) * _core.ones_like(x))
        log_norm = _core.log(_core.abs(_core.expm1(cut))) - _core.log(_core.abs(cut))
        taylor = 0.5 * x + _core.pow(x, 2) / 24.0 - _core.pow(x, 4) / 2880.0
        return _core.where(unstable, log_norm, taylor)
