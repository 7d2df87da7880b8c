"""Adam (and, with ``decoupled_weight_decay=True``, AdamW)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from .optimizer import Optimizer, _run_closure, _to_scalar

__all__ = ["Adam", "adam"]


def _new_step() -> Tensor:
    # PyTorch 2.x keeps the step count as a float32 0-d tensor on the CPU
    return _core.tensor(0.0)


def _step_as_tensor(state: dict) -> None:
    """Old checkpoints stored ``step`` as a number; the optimizers expect a tensor."""
    if state and "step" in state and not isinstance(state["step"], Tensor):
        state["step"] = _core.tensor(float(state["step"]))


class Adam(Optimizer):
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
        _check_adam_args(lr, betas, eps, weight_decay)
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

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
            for p in group["params"]:
                _step_as_tensor(self.state.get(p))

    def step(self, closure=None):
        """Performs a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [], [], [], []
            amsgrad = group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step()
                    state["exp_avg"] = _core.zeros_like(p)
                    state["exp_avg_sq"] = _core.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _core.zeros_like(p)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if amsgrad:
                    max_sqs.append(state["max_exp_avg_sq"])
                steps.append(state["step"])
            beta1, beta2 = group["betas"]
            adam(
                params,
                grads,
                exp_avgs,
                exp_avg_sqs,
                max_sqs,
                steps,
                amsgrad=amsgrad,
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
                decoupled_weight_decay=group["decoupled_weight_decay"],
            )
        return loss


def _check_adam_args(lr, betas, eps, weight_decay) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    both_floats = isinstance(betas[0], float) and isinstance(betas[1], float)
    both_tensors = isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)
    if not (both_floats or both_tensors):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor) and betas[i].numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")


def _lerp_(start: Tensor, end: Tensor, weight: float) -> None:
    """``start.lerp_(end, weight)`` with PyTorch's two-sided formula (the form that
    keeps the result exact at ``weight`` 0 and 1)."""
    diff = end - start
    if abs(weight) < 0.5:
        start.add_(diff, alpha=weight)
    else:
        start.copy_(end).add_(diff, alpha=-(1 - weight))


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
        step_t = state_steps[i]
        step_t.add_(1)
        step = step_t.item()
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        # one fused pass over param, grad and state when their layouts allow
        if _core._fused_adam(param, grads[i], exp_avg, exp_avg_sq,
                             max_exp_avg_sqs[i] if amsgrad else None, lr, beta1, beta2, eps,
                             weight_decay, decoupled_weight_decay, maximize,
                             lr / bias_correction1, bias_correction2**0.5):
            continue
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
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
