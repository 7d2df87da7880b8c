"""``ferric.backends.cuda``: CUDA is not built in (a CPU-only build's answers)."""

from __future__ import annotations

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """Whether this build has CUDA support: ``False``."""
    return False


class _MatmulFlags:
    """``backends.cuda.matmul``: TF32/reduced-precision switches (stored, unused)."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def flash_sdp_enabled() -> bool:
    """Whether the flash attention kernel may be chosen (PyTorch's default flag)."""
    return True


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient attention kernel may be chosen (default flag)."""
    return True


def math_sdp_enabled() -> bool:
    """Whether the reference attention kernel may be chosen (default flag)."""
    return True
