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

Adding an op is one row in its family's module. ``unary("exp", np.exp)`` creates the
rows for ``ferric.exp``, ``Tensor.exp`` and ``Tensor.exp_``; ``binary("add", np.add, "add",
iop="add")`` also makes the operator, mixed-dtype, Python-scalar and in-place rows. Other
shapes of row, from the family modules::

    r("sum(dim=-1, keepdim)", fm("sum", -1, keepdim=True), red(np.sum, -1, True),
      rule=int64_if_integral)                                       # specs/reduce.py
    op_row("gather", spell("gather", lambda op, x, i: op(x, -1, i)), gather_ref(-1),
           shapes=((3, 4), (3, 6)), domains=("real", index_domain(0, 4)),
           dtypes=with_index())                                     # specs/index.py
    rnd("randn", {"randn": lambda F: F.randn(3, 4)}, (3, 4), rule=const(F32))
                                          # specs/random.py: shape, dtype, seeding only

Index inputs get their own value domains (``index_domain``, ``unique_domain``) and
``layout_domains`` (0-d inputs take index 0); ``requires="name"`` skips a row until
``Tensor.name`` exists, for ops that are merged later.
"""

from __future__ import annotations

import importlib

from specs.common import (
    ALL,
    F32,
    F64,
    FLOAT,
    SPECS,
    can_cast,
    generate,
    result_type,
    rng_for,
)

# Importing a family module appends its rows to SPECS and marks its known bugs; the
# order here is the order of the rows (and of the test ids).
FAMILY_NAMES = ("elementwise", "views", "creation", "index", "join", "reduce", "matmul", "random",
                "conv", "sort", "special", "pointwise")
FAMILIES = tuple(importlib.import_module("specs." + n) for n in FAMILY_NAMES)
ROWS = SPECS  # the assembled table

__all__ = [
    "ALL", "F32", "F64", "FLOAT", "ROWS", "SPECS", "can_cast", "generate", "result_type",
    "rng_for", "FAMILIES", "FAMILY_NAMES",
]
