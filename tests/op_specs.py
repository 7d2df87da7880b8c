"""The op table: one row per public op, consumed by the generic tests.

A row says how to call an op (``call(F, *inputs)`` with the library module first, so the
same row also runs against PyTorch when the table itself is checked by hand), a float64
NumPy reference, how to generate inputs (shapes, value domain), which dtypes the op
supports, PyTorch's result dtype (NumPy's promotion differs, so it is never inferred from
the reference), whether the op is differentiable (for the autograd tests) and known bugs.
The machinery that runs rows (layout variants, comparisons) is in test_op_table.py.

The rows live in tests/specs/, one module per op family; ``specs.common`` holds the row
type and the helpers. This module imports the families in a fixed order (the order of
``SPECS``, hence of the test ids) and re-exports what the runners use.

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

import importlib

from specs.common import (
    ALL,
    F32,
    F64,
    FLOAT,
    I64,
    INTEGRAL,
    LAYOUTS,
    NUM,
    SPECS,
    B,
    Spec,
    can_cast,
    generate,
    promote_types,
    result_type,
    rng_for,
)

# Importing a family module appends its rows to SPECS and marks its known bugs; the
# order here is the order of the rows (and of the test ids).
FAMILY_NAMES = ("elementwise", "views", "creation", "index", "join", "reduce", "matmul", "random")
FAMILIES = tuple(importlib.import_module("specs." + n) for n in FAMILY_NAMES)
ROWS = SPECS  # the assembled table

__all__ = [
    "ALL", "B", "F32", "F64", "FLOAT", "I64", "INTEGRAL", "LAYOUTS", "NUM", "ROWS", "SPECS",
    "Spec", "can_cast", "generate", "promote_types", "result_type", "rng_for", "FAMILIES",
    "FAMILY_NAMES",
]
