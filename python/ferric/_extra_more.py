"""More of PyTorch's top-level names: the 3-D conv/pool and ``rms_norm`` spellings,
``constant_pad_nd``; the complex-number queries on real tensors (``isreal``, ``real``,
``imag``; the conjugation family is in ``_extra_ops``); ``unsafe_chunk``/
``unsafe_split``; the ``*_copy`` forms of the view ops (a fresh tensor instead of a
view); ``select_scatter``, ``slice_scatter``, ``diagonal_scatter``; ``is_inference``,
``get_device`` and ``is_storage``."""

from __future__ import annotations

from . import _core
from ._extra_nn import _doc
from ._extra_shape import _need_tensor, split_with_sizes
from .nn import functional as F


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (``F.conv3d``).

    Args:
        input (Tensor): ``(N, C_in, D, H, W)``.
        weight (Tensor): ``(C_out, C_in / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple, optional): the step.
        padding (int, tuple or str, optional): zero padding.
        dilation (int or tuple, optional): spacing of kernel elements.
        groups (int, optional): blocked connections.

    Example::

        >>> import ferric
        >>> ferric.conv3d(ferric.ones(1, 1, 2, 2, 2), ferric.ones(1, 1, 2, 2, 2)).shape
        ferric.Size([1, 1, 1, 1, 1])
    """
    return F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """3-D transposed convolution (``F.conv_transpose3d``).

    Args:
        input (Tensor): ``(N, C_in, D, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple, optional): the step.
        padding (int or tuple, optional): implicit padding removed from the output.
        output_padding (int or tuple, optional): extra size on one side of the output.
        groups (int, optional): blocked connections.
        dilation (int or tuple, optional): spacing of kernel elements.

    Example::

        >>> import ferric
        >>> ferric.conv_transpose3d(ferric.ones(1, 1, 1, 1, 1), ferric.ones(1, 1, 2, 2, 2)).shape
        ferric.Size([1, 1, 2, 2, 2])
    """
    return F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling (PyTorch's top-level form: an empty ``stride`` means the window).

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple): the window.
        stride (int or tuple, optional): the step (default: the window).
        padding (int or tuple, optional): implicit negative-infinity padding.
        dilation (int or tuple, optional): spacing of window elements.
        ceil_mode (bool, optional): round output sizes up.

    Example::

        >>> import ferric
        >>> ferric.max_pool3d(ferric.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten()
        tensor([7.])
    """
    if isinstance(stride, (list, tuple)) and len(stride) == 0:
        stride = None
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """RMS normalization over the trailing ``normalized_shape`` dimensions
    (``F.rms_norm``).

    Args:
        input (Tensor): the input.
        normalized_shape (list of ints): the trailing shape to normalize over.
        weight (Tensor, optional): elementwise scale.
        eps (float, optional): added to the mean square (default: the dtype's eps).

    Example::

        >>> import ferric
        >>> ferric.rms_norm(ferric.tensor([[3.0, 4.0]]), [2])
        tensor([[0.8485, 1.1314]])
    """
    return F.rms_norm(input, normalized_shape, weight, eps)


def constant_pad_nd(input, pad, value=0):
    """Pads ``input`` with ``value`` (``F.pad(input, pad, "constant", value)``; negative
    amounts crop).

    Args:
        input (Tensor): the input.
        pad (list of ints): (left, right) amounts, last dimension first.
        value (float, optional): the fill value.

    Example::

        >>> import ferric
        >>> ferric.constant_pad_nd(ferric.tensor([1.0, 2.0]), [1, 2])
        tensor([0., 1., 2., 0., 0.])
    """
    return F.pad(input, list(pad), "constant", value)


def _identity(name, what):
    def fn(input):
        _need_tensor(name, "input", input)
        return input

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(f"{name}(input) -> Tensor",
                      f"{what} ferric has no complex dtypes, so this returns ``input``.",
                      ["input (Tensor): the input."],
                      [f">>> ferric.{name}(ferric.tensor([1.0, -2.0]))",
                       "tensor([ 1., -2.])"])
    return fn


real = _identity("real", "The real part.")


def isreal(input):
    """A bool tensor: whether each element is real (all ``True`` for ferric's real dtypes).

    Args:
        input (Tensor): the input.

    Example::

        >>> import ferric
        >>> ferric.isreal(ferric.tensor([1.0, 2.0]))
        tensor([True, True])
    """
    _need_tensor("isreal", "input", input)
    return _core.ones(tuple(input.shape), dtype=_core.bool)


def imag(input):
    """The imaginary part: raises ``RuntimeError`` for real tensors, as PyTorch.

    Args:
        input (Tensor): the input.

    Example::

        >>> import ferric
        >>> try:
        ...     ferric.imag(ferric.tensor([1.0]))
        ... except RuntimeError as e:
        ...     print(e)
        imag is not implemented for tensors with non-complex dtypes.
    """
    _need_tensor("imag", "input", input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def is_inference(input):
    """Whether ``input`` was created in inference mode (``input.is_inference()``).

    Args:
        input (Tensor): the input.

    Example::

        >>> import ferric
        >>> ferric.is_inference(ferric.zeros(1))
        False
    """
    _need_tensor("is_inference", "input", input)
    return input.is_inference()


def get_device(input):
    """The device index of ``input``: -1 for CPU tensors (``input.get_device()``).

    Args:
        input (Tensor): the input.

    Example::

        >>> import ferric
        >>> ferric.get_device(ferric.zeros(1))
        -1
    """
    _need_tensor("get_device", "input", input)
    return input.get_device()


def is_storage(obj):
    """Whether ``obj`` is a storage object (ferric exposes no storage classes: ``False``).

    Args:
        obj (object): any object.

    Example::

        >>> import ferric
        >>> ferric.is_storage(ferric.zeros(1))
        False
    """
    return False


def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` (PyTorch's variant skips view checks; ferric's views are the same).

    Args:
        input (Tensor): the tensor to split.
        chunks (int): number of chunks.
        dim (int, optional): the dimension.

    Example::

        >>> import ferric
        >>> ferric.unsafe_chunk(ferric.arange(4), 2)
        (tensor([0, 1]), tensor([2, 3]))
    """
    return tuple(input.chunk(chunks, dim))


def unsafe_split(input, split_size, dim=0):
    """``split`` (PyTorch's variant skips view checks; ferric's views are the same).

    Args:
        input (Tensor): the tensor to split.
        split_size (int): size of each piece (the last may be smaller).
        dim (int, optional): the dimension.

    Example::

        >>> import ferric
        >>> ferric.unsafe_split(ferric.arange(3), 2)
        (tensor([0, 1]), tensor([2]))
    """
    return tuple(input.split(split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """:func:`split_with_sizes` (PyTorch's variant skips view checks).

    Args:
        input (Tensor): the tensor to split.
        split_sizes (list of ints): the size of each piece.
        dim (int, optional): the dimension.

    Example::

        >>> import ferric
        >>> ferric.unsafe_split_with_sizes(ferric.arange(3), [1, 2])
        (tensor([0]), tensor([1, 2]))
    """
    return split_with_sizes(input, split_sizes, dim)


def _copy_form(name, view, sig, example):
    def fn(input, *args, **kwargs):
        _need_tensor(name, "input", input)
        out = view(input, *args, **kwargs)
        if isinstance(out, (tuple, list)):
            return tuple(o.clone(memory_format=_core.contiguous_format) for o in out)
        return out.clone(memory_format=_core.contiguous_format)

    fn.__name__ = fn.__qualname__ = name
    base = name.removesuffix("_copy")
    fn.__doc__ = _doc(f"{name}{sig}",
                      f"``{base}`` as a new contiguous tensor instead of a view of ``input``.",
                      ["input (Tensor): the input.",
                       f"\\*args, \\*\\*kwargs: the other arguments of ``{base}``."],
                      example)
    return fn


alias_copy = _copy_form("alias_copy", lambda t: t, "(input) -> Tensor",
                        [">>> ferric.alias_copy(ferric.tensor([1.0]))", "tensor([1.])"])
diagonal_copy = _copy_form("diagonal_copy", lambda t, *a, **k: t.diagonal(*a, **k),
                           "(input, offset=0, dim1=0, dim2=1) -> Tensor",
                           [">>> ferric.diagonal_copy(ferric.eye(2))", "tensor([1., 1.])"])
expand_copy = _copy_form("expand_copy", lambda t, size, implicit=False: t.expand(*size),
                         "(input, size, *, implicit=False) -> Tensor",
                         [">>> ferric.expand_copy(ferric.tensor([1.0]), [2])",
                          "tensor([1., 1.])"])
permute_copy = _copy_form("permute_copy", lambda t, dims: t.permute(*dims),
                          "(input, dims) -> Tensor",
                          [">>> ferric.permute_copy(ferric.zeros(2, 3), [1, 0]).shape",
                           "ferric.Size([3, 2])"])
select_copy = _copy_form("select_copy", lambda t, dim, index: t.select(dim, index),
                         "(input, dim, index) -> Tensor",
                         [">>> ferric.select_copy(ferric.eye(2), 0, 1)", "tensor([0., 1.])"])
slice_copy = _copy_form(
    "slice_copy", lambda t, dim=0, start=None, end=None, step=1:
    t[(slice(None),) * (dim % max(t.dim(), 1)) + (slice(start, end, step),)],
    "(input, dim=0, start=None, end=None, step=1) -> Tensor",
    [">>> ferric.slice_copy(ferric.arange(5), 0, 1, 4, 2)", "tensor([1, 3])"])
split_copy = _copy_form("split_copy", lambda t, size, dim=0: t.split(size, dim),
                        "(input, split_size, dim=0) -> List[Tensor]",
                        [">>> ferric.split_copy(ferric.arange(3), 2)",
                         "(tensor([0, 1]), tensor([2]))"])
split_with_sizes_copy = _copy_form(
    "split_with_sizes_copy", lambda t, sizes, dim=0: split_with_sizes(t, sizes, dim),
    "(input, split_sizes, dim=0) -> List[Tensor]",
    [">>> ferric.split_with_sizes_copy(ferric.arange(3), [1, 2])",
     "(tensor([0]), tensor([1, 2]))"])
squeeze_copy = _copy_form("squeeze_copy", lambda t, *a: t.squeeze(*a),
                          "(input, dim=None) -> Tensor",
                          [">>> ferric.squeeze_copy(ferric.zeros(1, 2)).shape",
                           "ferric.Size([2])"])
t_copy = _copy_form("t_copy", lambda t: t.t(), "(input) -> Tensor",
                    [">>> ferric.t_copy(ferric.zeros(2, 3)).shape", "ferric.Size([3, 2])"])
transpose_copy = _copy_form("transpose_copy", lambda t, d0, d1: t.transpose(d0, d1),
                            "(input, dim0, dim1) -> Tensor",
                            [">>> ferric.transpose_copy(ferric.zeros(2, 3), 0, 1).shape",
                             "ferric.Size([3, 2])"])
unbind_copy = _copy_form("unbind_copy", lambda t, dim=0: t.unbind(dim),
                         "(input, dim=0) -> List[Tensor]",
                         [">>> ferric.unbind_copy(ferric.eye(2))",
                          "(tensor([1., 0.]), tensor([0., 1.]))"])
unsqueeze_copy = _copy_form("unsqueeze_copy", lambda t, dim: t.unsqueeze(dim),
                            "(input, dim) -> Tensor",
                            [">>> ferric.unsqueeze_copy(ferric.zeros(2), 0).shape",
                             "ferric.Size([1, 2])"])
view_copy = _copy_form("view_copy", lambda t, *size: t.view(*size), "(input, size) -> Tensor",
                       [">>> ferric.view_copy(ferric.arange(4), [2, 2]).shape",
                        "ferric.Size([2, 2])"])


def _scatter(op, input, src, region):
    _need_tensor(op, "input", input)
    view_shape = tuple(region(input).shape)
    if tuple(src.shape) != view_shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(view_shape)}")
    out = input.clone()
    region(out).copy_(src)
    return out


def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``.

    Args:
        input (Tensor): the input.
        src (Tensor): the values, shaped like the selected slice.
        dim (int): the dimension.
        index (int): the index along ``dim``.

    Example::

        >>> import ferric
        >>> ferric.select_scatter(ferric.zeros(2, 2), ferric.ones(2), 0, 1)
        tensor([[0., 0.],
                [1., 1.]])
    """
    return _scatter("select_scatter", input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with the slice ``start:end:step`` of ``dim`` replaced by
    ``src``.

    Args:
        input (Tensor): the input.
        src (Tensor): the values, shaped like the slice.
        dim (int, optional): the dimension.
        start (int, optional): first index.
        end (int, optional): stop index.
        step (int, optional): the step.

    Example::

        >>> import ferric
        >>> ferric.slice_scatter(ferric.zeros(4), ferric.ones(2), start=0, step=2)
        tensor([1., 0., 1., 0.])
    """
    def region(t):
        d = dim % max(t.dim(), 1)
        return t[(slice(None),) * d + (slice(start, end, step),)]
    return _scatter("slice_scatter", input, src, region)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with the diagonal ``(offset, dim1, dim2)`` replaced by ``src``.

    Args:
        input (Tensor): the input (at least 2-D).
        src (Tensor): the values, shaped like the diagonal.
        offset (int, optional): the diagonal.
        dim1 (int, optional): first dimension of the diagonal.
        dim2 (int, optional): second dimension of the diagonal.

    Example::

        >>> import ferric
        >>> ferric.diagonal_scatter(ferric.zeros(2, 2), ferric.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _scatter("diagonal_scatter", input, src,
                    lambda t: t.diagonal(offset, dim1, dim2))
