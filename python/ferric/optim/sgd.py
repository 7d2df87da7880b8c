"""Stochastic gradient descent with optional (Nesterov) momentum."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._ops import _descent_grad
from .optimizer import _check_fused_flags, _ParamwiseOptimizer, _to_scalar

__all__ = ["SGD", "sgd"]


class SGD(_ParamwiseOptimizer):
    """Implements stochastic gradient descent, optionally with momentum.

    With momentum ``mu`` the update is ``b = mu * b + (1 - dampening) * g`` (the buffer
    starts as a copy of the first gradient), then ``p -= lr * b`` (or, with
    ``nesterov=True``, ``p -= lr * (g + mu * b)``). ``weight_decay`` adds
    ``weight_decay * p`` to the gradient first; ``maximize`` ascends instead.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float): learning rate (default: 1e-3).
        momentum (float): momentum factor (default: 0).
        dampening (float): dampening for momentum (default: 0).
        weight_decay (float): L2 penalty (default: 0).
        nesterov (bool): enables Nesterov momentum (default: False).
        maximize (bool): maximize the objective instead of minimizing (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> opt = ferric.optim.SGD([w], lr=0.1)
        >>> w.grad = ferric.tensor([1.0, -1.0])
        >>> opt.step()
        >>> w
        tensor([0.9000, 2.1000], requires_grad=True)
    """

    _legacy_group_defaults = {"nesterov": False, "maximize": False, "foreach": None,
                              "differentiable": False, "fused": False}

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused_flags(fused, foreach, differentiable)

    def _keeps_state(self, group):
        # only momentum has state; PyTorch adds no entry for a parameter without it
        return group["momentum"] != 0

    def _init_state(self, p, state, group):
        pass  # the momentum buffer is the first update's gradient, stored after it

    def _update(self, group, params, grads, states):
        use_momentum = group["momentum"] != 0
        bufs = [state.get("momentum_buffer") for state in states] if use_momentum else []
        sgd(params, grads, bufs, **self._options(group))
        if use_momentum:
            for state, buf in zip(states, bufs, strict=True):
                state["momentum_buffer"] = buf


def sgd(
    params: list[Tensor],
    d_p_list: list[Tensor],
    momentum_buffer_list: list[Tensor | None],
    *,
    weight_decay: float,
    momentum: float,
    lr: float,
    dampening: float,
    nesterov: bool,
    maximize: bool,
    **_ignored,
) -> None:
    """Functional SGD: updates ``params`` in place; fills ``None`` entries of
    ``momentum_buffer_list`` with new buffers."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        # one fused pass over param, grad and buffer when their layouts allow
        buf = momentum_buffer_list[i] if momentum != 0 else None
        first = momentum != 0 and buf is None
        if first:
            buf = _core.empty_like(param)
        if _core._fused_sgd(param, d_p_list[i], buf, first, lr, momentum, dampening,
                            weight_decay, nesterov, maximize):
            if first:
                momentum_buffer_list[i] = buf
            continue
        grad = _descent_grad(param, d_p_list[i], maximize, weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        param.add_(grad, alpha=-lr)
