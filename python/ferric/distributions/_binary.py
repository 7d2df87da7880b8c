"""``_ProbsOrLogits``: the shared part of the families with one binary parameter given as
a probability or as log-odds (``Bernoulli``, ``Geometric``, ``ContinuousBernoulli``,
``LogitRelaxedBernoulli``)."""

from __future__ import annotations

from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import _is_number, broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class _ProbsOrLogits(Distribution):
    """Exactly one of ``probs`` and ``logits`` is given; the other is computed on first
    access (a ``lazy_property``). The given one is also ``_param``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}

    def _set_probs_or_logits(self, probs, logits) -> Size:
        """Stores the given parameter as a tensor and returns the batch shape it gives
        (``Size()`` for a number)."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        return Size() if _is_number(given) else self._param.size()

    def _expand_probs_or_logits(self, cls, batch_shape, _instance):
        """The body of ``cls.expand``: the given parameter expanded to ``batch_shape``."""
        new = self._expand_params(cls, batch_shape, _instance, ("probs", "logits"))
        new._param = new.logits if "logits" in new.__dict__ else new.probs
        return new

    @lazy_property
    def logits(self):
        """Log-odds of ``probs``."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """Probability of the event (sampling 1, or success)."""
        return logits_to_probs(self.logits, is_binary=True)
