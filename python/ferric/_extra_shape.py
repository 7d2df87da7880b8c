"""Shape and array helpers composed of core ops: ``atleast_Nd``, ``hsplit``/``vsplit``/
``dsplit``, ``split_with_sizes``, ``unravel_index``, ``diagflat``, ``vander``, the
trapezoid rules, ``cov``/``corrcoef``, ``isin``, ``rsub``, ``dist``, ``positive``,
``adjoint`` and ``fill``. Everything differentiable records through the ops it uses."""

from __future__ import annotations

from . import _core
from ._core import Tensor


def _need_tensor(op, name, t, pos=1):
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(t).__name__}")


def _atleast(op, nd, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
        single = False
    else:
        single = len(tensors) == 1
    out = []
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}() received an invalid combination of arguments - got "
                            f"({type(t).__name__}), but expected one of:\n * (Tensor input)\n"
                            " * (tuple of Tensors tensors)")
        if nd == 3 and t.dim() == 2:
            t = t.unsqueeze(-1)
        elif nd == 3 and t.dim() == 1:
            t = t.unsqueeze(0).unsqueeze(-1)
        else:
            while t.dim() < nd:
                t = t.unsqueeze(0)
        out.append(t)
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    """Returns a view of each input with at least one dimension (0-d becomes shape ``(1,)``).

    Args:
        *tensors (Tensor or list of Tensors): the inputs.

    Example::

        >>> import ferric
        >>> ferric.atleast_1d(ferric.tensor(1.5))
        tensor([1.5000])
    """
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors):
    """Returns a view of each input with at least two dimensions (a 1-d input of length
    ``n`` becomes ``(1, n)``).

    Args:
        *tensors (Tensor or list of Tensors): the inputs.

    Example::

        >>> import ferric
        >>> ferric.atleast_2d(ferric.tensor([1.0, 2.0])).shape
        ferric.Size([1, 2])
    """
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors):
    """Returns a view of each input with at least three dimensions (``(n,)`` becomes
    ``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``, as NumPy).

    Args:
        *tensors (Tensor or list of Tensors): the inputs.

    Example::

        >>> import ferric
        >>> ferric.atleast_3d(ferric.zeros(2, 3)).shape
        ferric.Size([2, 3, 1])
    """
    return _atleast("atleast_3d", 3, tensors)


def _split_dir(op, input, indices_or_sections, dim, need):
    _need_tensor(op, "input", input)
    if input.dim() < need:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {need} dimension, but "
                           f"got a tensor with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        n = input.shape[dim]
        if indices_or_sections == 0 or n % indices_or_sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {n} is not divisible by the split_size "
                               f"{indices_or_sections}!")
    return input.tensor_split(indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """Splits ``input`` horizontally: along dim 1 (dim 0 for a 1-d input), into equal
    sections (an int that must divide the size) or at the given indices.

    Args:
        input (Tensor): a tensor with at least one dimension.
        indices_or_sections (int or list of ints): section count or split indices.

    Example::

        >>> import ferric
        >>> [t.shape for t in ferric.hsplit(ferric.zeros(2, 4), 2)]
        [ferric.Size([2, 2]), ferric.Size([2, 2])]
    """
    dim = 1 if isinstance(input, Tensor) and input.dim() > 1 else 0
    return _split_dir("hsplit", input, indices_or_sections, dim, 1)


def vsplit(input, indices_or_sections):
    """Splits ``input`` vertically (along dim 0); ``input`` needs two dimensions or more.

    Args:
        input (Tensor): a tensor with at least two dimensions.
        indices_or_sections (int or list of ints): section count or split indices.

    Example::

        >>> import ferric
        >>> [t.shape for t in ferric.vsplit(ferric.zeros(4, 2), [1])]
        [ferric.Size([1, 2]), ferric.Size([3, 2])]
    """
    return _split_dir("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """Splits ``input`` depthwise (along dim 2); ``input`` needs three dimensions or more.

    Args:
        input (Tensor): a tensor with at least three dimensions.
        indices_or_sections (int or list of ints): section count or split indices.

    Example::

        >>> import ferric
        >>> len(ferric.dsplit(ferric.zeros(1, 2, 6), 3))
        3
    """
    return _split_dir("dsplit", input, indices_or_sections, 2, 3)


def split_with_sizes(input, split_sizes, dim=0):
    """Splits ``input`` along ``dim`` into pieces of the given sizes, which must sum to the
    size of ``dim``.

    Args:
        input (Tensor): the tensor to split.
        split_sizes (list of ints): the size of each piece.
        dim (int, optional): the dimension to split.

    Example::

        >>> import ferric
        >>> ferric.split_with_sizes(ferric.arange(5), [2, 3])
        (tensor([0, 1]), tensor([2, 3, 4]))
    """
    _need_tensor("split_with_sizes", "self", input)
    sizes = [int(s) for s in split_sizes]
    n = input.shape[dim] if input.dim() else 1
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
    return tuple(input.split(sizes, dim))


def unravel_index(indices, shape):
    """Converts flat indices into a tuple of coordinate tensors for an array of ``shape``
    (C order), like ``numpy.unravel_index``; negative indices count from the end.

    Args:
        indices (Tensor): an integer tensor of flat indices.
        shape (int or sequence of ints): the shape indexed into.

    Example::

        >>> import ferric
        >>> ferric.unravel_index(ferric.tensor([5, 1]), (2, 3))
        (tensor([1, 0]), tensor([2, 1]))
    """
    if not isinstance(indices, Tensor):
        raise TypeError("expected 'indices' to be a tensor, but got "
                        f"{type(indices).__name__}")
    if indices.is_floating_point() or indices.dtype == _core.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    # like PyTorch, indices outside [-numel, numel) wrap (floor division and remainder)
    idx = indices.to(_core.int64)
    out = []
    for s in reversed(shape):
        out.append(idx.remainder(s) if s else idx * 0)
        idx = idx.div(s, rounding_mode="floor") if s else idx
    return tuple(reversed(out))


def diagflat(input, offset=0):
    """A 2-D tensor with the flattened ``input`` on diagonal ``offset``.

    Args:
        input (Tensor): the values (any shape; flattened).
        offset (int, optional): the diagonal (0 main, >0 above, <0 below).

    Example::

        >>> import ferric
        >>> ferric.diagflat(ferric.tensor([[1, 2]]))
        tensor([[1, 0],
                [0, 2]])
    """
    _need_tensor("diagflat", "input", input)
    return _core.diag(input.reshape(-1), offset)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: column ``j`` is ``x ** (N - 1 - j)``
    (``x ** j`` when ``increasing``). Integer inputs give int64, bool gives int64.

    Args:
        x (Tensor): a 1-D tensor.
        N (int, optional): number of columns (default ``len(x)``).
        increasing (bool, optional): powers increase left to right.

    Example::

        >>> import ferric
        >>> ferric.vander(ferric.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    _need_tensor("vander", "x", x)
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not x.is_floating_point():
        x = x.to(_core.int64)
    if n == 0:
        return x.new_zeros((x.shape[0], 0))
    cols = [_core.ones_like(x)]
    if n > 1:
        cols.append(x)
    while len(cols) < n:
        cols.append(cols[-1] * x)
    out = _core.stack(cols, 1)
    return out if increasing else out.flip(1)


def _trapz_prep(op, y, x, dx, dim):
    _need_tensor(op, "y", y)
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments - got both x "
                        "and dx")
    if y.dim() == 0:
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of [-1, 0], "
                         "but got " + str(dim) + ")")
    if not y.is_floating_point():
        y = y.to(_core._get_default_dtype())
    n = y.shape[dim]
    left, right = y.narrow(dim, 0, max(n - 1, 0)), y.narrow(dim, min(1, n), max(n - 1, 0))
    if x is None:
        spacing = 1.0 if dx is None else dx
    else:
        if x.dim() == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
            d = x.diff()
            shape = [1] * y.dim()
            shape[dim] = max(n - 1, 0)
            spacing = d.reshape(shape)
        else:
            spacing = x.diff(dim=dim)
    return (left + right) * spacing / 2


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integrates ``y`` along ``dim`` with the trapezoid rule, the samples at ``x`` (a 1-D
    tensor of ``y.shape[dim]`` points or a broadcastable tensor) or spaced ``dx`` apart
    (default 1).

    Args:
        y (Tensor): the values.
        x (Tensor, optional): the sample points.
        dx (float, optional): the constant spacing when ``x`` is not given.
        dim (int, optional): the dimension to integrate along.

    Example::

        >>> import ferric
        >>> ferric.trapezoid(ferric.tensor([1.0, 5.0, 10.0]))
        tensor(10.5000)
    """
    return _trapz_prep("trapezoid", y, x, dx, dim).sum(dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid`.

    Args:
        y (Tensor): the values.
        x (Tensor, optional): the sample points.
        dx (float, optional): the constant spacing when ``x`` is not given.
        dim (int, optional): the dimension to integrate along.

    Example::

        >>> import ferric
        >>> ferric.trapz(ferric.tensor([1.0, 5.0, 10.0]), dx=2.0)
        tensor(21.)
    """
    return _trapz_prep("trapz", y, x, dx, dim).sum(dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid integral of ``y`` along ``dim`` (one element fewer than
    ``y`` along ``dim``).

    Args:
        y (Tensor): the values.
        x (Tensor, optional): the sample points.
        dx (float, optional): the constant spacing when ``x`` is not given.
        dim (int, optional): the dimension to integrate along.

    Example::

        >>> import ferric
        >>> ferric.cumulative_trapezoid(ferric.tensor([1.0, 5.0, 10.0]))
        tensor([ 3.0000, 10.5000])
    """
    return _trapz_prep("cumulative_trapezoid", y, x, dx, dim).cumsum(dim)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    columns), with optional integer frequency and float observation weights, as
    ``numpy.cov``.

    Args:
        input (Tensor): a 1-D or 2-D tensor (variables x observations).
        correction (int, optional): difference between sample count and divisor (1:
            unbiased, 0: maximum likelihood).
        fweights (Tensor, optional): 1-D integer frequency weights, one per observation.
        aweights (Tensor, optional): 1-D float observation weights.

    Example::

        >>> import ferric
        >>> ferric.cov(ferric.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    _need_tensor("cov", "input", input)
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    if not x.is_floating_point():
        x = x.to(_core._get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError("cov(): expected fweights to have one or fewer dimensions but "
                               f"got fweights with {fweights.dim()} dimensions")
        if fweights.is_floating_point():
            raise RuntimeError("cov(): expected fweights to have integral dtype but got "
                               f"fweights with {fweights.dtype} dtype")
        if fweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fweights.numel()} != "
                               f"{n_obs}")
        if fweights.numel() and bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError("cov(): expected aweights to have one or fewer dimensions but "
                               f"got aweights with {aweights.dim()} dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {aweights.dtype} dtype")
        if aweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aweights.numel()} != "
                               f"{n_obs}")
        if aweights.numel() and bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = x.new_tensor(float(n_obs))
        avg = x.mean(1)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    norm = _core.clamp(norm, min=0.0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = xw.matmul(xm.t()) / norm
    return c.squeeze() if input.dim() < 2 else c


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``
    (values clipped to [-1, 1]), as ``numpy.corrcoef``.

    Args:
        input (Tensor): a 1-D or 2-D tensor (variables x observations).

    Example::

        >>> import ferric
        >>> ferric.corrcoef(ferric.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
        tensor([[ 1.0000, -0.9820],
                [-0.9820,  1.0000]])
    """
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    return _core.clamp(c, -1.0, 1.0)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor of ``elements``' shape: whether each element occurs in
    ``test_elements`` (``invert=True`` negates it). Either argument may be a number.

    Args:
        elements (Tensor or Number): the values to look up.
        test_elements (Tensor or Number): the values to look in.
        assume_unique (bool, optional): both inputs have unique values (a speed hint).
        invert (bool, optional): return "not in" instead.

    Example::

        >>> import ferric
        >>> ferric.isin(ferric.tensor([[1, 2], [3, 4]]), ferric.tensor([2, 3]))
        tensor([[False,  True],
                [ True, False]])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__})")
    if not isinstance(elements, Tensor):
        elements = _core.tensor(elements)
    if not isinstance(test_elements, Tensor):
        test_elements = _core.tensor(test_elements)
    flat = test_elements.detach().reshape(-1)
    el = elements.detach()
    if flat.numel() == 0 or el.numel() == 0:
        hit = _core.zeros(tuple(el.shape), dtype=_core.bool)
    else:
        hit = (el.unsqueeze(-1) == flat).any(-1)
    return hit.logical_not() if invert else hit


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (subtraction with the operands reversed).

    Args:
        input (Tensor): the tensor subtracted.
        other (Tensor or Number): the tensor or number subtracted from.
        alpha (Number, optional): the multiplier of ``input``.

    Example::

        >>> import ferric
        >>> ferric.rsub(ferric.tensor([1.0, 2.0]), 5.0)
        tensor([4., 3.])
    """
    _need_tensor("rsub", "input", input)
    if input.dtype == _core.bool and not isinstance(other, Tensor) and isinstance(other, bool):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")
    if isinstance(other, Tensor):
        return _core.sub(other, input, alpha=alpha)
    if alpha == 1:
        return input.__rsub__(other)
    return input.mul(alpha).__rsub__(other)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), as a 0-d tensor.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.
        p (float, optional): the norm order (``inf``, ``-inf`` and 0 allowed).

    Example::

        >>> import ferric
        >>> ferric.dist(ferric.tensor([0.0, 0.0]), ferric.tensor([3.0, 4.0]))
        tensor(5.)
    """
    _need_tensor("dist", "input", input)
    _need_tensor("dist", "other", other, 2)
    from ._linalg_composed import vector_norm

    return vector_norm(input - other, p)


def positive(input):
    """Returns ``input`` itself (unary ``+``); raises for bool tensors as PyTorch does.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import ferric
        >>> ferric.positive(ferric.tensor([-1.0, 2.0]))
        tensor([-1.,  2.])
    """
    _need_tensor("positive", "input", input)
    if input.dtype == _core.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def adjoint(input):
    """A view of ``input`` with its last two dimensions transposed (the conjugate
    transpose; ferric has no complex dtypes, so it equals ``input.mT``).

    Args:
        input (Tensor): a tensor with at least two dimensions.

    Example::

        >>> import ferric
        >>> ferric.adjoint(ferric.zeros(2, 3)).shape
        ferric.Size([3, 2])
    """
    _need_tensor("adjoint", "input", input)
    if input.dim() < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.dim()}-D tensor.")
    return input.transpose(-2, -1)


def fill(input, value):
    """A new tensor of ``input``'s shape and dtype filled with ``value`` (a number or a
    0-d tensor; gradients flow to a tensor ``value``).

    Args:
        input (Tensor): the tensor giving shape and dtype.
        value (Number or Tensor): the fill value.

    Example::

        >>> import ferric
        >>> ferric.fill(ferric.zeros(2), 3.0)
        tensor([3., 3.])
    """
    _need_tensor("fill", "self", input)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.dim()} dimensions.")
        return value.to(input.dtype).expand(tuple(input.shape)) + _core.zeros_like(input)
    return _core.full_like(input, value)


def fill_(input, value):
    """Fills ``input`` in place with ``value``; returns ``input``.

    Args:
        input (Tensor): the tensor to fill.
        value (Number or Tensor): the fill value (a 0-d tensor allowed).

    Example::

        >>> import ferric
        >>> ferric.fill_(ferric.zeros(2), 3.0)
        tensor([3., 3.])
    """
    _need_tensor("fill_", "self", input)
    return input.fill_(value)
