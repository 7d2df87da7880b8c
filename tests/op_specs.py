"""The op table: one row per public op, consumed by the generic tests.

A row says how to call an op (``call(F, *inputs)`` with the library module first, so the
same row also runs against PyTorch when the table itself is checked by hand), a float64
NumPy reference, how to generate inputs (shapes, value domain), which dtypes the op
supports, PyTorch's result dtype (NumPy's promotion differs, so it is never inferred from
the reference), whether the op is differentiable (for the autograd tests) and known bugs.
The machinery that runs rows (layout variants, comparisons) is in test_op_table.py.

Adding an op is one row. ``unary("exp", np.exp)`` creates the rows for ``ferric.exp``,
``Tensor.exp`` and ``Tensor.exp_``; ``binary("add", np.add, "add", iop="add")`` also
makes the operator, mixed-dtype, Python-scalar and in-place rows. Ops merged later look
like::

    row("sum(dim=1)", fm("sum", 1), lambda a: a.sum(1),
        rule=lambda ops: I64 if ops[0][0] in INTEGRAL else ops[0][0])
    row("matmul", {"matmul": lambda F, x, y: F.matmul(x, y)}, np.matmul,
        shapes=((3, 4), (4, 5)), layout_shapes={"zero_size": ((0, 4), (4, 5))},
        layouts=LAYOUTS[:-1], dtypes=same(NUM, 2), differentiable=True)
    row("randn", {"randn": lambda F, x: F.randn(3, 4)}, None, ...)  # ref=None: shape/dtype

and ``requires="sum"`` skips a row until ``Tensor.sum`` exists.
"""

from __future__ import annotations

import math
import operator
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

F32, F64, I64, B = "float32", "float64", "int64", "bool"
ALL = (B, I64, F32, F64)
NUM = (I64, F32, F64)
FLOAT = (F32, F64)
INTEGRAL = (B, I64)

LAYOUTS = ("contiguous", "transposed", "strided", "broadcast", "zero_size", "scalar")


# --- PyTorch's type promotion, written out independently of the library -------------

_ORDER = {B: 0, I64: 1, F32: 2, F64: 3}


def _category(d):
    return 2 if d in FLOAT else (1 if d == I64 else 0)


def promote_types(a, b):
    return a if _ORDER[a] >= _ORDER[b] else b


def _combine(higher, lower):
    """A lower-priority operand group only matters if it has a higher category."""
    if higher is None:
        return lower
    if lower is None or _category(higher) == 2:
        return higher
    if higher == B or _category(lower) == 2:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """``torch.result_type`` over operands given as ``(dtype, ndim)`` or Python numbers.

    Dimensioned tensors outrank 0-d tensors, which outrank Python numbers; a Python
    float counts as the default dtype (float32).
    """
    groups: list[Any] = [None, None, None]
    for op in operands:
        if isinstance(op, tuple):
            d, slot = op[0], (0 if op[1] > 0 else 1)
        else:
            slot = 2
            d = B if isinstance(op, (bool, np.bool_)) else (
                I64 if isinstance(op, (int, np.integer)) else F32)
        groups[slot] = d if groups[slot] is None else promote_types(groups[slot], d)
    return _combine(groups[0], _combine(groups[1], groups[2])) or F32


def can_cast(src, dst):
    """PyTorch's rule for writing a ``src`` result into a ``dst`` tensor in place."""
    return _category(src) <= _category(dst)


def promote(ops):
    return result_type(*ops)


def to_float(ops):
    d = result_type(*ops)
    return d if d in FLOAT else F32


def boolean(ops):
    return B


def first(ops):
    return ops[0][0]


def const(d):
    return lambda ops: d


# --- value domains -------------------------------------------------------------------

# (float generator, int64 generator); bool inputs are always random True/False.
DOMAINS: dict[str, tuple[Callable, Callable]] = {
    "real": (lambda r, s: r.uniform(-3, 3, s), lambda r, s: r.integers(-5, 6, s)),
    "positive": (lambda r, s: r.uniform(0.1, 5, s), lambda r, s: r.integers(1, 7, s)),
    "unit": (lambda r, s: r.uniform(-0.95, 0.95, s), lambda r, s: r.integers(-1, 2, s)),
    "above_m1": (lambda r, s: r.uniform(-0.9, 4, s), lambda r, s: r.integers(0, 6, s)),
    "nonzero": (lambda r, s: r.choice([-1, 1], s) * r.uniform(0.5, 3, s),
                lambda r, s: r.choice([-4, -3, -2, -1, 1, 2, 3, 4], s)),
    # ties for the rounding ops (round half to even) and exact equalities for isclose
    "halves": (lambda r, s: r.integers(-12, 13, s) / 2.0, lambda r, s: r.integers(-5, 6, s)),
    "exponent": (lambda r, s: r.uniform(-2, 2, s), lambda r, s: r.integers(0, 4, s)),
    "wide": (lambda r, s: r.uniform(-50, 50, s), lambda r, s: r.integers(-50, 51, s)),
}
SPECIALS = (math.nan, math.inf, -math.inf, 0.0, -0.0)


def generate(rng, domain, dtype, shape, specials=True):
    """Values of ``dtype`` for ``shape``; float inputs lead with nan/inf/-inf/0/-0."""
    if dtype == B:
        # divisors must not contain False (integer division by zero raises)
        return np.asarray(rng.random(shape) < (2 if domain == "nonzero" else 0.5))
    fgen, igen = DOMAINS[domain]
    if dtype == I64:
        return np.asarray(igen(rng, shape), dtype=np.int64)
    a = np.asarray(fgen(rng, shape), dtype=np.float64).astype(dtype)
    flat = a.reshape(-1)
    if specials and flat.size >= 8:
        flat[: len(SPECIALS)] = SPECIALS
    return a


def rng_for(*parts):
    """A generator seeded from the case id, so every case is reproducible on its own."""
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


# --- rows -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Spec:
    """One op. ``forms`` maps each public spelling ("exp", "Tensor.exp",
    "Tensor.__add__") to a call; the first is the one run on every layout, the others are
    checked to agree with it. ``rule`` gives PyTorch's result dtype from the operands as
    ``(dtype, ndim)`` pairs plus ``scalars`` (the Python numbers the call passes).

    Kinds: "op" (returns new tensors; ``ref(*float64 arrays)``), "inplace" (mutates its
    first input and returns it; ``ref`` gives that input's new value), "view" (results
    must share memory with input 0), "meta" (returns a plain Python value, compared with
    ``ref(*arrays)`` on NumPy mirrors of the inputs, same dtype and strides), "creation"
    (``call(F, dtype_name_or_None)``, ``ref(dtype)``)."""

    name: str
    forms: dict
    ref: Callable
    kind: str = "op"
    shapes: tuple = ((3, 4),)
    domains: tuple = ("real",)
    dtypes: tuple = tuple((d,) for d in ALL)
    rule: Callable = promote
    scalars: tuple = ()
    errors: tuple = ()  # (dtypes, exception, message fragment)
    layouts: tuple = LAYOUTS
    differentiable: bool = False
    specials: bool = True
    tol: dict = field(default_factory=dict)  # dtype -> (rtol, atol)
    layout_shapes: dict = field(default_factory=dict)  # layout -> shapes (overrides)
    xfail: tuple = ()  # (dtypes or None, layouts or None, reason)
    requires: str = ""  # Tensor attribute the row needs (ops merged later)
    alias: Any = None  # True: results must share memory with input 0; False: must not
    overlap_ok: bool = False  # in-place op PyTorch allows on expanded (stride-0) tensors
    notes: str = ""

    @property
    def call(self):
        return next(iter(self.forms.values()))

    def domain(self, i):
        return self.domains[min(i, len(self.domains) - 1)]

    def shapes_for(self, layout):
        if layout in self.layout_shapes:
            return self.layout_shapes[layout]
        if layout == "scalar":
            return tuple(() for _ in self.shapes)
        if layout == "zero_size":
            nd = max(len(s) for s in self.shapes)
            return tuple((0,) + tuple(s[1:]) if len(s) == nd and s else s for s in self.shapes)
        return self.shapes

    def expected_dtype(self, dtypes, layout):
        if self.kind == "creation":
            return self.rule([(dtypes[0], 0)])
        nds = [len(s) for s in self.shapes_for(layout)]
        return self.rule([(d, n) for d, n in zip(dtypes, nds, strict=True)] + list(self.scalars))

    def xfail_reason(self, dtypes, layout):
        for dts, lays, reason in self.xfail:
            if (dts is None or tuple(dtypes) in dts) and (lays is None or layout in lays):
                return reason
        return None


def same(dtypes, n=1):
    return tuple((d,) * n for d in dtypes)


def _ignore(fn):
    def wrapped(*a, **k):
        with np.errstate(all="ignore"):
            return fn(*a, **k)
    return wrapped


SPECS: list[Spec] = []


def _as_float64(fn):
    return lambda *arrays: fn(*[np.asarray(a, np.float64) for a in arrays])


def row(name, forms, ref, **kw):
    if ref is not None and kw.get("rule") is to_float:
        ref = _as_float64(ref)  # NumPy would compute bool/int inputs in float16
    s = Spec(name, forms, ref and _ignore(ref), **kw)
    SPECS.append(s)
    return s


# In-place spellings: x.op_() must give op(x) cast to x's dtype, and must raise when
# PyTorch's can_cast forbids writing the result into x (e.g. int64 x.exp_()).
def inplace_of(spec, forms, **kw):
    opts = dict(shapes=spec.shapes, domains=spec.domains, dtypes=spec.dtypes,
                rule=spec.rule, scalars=spec.scalars, errors=spec.errors,
                layouts=spec.layouts, differentiable=spec.differentiable,
                specials=spec.specials, tol=spec.tol, xfail=spec.xfail)
    opts.update(kw)
    return row(spec.name + "_", forms, spec.ref, kind="inplace", **opts)


def unary(name, ref, *, aliases=(), inplace=True, fn_inplace=False, dtypes=ALL,
          rule=to_float, errors=(), differentiable=True, **kw):
    """``ferric.name(x)``, ``x.name()`` and (unless inplace=False) ``x.name_()``, for the
    name and its aliases; ``fn_inplace`` adds ``ferric.name_(x)``. ``errors`` lists
    (dtype, (exception, fragment)) for input dtypes PyTorch rejects."""
    forms, iforms = {}, {}
    for n in (name,) + tuple(aliases):
        forms[n] = lambda F, x, n=n: getattr(F, n)(x)
        forms["Tensor." + n] = lambda F, x, n=n: getattr(x, n)()
        iforms["Tensor." + n + "_"] = lambda F, x, n=n: getattr(x, n + "_")()
        if fn_inplace and n == name:
            iforms[n + "_"] = lambda F, x, n=n: getattr(F, n + "_")(x)
    err = tuple(((d,), *e) for d, e in errors)
    s = row(name, forms, ref, dtypes=same(dtypes), rule=rule, errors=err,
            differentiable=differentiable, **kw)
    if inplace:
        inplace_of(s, iforms)
    return s


NOT_IMPL = (RuntimeError, "not implemented for")


def erf(a):
    return np.vectorize(math.erf, otypes=[np.float64])(a) if a.size else a.astype(np.float64)


def erfc(a):
    return np.vectorize(math.erfc, otypes=[np.float64])(a) if a.size else a.astype(np.float64)


def softplus_ref(a, beta=1.0, threshold=20.0):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


def sign_ref(a):
    # PyTorch: sign(nan) == 0 ((0 < x) - (x < 0)), unlike NumPy's nan
    if a.dtype == bool:
        return a
    return np.where(np.isnan(a), 0.0, np.sign(a)) if a.dtype.kind == "f" else np.sign(a)


# --- elementwise unary ----------------------------------------------------------------

BOOL_NEG = (RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported")
unary("neg", np.negative, aliases=("negative",), dtypes=NUM, rule=promote,
      errors=[(B, BOOL_NEG)])
unary("abs", np.abs, aliases=("absolute",), dtypes=NUM, rule=promote, errors=[(B, NOT_IMPL)])
unary("sign", sign_ref, rule=promote)
for _n, _ref, _al in [("floor", np.floor, ()), ("ceil", np.ceil, ()),
                      ("round", np.round, ()), ("trunc", np.trunc, ("fix",))]:
    unary(_n, _ref, aliases=_al, dtypes=NUM, rule=promote, domains=("halves",),
          errors=[(B, NOT_IMPL)])
_round1 = row("round(decimals=1)",
              {"round": lambda F, x: F.round(x, decimals=1),
               "Tensor.round": lambda F, x: x.round(decimals=1)},
              lambda a: np.round(a, 1), dtypes=same(FLOAT),
              differentiable=True,
              errors=[((I64,), *NOT_IMPL)])
inplace_of(_round1, {"Tensor.round_": lambda F, x: x.round_(decimals=1)})
row("round(decimals=-1)", {"Tensor.round": lambda F, x: x.round(decimals=-1)},
    lambda a: np.round(a, -1), dtypes=same(FLOAT), domains=("wide",), differentiable=True)
unary("frac", lambda a: a - np.trunc(a), dtypes=FLOAT, rule=promote,
      errors=[(B, NOT_IMPL), (I64, NOT_IMPL)])
unary("exp", np.exp, fn_inplace=True)
unary("exp2", np.exp2)
unary("expm1", np.expm1)
unary("log", np.log, domains=("positive",))
unary("log2", np.log2, domains=("positive",))
unary("log10", np.log10, domains=("positive",))
unary("log1p", np.log1p, domains=("above_m1",))
unary("sqrt", np.sqrt, domains=("positive",))
unary("rsqrt", lambda a: 1 / np.sqrt(a), domains=("positive",))
unary("square", np.square, rule=lambda ops: I64 if ops[0][0] == B else ops[0][0])
unary("reciprocal", lambda a: 1 / a.astype(np.float64), domains=("nonzero",))
unary("sin", np.sin)
unary("cos", np.cos)
unary("tan", np.tan, tol={F32: (1e-4, 1e-5)})
unary("asin", np.arcsin, aliases=("arcsin",), domains=("unit",))
unary("acos", np.arccos, aliases=("arccos",), domains=("unit",))
unary("atan", np.arctan, aliases=("arctan",))
unary("sinh", np.sinh)
unary("cosh", np.cosh)
unary("tanh", np.tanh, fn_inplace=True)
unary("sigmoid", lambda a: 1 / (1 + np.exp(-a.astype(np.float64))), fn_inplace=True)
unary("relu", lambda a: np.where(a > 0, a, np.where(np.isnan(a), a, 0)).astype(a.dtype),
      dtypes=NUM, rule=promote, fn_inplace=True,
      errors=[(B, (RuntimeError, "not supported for relu"))])
unary("erf", erf)
unary("erfc", erfc, tol={F32: (1e-4, 1e-6)})
for _n, _ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isposinf", np.isposinf),
                 ("isneginf", np.isneginf), ("isfinite", np.isfinite)]:
    unary(_n, _ref, rule=boolean, inplace=False, differentiable=False)
unary("logical_not", np.logical_not, rule=boolean, differentiable=False)
unary("bitwise_not", np.invert, dtypes=INTEGRAL, rule=promote, differentiable=False,
      errors=[(F32, NOT_IMPL), (F64, NOT_IMPL)])

# nan_to_num: explicit replacement values keep the reference dtype-independent
_n2n = row("nan_to_num(nan,posinf,neginf)",
           {"nan_to_num": lambda F, x: F.nan_to_num(x, nan=0.5, posinf=100.0, neginf=-100.0),
            "Tensor.nan_to_num": lambda F, x: x.nan_to_num(0.5, 100.0, -100.0)},
           lambda a: np.nan_to_num(a, nan=0.5, posinf=100.0, neginf=-100.0),
           dtypes=same(ALL), differentiable=True)
# (on integer tensors PyTorch's nan_to_num_ returns before any overlap check)
inplace_of(_n2n, {"Tensor.nan_to_num_": lambda F, x: x.nan_to_num_(0.5, 100.0, -100.0)},
           dtypes=same(FLOAT))
for _d in FLOAT:
    row(f"nan_to_num[{_d}]", {"nan_to_num": lambda F, x: F.nan_to_num(x)},
        lambda a, _d=_d: np.nan_to_num(a, nan=0.0, posinf=float(np.finfo(_d).max),
                                       neginf=float(np.finfo(_d).min)),
        dtypes=((_d,),))

# clamp family: bounds are Python numbers or tensors, and take part in promotion
_cl = row("clamp(min,max)",
          {"clamp": lambda F, x: F.clamp(x, -1, 2), "clip": lambda F, x: F.clip(x, -1, 2),
           "Tensor.clamp": lambda F, x: x.clamp(-1, 2), "Tensor.clip": lambda F, x: x.clip(-1, 2)},
          lambda a: np.clip(a, -1, 2), scalars=(-1, 2), differentiable=True)
inplace_of(_cl, {"Tensor.clamp_": lambda F, x: x.clamp_(-1, 2),
                 "Tensor.clip_": lambda F, x: x.clip_(-1, 2),
                 "clamp_": lambda F, x: F.clamp_(x, -1, 2)})
row("clamp(float bounds)", {"Tensor.clamp": lambda F, x: x.clamp(min=-0.5, max=1.5)},
    lambda a: np.clip(a.astype(np.float64), -0.5, 1.5), scalars=(-0.5, 1.5),
    dtypes=same(NUM), differentiable=True)
row("clamp(tensor bounds)", {"clamp": lambda F, x, lo, hi: F.clamp(x, lo, hi)},
    lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi), shapes=((3, 4), (4,), (3, 1)),
    domains=("real", "unit", "positive"), dtypes=same(FLOAT, 3), differentiable=True)
row("clamp_min", {"Tensor.clamp_min": lambda F, x: x.clamp_min(0.5),
                  "clamp_min": lambda F, x: F.clamp_min(x, 0.5)},
    lambda a: np.maximum(a, 0.5), scalars=(0.5,), dtypes=same(NUM), differentiable=True)
row("clamp_max", {"Tensor.clamp_max": lambda F, x: x.clamp_max(1),
                  "clamp_max": lambda F, x: F.clamp_max(x, 1)},
    lambda a: np.minimum(a, 1), scalars=(1,), dtypes=same(NUM), differentiable=True)

# activations (module functions, like torch.nn.functional): floating point only
ACT_INT = [((d,), *NOT_IMPL) for d in INTEGRAL]
for _n, _call, _ref in [
    ("gelu", lambda F, x: F.gelu(x), lambda a: 0.5 * a * (1 + erf(a / math.sqrt(2)))),
    ("gelu(tanh)", lambda F, x: F.gelu(x, approximate="tanh"),
     lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))),
    ("silu", lambda F, x: F.silu(x), lambda a: a / (1 + np.exp(-a))),
    ("mish", lambda F, x: F.mish(x), lambda a: a * np.tanh(softplus_ref(a))),
    ("logsigmoid", lambda F, x: F.logsigmoid(x),
     lambda a: np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))),
    ("softplus", lambda F, x: F.softplus(x), softplus_ref),
    ("softplus(beta,threshold)", lambda F, x: F.softplus(x, beta=2.0, threshold=3.0),
     lambda a: softplus_ref(a, 2.0, 3.0)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2), lambda a: np.where(a > 0, a, 0.2 * a)),
    ("elu", lambda F, x: F.elu(x, alpha=0.5), lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
]:
    # PyTorch's own gelu(inf) is inf for float64 but nan for float32: no specials
    row(_n, {_n.split("(")[0]: _call}, _ref, dtypes=same(FLOAT), differentiable=True,
        errors=ACT_INT, specials=not _n.startswith("gelu"))


# --- elementwise binary ---------------------------------------------------------------

def _opfn(sym):
    """operator.add for "add", operator.and_ for "and", operator.iand for "iand"."""
    return getattr(operator, sym + "_" if sym in ("and", "or") else sym)


def _pairs(dtypes):
    return [(a, b) for a in dtypes for b in dtypes]


def binary(name, ref, sym=None, *, aliases=(), inplace=True, iop=None, bad=None,
           rule=promote, domains=("real", "real"), differentiable=True, scalar_rows=(),
           mixed=True, **kw):
    """Rows for a binary op: same-dtype tensor/tensor (with broadcasting between the
    operands), mixed dtypes, Python scalars on either side, and in-place forms.

    ``bad(common_dtype, dtypes)`` returns (exception, fragment) for dtype combinations
    PyTorch rejects; those become error rows."""
    forms = {}
    for n in (name,) + tuple(aliases):
        forms[n] = lambda F, x, y, n=n: getattr(F, n)(x, y)
        forms["Tensor." + n] = lambda F, x, y, n=n: getattr(x, n)(y)
    if sym:
        forms[f"Tensor.__{sym}__"] = lambda F, x, y, s=sym: _opfn(s)(x, y)

    def split(combos, scalars=(), nds=(1, 1)):
        ok, err = [], []
        for c in combos:
            common = result_type(*[(d, n) for d, n in zip(c, nds, strict=True)], *scalars)
            e = bad(common, c) if bad else None
            (err.append((c, *e)) if e else ok.append(c))
        return tuple(ok), tuple(err)

    ok, err = split(same(ALL, 2))
    main = row(name, forms, ref, shapes=((3, 4), (4,)), domains=domains, dtypes=ok,
               errors=err, rule=rule, differentiable=differentiable, **kw)
    iforms = {}
    if inplace:
        iforms["Tensor." + name + "_"] = lambda F, x, y: getattr(x, name + "_")(y)
    if iop:
        iforms[f"Tensor.__i{iop}__"] = lambda F, x, y: _opfn("i" + iop)(x, y)
    if iforms:
        inplace_of(main, iforms)
    if mixed:
        # mixed dtypes, dimensioned second operand and 0-d second operand
        mix = [c for c in _pairs(ALL) if c[0] != c[1]]
        for shapes, tag in [(((3, 4), (4,)), "mixed"), (((3, 4), ()), "mixed 0-d")]:
            ok, err = split(mix, nds=(2, len(shapes[1])))
            row(f"{name}[{tag}]", {name: forms[next(iter(forms))]}, ref, shapes=shapes,
                domains=domains, dtypes=ok, errors=err, rule=rule, **kw,
                layouts=("contiguous", "broadcast", "scalar"))
    for scal, left, dom in scalar_rows:
        s_forms = ({f"Tensor.__r{sym}__": lambda F, x, s=scal: _opfn(sym)(s, x)}
                   if left else
                   {f"Tensor.__{sym}__" if sym else name:
                    (lambda F, x, s=scal: _opfn(sym)(x, s)) if sym else
                    (lambda F, x, s=scal: getattr(F, name)(x, s))})
        sref = ((lambda a, s=scal: ref(np.asarray(s), a)) if left else
                (lambda a, s=scal: ref(a, np.asarray(s))))
        ok, err = split(same(ALL), scalars=(scal,), nds=(2,))
        label = f"{name}({scal!r}, x)" if left else f"{name}(x, {scal!r})"
        srow = row(label, s_forms, sref, domains=(dom,), dtypes=ok, errors=err, rule=rule,
                   scalars=(scal,), differentiable=differentiable, **kw)
        if not left and iop:
            inplace_of(srow, {f"Tensor.__i{iop}__":
                              lambda F, x, s=scal: _opfn("i" + iop)(x, s)})
    return main


def _bool_bad(what):
    return lambda common, c: (RuntimeError, "not implemented for 'Bool'") if common == B else None


def _float_bad(common, c):
    return NOT_IMPL if common in FLOAT else None


SUB_BOOL = (RuntimeError, "Subtraction, the `-` operator, with")
F_, L_ = 2.5, 3  # the Python scalars used by the scalar rows
binary("add", np.add, "add", iop="add", scalar_rows=[(F_, False, "real"), (L_, True, "real"),
                                                       (True, False, "real")])
binary("sub", np.subtract, "sub", aliases=("subtract",), iop="sub",
       bad=lambda common, c: SUB_BOOL if B in c or common == B else None,
       scalar_rows=[(F_, False, "real"), (L_, True, "real")])
binary("mul", np.multiply, "mul", aliases=("multiply",), iop="mul",
       scalar_rows=[(F_, False, "real"), (L_, True, "real")])
binary("div", lambda a, b: np.true_divide(np.asarray(a, np.float64), b), "truediv",
       aliases=("divide", "true_divide"), iop="truediv", rule=to_float,
       domains=("real", "nonzero"),
       scalar_rows=[(F_, False, "real"), (L_, True, "nonzero")])
binary("floor_divide", np.floor_divide, "floordiv", iop="floordiv", bad=_bool_bad("div_floor"),
       domains=("real", "nonzero"), differentiable=False,
       scalar_rows=[(F_, False, "real"), (L_, True, "nonzero")])
binary("remainder", np.remainder, "mod", iop="mod", bad=_bool_bad("remainder"),
       domains=("real", "nonzero"),
       scalar_rows=[(F_, False, "real"), (L_, True, "nonzero")])
binary("fmod", np.fmod, bad=_bool_bad("fmod"), domains=("real", "nonzero"),
       scalar_rows=[(F_, False, "real")])
binary("pow", lambda a, b: np.power(np.asarray(a, np.float64) if np.asarray(b).dtype.kind == "f"
                                    or np.asarray(a).dtype.kind == "f" else a, b),
       "pow", iop="pow", bad=_bool_bad("pow"), domains=("real", "exponent"),
       scalar_rows=[(2, False, "real"), (0.5, False, "positive"),
                                             (2, True, "exponent")])
binary("maximum", np.maximum, inplace=False)
binary("minimum", np.minimum, inplace=False)
binary("atan2", np.arctan2, rule=to_float)
for _n, _ref, _sym, _al in [("eq", np.equal, "eq", ()), ("ne", np.not_equal, "ne", ("not_equal",)),
                            ("lt", np.less, "lt", ("less",)),
                            ("le", np.less_equal, "le", ("less_equal",)),
                            ("gt", np.greater, "gt", ("greater",)),
                            ("ge", np.greater_equal, "ge", ("greater_equal",))]:
    binary(_n, _ref, _sym, aliases=_al, rule=boolean, inplace=False, differentiable=False,
           mixed=_n == "eq", scalar_rows=[(F_, False, "real")])
for _n in ("logical_and", "logical_or", "logical_xor"):
    binary(_n, getattr(np, _n), rule=boolean, inplace=_n != "logical_xor", differentiable=False,
           mixed=_n == "logical_and")
for _n, _sym in [("bitwise_and", "and"), ("bitwise_or", "or"), ("bitwise_xor", "xor")]:
    binary(_n, getattr(np, _n), _sym, iop=_sym, inplace=False, bad=_float_bad,
           differentiable=False, mixed=_n == "bitwise_and",
           scalar_rows=[(L_, False, "real"), (L_, True, "real")])

# rounding modes and alpha
row("div(trunc)", {"div": lambda F, x, y: F.div(x, y, rounding_mode="trunc"),
                   "Tensor.divide": lambda F, x, y: x.divide(y, rounding_mode="trunc")},
    lambda a, b: np.trunc(np.true_divide(a, b)), shapes=((3, 4), (4,)),
    domains=("real", "nonzero"), dtypes=same(NUM, 2), errors=[((B, B), *NOT_IMPL)])
_divf = row("div(floor)", {"div": lambda F, x, y: F.div(x, y, rounding_mode="floor"),
                           "Tensor.div": lambda F, x, y: x.div(y, rounding_mode="floor")},
            np.floor_divide, shapes=((3, 4), (4,)), domains=("real", "nonzero"),
            dtypes=same(NUM, 2), errors=[((B, B), *NOT_IMPL)])
inplace_of(_divf, {"Tensor.div_": lambda F, x, y: x.div_(y, rounding_mode="floor")})
row("div(x, 0.0)", {"div": lambda F, x: F.div(x, 0.0)}, lambda a: np.true_divide(a, 0.0),
    scalars=(0.0,), rule=to_float)
_alpha = row("add(alpha=2)", {"add": lambda F, x, y: F.add(x, y, alpha=2),
                              "Tensor.add": lambda F, x, y: x.add(y, alpha=2)},
             lambda a, b: np.logical_or(a, b) if a.dtype == bool and b.dtype == bool else a + 2 * b,
             shapes=((3, 4), (4,)), dtypes=same(ALL, 2), differentiable=True)
inplace_of(_alpha, {"Tensor.add_": lambda F, x, y: x.add_(y, alpha=2)})
_salpha = row("sub(alpha=0.5)", {"sub": lambda F, x, y: F.sub(x, y, alpha=0.5),
                                 "Tensor.subtract": lambda F, x, y: x.subtract(y, alpha=0.5)},
              lambda a, b: a - 0.5 * b, shapes=((3, 4), (4,)), dtypes=same(FLOAT, 2),
              differentiable=True, errors=[((I64, I64), RuntimeError,
                                             "alpha must not be a floating point number")])
inplace_of(_salpha, {"Tensor.sub_": lambda F, x, y: x.sub_(y, alpha=0.5)})
row("pow(scalar, x)", {"pow": lambda F, x: F.pow(2, x)}, lambda a: np.power(2.0, a) if
    a.dtype.kind == "f" else np.power(2, a.astype(np.int64)), domains=("exponent",),
    scalars=(2,), rule=lambda ops: I64 if ops[0][0] == B else promote(ops), differentiable=True)


def _int_pow(a, b):
    """Integer powers with negative exponents, as PyTorch computes them for an exponent
    tensor: 1 ** -n = 1, (-1) ** -n = +-1, anything else ** -n = 0."""
    neg = b < 0
    out = np.where(neg, 0, np.power(a, np.where(neg, 0, b)))
    out = np.where(neg & (a == 1), 1, out)
    return np.where(neg & (a == -1), np.where(b % 2 == 0, 1, -1), out)


row("pow(int, negative int tensor)", {"pow": lambda F, x, y: F.pow(x, y),
                                      "Tensor.__pow__": lambda F, x, y: x ** y},
    _int_pow, shapes=((3, 4), (4,)), dtypes=((I64, I64),), domains=("real", "real"))
row("pow(2.5, x)", {"pow": lambda F, x: F.pow(2.5, x)}, lambda a: np.power(2.5, a),
    domains=("exponent",), scalars=(2.5,), differentiable=True)


# --- views and shape ops ----------------------------------------------------------------

NO0D = tuple(lay for lay in LAYOUTS if lay != "scalar")


def view(name, forms, ref, shapes=((3, 4),), layouts=NO0D, alias=True, **kw):
    """A shape op: same dtype, values from the NumPy equivalent; with ``alias`` the
    result must share memory with the input (checked through ``np.shares_memory``)."""
    return row(name, forms, ref, kind="view" if alias else "op", shapes=shapes,
               alias=True if alias else None,
               layouts=layouts, rule=first, differentiable=True, **kw)


def fm(names, *args, fn=True, **kwargs):
    """Forms ``F.name(x, *args)`` (unless fn=False) and ``x.name(*args)`` for each of the
    space-separated names."""
    forms = {}
    for n in names.split():
        if fn:
            forms[n] = lambda F, x, n=n: getattr(F, n)(x, *args, **kwargs)
        forms["Tensor." + n] = lambda F, x, n=n: getattr(x, n)(*args, **kwargs)
    return forms


def _split_last(x):
    return (*x.shape[:-1], 2, x.shape[-1] // 2)


view("view(split last dim)", {"Tensor.view": lambda F, x: x.view(*_split_last(x))},
     lambda a: a.reshape(_split_last(a)))
view("view(-1)", fm("view", -1, fn=False), lambda a: a.reshape(-1),
     layouts=("contiguous", "zero_size", "scalar"))
view("view(shape tuple)", {"Tensor.view": lambda F, x: x.view((x.shape[0], 1, -1))},
     lambda a: a.reshape(a.shape[0], 1, -1), layouts=("contiguous", "transposed"))
view("view_as", {"Tensor.view_as": lambda F, x: x.view_as(F.zeros(*_split_last(x)))},
     lambda a: a.reshape(_split_last(a)))
view("reshape(-1)", {"reshape": lambda F, x: F.reshape(x, (-1,)),
                     "Tensor.reshape": lambda F, x: x.reshape(-1)},
     lambda a: a.reshape(-1), layouts=LAYOUTS, alias=False)
view("reshape(-1, 2)", fm("reshape", -1, 2, fn=False), lambda a: a.reshape(-1, 2), alias=False)
view("reshape_as",
     {"Tensor.reshape_as": lambda F, x: x.reshape_as(F.zeros(x.shape[-1], x.shape[0]))},
     lambda a: a.reshape(a.shape[-1], a.shape[0]), alias=False)
view("flatten", fm("flatten ravel"), lambda a: a.reshape(-1), layouts=LAYOUTS, alias=False)
view("flatten(0, 1)", fm("flatten", 0, 1), lambda a: a.reshape((-1,) + a.shape[2:]),
     shapes=((2, 3, 4),), alias=False)
view("unflatten", fm("unflatten", -1, (2, -1)), lambda a: a.reshape(a.shape[:-1] + (2, 2)),
     alias=False)
view("permute", {"permute": lambda F, x: F.permute(x, (2, 0, 1)),
                 "Tensor.permute": lambda F, x: x.permute(2, 0, 1)},
     lambda a: a.transpose(2, 0, 1), shapes=((2, 3, 4),))
view("permute(negative dims)", fm("permute", (-1, 0, -2), fn=False),
     lambda a: a.transpose(2, 0, 1), shapes=((2, 3, 4),))
view("transpose", fm("transpose swapaxes swapdims", 0, -1),
     lambda a: np.swapaxes(a, 0, -1) if a.ndim else a, shapes=((2, 3, 4),), layouts=LAYOUTS)
view("t", fm("t"), lambda a: a.T, layouts=LAYOUTS)
view("T", {"Tensor.T": lambda F, x: x.T}, lambda a: a.T, shapes=((2, 3, 4),))
view("mT", {"Tensor.mT": lambda F, x: x.mT}, lambda a: np.swapaxes(a, -1, -2),
     shapes=((2, 3, 4),))
view("expand", {"Tensor.expand": lambda F, x: x.expand(2, *x.shape)},
     lambda a: np.broadcast_to(a, (2,) + a.shape), layouts=LAYOUTS)
view("expand(-1)", fm("expand", -1, 5, fn=False),
     lambda a: np.broadcast_to(a, (a.shape[0], 5)), shapes=((3, 1),))
view("expand_as", {"Tensor.expand_as": lambda F, x: x.expand_as(F.zeros(*x.shape[:-1], 5))},
     lambda a: np.broadcast_to(a, a.shape[:-1] + (5,)), shapes=((3, 1),), layouts=LAYOUTS)
view("broadcast_to", {"broadcast_to": lambda F, x: F.broadcast_to(x, (2, *x.shape)),
                      "Tensor.broadcast_to": lambda F, x: x.broadcast_to((2, *x.shape))},
     lambda a: np.broadcast_to(a, (2,) + a.shape), layouts=LAYOUTS)
view("squeeze", fm("squeeze"), lambda a: a.reshape([d for d in a.shape if d != 1]),
     shapes=((3, 1, 4),), layouts=LAYOUTS)
view("squeeze(dim)", fm("squeeze", -2), lambda a: a.squeeze(1), shapes=((3, 1, 4),))
view("squeeze(non-1 dim)", fm("squeeze", 0), lambda a: a, shapes=((3, 1, 4),))
view("squeeze(dims)", fm("squeeze", (0, 1), fn=False),
     lambda a: a.squeeze(1) if a.shape[0] != 1 else a.squeeze((0, 1)), shapes=((3, 1, 4),))
view("unsqueeze", fm("unsqueeze", 0), lambda a: a[None], layouts=LAYOUTS)
view("unsqueeze(-1)", fm("unsqueeze", -1), lambda a: a[..., None], layouts=LAYOUTS)
view("narrow", fm("narrow", -1, 1, 2), lambda a: a[..., 1:3])
view("narrow(negative start)", fm("narrow", 1, -3, 3), lambda a: a[:, -3:])
view("select", fm("select", -1, 1), lambda a: a[..., 1])
view("select(negative index)", fm("select", 1, -1), lambda a: a[:, -1])
view("unbind", fm("unbind", -1), lambda a: [a[..., i] for i in range(a.shape[-1])])
view("unbind(0)", fm("unbind", fn=False), lambda a: [a[i] for i in range(a.shape[0])])
view("chunk", fm("chunk", 2, -1), lambda a: [a[..., :2], a[..., 2:]])
view("chunk(uneven)", fm("chunk", 3, 1), lambda a: [a[:, :2], a[:, 2:4], a[:, 4:]],
     shapes=((2, 5),))
view("split", fm("split", 3, -1), lambda a: [a[..., :3], a[..., 3:]])
view("split(sizes)", fm("split", [1, 3], dim=-1), lambda a: [a[..., :1], a[..., 1:]])
view("movedim", fm("movedim moveaxis", 0, -1), lambda a: np.moveaxis(a, 0, -1),
     shapes=((2, 3, 4),))
view("movedim(tuples)", fm("movedim", (0, 1), (2, 0)),
     lambda a: np.moveaxis(a, (0, 1), (2, 0)), shapes=((2, 3, 4),))
view("detach", {**fm("detach"), **fm("detach_ cpu", fn=False)}, lambda a: a, layouts=LAYOUTS)
view("contiguous", fm("contiguous", fn=False), lambda a: a,
     layouts=LAYOUTS, alias=False)  # may alias (when already contiguous) or copy
row("clone", {"clone": lambda F, x: F.clone(x), "Tensor.clone": lambda F, x: x.clone()},
    lambda a: a, rule=first, alias=False, differentiable=True)

# basic indexing: every key is a view
for _key, _lays in [((Ellipsis, 1), NO0D), ((slice(None), slice(None, None, 2)), NO0D),
                    ((None, Ellipsis, slice(1, 3)), NO0D), ((slice(1, None), -1), NO0D),
                    ((slice(-2, None), slice(None, None, 3)), NO0D),
                    ((slice(10, 20),), NO0D), ((slice(None), None, 0), NO0D),
                    ((), LAYOUTS), ((None,), LAYOUTS), ((Ellipsis, None), LAYOUTS),
                    (1, ("contiguous", "transposed", "strided", "broadcast")),
                    (-1, ("contiguous", "transposed", "strided", "broadcast"))]:
    view(f"getitem[{_key!r}]", {"Tensor.__getitem__": lambda F, x, k=_key: x[k]},
         lambda a, k=_key: a[k], layouts=_lays)


# --- in-place writes that are not arithmetic ------------------------------------------

def _setitem(key):
    def call(F, x, *v):
        x[key] = v[0] if v else 2.5
        return x

    def ref(a, *v):
        b = a.copy()
        b[key] = v[0] if v else 2.5
        return b
    return call, ref


_c, _r = _setitem((Ellipsis, slice(None, None, 2)))
row("setitem[..., ::2] = tensor", {"Tensor.__setitem__": _c}, _r, kind="inplace",
    shapes=((3, 4), (2,)), dtypes=tuple(_pairs(ALL)), rule=first, specials=False, layouts=NO0D,
    differentiable=True)
_c, _r = _setitem((slice(1, None), 1))
row("setitem[1:, 1] = 2.5", {"Tensor.__setitem__": _c}, _r, kind="inplace", rule=first,
    layouts=NO0D, overlap_ok=True)
_c, _r = _setitem(Ellipsis)
row("setitem[...] = 0-d tensor", {"Tensor.__setitem__": _c}, _r, kind="inplace",
    shapes=((3, 4), ()), dtypes=same(ALL, 2), rule=first, specials=False)
row("copy_", {"Tensor.copy_": lambda F, x, y: x.copy_(y)},
    lambda a, b: np.broadcast_to(b, a.shape).astype(a.dtype), kind="inplace",
    shapes=((3, 4), (4,)), dtypes=tuple(_pairs(ALL)), rule=first, specials=False,
    differentiable=True)
# In-place ops whose other operand overlaps the written-to tensor. ferric copies the
# operand first, so the result is as if it had been cloned. PyTorch instead raises
# "some elements of the input tensor and the written-to tensor refer to a single memory
# location" when it detects the overlap (and silently gives order-dependent values when
# it does not, e.g. for step-sliced views): a deliberate, lenient deviation.
SQ = dict(kind="inplace", shapes=((4, 4),), rule=first, specials=False,
          layouts=("contiguous", "transposed", "strided", "broadcast"),
          notes="PyTorch raises on this partial overlap; ferric's result is well defined")
row("add_(own transpose)", {"Tensor.add_": lambda F, x: x.add_(x.t())}, lambda a: a + a.T,
    dtypes=same(NUM), **SQ)
row("copy_(own transpose)", {"Tensor.copy_": lambda F, x: x.copy_(x.t())}, lambda a: a.T.copy(),
    **SQ)
row("mul_(own row)", {"Tensor.mul_": lambda F, x: x.mul_(x[0])}, lambda a: a * a[0],
    dtypes=same(NUM), **SQ)
row("setitem[1:] = self[:-1]", {"Tensor.__setitem__": lambda F, x: x.__setitem__(
    slice(1, None), x[:-1]) or x}, lambda a: np.concatenate([a[:1], a[:-1]]), **SQ)
row("fill_", {"Tensor.fill_": lambda F, x: x.fill_(2.5)}, lambda a: np.full_like(a, 2.5),
    kind="inplace", rule=first, overlap_ok=True)
row("fill_(0-d tensor)", {"Tensor.fill_": lambda F, x, v: x.fill_(v)},
    lambda a, v: np.full_like(a, v), kind="inplace", shapes=((3, 4), ()),
    dtypes=same(ALL, 2), rule=first, specials=False)
row("zero_", {"Tensor.zero_": lambda F, x: x.zero_()}, np.zeros_like, kind="inplace",
    rule=first, overlap_ok=True)


# --- dtype conversions and *_like factories ------------------------------------------

def _dname(d):
    return str(d).split(".")[-1]


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

def meta(name, forms, ref, **kw):
    kw.setdefault("rule", first)
    return row(name, forms, ref, kind="meta", **kw)


meta("numel", {"numel": lambda F, x: F.numel(x), "Tensor.numel": lambda F, x: x.numel(),
               "Tensor.nelement": lambda F, x: x.nelement()}, lambda a: a.size)
meta("dim", {"Tensor.dim": lambda F, x: x.dim(), "Tensor.ndimension": lambda F, x: x.ndimension(),
             "Tensor.ndim": lambda F, x: x.ndim}, lambda a: a.ndim)
meta("size", {"Tensor.size": lambda F, x: tuple(x.size()),
              "Tensor.shape": lambda F, x: tuple(x.shape)},
     lambda a: a.shape)
meta("size(dim)", {"Tensor.size": lambda F, x: x.size(-1)}, lambda a: a.shape[-1], layouts=NO0D)
# (strides of empty tensors depend on how they were made, in PyTorch too: no zero_size)
NONEMPTY = ("contiguous", "transposed", "strided", "broadcast", "scalar")
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
meta("result_type", {"result_type": lambda F, x, y: _dname(F.result_type(x, y))},
     lambda a, b: result_type((a.dtype.name, a.ndim), (b.dtype.name, b.ndim)),
     shapes=((3,), ()), dtypes=tuple(_pairs(ALL)), layouts=("contiguous", "scalar"))
for _s in (2.5, 3, True):
    meta(f"result_type(x, {_s!r})", {"result_type": lambda F, x, s=_s: _dname(F.result_type(x, s))},
         lambda a, s=_s: result_type((a.dtype.name, a.ndim), s), layouts=("contiguous", "scalar"))
meta("promote_types", {"promote_types": lambda F, x, y: _dname(F.promote_types(x.dtype, y.dtype))},
     lambda a, b: promote_types(a.dtype.name, b.dtype.name), shapes=((1,), (1,)),
     dtypes=tuple(_pairs(ALL)), layouts=("contiguous",))


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


# --- known library bugs ------------------------------------------------------------------
# Each entry marks the matching cases of the named rows as strict xfails, so a fix shows
# up as an XPASS and the entry must then be deleted. Layout "errors" means the dtype-error
# cases (test_dtype_errors). Minimal reproducers are in the docstring-like reasons.

def known_bug(names, reason, dtypes=None, layouts=None):
    for name in names:
        hits = [i for i, s in enumerate(SPECS) if s.name == name]
        assert hits, f"known_bug: no row named {name!r}"
        for i in hits:
            SPECS[i] = replace(SPECS[i], xfail=SPECS[i].xfail + ((
                None if dtypes is None else tuple(tuple(d) for d in dtypes),
                layouts, "BUG: " + reason),))


WITH_SPECIALS = ["contiguous", "transposed", "strided", "broadcast"]
known_bug(["sign", "sign_"], "ferric.sign(ferric.tensor([float('nan')])) gives nan; PyTorch "
          "gives 0 (sign is (0 < x) - (x < 0))", [(F32,), (F64,)], WITH_SPECIALS)
known_bug(["floor", "floor_", "ceil", "ceil_", "round", "round_", "trunc", "trunc_"],
          "ferric.floor(ferric.tensor([True])) returns a bool copy; PyTorch raises "
          "NotImplementedError (\"floor_vml_cpu\" not implemented for 'Bool')", [(B,)],
          ["errors"])
known_bug(["round(decimals=1)", "round(decimals=1)_"],
          "ferric.tensor([1, 2]).round(decimals=1) returns a copy; PyTorch raises "
          "NotImplementedError (\"round_cpu\" not implemented for 'Long')", [(I64,)],
          ["errors"])
known_bug(["relu", "relu_"], "ferric.relu(ferric.tensor([True])) says '\"relu_cpu\" not "
          "implemented for 'Bool''; PyTorch says 'Boolean inputs not supported for relu'",
          [(B,)], ["errors"])
known_bug(["logical_not_"], "ferric.tensor([1., 0.]).logical_not_() raises 'result type "
          "Bool can't be cast to the desired output type Float'; PyTorch writes 0./1. in "
          "place (bool results can be cast to any dtype)", [(I64,), (F32,), (F64,)])
known_bug(["gelu", "gelu(tanh)", "silu", "mish", "logsigmoid", "softplus",
           "softplus(beta,threshold)", "leaky_relu", "elu"],
          "ferric.silu(ferric.tensor([1, 2])) computes in float32; PyTorch raises "
          "NotImplementedError (\"silu_cpu\" not implemented for 'Long') for int64/bool",
          [(B,), (I64,)], ["errors"])
known_bug(["floor_divide", "remainder", "fmod", "pow", "div(floor)", "div(trunc)",
           "floor_divide_", "remainder_", "fmod_", "pow_", "div(floor)_"],
          "ferric.tensor([True]) // ferric.tensor([True]) (and %, fmod, **, div with "
          "rounding_mode) returns a tensor; PyTorch raises NotImplementedError "
          "(\"div_floor_cpu\" not implemented for 'Bool')", [(B, B)], ["errors"])
known_bug(["sub[mixed]", "sub[mixed 0-d]", "sub(x, 2.5)", "sub(x, 2.5)_", "sub(3, x)"],
          "ferric.tensor([True]) - 1 (or any subtraction with one bool tensor operand) "
          "computes a result; PyTorch raises 'Subtraction, the `-` operator, with a bool "
          "tensor is not supported'", layouts=["errors"])
known_bug(["sub(alpha=0.5)", "sub(alpha=0.5)_"],
          "ferric.tensor([1]).sub(ferric.tensor([1]), alpha=0.5) computes a float result; "
          "PyTorch raises 'For integral input tensors, argument alpha must not be a "
          "floating point number'", [(I64, I64)], ["errors"])
known_bug(["add(alpha=2)", "add(alpha=2)_"],
          "ferric.tensor([True]).add(ferric.tensor([True]), alpha=2) returns int64; PyTorch "
          "returns bool (alpha is converted to the result dtype)", [(B, B)])
known_bug(["pow(x, 0.5)", "pow(x, 0.5)_"],
          "ferric.tensor([float('-inf')]) ** 0.5 gives inf (C pow); PyTorch computes a "
          "scalar exponent of 0.5 as sqrt and gives nan (and -0. ** 0.5 = -0.)",
          [(F32,), (F64,)], ["contiguous", "transposed", "strided"])
known_bug(["pow(x, 0.5)_"], "as pow(x, 0.5)", [(F32,), (F64,)], ["broadcast"])
known_bug(["fill_", "zero_", "setitem[1:, 1] = 2.5"],
          "ferric.zeros(1, 3).expand(2, 3).fill_(1) raises 'more than one element of the "
          "written-to tensor refers to a single memory location'; PyTorch allows fill_, "
          "zero_ and scalar __setitem__ on expanded tensors", layouts=["broadcast"])
known_bug(["pow(int, negative int tensor)"],
          "ferric.tensor([2]) ** ferric.tensor([-1]) raises 'Integers to negative integer "
          "powers are not allowed.'; PyTorch only rejects a negative *scalar* exponent and "
          "computes tensor exponents (2 ** -1 = 0, 1 ** -1 = 1, (-1) ** -1 = -1)")
known_bug(["isclose"], "ferric.isclose(ferric.tensor([1]), ferric.tensor([2]), atol=1) is "
          "False: integer/bool inputs ignore rtol/atol; PyTorch applies the tolerances",
          [(I64, I64), (B, B)])
