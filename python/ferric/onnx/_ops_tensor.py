"""ONNX handlers of tensor ops: elementwise math, comparisons, reductions, matmul.

A handler is called as ``handler(session, out, *args, **kwargs)`` with the arguments of
the ferric call (``self`` first for a method) and the eager result ``out``; it appends
nodes and returns the ONNX name of ``out`` (a list of names for several outputs). The
same handler serves ``ferric.add(x, y)``, ``x.add(y)``, ``x + y`` and, with the output
rebound to ``x``, ``x.add_(y)`` / ``x += y``. Shape ops are in ``_ops_shape``.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ._graph import np_dtype
from .errors import UnsupportedOperatorError

HANDLERS: dict = {}


def reg(*names):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return deco


def dt(t):
    """NumPy dtype of a ferric tensor."""
    return np_dtype(t.dtype)


def _dim(d, rank):
    return d + rank if d < 0 else d


def dims_arg(dim, rank):
    """A dim argument (int, tuple/list, or None for all) as a sorted list, or None."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return [_dim(dim, max(rank, 1))]
    return sorted(_dim(d, max(rank, 1)) for d in dim)


def operand_dtype(a, b):
    """The dtype both operands of a comparison are compared in (PyTorch's promotion)."""
    return np_dtype(_core.result_type(a, b))


# -------------------------------------------------------------------- elementwise unary

_UNARY = {
    "abs": "Abs", "__abs__": "Abs", "neg": "Neg", "negative": "Neg", "__neg__": "Neg",
    "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin", "cos": "Cos", "tan": "Tan",
    "tanh": "Tanh", "sigmoid": "Sigmoid", "relu": "Relu", "erf": "Erf",
    "reciprocal": "Reciprocal", "floor": "Floor", "ceil": "Ceil", "sign": "Sign",
    "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
    "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh", "arcsin": "Asin",
    "arccos": "Acos", "arctan": "Atan", "round": "Round", "logical_not": "Not",
    "isnan": "IsNaN", "softsign": "Softsign",
}


def _unary(op_type):
    def handler(s, out, input, *args, **kwargs):
        if op_type == "Round" and (args or kwargs.get("decimals", 0)):
            raise UnsupportedOperatorError("round(decimals=...)", s.g.opset)
        src = dt(out) if op_type not in ("Not", "IsNaN") else None
        x = s.value(input, np.bool_ if op_type == "Not" else src)
        return s.g.op(op_type, [x])
    return handler


for _name, _op in _UNARY.items():
    HANDLERS[_name] = _unary(_op)


@reg("__invert__", "bitwise_not")
def invert(s, out, input):
    if dt(out) != np.bool_:
        raise UnsupportedOperatorError("bitwise_not on integers", s.g.opset)
    return s.g.op("Not", [s.value(input)])


@reg("isinf")
def isinf(s, out, input):
    return s.g.op("IsInf", [s.value(input)])


@reg("rsqrt")
def rsqrt(s, out, input):
    return s.g.op("Reciprocal", [s.g.op("Sqrt", [s.value(input, dt(out))])])


@reg("square")
def square(s, out, input):
    x = s.value(input, dt(out))
    return s.g.op("Mul", [x, x])


@reg("log1p", "expm1", "log2", "log10", "exp2")
def _log_family(s, out, input):
    g, d = s.g, dt(out)
    x = s.value(input, d)
    name = s.current
    if name == "log1p":
        return g.op("Log", [g.op("Add", [x, g.scalar(1, d)])])
    if name == "expm1":
        return g.op("Sub", [g.op("Exp", [x]), g.scalar(1, d)])
    if name == "exp2":
        return g.op("Pow", [g.scalar(2, d), x])
    base = 2.0 if name == "log2" else 10.0
    return g.op("Div", [g.op("Log", [x]), g.scalar(np.log(base), d)])


@reg("clamp", "clip")
def clamp(s, out, input, min=None, max=None):
    g, d = s.g, dt(out)
    x = s.value(input, d)
    if min is not None:
        x = g.op("Max", [x, s.value(min, d)])
    if max is not None:
        x = g.op("Min", [x, s.value(max, d)])
    return x


@reg("clamp_min")
def clamp_min(s, out, input, min):
    return clamp(s, out, input, min=min)


@reg("clamp_max")
def clamp_max(s, out, input, max):
    return clamp(s, out, input, max=max)


# -------------------------------------------------------------------- elementwise binary

def _binary(op_type, reverse=False, promote=True):
    def handler(s, out, input, other, *, alpha=1):
        d = dt(out)
        a, b = s.value(input, d), s.value(other, d)
        if alpha != 1:
            b = s.g.op("Mul", [b, s.value(alpha, d)])
        if reverse:
            a, b = b, a
        return s.g.op(op_type, [a, b])
    return handler


for _names, _op, _rev in (
    (("add", "__add__", "__radd__"), "Add", False),
    (("sub", "subtract", "__sub__"), "Sub", False), (("__rsub__", "rsub"), "Sub", True),
    (("mul", "multiply", "__mul__", "__rmul__"), "Mul", False),
    (("maximum", "fmax"), "Max", False), (("minimum", "fmin"), "Min", False),
    (("__rpow__",), "Pow", True),
):
    for _n in _names:
        HANDLERS[_n] = _binary(_op, _rev)


@reg("pow", "__pow__")
def pow_(s, out, input, exponent):
    d = dt(out)
    return s.g.op("Pow", [s.value(input, d), s.value(exponent, d)])


@reg("div", "divide", "true_divide", "__truediv__")
def div(s, out, input, other, *, rounding_mode=None):
    return _divide(s, out, s.value(input), s.value(other), rounding_mode, input, other)


@reg("__rtruediv__")
def rdiv(s, out, input, other):
    return _divide(s, out, s.value(other), s.value(input), None, other, input)


@reg("floor_divide", "__floordiv__")
def floordiv(s, out, input, other):
    return _divide(s, out, s.value(input), s.value(other), "floor", input, other)


def _divide(s, out, a, b, mode, ta, tb):
    g, d = s.g, dt(out)
    if mode is None:
        return g.op("Div", [g.cast(a, d), g.cast(b, d)])
    work = d if np.issubdtype(d, np.floating) else np.float64
    q = g.op("Div", [g.cast(a, work), g.cast(b, work)])
    if mode == "floor":
        q = g.op("Floor", [q])
    else:  # trunc: sign(q) * floor(|q|)
        q = g.op("Mul", [g.op("Sign", [q]), g.op("Floor", [g.op("Abs", [q])])])
    return g.cast(q, d)


@reg("remainder", "__mod__")
def remainder(s, out, input, other):
    g, d = s.g, dt(out)
    a, b = s.value(input, d), s.value(other, d)
    if not np.issubdtype(d, np.floating):
        return g.op("Mod", [a, b], fmod=0)
    # Python's sign convention: a - floor(a / b) * b
    return g.op("Sub", [a, g.op("Mul", [g.op("Floor", [g.op("Div", [a, b])]), b])])


@reg("fmod")
def fmod(s, out, input, other):
    d = dt(out)
    return s.g.op("Mod", [s.value(input, d), s.value(other, d)], fmod=1)


_COMPARE = {"eq": "Equal", "__eq__": "Equal", "ne": "Equal", "__ne__": "Equal",
            "not_equal": "Equal", "lt": "Less", "__lt__": "Less", "less": "Less",
            "le": "LessOrEqual", "__le__": "LessOrEqual", "gt": "Greater",
            "__gt__": "Greater", "greater": "Greater", "ge": "GreaterOrEqual",
            "__ge__": "GreaterOrEqual"}


def _compare(op_type, negate):
    def handler(s, out, input, other):
        d = operand_dtype(input, other)
        r = s.g.op(op_type, [s.value(input, d), s.value(other, d)])
        return s.g.op("Not", [r]) if negate else r
    return handler


for _n, _op in _COMPARE.items():
    HANDLERS[_n] = _compare(_op, _n in ("ne", "__ne__", "not_equal"))


def _logical(op_type):
    def handler(s, out, input, other):
        if dt(out) != np.bool_:
            raise UnsupportedOperatorError(f"bitwise {op_type} on integers", s.g.opset)
        return s.g.op(op_type, [s.value(input, np.bool_), s.value(other, np.bool_)])
    return handler


for _names, _op in ((("logical_and", "bitwise_and", "__and__", "__rand__"), "And"),
                    (("logical_or", "bitwise_or", "__or__", "__ror__"), "Or"),
                    (("logical_xor", "bitwise_xor", "__xor__", "__rxor__"), "Xor")):
    for _n in _names:
        HANDLERS[_n] = _logical(_op)


@reg("where")
def where(s, out, condition, input=None, other=None):
    if input is None:
        raise UnsupportedOperatorError("where(condition) (data-dependent output shape)",
                                       s.g.opset)
    d = dt(out)
    return s.g.op("Where", [s.value(condition, np.bool_), s.value(input, d),
                            s.value(other, d)])


@reg("masked_fill")
def masked_fill(s, out, input, mask, value):
    d = dt(out)
    return s.g.op("Where", [s.value(mask, np.bool_), s.value(value, d), s.value(input, d)])


@reg("lerp")
def lerp(s, out, input, end, weight):
    g, d = s.g, dt(out)
    a, b = s.value(input, d), s.value(end, d)
    return g.op("Add", [a, g.op("Mul", [s.value(weight, d), g.op("Sub", [b, a])])])


@reg("addcmul", "addcdiv")
def addc(s, out, input, tensor1, tensor2, *, value=1):
    g, d = s.g, dt(out)
    op = "Mul" if s.current == "addcmul" else "Div"
    t = g.op(op, [s.value(tensor1, d), s.value(tensor2, d)])
    if value != 1:
        t = g.op("Mul", [t, s.value(value, d)])
    return g.op("Add", [s.value(input, d), t])


# -------------------------------------------------------------------- casts and copies

@reg("contiguous", "clone", "detach", "cpu", "coalesce", "resolve_conj", "resolve_neg",
     "positive", "__pos__", "_named_node")
def identity(s, out, input, *args, **kwargs):
    return s.value(input)  # the same values: the output shares the input's name


@reg("to", "type", "float", "double", "half", "long", "int", "bool", "short", "char",
     "byte", "type_as", "cuda")
def cast(s, out, input, *args, **kwargs):
    return s.value(input, dt(out))  # the input's own name when the dtype is unchanged


@reg("copy_")
def copy_(s, out, input, src, non_blocking=False):
    g = s.g
    x = s.value(src, dt(input))
    return g.op("Expand", [x, g.shape_of(s.value(input))])


# -------------------------------------------------------------------- reductions

def _keep(keepdim, kwargs):
    return bool(kwargs.get("keepdim", keepdim))


def _reduction(op_type):
    def handler(s, out, input, dim=None, keepdim=False, *, dtype=None, **kwargs):
        g = s.g
        x = s.value(input, dt(out))
        axes = dims_arg(dim, g.rank(s.value(input)))
        if axes is not None and len(axes) == 0 and op_type in ("ReduceSum", "ReduceMean"):
            axes = None  # PyTorch: dim=() / [] reduces everything
        return g.reduce(op_type, x, axes, _keep(keepdim, kwargs))
    return handler


for _names, _op in ((("sum",), "ReduceSum"), (("mean",), "ReduceMean"),
                    (("amax",), "ReduceMax"), (("amin",), "ReduceMin"),
                    (("logsumexp",), "ReduceLogSumExp")):
    for _n in _names:
        HANDLERS[_n] = _reduction(_op)


@reg("prod")
def prod(s, out, input, dim=None, keepdim=False, *, dtype=None):
    x = s.value(input, dt(out))
    return s.g.reduce("ReduceProd", x, None if dim is None else [dim % max(input.dim(), 1)],
                      keepdim)


def _max_min(op_type, arg_op):
    def handler(s, out, input, dim=None, keepdim=False, *, other=None):
        g = s.g
        if dim is not None and not isinstance(dim, int):  # max(input, other)
            d = dt(out)
            return g.op("Max" if op_type == "ReduceMax" else "Min",
                        [s.value(input, d), s.value(dim, d)])
        x = s.value(input)
        if dim is None:
            return g.reduce(op_type, x, None, False)
        axis = _dim(dim, max(input.dim(), 1))
        values = g.reduce(op_type, x, [axis], keepdim)
        idx = g.op(arg_op, [x], axis=axis, keepdims=int(keepdim), select_last_index=0)
        return [values, idx]
    return handler


HANDLERS["max"] = _max_min("ReduceMax", "ArgMax")
HANDLERS["min"] = _max_min("ReduceMin", "ArgMin")


def _arg(op_type):
    def handler(s, out, input, dim=None, keepdim=False):
        g = s.g
        x = s.value(input)
        if dim is None:
            x, dim, keepdim = g.op("Reshape", [x, g.i64([-1])]), 0, False
        return g.op(op_type, [x], axis=_dim(dim, max(input.dim(), 1)),
                    keepdims=int(keepdim))
    return handler


HANDLERS["argmax"] = _arg("ArgMax")
HANDLERS["argmin"] = _arg("ArgMin")


def _all_any(op_type):
    def handler(s, out, input, dim=None, keepdim=False):
        g = s.g
        x = g.cast(s.value(input, np.bool_), np.int64)
        r = g.reduce(op_type, x, dims_arg(dim, input.dim()), keepdim)
        return g.cast(r, np.bool_)
    return handler


HANDLERS["all"] = _all_any("ReduceMin")
HANDLERS["any"] = _all_any("ReduceMax")


@reg("var", "std")
def var_std(s, out, input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    g, d = s.g, dt(out)
    if isinstance(dim, bool):  # var(x, False): the flag is `unbiased`
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    x = s.value(input, d)
    axes = dims_arg(dim, input.dim())
    n = input.numel() if axes is None else int(np.prod([input.shape[a] for a in axes]))
    mean = g.reduce("ReduceMean", x, axes, True)
    diff = g.op("Sub", [x, mean])
    ss = g.reduce("ReduceSum", g.op("Mul", [diff, diff]), axes, keepdim)
    v = g.op("Div", [ss, g.scalar(max(n - correction, 0), d)])
    return g.op("Sqrt", [v]) if s.current == "std" else v


@reg("norm")
def norm(s, out, input, p="fro", dim=None, keepdim=False, dtype=None):
    g = s.g
    x = s.value(input, dt(out))
    axes = dims_arg(dim, input.dim())
    if p in ("fro", 2, 2.0):
        return g.reduce("ReduceL2", x, axes, keepdim)
    if p in (1, 1.0):
        return g.reduce("ReduceL1", x, axes, keepdim)
    if p == float("inf"):
        return g.reduce("ReduceMax", g.op("Abs", [x]), axes, keepdim)
    raise UnsupportedOperatorError(f"norm(p={p!r})", g.opset)


@reg("cumsum")
def cumsum(s, out, input, dim, *, dtype=None):
    g = s.g
    axis = g.scalar(_dim(dim, max(input.dim(), 1)), np.int64)
    return g.op("CumSum", [s.value(input, dt(out)), axis])


# -------------------------------------------------------------------- matmul

@reg("matmul", "mm", "bmm", "__matmul__", "mv", "dot", "inner")
def matmul(s, out, input, other):
    d = dt(out)
    return s.g.op("MatMul", [s.value(input, d), s.value(other, d)])


@reg("__rmatmul__")
def rmatmul(s, out, input, other):
    d = dt(out)
    return s.g.op("MatMul", [s.value(other, d), s.value(input, d)])


@reg("addmm", "baddbmm", "addbmm", "addmv")
def addmm(s, out, input, mat1, mat2, *, beta=1, alpha=1):
    g, d = s.g, dt(out)
    prod_ = g.op("MatMul", [s.value(mat1, d), s.value(mat2, d)])
    if s.current == "addbmm":
        prod_ = g.reduce("ReduceSum", prod_, [0], False)
    if alpha != 1:
        prod_ = g.op("Mul", [prod_, g.scalar(alpha, d)])
    base = s.value(input, d)
    if beta != 1:
        base = g.op("Mul", [base, g.scalar(beta, d)])
    return g.op("Add", [base, prod_])


@reg("einsum")
def einsum(s, out, equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    d = dt(out)
    return s.g.op("Einsum", [s.value(x, d) for x in operands], equation=equation.replace(" ", ""))


@reg("_linear", "linear")
def linear(s, out, input, weight, bias=None):
    """``x W^T + b``: ``Gemm`` for a 2-D input, else ``MatMul`` (+ ``Add``)."""
    g, d = s.g, dt(out)
    x, w = s.value(input, d), s.value(weight, d)
    if input.dim() == 2 and weight.dim() == 2:
        inputs = [x, w] + ([s.value(bias, d)] if bias is not None else [])
        return g.op("Gemm", inputs, transB=1)
    wt = g.op("Transpose", [w], perm=list(range(weight.dim()))[::-1])
    y = g.op("MatMul", [x, wt])
    return y if bias is None else g.op("Add", [y, s.value(bias, d)])
