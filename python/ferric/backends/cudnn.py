"""``ferric.backends.cudnn``: cuDNN flags; cuDNN itself is absent (CPU-only answers)."""

from __future__ import annotations

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_acceptable",
           "is_available", "version"]

# plain module attributes, as in PyTorch: assignments stick and change nothing in ferric
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN can be used: ``False``."""
    return False


def version():
    """cuDNN's version: ``None`` (not present)."""
    return None


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would accept ``tensor``: never (no cuDNN, CPU tensors)."""
    return False
