"""``MixtureSameFamily``: a mixture of components of one family, weighted by a
``Categorical``."""

from __future__ import annotations

from .. import _core, autograd
from .._size import Size
from ..nn import functional as F
from . import constraints
from .categorical import Categorical
from .distribution import _EMPTY, Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture whose components are the rightmost batch dimension of
    ``component_distribution``, chosen with ``mixture_distribution`` (a ``Categorical``
    over that dimension).

    Args:
        mixture_distribution (Categorical): the component weights, batch ``B``.
        component_distribution (Distribution): the components, batch ``B + (k,)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(ferric.ones(2))
        >>> gmm = MixtureSameFamily(mix, Normal(ferric.tensor([-1.0, 1.0]), 1.0))
        >>> gmm.mean, gmm.variance
        (tensor(0.), tensor(2.))
    """

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "ferric.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "ferric.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs), strict=False):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        return self._init_expanded(new, batch_shape, new._component_distribution.event_shape)

    @constraints.dependent_property
    def support(self):
        """The components' support."""
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The ``Categorical`` over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The components."""
        return self._component_distribution

    @property
    def mean(self):
        """The weighted mean of the component means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return _core.sum(probs * self.component_distribution.mean,
                         dim=-1 - self._event_ndims)

    @property
    def variance(self):
        """Mean of the component variances plus variance of the component means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = _core.sum(probs * self.component_distribution.variance, dim=dim)
        var_cond_mean = _core.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim=dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        """The weighted sum of the component cdfs.

        Args:
            x (Tensor): points to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical, MixtureSameFamily, Normal
            >>> m = MixtureSameFamily(Categorical(ferric.ones(2)), Normal(ferric.zeros(2), 1.0))
            >>> m.cdf(ferric.tensor(0.0))
            tensor(0.5000)
        """
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return _core.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        """``logsumexp`` over components of component log-density plus log-weight.

        Args:
            x (Tensor): points to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical, MixtureSameFamily, Normal
            >>> m = MixtureSameFamily(Categorical(ferric.ones(2)), Normal(ferric.zeros(2), 1.0))
            >>> m.log_prob(ferric.tensor(0.0))
            tensor(-0.9189)
        """
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix = F.log_softmax(self.mixture_distribution.logits, dim=-1)
        return _core.logsumexp(log_prob_x + log_mix, dim=-1)

    def sample(self, sample_shape=_EMPTY):
        """Draws the component indices, then all components, and gathers (PyTorch's
        draw order, so equal seeds give equal samples).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical, MixtureSameFamily, Normal
            >>> m = MixtureSameFamily(Categorical(ferric.ones(2)), Normal(ferric.zeros(2), 1.0))
            >>> m.sample((3,)).shape
            ferric.Size([3])
        """
        sample_shape = Size(sample_shape)
        with autograd.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            index = index.repeat((1,) * len(mix_shape) + (1,) + es)
            return _core.gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_ndims = len(self.batch_shape)
        cat_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_ndims == 1 else dist_ndims - cat_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n"
                f"  {self.component_distribution})")
