"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``,
``clip_grads_with_norm_``."""

from __future__ import annotations

import math

from ... import _core
from ..._core import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _tensor_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _norm(t, norm_type):
    if math.isinf(norm_type):
        return t.abs().amax() if norm_type > 0 else t.abs().amin()
    return t.norm(norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the concatenation of all ``tensors`` (each ``None``
    skipped)."""
    tensors = [t for t in _tensor_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _core.tensor(0.0)
    with no_grad():
        norms = [_norm(t.detach(), norm_type) for t in tensors]
        total = _norm(_core.stack(norms), norm_type)
    if error_if_nonfinite and bool(total.isnan() | total.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by ``min(1, max_norm / (total_norm + 1e-6))`` in place."""
    grads = [p.grad for p in _tensor_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    r"""Rescales the gradients of ``parameters`` so that their total ``norm_type`` norm
    is at most ``max_norm``; returns the total norm before clipping.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> p = nn.Parameter(ferric.zeros(3))
        >>> p.grad = ferric.tensor([3.0, 4.0, 0.0])
        >>> nn.utils.clip_grad_norm_(p, 1.0)
        tensor(5.)
        >>> p.grad
        tensor([0.6000, 0.8000, 0.0000])
    """
    params = _tensor_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensor_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
