"""``Variable``: the pre-0.4 wrapper, which modern PyTorch keeps as an alias of Tensor.

``Variable(t)`` returns a plain ``Tensor`` sharing ``t``'s memory, and every tensor is an
instance of ``Variable``, as in PyTorch.
"""

from __future__ import annotations

import warnings

from .._core import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use "
                          "`with torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Variable data has to be a tensor, but got {type(data).__name__}")
        # a new leaf sharing data's memory (PyTorch's Variable(t) is t.detach() as well)
        return data.detach().requires_grad_(bool(requires_grad))


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: returns a Tensor (a leaf sharing
    ``tensor``'s memory); kept so old scripts run.

    Example:
        >>> import ferric
        >>> from ferric.autograd import Variable
        >>> v = Variable(ferric.ones(2), requires_grad=True)
        >>> type(v).__name__, v.requires_grad, isinstance(v, Variable)
        ('Tensor', True, True)
    """
