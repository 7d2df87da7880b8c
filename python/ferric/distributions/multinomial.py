"""The multinomial distribution: counts of ``total_count`` categorical draws."""

from __future__ import annotations

import math

from .. import _core
from .._size import Size
from . import constraints
from .categorical import _OverCategorical
from .distribution import _EMPTY
from .utils import broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


def _binomial_log_prob(total_count, probs, value):
    """Log-pmf of ``Binomial(total_count, probs)`` at ``value`` (PyTorch's formula)."""
    logits = probs_to_logits(probs, is_binary=True)
    log_factorial_n = math.lgamma(total_count + 1)
    log_factorial_k = _core.lgamma(value + 1)
    log_factorial_nmk = _core.lgamma(total_count - value + 1)
    clamped = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
    normalize = (total_count * clamped + total_count * _core.log1p(_core.exp(-logits.abs()))
                 - log_factorial_n)
    return value * logits - log_factorial_k - log_factorial_nmk - normalize


class Multinomial(_OverCategorical):
    """Counts of each of ``K`` events in ``total_count`` independent ``Categorical``
    draws. ``log_prob`` accepts any ``total_count`` (it is read from the value);
    ``sample`` and ``entropy`` use the given one.

    Args:
        total_count (int): number of draws. Default: 1.
        probs (Tensor): event probabilities, ``(*batch, K)``.
        logits (Tensor): event log-probabilities (unnormalised), ``(*batch, K)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Multinomial
        >>> m = Multinomial(4, ferric.tensor([0.25, 0.75]))
        >>> m.log_prob(ferric.tensor([1.0, 3.0]))
        tensor(-0.8630)
    """


    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._init_categorical(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Multinomial, batch_shape, _instance, ("_categorical",))
        new.total_count = self.total_count
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """Count vectors summing to at most ``total_count``."""
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        """``total_count * probs``."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=_EMPTY):
        """Counts of ``total_count`` ``Categorical`` draws (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Multinomial
            >>> Multinomial(10, ferric.ones(3)).sample((2,)).sum(-1)
            tensor([10., 10.])
        """
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        order = list(range(samples.dim()))
        order.append(order.pop(0))
        samples = samples.permute(*order)
        counts = _core.zeros(tuple(self._extended_shape(sample_shape)), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, _core.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        """``n H(Categorical) - log n! + sum_k E[log x_k!]`` with the marginal binomials.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Multinomial
            >>> Multinomial(2, ferric.ones(2)).entropy()
            tensor(1.0397)
        """
        n = self.total_count
        probs = self.probs
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        support = _core.arange(1, n + 1, dtype=probs.dtype).view(
            (-1,) + (1,) * probs.dim())
        binomial_probs = _core.exp(_binomial_log_prob(n, probs, support))
        weights = _core.lgamma(support + 1)
        return (binomial_probs * weights).sum([0, -1]) + term1

    def log_prob(self, value):
        """``log n! - sum log x_k! + sum x_k log p_k``.

        Args:
            value (Tensor): count vectors.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Multinomial
            >>> Multinomial(probs=ferric.ones(2)).log_prob(ferric.tensor([0.0, 1.0]))
            tensor(-0.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = _core.lgamma(value.sum(-1) + 1)
        log_factorial_xs = _core.lgamma(value + 1).sum(-1)
        logits = _core.where((value == 0) & (logits == -math.inf), 0.0, logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
