"""The ``Distribution`` base class: shapes, argument validation, sampling entry points."""

from __future__ import annotations

import warnings

from .. import _core, autograd
from .._size import Size
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]

_EMPTY = Size()  # the default sample_shape (immutable, so one object serves)


def _as_size(shape) -> Size:
    return shape if isinstance(shape, Size) else Size(shape)


class Distribution:
    """Abstract base class for probability distributions, as
    ``torch.distributions.Distribution``.

    Args:
        batch_shape (Size): the shape over which parameters are batched.
        event_shape (Size): the shape of one sample (without batching).
        validate_args (bool, optional): whether to check parameters and values against
            their constraints. Default: the class default (True unless ``python -O``),
            see :meth:`set_default_validate_args`.

    Example:
        >>> import ferric
        >>> from ferric.distributions import Normal
        >>> Normal(ferric.zeros(3), 1.0).batch_shape
        ferric.Size([3])
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns argument validation on or off for distributions created without an
        explicit ``validate_args``.

        Args:
            value (bool): whether to validate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Distribution
            >>> Distribution.set_default_validate_args(True)
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_EMPTY, event_shape=_EMPTY, validate_args=None):
        self._batch_shape = _as_size(batch_shape)
        self._event_shape = _as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(
                        getattr(type(self), param, None), lazy_property):
                    continue  # a parameterisation that was not given
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """Returns a new distribution with its parameters expanded (without copying) to
        ``batch_shape``; the arguments are not validated again.

        Args:
            batch_shape (Size): the new batch shape.
            _instance: an instance of a subclass to fill in (used by subclasses).

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).expand([2, 3]).batch_shape
            ferric.Size([2, 3])
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """The constraints each parameter must satisfy, by parameter name."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint describing where the distribution has mass."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=_EMPTY):
        """Draws a ``sample_shape``-shaped sample (or batch of samples), outside autograd.

        Args:
            sample_shape (Size): leading shape of the result. Default: ``Size()``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).sample((2,)).shape
            ferric.Size([2])
        """
        with autograd.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=_EMPTY):
        """Draws a reparameterised sample: gradients flow to the parameters.

        Args:
            sample_shape (Size): leading shape of the result. Default: ``Size()``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> loc = ferric.zeros(2, requires_grad=True)
            >>> Normal(loc, 1.0).rsample().requires_grad
            True
        """
        raise NotImplementedError

    def sample_n(self, n: int):
        """Draws ``n`` samples (deprecated; use ``sample((n,))``).

        Args:
            n (int): number of samples.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).sample_n(3).shape  # doctest: +SKIP
            ferric.Size([3])
        """
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning,
                      stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        """The log of the probability density/mass function at ``value``.

        Args:
            value (Tensor): the values to score.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).log_prob(ferric.tensor(0.0))
            tensor(-0.9189)
        """
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``.

        Args:
            value (Tensor): the values to evaluate.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).cdf(ferric.tensor(0.0))
            tensor(0.5000)
        """
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``.

        Args:
            value (Tensor): probabilities.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).icdf(ferric.tensor(0.5))
            tensor(0.)
        """
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution's support, along dimension 0.

        Args:
            expand (bool): expand the result over the batch dimensions. Default: True.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Bernoulli
            >>> Bernoulli(ferric.tensor([0.3, 0.6])).enumerate_support()
            tensor([[0., 0.],
                    [1., 1.]])
        """
        raise NotImplementedError

    def entropy(self):
        """The entropy, batched over ``batch_shape``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).entropy()
            tensor(1.4189)
        """
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``, batched over ``batch_shape``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Categorical
            >>> Categorical(ferric.ones(4)).perplexity()
            tensor(4.)
        """
        return _core.exp(self.entropy())

    def _extended_shape(self, sample_shape=_EMPTY) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        if not isinstance(value, _core.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.", stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_params(self, cls, batch_shape, _instance, names):
        """The body of ``cls.expand`` for a distribution whose state is its parameters:
        each of ``names`` that this instance holds (a tensor or a distribution) is expanded
        to ``batch_shape``; the event shape stays. The caller copies any other state."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        return self._init_expanded(new, batch_shape, self.event_shape)

    def _init_expanded(self, new, batch_shape, event_shape):
        """The last step of ``expand``: sets the shapes of ``new`` (an expanded copy of this
        distribution) without validating its arguments again and gives it this
        distribution's validation flag."""
        Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{self.__class__.__name__}({', '.join(parts)})"
