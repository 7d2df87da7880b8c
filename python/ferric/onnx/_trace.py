"""Tracing: one eager run of the model with every tensor op intercepted and recorded.

While :class:`Session` is active the public entry points of ferric are wrapped: the
functions of ``ferric``, ``ferric._core`` and ``ferric.nn.functional``, every method and
operator of ``ferric.Tensor``, and ``forward`` of the recurrent layers. A wrapper does
nothing unless one of its arguments is a *traced* tensor (a graph input, or the output of
a recorded op) or a traced size (:class:`SymInt`); then it

1. runs the real op, paused (so the ops it calls internally are not recorded again),
2. asks the handler registered under the op's name (``_ops_tensor``, ``_ops_nn``,
   ``_ops_rnn``) to append the equivalent ONNX nodes, and
3. binds the eager outputs to the ONNX names the handler returned.

A Python-level function with no handler of its own is *decomposed*: it runs unpaused, so
the ops it calls are recorded one by one. A Rust op with no handler raises
:class:`~ferric.onnx.errors.UnsupportedOperatorError` naming it. Tensors that are not
traced (parameters, buffers, tensors the code made) become initializers the first time a
recorded op reads them; parameters and buffers keep their ``state_dict`` names.

Sizes: with ``dynamic_axes``, ``x.shape`` / ``x.size()`` of a traced tensor return
:class:`SymInt` s, ints that remember the ONNX value they came from, so
``x.view(x.size(0), -1)`` records a ``Shape`` and stays valid for other batch sizes.
Reading a tensor's *value* (``item()``, ``bool(t)``, ``tolist()``, ``numpy()``) warns with
:class:`~ferric.onnx.errors.TracerWarning`: Python control flow that depends on it is
recorded as the one path it took.
"""

from __future__ import annotations

import contextlib
import sys
import types
import warnings

import numpy as np

from .. import _core
from .._core import Tensor
from .._size import Size
from .._tree import tensors_in as _tensors_in
from .errors import TracerWarning, UnsupportedOperatorError

_ACTIVE: Session | None = None
_MISSING = object()

_CONVERSION_TEXT = (
    "Converting a tensor to {what} might cause the trace to be incorrect. We can't "
    "record the data flow of Python values, so this value will be treated as a constant in "
    "the future. This means that the trace might not generalize to other inputs! "
    "(ferric.onnx.export records the one path the Python code took for the example inputs: "
    "branches and loops that depend on tensor values are not in the exported graph.)"
)
# Tensor methods that read a value into Python: they warn, then run
CONVERSIONS = {
    "item": "a Python number", "__int__": "a Python integer", "__float__": "a Python float",
    "__index__": "a Python index", "__bool__": "a Python boolean", "tolist": "a Python list",
    "numpy": "a NumPy array", "__array__": "a NumPy array", "__dlpack__": "a DLPack capsule",
}
# methods and functions that read metadata or print: they run as they are
PASSTHROUGH = {
    "dim", "ndimension", "numel", "nelement", "is_floating_point", "is_complex",
    "is_contiguous", "stride", "storage_offset", "element_size", "data_ptr", "get_device",
    "is_signed", "requires_grad_", "retain_grad", "register_hook", "__len__", "__repr__",
    "__str__", "__format__", "__hash__", "__sizeof__", "__reduce__", "__reduce_ex__",
    "__deepcopy__", "__copy__", "__getstate__", "__setstate__", "__dlpack_device__",
    "is_tensor", "is_storage", "result_type", "promote_types", "can_cast", "typename",
    "is_nonzero", "is_same_size", "is_shared", "is_pinned", "untyped_storage",
    "is_grad_enabled", "is_inference", "get_default_dtype", "_nested_hook", "dim_order",
    "size", "is_inference_mode_enabled", "_is_view", "_base", "type_as_string",
    # autocast's casts: the identity outside an autocast region
    "_autocast_args", "_autocast_cpu_dtype",
}
_SKIP_METHODS = {"__new__", "__init__", "__getattribute__", "__getattr__", "__setattr__",
                 "__delattr__", "__init_subclass__", "__subclasshook__", "__class_getitem__",
                 "__dir__", "__del__", "__class__", "__doc__", "__module__", "__dict__",
                 "__weakref__"}


class SymInt(int):
    """An int read from a traced tensor's shape that remembers its ONNX value (an int64
    tensor of shape ``[1]``); ``+ - * //`` with ints keep it symbolic."""

    def __new__(cls, value: int, onnx_name: str):
        obj = super().__new__(cls, value)
        obj.onnx_name = onnx_name
        return obj

    def _arith(self, other, op_type, py, reverse=False):
        s = _ACTIVE
        if s is None or s.paused or not isinstance(other, int) or isinstance(other, bool):
            return py(int(self), other) if not reverse else py(other, int(self))
        a, b = self.onnx_name, s.dim_value(other)
        value = py(int(self), int(other))
        if reverse:
            a, b = b, a
            value = py(int(other), int(self))
        return SymInt(value, s.g.op(op_type, [a, b]))

    def __add__(self, o):
        return self._arith(o, "Add", int.__add__)

    def __radd__(self, o):
        return self._arith(o, "Add", int.__add__, True)

    def __sub__(self, o):
        return self._arith(o, "Sub", int.__sub__)

    def __rsub__(self, o):
        return self._arith(o, "Sub", int.__sub__, True)

    def __mul__(self, o):
        return self._arith(o, "Mul", int.__mul__)

    def __rmul__(self, o):
        return self._arith(o, "Mul", int.__mul__, True)

    def __floordiv__(self, o):
        return self._arith(o, "Div", int.__floordiv__)

    def __rfloordiv__(self, o):
        return self._arith(o, "Div", int.__floordiv__, True)


class Session:
    """The state of one export: the graph, the ONNX name of every traced tensor, and the
    patched entry points."""

    def __init__(self, graph, *, symbolic: bool, param_names: dict[int, str]):
        self.g = graph
        self.symbolic = symbolic
        self.names: dict[int, str] = {}
        self.consts: dict[int, str] = {}
        self.param_names = param_names
        self.keep: list = []  # keeps traced tensors alive, so their ids stay theirs
        self.paused = 0
        self.calls: list[str] = []  # decomposed functions being run, for error messages
        self.current = ""  # the name of the op whose handler is running
        self._shapes: dict[str, str] = {}

    # ------------------------------------------------------------------ values

    def traced(self, obj) -> bool:
        return isinstance(obj, Tensor) and id(obj) in self.names

    def involves(self, args, kwargs) -> bool:
        """Whether a call reads a traced tensor or a traced size (also inside a list, a
        tuple or a slice: ``pe[: x.size(1)]``)."""
        return any(self._traced_arg(a, 2) for a in (*args, *kwargs.values()))

    def _traced_arg(self, a, depth) -> bool:
        if isinstance(a, Tensor):
            return id(a) in self.names
        if isinstance(a, SymInt):
            return True
        if isinstance(a, slice):
            return any(isinstance(v, SymInt) for v in (a.start, a.stop, a.step))
        if depth and isinstance(a, (tuple, list)):
            return any(self._traced_arg(x, depth - 1) for x in a)
        return False

    def bind(self, tensor, name: str):
        from ._graph import np_dtype
        self.names[id(tensor)] = name
        self.keep.append(tensor)
        self.g.meta[name] = (np_dtype(tensor.dtype), tuple(int(d) for d in _real_shape(tensor)))

    def value(self, x, dtype=None) -> str:
        """The ONNX name of ``x`` (a tensor, a traced size or a Python number), converted to
        NumPy ``dtype`` when given."""
        g = self.g
        if isinstance(x, Tensor):
            name = self.names.get(id(x))
            if name is None:
                name = self.constant(x)
            return name if dtype is None else g.cast(name, dtype)
        if isinstance(x, SymInt):
            name = g.squeeze(x.onnx_name, [0])
            g.meta[name] = (np.dtype(np.int64), ())
            return name if dtype is None else g.cast(name, dtype)
        if dtype is None:
            dtype = np.bool_ if isinstance(x, bool) else (
                np.int64 if isinstance(x, int) else np.float32)
        return g.scalar(x, dtype)

    def constant(self, t) -> str:
        """An untraced tensor read by a recorded op: an initializer, named after its
        ``state_dict`` key when it is a parameter or buffer of the exported model."""
        key = id(t)
        if key not in self.consts:
            arr = np.array(_core.Tensor.detach(t).numpy(), copy=True)
            self.consts[key] = self.g.const(arr, "Constant", self.param_names.get(key))
            self.keep.append(t)
        return self.consts[key]

    def dim_value(self, d) -> str:
        """A size as an int64 ``[1]`` value: a traced size's own, else a constant."""
        return d.onnx_name if isinstance(d, SymInt) else self.g.i64([int(d)])

    def shape_value(self, dims) -> str:
        """A shape (ints and traced sizes) as a 1-D int64 value."""
        dims = list(dims)
        if not any(isinstance(d, SymInt) for d in dims):
            return self.g.i64([int(d) for d in dims])
        if not dims:
            return self.g.i64([])
        parts = [self.dim_value(d) for d in dims]
        return parts[0] if len(parts) == 1 else self.g.op("Concat", parts, axis=0)

    def sym_shape(self, t):
        """``t.shape`` with traced sizes (for a traced tensor under ``dynamic_axes``)."""
        shape = _real_shape(t)
        name = self.names.get(id(t))
        if name is None or not self.symbolic:
            return shape
        dims = []
        for i, d in enumerate(shape):
            key = f"{name}:{i}"
            if key not in self._shapes:
                self.paused += 1
                try:
                    self._shapes[key] = self.g.shape_of(name, i, i + 1)
                finally:
                    self.paused -= 1
            dims.append(SymInt(int(d), self._shapes[key]))
        return Size(dims)

    # ------------------------------------------------------------------ dispatch

    @contextlib.contextmanager
    def pause(self):
        self.paused += 1
        try:
            yield
        finally:
            self.paused -= 1

    def call(self, qualname, name, orig, handler, args, kwargs, inplace=False, op=None):
        if name in CONVERSIONS:
            warnings.warn(_CONVERSION_TEXT.format(what=CONVERSIONS[name]), TracerWarning,
                          stacklevel=3)
            with self.pause():
                return orig(*args, **kwargs)
        if name in PASSTHROUGH:
            with self.pause():
                return orig(*args, **kwargs)
        if handler is None:
            if isinstance(orig, types.FunctionType):  # Python code: record what it calls
                self.calls.append(qualname)
                try:
                    return orig(*args, **kwargs)
                finally:
                    self.calls.pop()
            where = f" (called from {self.calls[-1]})" if self.calls else ""
            raise UnsupportedOperatorError(qualname + where, self.g.opset)
        with self.pause():
            out = orig(*args, **kwargs)
            if name == "__iter__":  # iterating over a tensor: its rows, recorded as unbind
                out = tuple(out)
            self.current = op or name
            names = handler(self, out, *args, **kwargs)
        if inplace:
            self.bind(args[0], names if isinstance(names, str) else names[0])
            return out
        outs = _tensors_in(out, [])
        names = [names] if isinstance(names, str) else list(names)
        if len(outs) != len(names):
            raise RuntimeError(f"ONNX export: the handler of {qualname} named {len(names)} "
                               f"outputs for {len(outs)} tensors")
        for t, n in zip(outs, names, strict=True):
            if n is not None:
                self.bind(t, n)
        return iter(out) if name == "__iter__" else out


def _real_shape(t):
    return _ORIGINAL_SHAPE.__get__(t, Tensor)


_ORIGINAL_SHAPE = Tensor.__dict__["shape"]


def _wrap(qualname, name, orig, handler, inplace=False, op=None):
    def wrapper(*args, **kwargs):
        s = _ACTIVE
        if s is None or s.paused or not s.involves(args, kwargs):
            return orig(*args, **kwargs)
        return s.call(qualname, name, orig, handler, args, kwargs, inplace, op or name)

    wrapper.__name__ = getattr(orig, "__name__", name)
    wrapper.__doc__ = getattr(orig, "__doc__", None)
    wrapper.__wrapped__ = orig
    return wrapper


class Patches:
    """Attribute replacements, undone in reverse order."""

    def __init__(self):
        self._saved: list = []

    def set(self, obj, name, value):
        self._saved.append((obj, name, vars(obj).get(name, _MISSING)))
        setattr(obj, name, value)

    def restore(self):
        while self._saved:
            obj, name, old = self._saved.pop()
            if old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)


_INPLACE_DUNDERS = {"__iadd__": "add", "__isub__": "sub", "__imul__": "mul",
                    "__itruediv__": "div", "__ipow__": "pow", "__iand__": "bitwise_and",
                    "__ior__": "bitwise_or", "__ixor__": "bitwise_xor",
                    "__imatmul__": "matmul", "__ifloordiv__": "floor_divide"}


def _method_handler(name, handlers):
    """(handler, the op it records, in-place?) for a Tensor method name: ``add_`` and
    ``__iadd__`` record ``add`` and rebind ``self`` to the result."""
    if name in handlers:
        return handlers[name], name, False
    base = _INPLACE_DUNDERS.get(name)
    if base is None and name.endswith("_") and not name.startswith("_"):
        base = name[:-1]
    if base is not None and base in handlers:
        return handlers[base], base, True
    return None, name, False


def install(session, patches, tensor_handlers, nn_handlers, module_handlers):
    """Wraps the entry points; ``patches.restore()`` undoes it."""
    global _ACTIVE
    from ..nn import functional as F
    ferric = sys.modules[__name__.split(".")[0]]  # the package namespace (torch.cat, ...)

    for name, orig in list(vars(Tensor).items()):
        if name in _SKIP_METHODS or not callable(orig) or isinstance(orig, type):
            continue
        handler, op, inplace = _method_handler(name, tensor_handlers)
        patches.set(Tensor, name, _wrap(f"Tensor.{name}", name, orig, handler, inplace, op))
    for prop in ("T", "mT"):
        h = tensor_handlers[prop]
        getter = _wrap(f"Tensor.{prop}", prop, vars(Tensor)[prop].__get__, h)
        patches.set(Tensor, prop, property(getter))
    patches.set(Tensor, "shape", property(_shape_getter))
    patches.set(Tensor, "size", _size_method)

    for module, prefix, table in ((ferric, "ferric", tensor_handlers),
                                  (_core, "ferric._core", tensor_handlers),
                                  (F, "ferric.nn.functional", nn_handlers)):
        for name, orig in list(vars(module).items()):
            # builtins, Python functions and the Tensor methods that ``_core`` exposes
            # as functions (``_core.relu`` is ``Tensor.relu``'s descriptor)
            if name.startswith("__") or not callable(orig) or isinstance(
                    orig, (type, types.ModuleType)) or not hasattr(orig, "__name__"):
                continue
            handler = table.get(name)  # None: decomposed when Python, else unsupported
            patches.set(module, name, _wrap(f"{prefix}.{name}", name, orig, handler))
    for cls, name, handler in module_handlers:
        orig = vars(cls)[name]
        patches.set(cls, name, _wrap(f"{cls.__module__}.{cls.__name__}.{name}", name, orig,
                                     handler))
    _ACTIVE = session


def uninstall(patches):
    global _ACTIVE
    _ACTIVE = None
    patches.restore()


def _shape_getter(self):
    s = _ACTIVE
    if s is None or s.paused:
        return _real_shape(self)
    return s.sym_shape(self)


def _size_method(self, dim=None):
    shape = _shape_getter(self)
    if dim is None:
        return shape
    return shape[dim]
