"""The 1-d and 2-d convolutions, pools and ``fold``/``unfold`` of
``ferric.nn.functional``, re-exported there; they forward to the Rust kernels with
PyTorch's signatures."""

from __future__ import annotations

from .. import _core
from .._core import Tensor


def _kernel(name):
    fn = getattr(_core, name, None)
    if fn is None:
        raise NotImplementedError(f"ferric._core.{name} is not available in this build")
    return fn


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""1-D convolution (cross-correlation) over an input of shape :math:`(N, C_{in}, L)` or
    :math:`(C_{in}, L)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{out}, C_{in} / \text{groups}, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): step of the window. Default: 1.
        padding (int, tuple or str): zeros added on both sides, or ``'valid'`` / ``'same'``.
            Default: 0.
        dilation (int or tuple): spacing of the kernel taps. Default: 1.
        groups (int): split of the channels into groups. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 1, 5)
        >>> F.conv1d(x, ferric.ones(2, 1, 3))
        tensor([[[3., 3., 3.],
                 [3., 3., 3.]]])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv1d")(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    r"""2-D convolution (cross-correlation) over an input of shape :math:`(N, C_{in}, H, W)` or
    :math:`(C_{in}, H, W)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{out}, C_{in} / \text{groups}, kH, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): step of the window. Default: 1.
        padding (int, tuple or str): zeros added on each side, or ``'valid'`` / ``'same'``. Default:
            0.
        dilation (int or tuple): spacing of the kernel taps. Default: 1.
        groups (int): split of the channels into groups. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.ones(1, 1, 4, 4)
        >>> F.conv2d(x, ferric.ones(1, 1, 3, 3), padding=1)
        tensor([[[[4., 6., 6., 4.],
                  [6., 9., 9., 6.],
                  [6., 9., 9., 6.],
                  [4., 6., 6., 4.]]]])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv2d")(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""1-D transposed convolution (the gradient of :func:`conv1d` with respect to its input) over
    :math:`(N, C_{in}, L)` or :math:`(C_{in}, L)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{in}, C_{out} / \text{groups}, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): Default: 1.
        padding (int or tuple): removed from both sides of the output. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): Default: 1.
        dilation (int or tuple): Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.conv_transpose1d(ferric.ones(1, 1, 3), ferric.ones(1, 1, 2), stride=2)
        tensor([[[1., 1., 1., 1., 1., 1.]]])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv_transpose1d")(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    r"""2-D transposed convolution (the gradient of :func:`conv2d` with respect to its input) over
    :math:`(N, C_{in}, H, W)` or :math:`(C_{in}, H, W)`.

    Args:
        input (Tensor): the input.
        weight (Tensor): :math:`(C_{in}, C_{out} / \text{groups}, kH, kW)`.
        bias (Tensor, optional): :math:`(C_{out})`. Default: ``None``.
        stride (int or tuple): Default: 1.
        padding (int or tuple): removed from each side of the output. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): Default: 1.
        dilation (int or tuple): Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.conv_transpose2d(ferric.ones(1, 1, 2, 2), ferric.ones(1, 1, 2, 2), stride=2).shape
        ferric.Size([1, 1, 4, 4])
    """
    input, weight, bias = _core._autocast_args("lower", input, weight, bias)
    return _kernel("conv_transpose2d")(input, weight, bias, stride, padding, output_padding,
                                       groups, dilation)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""1-D max pooling over :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        input (Tensor): the input.
        kernel_size (int): window size.
        stride (int, optional): window step; default ``kernel_size``.
        padding (int): implicit :math:`-\infty` padding on both sides. Default: 0.
        dilation (int): spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output size up. Default: ``False``.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.max_pool1d(ferric.tensor([[1.0, 3.0, 2.0, 5.0, 4.0]]), 2)
        tensor([[3., 5.]])
    """
    return _kernel("max_pool1d")(input, kernel_size, stride, padding, dilation, ceil_mode,
                                 return_indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """2-D max pooling that also returns the flat index (within each plane) of each maximum:
    :func:`max_pool2d` with ``return_indices=True``.

    Args:
        input (Tensor): the input.
        kernel_size, stride, padding, dilation, ceil_mode: as in :func:`max_pool2d`.
        return_indices (bool): accepted for PyTorch compatibility.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> out, idx = F.max_pool2d_with_indices(x, 2)
        >>> idx
        tensor([[[ 5,  7],
                 [13, 15]]])
    """
    return _kernel("max_pool2d_with_indices")(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    r"""2-D max pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window step; default ``kernel_size``.
        padding (int or tuple): implicit :math:`-\infty` padding. Default: 0.
        dilation (int or tuple): spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output size up. Default: ``False``.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.max_pool2d(x, 2)
        tensor([[[ 5.,  7.],
                 [13., 15.]]])
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)
    return _kernel("max_pool2d")(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling over :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        input (Tensor): the input.
        kernel_size (int): window size.
        stride (int, optional): window step; default ``kernel_size``.
        padding (int): zero padding on both sides. Default: 0.
        ceil_mode (bool): round the output size up. Default: ``False``.
        count_include_pad (bool): count padded zeros in the mean. Default: ``True``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.avg_pool1d(ferric.tensor([[1.0, 3.0, 2.0, 6.0]]), 2)
        tensor([[2., 4.]])
    """
    return _kernel("avg_pool1d")(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): window size.
        stride (int or tuple, optional): window step; default ``kernel_size``.
        padding (int or tuple): zero padding. Default: 0.
        ceil_mode (bool): round the output size up. Default: ``False``.
        count_include_pad (bool): count padded zeros in the mean. Default: ``True``.
        divisor_override (int, optional): divide by this instead of the window size.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.avg_pool2d(x, 2)
        tensor([[[ 2.5000,  4.5000],
                 [10.5000, 12.5000]]])
    """
    return _kernel("avg_pool2d")(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    """1-D average pooling to a fixed output length: the windows are chosen so the output has
    ``output_size`` elements.

    Args:
        input (Tensor): the input. :math:`(N, C, L)` or :math:`(C, L)`.
        output_size (int): the output length.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.adaptive_avg_pool1d(ferric.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]), 2)
        tensor([[2., 5.]])
    """
    return _kernel("adaptive_avg_pool1d")(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling to a fixed output size.

    Args:
        input (Tensor): the input. :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        output_size (int or tuple): the output :math:`(H, W)`; ``None`` keeps that dimension.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.adaptive_avg_pool2d(x, 1)
        tensor([[[7.5000]]])
    """
    return _kernel("adaptive_avg_pool2d")(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D max pooling to a fixed output length.

    Args:
        input (Tensor): the input. :math:`(N, C, L)` or :math:`(C, L)`.
        output_size (int): the output length.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.adaptive_max_pool1d(ferric.tensor([[1.0, 5.0, 3.0, 4.0]]), 2)
        tensor([[5., 4.]])
    """
    return _kernel("adaptive_max_pool1d")(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D max pooling to a fixed output size.

    Args:
        input (Tensor): the input. :math:`(N, C, H, W)` or :math:`(C, H, W)`.
        output_size (int or tuple): the output :math:`(H, W)`.
        return_indices (bool): also return the argmax positions. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(16.0).reshape(1, 4, 4)
        >>> F.adaptive_max_pool2d(x, (2, 1))
        tensor([[[ 7.],
                 [15.]]])
    """
    if isinstance(input, Tensor) and input.dtype in (_core.float16, _core.bfloat16):
        # the Rust kernel writes past its half-precision buffers: pool in float32 (the
        # maximum is exact) and cast back
        out = _kernel("adaptive_max_pool2d")(input.float(), output_size, return_indices)
        values, indices = out if return_indices else (out, None)
        values = _core._named_node(values.to(input.dtype), "AdaptiveMaxPool2DBackward0")
        return (values, indices) if return_indices else values
    return _kernel("adaptive_max_pool2d")(input, output_size, return_indices)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding blocks: ``(N, C, H, W)`` -> ``(N, C*prod(kernel), L)``.

    Args:
        input (Tensor): ``(N, C, H, W)``.
        kernel_size (int or tuple of ints): the size of the window.
        dilation (int or tuple of ints): the spacing between window elements. Default: 1.
        padding (int or tuple of ints): implicit padding on each side. Default: 0.
        stride (int or tuple of ints): the step of the window. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.arange(9.0).reshape(1, 1, 3, 3)
        >>> F.unfold(x, kernel_size=2)
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """
    return _kernel("unfold")(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums sliding blocks back: the adjoint of :func:`unfold`.

    Args:
        input (Tensor): ``(N, C * prod(kernel_size), L)`` columns.
        output_size (int or tuple of ints): the spatial size of the output.
        kernel_size (int or tuple of ints): the size of the window.
        dilation (int or tuple of ints): the spacing between window elements. Default: 1.
        padding (int or tuple of ints): implicit padding on each side. Default: 0.
        stride (int or tuple of ints): the step of the window. Default: 1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> cols = ferric.arange(4.0).reshape(1, 4, 1)
        >>> F.fold(cols, output_size=(2, 2), kernel_size=2)
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """
    return _kernel("fold")(input, output_size, kernel_size, dilation, padding, stride)
