"""AdamW: Adam with decoupled weight decay (Loshchilov & Hutter, 2017)."""

from __future__ import annotations

from .._core import Tensor
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Implements AdamW: Adam whose weight decay scales the parameters by
    ``1 - lr * weight_decay`` before the update instead of adding to the gradient.

    Args:
        params (iterable): tensors or parameter groups to optimize.
        lr (float): learning rate (default: 1e-3).
        betas (tuple[float, float]): running-average coefficients (default: (0.9, 0.999)).
        eps (float): added to the denominator for stability (default: 1e-8).
        weight_decay (float): decoupled weight decay (default: 1e-2).
        amsgrad (bool): use the AMSGrad variant (default: False).
        maximize (bool): maximize the objective instead of minimizing (default: False).

    Example:
        >>> import ferric
        >>> w = ferric.tensor([1.0], requires_grad=True)
        >>> opt = ferric.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> w.grad = ferric.tensor([1.0])
        >>> opt.step()
        >>> w
        tensor([0.8500], requires_grad=True)
    """

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
