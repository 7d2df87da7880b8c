"""``parameters_to_vector`` / ``vector_to_parameters``."""

from __future__ import annotations

from ... import _core
from ..._core import Tensor
from ..modules.module import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """Flattens and concatenates ``parameters`` into one (differentiable) vector.

    Example::

        >>> from ferric import nn
        >>> from ferric.nn.utils import parameters_to_vector
        >>> parameters_to_vector(nn.Linear(3, 2).parameters()).shape
        ferric.Size([8])
    """
    return _core.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies slices of ``vec`` into ``parameters`` (by rebinding their ``.data``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
