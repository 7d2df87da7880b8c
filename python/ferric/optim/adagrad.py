"""Adagrad (Duchi et al., 2011)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _advance_step, _descent_grad, _state_lists
from .optimizer import (
    _check_fused_flags,
    _check_lr,
    _check_non_negative,
    _ParamwiseOptimizer,
    _to_scalar,
)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(_ParamwiseOptimizer):
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

    _legacy_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "fused": None}

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
        _check_lr(lr)
        _check_non_negative("lr_decay", lr_decay)
        _check_non_negative("weight_decay", weight_decay)
        _check_non_negative("initial_accumulator_value", initial_accumulator_value)
        _check_non_negative("epsilon", eps)
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
        _check_fused_flags(fused, foreach, differentiable)
        # PyTorch creates the accumulators eagerly, so they are in the state dict
        # before the first step
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def _init_state(self, p, state, group):
        # PyTorch fills every accumulator with the constructor's value, even in a group
        # that sets its own initial_accumulator_value
        super()._init_state(p, state, group)
        state["sum"] = _core.full_like(p, self.defaults["initial_accumulator_value"])

    def _update(self, group, params, grads, states):
        adagrad(params, grads, *_state_lists(states, "sum", "step"), **self._options(group))


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
        step = _advance_step(step_t)
        grad = _descent_grad(param, grad, maximize, weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.add_(grad * grad)
        std = state_sum.sqrt().add_(eps)
        param.add_(grad.div(std), alpha=-clr)
