"""Walking nested Python containers for the tensors they hold (module inputs and outputs
for the ONNX exporter and the TensorBoard graph tracer)."""

from __future__ import annotations

from ._core import Tensor


def tensors_in(obj, out):
    """Appends the tensors of ``obj`` (a tensor or nested tuples/lists/dict values),
    depth first in order, to the list ``out`` and returns it."""
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            tensors_in(x, out)
    return out
