"""``ferric.cpu``: the CPU device module, as ``torch.cpu`` (the CPU is always there)."""

from __future__ import annotations

from . import amp

__all__ = ["amp", "current_device", "device_count", "is_available", "is_initialized",
           "set_device", "synchronize"]


def is_available() -> bool:
    """The CPU is always available."""
    return True


def is_initialized() -> bool:
    """The CPU needs no initialisation."""
    return True


def device_count() -> int:
    """PyTorch counts the CPU as one device."""
    return 1


def current_device() -> str:
    """The current CPU device: ``'cpu'``."""
    return "cpu"


def set_device(device) -> None:
    """Selecting a CPU device does nothing (there is one)."""


def synchronize(device=None) -> None:
    """CPU work is synchronous: nothing to wait for."""
