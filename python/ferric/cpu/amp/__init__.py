"""``ferric.cpu.amp``: PyTorch's deprecated spelling of ``ferric.amp`` for the CPU."""

from __future__ import annotations

import warnings

from ... import amp as _amp

__all__ = ["GradScaler", "autocast"]


class autocast(_amp.autocast):
    """Deprecated ``torch.cpu.amp.autocast``: ``ferric.amp.autocast("cpu", ...)`` (warns
    as PyTorch does; see ``ferric.amp.autocast`` for what it does on ferric)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """Deprecated ``torch.cpu.amp.GradScaler``: ``ferric.amp.GradScaler("cpu", ...)``."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn(
            "`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
