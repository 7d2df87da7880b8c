"""``_LocScale``: the shared part of the real-line families with a location ``loc`` and
a positive ``scale`` (``Normal``, ``Laplace``, ``Cauchy``); ``_CentredAtLoc``: the
mean and mode of the distributions symmetric about their unique mode ``loc``."""

from __future__ import annotations

from . import constraints
from .distribution import _EMPTY, Distribution
from .utils import _broadcast_params


class _CentredAtLoc:
    """Mixin for a distribution symmetric about its unique mode ``loc``."""

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def mode(self):
        """``loc``."""
        return self.loc


class _LocScale(_CentredAtLoc, Distribution):
    """Parameters ``loc`` (real) and ``scale`` (positive), broadcast together; the batch
    shape is theirs (``Size()`` when both are numbers). The mean and mode are ``loc``
    (``Cauchy`` has no mean and overrides it). Subclasses keep their own ``expand``, so
    that a subclass of theirs with a custom ``__init__`` is told to write one (PyTorch's
    check names the public class)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        (self.loc, self.scale), batch_shape = _broadcast_params(loc, scale)
        super().__init__(batch_shape, validate_args=validate_args)

    def rsample(self, sample_shape=_EMPTY):
        """``loc + eps * scale`` with ``eps`` drawn from the family's standard member
        (``loc = 0``, ``scale = 1``) as PyTorch draws it: ``normal_()`` for ``Normal``,
        ``cauchy_()`` for ``Cauchy``, the inverse CDF of ``u ~ U(eps - 1, 1)`` for
        ``Laplace``.

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import Normal
            >>> Normal(0.0, 1.0).rsample((2, 2)).shape
            ferric.Size([2, 2])
        """
        return self.loc + self._standard_sample(self._extended_shape(sample_shape)) * self.scale

    def _standard_sample(self, shape):
        raise NotImplementedError
