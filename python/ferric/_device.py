"""``ferric.device`` and the rules for devices ferric does not have.

ferric computes on the CPU only. Scripts written for PyTorch still name devices
(``torch.device("cuda" if torch.cuda.is_available() else "cpu")``, ``x.to(device)``), so
the device *class* accepts every device string PyTorch accepts and parses it the same way
(c10's ``Device(const std::string&)``: ``type[:index]``); only *using* a device other than
the CPU fails, with the exception a CPU-only PyTorch build raises.

The Rust bindings import this module: ``Tensor.device`` returns :data:`_CPU` and every
``device=`` argument other than ``None``/``"cpu"`` goes through :func:`_check_device`.
"""

from __future__ import annotations

__all__ = ["device", "get_default_device", "set_default_device"]

# The device types c10 knows, in the order its "Expected one of ..." message lists them.
# `mkldnn`, `opengl`, ... are real c10 types even if nothing can allocate on them.
_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
    "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
    "privateuseone",
)

def _parse(text: str) -> tuple[str, int | None]:
    """Splits ``"type[:index]"`` as c10 does: ``[a-zA-Z_]+(:(0|[1-9][0-9]*))?``."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    name, sep, idx = text.partition(":")
    ok = (
        bool(name)
        and all(c.isascii() and (c.isalpha() or c == "_") for c in name)
        and (not sep or (idx.isascii() and idx.isdigit() and (idx == "0" or idx[0] != "0")))
    )
    if not ok:
        raise RuntimeError(f"Invalid device string: '{text}'")
    index = None
    if sep:
        index = int(idx)
        if index > 2**31 - 1:  # c10 parses with std::stoi
            raise RuntimeError(
                f"Could not parse device index '{idx}' in device string '{text}'")
    if name not in _TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_TYPES)} device type at start of device string: "
            f"{text}"
        )
    return name, index


class device:
    """A device name, as ``torch.device``: ``device("cpu")``, ``device("cuda:1")``,
    ``device("cpu", 0)``, ``device(type="cpu", index=0)`` or ``device(other_device)``.

    Every device type PyTorch knows can be *named*; only ``"cpu"`` can hold tensors in
    ferric. Devices compare equal when type and index match (a device never equals a
    string), hash accordingly, pickle, and print like PyTorch's.

    Args:
        type (str or :class:`ferric.device`): the device type, optionally with ``:index``.
        index (int, optional): the device index.

    Example:
        >>> import ferric
        >>> ferric.device("cpu:0")
        device(type='cpu', index=0)
        >>> str(ferric.device("cuda", 1)), ferric.device("cuda:1").index
        ('cuda:1', 1)
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type=None, index=None):  # noqa: A002 - PyTorch's keyword names
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device object cannot be combined with an index")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            # an ordinal means "that index of the current accelerator"; CPU-only PyTorch
            # has no accelerator and falls back to CUDA's
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of:\n"
                " * (torch.device device)\n"
                "      didn't match because some of the arguments have invalid types: "
                f"(!{_type_name(type)}!)\n"
                " * (str type, int index = -1)\n"
            )
        if index is None:
            t, i = _parse(type)
        else:
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(
                    "device(): argument 'index' (position 2) must be int, not "
                    f"{_type_name(index)}")
            if ":" in type:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            t, i = _parse(type)[0], index
        self._type, self._index = t, i

    @property
    def type(self) -> str:
        """The device type, e.g. ``'cpu'``."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device ordinal, or ``None`` when the string named none."""
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __lt__(self, other):
        raise TypeError("comparison not implemented")

    __le__ = __gt__ = __ge__ = __lt__

    def __setattr__(self, name, value):
        # immutable like torch.device (whose error names the class 'torch.device')
        if name in device.__slots__ and not hasattr(self, name):
            object.__setattr__(self, name, value)
            return
        raise AttributeError(f"'torch.device' object has no attribute '{name}'")

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self):
        if self._index is None:
            return (device, (self._type,))
        return (device, (self._type, self._index))

    # `with ferric.device("cpu"):` sets the default device, as in PyTorch; the previous
    # defaults live on a module-level stack because device objects are immutable
    def __enter__(self):
        _entered.append(get_default_device())
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(_entered.pop())
        return False


_entered: list[device] = []


def _type_name(obj) -> str:
    return type(obj).__name__


_CPU = device("cpu")

_CUDA_MESSAGE = "Torch not compiled with CUDA enabled"


def _as_device(obj) -> device:
    if isinstance(obj, device):
        return obj
    if isinstance(obj, (str, int)) and not isinstance(obj, bool):
        return device(obj)
    raise TypeError(f"argument 'device' must be torch.device, not {_type_name(obj)}")


def _check_device(obj) -> None:
    """Returns if ``obj`` names the CPU (``None``, ``"cpu"``, ``"cpu:0"``, a CPU
    ``device``); otherwise raises what a CPU-only PyTorch build raises when a tensor is
    put on that device (``AssertionError: Torch not compiled with CUDA enabled`` for
    CUDA). ``"meta"`` works in PyTorch but not in ferric: it raises ``RuntimeError``."""
    if obj is None:
        return
    dev = _as_device(obj)
    if dev._type == "cpu":
        return
    raise _unavailable(dev)


def _unavailable(dev: device) -> BaseException:
    """The exception CPU-only PyTorch raises for ``tensor.to(dev)`` (``dev`` not the CPU).

    CUDA, XPU and MTIA are "not compiled" (``torch.<type>._lazy_init`` asserts); types
    whose Python module does not exist fail on importing it; the rest have no device
    guard linked in.
    """
    t = dev._type
    if t == "cuda":
        return AssertionError(_CUDA_MESSAGE)
    if t == "xpu":
        return AssertionError("Torch not compiled with XPU enabled")
    if t == "mtia":
        return AssertionError(
            "Torch not compiled with MTIA enabled. Ensure you have `import "
            "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and "
            "include `//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!"
        )
    if t in ("hpu", "privateuseone"):
        return ModuleNotFoundError(f"No module named 'torch.{t}'")
    if t == "meta":
        # PyTorch would create a meta tensor; ferric has none, so say that plainly
        return RuntimeError(
            "ferric has no 'meta' device: tensors live on the CPU only")
    if t == "lazy":
        return NotImplementedError(
            "Could not run 'aten::empty.memory_format' with arguments from the 'Lazy' "
            "backend (ferric: tensors live on the CPU only)")
    return RuntimeError(f"PyTorch is not linked with support for {t} devices")


_default = _CPU


def set_default_device(device) -> None:  # noqa: A002 - PyTorch's argument name
    """Sets the device new tensors are created on. ferric only has the CPU: ``None`` and
    CPU devices are accepted; any other device raises at once what PyTorch would raise
    on the first tensor created there (ferric's factories cannot defer the check).

    Args:
        device (:class:`ferric.device` or str or None): the device (None: the CPU).

    Example:
        >>> import ferric
        >>> ferric.set_default_device('cpu')
        >>> ferric.zeros(1).device
        device(type='cpu')
        >>> ferric.set_default_device(None)
    """
    global _default
    if device is None:
        _default = _CPU
        return
    _check_device(device)
    _default = _CPU


def get_default_device() -> device:
    """The device new tensors are created on: always ``device(type='cpu')`` in ferric.

    Example:
        >>> import ferric
        >>> ferric.get_default_device()
        device(type='cpu')
    """
    return _default
