"""Op-table rows for the newer elementwise ops (issue 15): copysign, hypot, logaddexp(2),
fmax/fmin, heaviside, gcd/lcm, nextafter, ldexp, the bit shifts, sgn, angle,
deg2rad/rad2deg, and the Python-composed float_power, signbit and frexp. References are
NumPy's functions, adjusted where PyTorch defines an edge case differently
(``heaviside(nan)`` is 0)."""

from __future__ import annotations

import numpy as np

from specs.common import (
    ALL,
    F64,
    FLOAT,
    I64,
    NOT_IMPL,
    B,
    const,
    inplace_of,
    row,
    same,
    to_float,
)
from specs.elementwise import binary, sign_ref, unary


def _only_float(common, c):
    return NOT_IMPL if common not in FLOAT else None


def _only_int(common, c):
    return NOT_IMPL if common != I64 else None


HEAVISIDE_MIXED = (RuntimeError, "heaviside is not yet implemented for tensors with different")


def heaviside_ref(a, b):
    a, b = np.broadcast_arrays(a, b)
    if a.dtype == bool:
        return a | b
    return np.where(a == 0, b, (a > 0).astype(np.result_type(a, b)))


# --- binary ----------------------------------------------------------------------------

_atan2 = row("arctan2", {"arctan2": lambda F, x, y: F.arctan2(x, y),
                         "Tensor.arctan2": lambda F, x, y: x.arctan2(y)},
             np.arctan2, shapes=((3, 4), (4,)), dtypes=same(ALL, 2), rule=to_float,
             differentiable=True)
inplace_of(_atan2, {"Tensor.arctan2_": lambda F, x, y: x.arctan2_(y)})
binary("copysign", np.copysign, rule=to_float, scalar_rows=[(2.5, False, "real"),
                                                             (-3, False, "real")])
binary("hypot", np.hypot, bad=_only_float)
binary("logaddexp", np.logaddexp, bad=_only_float, inplace=False)
binary("logaddexp2", np.logaddexp2, bad=_only_float, inplace=False)
binary("fmax", np.fmax, inplace=False)
binary("fmin", np.fmin, inplace=False)
binary("heaviside", heaviside_ref, differentiable=False,
       bad=lambda common, c: HEAVISIDE_MIXED if len(set(c)) > 1 else None)
binary("gcd", np.gcd, bad=_only_int, differentiable=False)
binary("lcm", np.lcm, bad=_only_int, differentiable=False)
# the reference computes in float64, so the float32 steps are checked in test_pointwise_ops
_next = row("nextafter", {"nextafter": lambda F, x, y: F.nextafter(x, y),
                          "Tensor.nextafter": lambda F, x, y: x.nextafter(y)},
            np.nextafter, shapes=((3, 4), (4,)), dtypes=((F64, F64),),
            errors=[((I64, I64), *NOT_IMPL), ((B, B), *NOT_IMPL)])
inplace_of(_next, {"Tensor.nextafter_": lambda F, x, y: x.nextafter_(y)})
binary("ldexp", lambda a, b: a * np.exp2(b), rule=to_float)
binary("bitwise_left_shift", np.left_shift, "lshift", iop="lshift", inplace=True,
       bad=_only_int, differentiable=False, domains=("real", "exponent"),
       scalar_rows=[(3, False, "real"), (3, True, "exponent")])
binary("bitwise_right_shift", np.right_shift, "rshift", iop="rshift", inplace=True,
       bad=_only_int, differentiable=False, domains=("real", "exponent"),
       scalar_rows=[(3, False, "real"), (3, True, "exponent")])

# float_power: float64 whatever the operands (positive bases keep the values real)
_fp = row("float_power", {"float_power": lambda F, x, y: F.float_power(x, y),
                          "Tensor.float_power": lambda F, x, y: x.float_power(y)},
          lambda a, b: np.power(np.asarray(a, np.float64), np.asarray(b, np.float64)),
          shapes=((3, 4), (4,)), domains=("positive", "exponent"), dtypes=same(ALL, 2),
          rule=const(F64), differentiable=True)
row("float_power(x, 2.5)", {"float_power": lambda F, x: F.float_power(x, 2.5)},
    lambda a: np.power(np.asarray(a, np.float64), 2.5), domains=("positive",),
    rule=const(F64), scalars=(2.5,), differentiable=True)

# --- unary -----------------------------------------------------------------------------

unary("sgn", sign_ref, rule=lambda ops: ops[0][0])
unary("angle", lambda a: np.where(np.isnan(a), a, np.where(a < 0, np.pi, 0.0)),
      inplace=False)
unary("deg2rad", np.deg2rad, fn_inplace=True)
unary("rad2deg", np.rad2deg, fn_inplace=True)
row("signbit", {"signbit": lambda F, x: F.signbit(x),
                "Tensor.signbit": lambda F, x: x.signbit()},
    lambda a: np.signbit(a) if a.dtype.kind == "f" else np.asarray(a) < 0,
    rule=const(B))
FREXP_INT = (RuntimeError, "torch.frexp() only supports floating-point dtypes")
row("frexp", {"frexp": lambda F, x: F.frexp(x), "Tensor.frexp": lambda F, x: x.frexp()},
    lambda a: tuple(np.frexp(a)), dtypes=same(FLOAT),
    rule=lambda ops: (ops[0][0], "int32"),
    errors=[((I64,), *FREXP_INT), ((B,), *FREXP_INT)])
