"""The categorical distribution over ``{0, ..., K-1}``."""

from __future__ import annotations

import math

from .. import _core
from .._dtype_info import finfo
from .._functions import broadcast_tensors
from .._size import Size
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A categorical distribution over ``K`` events, given by ``probs`` (non-negative,
    normalised over the last dimension) or ``logits`` (unnormalised log-probabilities).
    Give exactly one.

    Args:
        probs (Tensor): event probabilities, ``(*batch, K)``.
        logits (Tensor): event log-probabilities (unnormalised), ``(*batch, K)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Categorical
        >>> _ = ferric.manual_seed(0)
        >>> m = Categorical(logits=ferric.tensor([0.0, 1.0, 2.0]))
        >>> m.sample((4,))
        tensor([2, 2, 2, 2])
        >>> m.log_prob(ferric.tensor(2))
        tensor(-0.4076)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        return self._init_expanded(new, batch_shape, self.event_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """``integer_interval(0, K - 1)``."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalised log-probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Normalised probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        """Shape of the parameter tensor, ``(*batch, K)``."""
        return self._param.size()

    @property
    def mean(self):
        """NaN (the events are unordered labels)."""
        return _core.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        """The most probable event."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """NaN (the events are unordered labels)."""
        return _core.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=_EMPTY):
        """Draws with ``ferric.multinomial`` (with replacement) as PyTorch does, so equal
        seeds give equal samples.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical
            >>> Categorical(ferric.ones(2, 3)).sample((5,)).shape
            ferric.Size([5, 2])
        """
        sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = _core.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        """The normalised logit of each event in ``value``.

        Args:
            value (Tensor): event indices.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical
            >>> Categorical(ferric.tensor([1.0, 3.0])).log_prob(ferric.tensor([0, 1]))
            tensor([-1.3863, -0.2877])
        """
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        """``-sum(probs * logits)`` over the events (logits clamped at the dtype's
        lowest value, so zero-probability events add nothing).

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical
            >>> Categorical(ferric.ones(4)).entropy()
            tensor(1.3863)
        """
        logits = _core.clamp(self.logits, min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """``0, ..., K-1`` along a new leading dimension.

        Args:
            expand (bool): expand over the batch dimensions. Default: True.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical
            >>> Categorical(ferric.ones(3)).enumerate_support()
            tensor([0, 1, 2])
        """
        values = _core.arange(self._num_events, dtype=_core.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class _OverCategorical(Distribution):
    """The shared part of the distributions over ``K`` events that keep a private
    ``Categorical`` (``OneHotCategorical``, ``Multinomial``, ``ExpRelaxedCategorical``):
    its ``probs``/``logits`` (give exactly one) and batch shape, and the event shape
    ``(K,)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def _init_categorical(self, probs, logits, validate_args):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @property
    def logits(self):
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """Normalised probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        """Shape of the parameter tensor, ``(*batch, K)``."""
        return self._categorical.param_shape
