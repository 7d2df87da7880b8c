"""RMSprop (Hinton's lecture notes; centered variant from Graves, 2013)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from .adam import _lerp_, _new_step, _step_as_tensor
from .optimizer import Optimizer, _run_closure, _to_scalar

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
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
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
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

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                _step_as_tensor(self.state.get(p))

    def step(self, closure=None):
        """Performs a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, bufs, steps = [], [], [], [], [], []
            momentum, centered = group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step()
                    state["square_avg"] = _core.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _core.zeros_like(p)
                    if centered:
                        state["grad_avg"] = _core.zeros_like(p)
                square_avgs.append(state["square_avg"])
                steps.append(state["step"])
                if momentum > 0:
                    bufs.append(state["momentum_buffer"])
                if centered:
                    grad_avgs.append(state["grad_avg"])
            rmsprop(
                params,
                grads,
                square_avgs,
                grad_avgs,
                bufs,
                steps,
                lr=group["lr"],
                alpha=group["alpha"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                momentum=momentum,
                centered=centered,
                maximize=group["maximize"],
            )
        return loss


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
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        state_steps[i].add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
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
