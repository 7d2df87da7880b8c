"""In-place update pieces the optimizers share, written in PyTorch's order of operations
(so float64 updates agree to rounding and float32 ones to an ulp or two), and the small
scalar state tensors PyTorch keeps per parameter.

PyTorch's CPU kernels fuse some of these into one rounding (``add(alpha=)``, ``addcmul``
and ``lerp`` use a fused multiply-add); ferric rounds the product and the sum apart, which
is where the remaining float32 ulps come from.
"""

from __future__ import annotations

from .. import _core
from .._core import Tensor


def _new_step(float32: bool = False) -> Tensor:
    """A fresh 0-d step counter: the default dtype, or float32 for ``fused`` groups (the
    dtype PyTorch's fused kernels keep it in)."""
    return _core.tensor(0.0, dtype=_core.float32) if float32 else _core.tensor(0.0)


def _scalar_state(value: float) -> Tensor:
    """A 0-d state tensor (NAdam's ``mu_product``, ASGD's ``eta``/``mu``) in the default
    dtype, as PyTorch stores them whatever the parameter's dtype."""
    return _core.tensor(float(value))


def _descent_grad(param: Tensor, grad: Tensor, maximize: bool,
                  weight_decay: float = 0) -> Tensor:
    """The gradient an update descends along: negated for ``maximize``, then with the L2
    term ``weight_decay * param`` added (a new tensor whenever it differs from ``grad``)."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    return grad


def _decayed_grad(param: Tensor, grad: Tensor, maximize: bool, weight_decay: float,
                  decoupled: bool, lr: float) -> Tensor:
    """The Adam family's weight decay: with ``decoupled`` (AdamW, NAdamW, RAdamW) the
    parameter is scaled by ``1 - lr * weight_decay`` in place and the gradient is only
    negated for ``maximize``; otherwise ``weight_decay * param`` is added to it (L2)."""
    grad = _descent_grad(param, grad, maximize, 0 if decoupled else weight_decay)
    if weight_decay != 0 and decoupled:
        param.mul_(1 - lr * weight_decay)
    return grad


def _advance_step(step_t: Tensor) -> float:
    """Counts one more step in the 0-d ``step`` state and returns the new count."""
    step_t.add_(1)
    return step_t.item()


def _state_lists(states: list[dict], *keys: str) -> list[list[Tensor]]:
    """For each of ``keys``, that state entry of every parameter of the group, in order
    (the per-state lists the functional optimizers take)."""
    return [[state[key] for state in states] for key in keys]


def _lerp_(start: Tensor, end: Tensor, weight: float) -> None:
    """``start.lerp_(end, weight)`` with PyTorch's two-sided formula (the form that
    keeps the result exact at ``weight`` 0 and 1)."""
    diff = end - start
    if abs(weight) < 0.5:
        start.add_(diff, alpha=weight)
    else:
        start.copy_(end).add_(diff, alpha=-(1 - weight))


def _addcmul_(out: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``out.addcmul_(a, b, value=value)``: ``out += (value * a) * b``."""
    return out.add_(a.mul(value).mul_(b))


def _addcdiv_(out: Tensor, a: Tensor, b: Tensor, value: float = 1.0) -> Tensor:
    """``out.addcdiv_(a, b, value=value)``: ``out += (value * a) / b``."""
    return out.add_(a.mul(value).div_(b))
