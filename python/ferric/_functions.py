"""Module-level functions that are compositions of core ops."""

from __future__ import annotations

from . import _core
from ._core import Tensor
from ._size import Size


def is_tensor(obj) -> bool:
    """True if ``obj`` is a ferric tensor (``torch.is_tensor``).

    Args:
        obj (object): the object to test.

    Example::

        >>> import ferric
        >>> ferric.is_tensor(ferric.zeros(2)), ferric.is_tensor([0.0, 0.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    """True if ``input`` has a floating-point dtype (float32 or float64).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import ferric
        >>> ferric.is_floating_point(ferric.tensor([1.5]))
        True
        >>> ferric.is_floating_point(ferric.tensor([1]))
        False
    """
    return input.is_floating_point()


def get_default_dtype():
    """The dtype of float tensors created from Python floats and of the float factories
    (``float32`` unless :func:`set_default_dtype` changed it).

    Example::

        >>> import ferric
        >>> ferric.get_default_dtype()
        ferric.float32
        >>> ferric.tensor([1.0]).dtype == ferric.get_default_dtype()
        True
    """
    return _core._get_default_dtype()


def set_default_dtype(d):
    """Sets the default floating-point dtype: the dtype of Python floats in ``tensor()``,
    of ``zeros``/``ones``/``rand``... without ``dtype=``, and of integer true division.

    Args:
        d (dtype): ``float16``, ``bfloat16``, ``float32`` or ``float64`` (other dtypes
            raise ``TypeError``, as in PyTorch).

    Example::

        >>> import ferric
        >>> ferric.set_default_dtype(ferric.float64)
        >>> ferric.tensor([1.5]).dtype
        ferric.float64
        >>> ferric.set_default_dtype(ferric.float32)
    """
    _core._set_default_dtype(d)


def broadcast_shapes(*shapes):
    """Shape of the result of broadcasting tensors of the given shapes.

    Args:
        *shapes (int or sequence of ints): the shapes to broadcast.

    Example::

        >>> import ferric
        >>> ferric.broadcast_shapes((2, 1), (1, 3), 3)
        ferric.Size([2, 3])
    """
    out: list[int] = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = max(len(out), len(shape))
        a = [1] * (n - len(out)) + out
        b = [1] * (n - len(shape)) + list(shape)
        res = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x == y or y == 1:
                res.append(x)
            elif x == 1:
                res.append(y)
            else:
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape. "
                    f"Mismatch is at dim {i}: {x} vs {y}"
                )
        out = res
    return Size(out)


def broadcast_tensors(*tensors):
    """Views of ``tensors`` broadcast to a common shape (no data is copied).

    Args:
        *tensors (Tensor): the tensors to broadcast.

    Example::

        >>> import ferric
        >>> col, row = ferric.tensor([[1], [2]]), ferric.tensor([10, 20, 30])
        >>> a, b = ferric.broadcast_tensors(col, row)
        >>> a
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> b.stride()
        (0, 1)
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t.shape for t in tensors))
    # as in PyTorch, a tensor that already has the shape comes back itself (no view, no
    # ExpandBackward0 node)
    return tuple(t if t.shape == shape else t.broadcast_to(shape) for t in tensors)


def isclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (``torch.isclose``).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.
        rtol (float): the relative tolerance. Default: 1e-05.
        atol (float): the absolute tolerance. Default: 1e-08.
        equal_nan (bool): count two NaNs as equal. Default: False.

    Example::

        >>> import ferric
        >>> nan = float("nan")
        >>> a = ferric.tensor([1.0, 2.0, nan])
        >>> ferric.isclose(a, ferric.tensor([1.0 + 1e-7, 2.1, nan]))
        tensor([ True, False, False])
        >>> ferric.isclose(a, ferric.tensor([1.0, 2.0, nan]), equal_nan=True)
        tensor([True, True, True])
    """
    if not isinstance(other, Tensor):
        other = _core.tensor(other, dtype=input.dtype)
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"isclose: {input.dtype} did not match {other.dtype}"
        )
    eq = input == other
    if not input.is_floating_point():
        # integers: the same tolerance formula, evaluated exactly in float64
        a, b = input.double(), other.double()
        return eq | ((a - b).abs() <= atol + rtol * b.abs())
    both_finite = input.isfinite() & other.isfinite()
    close = eq | (both_finite & ((input - other).abs() <= atol + rtol * other.abs()))
    if equal_nan:
        close = close | (input.isnan() & other.isnan())
    return close


def allclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """True if all elements are close (``torch.allclose``).

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.
        rtol (float): the relative tolerance. Default: 1e-05.
        atol (float): the absolute tolerance. Default: 1e-08.
        equal_nan (bool): count two NaNs as equal. Default: False.

    Example::

        >>> import ferric
        >>> ferric.allclose(ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 2.0 + 1e-6]))
        True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and elements.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> import ferric
        >>> ferric.equal(ferric.tensor([1, 2]), ferric.tensor([1, 2]))
        True
        >>> ferric.equal(ferric.tensor([1, 2]), ferric.tensor([[1, 2]]))
        False
    """
    for name, pos, value in (("input", 1, input), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise TypeError(f"equal(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(value).__name__}")
    if input.shape != other.shape:
        return False
    return bool((input == other).all())


def adaptive_max_pool1d(input: Tensor, output_size) -> tuple[Tensor, Tensor]:
    """``torch.adaptive_max_pool1d``: the pooled values *and* their indices (the top-level
    function always returns both; ``nn.functional.adaptive_max_pool1d`` returns the
    indices only with ``return_indices=True``).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the length of the output.

    Example::

        >>> import ferric
        >>> x = ferric.tensor([[[1.0, 5.0, 2.0, 0.0, 3.0, 4.0]]])
        >>> ferric.adaptive_max_pool1d(x, 2)
        (tensor([[[5., 4.]]]), tensor([[[1, 5]]]))
    """
    return _core.adaptive_max_pool1d(input, output_size, True)
