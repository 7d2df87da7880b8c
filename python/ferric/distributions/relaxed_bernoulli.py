"""Relaxed (concrete / Gumbel-softmax) Bernoulli distributions: reparameterisable
stand-ins for ``Bernoulli`` with values in ``(0, 1)``."""

from __future__ import annotations

from .. import _core
from .._size import Size
from . import constraints
from ._binary import _ProbsOrLogits
from .distribution import _EMPTY
from .transformed_distribution import _Relaxed
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_ProbsOrLogits):
    """The logit of a ``RelaxedBernoulli`` sample: logistic noise plus the log-odds,
    divided by ``temperature``.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Number or Tensor): probability of 1.
        logits (Number or Tensor): log-odds of 1.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
        >>> d = LogitRelaxedBernoulli(ferric.tensor(0.5), logits=ferric.tensor([0.0]))
        >>> d.log_prob(ferric.tensor([0.0]))
        tensor([-2.0794])
    """

    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_probs_or_logits(LogitRelaxedBernoulli, batch_shape, _instance)
        new.temperature = self.temperature
        return new

    @property
    def param_shape(self) -> Size:
        """Shape of the parameter tensor."""
        return self._param.size()

    def rsample(self, sample_shape=_EMPTY):
        """``(logit(u) + logit(probs)) / temperature`` with ``u`` from ``rand``
        (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
            >>> LogitRelaxedBernoulli(ferric.tensor(1.0), 0.5).rsample((2,)).shape
            ferric.Size([2])
        """
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(_core.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        """Log density of the logistic at ``value``.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
            >>> LogitRelaxedBernoulli(ferric.tensor(1.0), 0.5).log_prob(ferric.tensor(0.0))
            tensor(-1.3863)
        """
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(_Relaxed):
    """A relaxed Bernoulli: ``sigmoid`` of a ``LogitRelaxedBernoulli`` sample, in
    ``(0, 1)`` and reparameterisable.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Number or Tensor): probability of 1.
        logits (Number or Tensor): log-odds of 1.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import RelaxedBernoulli
        >>> m = RelaxedBernoulli(ferric.tensor([2.2]), ferric.tensor([0.1, 0.2, 0.3, 0.99]))
        >>> m.rsample().shape
        ferric.Size([4])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_transformed(RelaxedBernoulli, batch_shape, _instance)
