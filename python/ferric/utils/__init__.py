"""Utilities (``ferric.utils``): ``data`` (datasets, samplers, ``DataLoader``),
``hooks`` (removable hook handles) and ``checkpoint`` (activation checkpointing)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
