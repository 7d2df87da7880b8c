"""Batch normalization: ``BatchNorm1d/2d/3d`` (running statistics as buffers)."""

from __future__ import annotations

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]


class _NormBase(Module):
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        dt = {} if dtype is None else {"dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_core.empty(num_features, **dt))
            if bias:
                self.bias = Parameter(_core.empty(num_features, **dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _core.zeros(num_features, **dt))
            self.register_buffer("running_var", _core.ones(num_features, **dt))
            self.register_buffer("num_batches_tracked", _core.tensor(0, dtype=_core.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        # version 2 added num_batches_tracked: state dicts without a version (plain
        # dicts, old checkpoints) may lack it, and keep the module's own count
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked
                                   if self.num_batches_tracked is not None
                                   else _core.tensor(0, dtype=_core.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                # cumulative moving average of all batches seen so far
                factor = 1.0 / float(self.num_batches_tracked)
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight, self.bias, bn_training, factor, self.eps,
        )


class BatchNorm1d(_BatchNorm):
    r"""Batch norm over ``(N, C)`` or ``(N, C, L)`` inputs.

    Example:
        >>> from ferric import nn
        >>> nn.BatchNorm1d(3)
        BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    r"""Batch norm over ``(N, C, H, W)`` inputs."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    r"""Batch norm over ``(N, C, D, H, W)`` inputs."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        # affine and track_running_stats off: no tensors that would be thrown away
        super().__init__(0, eps, momentum, False, False, dtype=dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(dtype=dtype)
            self.bias = UninitializedParameter(dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _core.tensor(0, dtype=_core.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _check_input_dim(self, input):
        # the checks of the class the module becomes (BatchNorm1d for LazyBatchNorm1d, ...)
        self.cls_to_become._check_input_dim(self, input)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self._plain_buffers()
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    r"""A :class:`BatchNorm1d` whose ``num_features`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.LazyBatchNorm1d()
        >>> m(ferric.randn(4, 3)).shape, m.running_mean.shape
        (ferric.Size([4, 3]), ferric.Size([3]))
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    r"""A :class:`BatchNorm2d` whose ``num_features`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LazyBatchNorm2d()(ferric.randn(2, 3, 4, 4)).shape
        ferric.Size([2, 3, 4, 4])
    """

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    r"""A :class:`BatchNorm3d` whose ``num_features`` comes from the first input.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.LazyBatchNorm3d()(ferric.randn(2, 3, 2, 2, 2)).shape
        ferric.Size([2, 3, 2, 2, 2])
    """

    cls_to_become = BatchNorm3d


__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d"]
