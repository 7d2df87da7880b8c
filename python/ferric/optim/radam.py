"""RAdam: Adam with the variance of its adaptive rate rectified (Liu et al., 2019)."""

from __future__ import annotations

from .._core import Tensor
from ._ops import _addcmul_, _advance_step, _decayed_grad, _lerp_, _state_lists
from .optimizer import _check_adam_family, _ParamwiseOptimizer, _to_scalar

__all__ = ["RAdam", "radam"]


class RAdam(_ParamwiseOptimizer):
    """Implements RAdam as PyTorch does.

    With ``m`` and ``v`` Adam's running averages, ``rho_inf = 2 / (1 - beta2) - 1`` and
    ``rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)``: while ``rho_t <= 5`` the update
    is plain momentum, ``p -= lr * m / (1 - beta1**t)``; afterwards it is scaled by the
    adaptive rate ``sqrt(1 - beta2**t) / (sqrt(v) + eps)`` and the rectification
    ``sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): learning rate (default: 1e-3).
        betas (tuple[float, float]): running-average coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator for stability (default: 1e-8).
        weight_decay (float): weight decay (default: 0).
        decoupled_weight_decay (bool): scale the parameters by ``1 - lr * weight_decay``
            (RAdamW) instead of adding ``weight_decay * p`` to the gradient
            (default: False).
        foreach (bool, optional): accepted for PyTorch compatibility; the update is the
            per-tensor one (default: None).
        maximize (bool): maximize the objective instead of minimizing (default: False).
        capturable (bool): graph capture needs an accelerator, so ``step`` raises the
            AssertionError CPU PyTorch raises (default: False).
        differentiable (bool): run ``step`` with autograd recording (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = ferric.optim.RAdam([w], lr=0.1)
        >>> w.grad = ferric.tensor([0.5, -3.0])
        >>> opt.step()
        >>> w
        tensor([0.9500, 2.3000], requires_grad=True)
    """

    _legacy_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "decoupled_weight_decay": False, "capturable": False}
    _zeros_state = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_adam_family(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, group, params, grads, states):
        radam(params, grads, *_state_lists(states, "exp_avg", "exp_avg_sq", "step"),
              **self._options(group))


def radam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    state_steps: list[Tensor],
    decoupled_weight_decay: bool = False,
    maximize: bool = False,
    *,
    beta1: float,
    beta2: float,
    lr: float,
    weight_decay: float,
    eps: float,
    **_ignored,
) -> None:
    """Functional RAdam: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)
    # the length of the approximated simple moving average tends to rho_inf
    rho_inf = 2 / (1 - beta2) - 1
    for i, param in enumerate(params):
        grad = _decayed_grad(param, grads[i], maximize, weight_decay,
                             decoupled_weight_decay, lr)
        exp_avg, exp_avg_sq = exp_avgs[i], exp_avg_sqs[i]
        step = _advance_step(state_steps[i])

        _lerp_(exp_avg, grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        update = exp_avg.div(bias_correction1).mul_(lr)
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            # variance is tractable: the adaptive rate, then the rectification term
            # (PyTorch's `scalar / tensor` is a reciprocal times the scalar)
            adaptive = exp_avg_sq.sqrt().add_(eps).reciprocal_().mul_(bias_correction2**0.5)
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            update.mul_(adaptive).mul_(rect)
        param.sub_(update)
