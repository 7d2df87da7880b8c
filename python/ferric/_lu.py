"""LU factorization with partial pivoting, composed from differentiable ops:
``linalg.lu_factor`` / ``lu_factor_ex`` / ``lu`` / ``lu_solve``, and the top-level
``lu``, ``lu_unpack`` and ``lu_solve``.

The elimination is LAPACK's ``getrf`` (pivot: the first element of largest magnitude
in the column; the row swaps apply to whole rows, so the multipliers stored below the
diagonal move with them), batched over leading dimensions, one column per step; an
exactly zero pivot leaves its column and sets ``info``. Pivots are int32 and 1-based,
as PyTorch returns them. Gradients come from the ops the elimination is built of (the
derivative of the factorization wherever the pivot order is locally constant).
"""

from __future__ import annotations

import math

from . import _core, _linalg, _shape_ops, return_types
from ._core import Tensor
from ._shape_ops import _tname


def _check(A: Tensor, name: str) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_tname(A.dtype)}'")


def _factor(A: Tensor, pivot: bool):
    """(LU, pivots, info) of ``A`` (``..., m, n``)."""
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    lu = A.clone()
    rows = _core.arange(m).reshape((1,) * len(batch) + (m,)).expand(*batch, m)
    pivots = []
    info = _core.zeros(batch, dtype=_core.int32)
    for j in range(k):
        if pivot:
            p = lu[..., j:, j].detach().abs().argmax(dim=-1) + j
        else:
            p = _core.full(batch, j, dtype=_core.int64)
        pivots.append(p + 1)
        # swap rows j and p: row i of the result is row order[i] of lu
        pj = p.unsqueeze(-1)
        order = _core.where(rows == j, pj, _core.where(rows == pj, j, rows))
        lu = _shape_ops.take_along_dim(lu, order.unsqueeze(-1).expand(lu.shape), dim=-2)
        piv = lu[..., j:j + 1, j:j + 1]
        zero = piv.detach() == 0
        info = _core.where((info == 0) & zero.reshape(batch), j + 1, info).to(_core.int32)
        safe = _core.where(zero, _core.ones_like(piv), piv)
        mult = lu[..., j + 1:, j:j + 1] / safe
        below = lu[..., j + 1:, j + 1:] - mult * lu[..., j:j + 1, j + 1:]
        lower = _core.cat([lu[..., j + 1:, :j], mult, below], dim=-1)
        lu = _core.cat([lu[..., :j + 1, :], lower], dim=-2)
    piv_t = (_core.stack(pivots, dim=-1) if pivots else _core.zeros(batch + (0,),
                                                                    dtype=_core.int64))
    return lu, piv_t.to(_core.int32), info


def _raise_if_singular(name: str, info: Tensor) -> None:
    """PyTorch's error for the first exactly zero pivot recorded in ``info``."""
    if bool((info > 0).any()):
        first = int(info[info > 0][0])
        raise RuntimeError(f"torch.linalg.{name}: U[{first},{first}] is zero and using it on "
                           "lu_solve would result in a division by zero. If you still want to "
                           "perform the factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    """``(LU, pivots, info)``: the LU factorization of ``A`` with partial pivoting.

    Args:
        A (Tensor): matrices of shape ``(*, m, n)``.
        pivot (bool): whether to pivot (only ``True`` is supported on CPU by PyTorch).
        check_errors (bool): raise when a pivot is exactly zero.
        out (tuple, optional): output tensors.

    Example:
        >>> import ferric
        >>> LU, piv, info = ferric.linalg.lu_factor_ex(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> piv
        tensor([2, 2], dtype=ferric.int32)
    """
    _check(A, "linalg.lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")
    lu, piv, info = _factor(A, pivot)
    if lu.requires_grad:
        lu = _core._named_node(lu, "LinalgLuFactorExBackward0")
    if check_errors:
        _raise_if_singular("lu_factor_ex", info)
    return _linalg._out_tuple("linalg_lu_factor_ex", out, return_types.linalg_lu_factor_ex,
                              (lu, piv, info))


def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    """``(LU, pivots)``: the compact LU factorization of ``A`` (``P A = L U`` with
    ``L`` unit lower triangular below the diagonal of ``LU`` and ``U`` on and above it).

    Args:
        A (Tensor): matrices of shape ``(*, m, n)``.
        pivot (bool): whether to pivot.
        out (tuple, optional): output tensors.

    Example:
        >>> import ferric
        >>> LU, piv = ferric.linalg.lu_factor(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> LU
        tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]])
    """
    lu, piv, info = lu_factor_ex(A, pivot=pivot)
    _raise_if_singular("lu_factor", info)
    return _linalg._out_tuple("linalg_lu_factor", out, return_types.linalg_lu_factor,
                              (lu, piv))


def _perm(pivots: Tensor, m: int) -> Tensor:
    """The row order ``perm`` with ``P^T A = A[perm]`` from LAPACK's swap list."""
    batch = tuple(pivots.shape[:-1])
    flat = pivots.reshape(-1, pivots.shape[-1]).tolist() if pivots.numel() else [
        [] for _ in range(max(1, math.prod(batch)))]
    perms = []
    for swaps in flat:
        order = list(range(m))
        for j, p in enumerate(swaps):
            order[j], order[p - 1] = order[p - 1], order[j]
        perms.append(order)
    return _core.tensor(perms, dtype=_core.int64).reshape(*batch, m)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True, *, out=None):
    """``(P, L, U)`` from a compact LU factorization (``A = P @ L @ U``).

    Args:
        LU_data (Tensor): the packed factors, shape ``(*, m, n)``.
        LU_pivots (Tensor): the 1-based int32 pivots, shape ``(*, min(m, n))``.
        unpack_data (bool): compute ``L`` and ``U`` (else they are empty).
        unpack_pivots (bool): compute ``P`` (else it is empty).
        out (tuple, optional): output tensors.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> P, L, U = ferric.lu_unpack(*ferric.linalg.lu_factor(A))
        >>> P @ L @ U
        tensor([[1., 2.],
                [3., 4.]])
    """
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = LU_data.new_empty((0,))
    if unpack_data:
        eye = _core.eye(m, k, dtype=LU_data.dtype)
        L = LU_data[..., :, :k].tril(-1) + eye
        U = LU_data[..., :k, :].triu()
        if L.requires_grad:
            L = _core._named_node(L, "LuUnpackBackward0")
            U = _core._named_node(U, "LuUnpackBackward0")
    else:
        L = U = empty
    if unpack_pivots:
        perm = _perm(LU_pivots, m)
        P = (perm.unsqueeze(-1) == _core.arange(m)).to(LU_data.dtype).mT
    else:
        P = empty
    return _linalg._out_tuple("lu_unpack", out, return_types.lu_unpack, (P, L, U))


def lu(A: Tensor, *, pivot: bool = True, out=None):
    """``(P, L, U)`` with ``A = P @ L @ U``: ``P`` a permutation, ``L`` unit lower
    triangular (``m x k``), ``U`` upper triangular (``k x n``), ``k = min(m, n)``.

    Args:
        A (Tensor): matrices of shape ``(*, m, n)``.
        pivot (bool): whether to pivot.
        out (tuple, optional): output tensors.

    Example:
        >>> import ferric
        >>> P, L, U = ferric.linalg.lu(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    lu_, piv, _ = lu_factor_ex(A, pivot=pivot)
    res = tuple(lu_unpack(lu_, piv))
    return _linalg._out_tuple("linalg_lu", out, return_types.linalg_lu, res)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False, out=None) -> Tensor:
    """Solves ``A X = B`` (``X A = B`` with ``left=False``; ``A^H`` with ``adjoint``)
    given ``A``'s LU factorization from :func:`ferric.linalg.lu_factor`.

    Args:
        LU (Tensor): the packed factors, shape ``(*, n, n)``.
        pivots (Tensor): the pivots, shape ``(*, n)``.
        B (Tensor): right-hand sides, ``(*, n, k)`` (``(*, k, n)`` with ``left=False``).
        left (bool): solve ``A X = B`` (default) or ``X A = B``.
        adjoint (bool): use ``A``'s (conjugate) transpose.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> LU, piv = ferric.linalg.lu_factor(A)
        >>> ferric.linalg.lu_solve(LU, piv, ferric.tensor([[5.0], [6.0]]))
        tensor([[-4.0000],
                [ 4.5000]])
    """
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        x = lu_solve(LU, pivots, B.mT, left=True, adjoint=not adjoint)
        return _linalg._out("linalg_lu_solve", out, x.mT)
    P, L, U = lu_unpack(LU, pivots)
    if not adjoint:
        # A = P L U: X = U^-1 L^-1 P^T B
        y = _linalg.solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
        x = _linalg.solve_triangular(U, y, upper=True)
    else:
        # A^T = U^T L^T P^T: X = P L^-T U^-T B
        y = _linalg.solve_triangular(U.mT, B, upper=False)
        x = P @ _linalg.solve_triangular(L.mT, y, upper=True, unitriangular=True)
    if x.requires_grad:
        x = _core._named_node(x, "LinalgLuSolveBackward0")
    return _linalg._out("linalg_lu_solve", out, x)


def lu_deprecated(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """``(LU, pivots)`` or, with ``get_infos``, ``(LU, pivots, infos)``: PyTorch's
    ``torch.lu`` (use :func:`ferric.linalg.lu_factor`).

    Args:
        A (Tensor): matrices of shape ``(*, m, n)``.
        pivot (bool): whether to pivot.
        get_infos (bool): also return the ``info`` of each factorization.
        out (tuple, optional): output tensors.

    Example:
        >>> import ferric
        >>> LU, piv = ferric.lu(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> piv
        tensor([2, 2], dtype=ferric.int32)
    """
    lu_, piv, info = lu_factor_ex(A, pivot=pivot)
    res = (lu_, piv, info) if get_infos else (lu_, piv)
    if out is None:
        return res
    return tuple(_core._out_write("lu", o, r, "same") for o, r in zip(out, res, strict=True))


def lu_solve_deprecated(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """``torch.lu_solve(b, LU_data, LU_pivots)``: :func:`ferric.linalg.lu_solve` with the
    right-hand side first.

    Args:
        b (Tensor): right-hand sides, shape ``(*, n, k)``.
        LU_data (Tensor): the packed factors.
        LU_pivots (Tensor): the pivots.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> ferric.lu_solve(ferric.tensor([[5.0], [6.0]]), *ferric.lu(A))
        tensor([[-4.0000],
                [ 4.5000]])
    """
    return lu_solve(LU_data, LU_pivots, b, out=out)
