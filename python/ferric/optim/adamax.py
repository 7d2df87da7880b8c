"""Adamax: Adam with the infinity norm (Kingma & Ba, 2014, section 7)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _addcdiv_, _advance_step, _descent_grad, _lerp_, _state_lists
from .optimizer import _LEGACY_FLAG_DEFAULTS, _check_adam_family, _ParamwiseOptimizer, _to_scalar

__all__ = ["Adamax", "adamax"]


class Adamax(_ParamwiseOptimizer):
    """Implements Adamax as PyTorch does.

    ``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 * u, |g| + eps)`` (elementwise) and
    ``p -= lr / (1 - beta1**t) * m / u``.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): learning rate (default: 2e-3).
        betas (tuple[float, float]): running-average coefficients (default: (0.9, 0.999)).
        eps (float): added to ``|g|`` for stability (default: 1e-8).
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
        >>> opt = ferric.optim.Adamax([w], lr=0.1)
        >>> w.grad = ferric.tensor([0.5, -3.0])
        >>> opt.step()
        >>> w
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    _legacy_group_defaults = _LEGACY_FLAG_DEFAULTS
    _zeros_state = ("exp_avg", "exp_inf")

    def __init__(
        self,
        params,
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_adam_family(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, group, params, grads, states):
        adamax(params, grads, *_state_lists(states, "exp_avg", "exp_inf", "step"),
               **self._options(group))


def adamax(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_infs: list[Tensor],
    state_steps: list[Tensor],
    maximize: bool = False,
    *,
    eps: float,
    beta1: float,
    beta2: float,
    lr: float,
    weight_decay: float,
    **_ignored,
) -> None:
    """Functional Adamax: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = _descent_grad(param, grads[i], maximize, weight_decay)
        exp_avg, exp_inf = exp_avgs[i], exp_infs[i]
        step = _advance_step(state_steps[i])
        _lerp_(exp_avg, grad, 1 - beta1)
        # the exponentially weighted infinity norm (NaN propagates, as in torch.maximum)
        exp_inf.copy_(_core.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
        clr = lr / (1 - beta1**step)
        _addcdiv_(param, exp_avg, exp_inf, -clr)
