"""ASGD: averaged stochastic gradient descent (Polyak & Juditsky, 1992)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _advance_step, _descent_grad, _scalar_state, _state_lists
from .optimizer import (
    _LEGACY_FLAG_DEFAULTS,
    _check_lr,
    _check_non_negative,
    _ParamwiseOptimizer,
    _to_scalar,
)

__all__ = ["ASGD", "asgd"]


class ASGD(_ParamwiseOptimizer):
    """Implements averaged SGD as PyTorch does.

    ``p = p * (1 - lambd * eta) - eta * g``; the average ``ax`` copies ``p`` until step
    ``t0`` and then moves towards it by ``mu = 1 / max(1, t - t0)``; the rate decays as
    ``eta = lr / (1 + lambd * lr * t) ** alpha``. ``eta`` and ``mu`` are kept per
    parameter as 0-d tensors (float32 by default, so they round like PyTorch's).

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): learning rate (default: 1e-2).
        lambd (float): decay term (default: 1e-4).
        alpha (float): power for the ``eta`` update (default: 0.75).
        t0 (float): step at which averaging starts (default: 1e6).
        weight_decay (float): L2 penalty (default: 0).
        foreach (bool, optional): accepted for PyTorch compatibility; the update is the
            per-tensor one (default: None).
        maximize (bool): maximize the objective instead of minimizing (default: False).
        differentiable (bool): run ``step`` with autograd recording (default: False).
        capturable (bool): graph capture needs an accelerator, so ``step`` raises the
            AssertionError CPU PyTorch raises (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = ferric.optim.ASGD([w], lr=0.1, t0=0)
        >>> w.grad = ferric.tensor([0.5, -3.0])
        >>> opt.step()
        >>> w, opt.state[w]["ax"]
        (tensor([0.9500, 2.3000], requires_grad=True), tensor([0.9500, 2.3000]))
    """

    _legacy_group_defaults = _LEGACY_FLAG_DEFAULTS
    _scalar_state_keys = ("step", "eta", "mu")
    _capturable_operands = "params, mus, etas, and state_steps"

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_non_negative("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        state["eta"] = _scalar_state(_to_scalar(group["lr"]))
        state["mu"] = _scalar_state(1.0)
        state["ax"] = _core.zeros_like(p)

    def _update(self, group, params, grads, states):
        asgd(params, grads, *_state_lists(states, "ax", "mu", "eta", "step"),
             **self._options(group))


def asgd(
    params: list[Tensor],
    grads: list[Tensor],
    axs: list[Tensor],
    mus: list[Tensor],
    etas: list[Tensor],
    state_steps: list[Tensor],
    maximize: bool = False,
    *,
    lambd: float,
    lr: float,
    t0: float,
    alpha: float,
    weight_decay: float,
    **_ignored,
) -> None:
    """Functional ASGD: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = _descent_grad(param, grads[i], maximize, weight_decay)
        ax, mu, eta = axs[i], mus[i], etas[i]
        step = _advance_step(state_steps[i])
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        mu_value = mu.item()
        if mu_value != 1:
            ax.add_(param.sub(ax).mul_(mu_value))
        else:
            ax.copy_(param)
        # PyTorch makes a default-dtype tensor of each new value before copying it in,
        # so they are rounded to that dtype even when the state was loaded as float64
        eta.copy_(_core.tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(_core.tensor(1 / max(1, step - t0)))
