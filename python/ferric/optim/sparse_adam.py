"""SparseAdam: the lazy Adam variant for sparse gradients."""

from __future__ import annotations

from .._core import Tensor
from .optimizer import _check_betas, _check_lr, _check_non_negative, _ParamwiseOptimizer

__all__ = ["SparseAdam"]


class SparseAdam(_ParamwiseOptimizer):
    """SparseAdam's constructor, options and state dict as PyTorch has them.

    PyTorch's SparseAdam only accepts sparse gradients (from ``nn.Embedding(...,
    sparse=True)``) and raises ``RuntimeError("SparseAdam does not support dense
    gradients, please consider Adam instead")`` for a dense one. ferric has no sparse
    tensors — its ``Embedding(sparse=True)`` produces dense gradients — so ``step``
    raises that error for any parameter that has a gradient, exactly where PyTorch
    raises it for dense gradients.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): learning rate, > 0 (default: 1e-3).
        betas (tuple[float, float]): running-average coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator for stability, > 0 (default: 1e-8).
        maximize (bool): maximize the objective instead of minimizing (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.ones(3, requires_grad=True)
        >>> opt = ferric.optim.SparseAdam([w])
        >>> opt.defaults
        {'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'maximize': False}
        >>> w.grad = ferric.ones(3)
        >>> opt.step()
        Traceback (most recent call last):
        ...
        RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead
    """

    _scalar_state_keys = ()

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        _check_lr(lr, positive=True)
        _check_non_negative("epsilon", eps, positive=True)
        _check_betas(betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does "
                             "not support complex parameters")

    def _check_grad(self, grad: Tensor) -> None:
        if not getattr(grad, "is_sparse", False):
            raise RuntimeError(
                "SparseAdam does not support dense gradients, please consider Adam instead"
            )

    def _update(self, group, params, grads, states):
        # only parameters without a gradient get here: _check_grad refuses every
        # gradient ferric can make
        if params:
            raise NotImplementedError("SparseAdam's update needs sparse gradients")
