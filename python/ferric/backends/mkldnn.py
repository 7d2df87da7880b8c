"""``ferric.backends.mkldnn``: oneDNN flags, with the values CPU-only PyTorch reports
(ferric's own kernels do not use oneDNN; the flags are kept for scripts that set them)."""

from __future__ import annotations

__all__ = ["enabled", "is_available"]

enabled = True


def is_available() -> bool:
    """What PyTorch's CPU build reports: ``True``."""
    return True
