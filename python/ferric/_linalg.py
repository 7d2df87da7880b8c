"""The primitives of ``ferric.linalg`` (re-exported there).

The decompositions and solvers (``det``, ``slogdet``, ``inv``, ``solve``, ``cholesky``,
``qr``, ``svd``, ``eigh``, ``solve_triangular``) run in the Rust core on the ``faer``
crate, batched over leading dimensions, with PyTorch's derivative formulas (the
``_core._linalg_*`` bindings). This module gives them PyTorch's signatures and named
tuple results. A failed factorization raises :class:`LinAlgError`, a ``RuntimeError``.
"""

from __future__ import annotations

from . import _core, return_types
from ._core import Tensor

LinAlgError = _core._LinAlgError


def _check_float(op: str, x: Tensor) -> None:
    if not x.is_floating_point():
        name = {"int64": "Long", "bool": "Bool"}.get(str(x.dtype).split(".")[-1], str(x.dtype))
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {name}"
        )


def _check_tensor(op: str, name: str, x, pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


# ------------------------------------------------------------------ core primitives


def det(A: Tensor, *, out=None) -> Tensor:
    """Determinant of a square matrix (or of each matrix of a batch).

    Args:
        A (Tensor): tensor of shape ``(*, n, n)``, float32 or float64.

    Example:
        >>> import ferric
        >>> ferric.linalg.det(ferric.tensor([[2.0, 1.0], [1.0, 3.0]]))
        tensor(5.)
    """
    return _out("_linalg_det", out, _core._linalg_det(A))


def slogdet(A: Tensor, *, out=None):
    """Sign and natural log of the absolute value of the determinant.

    Returns a named tuple ``(sign, logabsdet)``; for a singular matrix ``sign`` is 0 and
    ``logabsdet`` is ``-inf``.

    Args:
        A (Tensor): tensor of shape ``(*, n, n)``.

    Args:
        input (Tensor): a square matrix or a batch of them.

    Example:
        >>> import ferric
        >>> ferric.linalg.slogdet(ferric.tensor([[0.0, 2.0], [3.0, 0.0]])).sign
        tensor(-1.)
    """
    res = _core._linalg_slogdet(A)
    return _out_tuple("linalg_slogdet", out, return_types.linalg_slogdet, res)


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """Inverse of a square matrix, with the factorization's ``info`` instead of an error.

    Returns ``(inverse, info)``: ``info`` is 0 for invertible matrices, else the (1-based)
    index of the first zero pivot of the LU factorization (int32, as PyTorch's).

    Args:
        A (Tensor): a square matrix or a batch of them.
        check_errors (bool): raise instead of reporting through ``info``. Default: False.
        out (tuple of Tensors, optional): the output tensors.

    Example:
        >>> import ferric
        >>> ferric.linalg.inv_ex(ferric.eye(2)).info
        tensor(0, dtype=ferric.int32)
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    res = _core._linalg_inv_ex(A, check_errors)
    return _out_tuple("linalg_inv_ex", out, return_types.linalg_inv_ex, res)


def inv(A: Tensor, *, out=None) -> Tensor:
    """Inverse of a square matrix (batched). Raises :class:`LinAlgError` if singular.

    Args:
        A (Tensor): a square matrix or a batch of them.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.inv(ferric.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    return _out("linalg_inv_ex", out, _core._linalg_inv_ex(A, True)[0])


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """:func:`solve` returning ``(result, info)`` instead of raising for singular ``A``.

    Args:
        A (Tensor): a square matrix or a batch of them.
        B (Tensor): the right-hand side(s).
        left (bool): solve ``A X = B`` (True) or ``X A = B``. Default: True.
        check_errors (bool): raise instead of reporting through ``info``. Default: False.
        out (tuple of Tensors, optional): the output tensors.

    Example:
        >>> import ferric
        >>> ferric.linalg.solve_ex(ferric.eye(2), ferric.ones(2)).result
        tensor([1., 1.])
    """
    _check_tensor("linalg.solve_ex", "A", A)
    _check_tensor("linalg.solve_ex", "B", B, 2)
    res = _core._linalg_solve_ex(A, B, left, check_errors)
    return _out_tuple("linalg_solve_ex", out, return_types.linalg_solve_ex, res)


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """Solves ``A X = B`` (or ``X A = B`` with ``left=False``) for square invertible ``A``.

    ``B`` may be a vector (``(*, n)``) or a batch of matrices (``(*, n, k)``); batch dims
    broadcast.

    Args:
        A (Tensor): ``(*, n, n)``.
        B (Tensor): ``(*, n)`` or ``(*, n, k)``.
        left (bool): solve ``AX = B`` (default) or ``XA = B``.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[3.0, 1.0], [1.0, 2.0]])
        >>> ferric.linalg.solve(A, ferric.tensor([9.0, 8.0]))
        tensor([2., 3.])
    """
    A, B = _core._autocast_args("fp32", A, B)  # autocast fp32 list
    _check_tensor("linalg.solve", "A", A)
    _check_tensor("linalg.solve", "B", B, 2)
    return _out("linalg_solve_ex", out, _core._linalg_solve_ex(A, B, left, True)[0])


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """:func:`cholesky` returning ``(L, info)``: ``info`` is the order of the first
    leading minor that is not positive-definite (0 on success).

    Args:
        A (Tensor): a symmetric positive-definite matrix or a batch of them.
        upper (bool): return the upper factor instead of the lower. Default: False.
        check_errors (bool): raise instead of reporting through ``info``. Default: False.
        out (tuple of Tensors, optional): the output tensors.

    Example:
        >>> import ferric
        >>> ferric.linalg.cholesky_ex(ferric.eye(2)).info
        tensor(0, dtype=ferric.int32)
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    res = _core._linalg_cholesky_ex(A, upper, check_errors)
    return _out_tuple("linalg_cholesky_ex", out, return_types.linalg_cholesky_ex, res)


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor ``L`` (lower triangular, ``A = L L^T``) of a symmetric
    positive-definite matrix; ``U = L^T`` with ``upper=True``. Only the lower (upper)
    triangle of ``A`` is read.

    Args:
        input (Tensor): a symmetric positive-definite matrix or a batch of them.
        upper (bool): return the upper factor ``U`` (``A = U^T U``) instead of the lower. Default:
            False.

    Example:
        >>> import ferric
        >>> ferric.linalg.cholesky(ferric.tensor([[4.0, 2.0], [2.0, 5.0]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    return _out("linalg_cholesky_ex", out, _core._linalg_cholesky_ex(A, upper, True)[0])


def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """QR decomposition ``A = Q R`` (Householder), as the named tuple ``(Q, R)``.

    Args:
        A (Tensor): ``(*, m, n)``.
        mode (str): ``'reduced'`` (``Q`` is ``m x k``), ``'complete'`` (``m x m``) or
            ``'r'`` (only ``R``; ``Q`` is empty).

    Args:
        input (Tensor): a matrix or a batch of them.
        some (bool): the reduced factorisation (``True``) or the complete one. Default: True.

    Example:
        >>> import ferric
        >>> Q, R = ferric.linalg.qr(ferric.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> ferric.allclose(Q @ R, ferric.tensor([[3.0, 1.0], [4.0, 2.0]]))
        True
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    return _out_tuple("linalg_qr", out, return_types.linalg_qr, _core._linalg_qr(A, mode))


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh`` as ``(U, S, Vh)``; singular values
    in decreasing order. Singular vectors are unique only up to sign.

    Args:
        A (Tensor): ``(*, m, n)``.
        full_matrices (bool): full ``U`` (``m x m``) and ``Vh`` (``n x n``), or the
            reduced ``m x k`` / ``k x n`` ones.

    Args:
        input (Tensor): a matrix or a batch of them.
        some (bool): the reduced factorisation (``True``) or the full one. Default: True.
        compute_uv (bool): compute ``U`` and ``V`` (zero-filled when False). Default: True.

    Example:
        >>> import ferric
        >>> ferric.linalg.svd(ferric.tensor([[3.0, 0.0], [0.0, -4.0]])).S
        tensor([4., 3.])
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    _check_driver(driver)
    res = _core._linalg_svd(A, full_matrices)
    return _out_tuple("_linalg_svd", out, return_types.linalg_svd, res)


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """Singular values of ``A`` in decreasing order.

    Args:
        A (Tensor): a matrix or a batch of them.
        driver (str, optional): accepted for compatibility (CUDA only in PyTorch).
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.svdvals(ferric.tensor([[0.0, 2.0], [1.0, 0.0]]))
        tensor([2., 1.])
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    _check_driver(driver)
    return _out("_linalg_svd", out, _core._linalg_svdvals(A))


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix, reading
    its lower (``UPLO='L'``) or upper triangle.

    Args:
        A (Tensor): a symmetric matrix or a batch of them.
        UPLO (str): ``'L'`` or ``'U'``, the triangle to read. Default: ``'L'``.
        out (tuple of Tensors, optional): the output tensors.

    Example:
        >>> import ferric
        >>> ferric.linalg.eigh(ferric.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
        tensor([1., 3.])
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    return _out_tuple("_linalg_eigh", out, return_types.linalg_eigh, _core._linalg_eigh(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """Eigenvalues (ascending) of a symmetric matrix.

    Args:
        A (Tensor): a symmetric matrix or a batch of them.
        UPLO (str): ``'L'`` or ``'U'``, the triangle to read. Default: ``'L'``.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.eigvalsh(ferric.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor([1., 3.])
    """
    A, = _core._autocast_args("fp32", A)  # autocast fp32 list
    return _out("_linalg_eigh", out, _core._linalg_eigvalsh(A, UPLO))


def solve_triangular(
    A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
    out=None,
) -> Tensor:
    """Solves ``A X = B`` (``X A = B`` with ``left=False``) for triangular ``A``.

    Only the ``upper`` (or lower) triangle of ``A`` is read; ``unitriangular`` takes its
    diagonal as ones. A zero on the diagonal gives inf/nan, not an error (as PyTorch).

    Args:
        A (Tensor): a triangular matrix or a batch of them.
        B (Tensor): the right-hand side(s).
        upper (bool): whether ``A`` is upper triangular (keyword-only, required).
        left (bool): solve ``A X = B`` (True) or ``X A = B``. Default: True.
        unitriangular (bool): take ``A``'s diagonal as all ones. Default: False.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> ferric.linalg.solve_triangular(A, ferric.tensor([[4.0], [8.0]]), upper=True)
        tensor([[1.],
                [2.]])
    """
    _check_tensor("linalg.solve_triangular", "A", A)
    _check_tensor("linalg.solve_triangular", "B", B, 2)
    res = _core._linalg_solve_triangular(A, B, upper, left, unitriangular)
    return _out("linalg_solve_triangular", out, res)


def _out(op: str, out, result: Tensor) -> Tensor:
    """PyTorch's ``out=``: the result written into ``out`` (whose dtype must be the
    result's), which is returned; the result itself without ``out``."""
    if out is None:
        return result
    return _core._out_write(op, out, result, "same")


def _out_tuple(op: str, out, cls, results):
    """``_out`` for the named-tuple results: ``out`` is a tuple of tensors, one each."""
    if out is None:
        return cls(results)
    if not isinstance(out, (tuple, list)) or len(out) != len(results):
        kind = type(out).__name__
        raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, not {kind}")
    for o, r in zip(out, results, strict=True):
        # every dtype is checked before anything is written, as PyTorch does
        if isinstance(o, Tensor) and o.dtype != r.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_CPP[r.dtype]}, but got "
                               f"{_CPP[o.dtype]} instead")
    outs = [_core._out_write(op, o, r, "same") for o, r in zip(out, results, strict=True)]
    return cls(outs)


# PyTorch's C++ type names in its out= dtype messages
_CPP = {
    _core.float32: "float", _core.float64: "double", _core.float16: "c10::Half",
    _core.bfloat16: "c10::BFloat16", _core.int64: "long int", _core.int32: "int",
    _core.int16: "short int", _core.int8: "signed char", _core.uint8: "unsigned char",
    _core.bool: "bool",
}


def _check_driver(driver) -> None:
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
