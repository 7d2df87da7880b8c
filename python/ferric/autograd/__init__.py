"""``ferric.autograd``: the define-by-run graph (``backward``, ``grad``), grad modes,
custom ``Function``s, anomaly detection and gradient checks."""

from __future__ import annotations

from .. import _core
from . import functional, graph, profiler, profiler_util
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Computes the sum of gradients of ``tensors`` w.r.t. graph leaves (into ``.grad``).

    Example::

        >>> import ferric
        >>> x = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> ferric.autograd.backward([(x * x).sum()])
        >>> x.grad
        tensor([2., 4.])
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    _core._run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False):
    """Returns the gradients of ``outputs`` w.r.t. ``inputs`` (without touching ``.grad``).

    Example:
        >>> import ferric
        >>> x = ferric.tensor([2.0], requires_grad=True)
        >>> (dx,) = ferric.autograd.grad((x ** 3).sum(), x, create_graph=True)
        >>> dx
        tensor([12.], grad_fn=<MulBackward0>)
        >>> ferric.autograd.grad(dx.sum(), x)
        (tensor([12.]),)
    """
    single_in = isinstance(inputs, _core.Tensor)
    ins = [inputs] if single_in else list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    outs = [outputs] if isinstance(outputs, _core.Tensor) else list(outputs)
    if grad_outputs is not None and isinstance(grad_outputs, _core.Tensor):
        grad_outputs = [grad_outputs]
    return _core._grad(outs, ins, grad_outputs, retain_graph, create_graph, allow_unused,
                       materialize_grads)


__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "backward", "detect_anomaly", "enable_grad",
    "grad", "gradcheck", "gradgradcheck", "inference_mode", "is_anomaly_enabled",
    "is_grad_enabled", "no_grad", "once_differentiable", "set_detect_anomaly",
    "set_grad_enabled", "Variable", "functional",
]
