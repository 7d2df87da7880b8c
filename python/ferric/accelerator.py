"""``ferric.accelerator``: the device-agnostic accelerator API, as on a CPU-only PyTorch
build: there is no accelerator, so scripts that ask fall back to the CPU, and calls that
need one raise PyTorch's ``RuntimeError``."""

from __future__ import annotations

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "device_count", "is_available", "set_device_idx", "set_device_index",
           "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator is available: ``False``."""
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator's device type: ``None`` (there is none)."""
    return None


def device_count() -> int:
    """Number of accelerator devices: ``0``."""
    return 0


def current_device_index() -> int:
    """Raises ``RuntimeError``: there is no accelerator."""
    raise RuntimeError(_NONE)


def set_device_index(device) -> None:
    """Raises ``RuntimeError``: there is no accelerator."""
    raise RuntimeError(_NONE)


def synchronize(device=None) -> None:
    """Raises ``RuntimeError``: there is no accelerator."""
    raise RuntimeError(_NONE)


current_device_idx = current_device_index
set_device_idx = set_device_index
