"""Transforms (re-exported by ``transforms``): invertible maps with a
log-abs-det-Jacobian, for ``TransformedDistribution`` (``LogNormal`` is ``Normal``
through ``ExpTransform``)."""

from __future__ import annotations

import math
import numbers

from .. import _core, _functions
from .._dtype_info import finfo
from ..nn import functional as F
from . import constraints
from .utils import _sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "SoftplusTransform", "TanhTransform", "Transform"]


class Transform:
    """Abstract base class of invertible transforms ``y = t(x)``: subclasses implement
    ``_call``, ``_inverse`` and ``log_abs_det_jacobian``, and set ``domain`` and
    ``codomain`` (constraints) and ``bijective``/``sign``.

    Args:
        cache_size (int): 0 (no caching) or 1 (remember the last ``x, y`` pair).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import ExpTransform
        >>> t = ExpTransform()
        >>> t.inv(t(ferric.tensor([0.0, 1.0])))
        tensor([0., 1.])
    """

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size: int = 0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = None

    @property
    def event_dim(self) -> int:
        """The event dimension of the transform (domain and codomain agree)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform: ``t.inv(t(x)) == x``."""
        return _InverseTransform(self)

    @property
    def sign(self):
        """The sign of the Jacobian determinant (+1 or -1, or a tensor), for bijections."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1):
        """This transform with ``cache_size`` (a copy when it differs).

        Args:
            cache_size (int): 0 or 1.

        Example:
            >>> from ferric.distributions.transforms import TanhTransform
            >>> TanhTransform().with_cache(1)._cache_size
            1
        """
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __call__(self, x):
        if self._cache_size and self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size and self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        if self._cache_size:
            self._cached = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at the pair ``x``, ``y = t(x)``.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import ExpTransform
            >>> x = ferric.tensor([1.0])
            >>> ExpTransform().log_abs_det_jacobian(x, x.exp())
            tensor([1.])
        """
        raise NotImplementedError

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``.

        Args:
            shape (tuple): input shape.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import ExpTransform
            >>> ExpTransform().forward_shape((2, 3))
            (2, 3)
        """
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``.

        Args:
            shape (tuple): output shape.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import ExpTransform
            >>> ExpTransform().inverse_shape((2, 3))
            (2, 3)
        """
        return shape

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __repr__(self):
        return self.__class__.__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform (what ``t.inv`` returns)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):  # type: ignore[override]
        """The codomain of the inverted transform."""
        return self._inv.codomain

    @property
    def codomain(self):  # type: ignore[override]
        """The domain of the inverted transform."""
        return self._inv.domain

    @property
    def bijective(self):  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ExpTransform(Transform):
    """``y = exp(x)``.

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import ExpTransform
        >>> ExpTransform()(ferric.tensor([0.0]))
        tensor([1.])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        """``x`` (the log-derivative of ``exp``).

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import ExpTransform
            >>> ExpTransform().log_abs_det_jacobian(ferric.tensor(2.0), None)
            tensor(2.)
        """
        return x


class AffineTransform(Transform):
    """``y = loc + scale * x``, elementwise, with ``event_dim`` rightmost dimensions
    forming one event (the log-det is summed over them).

    Args:
        loc (Tensor or float): shift.
        scale (Tensor or float): scale.
        event_dim (int): size of the event. Default: 0.
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import AffineTransform
        >>> AffineTransform(1.0, 2.0)(ferric.tensor([0.0, 1.0]))
        tensor([1., 3.])
    """

    bijective = True

    def __init__(self, loc, scale, event_dim: int = 0, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """Number of rightmost dimensions forming one event."""
        return self._event_dim

    @property
    def domain(self):  # type: ignore[override]
        """Reals, ``event_dim`` of them per event."""
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self):  # type: ignore[override]
        """Same as the domain."""
        return self.domain

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((_core.as_tensor(a) == _core.as_tensor(b)).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        """The sign of ``scale``."""
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """``log |scale|`` broadcast to ``x``, summed over the event dimensions.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import AffineTransform
            >>> AffineTransform(0.0, 2.0).log_abs_det_jacobian(ferric.zeros(2), None)
            tensor([0.6931, 0.6931])
        """
        shape = tuple(x.shape)
        if isinstance(self.scale, numbers.Real):
            result = _core.full_like(x, math.log(abs(self.scale)))
        else:
            result = _core.abs(self.scale).log()
        if self._event_dim:
            result = _sum_rightmost(result, self._event_dim)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """``shape`` broadcast with the shapes of ``loc`` and ``scale``.

        Args:
            shape (tuple): input shape.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import AffineTransform
            >>> AffineTransform(ferric.zeros(3), 1.0).forward_shape((2, 1))
            ferric.Size([2, 3])
        """
        return _functions.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                           tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        """``shape`` broadcast with the shapes of ``loc`` and ``scale``.

        Args:
            shape (tuple): output shape.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import AffineTransform
            >>> AffineTransform(0.0, ferric.ones(2)).inverse_shape((2,))
            ferric.Size([2])
        """
        return self.forward_shape(shape)


class _Elementwise(Transform):
    """A bijection applied elementwise, equal to every other instance of its class."""

    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, type(self))

    __hash__ = object.__hash__


class SigmoidTransform(_Elementwise):
    """``y = sigmoid(x)``, clamped into ``[tiny, 1 - eps]``.

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import SigmoidTransform
        >>> SigmoidTransform()(ferric.tensor([0.0]))
        tensor([0.5000])
    """

    domain = constraints.real
    codomain = constraints.unit_interval

    def _call(self, x):
        info = finfo(x.dtype)
        return _core.sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)

    def _inverse(self, y):
        info = finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        """``-softplus(-x) - softplus(x)``.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import SigmoidTransform
            >>> SigmoidTransform().log_abs_det_jacobian(ferric.tensor(0.0), None)
            tensor(-1.3863)
        """
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(_Elementwise):
    """``y = tanh(x)``; the inverse is ``atanh`` without clamping (use ``cache_size=1``
    to invert samples exactly).

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import TanhTransform
        >>> TanhTransform()(ferric.tensor([0.5]))
        tensor([0.4621])
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return _core.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        """``2 (log 2 - x - softplus(-2x))``, stable for large ``|x|``.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import TanhTransform
            >>> TanhTransform().log_abs_det_jacobian(ferric.tensor(0.0), None)
            tensor(0.)
        """
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class SoftplusTransform(_Elementwise):
    """``y = log(1 + exp(x))``.

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import SoftplusTransform
        >>> SoftplusTransform()(ferric.tensor([0.0]))
        tensor([0.6931])
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        """``-softplus(-x)``.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import SoftplusTransform
            >>> SoftplusTransform().log_abs_det_jacobian(ferric.tensor(0.0), None)
            tensor(-0.6931)
        """
        return -F.softplus(-x)


class AbsTransform(Transform):
    """``y = |x|`` (not bijective; the "inverse" returns ``y``).

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import AbsTransform
        >>> AbsTransform()(ferric.tensor([-2.0, 1.0]))
        tensor([2., 1.])
    """

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals.

    Args:
        exponent (Tensor or float): the power.
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import PowerTransform
        >>> PowerTransform(2.0)(ferric.tensor([3.0]))
        tensor([9.])
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast_one(exponent)

    def with_cache(self, cache_size: int = 1):
        """This transform with ``cache_size``.

        Args:
            cache_size (int): 0 or 1.

        Example:
            >>> from ferric.distributions.transforms import PowerTransform
            >>> PowerTransform(2.0).with_cache(1)._cache_size
            1
        """
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        """The sign of ``exponent``."""
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        """``log |exponent y / x|``.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import PowerTransform
            >>> x = ferric.tensor([2.0])
            >>> PowerTransform(2.0).log_abs_det_jacobian(x, x ** 2)
            tensor([1.3863])
        """
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        """``shape`` broadcast with the shape of ``exponent``.

        Args:
            shape (tuple): input shape.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import PowerTransform
            >>> PowerTransform(ferric.ones(3)).forward_shape((2, 1))
            ferric.Size([2, 3])
        """
        return _functions.broadcast_shapes(tuple(shape), tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        """``shape`` broadcast with the shape of ``exponent``.

        Args:
            shape (tuple): output shape.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import PowerTransform
            >>> PowerTransform(ferric.ones(3)).inverse_shape((3,))
            ferric.Size([3])
        """
        return self.forward_shape(shape)


def _broadcast_one(value):
    if isinstance(value, _core.Tensor):
        return (value,)
    return (_core.tensor(value, dtype=_functions.get_default_dtype()),)
