"""One export: trace the model on the example inputs, then assemble the ONNX model."""

from __future__ import annotations

import warnings

from .. import _core
from .._core import Tensor
from .._tree import tensors_in as flatten
from ..autograd.grad_mode import no_grad
from ..nn.modules.rnn import RNNBase
from . import _ops_nn, _ops_rnn, _ops_shape, _ops_tensor, _trace
from ._graph import Graph, np_dtype

_ = _ops_shape  # its handlers register into _ops_tensor.HANDLERS on import


def _param_names(model) -> dict[int, str]:
    """id -> state_dict key of every parameter and buffer (the first key of a shared one)."""
    names: dict[int, str] = {}
    state = getattr(model, "state_dict", None)
    if state is None:
        return names
    for key, t in model.state_dict(keep_vars=True).items():
        if isinstance(t, Tensor):
            names.setdefault(id(t), key)
    return names


def axes_for(dynamic_axes, name, rank):
    """Axis -> dim_param for one input/output under ``dynamic_axes``."""
    spec = (dynamic_axes or {}).get(name)
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return {(a + rank if a < 0 else a): str(n) for a, n in spec.items()}
    return {(a + rank if a < 0 else a): f"{name}_dynamic_axes_{k + 1}"
            for k, a in enumerate(spec)}


def _check_axes(dynamic_axes, known):
    for key in dynamic_axes or {}:
        if key not in known:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output "
                          "name", UserWarning, stacklevel=4)


def trace_and_build(onnx, model, args, kwargs, *, input_names, output_names, dynamic_axes,
                    opset):
    if _trace._ACTIVE is not None:
        raise RuntimeError("ferric.onnx.export: cannot export while another export is "
                           "running (the model called ferric.onnx.export)")
    g = Graph(onnx, opset)
    session = _trace.Session(g, symbolic=bool(dynamic_axes), param_names=_param_names(model))
    inputs = flatten((args, kwargs), [])
    if len(set(map(id, inputs))) != len(inputs):
        raise ValueError("ferric.onnx.export: the same tensor is passed as two inputs")
    graph_inputs = []
    for t, name in zip(inputs, input_names, strict=False):
        g.reserve(name)
        session.bind(t, name)
        axes = axes_for(dynamic_axes, name, t.dim())
        dims = [axes.get(i, int(n)) for i, n in enumerate(t.shape)]
        graph_inputs.append(g.value_info(name, np_dtype(t.dtype), dims))
    patches = _trace.Patches()
    module_handlers = [(RNNBase, "forward", _ops_rnn.rnn_forward)]
    # the run must not change the model: buffers (BatchNorm's running statistics in
    # training mode) are put back afterwards
    buffers = [(b, b.clone()) for b in (model.buffers() if hasattr(model, "buffers") else ())]
    try:
        _trace.install(session, patches, _ops_tensor.HANDLERS, _ops_nn.NN_HANDLERS,
                       module_handlers)
        with no_grad():
            result = model(*args, **kwargs)
    finally:
        _trace.uninstall(patches)
        with no_grad():
            for b, saved in buffers:
                b.copy_(saved)
    outs = flatten(result, [])
    if not outs:
        raise ValueError("ferric.onnx.export: the model returned no tensor")
    out_names = list(output_names) + [f"output_{i}" for i in range(len(output_names),
                                                                    len(outs))]
    _check_axes(dynamic_axes, set(input_names[:len(inputs)]) | set(out_names))
    graph_outputs = []
    for t, name in zip(outs, out_names, strict=False):
        src = session.value(t)
        g.reserve(name)
        g.nodes.append(onnx.helper.make_node("Identity", [src], [name],
                                             name=g.fresh("Identity")))
        dims = [int(n) for n in t.shape] if not dynamic_axes else None
        graph_outputs.append(g.value_info(name, np_dtype(t.dtype), dims))
    proto = g.model(graph_inputs, graph_outputs, producer_version=_core.__version__
                    if hasattr(_core, "__version__") else "")
    if dynamic_axes:
        _output_shapes(onnx, proto, outs, out_names, dynamic_axes)
    return proto


def _output_shapes(onnx, proto, outs, out_names, dynamic_axes):
    """Under dynamic axes, output shapes come from ONNX shape inference (so a dim that
    follows a dynamic input axis stays symbolic), then ``dynamic_axes`` names apply."""
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
        shapes = {o.name: o.type.tensor_type.shape for o in inferred.graph.output}
    except Exception:  # inference is best effort: the graph itself is right regardless
        shapes = {}
    for out, t, name in zip(proto.graph.output, outs, out_names, strict=False):
        axes = axes_for(dynamic_axes, name, t.dim())
        shape = shapes.get(name)
        dims = []
        for i in range(t.dim()):
            if i in axes:
                dims.append(axes[i])
            elif shape is not None and i < len(shape.dim) and shape.dim[i].HasField("dim_param"):
                dims.append(shape.dim[i].dim_param)
            elif shape is not None and i < len(shape.dim) and shape.dim[i].HasField("dim_value"):
                dims.append(int(shape.dim[i].dim_value))
            else:
                dims.append(None)
        out.CopyFrom(onnx.helper.make_tensor_value_info(
            name, out.type.tensor_type.elem_type, dims))
