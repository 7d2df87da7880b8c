"""``Independent``: reinterprets batch dimensions of a distribution as event dimensions."""

from __future__ import annotations

from .._size import Size
from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Reinterprets the ``reinterpreted_batch_ndims`` rightmost batch dimensions of
    ``base_distribution`` as event dimensions, so ``log_prob`` sums over them (a diagonal
    multivariate normal is ``Independent(Normal(loc, scale), 1)``).

    Args:
        base_distribution (Distribution): the base distribution.
        reinterpreted_batch_ndims (int): how many batch dimensions become event ones.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Independent, Normal
        >>> d = Independent(Normal(ferric.zeros(3, 2), ferric.ones(3, 2)), 1)
        >>> d.batch_shape, d.event_shape
        (ferric.Size([3]), ferric.Size([2]))
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[:len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim:]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(
            batch_shape + self.event_shape[:self.reinterpreted_batch_ndims])
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        return self._init_expanded(new, batch_shape, self.event_shape)

    @property
    def has_rsample(self):  # type: ignore[override]
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):  # type: ignore[override]
        """False when dimensions are reinterpreted, else the base's answer."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base support, with the reinterpreted dimensions made event dimensions."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base distribution's mean."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The base distribution's mode."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The base distribution's variance."""
        return self.base_dist.variance

    def sample(self, sample_shape=_EMPTY):
        """The base distribution's sample.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Independent, Normal
            >>> Independent(Normal(ferric.zeros(2), 1.0), 1).sample((3,)).shape
            ferric.Size([3, 2])
        """
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=_EMPTY):
        """The base distribution's reparameterised sample.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Independent, Normal
            >>> Independent(Normal(ferric.zeros(2), 1.0), 1).rsample().shape
            ferric.Size([2])
        """
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base ``log_prob`` summed over the reinterpreted dimensions.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Independent, Normal
            >>> Independent(Normal(ferric.zeros(2), 1.0), 1).log_prob(ferric.zeros(2))
            tensor(-1.8379)
        """
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base entropy summed over the reinterpreted dimensions.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Independent, Normal
            >>> Independent(Normal(ferric.zeros(2), 1.0), 1).entropy()
            tensor(2.8379)
        """
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base support (only without reinterpreted dimensions).

        Args:
            expand (bool): expand over the batch dimensions. Default: True.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Bernoulli, Independent
            >>> Independent(Bernoulli(0.5), 0).enumerate_support()
            tensor([0., 1.])
        """
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
