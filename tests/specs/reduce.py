"""Op-table rows for reductions (sum, mean, max, var, norm, all, ...), scans (cumsum,
cummax, ...) and softmax. The rows skip (``requires``) until the family is merged.

Result dtypes follow PyTorch: sum/prod/cumsum/cumprod of bool and int64 give int64,
mean/var/std/norm/softmax take floating inputs only (the others raise
NotImplementedError), all/any give bool, arg* and count_nonzero give int64. Ties in
max(dim)/argmax pick the first index, in cummax/cummin the last, NaN counts as the
largest and smallest value.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from specs.common import (
    ALL,
    F32,
    F64,
    FLOAT,
    I64,
    INTEGRAL,
    LAYOUTS,
    NO0D,
    NOT_IMPL,
    NUM,
    boolean,
    const,
    first,
    fm,
    pairs,
    row,
    same,
    to_float,
)

REQ = "sum"  # every row of the family waits for Tensor.sum
NO_EMPTY = ("contiguous", "transposed", "strided", "broadcast", "scalar")
TOL = {F32: (1e-5, 1e-5)}  # reductions may sum in another order than NumPy


def int64_if_integral(ops):
    return I64 if ops[0][0] in INTEGRAL else ops[0][0]


def with_indices(ops):
    return (ops[0][0], I64)


def float_only(name, fragment=None):
    """PyTorch's error for bool/int64 input: NotImplementedError for a missing kernel
    ("not implemented for"), RuntimeError for a dtype check with its own message
    (``fragment``), as PyTorch 2.13 raises them."""
    return [((d,), RuntimeError if fragment else NOT_IMPL[0], fragment or NOT_IMPL[1])
            for d in INTEGRAL]


def red(fn, dim=None, keepdim=False, **kw):
    """``fn(a, axis=dim, keepdims=keepdim)``; a 0-d input reduces like a 1-element one."""
    def ref(a):
        if a.ndim == 0:
            return fn(a.reshape(1), axis=0, **kw) if dim is not None else fn(a, **kw)
        return fn(a, axis=dim, keepdims=keepdim, **kw)
    return ref


def quiet(fn):
    """NumPy warns about means and variances of too few values; nan is the answer."""
    def ref(*a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*a)
    return ref


def r(name, forms, ref, **kw):
    kw.setdefault("requires", REQ)
    kw.setdefault("differentiable", True)
    kw.setdefault("tol", TOL)
    return row(name, forms, quiet(ref), alias=False, **kw)


def arg_first(fn, dim, keepdim=False):
    """np.argmax/argmin: the first extreme index, NaN winning like PyTorch."""
    def ref(a):
        if a.ndim == 0:
            return np.zeros((), np.int64)
        return fn(a, axis=dim, keepdims=keepdim).astype(np.int64)
    return ref


def minmax_dim(fn, argfn, dim, keepdim=False):
    def ref(a):
        if a.ndim == 0:
            return [a.copy(), np.zeros((), np.int64)]
        idx = argfn(a, axis=dim, keepdims=True)
        vals = np.take_along_axis(a, idx, axis=dim)
        if not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        return [vals, idx.astype(np.int64)]
    return ref


def cum_ext(larger, dim):
    """cummax (``larger``) / cummin along ``dim``: on ties and NaN the later index wins,
    and once the running value is NaN only another NaN replaces it."""
    def ref(a):
        b = np.moveaxis(np.atleast_1d(a), dim if a.ndim else 0, -1)
        vals, idx = np.empty_like(b), np.zeros(b.shape, np.int64)
        for pos in np.ndindex(b.shape[:-1]):
            cur, at = None, 0
            for j, x in enumerate(b[pos]):
                nan_x = isinstance(x, float) and math.isnan(x)
                nan_cur = cur is not None and isinstance(cur, float) and math.isnan(cur)
                if cur is None or nan_x or (not nan_cur and (x >= cur if larger else x <= cur)):
                    cur, at = x, j
                vals[pos + (j,)], idx[pos + (j,)] = cur, at
        back = dim if a.ndim else 0
        return [np.moveaxis(vals, -1, back).reshape(a.shape),
                np.moveaxis(idx, -1, back).reshape(a.shape)]
    return ref


def softmax_ref(a, dim, log=False):
    a = np.atleast_1d(a).astype(np.float64)
    m = np.max(a, axis=dim, keepdims=True)
    e = np.exp(a - m)
    s = np.sum(e, axis=dim, keepdims=True)
    return (a - m - np.log(s)) if log else e / s


def logsumexp_ref(dim, keepdim=False):
    def ref(a):
        if a.ndim == 0:
            return a.copy()
        m = np.max(a, axis=dim, keepdims=True)
        m = np.where(np.isinf(m), 0, m)  # PyTorch: inf stays inf, all -inf gives -inf
        out = np.log(np.sum(np.exp(a - m), axis=dim, keepdims=True)) + m
        return out if keepdim else np.squeeze(out, axis=dim)
    return ref


def var_ref(dim=None, correction=1, keepdim=False, std=False):
    def ref(a):
        fn = np.std if std else np.var
        if a.ndim == 0:  # (keepdim rows skip 0-d inputs)
            return fn(a.reshape(1), ddof=correction)
        return fn(a, axis=dim, ddof=correction, keepdims=keepdim)
    return ref


def norm_ref(p, dim=None):
    def ref(a):
        x = np.abs(a.astype(np.float64))
        if p == math.inf:
            return np.max(x, axis=dim) if x.size or dim is not None else np.zeros(())
        if p == 0:
            return np.sum(x != 0, axis=dim).astype(np.float64)
        return np.sum(x ** p, axis=dim) ** (1 / p)
    return ref


# --- sums and means -----------------------------------------------------------------------

for _n, _np in [("sum", np.sum), ("nansum", np.nansum)]:
    r(_n, fm(_n), red(_np), rule=int64_if_integral, layouts=LAYOUTS)
    r(f"{_n}(dim=-1, keepdim)", fm(_n, -1, keepdim=True), red(_np, -1, True),
      rule=int64_if_integral, layouts=LAYOUTS)
    r(f"{_n}(dims)", fm(_n, (0, -1)), red(_np, (0, -1)), shapes=((2, 3, 4),),
      rule=int64_if_integral, layouts=NO0D)
r("sum(dtype=float64)", {"Tensor.sum": lambda F, x: x.sum(dtype=F.float64),
                         "sum": lambda F, x: F.sum(x, dtype=F.float64)},
  red(np.sum), rule=const(F64), layouts=NO0D)
for _n, _np in [("mean", np.mean), ("nanmean", np.nanmean)]:
    _err = float_only(_n, "could not infer output dtype" if _n == "mean" else
                      "expected input to have floating point")
    r(_n, fm(_n), red(_np), dtypes=same(FLOAT), errors=_err, layouts=LAYOUTS)
    r(f"{_n}(dim=0)", fm(_n, 0), red(_np, 0), dtypes=same(FLOAT), errors=_err, layouts=LAYOUTS)
    r(f"{_n}(dims, keepdim)", fm(_n, (-1, 1), True), red(_np, (-1, 1), True),
      shapes=((2, 3, 4),), dtypes=same(FLOAT), layouts=NO0D)
r("mean(dtype=float64)", {"Tensor.mean": lambda F, x: x.mean(dtype=F.float64)},
  red(np.mean), rule=const(F64), dtypes=same(NUM), layouts=NO0D)
r("prod", fm("prod"), red(np.prod), rule=int64_if_integral, layouts=LAYOUTS)
r("prod(dim, keepdim)", fm("prod", 1, True), red(np.prod, 1, True), rule=int64_if_integral,
  shapes=((2, 3, 4),), layouts=NO0D)
r("prod(dtype=float64)", {"Tensor.prod": lambda F, x: x.prod(dtype=F.float64)},
  red(np.prod), rule=const(F64), layouts=NO0D)

# --- extremes -----------------------------------------------------------------------------

for _n, _np, _arg in [("max", np.max, np.argmax), ("min", np.min, np.argmin)]:
    r(f"{_n}()", fm(_n), red(_np), rule=first, layouts=NO_EMPTY)
    r(f"{_n}(dim)", fm(_n, -1), minmax_dim(_np, _arg, -1), rule=with_indices,
      layouts=LAYOUTS)
    r(f"{_n}(dim, keepdim)", {"Tensor." + _n: lambda F, x, n=_n: getattr(x, n)(0, keepdim=True)},
      minmax_dim(_np, _arg, 0, True), rule=with_indices, layouts=NO_EMPTY)
    r(f"{_n}(other)", {_n: lambda F, x, y, n=_n: getattr(F, n)(x, y),
                       "Tensor." + _n: lambda F, x, y, n=_n: getattr(x, n)(y)},
      np.maximum if _n == "max" else np.minimum, shapes=((3, 4), (4,)),
      dtypes=tuple(pairs(ALL)))
    r(f"a{_n}", fm("a" + _n), red(_np), rule=first, layouts=NO_EMPTY)
    r(f"a{_n}(dims, keepdim)", fm("a" + _n, (0, 2), True), red(_np, (0, 2), True), rule=first,
      shapes=((2, 3, 4),), layouts=NO_EMPTY[:-1])
    r(f"arg{_n}", fm("arg" + _n), lambda a, f=_arg: np.int64(f(a)), rule=const(I64),
      dtypes=same(NUM), errors=float_only("arg" + _n, "does not support bool input")[:1],
      layouts=NO_EMPTY, differentiable=False)
    r(f"arg{_n}(dim)", fm("arg" + _n, 1, keepdim=True), arg_first(_arg, 1, True),
      rule=const(I64), dtypes=same(NUM), layouts=NO0D, differentiable=False)
r("aminmax", {"Tensor.aminmax": lambda F, x: x.aminmax(), "aminmax": lambda F, x: F.aminmax(x)},
  lambda a: [np.min(a), np.max(a)], rule=first, layouts=NO_EMPTY)
r("aminmax(dim)", fm("aminmax", dim=-1, keepdim=True),
  lambda a: [red(np.min, -1, True)(a), red(np.max, -1, True)(a)], rule=first)

# --- spread, norms, logsumexp -------------------------------------------------------------

_vs = float_only("var", "std and var only support floating point")
for _std in (False, True):
    _n = "std" if _std else "var"
    r(_n, fm(_n), var_ref(std=_std), dtypes=same(FLOAT), errors=_vs, layouts=NO_EMPTY)
    r(f"{_n}(dim, unbiased=False)", fm(_n, 1, unbiased=False),
      var_ref(1, 0, std=_std), dtypes=same(FLOAT), layouts=NO0D)
    r(f"{_n}(dims, correction=2, keepdim)", fm(_n, (0, 1), correction=2, keepdim=True),
      var_ref((0, 1), 2, True, _std), shapes=((4, 3, 2),), dtypes=same(FLOAT),
      layouts=NO_EMPTY[:-1])
    r(f"{_n}_mean", {f"{_n}_mean": lambda F, x, n=_n: getattr(F, n + "_mean")(x, 1)},
      lambda a, s=_std: [var_ref(1, std=s)(a), np.mean(a, axis=1)], dtypes=same(FLOAT),
      layouts=NO0D)
r("norm", fm("norm"), norm_ref(2), dtypes=same(FLOAT), errors=float_only("norm", "Expected a "
  "floating point"), layouts=LAYOUTS)
for _p in (1, 3, math.inf, 0):
    r(f"norm(p={_p}, dim=1)", fm("norm", _p, 1), norm_ref(_p, 1), dtypes=same(FLOAT),
      layouts=NO0D)
r("norm(fro, dims)", fm("norm", "fro", (0, 1)), norm_ref(2, (0, 1)), dtypes=same(FLOAT),
  layouts=NO0D)
r("logsumexp", fm("logsumexp", 1), logsumexp_ref(1), rule=to_float, layouts=NO0D)
r("logsumexp(dims, keepdim)", fm("logsumexp", (0, -1), True), logsumexp_ref((0, -1), True),
  rule=to_float, shapes=((2, 3, 4),), layouts=NO_EMPTY[:-1])

# --- boolean reductions -------------------------------------------------------------------

for _n, _np in [("all", np.all), ("any", np.any)]:
    r(_n, fm(_n), red(_np), rule=boolean, layouts=LAYOUTS, differentiable=False)
    r(f"{_n}(dim, keepdim)", fm(_n, -1, True), red(_np, -1, True), rule=boolean,
      layouts=LAYOUTS, differentiable=False)
    r(f"{_n}(dims)", fm(_n, (0, 1)), red(_np, (0, 1)), rule=boolean, shapes=((2, 3, 4),),
      layouts=NO0D, differentiable=False)
r("count_nonzero", fm("count_nonzero"), lambda a: np.int64(np.count_nonzero(a)),
  rule=const(I64), layouts=LAYOUTS, differentiable=False, domains=("halves",))
r("count_nonzero(dims)", fm("count_nonzero", (0, -1)),
  lambda a: np.count_nonzero(a, axis=(0, -1)).astype(np.int64), rule=const(I64),
  shapes=((2, 3, 4),), layouts=NO0D, differentiable=False, domains=("halves",))

# --- scans --------------------------------------------------------------------------------


def _scan(fn, dim):
    return lambda a: fn(a, axis=dim) if a.ndim else a.copy()


for _n, _np in [("cumsum", np.cumsum), ("cumprod", np.cumprod)]:
    r(_n, fm(_n, 1), _scan(_np, 1), rule=int64_if_integral, layouts=NO0D)
    r(f"{_n}(-1)", fm(_n, -1), _scan(_np, -1), rule=int64_if_integral, layouts=LAYOUTS)
    r(f"{_n}(dtype=float64)",
      {"Tensor." + _n: lambda F, x, n=_n: getattr(x, n)(0, dtype=F.float64)},
      _scan(_np, 0), rule=const(F64), layouts=NO0D)
for _n, _larger in [("cummax", True), ("cummin", False)]:
    r(_n, fm(_n, 0), cum_ext(_larger, 0), rule=with_indices, layouts=LAYOUTS)
    r(f"{_n}(-1)", fm(_n, -1), cum_ext(_larger, -1), rule=with_indices, shapes=((2, 3, 4),))

# --- softmax ------------------------------------------------------------------------------

for _n, _log in [("softmax", False), ("log_softmax", True)]:
    r(_n, fm(_n, 1), lambda a, lg=_log: softmax_ref(a, 1, lg), dtypes=same(FLOAT),
      errors=float_only(_n), layouts=NO0D)
    r(f"{_n}(-1)", fm(_n, -1), lambda a, lg=_log: softmax_ref(a, -1, lg).reshape(a.shape),
      dtypes=same(FLOAT), layouts=LAYOUTS)
    r(f"{_n}(dtype=float64)",
      {"Tensor." + _n: lambda F, x, n=_n: getattr(x, n)(-1, dtype=F.float64),
       _n: lambda F, x, n=_n: getattr(F, n)(x, -1, dtype=F.float64)},
      lambda a, lg=_log: softmax_ref(a, -1, lg), rule=const(F64), dtypes=same(ALL),
      layouts=NO0D)
