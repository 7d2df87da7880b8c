"""Instance normalization: ``InstanceNorm1d/2d/3d``."""

from __future__ import annotations

from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _spatial = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        batched_dim = self._spatial + 2
        if input.dim() not in (batched_dim - 1, batched_dim):
            raise ValueError(
                f"expected {batched_dim - 1}D or {batched_dim}D input (got {input.dim()}D "
                "input)"
            )
        unbatched = input.dim() == batched_dim - 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(
            x, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats, self.momentum or 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    _spatial = 3
