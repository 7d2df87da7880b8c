"""Relaxed (concrete / Gumbel-softmax) one-hot categorical distributions:
reparameterisable samples on the simplex."""

from __future__ import annotations

from .. import _core
from . import constraints
from .categorical import _OverCategorical
from .distribution import _EMPTY
from .transformed_distribution import _Relaxed
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(_OverCategorical):
    """The log of a ``RelaxedOneHotCategorical`` sample: ``log_softmax`` of Gumbel
    noise plus the logits, divided by ``temperature``.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.relaxed_categorical import ExpRelaxedCategorical
        >>> d = ExpRelaxedCategorical(ferric.tensor(1.0), ferric.ones(3))
        >>> d.rsample((2,)).shape
        ferric.Size([2, 3])
    """

    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._init_categorical(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(ExpRelaxedCategorical, batch_shape, _instance,
                                  ("_categorical",))
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape=_EMPTY):
        """Gumbel-softmax in log space, with uniforms from ``rand`` (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions.relaxed_categorical import ExpRelaxedCategorical
            >>> ExpRelaxedCategorical(ferric.tensor(1.0), ferric.ones(3)).rsample().shape
            ferric.Size([3])
        """
        shape = tuple(self._extended_shape(sample_shape))
        uniforms = clamp_probs(_core.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        """Log density of the (log-space) concrete distribution.

        Args:
            value (Tensor): log-simplex points.

        Example:
            >>> import ferric
            >>> from ferric.distributions.relaxed_categorical import ExpRelaxedCategorical
            >>> d = ExpRelaxedCategorical(ferric.tensor(1.0), ferric.ones(2))
            >>> d.log_prob(ferric.tensor([0.5, 0.5]).log())
            tensor(-1.3863)
        """
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = (_core.full_like(self.temperature, float(k)).lgamma()
                     - self.temperature.log().mul(-(k - 1)))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(_Relaxed):
    """A relaxed one-hot categorical (Gumbel-softmax / concrete): ``exp`` of an
    ``ExpRelaxedCategorical`` sample, on the simplex and reparameterisable.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import RelaxedOneHotCategorical
        >>> m = RelaxedOneHotCategorical(ferric.tensor([2.2]), ferric.tensor([0.1, 0.2, 0.7]))
        >>> m.rsample().shape
        ferric.Size([3])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(RelaxedOneHotCategorical, batch_shape, _instance)
