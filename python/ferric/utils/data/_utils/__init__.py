"""Helpers of ``ferric.utils.data`` (``collate``), laid out as in PyTorch."""

from . import collate

__all__ = ["collate"]
