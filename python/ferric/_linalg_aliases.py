"""The top-level linear-algebra functions PyTorch keeps beside ``torch.linalg``
(``torch.det``, ``torch.inverse``, the old ``torch.svd`` returning ``V``, ...), also
installed as Tensor methods (``t.det()``, ``t.inverse()``, ...).
"""

from __future__ import annotations

from . import _core, return_types
from ._core import Tensor
from ._linalg import _check_float, _check_tensor, cholesky_ex, det, inv, qr, slogdet, svd
from ._linalg import solve_triangular as _solve_triangular
from ._linalg_composed import matrix_exp, matrix_power, pinv, svdvals
from ._special_functions import _takes_out

__all__ = [
    "cholesky", "cholesky_inverse", "cholesky_solve", "det", "inverse", "logdet",
    "matrix_exp", "matrix_power", "pinverse", "qr_", "slogdet_", "svd_",
]

inverse = inv


def logdet(input: Tensor) -> Tensor:
    """Natural log of the determinant: ``nan`` for a negative determinant, ``-inf`` for a
    singular matrix.

    Args:
        input (Tensor): a square matrix or a batch of them.

    Example:
        >>> import ferric
        >>> ferric.logdet(ferric.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
    """
    sign, logabs = slogdet(input)
    return _core.where(sign < 0, float("nan"), logabs)


def slogdet_(input: Tensor):
    """``torch.slogdet``: ``(sign, logabsdet)`` as ``return_types.slogdet``.

    Args:
        input (Tensor): a square matrix or a batch of them.

    Example:
        >>> import ferric
        >>> ferric.slogdet(ferric.eye(2)).logabsdet
        tensor(0.)
    """
    return return_types.slogdet(tuple(slogdet(input)))


@_takes_out("cholesky", "cast")
def cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch for ``linalg.cholesky``).

    Args:
        input (Tensor): a symmetric positive-definite matrix or a batch of them.
        upper (bool): return the upper factor ``U`` (``A = U^T U``) instead of the lower. Default:
            False.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.cholesky(ferric.tensor([[4.0, 2.0], [2.0, 5.0]]), upper=True)
        tensor([[2., 1.],
                [0., 2.]])
    """
    return cholesky_ex(input, upper=upper, check_errors=True).L


@_takes_out("cholesky_solve", "cast")
def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Solves ``A X = B`` given the Cholesky factor ``L`` of ``A`` (``U`` with ``upper``).

    Args:
        B (Tensor): the right-hand sides.
        L (Tensor): the Cholesky factor of ``A``.
        upper (bool): whether ``L`` is the upper factor. Default: False.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> L = ferric.tensor([[2.0, 0.0], [1.0, 2.0]])
        >>> ferric.cholesky_solve(ferric.tensor([[4.0], [5.0]]), L)
        tensor([[0.6250],
                [0.7500]])
    """
    _check_tensor("cholesky_solve", "input", B)
    _check_tensor("cholesky_solve", "input2", L, 2)
    _check_float("cholesky_solve", L)
    if upper:
        y = _solve_triangular(L.mT, B, upper=False)
        return _solve_triangular(L, y, upper=True)
    y = _solve_triangular(L, B, upper=False)
    return _solve_triangular(L.mT, y, upper=True)


@_takes_out("cholesky_inverse", "cast")
def cholesky_inverse(L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Inverse of ``A`` from its Cholesky factor ``L`` (``U`` with ``upper``).

    Args:
        L (Tensor): the Cholesky factor (or a batch of them).
        upper (bool): whether ``L`` is the upper factor. Default: False.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.cholesky_inverse(ferric.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 0.0625]])
    """
    _check_float("cholesky_inverse", L)
    eye = _core.eye(L.shape[-1], dtype=L.dtype).expand(L.shape)
    return cholesky_solve(eye, L, upper)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: :func:`ferric.linalg.pinv` with ``rtol=rcond``.

    Args:
        input (Tensor): a matrix or a batch of them.
        rcond (float): singular values below ``rcond`` times the largest count as zero. Default:
            1e-15.

    Example:
        >>> import ferric
        >>> ferric.pinverse(ferric.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    return pinv(input, rtol=rcond)


@_takes_out("svd", "same")
def svd_(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with ``V`` (not ``Vh``); ``some=False`` gives the full
    ``U``/``V``; with ``compute_uv=False``, ``U`` and ``V`` are zero-filled (full size).

    Args:
        input (Tensor): a matrix or a batch of them.
        some (bool): the reduced factorisation (``True``) or the full one. Default: True.
        compute_uv (bool): compute ``U`` and ``V`` (zero-filled when False). Default: True.
        out (Tensor, optional): the output tensor (a tuple for the named tuple).

    Example:
        >>> import ferric
        >>> ferric.svd(ferric.tensor([[3.0, 0.0], [0.0, 4.0]])).S
        tensor([4., 3.])
    """
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        s = svdvals(input)
        return return_types.svd((
            _core.zeros(*batch, m, m, dtype=input.dtype), s,
            _core.zeros(*batch, n, n, dtype=input.dtype),
        ))
    U, S, Vh = svd(input, full_matrices=not some)
    return return_types.svd((U, S, Vh.mT))


@_takes_out("qr", "same")
def qr_(input: Tensor, some: bool = True, *, out=None):
    """``torch.qr``: ``linalg.qr`` with ``mode='reduced'`` (``some``) or ``'complete'``.

    Args:
        input (Tensor): a matrix or a batch of them.
        some (bool): the reduced factorisation (``True``) or the complete one. Default: True.
        out (Tensor, optional): the output tensor (a tuple for the named tuple).

    Example:
        >>> import ferric
        >>> Q, R = ferric.qr(ferric.eye(2))
        >>> R.abs()
        tensor([[1., 0.],
                [0., 1.]])
    """
    return return_types.qr(tuple(qr(input, "reduced" if some else "complete")))


for _f, _n in ((slogdet_, "slogdet"), (svd_, "svd"), (qr_, "qr")):
    _f.__name__ = _f.__qualname__ = _n
del _f, _n

_ = (det, matrix_exp, matrix_power)
