"""The ONNX graph under construction: nodes, initializers and the dtype/shape of each value.

Handlers (``_ops_*.py``) append nodes through :meth:`Graph.op`; constants become
initializers (small integer vectors are shared). Nothing here knows about ferric's
tracing: values are ONNX names, plus the NumPy dtype and the (example) shape of each,
taken from the tensors the eager run produced.
"""

from __future__ import annotations

import numpy as np

INT64_MAX = 9223372036854775807

# ferric dtype name -> NumPy dtype (the ONNX element type follows from NumPy's)
_NP = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "bool": np.bool_,
}


def np_dtype(dtype) -> np.dtype:
    """NumPy dtype of a ferric dtype (``ferric.float32`` -> ``float32``)."""
    name = str(dtype).rsplit(".", 1)[-1]
    if name not in _NP:
        raise TypeError(f"ONNX export: tensors of dtype {dtype} are not supported")
    return np.dtype(_NP[name])


class Graph:
    """A growing ONNX graph at one opset version."""

    def __init__(self, onnx_module, opset: int):
        self.onnx = onnx_module
        self.opset = opset
        self.nodes: list = []
        self.initializers: dict[str, np.ndarray] = {}
        self.meta: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
        self._counter: dict[str, int] = {}
        self._small: dict[tuple, str] = {}

    # ------------------------------------------------------------------ names

    def fresh(self, hint: str) -> str:
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return f"/{hint}_{n}" if n else f"/{hint}"

    def reserve(self, name: str) -> str:
        """Claims an exact name (a graph input, a parameter's state_dict key)."""
        self._counter.setdefault(name, 1)
        return name

    # ------------------------------------------------------------------ nodes

    def op(self, op_type: str, inputs, outputs: int = 1, *, meta=None, **attrs):
        """Appends one node; returns its output name (or the list of names when
        ``outputs`` > 1). ``None`` attributes are left out; ``""`` inputs are the
        ONNX way to skip an optional input. ``meta`` is the (dtype, shape) of the first
        output when the caller knows it."""
        names = [self.fresh(f"{op_type}_output") for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        node = self.onnx.helper.make_node(op_type, list(inputs), names,
                                          name=self.fresh(op_type), **attrs)
        self.nodes.append(node)
        if meta is not None:
            self.meta[names[0]] = meta
        return names[0] if outputs == 1 else names

    # ------------------------------------------------------------------ constants

    def const(self, array, hint: str = "const", name: str | None = None) -> str:
        """An initializer holding ``array`` (a NumPy array); returns its name."""
        arr = np.array(array, order="C")  # (ascontiguousarray would make 0-d 1-d)
        name = self.reserve(name) if name is not None else self.fresh(hint)
        self.initializers[name] = arr
        self.meta[name] = (arr.dtype, tuple(arr.shape))
        return name

    def _shared(self, arr: np.ndarray) -> str:
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        if key not in self._small:
            self._small[key] = self.const(arr)
        return self._small[key]

    def i64(self, values) -> str:
        """A 1-D int64 constant (axes, shapes, slice bounds)."""
        return self._shared(np.asarray(list(values), dtype=np.int64).reshape(-1))

    def scalar(self, value, dtype) -> str:
        """A 0-d constant of NumPy ``dtype``."""
        return self._shared(np.asarray(value, dtype=dtype))

    # ------------------------------------------------------------------ helpers

    def cast(self, name: str, dtype) -> str:
        """``name`` converted to NumPy ``dtype`` (no node when it already has it)."""
        dtype = np.dtype(dtype)
        src = self.meta.get(name)
        if src is not None and src[0] == dtype:
            return name
        to = self.onnx.helper.np_dtype_to_tensor_dtype(dtype)
        shape = src[1] if src is not None else None
        return self.op("Cast", [name], to=to, meta=(dtype, shape) if shape is not None else None)

    def rank(self, name: str) -> int:
        return len(self.meta[name][1])

    def shape_of(self, name: str, start: int | None = None, end: int | None = None) -> str:
        """The run-time shape of ``name`` (or the dims ``start:end``) as int64."""
        if start is None and end is None:
            return self.op("Shape", [name])
        if self.opset >= 15:
            return self.op("Shape", [name], start=start, end=end)
        rank = len(self.meta[name][1]) if name in self.meta else INT64_MAX
        return self.slice(self.op("Shape", [name]), 0, start or 0,
                          rank if end is None else end)

    def unsqueeze(self, name: str, axes) -> str:
        return self.op("Unsqueeze", [name, self.i64(axes)])

    def squeeze(self, name: str, axes) -> str:
        return self.op("Squeeze", [name, self.i64(axes)])

    def reduce(self, op_type: str, name: str, axes, keepdims: bool) -> str:
        """``Reduce*`` over ``axes`` (None: all); axes are an input from opset 18 on
        (from 13 on for ``ReduceSum``), an attribute before."""
        if axes is not None and self.opset < 18 and op_type != "ReduceSum":
            return self.op(op_type, [name], axes=list(axes), keepdims=int(keepdims))
        inputs = [name] if axes is None else [name, self.i64(axes)]
        return self.op(op_type, inputs, keepdims=int(keepdims))

    def slice(self, name: str, axis: int, start: int, end: int, step: int = 1) -> str:
        return self.op("Slice", [name, self.i64([start]), self.i64([end]), self.i64([axis]),
                                 self.i64([step])])

    # ------------------------------------------------------------------ the model

    def value_info(self, name: str, dtype, dims) -> object:
        """A typed value; ``dims`` entries are ints, strings (symbolic) or None."""
        elem = self.onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        return self.onnx.helper.make_tensor_value_info(name, elem, dims)

    def model(self, inputs, outputs, *, include_initializers=True, producer="ferric",
              producer_version="", doc=""):
        helper, numpy_helper = self.onnx.helper, self.onnx.numpy_helper
        inits = ([numpy_helper.from_array(arr, name)
                  for name, arr in self.initializers.items()] if include_initializers else [])
        graph = helper.make_graph(self.nodes, "main_graph", inputs, outputs,
                                  initializer=inits, doc_string=doc)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                 producer_name=producer, producer_version=producer_version)
