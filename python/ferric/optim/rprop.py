"""Rprop: resilient backpropagation (Riedmiller & Braun, 1993)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _descent_grad, _state_lists
from .optimizer import _LEGACY_FLAG_DEFAULTS, _check_lr, _ParamwiseOptimizer, _to_scalar

__all__ = ["Rprop", "rprop"]


class Rprop(_ParamwiseOptimizer):
    """Implements Rprop as PyTorch does: only the sign of the gradient is used.

    Each element keeps its own step size. When the gradient keeps its sign the step
    size grows by ``etaplus``, when the sign flips it shrinks by ``etaminus`` (clamped
    to ``step_sizes``) and that element's gradient counts as zero for this step and the
    next comparison; then ``p -= sign(g) * step_size``.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float, Tensor): initial step size (default: 1e-2).
        etas (tuple[float, float]): ``(etaminus, etaplus)`` with
            ``0 < etaminus < 1 < etaplus`` (default: (0.5, 1.2)).
        step_sizes (tuple[float, float]): smallest and largest step size
            (default: (1e-6, 50)).
        capturable (bool): graph capture needs an accelerator, so ``step`` raises the
            AssertionError CPU PyTorch raises (default: False).
        foreach (bool, optional): accepted for PyTorch compatibility; the update is the
            per-tensor one (default: None).
        maximize (bool): maximize the objective instead of minimizing (default: False).
        differentiable (bool): run ``step`` with autograd recording (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = ferric.optim.Rprop([w], lr=0.1)
        >>> for g in ([0.5, -3.0], [0.2, 1.0]):
        ...     w.grad = ferric.tensor(g)
        ...     opt.step()
        >>> w
        tensor([0.7800, 2.1000], requires_grad=True)
        >>> opt.state[w]["step_size"]
        tensor([0.1200, 0.0500])
    """

    _legacy_group_defaults = _LEGACY_FLAG_DEFAULTS
    _zeros_state = ("prev",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        state["step_size"] = _core.full_like(p.grad, _to_scalar(group["lr"]))

    def _update(self, group, params, grads, states):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        rprop(
            params,
            grads,
            *_state_lists(states, "prev", "step_size", "step"),
            step_size_min=step_size_min,
            step_size_max=step_size_max,
            etaminus=etaminus,
            etaplus=etaplus,
            maximize=group["maximize"],
        )


def rprop(
    params: list[Tensor],
    grads: list[Tensor],
    prevs: list[Tensor],
    step_sizes: list[Tensor],
    state_steps: list[Tensor],
    maximize: bool = False,
    *,
    step_size_min: float,
    step_size_max: float,
    etaminus: float,
    etaplus: float,
    **_ignored,
) -> None:
    """Functional Rprop: updates ``params`` and the state tensors in place."""
    for i, param in enumerate(params):
        grad = _descent_grad(param, grads[i], maximize)
        prev, step_size = prevs[i], step_sizes[i]
        state_steps[i].add_(1)
        sign = grad.mul(prev).sign()
        # the factor per element: etaplus where the sign held, etaminus where it
        # flipped, 1 where either gradient was zero (NaN stays NaN)
        flipped = sign < 0
        factor = _core.where(sign > 0, etaplus, _core.where(flipped, etaminus,
                                                              sign.abs().add_(1)))
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        # after a sign flip the gradient is taken as zero, so the next step neither
        # moves that element nor compares its sign
        grad = _core.where(flipped, 0.0, grad)
        param.sub_(grad.sign().mul_(step_size))
        prev.copy_(grad)
