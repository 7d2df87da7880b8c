"""The constructors behind PyTorch's deprecated per-device spellings of ``ferric.amp``
(``ferric.cpu.amp`` and ``ferric.cuda.amp``): each warns with PyTorch's
``FutureWarning`` and builds the ``ferric.amp`` object for its class's ``_device``."""

from __future__ import annotations

import warnings

from .autocast_mode import autocast
from .grad_scaler import GradScaler


def _warn_deprecated(device, name):
    warnings.warn(
        f"`torch.{device}.amp.{name}(args...)` is deprecated. Please use "
        f"`torch.amp.{name}('{device}', args...)` instead.", FutureWarning, stacklevel=3)


class _DeviceAutocast(autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _warn_deprecated(self._device, "autocast")
        super().__init__(self._device, enabled=enabled, dtype=dtype,
                         cache_enabled=cache_enabled)


class _DeviceGradScaler(GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _warn_deprecated(self._device, "GradScaler")
        super().__init__(self._device, init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
