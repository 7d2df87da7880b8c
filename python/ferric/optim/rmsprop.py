"""RMSprop (Hinton's lecture notes; centered variant from Graves, 2013)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _descent_grad, _lerp_, _state_lists
from .optimizer import _check_lr, _check_non_negative, _ParamwiseOptimizer, _to_scalar

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(_ParamwiseOptimizer):
    """Implements RMSprop as PyTorch does.

    ``v = alpha * v + (1 - alpha) * g * g``; the denominator is ``sqrt(v) + eps`` (or,
    ``centered``, ``sqrt(v - gbar**2) + eps`` with ``gbar`` the running mean of ``g``).
    Without momentum ``p -= lr * g / denom``; with momentum ``b = momentum * b + g / denom``
    and ``p -= lr * b``.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float): learning rate (default: 1e-2).
        alpha (float): smoothing constant (default: 0.99).
        eps (float): added to the denominator for stability (default: 1e-8).
        weight_decay (float): L2 penalty (default: 0).
        momentum (float): momentum factor (default: 0).
        centered (bool): normalize by the estimated gradient variance (default: False).
        maximize (bool): maximize the objective instead of minimizing (default: False).
    """

    _legacy_group_defaults = {"momentum": 0, "centered": False, "foreach": None,
                              "maximize": False, "differentiable": False,
                              "capturable": False}
    _zeros_state = ("square_avg",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_non_negative("epsilon", eps)
        _check_non_negative("momentum", momentum)
        _check_non_negative("weight_decay", weight_decay)
        _check_non_negative("alpha", alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _core.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = _core.zeros_like(p)

    def _update(self, group, params, grads, states):
        square_avgs, steps = _state_lists(states, "square_avg", "step")
        grad_avgs = [s["grad_avg"] for s in states] if group["centered"] else []
        bufs = [s["momentum_buffer"] for s in states] if group["momentum"] > 0 else []
        rmsprop(params, grads, square_avgs, grad_avgs, bufs, steps, **self._options(group))


def rmsprop(
    params: list[Tensor],
    grads: list[Tensor],
    square_avgs: list[Tensor],
    grad_avgs: list[Tensor],
    momentum_buffer_list: list[Tensor],
    state_steps: list[Tensor],
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
    **_ignored,
) -> None:
    """Functional RMSprop: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = _descent_grad(param, grads[i], maximize, weight_decay)
        square_avg = square_avgs[i]
        state_steps[i].add_(1)
        square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = square_avg.sub(grad_avg * grad_avg).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).add_(grad.div(avg))
            param.add_(buf, alpha=-lr)
        else:
            param.add_(grad.div(avg), alpha=-lr)
