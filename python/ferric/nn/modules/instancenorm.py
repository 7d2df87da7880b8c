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

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        # unversioned (pre-0.4) checkpoints stored running stats that modules without
        # track_running_stats no longer have: PyTorch reports them with this message
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var")
                    if prefix + n in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running "
                    "stats by default since 0.4.0. Please remove these keys from "
                    "state_dict. If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the "
                    f"documentation of {klass} for details."
                )
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

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
    """Instance normalization over each channel of each sample of a :math:`(N, C, L)` input: zero
    mean and unit variance over the spatial dimensions, then an optional per-channel affine map.

    Args:
        num_features (int): :math:`C`.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): running-statistics update rate. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool): keep running mean/variance for eval. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.InstanceNorm1d(2)
        >>> y = m(ferric.randn(3, 2, 5))
        >>> y.mean(dim=(2,)).abs().max().item() < 1e-5
        True
    """
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization over each channel of each sample of a :math:`(N, C, H, W)` input:
    zero mean and unit variance over the spatial dimensions, then an optional per-channel affine
    map.

    Args:
        num_features (int): :math:`C`.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): running-statistics update rate. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool): keep running mean/variance for eval. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.InstanceNorm2d(2)
        >>> y = m(ferric.randn(3, 2, 5, 5))
        >>> y.mean(dim=(2, 3)).abs().max().item() < 1e-5
        True
    """
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization over each channel of each sample of a :math:`(N, C, D, H, W)` input:
    zero mean and unit variance over the spatial dimensions, then an optional per-channel affine
    map.

    Args:
        num_features (int): :math:`C`.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): running-statistics update rate. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool): keep running mean/variance for eval. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.InstanceNorm3d(2)
        >>> y = m(ferric.randn(3, 2, 5, 5, 5))
        >>> y.mean(dim=(2, 3, 4)).abs().max().item() < 1e-5
        True
    """
    _spatial = 3
