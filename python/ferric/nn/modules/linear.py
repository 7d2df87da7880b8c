"""``Identity``, ``Linear``, ``Bilinear``."""

from __future__ import annotations

import math

from ... import _core
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Bilinear", "Identity", "Linear", "NonDynamicallyQuantizableLinear"]


def _empty(*shape, dtype=None):
    return _core.empty(*shape, dtype=dtype) if dtype is not None else _core.empty(*shape)


def _register_bias(module, bias, out_features, dtype):
    """``module.bias``: an (uninitialised) ``(out_features,)`` parameter when ``bias`` is
    true, else registered as None."""
    if bias:
        module.bias = Parameter(_empty(out_features, dtype=dtype))
    else:
        module.register_parameter("bias", None)


class Identity(Module):
    r"""Returns its input unchanged (arguments are accepted and ignored).

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.ones(2)
        >>> nn.Identity(54, unused="argument")(x) is x
        True
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    r"""Applies :math:`y = xA^T + b`.

    ``weight`` is ``(out_features, in_features)``; both it and ``bias`` start as
    U(-1/sqrt(in_features), 1/sqrt(in_features)) (drawn in PyTorch's order).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.Linear(20, 30)
        >>> m(ferric.randn(128, 20)).shape
        ferric.Size([128, 30])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in_features, dtype=dtype))
        _register_bias(self, bias, out_features, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        r"""Re-initialises the parameters as PyTorch does: ``weight`` Kaiming-uniform (:math:`a =
        \sqrt 5`), ``bias`` uniform in :math:`\pm 1/\sqrt{\text{in\_features}}`.
        """
        # kaiming_uniform_(a=sqrt(5)) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` (the name PyTorch gives ``MultiheadAttention.out_proj``)."""


class Bilinear(Module):
    r"""Applies :math:`y = x_1^T A x_2 + b`; ``weight`` is ``(out, in1, in2)``."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty(out_features, in1_features, in2_features, dtype=dtype))
        _register_bias(self, bias, out_features, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        r"""Re-initialises the parameters as PyTorch does: ``weight`` and ``bias`` uniform in
        :math:`\pm 1/\sqrt{\text{in1\_features}}`.
        """
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    r"""A :class:`Linear` whose ``in_features`` is taken from the first input's last
    dimension; it then becomes a ``Linear``.

    Args:
        out_features (int): the size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.LazyLinear(4)
        >>> m(ferric.ones(3, 7)).shape, m.weight.shape
        (ferric.Size([3, 4]), ferric.Size([4, 7]))
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # bias=False: no tensor that would be thrown away at once
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


__all__ += ["LazyLinear"]
