"""``ferric.linalg``: PyTorch's ``torch.linalg`` for float32 / float64 tensors.

Decompositions and solvers run in the Rust core on the ``faer`` crate, batched over
leading dimensions, with PyTorch's derivative formulas (``ferric._linalg``); norms,
``pinv``, ``matrix_rank``, ``matrix_power``, ``lstsq``, ``multi_dot``, ``cross``,
``vecdot``, ``cond`` and ``matrix_exp`` are composed from differentiable ops
(``ferric._linalg_composed``). A failed factorization raises :class:`LinAlgError`, a
``RuntimeError`` subclass, with PyTorch's message.

Example:
    >>> import ferric
    >>> A = ferric.tensor([[4.0, 1.0], [1.0, 3.0]])
    >>> ferric.linalg.solve(A, ferric.tensor([1.0, 2.0]))
    tensor([0.0909, 0.6364])
"""

from __future__ import annotations

from ._linalg import (
    LinAlgError,
    cholesky,
    cholesky_ex,
    det,
    eigh,
    eigvalsh,
    inv,
    inv_ex,
    qr,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
    svd,
    svdvals,
)
from ._linalg_composed import (
    cond,
    cross,
    diagonal,
    lstsq,
    matmul,
    matrix_exp,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    vecdot,
    vector_norm,
)

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
    "eigvalsh", "inv", "inv_ex", "lstsq", "matmul", "matrix_exp", "matrix_norm",
    "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
    "solve_ex", "solve_triangular", "svd", "svdvals", "vecdot", "vector_norm",
]

# LU (composed in Python, ``ferric._lu``)
from ._lu import lu, lu_factor, lu_factor_ex, lu_solve  # noqa: E402

__all__ += ["lu", "lu_factor", "lu_factor_ex", "lu_solve"]

# the functions print and pickle under their public home
for _name in __all__:
    _obj = globals()[_name]
    if _name not in ("LinAlgError", "matmul") and getattr(_obj, "__module__", "").startswith(
        "ferric._linalg"
    ):
        _obj.__module__ = __name__
del _name, _obj
