"""``ferric.cuda.amp``: PyTorch's deprecated spellings of ``ferric.amp`` for CUDA.

Each constructor warns with PyTorch's ``FutureWarning`` and builds the ``ferric.amp``
object for ``device_type="cuda"``, which disables itself on ferric (no CUDA).
"""

from __future__ import annotations

from ...amp import custom_bwd, custom_fwd
from ...amp._deprecated import _DeviceAutocast, _DeviceGradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class GradScaler(_DeviceGradScaler):
    """Deprecated ``torch.cuda.amp.GradScaler``: ``ferric.amp.GradScaler("cuda", ...)``
    (disabled, with PyTorch's warnings)."""

    _device = "cuda"


class autocast(_DeviceAutocast):
    """Deprecated ``torch.cuda.amp.autocast``: ``ferric.amp.autocast("cuda", ...)``,
    which warns and disables itself (no CUDA)."""

    _device = "cuda"
