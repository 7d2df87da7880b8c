"""The one-hot categorical distribution: ``Categorical`` with one-hot samples."""

from __future__ import annotations

from .. import _core
from .._size import Size
from ..nn import functional as F
from . import constraints
from .categorical import _OverCategorical
from .distribution import _EMPTY

__all__ = ["OneHotCategorical"]


class OneHotCategorical(_OverCategorical):
    """A categorical distribution whose samples are one-hot vectors of length ``K``.

    Args:
        probs (Tensor): event probabilities, ``(*batch, K)``.
        logits (Tensor): event log-probabilities (unnormalised), ``(*batch, K)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import OneHotCategorical
        >>> _ = ferric.manual_seed(0)
        >>> OneHotCategorical(ferric.tensor([0.25, 0.25, 0.5])).sample()
        tensor([0., 0., 1.])
    """

    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._init_categorical(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(OneHotCategorical, batch_shape, _instance, ("_categorical",))

    @property
    def _param(self):
        return self._categorical._param

    @property
    def mean(self):
        """``probs``."""
        return self._categorical.probs

    @property
    def mode(self):
        """One-hot vector of the most probable event."""
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        """``probs (1 - probs)``."""
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=_EMPTY):
        """One-hot encodes a ``Categorical`` sample (same draws as PyTorch).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import OneHotCategorical
            >>> OneHotCategorical(ferric.ones(3)).sample((2,)).shape
            ferric.Size([2, 3])
        """
        probs = self._categorical.probs
        indices = self._categorical.sample(Size(sample_shape))
        return F.one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        """The ``Categorical`` log-probability of the hot index.

        Args:
            value (Tensor): one-hot vectors.

        Example:
            >>> import ferric
            >>> from ferric.distributions import OneHotCategorical
            >>> OneHotCategorical(ferric.tensor([0.5, 0.5])).log_prob(ferric.tensor([0.0, 1.0]))
            tensor(-0.6931)
        """
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        """The ``Categorical`` entropy.

        Example:
            >>> import ferric
            >>> from ferric.distributions import OneHotCategorical
            >>> OneHotCategorical(ferric.ones(2)).entropy()
            tensor(0.6931)
        """
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The ``K`` one-hot vectors along a new leading dimension.

        Args:
            expand (bool): expand over the batch dimensions. Default: True.

        Example:
            >>> import ferric
            >>> from ferric.distributions import OneHotCategorical
            >>> OneHotCategorical(ferric.ones(2)).enumerate_support()
            tensor([[1., 0.],
                    [0., 1.]])
        """
        n = self.event_shape[0]
        values = _core.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A ``OneHotCategorical`` with a straight-through ``rsample``: the forward value is
    a one-hot sample, the gradient is that of ``probs`` (Bengio et al., 2013).

    Args:
        probs (Tensor): event probabilities, ``(*batch, K)``.
        logits (Tensor): event log-probabilities (unnormalised), ``(*batch, K)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import OneHotCategoricalStraightThrough
        >>> logits = ferric.zeros(3, requires_grad=True)
        >>> OneHotCategoricalStraightThrough(logits=logits).rsample().requires_grad
        True
    """

    has_rsample = True

    def rsample(self, sample_shape=_EMPTY):
        """``sample + (probs - probs.detach())``.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import OneHotCategoricalStraightThrough
            >>> OneHotCategoricalStraightThrough(ferric.ones(3)).rsample((2,)).shape
            ferric.Size([2, 3])
        """
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
