"""Op-table rows for the special functions (``src/ops/table.rs`` rows and the ops with a
parameter), against SciPy's float64 values recorded in ``tests/fixtures/special``.

Inputs are drawn from fixed grids of float32-exact values (plus NaN, +-inf, +-0 and the
small integers) whose SciPy values the fixture holds, so every layout variant's
reference is a lookup. ``xlogy``, ``xlog1py`` and ``logit`` are exact NumPy formulas.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from specs.common import ALL, DOMAINS, F32, F64, I64, NUM, B, inplace_of, row, same, to_float
from specs.elementwise import binary, unary

_FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "special" / "special.json")
                      .read_text())
GRID = _FIXTURE["grid"]


def _key(v):
    return "nan" if math.isnan(v) else (float(v) + 0.0 if v == 0 else float(v), math.copysign(1, v))


def table_ref(xs, ys):
    """A reference that looks each input up among the recorded points ``xs`` (values
    ``ys``)."""
    table = {_key(x): y for x, y in zip(xs, ys, strict=True)}

    def ref(a):
        a = np.asarray(a, np.float64)
        return np.array([table[_key(v)] for v in a.ravel()], np.float64).reshape(a.shape)
    return ref


def table_ref2(xs, ns, ys):
    """A binary reference that looks each broadcast pair up among the recorded pairs of
    ``xs`` and ``ns`` (values ``ys``)."""
    table = {(_key(x), _key(n)): y for x, n, y in zip(xs, ns, ys, strict=True)}

    def ref(a, b):
        a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
        return np.array([table[(_key(x), _key(n))] for x, n in zip(a.ravel(), b.ravel(),
                                                                    strict=True)],
                        np.float64).reshape(a.shape)
    return ref


def lookup(name):
    return table_ref(*GRID[name])


def lookup2(name):
    return table_ref2(*GRID[name])


def grid_domain(name, values, ints=(-5, 8)):
    """A value domain drawing floats from ``values`` (the fixture's grid) and integers
    from ``range(*ints)``."""
    vals = np.array([v for v in values if math.isfinite(v)], np.float64)
    DOMAINS[name] = (lambda r, s: r.choice(vals, s), lambda r, s: r.integers(*ints, s))
    return name


def _grid(name):
    return GRID[name][0]


REAL = grid_domain("special:real", _grid("lgamma"))
UNIT = grid_domain("special:unit", _grid("erfinv"), ints=(-1, 2))
PROB = grid_domain("special:prob", _grid("special_ndtri"), ints=(0, 2))
POS = grid_domain("special:pos", _grid("special_entr"), ints=(0, 8))
ZS = grid_domain("special:zeta_s", sorted({s for s in GRID["special_zeta"][0]}), ints=(1, 8))
ZQ = grid_domain("special:zeta_q", sorted({q for q in GRID["special_zeta"][1]}), ints=(-2, 8))

# float32 results are SciPy's float64 value rounded once; allow an ulp or two
TOL = {F32: (3e-7, 1e-37), F64: (1e-13, 1e-300)}
LOOSE = {F32: (3e-7, 1e-6), F64: (1e-13, 1e-13)}  # functions with a root in the grid

unary("lgamma", lookup("lgamma"), domains=(REAL,), tol=LOOSE)
unary("digamma", lookup("digamma"), domains=(REAL,), tol=LOOSE)
unary("erfinv", lookup("erfinv"), domains=(UNIT,), tol=TOL)
unary("i0", lookup("i0"), domains=(REAL,), tol=TOL, fn_inplace=True)
unary("sinc", lookup("sinc"), domains=(REAL,), fn_inplace=True,
      tol={F32: (1e-6, 1e-6), F64: (1e-13, 1e-15)})


def special_row(name, row_name, ref, domain, tol=TOL):
    return row(f"special.{name}", {f"special.{name}": lambda F, x: getattr(F.special, name)(x)},
               ref, domains=(domain,), dtypes=same(ALL), rule=to_float, differentiable=True,
               tol=tol)


special_row("entr", "special_entr", lookup("special_entr"), POS)
special_row("ndtri", "special_ndtri", lookup("special_ndtri"), PROB)
special_row("log_ndtr", "special_log_ndtr", lookup("special_log_ndtr"), REAL)
special_row("erfcx", "special_erfcx", lookup("special_erfcx"), REAL)
special_row("i0e", "special_i0e", lookup("special_i0e"), REAL)
special_row("i1", "special_i1", lookup("special_i1"), REAL)
special_row("i1e", "special_i1e", lookup("special_i1e"), REAL)


def ndtr_ref(a):
    # PyTorch's composition (1 + erf(x / sqrt 2)) / 2, in float64
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return (1 + erf(a * math.sqrt(0.5))) * 0.5 if a.size else a.astype(np.float64)


row("special.ndtr", {"special.ndtr": lambda F, x: F.special.ndtr(x)}, ndtr_ref,
    dtypes=same(ALL), rule=to_float, differentiable=True,
    tol={F32: (1e-6, 1e-7), F64: (1e-14, 1e-16)})

# --- with a parameter ----------------------------------------------------------------

for _n in range(5):
    _s = row(f"polygamma({_n})", {"polygamma": lambda F, x, n=_n: F.polygamma(n, x),
                                  "Tensor.polygamma": lambda F, x, n=_n: x.polygamma(n),
                                  "special.polygamma":
                                      lambda F, x, n=_n: F.special.polygamma(n, x)},
             lookup(f"polygamma{_n}"), domains=(REAL,), dtypes=same(ALL), rule=to_float,
             differentiable=True, tol=LOOSE if _n == 0 else TOL)
    inplace_of(_s, {"Tensor.polygamma_": lambda F, x, n=_n: x.polygamma_(n)})

for _p in (1, 2, 3):
    _s = row(f"mvlgamma(p={_p})", {"mvlgamma": lambda F, x, p=_p: F.mvlgamma(x, p),
                                   "Tensor.mvlgamma": lambda F, x, p=_p: x.mvlgamma(p),
                                   "special.multigammaln":
                                       lambda F, x, p=_p: F.special.multigammaln(x, p)},
             lookup(f"mvlgamma{_p}"), domains=(REAL,), dtypes=same(NUM), rule=to_float,
             differentiable=True, tol={F32: (1e-6, 1e-6), F64: (1e-13, 1e-13)},
             errors=(((B,), RuntimeError, "The input tensor may not be a boolean tensor."),))
    inplace_of(_s, {"Tensor.mvlgamma_": lambda F, x, p=_p: x.mvlgamma_(p)})


def logit_ref(eps=None):
    def ref(a):
        a = np.asarray(a, np.float64)
        if eps is not None and eps >= 0:
            a = np.where(a < eps, eps, np.where(a > 1 - eps, 1 - eps, a))
        return np.log(a / (1 - a))
    return ref


for _eps in (None, 0.1, -1.0):
    _s = row(f"logit(eps={_eps})", {"logit": lambda F, x, e=_eps: F.logit(x, e),
                                    "Tensor.logit": lambda F, x, e=_eps: x.logit(e),
                                    "special.logit": lambda F, x, e=_eps: F.special.logit(x, e)},
             logit_ref(_eps), domains=(PROB,), dtypes=same(ALL), rule=to_float,
             differentiable=True, tol={F32: (1e-6, 1e-6), F64: (1e-14, 1e-14)})
    inplace_of(_s, {"Tensor.logit_": lambda F, x, e=_eps: x.logit_(e),
                    "logit_": lambda F, x, e=_eps: F.logit_(x, e)})


# --- binary ---------------------------------------------------------------------------

def xlogy_ref(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.where(np.isnan(b), np.nan, np.where(a == 0, 0.0, a * np.log(b)))


def xlog1py_ref(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.where(np.isnan(b), np.nan, np.where(a == 0, 0.0, a * np.log1p(b)))


binary("xlogy", xlogy_ref, rule=to_float, domains=("real", "positive"),
       tol={F32: (1e-6, 1e-6)})


def special_binary(name, ref, domains, differentiable=True, tol=TOL, left_name="x"):
    """``ferric.special.<name>(x, y)`` on same and mixed dtypes with broadcasting, and a
    Python number on either side (the rows ``(s, <left_name>)`` and ``(x, s)``)."""
    form = {f"special.{name}": lambda F, x, y: getattr(F.special, name)(x, y)}
    row(f"special.{name}", form, ref, shapes=((3, 4), (4,)), domains=domains,
        dtypes=tuple((a, b) for a in ALL for b in ALL), rule=to_float,
        differentiable=differentiable, tol=tol,
        layouts=("contiguous", "transposed", "strided", "broadcast", "zero_size", "scalar"))
    for scal, left in ((2, True), (0.5, False)):
        call = ((lambda F, x, s=scal: getattr(F.special, name)(s, x)) if left else
                (lambda F, x, s=scal: getattr(F.special, name)(x, s)))
        sref = ((lambda a, s=scal: ref(np.asarray(float(s)), a)) if left else
                (lambda a, s=scal: ref(a, np.asarray(float(s)))))
        row(f"special.{name}({f's, {left_name}' if left else 'x, s'})",
            {f"special.{name}": call}, sref, domains=(domains[1] if left else domains[0],),
            dtypes=same(ALL), rule=to_float, scalars=(scal,), differentiable=differentiable,
            tol=tol)


special_binary("xlogy", xlogy_ref, ("real", "positive"))
special_binary("xlog1py", xlog1py_ref, ("real", "above_m1"))
special_binary("zeta", lookup2("special_zeta"), (ZS, ZQ), differentiable=False)


# --- Bessel-type functions, incomplete gamma, orthogonal polynomials ------------------
# (tests/fixtures/special_bessel: SciPy's values, PyTorch's at the edges; the polynomials
# against PyTorch's own float64 values, since ferric runs PyTorch's algorithm)

_MORE = json.loads((Path(__file__).parents[1] / "fixtures" / "special_bessel"
                    / "special_bessel.json").read_text())


BESSEL_REAL = grid_domain("special:bessel", _MORE["unary"]["bessel_j0"][0])
# (a root of J0/J1/Y0/Y1 or Ai can fall between grid points: an absolute floor)
BESSEL_TOL = {F32: (3e-6, 1e-6), F64: (1e-12, 1e-14)}
for _name, (_xs, _ys) in _MORE["unary"].items():
    row(f"special.{_name}", {f"special.{_name}": lambda F, x, n=_name: getattr(F.special, n)(x)},
        table_ref(_xs, _ys), domains=(BESSEL_REAL,), dtypes=same(ALL), rule=to_float,
        differentiable=False, tol=BESSEL_TOL)

_P = _MORE["poly"]["chebyshev_polynomial_t"]
POLY_X = grid_domain("special:poly_x", [v for v in sorted(set(_P["x"])) if abs(v) <= 1.25],
                     ints=(-1, 2))
POLY_N = grid_domain("special:poly_n", [v for v in sorted(set(_P["n"])) if math.isfinite(v)
                                        and v <= 10 and float(np.float32(v)) == v],
                     ints=(-2, 9))
# float32 runs PyTorch's float32 algorithm; the reference is its float64 value
POLY_TOL = {F32: (2e-5, 1e-4), F64: (1e-12, 1e-12)}


for _name, _t in _MORE["poly"].items():
    special_binary(_name, table_ref2(_t["x"], _t["n"], _t["torch64"]), (POLY_X, POLY_N),
                   differentiable=False, tol=POLY_TOL, left_name="n")


def _gamma_bad(common, dtypes):
    # PyTorch's igamma kernels do not promote integer or bool operands
    if common in (I64, B):
        return NotImplementedError, "not implemented for"
    return None


_GA = _MORE["gamma"]["gammainc"]
GAMMA_A = grid_domain("special:gamma_a", sorted(set(_GA[0])), ints=(-1, 8))
GAMMA_X = grid_domain("special:gamma_x", sorted(set(_GA[1])), ints=(-1, 8))
for _name, _fn in (("gammainc", "igamma"), ("gammaincc", "igammac")):
    _ref = table_ref2(*_MORE["gamma"][_name])
    # (backward through `a` raises, as in PyTorch: the gradient in x is tested in
    # tests/test_special_bessel.py)
    binary(_fn, _ref, rule=to_float, domains=(GAMMA_A, GAMMA_X), bad=_gamma_bad,
           differentiable=False, tol={F32: (1e-5, 1e-6), F64: (1e-12, 1e-14)})
    row(f"special.{_name}", {f"special.{_name}":
                             lambda F, a, x, n=_name: getattr(F.special, n)(a, x)},
        _ref, shapes=((3, 4), (4,)), domains=(GAMMA_A, GAMMA_X),
        dtypes=tuple((a, b) for a in (F32, F64) for b in (F32, F64)), rule=to_float,
        differentiable=False, tol={F32: (1e-5, 1e-6), F64: (1e-12, 1e-14)})
