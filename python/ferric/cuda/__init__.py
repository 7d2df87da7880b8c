"""``ferric.cuda``: what ``torch.cuda`` answers on a CPU-only PyTorch build.

ferric has no GPU. Queries that a CPU-only PyTorch answers without initialising CUDA
(``is_available()``, ``device_count()``, the memory counters, the seeding functions,
which queue their work until CUDA would start) return the same values here; everything
that needs a CUDA context raises ``AssertionError: Torch not compiled with CUDA enabled``
exactly as PyTorch does, so ``device = "cuda" if torch.cuda.is_available() else "cpu"``
picks the CPU and scripts that insist on CUDA stop with the familiar message.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from .._device import _CUDA_MESSAGE
from . import amp

__all__ = [
    "FloatTensor", "DoubleTensor", "LongTensor", "BoolTensor", "amp", "current_device",
    "device", "device_count", "empty_cache", "get_arch_list", "get_device_capability",
    "get_device_name", "get_device_properties", "get_rng_state", "get_rng_state_all",
    "init", "initial_seed", "ipc_collect", "is_available", "is_bf16_supported",
    "is_initialized", "manual_seed", "manual_seed_all", "max_memory_allocated",
    "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_cached",
    "memory_reserved", "memory_stats", "reset_max_memory_allocated",
    "reset_peak_memory_stats", "seed", "seed_all", "set_device", "synchronize",
]


def _not_compiled(*args, **kwargs):
    """Raises what every CUDA-initialising call raises on a CPU-only build."""
    raise AssertionError(_CUDA_MESSAGE)


def is_available() -> bool:
    """Whether CUDA can be used: always ``False`` (ferric runs on the CPU)."""
    return False


def device_count() -> int:
    """Number of CUDA devices: ``0``."""
    return 0


def is_initialized() -> bool:
    """Whether CUDA has been initialised: never."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether CUDA supports bfloat16 here: ``False`` (no CUDA)."""
    return False


def get_arch_list() -> list:
    """CUDA architectures this build supports: none."""
    return []


def get_rng_state_all() -> list:
    """Random states of all CUDA devices: an empty list (there are none)."""
    return []


# Seeding is queued until CUDA initialises (which never happens here), so these succeed
# silently, as in PyTorch; a script that seeds "everything" keeps working.
def manual_seed(seed: int) -> None:
    """Seeds the current CUDA device: a no-op without CUDA, as in PyTorch."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Seeds all CUDA devices: a no-op without CUDA, as in PyTorch."""
    int(seed)


def seed() -> None:
    """Seeds the current CUDA device randomly: a no-op without CUDA."""


def seed_all() -> None:
    """Seeds all CUDA devices randomly: a no-op without CUDA."""


def empty_cache() -> None:
    """Releases cached CUDA memory: nothing to release, returns ``None``."""


def memory_allocated(device=None) -> int:
    """Bytes of CUDA memory held by tensors: ``0``."""
    return 0


def max_memory_allocated(device=None) -> int:
    """Peak bytes of CUDA memory held by tensors: ``0``."""
    return 0


def memory_reserved(device=None) -> int:
    """Bytes of CUDA memory held by the caching allocator: ``0``."""
    return 0


def max_memory_reserved(device=None) -> int:
    """Peak bytes of CUDA memory held by the caching allocator: ``0``."""
    return 0


def memory_cached(device=None) -> int:
    """Deprecated name of :func:`memory_reserved` (warns as PyTorch does)."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def memory_stats(device=None) -> OrderedDict:
    """The caching allocator's statistics: empty without CUDA."""
    return OrderedDict()


def reset_peak_memory_stats(device=None) -> None:
    """Raises PyTorch's ``RuntimeError``: there is no CUDA allocator to reset."""
    raise RuntimeError("invalid argument to reset_peak_memory_stats")


def reset_max_memory_allocated(device=None) -> None:
    """Raises PyTorch's ``RuntimeError``: there is no CUDA allocator to reset."""
    raise RuntimeError("invalid argument to reset_peak_memory_stats")


# Everything below needs a CUDA context: CPU-only PyTorch raises from _lazy_init.
synchronize = _not_compiled
current_device = _not_compiled
get_device_name = _not_compiled
get_device_capability = _not_compiled
get_device_properties = _not_compiled
set_device = _not_compiled
init = _not_compiled
initial_seed = _not_compiled
get_rng_state = _not_compiled
set_rng_state = _not_compiled
mem_get_info = _not_compiled
ipc_collect = _not_compiled
current_stream = _not_compiled
default_stream = _not_compiled


class device:
    """Context manager that selects a CUDA device: constructing it works, entering it
    raises ``AssertionError`` (no CUDA), as on a CPU-only PyTorch build."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        _not_compiled()

    def __exit__(self, *exc):
        return False


class _CudaTensorType(type):
    """Metaclass of the ``torch.cuda.*Tensor`` names: using one raises (no CUDA)."""

    def __call__(cls, *args, **kwargs):
        _not_compiled()

    def __instancecheck__(cls, obj):
        return False


class FloatTensor(metaclass=_CudaTensorType):
    """``torch.cuda.FloatTensor``: constructing one raises (no CUDA)."""


class DoubleTensor(metaclass=_CudaTensorType):
    """``torch.cuda.DoubleTensor``: constructing one raises (no CUDA)."""


class LongTensor(metaclass=_CudaTensorType):
    """``torch.cuda.LongTensor``: constructing one raises (no CUDA)."""


class BoolTensor(metaclass=_CudaTensorType):
    """``torch.cuda.BoolTensor``: constructing one raises (no CUDA)."""
