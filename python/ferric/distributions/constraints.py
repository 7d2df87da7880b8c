"""Constraints: the sets a distribution's parameters and samples must lie in.

Each constraint has ``check(value)``, which returns a bool tensor saying, per event,
whether ``value`` satisfies it; ``is_discrete`` and ``event_dim`` (how many rightmost
dimensions form one event) describe the set. The names and reprs follow
``torch.distributions.constraints``: ``constraints.positive`` prints as
``GreaterThan(lower_bound=0.0)``.
"""

from __future__ import annotations

from .. import _core, _functions, linalg

__all__ = [
    "Constraint", "MixtureSameFamilyConstraint", "boolean", "dependent",
    "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "multinomial", "lower_cholesky", "lower_triangular", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
    "real", "real_vector", "simplex", "square", "symmetric", "unit_interval",
]


class Constraint:
    """Abstract base class for constraints: a region over which a variable is valid.

    Subclasses implement :meth:`check`; ``is_discrete`` says whether the region is
    discrete and ``event_dim`` how many rightmost dimensions form one event.

    Example:
        >>> import ferric
        >>> from ferric.distributions import constraints
        >>> constraints.positive.check(ferric.tensor([1.0, -1.0]))
        tensor([ True, False])
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Returns a bool tensor of ``sample_shape + batch_shape`` saying whether each
        event of ``value`` satisfies the constraint.

        Args:
            value (Tensor): the value to check.

        Example:
            >>> import ferric
            >>> from ferric.distributions import constraints
            >>> constraints.unit_interval.check(ferric.tensor([0.5, 2.0]))
            tensor([ True, False])
        """
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters (``Uniform``'s
    support depends on ``low`` and ``high``); it cannot be checked."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):  # type: ignore[override]
        """Whether the constraint is discrete, when known statically."""
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):  # type: ignore[override]
        """The event dim, when known statically."""
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent constraint (one that cannot be checked).

    Args:
        constraint (Constraint): the constraint to test.

    Example:
        >>> import ferric
        >>> from ferric.distributions import constraints
        >>> constraints.is_dependent(constraints.dependent)
        True
        >>> constraints.is_dependent(constraints.real)
        False
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property whose value is a constraint computed from the instance; on the class it
    is a dependent constraint (``Uniform.support``)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete,
                                  event_dim=self._event_dim)


class _OnBase(Constraint):
    """A constraint built on another, ``base_constraint``: discrete when that one is."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):  # type: ignore[override]
        """Whether the base constraint is discrete."""
        return self.base_constraint.is_discrete


class _IndependentConstraint(_OnBase):
    """Reinterprets ``reinterpreted_batch_ndims`` batch dimensions of a constraint as
    event dimensions: an event is valid when all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        super().__init__(base_constraint)
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise AssertionError("reinterpreted_batch_ndims must be an int >= 0, got "
                                 f"{reinterpreted_batch_ndims!r}")
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def event_dim(self):  # type: ignore[override]
        """The base event dim plus the reinterpreted batch dims."""
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        if n == 0:
            return result
        return result.reshape(tuple(result.shape[:result.dim() - n]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, " \
               f"{self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(_OnBase):
    """The support of a ``MixtureSameFamily``: a value is valid when it is in the
    components' support (checked against the component dimension, then reduced).

    Args:
        base_constraint (Constraint): the components' support.

    Example:
        >>> import ferric
        >>> from ferric.distributions import constraints
        >>> c = constraints.MixtureSameFamilyConstraint(constraints.positive)
        >>> c.check(ferric.tensor([1.0, -1.0]))
        tensor([ True, False])
    """

    @property
    def event_dim(self):  # type: ignore[override]
        """The base constraint's event dim."""
        return self.base_constraint.event_dim

    def check(self, value):
        """Checks ``value`` against the base constraint per event.

        Args:
            value (Tensor): the value to check.

        Example:
            >>> import ferric
            >>> from ferric.distributions import constraints
            >>> constraints.MixtureSameFamilyConstraint(constraints.real).check(ferric.zeros(2))
            tensor([True, True])
        """
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    """0 or 1."""

    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors (one 1, zeros elsewhere)."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & value.sum(-1).eq(1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]`` (``integer_interval(0, 3)``)."""

    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, " \
               f"upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """Integers ``>= lower_bound``."""

    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """Any real number except NaN."""

    def check(self, value):
        return value == value  # False only for NaN


class _GreaterThan(Constraint):
    """Reals ``> lower_bound`` (``greater_than(0.0)`` is ``positive``)."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """Reals ``>= lower_bound``."""

    def check(self, value):
        return self.lower_bound <= value


class _LessThan(Constraint):
    """Reals ``< upper_bound``."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """Reals in ``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, " \
               f"upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    """Reals in ``[lower_bound, upper_bound)``."""

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Non-negative vectors summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Non-negative count vectors summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value):
        flat = (value.tril() == value).reshape(tuple(value.shape[:-2]) + (-1,))
        return flat.all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _LowerTriangular().check(value) & positive_diagonal


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value):
        return _core.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                          dtype=_core.bool)


class _Symmetric(_Square):
    """Symmetric matrices (within an absolute 1e-6)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _functions.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric positive-definite matrices (a Cholesky factorisation succeeds)."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return linalg.cholesky_ex(value).info.eq(0)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
