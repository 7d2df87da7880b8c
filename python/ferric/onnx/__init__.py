"""``ferric.onnx``: export a model to ONNX (``torch.onnx.export``).

The export runs the model once on the example inputs and records every tensor op it
performs (see ``_trace.py``), then writes the recorded graph with the ``onnx`` package
(an optional dependency: ``pip install ferric[onnx]``). The design and the list of
supported layers and ops are in ``docs/onnx.md``.
"""

from __future__ import annotations

import enum
import inspect
import io
import logging
import os
import warnings

from .._core import Tensor
from . import _export
from ._export import flatten as _flatten
from .errors import (
    OnnxExporterError,
    OnnxExporterWarning,
    TracerWarning,
    UnsupportedOperatorError,
)

__all__ = ["ONNXProgram", "OnnxExporterError", "OnnxExporterWarning", "TracerWarning",
           "UnsupportedOperatorError", "export", "is_in_onnx_export"]

#: PyTorch 2.13's default ``opset_version``
DEFAULT_OPSET = 20
#: the lowest opset the handlers write; lower requests are converted from it
BASE_OPSET = 13

_logger = logging.getLogger(__name__)


class TrainingMode(enum.IntEnum):
    """``torch.onnx.TrainingMode``, for scripts that pass ``training=``; as in PyTorch
    2.13 the export ignores it (set the model's mode with ``model.eval()``)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """``torch.onnx.OperatorExportTypes``, accepted as ``operator_export_type=`` and
    ignored: only standard ONNX ops are written."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3
_exporting = False


def is_in_onnx_export() -> bool:
    """Whether an :func:`export` is running (model code may branch on it, as in PyTorch).

    Example:
        >>> import ferric
        >>> ferric.onnx.is_in_onnx_export()
        False
    """
    return _exporting


def _require_onnx():
    try:
        import onnx
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            "ferric.onnx.export needs the 'onnx' package: pip install onnx "
            "(or pip install 'ferric[onnx]', which also installs onnxruntime)") from e
    return onnx


class ONNXProgram:
    """The exported model (``torch.onnx.ONNXProgram``): ``model_proto`` is the
    ``onnx.ModelProto``; :meth:`save` writes it; calling it runs it in onnxruntime.

    Example:
        >>> import ferric
        >>> prog = ferric.onnx.export(ferric.nn.Linear(3, 2).eval(), (ferric.ones(1, 3),))
        >>> [i.name for i in prog.model_proto.graph.input]
        ['input']
    """

    def __init__(self, model_proto):
        self.model_proto = model_proto

    def __repr__(self):
        g = self.model_proto.graph
        return (f"ONNXProgram(opset={self.model_proto.opset_import[0].version}, "
                f"inputs={[i.name for i in g.input]}, outputs={[o.name for o in g.output]}, "
                f"nodes={len(g.node)})")

    def save(self, destination, *, include_initializers=True,
             keep_initializers_as_inputs=False, external_data=None):
        """Writes the model to ``destination`` (a path or a binary file object). With
        ``external_data`` the weights go to ``<destination>.data`` beside it."""
        onnx = _require_onnx()
        model = self.model_proto
        if not include_initializers or keep_initializers_as_inputs:
            model = onnx.ModelProto()
            model.CopyFrom(self.model_proto)
            if keep_initializers_as_inputs:
                known = {i.name for i in model.graph.input}
                for init in self.model_proto.graph.initializer:
                    if init.name not in known:
                        model.graph.input.append(onnx.helper.make_tensor_value_info(
                            init.name, init.data_type, list(init.dims)))
            if not include_initializers:
                del model.graph.initializer[:]
        if not isinstance(destination, (str, os.PathLike)):
            if external_data:
                raise TypeError("external_data=True needs a file path as the destination")
            destination.write(model.SerializeToString())
            return
        path = os.fspath(destination)
        if external_data:
            location = os.path.basename(path) + ".data"
            data_path = os.path.join(os.path.dirname(path), location)
            if os.path.exists(data_path):
                os.remove(data_path)  # onnx appends to an existing file
            onnx.save_model(model, path, save_as_external_data=True,
                            all_tensors_to_one_file=True, location=location)
        else:
            onnx.save_model(model, path)

    def __call__(self, *args, **kwargs):
        """Runs the model in onnxruntime on ferric tensors; returns ferric tensors."""
        import numpy as np
        import onnxruntime

        from .. import _core
        sess = onnxruntime.InferenceSession(self.model_proto.SerializeToString(),
                                            providers=["CPUExecutionProvider"])
        flat = _flatten((args, kwargs), [])
        feeds = {i.name: np.asarray(t.detach().numpy())
                 for i, t in zip(sess.get_inputs(), flat, strict=False)}
        return [_core.from_numpy(np.ascontiguousarray(o)) for o in sess.run(None, feeds)]


def _input_names(model, args, kwargs):
    """Default names of the tensor inputs: the forward's parameter names (``x``), with
    an index for tensors nested in a list or tuple."""
    fn = getattr(model, "forward", model)
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) and params[i] not in ("args", "kwargs") \
            else f"input_{i}"
        n = len(_flatten(a, []))
        names += [base] if isinstance(a, Tensor) else [f"{base}_{j}" for j in range(n)]
    for k, a in kwargs.items():
        n = len(_flatten(a, []))
        names += [k] if isinstance(a, Tensor) else [f"{k}_{j}" for j in range(n)]
    return names


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamo=True, external_data=True,
           dynamic_shapes=None, report=False, optimize=True, verify=False,
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None,
           training=None, operator_export_type=None, do_constant_folding=True,
           custom_opsets=None, export_modules_as_functions=False, autograd_inlining=True,
           **_unused):
    r"""Exports ``model`` to ONNX by running it once on ``args`` and recording the ops.

    The graph holds the path the Python code took for these inputs: ops on tensors are
    recorded, Python values are constants, and reading a tensor's value into Python
    (``if x.sum() > 0``, ``x.item()``) warns with :class:`TracerWarning`. Parameters and
    buffers become initializers named by their ``state_dict`` keys.

    Args:
        model: an ``nn.Module`` (or a function of tensors) to export. It is run as it
            is: call ``model.eval()`` first for inference (PyTorch warns otherwise too).
        args: example positional inputs (a tensor or a tuple); a trailing dict is taken
            as keyword inputs. Tensors become graph inputs, other values are constants.
        f: where to write the model: a path or a binary file object; ``None`` writes
            nothing (use the returned program).
        kwargs: example keyword inputs.
        verbose: print the exported graph.
        input_names: names of the graph inputs, in order (default: the ``forward``
            parameter names).
        output_names: names of the graph outputs, in order (default ``output_0``, ...).
        opset_version: the ONNX opset (default 20, PyTorch's). Below 13 the model is
            written at 13 and converted down with ``onnx.version_converter``.
        external_data: with a path ``f``, store the weights in ``<f>.data`` beside the
            model (PyTorch's default); ``False`` keeps one self-contained file.
        export_params: include the weights (``False``: the initializers are left out).
        keep_initializers_as_inputs: also list the weights as graph inputs.
        dynamic_axes: ``{name: [axis, ...]}`` or ``{name: {axis: "dim_name"}}`` marks
            axes of inputs/outputs as symbolic (``{"x": {0: "batch"}}``); shapes the model
            reads from those axes are computed at run time in the graph.
        dynamo, dynamic_shapes, report, optimize, verify, training,
            operator_export_type, do_constant_folding, custom_opsets,
            export_modules_as_functions, autograd_inlining: accepted for PyTorch
            compatibility; the graph is always the traced one (constants folded).

    Returns:
        ONNXProgram: the exported model (``.model_proto``, ``.save()``).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).eval()
        >>> prog = ferric.onnx.export(model, (ferric.randn(3, 4),), None,
        ...                           input_names=["x"], output_names=["y"],
        ...                           dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
        >>> [n.op_type for n in prog.model_proto.graph.node]
        ['Gemm', 'Relu', 'Gemm', 'Identity']
    """
    onnx = _require_onnx()
    global _exporting
    if dynamic_shapes is not None:
        raise ValueError("ferric.onnx.export: dynamic_shapes (torch.export's form) is not "
                         "supported; mark symbolic axes with dynamic_axes")
    if isinstance(args, Tensor):
        args = (args,)
    elif not isinstance(args, tuple):
        args = tuple(args) if isinstance(args, list) else (args,)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict) and not kwargs:
        args, kwargs = args[:-1], dict(args[-1])
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    max_opset = onnx.defs.onnx_opset_version()
    if opset > max_opset:
        raise ValueError(f"ferric.onnx.export: opset_version {opset} is newer than the "
                         f"installed onnx package supports ({max_opset})")
    if opset < BASE_OPSET:
        _logger.warning(
            "Setting ONNX exporter to use operator set version %s because the requested "
            "opset_version %s is a lower version than we have implementations for. "
            "Automatic version conversion will be performed, which may not be successful at "
            "converting to the requested version. If version conversion is unsuccessful, the "
            "opset version of the exported model will be kept at %s. Please consider setting "
            "opset_version >=%s to leverage latest ONNX features",
            BASE_OPSET, opset, BASE_OPSET, BASE_OPSET)
    if getattr(model, "training", False):
        warnings.warn(
            "Exporting a model while it is in training mode. Please ensure that this is "
            "intended, as it may lead to different behavior during inference. Calling "
            "model.eval() before export is recommended.", UserWarning, stacklevel=2)
    names_in = list(input_names or [])
    defaults = _input_names(model, args, kwargs)
    names_in += defaults[len(names_in):]
    _exporting = True
    try:
        proto = _export.trace_and_build(
            onnx, model, args, kwargs, input_names=names_in,
            output_names=list(output_names or []), dynamic_axes=dynamic_axes,
            opset=max(opset, BASE_OPSET))
    finally:
        _exporting = False
    if opset < BASE_OPSET:
        try:
            proto = onnx.version_converter.convert_version(proto, opset)
        except Exception as e:  # the converter's own errors vary by op
            _logger.warning("ferric.onnx.export: conversion to opset %s failed (%s); the "
                            "model stays at opset %s", opset, e, BASE_OPSET)
    program = ONNXProgram(proto)
    if verbose:
        print(onnx.printer.to_text(proto.graph))
    if f is not None:
        if isinstance(f, io.BytesIO):
            warnings.warn("Saving ONNX model to a BytesIO object is deprecated. Please use a "
                          "file path instead.", DeprecationWarning, stacklevel=2)
        program.save(f, include_initializers=export_params,
                     keep_initializers_as_inputs=keep_initializers_as_inputs,
                     external_data=external_data and isinstance(f, (str, os.PathLike)))
    return program
