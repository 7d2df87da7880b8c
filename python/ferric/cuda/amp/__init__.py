"""``ferric.cuda.amp``: PyTorch's deprecated spellings of ``ferric.amp`` for CUDA.

Each constructor warns with PyTorch's ``FutureWarning`` and builds the ``ferric.amp``
object for ``device_type="cuda"``, which disables itself on ferric (no CUDA).
"""

from __future__ import annotations

import warnings

from ... import amp as _amp
from ...amp import custom_bwd, custom_fwd

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class GradScaler(_amp.GradScaler):
    """Deprecated ``torch.cuda.amp.GradScaler``: ``ferric.amp.GradScaler("cuda", ...)``
    (disabled, with PyTorch's warnings)."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


class autocast(_amp.autocast):
    """Deprecated ``torch.cuda.amp.autocast``: ``ferric.amp.autocast("cuda", ...)``,
    which warns and disables itself (no CUDA)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
