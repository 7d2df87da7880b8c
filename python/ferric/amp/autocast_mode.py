"""``autocast``: the mixed-precision region, with PyTorch's state, warnings and CPU
cast policy.

Inside an enabled ``autocast("cpu")`` region (default dtype bfloat16, float16 allowed)
ops follow PyTorch's CPU policy: the matrix products and convolutions (``matmul``,
``mm``, ``bmm``, ``addmm``, ``baddbmm``, ``linear``, ``einsum``, ``conv1d/2d/3d``,
``conv_transpose1d/2d/3d``, ``prelu``, ``scaled_dot_product_attention``) cast their
floating inputs to the autocast dtype; the losses, ``cdist``, ``prod``,
``local_response_norm`` and the ``linalg`` decompositions cast them to float32; float64
tensors are never cast, and every other op runs in its inputs' dtype. The state lives
in the extension (``_core._set_autocast_cpu_dtype``) so the Rust bindings read it with
no Python call. ``device_type="cuda"`` warns and disables itself as on a CPU-only
PyTorch build.
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
# how many autocast regions are open: leaving the outermost one empties the cast cache
# (PyTorch's autocast_increment_nesting / autocast_decrement_nesting)
_nesting = 0


def _default_dtype(device_type: str):
    # PyTorch's defaults: bfloat16 on CPU, float16 on CUDA
    return _core.bfloat16 if device_type == "cpu" else _core.float16


def _sync_cpu() -> None:
    """Hands the CPU region's state to the extension, which applies the casts."""
    on = _enabled.get("cpu", False)
    _core._set_autocast_cpu_dtype(get_autocast_dtype("cpu") if on else None)


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
    if device_type == "cpu":
        _sync_cpu()


def get_autocast_dtype(device_type: str):
    """The dtype autocast casts to on ``device_type`` (bfloat16 on CPU unless a region
    chose float16, as PyTorch).

    Args:
        device_type (str): the device type to ask about.

    Example:
        >>> import ferric
        >>> ferric.get_autocast_dtype('cpu')
        ferric.bfloat16
    """
    return _dtypes.get(device_type, _default_dtype(device_type))


class autocast:
    """Context manager / decorator for a mixed-precision region, as ``torch.autocast``.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        dtype: the lower-precision dtype (``ferric.bfloat16`` by default on CPU, or
            ``ferric.float16``).
        enabled (bool): whether the region is active. Default: ``True``
        cache_enabled (bool, optional): whether the lower-precision casts of the weights
            (leaf tensors that require grad) are cached for the region, so a weight used by
            several ops is cast once. Default: :func:`ferric.is_autocast_cache_enabled`
            (True). The cache is emptied when the outermost region exits.

    On ferric, ``device_type="cuda"`` warns and disables the region (no CUDA), exactly
    like a CPU-only PyTorch build; ``device_type="cpu"`` applies PyTorch's CPU cast policy
    (see the module docstring).

    Example:
        >>> import ferric
        >>> with ferric.autocast("cpu"):
        ...     ferric.is_autocast_enabled("cpu"), (ferric.ones(2, 2) @ ferric.ones(2, 2)).dtype
        (True, ferric.bfloat16)
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
        if (kind == "cpu" and enabled
                and self.fast_dtype not in (_core.bfloat16, _core.float16)):
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 "
                "currently.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)
        self._cache_enabled = (_core.is_autocast_cache_enabled() if cache_enabled is None
                               else bool(cache_enabled))
        self._saved: list[tuple[bool, object, bool]] = []

    def __enter__(self):
        global _nesting
        self._saved.append((is_autocast_enabled(self.device), _dtypes.get(self.device),
                            _core.is_autocast_cache_enabled()))
        _core.set_autocast_cache_enabled(self._cache_enabled)
        _nesting += 1
        _enabled[self.device] = self._enabled
        if self.fast_dtype is not None and self._enabled:
            _dtypes[self.device] = self.fast_dtype
        if self.device == "cpu":
            _sync_cpu()
        return self

    def __exit__(self, *exc):
        global _nesting
        was_enabled, dtype, cache_was = self._saved.pop()
        _nesting -= 1
        if _nesting == 0:
            _core.clear_autocast_cache()
        _core.set_autocast_cache_enabled(cache_was)
        _enabled[self.device] = was_enabled
        if dtype is None:
            _dtypes.pop(self.device, None)
        else:
            _dtypes[self.device] = dtype
        if self.device == "cpu":
            _sync_cpu()
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
