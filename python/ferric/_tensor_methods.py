"""Tensor methods written in Python, attached to the Rust ``ferric.Tensor`` class.

They are PyTorch conveniences that need no kernel of their own: the ``new_*`` factories
(a new tensor with this tensor's dtype), ``type()``, casts to dtypes ferric lacks (which
raise a clear ``TypeError``), and the CUDA/pinned-memory methods that fail on a CPU-only
PyTorch build. Everything here calls the core; nothing is on a hot path.
"""

from __future__ import annotations

import textwrap
import warnings

from . import _core, _functions
from . import _linalg_aliases as _la
from ._core import Tensor
from ._device import _check_device
from ._tensor_types import BY_NAME, _TensorType

# dtype name -> legacy type string, as Tensor.type() prints it
_TYPE_NAMES = {c._dtype_name: name for name, c in BY_NAME.items()}


def _size(args) -> tuple:
    # new_zeros(2, 3), new_zeros((2, 3)), new_zeros(ferric.Size([2, 3])), new_zeros([])
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(args[0])
    return tuple(args)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    return t.requires_grad_(True) if requires_grad else t


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A new tensor holding ``data`` (copied), with this tensor's dtype unless given.

    Args:
        data (array_like): the values.
        dtype (:class:`ferric.dtype`, optional): the data type. Default: this tensor's.
        device (:class:`ferric.device`, optional): only ``'cpu'``.
        requires_grad (bool): whether autograd records operations on the result.
            Default: False.
        layout (optional): only ``ferric.strided``.
        pin_memory (bool): must be False (no accelerator). Default: False.

    Example:
        >>> import ferric
        >>> x = ferric.ones(2, dtype=ferric.float64)
        >>> x.new_tensor([1, 2])
        tensor([1., 2.], dtype=ferric.float64)
    """
    _check_device(device)
    dtype = self.dtype if dtype is None else dtype
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
            ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning, stacklevel=2)
        out = data.detach().clone().to(dtype)
    else:
        out = _core.tensor(data, dtype=dtype)
    return _finish(out, requires_grad)


_FACTORY_ARGS = """\
dtype (:class:`ferric.dtype`, optional): the data type. Default: this tensor's.
device (:class:`ferric.device`, optional): only ``'cpu'``.
requires_grad (bool): whether autograd records operations on the result. Default: False.
layout (optional): only ``ferric.strided``.
pin_memory (bool): must be False (no accelerator). Default: False."""

_FACTORY_EXAMPLES = {
    "new_zeros": """\
>>> x = ferric.ones(2, dtype=ferric.float64)
>>> x.new_zeros(2, 3)
tensor([[0., 0., 0.],
        [0., 0., 0.]], dtype=ferric.float64)
""",
    "new_ones": """\
>>> x = ferric.ones(2, dtype=ferric.int64)
>>> x.new_ones((2,))
tensor([1, 1])
""",
    "new_empty": """\
>>> x = ferric.ones(2, dtype=ferric.int8)
>>> y = x.new_empty(3)
>>> y.shape, y.dtype
(ferric.Size([3]), ferric.int8)
""",
}


def _factory(core_fn, name: str):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
        _check_device(device)
        out = core_fn(_size(size), dtype=self.dtype if dtype is None else dtype)
        return _finish(out, requires_grad)

    method.__name__ = name
    method.__doc__ = (
        f"{name}(*size, *, dtype=None, device=None, requires_grad=False, layout=None, "
        "pin_memory=False) -> Tensor\n\n"
        f"A new tensor of the given size filled as ``ferric.{name[4:]}`` does, with this "
        "tensor's dtype unless ``dtype`` is given.\n\n"
        "Args:\n"
        "    size (int...): the shape of the result, as separate ints or one sequence.\n"
        + textwrap.indent(_FACTORY_ARGS, "    ") + "\n\n"
        "Example:\n" + textwrap.indent(_FACTORY_EXAMPLES[name], "    "))
    return method


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """A new tensor of ``size`` filled with ``fill_value``, with this tensor's dtype unless
    given.

    Args:
        size (sequence of ints): the shape of the result.
        fill_value (Number): the value of every element.
        dtype (:class:`ferric.dtype`, optional): the data type. Default: this tensor's.
        device (:class:`ferric.device`, optional): only ``'cpu'``.
        requires_grad (bool): whether autograd records operations on the result.
            Default: False.
        layout (optional): only ``ferric.strided``.
        pin_memory (bool): must be False (no accelerator). Default: False.

    Example:
        >>> import ferric
        >>> x = ferric.ones(2, dtype=ferric.int32)
        >>> x.new_full((2, 2), 7)
        tensor([[7, 7],
                [7, 7]], dtype=ferric.int32)
    """
    if isinstance(size, int):
        raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, "
                        f"not {type(size).__name__}")
    _check_device(device)
    out = _core.full(tuple(size), fill_value, dtype=self.dtype if dtype is None else dtype)
    return _finish(out, requires_grad)


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the legacy type name (``'torch.FloatTensor'``, as PyTorch prints
    it, so ``x.type() == 'torch.FloatTensor'`` keeps working); with a dtype, a legacy type
    name or a typed class (``ferric.LongTensor``), the tensor cast to it (``self`` if it
    already has that dtype).

    Args:
        dtype (:class:`ferric.dtype` or str or legacy type, optional): the type to cast to.
        non_blocking (bool): accepted for compatibility. Default: False.

    Example:
        >>> import ferric
        >>> x = ferric.ones(2)
        >>> x.type()
        'torch.FloatTensor'
        >>> x.type(ferric.int64)
        tensor([1, 1])
        >>> x.type('torch.DoubleTensor').dtype
        ferric.float64
    """
    if dtype is None:
        return _TYPE_NAMES[str(self.dtype).split(".")[-1]]
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise TypeError(f"type {dtype} not available. Torch not compiled with CUDA "
                            "enabled.")
        if dtype not in BY_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = BY_NAME[dtype]
    if isinstance(dtype, _TensorType):
        dtype = dtype.dtype
    return self if self.dtype == dtype else self.to(dtype)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    """Raises as on a CPU-only PyTorch build (``AssertionError``: no CUDA).

    Args:
        device (:class:`ferric.device`, optional): the CUDA device.
        non_blocking (bool): accepted for compatibility. Default: False.
        memory_format (:class:`ferric.memory_format`, optional): accepted for compatibility.

    Example:
        >>> import ferric
        >>> try:
        ...     ferric.ones(1).cuda()
        ... except AssertionError as e:
        ...     print(e)
        Torch not compiled with CUDA enabled
    """
    _check_device("cuda")


def pin_memory(self, device=None):
    """Raises as on a CPU-only PyTorch build: there is no accelerator to pin memory for.

    Args:
        device (:class:`ferric.device`, optional): the accelerator (there is none).

    Example:
        >>> import ferric
        >>> try:
        ...     ferric.ones(1).pin_memory()
        ... except RuntimeError as e:
        ...     print(e)
        Cannot access accelerator device when none is available.
    """
    raise RuntimeError("Cannot access accelerator device when none is available.")


def get_device(self) -> int:
    """The CUDA ordinal of the tensor's device: ``-1`` for CPU tensors (all of them).

    Example:
        >>> import ferric
        >>> ferric.ones(1).get_device()
        -1
    """
    return -1


def __format__(self, spec: str) -> str:
    """Formats a 0-d tensor as its Python number (``f"{loss:.3f}"``, and ``f"{t}"``
    gives ``'1.5'``, as PyTorch); other tensors only with an empty spec (their repr)."""
    if self.dim() == 0 and type(self) is Tensor:
        return self.item().__format__(spec)
    if spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return str(self)


def is_pinned(self, device=None):
    """Whether the memory is pinned: never (no accelerator).

    Args:
        device (:class:`ferric.device`, optional): the accelerator (there is none).

    Example:
        >>> import ferric
        >>> ferric.ones(1).is_pinned()
        False
    """
    return False


def equal(self, other) -> bool:
    """``Tensor.equal(other)``: True if ``other`` has this tensor's shape and elements
    (the method form of :func:`ferric.equal`; dtypes are promoted, NaN is not equal to
    itself).

    Args:
        other (Tensor): the tensor to compare with.

    Example:
        >>> import ferric
        >>> ferric.tensor([1.0, 2.0]).equal(ferric.tensor([1, 2]))
        True
        >>> ferric.tensor([1.0, 2.0]).equal(ferric.tensor([[1.0, 2.0]]))
        False
    """
    if not isinstance(other, Tensor):
        raise TypeError("equal(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    return _functions.equal(self, other)


_METHODS = {
    "equal": equal,
    "new_tensor": new_tensor,
    "new_empty": _factory(_core.empty, "new_empty"),
    "new_zeros": _factory(_core.zeros, "new_zeros"),
    "new_ones": _factory(_core.ones, "new_ones"),
    "new_full": new_full,
    "type": type_,
    "cuda": cuda,
    "pin_memory": pin_memory,
    "is_pinned": is_pinned,
    "get_device": get_device,
    # linear algebra (ferric.linalg and its top-level aliases)
    "det": _la.det,
    "logdet": _la.logdet,
    "slogdet": _la.slogdet_,
    "inverse": _la.inverse,
    "cholesky": _la.cholesky,
    "cholesky_solve": _la.cholesky_solve,
    "cholesky_inverse": _la.cholesky_inverse,
    "pinverse": _la.pinverse,
    "svd": _la.svd_,
    "qr": _la.qr_,
    "matrix_power": _la.matrix_power,
    "matrix_exp": _la.matrix_exp,
}


def install() -> None:
    """Attaches the methods the Rust class does not define itself (never replaces one),
    and PyTorch's ``__format__`` (the Rust one prints the repr for an empty spec)."""
    for name, fn in _METHODS.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)
    Tensor.__format__ = __format__

