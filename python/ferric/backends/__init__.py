"""``ferric.backends``: the backend flags scripts set or query, as a CPU-only PyTorch
build reports them. ferric's kernels read none of them (they are always deterministic
for a fixed thread count and have no autotuning); the flags keep their values so that
``torch.backends.cudnn.benchmark = True`` and friends run unchanged."""

from __future__ import annotations

from . import cuda, cudnn, mkl, mkldnn, mps, openmp

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
