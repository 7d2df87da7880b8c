"""Adam (and, with ``decoupled_weight_decay=True``, AdamW)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _advance_step, _decayed_grad, _lerp_, _state_lists
from .optimizer import _check_adam_family, _check_fused_flags, _ParamwiseOptimizer, _to_scalar

__all__ = ["Adam", "adam"]


class Adam(_ParamwiseOptimizer):
    """Implements Adam (Kingma & Ba, 2014) exactly as PyTorch does.

    ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``, then
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``; with
    ``amsgrad`` the running maximum of ``v`` replaces ``v`` in the denominator.
    ``weight_decay`` adds ``weight_decay * p`` to the gradient (L2), or, when
    ``decoupled_weight_decay=True`` (AdamW), scales ``p`` by ``1 - lr * weight_decay``.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float): learning rate (default: 1e-3).
        betas (tuple[float, float]): running-average coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator for stability (default: 1e-8).
        weight_decay (float): weight decay (default: 0).
        amsgrad (bool): use the AMSGrad variant (default: False).
        maximize (bool): maximize the objective instead of minimizing (default: False).
        decoupled_weight_decay (bool): AdamW-style decay (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = ferric.optim.Adam([w], lr=0.1)
        >>> w.grad = ferric.tensor([0.5, -3.0])
        >>> opt.step()
        >>> w
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    _legacy_group_defaults = {"amsgrad": False, "maximize": False, "foreach": None,
                              "capturable": False, "differentiable": False,
                              "decoupled_weight_decay": False, "fused": None}
    _zeros_state = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        defaults = {
            "lr": lr,
            "betas": (_to_scalar(betas[0]), _to_scalar(betas[1])),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _core.zeros_like(p)

    def _update(self, group, params, grads, states):
        if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
            raise RuntimeError(
                "lr as a Tensor is not supported for capturable=False and foreach=True"
            )
        exp_avgs, exp_avg_sqs, steps = _state_lists(states, "exp_avg", "exp_avg_sq", "step")
        max_exp_avg_sqs = [s["max_exp_avg_sq"] for s in states] if group["amsgrad"] else []
        adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps,
             **self._options(group))


def _check_adam_args(lr, betas, eps, weight_decay, foreach=None, capturable=False) -> None:
    # tensor hyperparameters need the capturable path once foreach is asked for
    tensors_refused = bool(foreach) and not capturable
    if isinstance(lr, Tensor) and tensors_refused:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    _check_adam_family(lr, betas, eps, weight_decay)
    both_floats = isinstance(betas[0], float) and isinstance(betas[1], float)
    both_tensors = isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)
    if not (both_floats or both_tensors):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if tensors_refused:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for "
                                 "capturable=False and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


def adam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    state_steps: list[Tensor],
    *,
    amsgrad: bool,
    beta1: float,
    beta2: float,
    lr: float,
    weight_decay: float,
    eps: float,
    maximize: bool,
    decoupled_weight_decay: bool = False,
    **_ignored,
) -> None:
    """Functional Adam/AdamW: updates ``params`` and the state tensors in place."""
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    for i, param in enumerate(params):
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step = _advance_step(state_steps[i])
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        # one fused pass over param, grad and state when their layouts allow
        if _core._fused_adam(param, grads[i], exp_avg, exp_avg_sq,
                             max_exp_avg_sqs[i] if amsgrad else None, lr, beta1, beta2, eps,
                             weight_decay, decoupled_weight_decay, maximize,
                             lr / bias_correction1, bias_correction2**0.5):
            continue
        grad = _decayed_grad(param, grads[i], maximize, weight_decay,
                             decoupled_weight_decay, lr)
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)

        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if amsgrad:
            max_sq = max_exp_avg_sqs[i]
            max_sq.copy_(_core.maximum(max_sq, exp_avg_sq))
            denom = max_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
        else:
            denom = exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
        param.add_(exp_avg.div(denom), alpha=-step_size)
