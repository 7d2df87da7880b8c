"""``autocast``: the mixed-precision region, with PyTorch's state and warnings.

ferric has no reduced-precision dtypes yet (no float16/bfloat16), so an enabled CPU
autocast region is a documented no-op for the arithmetic: ops keep computing in float32.
What scripts can observe is mirrored: ``is_autocast_enabled("cpu")`` is true inside the
region, nesting and decorating work, and ``device_type="cuda"`` warns and disables itself
as on a CPU-only PyTorch build.
"""

from __future__ import annotations

import functools
import warnings

from .. import _core
from .._device import device as _device

__all__ = ["autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype",
           "is_autocast_available", "is_autocast_enabled", "set_autocast_enabled"]

# per-device-type state; PyTorch keeps the same in thread-local C++ flags
_enabled: dict[str, bool] = {}
_dtypes: dict[str, object] = {}


def _default_dtype(device_type: str):
    # PyTorch defaults to bfloat16 (cpu) / float16 (cuda); ferric has neither, and the
    # region computes in float32 anyway, so report the dtype that is actually used
    return _core.float32


def is_autocast_available(device_type: str) -> bool:
    """Whether ``autocast`` accepts ``device_type`` (PyTorch answers for CPU and CUDA).

    Args:
        device_type (str): a device type, ``'cpu'`` or ``'cuda'``...

    Example:
        >>> import ferric
        >>> ferric.is_autocast_available('cpu'), ferric.is_autocast_available('mps')
        (True, False)
    """
    return _device(device_type).type in ("cpu", "cuda")


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an autocast region is active for ``device_type`` (``None`` means CUDA,
    as in PyTorch, so a bare call reports ``False`` inside a CPU region).

    Args:
        device_type (str, optional): the device type to ask about. Default: CUDA.

    Example:
        >>> import ferric
        >>> with ferric.autocast('cpu'):
        ...     print(ferric.is_autocast_enabled('cpu'), ferric.is_autocast_enabled())
        True False
    """
    return _enabled.get("cuda" if device_type is None else device_type, False)


def set_autocast_enabled(device_type, enabled=None) -> None:
    """Switches autocast on or off for ``device_type`` (``set_autocast_enabled(flag)``
    alone means CUDA).

    Args:
        device_type (str): the device type (the flag itself when ``enabled`` is omitted).
        enabled (bool): whether autocast is on.

    Example:
        >>> import ferric
        >>> ferric.set_autocast_enabled('cpu', True)
        >>> ferric.is_autocast_enabled('cpu')
        True
        >>> ferric.set_autocast_enabled('cpu', False)
    """
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _enabled[device_type] = bool(enabled)


def get_autocast_dtype(device_type: str):
    """The dtype autocast casts to on ``device_type``: ferric reports ``float32`` (it has
    no float16/bfloat16; see the module docstring).

    Args:
        device_type (str): the device type to ask about.

    Example:
        >>> import ferric
        >>> ferric.get_autocast_dtype('cpu')
        ferric.float32
    """
    return _dtypes.get(device_type, _default_dtype(device_type))


class autocast:
    """Context manager / decorator for a mixed-precision region, as ``torch.autocast``.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        dtype: the reduced dtype; ferric has none, so ops keep computing in float32.
        enabled (bool): whether the region is active. Default: ``True``
        cache_enabled (bool): accepted for compatibility.

    On ferric, ``device_type="cuda"`` warns and disables the region (no CUDA), exactly
    like a CPU-only PyTorch build; ``device_type="cpu"`` marks the region active
    (``is_autocast_enabled("cpu")``) but changes no results.

    Example:
        >>> import ferric
        >>> with ferric.autocast("cpu"):
        ...     ferric.is_autocast_enabled("cpu"), (ferric.ones(2, 2) @ ferric.ones(2, 2)).dtype
        (True, ferric.float32)
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(
                f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        kind = _device(device_type).type  # unknown names raise PyTorch's RuntimeError
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        if kind == "cuda" and enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                          UserWarning, stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)
        self._saved: list[tuple[bool, object]] = []

    def __enter__(self):
        self._saved.append((is_autocast_enabled(self.device), _dtypes.get(self.device)))
        _enabled[self.device] = self._enabled
        if self.fast_dtype is not None:
            _dtypes[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc):
        was_enabled, dtype = self._saved.pop()
        _enabled[self.device] = was_enabled
        if dtype is None:
            _dtypes.pop(self.device, None)
        else:
            _dtypes[self.device] = dtype
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorated


def custom_fwd(fwd=None, *, device_type: str = "cuda", cast_inputs=None):
    """Decorator for a custom ``Function.forward`` under autocast; ferric runs it as is
    (there is no reduced precision to cast between)."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type: str = "cuda"):
    """Decorator for a custom ``Function.backward`` under autocast; runs it as is."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
