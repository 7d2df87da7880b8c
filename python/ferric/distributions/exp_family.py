"""``ExponentialFamily``: distributions with density ``exp(<t(x), θ> - F(θ) + k(x))``;
their entropy and same-family KL divergence follow from the log normaliser ``F``."""

from __future__ import annotations

from .. import autograd
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions: subclasses give
    ``_natural_params``, ``_log_normalizer`` and ``_mean_carrier_measure``, from which
    :meth:`entropy` (and the Bregman-divergence KL between two members of one family)
    are computed with autograd.

    Example:
        >>> import ferric
        >>> from ferric.distributions import ExponentialFamily, Normal
        >>> isinstance(Normal(0.0, 1.0), ExponentialFamily)
        True
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy from the Bregman divergence of the log normaliser.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Exponential
            >>> Exponential(ferric.tensor([1.0])).entropy()
            tensor([1.])
        """
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*params)
        grads = autograd.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for p, g in zip(params, grads, strict=True):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


def _kl_bregman(p, q):
    """KL(p || q) for two members of one exponential family, by the Bregman divergence
    of the log normaliser (what ``kl_divergence`` falls back to for them)."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            "be computed using Bregman divergences")
    p_params = [n.detach().requires_grad_() for n in p._natural_params]
    q_params = q._natural_params
    log_norm = p._log_normalizer(*p_params)
    grads = autograd.grad(log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - log_norm
    for pn, qn, g in zip(p_params, q_params, grads, strict=True):
        result = result - _sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result
