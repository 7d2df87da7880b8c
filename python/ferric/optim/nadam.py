"""NAdam: Adam with Nesterov momentum (Dozat, 2016), optionally with decoupled weight
decay (NAdamW)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import (
    _addcdiv_,
    _addcmul_,
    _advance_step,
    _decayed_grad,
    _lerp_,
    _scalar_state,
    _state_lists,
)
from .optimizer import _check_adam_family, _check_non_negative, _ParamwiseOptimizer, _to_scalar

__all__ = ["NAdam", "nadam"]


class NAdam(_ParamwiseOptimizer):
    """Implements NAdam as PyTorch does.

    The momentum coefficient follows the schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``; with
    ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g`` and
    ``denom = sqrt(v / (1 - beta2**t)) + eps`` the update is
    ``p -= lr * (1 - mu_t) / (1 - prod(mu_1..mu_t)) * g / denom
    + lr * mu_{t+1} / (1 - prod(mu_1..mu_{t+1})) * m / denom``. The running product
    ``mu_product`` is kept per parameter as a 0-d tensor (float32 by default, so it
    rounds like PyTorch's).

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): learning rate (default: 2e-3).
        betas (tuple[float, float]): running-average coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator for stability (default: 1e-8).
        weight_decay (float): weight decay (default: 0).
        momentum_decay (float): momentum decay ``psi`` (default: 4e-3).
        decoupled_weight_decay (bool): scale the parameters by ``1 - lr * weight_decay``
            (NAdamW) instead of adding ``weight_decay * p`` to the gradient
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
        >>> opt = ferric.optim.NAdam([w], lr=0.1)
        >>> w.grad = ferric.tensor([0.5, -3.0])
        >>> opt.step()
        >>> w
        tensor([0.8944, 2.1056], requires_grad=True)
        >>> sorted(opt.state[w])
        ['exp_avg', 'exp_avg_sq', 'mu_product', 'step']
    """

    _legacy_group_defaults = {"maximize": False, "foreach": None, "capturable": False,
                              "differentiable": False, "decoupled_weight_decay": False}
    _scalar_state_keys = ("step", "mu_product")
    _capturable_operands = "params, mu_products and state_steps"

    def __init__(
        self,
        params,
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_adam_family(lr, betas, eps, weight_decay)
        _check_non_negative("momentum_decay", momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        state["mu_product"] = _scalar_state(1.0)
        state["exp_avg"] = _core.zeros_like(p)
        state["exp_avg_sq"] = _core.zeros_like(p)

    def _update(self, group, params, grads, states):
        nadam(params, grads,
              *_state_lists(states, "exp_avg", "exp_avg_sq", "mu_product", "step"),
              **self._options(group))


def nadam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    mu_products: list[Tensor],
    state_steps: list[Tensor],
    decoupled_weight_decay: bool = False,
    maximize: bool = False,
    *,
    beta1: float,
    beta2: float,
    lr: float,
    weight_decay: float,
    momentum_decay: float,
    eps: float,
    **_ignored,
) -> None:
    """Functional NAdam: updates ``params`` and the state tensors in place."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = _decayed_grad(param, grads[i], maximize, weight_decay,
                             decoupled_weight_decay, lr)
        exp_avg, exp_avg_sq, mu_product = exp_avgs[i], exp_avg_sqs[i], mu_products[i]
        step = _advance_step(state_steps[i])
        bias_correction2 = 1 - beta2**step

        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        # the product lives in a 0-d tensor and is rounded to its dtype each step
        mu_product.mul_(mu)
        product = mu_product.item()

        _lerp_(exp_avg, grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
        _addcdiv_(param, grad, denom, -lr * (1.0 - mu) / (1.0 - product))
        _addcdiv_(param, exp_avg, denom, -lr * mu_next / (1.0 - product * mu_next))
