"""Legacy typed tensor constructors: ``ferric.FloatTensor``, ``LongTensor``, ...

PyTorch keeps one class per (dtype, device) from its pre-0.4 API. Calling one builds a
tensor of that dtype with the *legacy constructor* rules: integers (or a ``Size``) are a
shape and give uninitialised memory, a sequence or array is data, a tensor of the same
dtype is returned as is. ``isinstance(t, ferric.FloatTensor)`` asks for the dtype;
the result's class is ``ferric.Tensor``, and the typed names are no subclasses of it,
exactly as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import _core
from ._core import Tensor
from ._size import Size

__all__ = ["BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor",
           "FloatTensor", "HalfTensor", "IntTensor", "LongTensor", "ShortTensor"]

# PyTorch prints dtypes by their C++ names in the legacy constructor's mismatch message
_CPP_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool",
              "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def _options(dtype) -> str:
    name = _CPP_NAMES[str(dtype).split(".")[-1]]
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


class _TensorType(type):
    """Metaclass of the typed names: calling builds a tensor, ``isinstance`` checks the
    dtype."""

    def __call__(cls, *args, device=None, **kwargs):
        dtype = cls._dtype()
        if kwargs:
            got = ", ".join([type(a).__name__ for a in args]
                            + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
            raise TypeError(f"new() received an invalid combination of arguments - got "
                            f"({got})")
        if device is not None:
            from ._device import device as _device_cls

            dev = device if isinstance(device, _device_cls) else _device_cls(device)
            if dev.type != "cpu":
                raise RuntimeError("legacy constructor expects device type: cpu but device "
                                   f"type: {dev.type} was passed")
        if not args:
            return _core.empty(0, dtype=dtype)
        if len(args) == 1:
            (a,) = args
            if isinstance(a, Tensor):
                if a.dtype != dtype:
                    raise TypeError(f"expected {_options(dtype)} (got {_options(a.dtype)})")
                return a
            if isinstance(a, Size):
                return _empty(tuple(a), dtype)
            if isinstance(a, (Sequence, _ndarray())) and not isinstance(a, (str, bytes)):
                return _core.tensor(a, dtype=dtype)
            if not (isinstance(a, int) and not isinstance(a, bool)):
                raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return _empty(args, dtype)
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got})")

    def __instancecheck__(cls, obj):
        dtype = cls._dtype()
        return dtype is not None and isinstance(obj, Tensor) and obj.dtype == dtype

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub)

    @property
    def dtype(cls):
        """The dtype this name stands for."""
        return cls._dtype()

    @property
    def is_cuda(cls) -> bool:
        """CPU types: ``False``."""
        return False

    def _dtype(cls):
        return getattr(_core, cls._dtype_name)


def _empty(size: tuple, dtype) -> Tensor:
    for d in size:
        if d < 0:  # PyTorch's message, without the name of ferric's factory
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {d}: {list(size)}")
    return _core.empty(size, dtype=dtype)


def _ndarray():
    import numpy as np

    return np.ndarray


def _typed(name: str, dtype_name: str, doc: str, example: str) -> type:
    doc = (f"{name}(*args, device=None) -> Tensor\n\n{doc} ``{name}(data)`` copies "
           f"nested data, ``{name}(*sizes)`` makes a (zero-filled) tensor of that shape, "
           f"``{name}()`` an empty one; ``isinstance(t, ferric.{name})`` tests the dtype.\n\n"
           "Args:\n"
           "    data (sequence or ndarray or Tensor): the values (a tensor must already have "
           "this dtype).\n"
           "    sizes (int...): the shape of the result (instead of ``data``).\n"
           "    device (:class:`ferric.device`, optional): only ``'cpu'``.\n\n"
           "Example:\n"
           "    >>> import ferric\n"
           f"    >>> ferric.{name}([1, 0])\n"
           f"    {example}\n"
           f"    >>> ferric.{name}(2, 3).shape\n"
           "    ferric.Size([2, 3])\n")
    cls = _TensorType(name, (), {"_dtype_name": dtype_name, "__doc__": doc,
                                 "__module__": "ferric"})
    return cls


FloatTensor = _typed("FloatTensor", "float32", "Legacy constructor of float32 tensors.",
                     "tensor([1., 0.])")
DoubleTensor = _typed("DoubleTensor", "float64", "Legacy constructor of float64 tensors.",
                      "tensor([1., 0.], dtype=ferric.float64)")
LongTensor = _typed("LongTensor", "int64", "Legacy constructor of int64 tensors.",
                    "tensor([1, 0])")
BoolTensor = _typed("BoolTensor", "bool", "Legacy constructor of bool tensors.",
                    "tensor([ True, False])")
IntTensor = _typed("IntTensor", "int32", "Legacy constructor of int32 tensors.",
                   "tensor([1, 0], dtype=ferric.int32)")
ShortTensor = _typed("ShortTensor", "int16", "Legacy constructor of int16 tensors.",
                     "tensor([1, 0], dtype=ferric.int16)")
CharTensor = _typed("CharTensor", "int8", "Legacy constructor of int8 tensors.",
                    "tensor([1, 0], dtype=ferric.int8)")
ByteTensor = _typed("ByteTensor", "uint8", "Legacy constructor of uint8 tensors.",
                    "tensor([1, 0], dtype=ferric.uint8)")
HalfTensor = _typed("HalfTensor", "float16", "Legacy constructor of float16 tensors.",
                    "tensor([1., 0.], dtype=ferric.float16)")
BFloat16Tensor = _typed("BFloat16Tensor", "bfloat16",
                        "Legacy constructor of bfloat16 tensors.",
                        "tensor([1., 0.], dtype=ferric.bfloat16)")

# 'torch.FloatTensor' <-> typed name, for Tensor.type()
BY_NAME = {f"torch.{c.__name__}": c for c in (
    FloatTensor, DoubleTensor, LongTensor, BoolTensor, IntTensor, ShortTensor, CharTensor,
    ByteTensor, HalfTensor, BFloat16Tensor)}
