"""Op-table rows for the matmul family: matmul/@, mm, bmm, mv, dot, vdot, outer/ger,
addmm, baddbmm and einsum. The rows skip (``requires``) until the family is merged.

PyTorch multiplies int64 but not bool matrices (NotImplementedError), and wants both
operands of one dtype (RuntimeError) -- except outer, which is an elementwise product and
promotes. Zero-size rows use an empty inner dim (an all-zeros result) and an empty outer
dim.
"""

from __future__ import annotations

import numpy as np

from specs.common import (
    ALL,
    F32,
    F64,
    I64,
    NUM,
    B,
    first,
    pairs,
    promote,
    row,
    same,
)

REQ = "matmul"
LAY = ("contiguous", "transposed", "strided", "broadcast", "zero_size")
TOL = {F32: (1e-4, 1e-5)}
NOT_BOOL = [((B, B), NotImplementedError, "not implemented for 'Bool'")]
MIXED = [((F32, F64), RuntimeError, "same dtype"), ((I64, F32), RuntimeError, "same dtype")]
# (batched products word it differently)
MIXED_BATCHED = [((F32, F64), RuntimeError, "expected scalar type Float but found Double"),
                 ((I64, F32), RuntimeError, "expected scalar type Long but found Float")]


def mm_row(name, forms, ref, shapes, zero, errors=NOT_BOOL + MIXED, **kw):
    """A product of two same-dtype operands; ``zero`` gives the zero-size shapes."""
    kw.setdefault("dtypes", same(NUM, 2))
    kw.setdefault("rule", first)
    kw.setdefault("alias", False)
    return row(name, forms, ref, shapes=shapes, layouts=LAY, requires=REQ,
               layout_shapes={"zero_size": zero}, tol=TOL, errors=errors,
               differentiable=True, **kw)


def both(name):
    """``F.name(x, y)``, ``x.name(y)``."""
    return {name: lambda F, x, y: getattr(F, name)(x, y),
            "Tensor." + name: lambda F, x, y: getattr(x, name)(y)}


mm_row("matmul", {**both("matmul"), "Tensor.__matmul__": lambda F, x, y: x @ y,
                  "Tensor.__rmatmul__": lambda F, x, y: y.__rmatmul__(x)},
       np.matmul, ((3, 4), (4, 5)), ((3, 0), (0, 5)))
mm_row("matmul(1-d, 1-d)", {"matmul": lambda F, x, y: F.matmul(x, y)}, np.matmul,
       ((4,), (4,)), ((0,), (0,)))
mm_row("matmul(2-d, 1-d)", {"Tensor.__matmul__": lambda F, x, y: x @ y}, np.matmul,
       ((3, 4), (4,)), ((0, 4), (4,)))
mm_row("matmul(1-d, 3-d)", {"Tensor.__matmul__": lambda F, x, y: x @ y}, np.matmul,
       ((4,), (2, 4, 3)), ((4,), (0, 4, 3)), errors=NOT_BOOL + MIXED_BATCHED)
mm_row("matmul(broadcast batch)", {"matmul": lambda F, x, y: F.matmul(x, y)}, np.matmul,
       ((2, 1, 3, 4), (5, 4, 2)), ((0, 1, 3, 4), (5, 4, 2)), errors=NOT_BOOL + MIXED_BATCHED)
mm_row("mm", both("mm"), np.matmul, ((3, 4), (4, 5)), ((0, 4), (4, 5)))
mm_row("bmm", both("bmm"), np.matmul, ((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 5)),
       errors=NOT_BOOL + MIXED_BATCHED)
mm_row("mv", both("mv"), np.matmul, ((3, 4), (4,)), ((3, 0), (0,)))
mm_row("dot", {**both("dot"), **both("vdot")},
       np.dot, ((5,), (5,)), ((0,), (0,)),
       errors=NOT_BOOL + [((F32, F64), RuntimeError, "expected both vectors to have same dtype")])
mm_row("outer", {**both("outer"), **both("ger")}, np.multiply.outer, ((3,), (4,)),
       ((0,), (4,)), errors=(), dtypes=tuple(pairs(ALL)), rule=promote)


def _addmm(beta, alpha):
    return lambda c, a, b: beta * c + alpha * np.matmul(a, b)


row("addmm", {"addmm": lambda F, c, x, y: F.addmm(c, x, y),
              "Tensor.addmm": lambda F, c, x, y: c.addmm(x, y)},
    _addmm(1, 1), shapes=((5,), (3, 4), (4, 5)), dtypes=same(NUM, 3), layouts=LAY,
    layout_shapes={"zero_size": ((5,), (3, 0), (0, 5))}, rule=first, requires=REQ, tol=TOL,
    errors=[((B, B, B), NotImplementedError, "not implemented for 'Bool'"),
            ((F64, F32, F32), RuntimeError, "same dtype")], differentiable=True)
row("addmm(beta, alpha)", {"addmm": lambda F, c, x, y: F.addmm(c, x, y, beta=2, alpha=-3)},
    _addmm(2, -3), shapes=((3, 1), (3, 4), (4, 5)), dtypes=same(NUM, 3), layouts=LAY,
    layout_shapes={"zero_size": ((3, 1), (3, 0), (0, 5))}, rule=first, requires=REQ,
    tol=TOL, differentiable=True)
row("addmm(beta=0)", {"addmm": lambda F, c, x, y: F.addmm(c, x, y, beta=0)},
    lambda c, a, b: np.matmul(a, b), shapes=((3, 5), (3, 4), (4, 5)), dtypes=same(NUM, 3),
    rule=first, requires=REQ, tol=TOL, layouts=LAY[:-1], specials=True,
    notes="beta=0: nan/inf in the input are ignored, as in PyTorch")
row("baddbmm", {"baddbmm": lambda F, c, x, y: F.baddbmm(c, x, y, beta=0.5, alpha=2),
                "Tensor.baddbmm": lambda F, c, x, y: c.baddbmm(x, y, beta=0.5, alpha=2)},
    _addmm(0.5, 2), shapes=((5,), (2, 3, 4), (2, 4, 5)), dtypes=same((F32, F64), 3),
    layouts=LAY, layout_shapes={"zero_size": ((5,), (0, 3, 4), (0, 4, 5))}, rule=first,
    requires=REQ, tol=TOL, differentiable=True)

# einsum: equation strings, the sublist format and a list of operands. Equations that
# contract a dim go through bmm (no bool); an outer product accepts bool too (a full
# contraction of bools gives a bool sum in PyTorch, which NumPy does not mirror: skipped).
for _eq, _shapes, _zero, _bmm in [
        ("ij,jk->ik", ((3, 4), (4, 5)), ((3, 0), (0, 5)), True),
        ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 5)), True),
        ("ij,ij->i", ((3, 4), (3, 4)), ((0, 4), (0, 4)), True),
        ("...ij,jk", ((2, 3, 4), (4, 5)), ((0, 3, 4), (4, 5)), True),
        ("i,j->ij", ((3,), (4,)), ((0,), (4,)), False),
        ("ji,jk->", ((4, 3), (4, 5)), ((0, 3), (0, 5)), None)]:
    mm_row(f"einsum({_eq})", {"einsum": lambda F, x, y, e=_eq: F.einsum(e, x, y),
                              "einsum(list)": lambda F, x, y, e=_eq: F.einsum(e, [x, y])},
           lambda a, b, e=_eq: np.einsum(e, a, b), _shapes, _zero,
           errors=NOT_BOOL if _bmm else (), dtypes=same(ALL if _bmm is False else NUM, 2))
# (one-operand equations may return views, as PyTorch's do: aliasing is not checked)
mm_row("einsum(ii->i)", {"einsum": lambda F, x: F.einsum("ii->i", x)},
       lambda a: np.einsum("ii->i", a).copy(), ((4, 4),), ((0, 0),), errors=(),
       dtypes=same(ALL), alias=None)
mm_row("einsum(ij->ji)", {"einsum": lambda F, x: F.einsum("ij->ji", x)},
       lambda a: np.einsum("ij->ji", a).copy(), ((3, 4),), ((0, 4),), errors=(),
       dtypes=same(ALL), alias=None)
mm_row("einsum(sublist)", {"einsum": lambda F, x, y: F.einsum(x, [0, 1], y, [1, 2], [0, 2])},
       np.matmul, ((3, 4), (4, 5)), ((3, 0), (0, 5)), errors=())
