"""``ferric.amp``: automatic mixed precision entry points (``autocast``, ``GradScaler``).

ferric computes in float32/float64 and has no float16/bfloat16 yet, so mixed precision
cannot speed anything up; these objects exist so that training scripts written with AMP
run unchanged and report the state PyTorch would report.
"""

from __future__ import annotations

from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
    set_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype",
           "is_autocast_available", "is_autocast_enabled", "set_autocast_enabled"]
