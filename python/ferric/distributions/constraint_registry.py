"""``biject_to`` and ``transform_to``: from a constraint to a transform that maps
unconstrained reals into it (for optimising constrained parameters). ``biject_to``
gives bijections (for HMC-style reparameterisation), ``transform_to`` any suitable map.
The registrations are PyTorch's, for the constraints ferric has."""

from __future__ import annotations

import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A registry from constraint types to transform factories.

    Example:
        >>> import ferric
        >>> from ferric.distributions import constraints, transform_to
        >>> t = transform_to(constraints.positive)
        >>> t(ferric.tensor([0.0]))
        tensor([1.])
    """

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Registers ``factory`` (constraint -> Transform) for a constraint subclass or
        the class of a constraint instance; usable as a decorator.

        Args:
            constraint (type or Constraint): the constraint class, or an instance.
            factory (callable, optional): builds the transform from a constraint.

        Example:
            >>> from ferric.distributions import constraints
            >>> from ferric.distributions.constraint_registry import ConstraintRegistry
            >>> from ferric.distributions.transforms import ExpTransform
            >>> reg = ConstraintRegistry()
            >>> _ = reg.register(constraints.positive, lambda c: ExpTransform())
            >>> reg(constraints.positive)
            ExpTransform()
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                               constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


@biject_to.register(constraints.real)
@transform_to.register(constraints.real)
def _transform_to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


# registered first and then replaced by the greater_than factories below (one type
# each), exactly as in PyTorch: biject_to(positive) is Exp followed by Affine(0, 1)
@biject_to.register(constraints.positive)
@biject_to.register(constraints.nonnegative)
@transform_to.register(constraints.positive)
@transform_to.register(constraints.nonnegative)
def _transform_to_positive(constraint):
    return transforms.ExpTransform()


@biject_to.register(constraints.greater_than)
@biject_to.register(constraints.greater_than_eq)
@transform_to.register(constraints.greater_than)
@transform_to.register(constraints.greater_than_eq)
def _transform_to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@biject_to.register(constraints.less_than)
@transform_to.register(constraints.less_than)
def _transform_to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@biject_to.register(constraints.interval)
@biject_to.register(constraints.half_open_interval)
@transform_to.register(constraints.interval)
@transform_to.register(constraints.half_open_interval)
def _transform_to_interval(constraint):
    lower, upper = constraint.lower_bound, constraint.upper_bound
    if (isinstance(lower, numbers.Number) and lower == 0
            and isinstance(upper, numbers.Number) and upper == 1):
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lower, upper - lower)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()
