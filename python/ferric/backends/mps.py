"""``ferric.backends.mps``: Apple's Metal backend is neither built nor available."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether MPS can be used: ``False``."""
    return False


def is_built() -> bool:
    """Whether this build has MPS support: ``False``."""
    return False
