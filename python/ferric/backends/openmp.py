"""``ferric.backends.openmp``: ferric parallelises with its own thread pool; PyTorch's CPU
build reports OpenMP as available, and so does this module (``ferric.set_num_threads``
sizes the pool either way)."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """What PyTorch's CPU build reports: ``True``."""
    return True
