"""Adadelta (Zeiler, 2012)."""

from __future__ import annotations

from .._core import Tensor
from ._ops import _addcmul_, _descent_grad, _state_lists
from .optimizer import (
    _LEGACY_FLAG_DEFAULTS,
    _check_lr,
    _check_non_negative,
    _ParamwiseOptimizer,
    _to_scalar,
)

__all__ = ["Adadelta", "adadelta"]


class Adadelta(_ParamwiseOptimizer):
    """Implements Adadelta as PyTorch does.

    ``v = rho * v + (1 - rho) * g * g``;
    ``delta = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho * u + (1 - rho) * delta * delta``; ``p -= lr * delta``.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): scale of ``delta`` (default: 1.0).
        rho (float): running-average coefficient (default: 0.9).
        eps (float): added inside the square roots for stability (default: 1e-6).
        weight_decay (float): L2 penalty (default: 0).
        foreach (bool, optional): accepted for PyTorch compatibility; the update is the
            per-tensor one (default: None).
        capturable (bool): graph capture needs an accelerator, so ``step`` raises the
            AssertionError CPU PyTorch raises (default: False).
        maximize (bool): maximize the objective instead of minimizing (default: False).
        differentiable (bool): run ``step`` with autograd recording (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = ferric.optim.Adadelta([w])
        >>> w.grad = ferric.tensor([0.5, -3.0])
        >>> opt.step()
        >>> w
        tensor([0.9968, 2.0032], requires_grad=True)
    """

    _legacy_group_defaults = _LEGACY_FLAG_DEFAULTS
    _capturable_on_xla = False
    _zeros_state = ("square_avg", "acc_delta")

    def __init__(
        self,
        params,
        lr: float | Tensor = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_non_negative("epsilon", eps)
        _check_non_negative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group, params, grads, states):
        adadelta(params, grads, *_state_lists(states, "square_avg", "acc_delta", "step"),
                 **self._options(group))


def adadelta(
    params: list[Tensor],
    grads: list[Tensor],
    square_avgs: list[Tensor],
    acc_deltas: list[Tensor],
    state_steps: list[Tensor],
    maximize: bool = False,
    *,
    lr: float,
    rho: float,
    eps: float,
    weight_decay: float,
    **_ignored,
) -> None:
    """Functional Adadelta: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(
        params, grads, square_avgs, acc_deltas, state_steps, strict=True
    ):
        step.add_(1)
        grad = _descent_grad(param, grad, maximize, weight_decay)
        _addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        _addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
        param.add_(delta, alpha=-lr)
