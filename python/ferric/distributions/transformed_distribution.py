"""``TransformedDistribution``: a base distribution pushed through transforms."""

from __future__ import annotations

from .. import autograd
from .._size import Size
from . import constraints
from .distribution import _EMPTY, Distribution
from .independent import Independent
from .transforms import Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


def _event_dims(transforms):
    """(domain, codomain) event dims of the composition of ``transforms``."""
    if not transforms:
        return 0, 0
    dim = transforms[-1].codomain.event_dim
    for t in reversed(transforms):
        dim = max(dim + t.domain.event_dim - t.codomain.event_dim, t.domain.event_dim)
    domain = dim
    dim = transforms[0].domain.event_dim
    for t in transforms:
        dim = max(dim + t.codomain.event_dim - t.domain.event_dim, t.codomain.event_dim)
    return domain, dim


class TransformedDistribution(Distribution):
    """The distribution of ``y = t_n(... t_1(x))`` for ``x`` drawn from
    ``base_distribution``; ``log_prob`` inverts the transforms and adds their
    log-abs-det-Jacobians.

    Args:
        base_distribution (Distribution): the distribution of ``x``.
        transforms (Transform or list of Transform): applied in order.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Normal, TransformedDistribution
        >>> from ferric.distributions.transforms import ExpTransform
        >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
        >>> d.log_prob(ferric.tensor(1.0))
        tensor(-0.9189)
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        domain_dim, codomain_dim = _event_dims(self.transforms)
        if len(base_shape) < domain_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{domain_dim}, but got {base_shape}.")
        forward_shape = tuple(base_shape)
        for t in self.transforms:
            forward_shape = tuple(t.forward_shape(forward_shape))
        expanded_base = forward_shape
        for t in reversed(self.transforms):
            expanded_base = tuple(t.inverse_shape(expanded_base))
        if tuple(base_shape) != expanded_base:
            base_distribution = base_distribution.expand(
                expanded_base[:len(expanded_base) - base_event_dim])
        if domain_dim - base_event_dim > 0:
            base_distribution = Independent(base_distribution, domain_dim - base_event_dim)
        self.base_dist = base_distribution
        event_dim = max(codomain_dim, base_event_dim + codomain_dim - domain_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(Size(forward_shape[:cut]), Size(forward_shape[cut:]),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        shape = tuple(batch_shape + self.event_shape)
        for t in reversed(self.transforms):
            shape = tuple(t.inverse_shape(shape))
        new.base_dist = self.base_dist.expand(
            shape[:len(shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        return self._init_expanded(new, batch_shape, self.event_shape)

    def _expand_transformed(self, cls, batch_shape, _instance, names=()):
        """The body of ``cls.expand`` for a subclass ``cls`` whose state is a base
        distribution, transforms and the parameters ``names``: each parameter is expanded
        to ``batch_shape``, then the parent's ``expand`` expands the rest."""
        new = self._get_checked_instance(cls, _instance)
        for name in names:
            setattr(new, name, getattr(self, name).expand(tuple(batch_shape)))
        return super(cls, self).expand(batch_shape, _instance=new)

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        """The last transform's codomain (the base support with no transforms)."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape)
                                              - support.event_dim)
        return support

    @property
    def has_rsample(self):  # type: ignore[override]
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    def sample(self, sample_shape=_EMPTY):
        """A base sample pushed through the transforms.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LogNormal
            >>> LogNormal(0.0, 1.0).sample((2,)).shape
            ferric.Size([2])
        """
        with autograd.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=_EMPTY):
        """A reparameterised base sample pushed through the transforms.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LogNormal
            >>> LogNormal(0.0, 1.0).rsample((2,)).shape
            ferric.Size([2])
        """
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        """The base ``log_prob`` of the inverted value minus the log-abs-det-Jacobians.

        Args:
            value (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LogNormal
            >>> LogNormal(0.0, 1.0).log_prob(ferric.tensor(1.0))
            tensor(-0.9189)
        """
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                                 event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The base ``cdf`` of the inverted value (flipped for decreasing transforms).

        Args:
            value (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LogNormal
            >>> LogNormal(0.0, 1.0).cdf(ferric.tensor(1.0))
            tensor(0.5000)
        """
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        """The base ``icdf`` pushed through the transforms.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LogNormal
            >>> LogNormal(0.0, 1.0).icdf(ferric.tensor(0.5))
            tensor(1.)
        """
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value


class _Relaxed(TransformedDistribution):
    """The shared part of ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical``: a
    temperature-scaled, reparameterisable base distribution pushed through one transform,
    whose ``temperature``, ``logits`` and ``probs`` are the base's."""

    has_rsample = True

    @property
    def temperature(self):
        """Relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The base distribution's ``logits``."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The base distribution's ``probs``."""
        return self.base_dist.probs
