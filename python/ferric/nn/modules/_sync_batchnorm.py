"""``SyncBatchNorm``: batch norm whose statistics cover the batch of every process.

Forward all-reduces each channel's sum and element count, then the sum of squared
deviations from the global mean (two passes: as accurate as one process over the whole
batch). Backward all-reduces ``sum(dy)`` and ``sum(dy * (x - mean))`` so the input
gradient is that of the global batch; the weight and bias gradients stay local and
DistributedDataParallel averages them like any other gradient.
"""

from __future__ import annotations

from ... import _core
from ... import distributed as dist
from ...autograd.function import Function
from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _channel_dims(x):
    return [0] + list(range(2, x.dim()))


def _bshape(x):
    return [1, x.shape[1]] + [1] * (x.dim() - 2)


class _SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, eps, momentum, group):
        x = x.contiguous()
        channels = x.shape[1]
        dims = _channel_dims(x)
        shape = _bshape(x)
        local_count = x.numel() // channels if channels else 0
        stats = _core.cat([x.sum(dims), _core.full((1,), float(local_count), dtype=x.dtype)])
        dist.all_reduce(stats, group=group)
        count = float(stats[channels].item())
        if count <= 1 and running_mean is not None:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(x.shape)} summed over all processes")
        mean = stats[:channels] / count
        centered = x - mean.view(shape)
        sq = (centered * centered).sum(dims)
        dist.all_reduce(sq, group=group)
        var = sq / count
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var * (count / (count - 1)) * momentum)
        y = centered * invstd.view(shape)
        if weight is not None:
            y = y * weight.view(shape)
        if bias is not None:
            y = y + bias.view(shape)
        ctx.save_for_backward(centered, weight, invstd)
        ctx.count = count
        ctx.group = group
        return y

    @staticmethod
    def backward(ctx, grad_out):
        centered, weight, invstd = ctx.saved_tensors
        grad_out = grad_out.contiguous()
        dims = _channel_dims(grad_out)
        shape = _bshape(grad_out)
        channels = grad_out.shape[1]
        sum_dy = grad_out.sum(dims)
        sum_dy_xmu = (grad_out * centered).sum(dims)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            both = _core.cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(both, group=ctx.group)
            mean_dy = both[:channels] / ctx.count
            mean_dy_xmu = both[channels:] / ctx.count
            scale = invstd if weight is None else invstd * weight
            grad_input = (grad_out - mean_dy.view(shape)
                          - centered * (invstd * invstd * mean_dy_xmu).view(shape)) \
                * scale.view(shape)
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = sum_dy_xmu * invstd
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            grad_bias = sum_dy
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    r"""Batch norm over ``(N, C, *)`` inputs whose training statistics are taken over the
    batches of all processes of ``process_group`` (the default group when None).

    Outside a process group, or with one process, or in eval mode, it is plain batch
    norm. Use :meth:`convert_sync_batchnorm` to swap the BatchNorm layers of a model.

    Args:
        num_features (int): ``C``.
        eps, momentum, affine, track_running_stats: as in ``BatchNorm1d``.
        process_group (ProcessGroup, optional): the processes to synchronise over.

    Example:
        >>> from ferric import nn
        >>> nn.SyncBatchNorm(3)
        SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_running else None
        running_var = self.running_var if use_running else None
        group = self.process_group
        sync = bn_training and self.training and dist.is_initialized()
        if sync:
            sync = dist.get_world_size(group) > 1
        if not sync:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                bn_training, factor, self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean,
                                            running_var, self.eps, factor, group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        r"""Returns ``module`` with every ``BatchNorm*d`` layer replaced by a
        ``SyncBatchNorm`` sharing its parameters and buffers (``module`` itself when it is
        a BatchNorm layer, a new one is returned).

        Example:
            >>> from ferric import nn
            >>> net = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
            >>> type(nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
            'SyncBatchNorm'
        """
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                module.affine, module.track_running_stats, process_group)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out
