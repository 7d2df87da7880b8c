"""``ferric.cpu.amp``: PyTorch's deprecated spelling of ``ferric.amp`` for the CPU."""

from __future__ import annotations

from ...amp._deprecated import _DeviceAutocast, _DeviceGradScaler

__all__ = ["GradScaler", "autocast"]


class autocast(_DeviceAutocast):
    """Deprecated ``torch.cpu.amp.autocast``: ``ferric.amp.autocast("cpu", ...)`` (warns
    as PyTorch does; see ``ferric.amp.autocast`` for what it does on ferric)."""

    _device = "cpu"


class GradScaler(_DeviceGradScaler):
    """Deprecated ``torch.cpu.amp.GradScaler``: ``ferric.amp.GradScaler("cpu", ...)``."""

    _device = "cpu"
