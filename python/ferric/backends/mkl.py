"""``ferric.backends.mkl``: what PyTorch's x86 CPU build reports about MKL."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """What PyTorch's CPU build reports: ``True``."""
    return True
