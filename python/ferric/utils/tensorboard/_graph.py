"""A model's graph as TensorBoard's ``GraphDef``, from the graph autograd records.

PyTorch traces the model with TorchScript; ferric has no tracer, so it runs the model
once with grad enabled and reads the recorded backward graph (``tensor.grad_fn``) from
the outputs back to the inputs. Module scopes come from forward hooks: each call's
sequence-number interval (a probe node is recorded when the call starts and when it
ends) claims the nodes created inside it, the innermost call winning. A call of a layer
whose PyTorch trace is one op (``nn.Linear`` -> ``aten::linear``) becomes one node;
other nodes are named from their backward node (``AddmmBackward0`` -> ``aten::addmm``).
"""

from __future__ import annotations

import inspect
import re

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

from ... import _core
from ..._tree import tensors_in as _flatten

_ACCUMULATE = "torch::autograd::AccumulateGrad"

# layers whose call PyTorch's inlined trace shows as one op
_LAYER_OPS = {
    "Linear": "aten::linear", "Bilinear": "aten::bilinear",
    "Conv1d": "aten::_convolution", "Conv2d": "aten::_convolution",
    "Conv3d": "aten::_convolution", "ConvTranspose1d": "aten::_convolution",
    "ConvTranspose2d": "aten::_convolution", "ConvTranspose3d": "aten::_convolution",
    "ReLU": "aten::relu", "ReLU6": "aten::hardtanh", "Sigmoid": "aten::sigmoid",
    "Tanh": "aten::tanh", "GELU": "aten::gelu", "SiLU": "aten::silu", "ELU": "aten::elu",
    "LeakyReLU": "aten::leaky_relu", "Softplus": "aten::softplus", "Mish": "aten::mish",
    "Hardtanh": "aten::hardtanh", "Softmax": "aten::softmax",
    "LogSoftmax": "aten::log_softmax", "MaxPool1d": "aten::max_pool1d",
    "MaxPool2d": "aten::max_pool2d", "MaxPool3d": "aten::max_pool3d",
    "AvgPool1d": "aten::avg_pool1d", "AvgPool2d": "aten::avg_pool2d",
    "AvgPool3d": "aten::avg_pool3d", "AdaptiveAvgPool1d": "aten::adaptive_avg_pool1d",
    "AdaptiveAvgPool2d": "aten::adaptive_avg_pool2d",
    "AdaptiveMaxPool2d": "aten::adaptive_max_pool2d", "BatchNorm1d": "aten::batch_norm",
    "BatchNorm2d": "aten::batch_norm", "BatchNorm3d": "aten::batch_norm",
    "LayerNorm": "aten::layer_norm", "GroupNorm": "aten::group_norm",
    "InstanceNorm1d": "aten::instance_norm", "InstanceNorm2d": "aten::instance_norm",
    "Flatten": "aten::flatten", "Unflatten": "aten::unflatten",
    "Embedding": "aten::embedding", "LSTM": "aten::lstm", "GRU": "aten::gru",
    "RNN": "aten::rnn_tanh", "Dropout": "aten::dropout",
}

# backward nodes whose forward op has another name than the node's
_NODE_OPS = {
    "ConvolutionBackward0": "aten::_convolution",
    "MaxPool2DWithIndicesBackward0": "aten::max_pool2d",
    "MaxPool3DWithIndicesBackward0": "aten::max_pool3d",
    "NativeBatchNormBackward0": "aten::batch_norm",
    "NativeLayerNormBackward0": "aten::layer_norm",
    "NativeGroupNormBackward0": "aten::group_norm",
    "UnsafeViewBackward0": "aten::_unsafe_view",
    "EmbeddingBackward0": "aten::embedding",
}


def node_op(name: str) -> str:
    """PyTorch's op kind for a backward node: ``AddmmBackward0`` -> ``aten::addmm``,
    ``MaxPool2DWithIndicesBackward0`` -> ``aten::max_pool2d``; a custom
    ``autograd.Function`` (``<Name>Backward``) is a ``prim::PythonOp``.

    Example:
        >>> from ferric.utils.tensorboard._graph import node_op
        >>> node_op("LogSoftmaxBackward0"), node_op("MyFnBackward")
        ('aten::log_softmax', 'prim::PythonOp')
    """
    if name in _NODE_OPS:
        return _NODE_OPS[name]
    match = re.fullmatch(r"(\w+?)Backward\d+", name)
    if match is None:
        return "prim::PythonOp"
    stem = match.group(1)
    # CamelCase -> snake_case; an upper-case letter after a digit joins it ("2D" -> "2d")
    snake = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])", "_", stem).lower()
    return "aten::" + snake


def _node_def(name, op, inputs, shape=None, attr=""):
    attrs = {"attr": AttrValue(s=attr.encode("utf_8"))}
    if shape is not None:
        dims = [TensorShapeProto.Dim(size=int(d)) for d in shape]
        attrs["_output_shapes"] = AttrValue(
            list=AttrValue.ListValue(shape=[TensorShapeProto(dim=dims)]))
    return NodeDef(name=name, op=op, input=list(inputs), attr=attrs)


class _Recorder:
    """Forward hooks that note each module call's sequence-number interval."""

    def __init__(self, model):
        root = type(model).__name__
        self.scopes, modules = {}, dict(model.named_modules())
        self.modules = modules
        for path, module in modules.items():
            scope, prefix = root, ""
            for part in path.split(".") if path else []:
                prefix = f"{prefix}.{part}" if prefix else part
                scope += f"/{type(modules[prefix]).__name__}[{part}]"
            self.scopes.setdefault(id(module), scope)
        self.calls = []  # (start, end, scope, module) of each finished call
        self._open = []
        self._probe_leaf = _core.zeros(1, requires_grad=True)
        self.handles = []
        for module in modules.values():
            self.handles.append(module.register_forward_pre_hook(self._enter, prepend=True))
            self.handles.append(module.register_forward_hook(self._leave, always_call=True))

    def probe(self) -> int:
        """The next sequence number: that of a node recorded now."""
        return (self._probe_leaf * 1.0).grad_fn._sequence_nr()

    def _enter(self, module, args):
        self._open.append(self.probe())

    def _leave(self, module, args, output):
        start = self._open.pop()
        self.calls.append((start, self.probe(), self.scopes[id(module)], module))

    def remove(self):
        for handle in self.handles:
            handle.remove()


def _innermost_call(calls, seq):
    best = None
    for i, (start, end, *_rest) in enumerate(calls):
        if start < seq < end and (best is None or start > calls[best][0]):
            best = i
    return best


def _input_name(arg_names, i):
    return "input/" + (arg_names[i] if i < len(arg_names) else f"input.{i + 1}")


def _record(model, args, arg_names):
    """Runs ``model`` once (eval mode, hooks on) on copies of ``args`` that require
    grad; returns the recorder, the inputs' names by leaf and by node, and the outputs."""
    input_names, fed = {}, []
    for i, a in enumerate(args):
        if isinstance(a, _core.Tensor) and a.is_floating_point():
            # a copy: the caller's tensor stays as it was (and may be an inference tensor)
            leaf = a.detach().clone().requires_grad_(True)
            input_names[("leaf", _core._autograd_id(leaf))] = _input_name(arg_names, i)
            a = leaf.clone()  # the model may write to its input in place
            input_names[("node", a.grad_fn)] = _input_name(arg_names, i)
        fed.append(a)
    was_training = model.training
    recorder = _Recorder(model)
    model.train(False)
    try:
        output = model(*fed)
    finally:
        recorder.remove()
        model.train(was_training)
    return recorder, input_names, _flatten(output, [])


def graph(model, args, verbose=False):
    """``(GraphDef, RunMetadata)`` of one run of ``model`` on ``args``, as
    :meth:`SummaryWriter.add_graph` writes them."""
    if isinstance(args, _core.Tensor):
        args = (args,)
    elif args is None:
        args = ()
    elif isinstance(args, list):
        args = tuple(args)
    elif not isinstance(args, tuple):
        raise TypeError(f"add_graph(): input_to_model must be a Tensor or a tuple/list of "
                        f"Tensors, but got {type(args).__name__}")
    try:
        arg_names = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        arg_names = []
    params = {}
    for pname, p in list(model.named_parameters()) + list(model.named_buffers()):
        if isinstance(p, _core.Tensor) and p.requires_grad:
            params.setdefault(_core._autograd_id(p), pname)
    # the graph is what autograd records: recording is on for this run, whatever the
    # caller's mode (no_grad, inference_mode)
    grad_was_enabled = _core.is_grad_enabled()
    inference_was_enabled = _core._is_inference_mode_enabled()
    _core._set_inference_mode(False)
    _core._set_grad_enabled(True)
    try:
        recorder, input_names, outputs = _record(model, args, arg_names)
    finally:
        _core._set_grad_enabled(grad_was_enabled)
        _core._set_inference_mode(inference_was_enabled)
    nodes = _collect(outputs, input_names)
    names = _Namer(recorder, type(model).__name__, params, input_names)
    defs = names.build(nodes)
    for i, a in enumerate(args):
        if isinstance(a, _core.Tensor) and not a.is_floating_point():
            defs.insert(0, _node_def(_input_name(arg_names, i), "IO Node", [], list(a.shape)))
    for i, t in enumerate(outputs):
        source = names.name_of(t.grad_fn) if t.grad_fn is not None else None
        defs.append(_node_def(f"output/output.{i + 1}", "IO Node",
                              [source] if source else [], list(t.shape)))
    if verbose:
        for d in defs:
            print(d.name, d.op, list(d.input))
    stats = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(
        device="/device:CPU:0")]))
    return GraphDef(node=defs, versions=VersionDef(producer=22)), stats


def _collect(outputs, input_names):
    """Every backward node reachable from ``outputs``, stopping at the inputs' clones."""
    seen, order = set(), []
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        order.append(fn)
        if ("node", fn) in input_names:
            continue
        for nxt, _ in fn.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return order


class _Namer:
    """Turns backward nodes into named ``NodeDef``\\ s: inputs, parameters, one node per
    layer call of a known layer, one per other op."""

    def __init__(self, recorder, root, params, input_names):
        self.recorder, self.root = recorder, root
        self.params, self.input_names = params, input_names
        # layers without submodules whose trace is one op: each call becomes one node
        self.layers = {id(m) for m in recorder.modules.values()
                       if type(m).__name__ in _LAYER_OPS and next(m.children(), None) is None}
        self.names = {}
        self.used = {}

    def _unique(self, base):
        n = self.used.get(base, 0)
        self.used[base] = n + 1
        return base if n == 0 else f"{base}.{n}"

    def name_of(self, fn):
        return self.names.get(fn)

    def _param_scope(self, pname):
        path, _, attr = pname.rpartition(".")
        module = self.recorder.modules.get(path)
        scope = self.recorder.scopes.get(id(module), self.root) if path else self.root
        return f"{scope}/{attr}"

    def build(self, nodes):
        calls = self.recorder.calls
        groups = {}  # call index -> nodes (for the layer calls drawn as one node)
        ops = []
        for fn in nodes:
            key = ("node", fn)
            if key in self.input_names:
                self.names[fn] = self.input_names[key]
                continue
            if fn.name() == _ACCUMULATE:
                var = fn.variable
                aid = _core._autograd_id(var)
                if ("leaf", aid) in self.input_names:
                    self.names[fn] = self.input_names[("leaf", aid)]
                elif aid in self.params:
                    self.names[fn] = self._param_scope(self.params[aid])
                else:
                    self.names[fn] = self._unique(f"{self.root}/tensor")
                continue
            call = _innermost_call(calls, fn._sequence_nr())
            if call is not None and id(calls[call][3]) in self.layers:
                groups.setdefault(call, []).append(fn)
            else:
                ops.append((fn._sequence_nr(), fn, call))
        # inputs (in argument order), then parameters (in registration order)
        rank = {name: i for i, name in enumerate(dict.fromkeys(self.input_names.values()))}
        rank.update({self._param_scope(p): len(rank) + i
                     for i, p in enumerate(self.params.values())})
        defs = []
        for fn in sorted((f for f in nodes if f in self.names),
                         key=lambda f: rank.get(self.names[f], len(rank))):
            name = self.names[fn]
            if any(d.name == name for d in defs):
                continue
            if name.startswith("input/"):
                shape = (list(fn.variable.shape) if fn.name() == _ACCUMULATE
                         else fn._output_shapes()[0])
                defs.append(_node_def(name, "IO Node", [], shape))
            else:
                attr = "{ name :  " + name.rsplit("/", 1)[-1] + " }"
                defs.append(_node_def(name, "prim::GetAttr", [], list(fn.variable.shape),
                                      attr))
        items = [(min(f._sequence_nr() for f in members), None, call, members)
                 for call, members in groups.items()]
        items += [(seq, fn, call, None) for seq, fn, call in ops]
        items.sort(key=lambda item: item[0])
        # name everything before wiring, so an edge can point at any node
        pending = []
        for _, fn, call, members in items:
            scope = calls[call][2] if call is not None else self.root
            if members is not None:
                module = calls[call][3]
                op = _LAYER_OPS[type(module).__name__]
                name = self._unique(f"{scope}/{op.split('::')[1]}")
                for m in members:
                    self.names[m] = name
                last = max(members, key=lambda f: f._sequence_nr())
                shape = last._output_shapes()[0] if last._output_shapes() else None
                pending.append((name, op, members, shape, module.extra_repr()))
            else:
                op = node_op(fn.name())
                name = self._unique(f"{scope}/{op.split('::')[-1]}")
                self.names[fn] = name
                outs = fn._output_shapes()
                pending.append((name, op, [fn], outs[0] if outs else None, ""))
        params_rank = {n for n in rank if not n.startswith("input/")}
        for name, op, members, shape, attr in pending:
            member_set = set(members)
            inputs = []
            for m in sorted(members, key=lambda f: f._sequence_nr()):
                for nxt, _ in m.next_functions:
                    if nxt is None or nxt in member_set:
                        continue
                    src = self.names.get(nxt)
                    if src is not None and src not in inputs:
                        inputs.append(src)
            # PyTorch's order: the data inputs, then the parameters (weight, bias)
            inputs.sort(key=lambda src: rank.get(src, -1) if src in params_rank else -1)
            defs.append(_node_def(name, op, inputs, shape, "{ " + attr + " }" if attr
                                  else "{}"))
        return defs
