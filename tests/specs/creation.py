"""Op-table rows for dtype conversions, ``*_like`` factories, metadata and conversions
to Python values (kind "meta"), the Python-level helpers of the package (isclose,
broadcast_tensors, ...) and the factories (kind "creation")."""

from __future__ import annotations

import operator

import numpy as np

from specs.common import (
    ALL,
    F32,
    F64,
    FLOAT,
    I64,
    INTEGRAL,
    NO0D,
    NONEMPTY,
    NUM,
    B,
    boolean,
    const,
    dname,
    first,
    meta,
    pairs,
    promote_types,
    result_type,
    row,
    same,
)

for _d, _m in [(F32, "float"), (F64, "double"), (I64, "long"), (B, "bool")]:
    row(f"to({_d})", {f"Tensor.{_m}": lambda F, x, m=_m: getattr(x, m)(),
                      "Tensor.to": lambda F, x, d=_d: x.to(getattr(F, d)),
                      "Tensor.type_as":
                          lambda F, x, d=_d: x.type_as(F.zeros(1, dtype=getattr(F, d)))},
        lambda a, d=_d: a.astype(d), rule=const(_d), specials=_d in (F64, F32, B),
        differentiable=_d in FLOAT)
row("to(other forms)", {"Tensor.to": lambda F, x: x.to("cpu", F.float64),
                        "Tensor.to(dtype=)": lambda F, x: x.to(dtype=F.float64),
                        "Tensor.to(tensor)": lambda F, x: x.to(F.zeros(1, dtype=F.float64))},
    lambda a: a.astype(np.float64), rule=const(F64))
for _n, _ref, _rule in [("zeros_like", np.zeros_like, first), ("ones_like", np.ones_like, first),
                        ("full_like", lambda a: np.full_like(a, 7), first),
                        ("empty_like", None, first)]:
    _args = (7,) if _n == "full_like" else ()
    row(_n, {_n: lambda F, x, n=_n, a=_args: getattr(F, n)(x, *a)}, _ref,
        rule=_rule, notes="empty_like: values unspecified" if _ref is None else "")
row("zeros_like(dtype=)", {"zeros_like": lambda F, x: F.zeros_like(x, dtype=F.float64)},
    lambda a: np.zeros(a.shape), rule=const(F64))
row("full_like(2.5, int64)", {"full_like": lambda F, x: F.full_like(x, 2.5, dtype=F.int64)},
    lambda a: np.full(a.shape, 2), rule=const(I64))


# --- metadata and conversions to Python values (kind "meta": compared with ==) --------

meta("numel", {"numel": lambda F, x: F.numel(x), "Tensor.numel": lambda F, x: x.numel(),
               "Tensor.nelement": lambda F, x: x.nelement()}, lambda a: a.size)
meta("dim", {"Tensor.dim": lambda F, x: x.dim(), "Tensor.ndimension": lambda F, x: x.ndimension(),
             "Tensor.ndim": lambda F, x: x.ndim}, lambda a: a.ndim)
meta("size", {"Tensor.size": lambda F, x: tuple(x.size()),
              "Tensor.shape": lambda F, x: tuple(x.shape)},
     lambda a: a.shape)
meta("size(dim)", {"Tensor.size": lambda F, x: x.size(-1)}, lambda a: a.shape[-1], layouts=NO0D)
# (strides of empty tensors depend on how they were made, in PyTorch too: NONEMPTY)
meta("stride", {"Tensor.stride": lambda F, x: tuple(x.stride())},
     lambda a: tuple(s // a.itemsize for s in a.strides), layouts=NONEMPTY)
meta("stride(dim)", {"Tensor.stride": lambda F, x: x.stride(-1)},
     lambda a: a.strides[-1] // a.itemsize, layouts=NONEMPTY[:-1])
meta("data_ptr", {"Tensor.data_ptr": lambda F, x: x.data_ptr() ==
                 x.numpy().__array_interface__["data"][0]}, lambda a: True, layouts=NONEMPTY)
meta("is_contiguous", {"Tensor.is_contiguous": lambda F, x: x.is_contiguous()},
     lambda a: bool(a.flags.c_contiguous))
meta("element_size", {"Tensor.element_size": lambda F, x: x.element_size()},
     lambda a: a.itemsize, layouts=("contiguous",))
meta("is_floating_point", {"Tensor.is_floating_point": lambda F, x: x.is_floating_point(),
                           "is_floating_point": lambda F, x: F.is_floating_point(x)},
     lambda a: a.dtype.kind == "f", layouts=("contiguous",))
meta("is_complex", {"Tensor.is_complex": lambda F, x: x.is_complex(),
                    "is_complex": lambda F, x: F.is_complex(x)},
     lambda a: False, layouts=("contiguous",))
meta("tolist", {"Tensor.tolist": lambda F, x: x.tolist()}, lambda a: a.tolist())
meta("item", {"Tensor.item": lambda F, x: x.item()}, lambda a: a.item(), layouts=("scalar",))
meta("len", {"Tensor.__len__": lambda F, x: len(x)}, len, layouts=NO0D)
meta("iter", {"Tensor.__iter__": lambda F, x: [t.tolist() for t in x]},
     lambda a: [r.tolist() for r in a], layouts=NO0D)
meta("bool()", {"Tensor.__bool__": lambda F, x: bool(x)}, lambda a: bool(a), layouts=("scalar",))
meta("float()", {"Tensor.__float__": lambda F, x: float(x)}, float, layouts=("scalar",))
meta("int()", {"Tensor.__int__": lambda F, x: int(x)}, lambda a: int(a), layouts=("scalar",),
     specials=False)
meta("index()", {"Tensor.__index__": lambda F, x: operator.index(x)},
     lambda a: operator.index(a.item()), layouts=("scalar",), dtypes=same(INTEGRAL))
meta("format", {"Tensor.__format__": lambda F, x: format(x, ".3f")},
     lambda a: format(a.item(), ".3f"), layouts=("scalar",), dtypes=same(NUM))
meta("numpy", {"Tensor.numpy": lambda F, x: (x.numpy().dtype.name, x.numpy().tolist()),
               "Tensor.__array__": lambda F, x: (np.asarray(x).dtype.name, np.asarray(x).tolist())},
     lambda a: (a.dtype.name, a.tolist()))
meta("requires_grad_", {"Tensor.requires_grad_": lambda F, x: x.requires_grad_().requires_grad},
     lambda a: True, layouts=("contiguous",), dtypes=same(FLOAT),
     errors=[((d,), RuntimeError, "floating point") for d in INTEGRAL])
meta("result_type", {"result_type": lambda F, x, y: dname(F.result_type(x, y))},
     lambda a, b: result_type((a.dtype.name, a.ndim), (b.dtype.name, b.ndim)),
     shapes=((3,), ()), dtypes=tuple(pairs(ALL)), layouts=("contiguous", "scalar"))
for _s in (2.5, 3, True):
    meta(f"result_type(x, {_s!r})", {"result_type": lambda F, x, s=_s: dname(F.result_type(x, s))},
         lambda a, s=_s: result_type((a.dtype.name, a.ndim), s), layouts=("contiguous", "scalar"))
meta("promote_types", {"promote_types": lambda F, x, y: dname(F.promote_types(x.dtype, y.dtype))},
     lambda a, b: promote_types(a.dtype.name, b.dtype.name), shapes=((1,), (1,)),
     dtypes=tuple(pairs(ALL)), layouts=("contiguous",))


# --- Python-level functions of the ferric package ----------------------------------------

row("isclose", {"isclose": lambda F, x, y: F.isclose(x, y, rtol=0.5, atol=0.5)},
    lambda a, b: np.isclose(a, b, rtol=0.5, atol=0.5), shapes=((3, 4), (4,)),
    dtypes=same(ALL, 2), rule=boolean)
row("isclose(equal_nan)", {"isclose": lambda F, x, y: F.isclose(x, y, equal_nan=True)},
    lambda a, b: np.isclose(a, b, equal_nan=True), shapes=((3, 4), (3, 4)),
    dtypes=same(FLOAT, 2), rule=boolean, domains=("halves",))
meta("allclose", {"allclose": lambda F, x, y: F.allclose(x, y * 1.0000001)},
     lambda a, b: bool(np.allclose(a, b * 1.0000001)), shapes=((3, 4), (3, 4)),
     dtypes=same(FLOAT, 2), requires="all", specials=False)
meta("equal", {"equal": lambda F, x: F.equal(x, x.clone()) and not F.equal(x, x[..., :1])},
     lambda a: True, layouts=("contiguous", "transposed"), requires="all", specials=False)
row("broadcast_tensors", {"broadcast_tensors": lambda F, x, y: F.broadcast_tensors(x, y)},
    lambda a, b: list(np.broadcast_arrays(a, b)), kind="view", shapes=((3, 1), (4,)),
    dtypes=same(ALL, 2), rule=first, layouts=("contiguous", "transposed", "strided", "scalar"))
meta("broadcast_shapes",
     {"broadcast_shapes": lambda F: tuple(F.broadcast_shapes((3, 1), (4,), ()))},
     lambda: (3, 4), shapes=(), dtypes=((),), layouts=("contiguous",))
meta("is_tensor", {"is_tensor": lambda F, x: (F.is_tensor(x), F.is_tensor(x.tolist()))},
     lambda a: (True, False), layouts=("contiguous",))


# --- factories (kind "creation") ------------------------------------------------------
# (name, call(F, **dtype_kw), NumPy values, dtypes passed as dtype= (None: no keyword),
#  PyTorch's dtype when no dtype is passed). The form's name is the row name up to "(".

ND = (None,) + ALL
CREATIONS = [
    ("tensor(float list)", lambda F, **k: F.tensor([[1.5, -2.0], [0.25, 3.0]], **k),
     [[1.5, -2.0], [0.25, 3.0]], ND, F32),
    ("tensor(int list)", lambda F, **k: F.tensor([1, -2, 3], **k), [1, -2, 3], ND, I64),
    ("tensor(bool list)", lambda F, **k: F.tensor([True, False], **k), [True, False], ND, B),
    ("tensor(mixed list)", lambda F, **k: F.tensor([1, 2.5, True], **k), [1, 2.5, 1], ND, F32),
    ("tensor(scalar)", lambda F, **k: F.tensor(3.5, **k), 3.5, (None, F64, I64), F32),
    ("tensor(empty)", lambda F, **k: F.tensor([], **k), np.zeros(0), (None, I64), F32),
    ("tensor(nested empty)", lambda F, **k: F.tensor([[], []], **k), np.zeros((2, 0)), ND, F32),
    ("tensor(ndarray)", lambda F, **k: F.tensor(np.arange(6.0).reshape(2, 3), **k),
     np.arange(6).reshape(2, 3), ND, F64),
    ("as_tensor", lambda F, **k: F.as_tensor([[1, 2], [3, 4]], **k), [[1, 2], [3, 4]], ND, I64),
    ("from_numpy(float32)", lambda F: F.from_numpy(np.arange(5.0, dtype=np.float32)),
     np.arange(5), (None,), F32),
    ("from_numpy(float64)", lambda F: F.from_numpy(np.arange(5.0)), np.arange(5), (None,), F64),
    ("from_numpy(int64)", lambda F: F.from_numpy(np.arange(5)), np.arange(5), (None,), I64),
    ("from_numpy(bool)", lambda F: F.from_numpy(np.arange(5) > 2), np.arange(5) > 2, (None,), B),
    ("zeros", lambda F, **k: F.zeros(2, 3, **k), np.zeros((2, 3)), ND, F32),
    ("zeros(tuple)", lambda F, **k: F.zeros((2, 3), **k), np.zeros((2, 3)), ND, F32),
    ("zeros(list)", lambda F, **k: F.zeros([2, 3], **k), np.zeros((2, 3)), (None,), F32),
    ("zeros(0-d)", lambda F, **k: F.zeros((), **k), np.zeros(()), (None,), F32),
    ("zeros(zero-size)", lambda F, **k: F.zeros(0, 3, **k), np.zeros((0, 3)), (None,), F32),
    ("ones", lambda F, **k: F.ones(2, 3, **k), np.ones((2, 3)), ND, F32),
    ("ones(tuple)", lambda F, **k: F.ones((2,), **k), np.ones(2), ND, F32),
    ("ones(0-d)", lambda F, **k: F.ones((), **k), np.ones(()), (None,), F32),
    ("empty", lambda F, **k: F.empty(2, 3, **k), None, ND, F32),
    ("full(float)", lambda F, **k: F.full((2, 3), 2.5, **k), np.full((2, 3), 2.5), ND, F32),
    ("full(int)", lambda F, **k: F.full((2,), 7, **k), [7, 7], ND, I64),
    ("full(bool)", lambda F, **k: F.full([2], True, **k), [True, True], ND, B),
    ("arange(end)", lambda F, **k: F.arange(5, **k), np.arange(5), (None, I64, F32, F64), I64),
    ("arange(start, end, step)", lambda F, **k: F.arange(10, 0, -3, **k), [10, 7, 4, 1],
     (None, F64), I64),
    ("arange(float step)", lambda F, **k: F.arange(1, 4, 0.5, **k), np.arange(1, 4, 0.5),
     (None, F64), F32),
    ("arange(0, 1, 0.1)", lambda F, **k: F.arange(0, 1, 0.1, **k), np.arange(10) * 0.1,
     (None,), F32),
    ("arange(empty)", lambda F, **k: F.arange(3, 3, **k), np.arange(0), (None,), I64),
    ("linspace", lambda F, **k: F.linspace(-1, 1, 7, **k), np.linspace(-1, 1, 7), (None, F64),
     F32),
    ("linspace(1 step)", lambda F, **k: F.linspace(2, 10, 1, **k), [2.0], (None,), F32),
    ("linspace(0 steps)", lambda F, **k: F.linspace(0, 1, 0, **k), np.zeros(0), (None,), F32),
    ("linspace(int64)", lambda F, **k: F.linspace(0, 10, 4, **k), [0, 3, 6, 10], (I64,), I64),
    ("logspace", lambda F, **k: F.logspace(0, 2, 3, **k), [1.0, 10.0, 100.0], (None, F64), F32),
    ("logspace(base=2)", lambda F, **k: F.logspace(-1, 3, 5, base=2, **k),
     np.logspace(-1, 3, 5, base=2), (None,), F32),
    ("eye", lambda F, **k: F.eye(3, **k), np.eye(3), ND, F32),
    ("eye(n, m)", lambda F, **k: F.eye(2, 4, **k), np.eye(2, 4), (None,), F32),
    ("eye(0)", lambda F, **k: F.eye(0, **k), np.eye(0), (None,), F32),
    ("Tensor(sizes)", lambda F: F.Tensor(2, 3), None, (None,), F32),
    ("Tensor(data)", lambda F: F.Tensor([1, 2]), [1.0, 2.0], (None,), F32),
]
for _n, _call, _vals, _dts, _default in CREATIONS:
    row(_n, {_n.split("(")[0]: lambda F, d, c=_call: c(F) if d is None else
             c(F, dtype=getattr(F, d))},
        None if _vals is None else (lambda d, v=_vals: np.asarray(v)),
        kind="creation", shapes=(), dtypes=tuple((d,) for d in _dts),
        rule=lambda ops, df=_default: ops[0][0] or df, layouts=("contiguous",))


