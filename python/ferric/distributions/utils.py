"""Helpers shared by the distributions: broadcasting parameters, converting between
probabilities and logits, cached (lazy) properties, standard-normal draws."""

from __future__ import annotations

import functools
import numbers

from .. import _core, _functions, autograd
from .._dtype_info import finfo
from .._size import Size
from ..nn import functional as F

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, _core.Tensor)


def broadcast_all(*values):
    """Broadcasts tensors and numbers to one shape; numbers become tensors with the dtype
    of the first tensor (the default dtype when all are numbers).

    Args:
        *values (Tensor or Number): the values to broadcast.

    Example:
        >>> import ferric
        >>> from ferric.distributions.utils import broadcast_all
        >>> loc, scale = broadcast_all(ferric.zeros(2), 1.0)
        >>> scale
        tensor([1., 1.])
    """
    if not all(isinstance(v, _core.Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "ferric.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, _core.Tensor) for v in values):
        dtype = _functions.get_default_dtype()
        for v in values:
            if isinstance(v, _core.Tensor):
                dtype = v.dtype
                break
        values = tuple(v if isinstance(v, _core.Tensor) else _core.tensor(v, dtype=dtype)
                       for v in values)
    return _functions.broadcast_tensors(*values)


def _broadcast_params(*values):
    """``broadcast_all(*values)`` and the batch shape a distribution built on them has:
    ``Size()`` when every value is a number, else the broadcast shape."""
    tensors = broadcast_all(*values)
    batch_shape = Size() if all(_is_number(v) for v in values) else tensors[0].size()
    return tensors, batch_shape


def _standard_normal(shape, dtype, device=None):
    # PyTorch draws `empty(shape).normal_()`: the same stream as ferric's `normal_`
    return _core.empty(tuple(shape), dtype=dtype).normal_()


def _sum_rightmost(value, dim: int):
    """Sums the ``dim`` rightmost dimensions of ``value`` (a number passes through)."""
    if dim == 0 or not isinstance(value, _core.Tensor):
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    """Converts logits to probabilities: a sigmoid of the log-odds when ``is_binary``,
    else a softmax over the last dimension.

    Args:
        logits (Tensor): log-odds (binary) or unnormalised log-probabilities.
        is_binary (bool): whether each value is the log-odds of one event.

    Example:
        >>> import ferric
        >>> from ferric.distributions.utils import logits_to_probs
        >>> logits_to_probs(ferric.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """
    if is_binary:
        return _core.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamps probabilities into ``[eps, 1 - eps]``, ``eps`` the dtype's machine epsilon.

    Args:
        probs (Tensor): probabilities.

    Example:
        >>> import ferric
        >>> from ferric.distributions.utils import clamp_probs
        >>> clamp_probs(ferric.tensor([0.0, 0.5, 1.0]))
        tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])
    """
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """Converts probabilities to logits: log-odds when ``is_binary``, else the log of the
    (clamped) probabilities.

    Args:
        probs (Tensor): probabilities.
        is_binary (bool): whether each value is the probability of one event.

    Example:
        >>> import ferric
        >>> from ferric.distributions.utils import probs_to_logits
        >>> probs_to_logits(ferric.tensor([0.5]), is_binary=True)
        tensor([0.])
    """
    clamped = clamp_probs(probs)
    if is_binary:
        return _core.log(clamped) - _core.log1p(-clamped)
    return _core.log(clamped)


class lazy_property:
    """A property computed on first access (with gradient recording on) and then stored
    on the instance, so later accesses are plain attribute reads.

    Args:
        wrapped (callable): the method computing the value.

    Example:
        >>> import ferric
        >>> from ferric.distributions.utils import lazy_property
        >>> class A:
        ...     @lazy_property
        ...     def x(self):
        ...         return 3
        >>> A().x
        3
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            # read from the class (help(), the API reference, the constructor's checks):
            # both a lazy_property and a property, so tools document it as a property
            return _LazyPropertyAndProperty(self.wrapped)
        with autograd.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value



class _LazyPropertyAndProperty(lazy_property, property):
    """What a ``lazy_property`` is when read from its class: also a ``property``."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped, doc=wrapped.__doc__)
        lazy_property.__init__(self, wrapped)
