"""Utilities (``ferric.utils``): ``data`` (datasets, samplers, ``DataLoader``) and
``hooks`` (removable hook handles)."""

from . import data, hooks

__all__ = ["data", "hooks"]
