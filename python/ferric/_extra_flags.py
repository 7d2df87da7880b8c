"""Script boilerplate PyTorch exposes at the top level: the math constants, the
determinism / matmul-precision / warn-always flags, interop threads, the deprecated
``set_default_tensor_type``, ``typename``, small predicates, ``scalar_tensor``,
``asarray`` and ``frombuffer``.

The flags are process-wide Python state: ferric's CPU kernels are deterministic and
compute float32 matmuls in full precision whatever the flag says, so the flags only
answer as PyTorch's getters do (scripts read them back and libraries branch on them).
"""

from __future__ import annotations

import math
import warnings

from . import _core
from ._core import Tensor
from ._tensor_types import BY_NAME as _BY_NAME

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest",
          "warn_always": False, "interop_threads": None}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Sets whether operations must use deterministic algorithms
    (``torch.use_deterministic_algorithms``). ferric's CPU kernels are all deterministic,
    so no operation raises or warns; the setting is recorded for the getters.

    Args:
        mode (bool): ``True`` to require deterministic algorithms.
        warn_only (bool, optional): warn instead of raising for nondeterministic ops.

    Example::

        >>> import ferric
        >>> ferric.use_deterministic_algorithms(True)
        >>> ferric.are_deterministic_algorithms_enabled()
        True
        >>> ferric.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state["deterministic"] = mode
    _state["warn_only"] = warn_only


def are_deterministic_algorithms_enabled():
    """True if :func:`use_deterministic_algorithms` turned deterministic mode on.

    Example::

        >>> import ferric
        >>> ferric.are_deterministic_algorithms_enabled()
        False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """True if deterministic mode is set to warn only (``warn_only=True``).

    Example::

        >>> import ferric
        >>> ferric.is_deterministic_algorithms_warn_only_enabled()
        False
    """
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """Sets the deterministic debug mode: ``"default"``/``0`` (off), ``"warn"``/``1``
    (deterministic, warn only) or ``"error"``/``2`` (deterministic).

    Args:
        debug_mode (str or int): the mode.

    Example::

        >>> import ferric
        >>> ferric.set_deterministic_debug_mode("warn")
        >>> ferric.get_deterministic_debug_mode()
        1
        >>> ferric.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(
                f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError("debug_mode must be str or int, but got "
                        f"{type(debug_mode).__name__}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The deterministic debug mode as an int: 0 (off), 1 (warn) or 2 (error).

    Example::

        >>> import ferric
        >>> ferric.get_deterministic_debug_mode()
        0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """Sets the internal precision of float32 matmuls: ``"highest"``, ``"high"`` or
    ``"medium"``. Another value warns (as PyTorch does) and changes nothing. ferric's
    kernels always compute in full float32 precision.

    Args:
        precision (str): ``"highest"``, ``"high"`` or ``"medium"``.

    Example::

        >>> import ferric
        >>> ferric.set_float32_matmul_precision("high")
        >>> ferric.get_float32_matmul_precision()
        'high'
        >>> ferric.set_float32_matmul_precision("highest")
    """
    if not isinstance(precision, str):
        raise TypeError("_set_float32_matmul_precision(): argument 'precision' must be str, "
                        f"not {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the "
                      "current setFloat32MatmulPrecision call has no effect.",
                      UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    """The float32 matmul precision set by :func:`set_float32_matmul_precision`.

    Example::

        >>> import ferric
        >>> ferric.get_float32_matmul_precision()
        'highest'
    """
    return _state["matmul_precision"]


def set_warn_always(b):
    """When ``True``, warnings PyTorch issues once per process are issued every time.

    Args:
        b (bool): the new setting.

    Example::

        >>> import ferric
        >>> ferric.set_warn_always(False)
        >>> ferric.is_warn_always_enabled()
        False
    """
    _state["warn_always"] = bool(b)


def is_warn_always_enabled():
    """True if :func:`set_warn_always` turned warn-always on.

    Example::

        >>> import ferric
        >>> ferric.is_warn_always_enabled()
        False
    """
    return _state["warn_always"]


def set_flush_denormal(mode):
    """Asks for denormal floats to be flushed to zero; returns ``True`` when the CPU
    supports it (x86-64 with SSE3, as a CPU PyTorch on x86-64 answers) and ``False``
    elsewhere. ferric's kernels leave the floating-point environment unchanged.

    Args:
        mode (bool): whether to flush denormals.

    Example::

        >>> import ferric
        >>> ferric.set_flush_denormal(False) in (True, False)
        True
    """
    import platform

    return platform.machine().lower() in ("x86_64", "amd64")


def get_num_interop_threads():
    """The number of inter-op threads (ferric runs ops on one pool: this is the intra-op
    thread count unless :func:`set_num_interop_threads` set another).

    Example::

        >>> import ferric
        >>> ferric.get_num_interop_threads() >= 1
        True
    """
    n = _state["interop_threads"]
    return _core.get_num_threads() if n is None else n


def set_num_interop_threads(nthreads):
    """Sets the number of inter-op threads (recorded; ferric has one thread pool).

    Args:
        nthreads (int): a positive thread count.

    Example::

        >>> import ferric
        >>> ferric.set_num_interop_threads(2)
        >>> ferric.get_num_interop_threads()
        2
    """
    if not isinstance(nthreads, int) or isinstance(nthreads, bool):
        raise TypeError("set_num_interop_threads(): argument 'nthreads' must be int, not "
                        f"{type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("Expected positive number of threads")
    _state["interop_threads"] = nthreads


def init_num_threads():
    """Initializes the number of parallel threads for the calling thread (a no-op:
    ferric's pool is set up on first use).

    Example::

        >>> import ferric
        >>> ferric.init_num_threads()
    """


_TENSOR_TYPE_DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64",
                       "HalfTensor": "float16", "BFloat16Tensor": "bfloat16"}


def set_default_tensor_type(t):
    """Sets the default floating-point tensor type (deprecated as in PyTorch 2.1: use
    ``set_default_dtype``). Accepts ``ferric.FloatTensor``/``DoubleTensor`` or their
    names ``"torch.FloatTensor"``/``"ferric.DoubleTensor"``.

    Args:
        t (type or str): the floating-point tensor type or its name.

    Example::

        >>> import ferric, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ferric.set_default_tensor_type(ferric.DoubleTensor)
        >>> ferric.get_default_dtype()
        ferric.float64
        >>> ferric.set_default_dtype(ferric.float32)
    """
    from ._functions import set_default_dtype

    name = t if isinstance(t, str) else getattr(t, "__name__", None)
    if name is None:
        raise TypeError(f"invalid type object: {t!r}")
    module, _, cls = name.rpartition(".")
    if isinstance(t, str) and module not in ("torch", "ferric"):
        if not module:
            raise ValueError(f"invalid type: '{t}'")
        raise ModuleNotFoundError(f"No module named '{module.split('.')[0]}'")
    if cls not in _TENSOR_TYPE_DTYPES:
        if cls.endswith("Tensor"):
            raise TypeError("only floating-point types are supported as the default type")
        raise TypeError(f"invalid type: '{t}'")
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                  "use torch.set_default_dtype() and torch.set_default_device() as "
                  "alternatives.", UserWarning, stacklevel=2)
    set_default_dtype(getattr(_core, _TENSOR_TYPE_DTYPES[cls]))


# "float32" -> "torch.FloatTensor", ... (the names the legacy tensor types carry)
_TYPE_NAMES = {c._dtype_name: name for name, c in _BY_NAME.items()}


def typename(obj, /):
    """The type name of ``obj``: ``"torch.FloatTensor"`` style for tensors (PyTorch's
    spelling, so scripts comparing strings work), ``module.qualname`` otherwise.

    Args:
        obj (object): any object.

    Example::

        >>> import ferric
        >>> ferric.typename(ferric.zeros(2)), ferric.typename(3)
        ('torch.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return _TYPE_NAMES.get(str(obj.dtype).split(".")[-1], "torch.Tensor")
    module = ""
    class_name = ""
    if hasattr(obj, "__module__") and obj.__module__ not in ("builtins", "__builtin__", None):
        module = obj.__module__ + "."
    if hasattr(obj, "__qualname__"):
        class_name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        class_name = obj.__name__
    else:
        class_name = obj.__class__.__qualname__
    return module + class_name


def is_nonzero(input):
    """True if the single-element ``input`` is not zero (``False``, ``0`` or ``0.0``).

    Args:
        input (Tensor): a tensor with exactly one element.

    Example::

        >>> import ferric
        >>> ferric.is_nonzero(ferric.tensor([1.5])), ferric.is_nonzero(ferric.tensor(0))
        (True, False)
    """
    if not isinstance(input, Tensor):
        raise TypeError("is_nonzero(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def is_same_size(input, other):
    """True if ``input`` and ``other`` have the same shape.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> import ferric
        >>> ferric.is_same_size(ferric.zeros(2, 3), ferric.ones(2, 3))
        True
    """
    for name, t in (("self", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"is_same_size(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    """True if the dtype of ``input`` is signed (floats and signed integers; ``uint8`` and
    ``bool`` are not).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import ferric
        >>> ferric.is_signed(ferric.tensor([1])), ferric.is_signed(ferric.tensor([True]))
        (True, False)
    """
    if not isinstance(input, Tensor):
        raise TypeError("is_signed(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.dtype not in (_core.uint8, _core.bool)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad=False):
    """A 0-d tensor holding the number ``s``; its dtype is the default float dtype unless
    ``dtype`` is given (a bool or int ``s`` also becomes a float, as in PyTorch).

    Args:
        s (Number): the value.
        dtype (ferric.dtype, optional): the result dtype.
        device (ferric.device, optional): must be the CPU.
        requires_grad (bool, optional): whether the result requires grad.

    Example::

        >>> import ferric
        >>> ferric.scalar_tensor(3)
        tensor(3.)
        >>> ferric.scalar_tensor(3, dtype=ferric.int64)
        tensor(3)
    """
    if isinstance(s, Tensor):
        if s.numel() != 1:
            raise RuntimeError("a Tensor with "
                               f"{s.numel()} elements cannot be converted to Scalar")
        s = s.item()
    if not isinstance(s, (bool, int, float)):
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    if dtype is None:
        dtype = _core._get_default_dtype()
    return _core.tensor(s, dtype=dtype, device=device, requires_grad=requires_grad)


def _numpy_dtype(dtype):
    import numpy as np

    name = str(dtype).split(".")[-1]
    if name == "bfloat16":
        raise TypeError("frombuffer(): bfloat16 has no NumPy dtype")
    return np.dtype("bool" if name == "bool" else name)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """Converts ``obj`` to a tensor, sharing memory with a tensor or NumPy array when
    ``copy`` is not ``True`` and the dtype matches (``torch.asarray``).

    Args:
        obj (object): a tensor, NumPy array, DLPack capsule holder, sequence or number.
        dtype (ferric.dtype, optional): the result dtype (default: ``obj``'s, or inferred).
        device (ferric.device, optional): must be the CPU.
        copy (bool, optional): ``True`` always copies, ``False`` never copies (raising a
            ``ValueError`` when a copy is needed), ``None`` copies only when needed.
        requires_grad (bool, optional): whether the result requires grad (default: that of
            a tensor ``obj``, else ``False``).

    Example::

        >>> import ferric, numpy as np
        >>> a = np.array([1.0, 2.0])
        >>> t = ferric.asarray(a)
        >>> a[0] = 5.0
        >>> t
        tensor([5., 2.], dtype=ferric.float64)
    """
    import numpy as np

    if device is not None and str(device).split(":")[0] != "cpu":
        _core.empty(0).to(device)  # raises as a CPU-only PyTorch build does
    if not isinstance(obj, (Tensor, np.ndarray)) and hasattr(obj, "__dlpack__"):
        from .utils.dlpack import from_dlpack

        obj = from_dlpack(obj)
    if isinstance(obj, np.generic):
        obj = np.asarray(obj)
    if isinstance(obj, (Tensor, np.ndarray)):
        src = obj if isinstance(obj, Tensor) else _core.from_numpy(obj)
        same = dtype is None or src.dtype == dtype
        if copy is False and not same:
            raise ValueError(f"can't alias tensor with dtype '{src.dtype}' into dtype "
                             f"'{dtype}'.")
        out = src
        if not same:
            out = src.to(dtype)
        elif copy:
            out = src.clone()
        if isinstance(obj, Tensor) and obj.requires_grad and requires_grad is None \
                and out is not obj:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to "
                          "obj.requires_grad instead of False. Pass requires_grad=False "
                          "explicitly to get the old behavior and silence this warning.",
                          UserWarning, stacklevel=2)
        if requires_grad is False and out.requires_grad:
            out = out.detach()
        elif requires_grad and not out.requires_grad:
            out = out.requires_grad_()
        return out
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    return _core.tensor(obj, dtype=dtype, requires_grad=bool(requires_grad))


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the memory of an object implementing the buffer protocol (no
    copy: writes to one show in the other).

    Args:
        buffer (object): a ``bytearray``, ``memoryview``, ``array.array``, ...
        dtype (ferric.dtype): the element type.
        count (int, optional): number of elements to read (-1: all after ``offset``).
        offset (int, optional): bytes to skip at the start of the buffer.
        requires_grad (bool, optional): whether the result requires grad.

    Example::

        >>> import ferric
        >>> ferric.frombuffer(bytearray(b"\\x01\\x02\\x03\\x04"), dtype=ferric.int16)
        tensor([ 513, 1027], dtype=ferric.int16)
    """
    import numpy as np

    view = memoryview(buffer)
    length = view.nbytes
    size = _core.empty(0, dtype=dtype).element_size()
    if length <= 0 and count == -1 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if view.readonly:
        warnings.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors. This means you can write to the underlying "
                      "(supposedly non-writable) buffer using the tensor. You may want to "
                      "copy the buffer to protect its data or make it writable before "
                      "converting it to a tensor.", UserWarning, stacklevel=2)
    arr = np.frombuffer(buffer, dtype=_numpy_dtype(dtype), count=count, offset=offset)
    out = _core.from_numpy(arr)
    return out.requires_grad_() if requires_grad else out
