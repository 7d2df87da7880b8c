"""``_LocScale``: the shared part of the real-line families with a location ``loc`` and
a positive ``scale`` (``Normal``, ``Laplace``, ``Cauchy``); ``_CentredAtLoc``: the
mean and mode of the distributions symmetric about their unique mode ``loc``."""

from __future__ import annotations

from . import constraints
from .distribution import Distribution
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
