"""``ferric.iinfo`` and ``ferric.finfo``: the numerical limits of each dtype, with
PyTorch's values, attribute names and reprs."""

from __future__ import annotations

from . import _core

# bits, min, max of the integer dtypes
_INT = {
    "uint8": (8, 0, 255),
    "int8": (8, -128, 127),
    "int16": (16, -(2**15), 2**15 - 1),
    "int32": (32, -(2**31), 2**31 - 1),
    "int64": (64, -(2**63), 2**63 - 1),
}

# bits, mantissa bits (without the implicit one), smallest exponent, largest exponent,
# decimal digits of precision (``resolution = 10 ** -digits``)
_FLOAT = {
    "float16": (16, 10, -14, 15, 3),
    "bfloat16": (16, 7, -126, 127, 2),
    "float32": (32, 23, -126, 127, 6),
    "float64": (64, 52, -1022, 1023, 15),
}


def _name(dtype, info: str) -> str:
    """The name of ``dtype`` (``"int8"``); anything else gets the TypeError PyTorch's
    ``info(...)`` (``iinfo`` or ``finfo``) raises."""
    if not isinstance(dtype, _core.dtype):
        raise TypeError(f"{info}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{builtins_type_name(dtype)}")
    return repr(dtype).split(".")[-1]


class _DtypeInfo:
    """What ``iinfo`` and ``finfo`` share: equal (and hashed alike) when they describe the
    same dtype."""

    dtype: str

    def __eq__(self, other):
        return isinstance(other, type(self)) and other.dtype == self.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))


class iinfo(_DtypeInfo):  # noqa: N801 - PyTorch's name
    """The limits of an integer dtype (``torch.iinfo``).

    Args:
        type (dtype): an integer dtype (``uint8``, ``int8``, ``int16``, ``int32``,
            ``int64``).

    Attributes: ``bits``, ``min``, ``max`` (Python ints) and ``dtype`` (its name).

    Example::

        >>> import ferric
        >>> ferric.iinfo(ferric.int8).max
        127
        >>> ferric.iinfo(ferric.uint8)
        iinfo(min=0, max=255, dtype=uint8)
    """

    def __init__(self, type):  # noqa: A002 - PyTorch's argument name
        name = _name(type, "iinfo")
        if name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if name not in _INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        self.bits, self.min, self.max = _INT[name]
        self.dtype = name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


class finfo(_DtypeInfo):  # noqa: N801 - PyTorch's name
    """The limits of a floating-point dtype (``torch.finfo``); without an argument, of the
    default dtype.

    Args:
        type (dtype, optional): ``float16``, ``bfloat16``, ``float32`` or ``float64``.

    Attributes: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` (Python floats) and ``dtype`` (its name).

    Example::

        >>> import ferric
        >>> ferric.finfo(ferric.float16).max
        65504.0
        >>> ferric.finfo(ferric.bfloat16).eps
        0.0078125
    """

    def __init__(self, type=None):  # noqa: A002 - PyTorch's argument name
        if type is None:
            type = _core._get_default_dtype()  # noqa: A001
        name = _name(type, "finfo")
        if name not in _FLOAT:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        bits, mant, emin, emax, digits = _FLOAT[name]
        self.bits = bits
        self.eps = 2.0 ** -mant
        self.max = (2.0 - 2.0 ** -mant) * 2.0 ** emax
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** emin
        self.resolution = float(f"1e-{digits}")
        self.dtype = name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


def builtins_type_name(obj) -> str:
    return type(obj).__name__


iinfo.__module__ = finfo.__module__ = "ferric"
