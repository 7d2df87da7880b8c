"""Adagrad (Duchi et al., 2011)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from .adam import _step_as_tensor
from .optimizer import Optimizer, _run_closure, _to_scalar

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Implements Adagrad as PyTorch does.

    ``s += g * g`` and ``p -= clr * g / (sqrt(s) + eps)`` with the decayed rate
    ``clr = lr / (1 + (t - 1) * lr_decay)``. The accumulator ``s`` starts at
    ``initial_accumulator_value`` and is created for every parameter at construction.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float): learning rate (default: 1e-2).
        lr_decay (float): learning rate decay (default: 0).
        weight_decay (float): L2 penalty (default: 0).
        initial_accumulator_value (float): starting value of the sums (default: 0).
        eps (float): added to the denominator for stability (default: 1e-10).
        maximize (bool): maximize the objective instead of minimizing (default: False).
    """

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        # PyTorch creates the accumulators eagerly, so they are in the state dict
        # before the first step
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group["initial_accumulator_value"])

    def _init_state(self, p: Tensor, initial_value: float) -> None:
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        state["sum"] = _core.full_like(p, initial_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                _step_as_tensor(self.state.get(p))

    def step(self, closure=None):
        """Performs a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, sums, steps = [], [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    # a group added after construction; PyTorch reads the optimizer's
                    # default accumulator value here, not the group's
                    self._init_state(p, self.defaults["initial_accumulator_value"])
                sums.append(state["sum"])
                steps.append(state["step"])
            adagrad(
                params,
                grads,
                sums,
                steps,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
            )
        return loss


def adagrad(
    params: list[Tensor],
    grads: list[Tensor],
    state_sums: list[Tensor],
    state_steps: list[Tensor],
    *,
    lr: float,
    weight_decay: float,
    lr_decay: float,
    eps: float,
    maximize: bool,
    **_ignored,
) -> None:
    """Functional Adagrad: updates ``params`` and the sums in place."""
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps,
                                              strict=True):
        step_t.add_(1)
        step = step_t.item()
        if maximize:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.add_(grad * grad)
        std = state_sum.sqrt().add_(eps)
        param.add_(grad.div(std), alpha=-clr)
