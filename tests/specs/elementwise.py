"""Op-table rows for elementwise ops: unary math, activations, clamp, binary arithmetic,
comparisons, logical and bitwise ops, with their operator, Python-scalar, mixed-dtype
and in-place spellings."""

from __future__ import annotations

import math
import operator

import numpy as np

from specs.common import (
    ALL,
    F32,
    F64,
    FLOAT,
    I64,
    INTEGRAL,
    NOT_IMPL,
    NUM,
    B,
    boolean,
    inplace_of,
    pairs,
    promote,
    result_type,
    row,
    same,
    to_float,
)


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
unary("asinh", np.arcsinh, aliases=("arcsinh",))
unary("acosh", np.arccosh, aliases=("arccosh",), domains=("above_1",))
unary("atanh", np.arctanh, aliases=("arctanh",), domains=("unit",))
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
        mix = [c for c in pairs(ALL) if c[0] != c[1]]
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
