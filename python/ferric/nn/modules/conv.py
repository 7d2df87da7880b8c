"""Convolution modules: ``Conv1d``, ``Conv2d``, ``ConvTranspose1d``, ``ConvTranspose2d``
(the kernels are ``ferric._core.conv*``)."""

from __future__ import annotations

import math

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]


def _ntuple(n):
    def parse(x):
        if isinstance(x, list | tuple):
            return tuple(x)
        return (x,) * n

    return parse


_single = _ntuple(1)
_pair = _ntuple(2)


def _reverse_repeat(t, n):
    return [x for x in reversed(t) for _ in range(n)]


class _ConvNd(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_strings}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_modes}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad order (last dim first) for the non-zero padding modes
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                n = len(kernel_size)
                for i, (d, k) in enumerate(zip(dilation, kernel_size, strict=True)):
                    total = d * (k - 1)
                    left = total // 2
                    j = n - 1 - i
                    self._reversed_padding_repeated_twice[2 * j] = left
                    self._reversed_padding_repeated_twice[2 * j + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat(padding, 2)
        dt = {} if dtype is None else {"dtype": dtype}
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(_core.empty(*shape, **dt))
        if bias:
            self.bias = Parameter(_core.empty(out_channels, **dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _ConvForward(_ConvNd):
    _ndim = 2
    _fn = staticmethod(F.conv2d)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            zero = (0,) * self._ndim
            return type(self)._fn(x, weight, bias, self.stride, zero, self.dilation,
                                  self.groups)
        return type(self)._fn(input, weight, bias, self.stride, self.padding, self.dilation,
                              self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvForward):
    r"""1-D convolution over ``(N, C_in, L)`` (or ``(C_in, L)``) inputs."""

    _ndim = 1
    _fn = staticmethod(F.conv1d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(
            in_channels, out_channels, _single(kernel_size), _single(stride),
            padding if isinstance(padding, str) else _single(padding), _single(dilation),
            False, _single(0), groups, bias, padding_mode, device, dtype)


class Conv2d(_ConvForward):
    r"""2-D convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``) inputs.

    Example:
        >>> from ferric import nn
        >>> nn.Conv2d(16, 33, 3, stride=2)
        Conv2d(16, 33, kernel_size=(3, 3), stride=(2, 2))
    """

    _ndim = 2
    _fn = staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(
            in_channels, out_channels, _pair(kernel_size), _pair(stride),
            padding if isinstance(padding, str) else _pair(padding), _pair(dilation),
            False, _pair(0), groups, bias, padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    _ndim = 2

    def _check_mode(self, padding_mode):
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )

    def _output_padding(self, input, output_size, stride, padding, kernel_size, nsd,
                        dilation=None):
        if output_size is None:
            return tuple(self.output_padding)
        output_size = list(output_size)
        has_batch = input.dim() == nsd + 2
        non_spatial = 2 if has_batch else 1
        if len(output_size) == non_spatial + nsd:
            output_size = output_size[non_spatial:]
        if len(output_size) != nsd:
            raise ValueError(
                f"ConvTranspose{nsd}D: for {input.dim()}D input, output_size must have {nsd} "
                f"or {non_spatial + nsd} elements (got {len(output_size)})"
            )
        mins, maxs = [], []
        for d in range(nsd):
            size = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            mins.append(size)
            maxs.append(size + stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < mins[i] or size > maxs[i]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{mins} to {maxs} (for an input of {input.size()[2:]})"
                )
        return tuple(output_size[d] - mins[d] for d in range(nsd))

    def forward(self, input, output_size=None):
        out_pad = self._output_padding(input, output_size, self.stride, self.padding,
                                       self.kernel_size, self._ndim, self.dilation)
        fn = F.conv_transpose1d if self._ndim == 1 else F.conv_transpose2d
        return fn(input, self.weight, self.bias, self.stride, self.padding, out_pad,
                  self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    r"""1-D transposed convolution (the gradient of ``Conv1d`` w.r.t. its input)."""

    _ndim = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        self._check_mode(padding_mode)
        super().__init__(
            in_channels, out_channels, _single(kernel_size), _single(stride),
            _single(padding), _single(dilation), True, _single(output_padding), groups,
            bias, padding_mode, device, dtype)


class ConvTranspose2d(_ConvTransposeNd):
    r"""2-D transposed convolution (the gradient of ``Conv2d`` w.r.t. its input).

    Example:
        >>> from ferric import nn
        >>> nn.ConvTranspose2d(16, 33, 3, stride=2)
        ConvTranspose2d(16, 33, kernel_size=(3, 3), stride=(2, 2))
    """

    _ndim = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        self._check_mode(padding_mode)
        super().__init__(
            in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding),
            _pair(dilation), True, _pair(output_padding), groups, bias, padding_mode, device,
            dtype)


class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups,
                         *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups,
                         *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        no_batch = self._ndim + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _lazy_init(self, out_channels, bias, dtype):
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)


class _LazyConvNd(_LazyConvXdMixin):
    """The constructor of ``LazyConv1d/2d/3d``: ``Conv<N>d``'s without ``in_channels``."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, dtype=dtype)
        self._lazy_init(out_channels, bias, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    """The constructor of ``LazyConvTranspose1d/2d/3d``: ``ConvTranspose<N>d``'s without
    ``in_channels``."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, dtype=dtype)
        self._lazy_init(out_channels, bias, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    r"""A :class:`Conv1d` whose ``in_channels`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.LazyConv1d(4, 3)
        >>> m(ferric.ones(2, 5, 10)).shape, type(m).__name__
        (ferric.Size([2, 4, 8]), 'Conv1d')
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    r"""A :class:`Conv2d` whose ``in_channels`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.LazyConv2d(4, 3, padding=1)
        >>> m(ferric.ones(2, 3, 5, 5)).shape, m.weight.shape
        (ferric.Size([2, 4, 5, 5]), ferric.Size([4, 3, 3, 3]))
    """

    cls_to_become = Conv2d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    r"""A :class:`ConvTranspose1d` whose ``in_channels`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LazyConvTranspose1d(2, 3)(ferric.ones(1, 4, 5)).shape
        ferric.Size([1, 2, 7])
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    r"""A :class:`ConvTranspose2d` whose ``in_channels`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LazyConvTranspose2d(2, 3)(ferric.ones(1, 4, 5, 5)).shape
        ferric.Size([1, 2, 7, 7])
    """

    cls_to_become = ConvTranspose2d


__all__ += ["LazyConv1d", "LazyConv2d", "LazyConvTranspose1d", "LazyConvTranspose2d"]


def _triple(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v, v)


class Conv3d(_ConvForward):
    r"""3-D convolution over ``(N, C_in, D, H, W)`` (or unbatched) inputs, composed of
    ``kD`` batched 2-D convolutions (see ``F.conv3d``).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.Conv3d(2, 4, 3, padding=1)
        >>> m(ferric.randn(1, 2, 4, 5, 5)).shape
        ferric.Size([1, 4, 4, 5, 5])
        >>> m
        Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    """

    _ndim = 3
    _fn = staticmethod(F.conv3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(
            in_channels, out_channels, _triple(kernel_size), _triple(stride),
            padding if isinstance(padding, str) else _triple(padding), _triple(dilation),
            False, _triple(0), groups, bias, padding_mode, device, dtype)


class ConvTranspose3d(_ConvTransposeNd):
    r"""3-D transposed convolution (the gradient of ``Conv3d`` w.r.t. its input), composed
    of ``kD`` batched 2-D transposed convolutions (see ``F.conv_transpose3d``).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ConvTranspose3d(2, 3, 2, stride=2)(ferric.randn(1, 2, 2, 3, 3)).shape
        ferric.Size([1, 3, 4, 6, 6])
    """

    _ndim = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        self._check_mode(padding_mode)
        super().__init__(
            in_channels, out_channels, _triple(kernel_size), _triple(stride),
            _triple(padding), _triple(dilation), True, _triple(output_padding), groups, bias,
            padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        out_pad = self._output_padding(input, output_size, self.stride, self.padding,
                                       self.kernel_size, 3, self.dilation)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  out_pad, self.groups, self.dilation)


__all__ += ["Conv3d", "ConvTranspose3d"]


class LazyConv3d(_LazyConvNd, Conv3d):
    r"""A :class:`Conv3d` whose ``in_channels`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LazyConv3d(4, 2)(ferric.ones(1, 3, 3, 3, 3)).shape
        ferric.Size([1, 4, 2, 2, 2])
    """

    cls_to_become = Conv3d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    r"""A :class:`ConvTranspose3d` whose ``in_channels`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LazyConvTranspose3d(2, 2)(ferric.ones(1, 3, 2, 2, 2)).shape
        ferric.Size([1, 2, 3, 3, 3])
    """

    cls_to_become = ConvTranspose3d


__all__ += ["LazyConv3d", "LazyConvTranspose3d"]
