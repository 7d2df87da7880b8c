"""The ``ferric.linalg`` ops composed from differentiable ones (re-exported there).

Norms, ``pinv``, ``matrix_rank``, ``matrix_power``, ``multi_dot``, ``cross``, ``vecdot``,
``lstsq``, ``cond`` and ``matrix_exp`` are built from the core primitives (``svd``,
``eigh``, ``solve``, ``inv``) and elementwise ops, so autograd differentiates them
through their parts and they need no rule of their own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import _core, return_types
from ._core import Tensor
from ._linalg import (
    _check_float,
    _check_tensor,
    eigh,
    eigvalsh,
    inv,
    solve,
    svd,
    svdvals,
)
from ._shape_ops import _tname
from ._special_functions import _CPP, _dname, _takes_out

_INF = float("inf")

matmul = _core.matmul


def _eps(x: Tensor) -> float:
    return 2.220446049250313e-16 if x.dtype == _core.float64 else 1.1920928955078125e-07


def _dims2(op: str, A: Tensor, dim) -> tuple[int, int]:
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {tuple(dim)}")
    nd = A.ndim
    d0, d1 = (d + nd if d < 0 else d for d in dim)
    if not (0 <= d0 < nd and 0 <= d1 < nd):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
            f"but got {dim[0] if not 0 <= d0 < nd else dim[1]})"
        )
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


@_takes_out("linalg_vector_norm", "same")
def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None):
    """Vector norm of ``x`` over ``dim`` (all elements when ``None``).

    Args:
        x (Tensor): float tensor.
        ord (float): ``2`` (default), ``inf``, ``-inf``, ``0`` (count of non-zeros) or any
            real ``p``.
        dim (int or tuple of ints, optional): dims to reduce.
        keepdim (bool): keep the reduced dims with size 1.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.vector_norm(ferric.tensor([3.0, -4.0]))
        tensor(5.)
        >>> ferric.linalg.vector_norm(ferric.tensor([3.0, -4.0]), ord=float("inf"))
        tensor(4.)
    """
    _check_tensor("linalg.vector_norm", "x", x)
    _check_float("linalg.vector_norm", x)
    if isinstance(ord, str):
        raise TypeError(f"linalg.vector_norm(): argument 'ord' must be Number, not str ({ord!r})")
    return x.norm(float(ord), dim, keepdim, dtype=dtype)


def _svd_norm(A: Tensor, d0: int, d1: int, keepdim: bool, reduce) -> Tensor:
    s = svdvals(A.movedim((d0, d1), (-2, -1)))
    r = reduce(s)
    if keepdim:
        lo, hi = sorted((d0, d1))
        r = r.unsqueeze(lo).unsqueeze(hi)
    return r


@_takes_out("linalg_matrix_norm", "same", lambda r, o: (
    f"linalg.matrix_norm expected out tensor dtype {_tname(r)} but got: "
    f"{_tname(o)}"))
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None,
                out=None) -> Tensor:
    """Matrix norm over the two dims ``dim``.

    Args:
        A (Tensor): float tensor with at least 2 dims.
        ord: ``'fro'`` (default), ``'nuc'``, ``inf``, ``-inf``, ``1``, ``-1``, ``2``, ``-2``.
        dim (2-tuple of ints): the matrix dims.
        keepdim (bool): keep the reduced dims with size 1.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[1.0, -2.0], [3.0, 4.0]])
        >>> ferric.linalg.matrix_norm(A, ord=1)
        tensor(6.)
        >>> ferric.linalg.matrix_norm(A, ord=float("inf"))
        tensor(7.)
    """
    op = "linalg.matrix_norm"
    _check_tensor(op, "A", A)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _check_float(op, A)
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _dims2(op, A, dim)
    if ord == "fro":
        return A.norm(2.0, (d0, d1), keepdim)
    if ord == "nuc":
        return _svd_norm(A, d0, d1, keepdim, lambda s: s.sum(-1))
    if isinstance(ord, str) or ord not in (1, -1, 2, -2, _INF, -_INF):
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    if ord in (2, -2):
        red = (lambda s: s.amax(-1)) if ord == 2 else (lambda s: s.amin(-1))
        return _svd_norm(A, d0, d1, keepdim, red)
    # 1 / -1: largest / smallest column sum; inf / -inf: row sums
    sum_dim, max_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
    sums = A.abs().sum(sum_dim, keepdim=True)
    r = sums.amax(max_dim, keepdim=True) if ord > 0 else sums.amin(max_dim, keepdim=True)
    if not keepdim:
        r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    return r


@_takes_out("linalg_norm", "same", lambda r, o: (
    f"linalg.norm expected out tensor dtype {_tname(r)} but got: {_tname(o)}"))
def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out=None):
    """Vector or matrix norm, chosen as PyTorch chooses: a matrix norm when ``ord`` is a
    string or ``dim`` has two entries (or ``A`` is 2-D with ``ord`` given and ``dim``
    not), else a vector norm (of the flattened ``A`` when neither is given).

    Args:
        A (Tensor): the input tensor.
        ord (int or float or str, optional): the order of the norm (see :func:`vector_norm` and
            :func:`matrix_norm`).
        dim (int or tuple of ints, optional): the dimension(s) to reduce.
        keepdim (bool): keep the reduced dimensions with size 1. Default: False.
        dtype (:class:`ferric.dtype`, optional): compute in this dtype.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[3.0, 0.0], [0.0, -4.0]])
        >>> ferric.linalg.norm(A)
        tensor(5.)
        >>> ferric.linalg.norm(A, ord=2)
        tensor(4.)
    """
    op = "linalg.norm"
    _check_tensor(op, "A", A)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim not in (1, 2):
            raise RuntimeError(
                f"{op}: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {A.ndim}D."
            )
        dim = tuple(range(A.ndim))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if len(dim) == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"{op}: ord {ord!r} is not supported for vector norms")
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    raise RuntimeError(
        f"{op}: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
    )


@_takes_out("linalg_cond", "cast")
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """Condition number of ``A`` in the norm ``p`` (``None``/``2``: ratio of the extreme
    singular values).

    Args:
        A (Tensor): a matrix or a batch of them.
        p (int or float or str, optional): the norm: ``None``/``2``/``-2``, ``'fro'``, ``'nuc'``,
            ``inf``, ``-inf``, ``1``, ``-1``.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.cond(ferric.tensor([[2.0, 0.0], [0.0, 0.5]]))
        tensor(4.)
    """
    _check_float("linalg.cond", A)
    if p is None or p in (2, -2):
        s = svdvals(A)
        first, last = s.narrow(-1, 0, 1).squeeze(-1), s.narrow(-1, -1, 1).squeeze(-1)
        return first / last if p != -2 else last / first
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def _tolerance(op: str, s_max: Tensor, A: Tensor, atol, rtol) -> Tensor:
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        atol_zero = atol is None or (not isinstance(atol, Tensor) and atol == 0)
        rtol = _eps(A) * max(m, n) if atol_zero else 0.0
    if atol is None:
        atol = 0.0
    tol = s_max * rtol
    return tol.clamp_min(atol) if not isinstance(atol, Tensor) else tol.maximum(atol)


def _masked_reciprocal(s: Tensor, keep: Tensor) -> Tensor:
    # 1/s where kept, 0 elsewhere; the gradient of the dropped entries is 0, not nan
    safe = _core.where(keep, s, 1.0)
    return _core.where(keep, safe.reciprocal(), 0.0)


@_takes_out("linalg_pinv", "cast")
def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Moore-Penrose pseudoinverse through the SVD (the eigendecomposition when
    ``hermitian``); singular values at most ``max(atol, rtol * s_max)`` are dropped.

    Args:
        A (Tensor): ``(*, m, n)``.
        atol, rtol (float or Tensor, optional): tolerances; ``rtol`` defaults to
            ``eps * max(m, n)`` when ``atol`` is not given (or zero), else to 0.
        hermitian (bool): ``A`` is symmetric (only its lower triangle is read).
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.pinv(ferric.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    op = "linalg.pinv"
    _check_float(op, A)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if hermitian:
        w, V = eigh(A)
        aw = w.abs()
        s_max = aw.amax(-1, keepdim=True) if w.shape[-1] else aw.sum(-1, keepdim=True)
        tol = _tolerance(op, s_max, A, atol, rtol)
        winv = _masked_reciprocal(w, aw > tol)
        return (V * winv.unsqueeze(-2)) @ V.mT
    U, S, Vh = svd(A, full_matrices=False)
    s_max = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    tol = _tolerance(op, s_max, A, atol, rtol)
    sinv = _masked_reciprocal(S, S > tol)
    return (Vh.mT * sinv.unsqueeze(-2)) @ U.mT


@_takes_out("linalg_matrix_rank", "cast")
def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, tol=None,
                out=None) -> Tensor:
    """Numerical rank: the number of singular values above ``max(atol, rtol * s_max)``.

    Args:
        A (Tensor): a matrix or a batch of them.
        atol (float or Tensor, optional): the absolute tolerance.
        rtol (float or Tensor, optional): the tolerance relative to the largest singular value.
        hermitian (bool): ``A`` is symmetric (use eigenvalues). Default: False.
        tol (float, optional): the deprecated spelling of ``atol``.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.matrix_rank(ferric.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    op = "linalg.matrix_rank"
    _check_float(op, A)
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    s = eigvalsh(A).abs() if hermitian else svdvals(A)
    s = s.detach()
    s_max = s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True)
    return (s > _tolerance(op, s_max, A, atol, rtol)).sum(-1)


def _check_square(op: str, A: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m != n:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )


@_takes_out("linalg_matrix_power", "same")
def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """``A`` to the integer power ``n`` (``n < 0``: powers of the inverse), by repeated
    squaring in PyTorch's order of products.

    Args:
        A (Tensor): a square matrix or a batch of them.
        n (int): the exponent (negative: a power of the inverse).
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.matrix_power(ferric.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    _check_tensor("linalg.matrix_power", "A", A)
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(
            f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    _check_square("linalg.matrix_power", A)
    if n == 0:
        eye = _core.eye(A.shape[-1], dtype=A.dtype)
        return eye.expand(A.shape).clone()
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return A.clone()
    if n == 2:
        return A @ A
    if n == 3:
        return (A @ A) @ A
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else z @ z
        if bit:
            result = z if result is None else result @ z
    return result


@_takes_out("linalg_cross", "same")
def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (inputs broadcast).

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.
        dim (int): the dimension of size 3 holding the vectors. Default: -1.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.cross(ferric.tensor([1.0, 0.0, 0.0]), ferric.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
    """
    _check_tensor("linalg.cross", "input", input)
    _check_tensor("linalg.cross", "other", other, 2)
    if input.ndim != other.ndim:
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions. Got {input.ndim} "
            f"and {other.ndim}"
        )
    nd = input.ndim
    if not -nd <= dim < nd:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
            f"{dim})"
        )
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input.shape[dim]} and {other.shape[dim]}"
        )
    a1, a2 = input.roll(-1, dim), input.roll(-2, dim)
    b1, b2 = other.roll(-1, dim), other.roll(-2, dim)
    return a1 * b2 - a2 * b1


@_takes_out("linalg_vecdot", "same", lambda r, o: (
    f"linalg.vecdot: Expected out of dtype{_tname(r)} but found {_tname(o)}"))
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Dot product of vectors along ``dim`` (inputs broadcast).

    Args:
        x (Tensor): the first operand.
        y (Tensor): the second operand.
        dim (int): the dimension of the vectors. Default: -1.
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.vecdot(ferric.tensor([1.0, 2.0]), ferric.tensor([3.0, 4.0]))
        tensor(11.)
    """
    _check_tensor("linalg.vecdot", "x", x)
    _check_tensor("linalg.vecdot", "y", y, 2)
    return (x * y).sum(dim)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix (``dim1``, ``dim2``) of ``A``, as a view.

    Args:
        A (Tensor): the input tensor, at least 2-D.
        offset (int): which diagonal (0 the main one, positive above). Default: 0.
        dim1 (int): the first matrix dimension. Default: -2.
        dim2 (int): the second matrix dimension. Default: -1.

    Example:
        >>> import ferric
        >>> ferric.linalg.diagonal(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([1., 4.])
    """
    return A.diagonal(offset, dim1, dim2)


def _chain_order(dims: list[int]) -> list[list[int]]:
    # classic matrix-chain dynamic programme: split[i][j] is the best split of i..j
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


@_takes_out("mm", "same", lambda r, o: (
    f"multi_dot(): expected out tensor to have dtype {_dname(r, _CPP)} but got {_dname(o, _CPP)}"))
def multi_dot(tensors: Sequence[Tensor], *, out=None) -> Tensor:
    """Product of a chain of matrices in the cheapest order; the first may be a row
    vector (1-D) and the last a column vector (1-D).

    Args:
        tensors (sequence of Tensors): two or more matrices (the first and last may be 1-D).
        out (Tensor, optional): the output tensor.

    Example:
        >>> import ferric
        >>> ferric.linalg.multi_dot([ferric.ones(2, 3), ferric.ones(3, 4), ferric.ones(4)])
        tensor([12., 12.])
    """
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    for i, t in enumerate(ts):
        where = "the first tensor" if i == 0 else "the last tensor" if i == n - 1 else None
        if where is not None and t.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): {where} must be 1D or 2D but got {t.ndim}D")
        if where is None and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i in range(n - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i].shape)} and "
                f"{list(ts[i + 1].shape)} cannot be multiplied"
            )
    dtypes = {t.dtype for t in ts}
    if len(dtypes) > 1:
        raise RuntimeError(
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
            f"{ts[0].dtype} and tensor 1 is {ts[1].dtype}"
        )
    split = _chain_order([t.shape[0] for t in ts] + [ts[-1].shape[1]])

    def prod(i: int, j: int) -> Tensor:
        if i == j:
            return ts[i]
        k = split[i][j]
        return prod(i, k).mm(prod(k + 1, j))

    r = prod(0, n - 1)
    if first_1d and last_1d:
        return r.squeeze(0).squeeze(0)
    if first_1d:
        return r.squeeze(0)
    if last_1d:
        return r.squeeze(-1)
    return r


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` as ``(solution, residuals, rank,
    singular_values)``, filled as PyTorch's CPU drivers fill them (``gelsy`` default:
    ``rank`` only; ``gelsd``/``gelss``: also ``singular_values``, and ``residuals`` when
    ``m > n`` and every matrix has full rank). The solution is the minimum-norm one,
    computed through the SVD with singular values below ``rcond * s_max`` dropped
    (``rcond`` defaults to ``eps * max(m, n)``).

    Args:
        A (Tensor): the ``m x n`` matrix (or a batch).
        B (Tensor): the right-hand sides, ``m x k`` (or a batch).
        rcond (float, optional): singular values below ``rcond`` times the largest count as zero.
        driver (str, optional): ``'gelsy'`` (default), ``'gelsd'``, ``'gelss'`` or ``'gels'``.

    Example:
        >>> import ferric
        >>> A = ferric.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> ferric.linalg.lstsq(A, ferric.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.0000],
                [2.0000]])
    """
    op = "torch.linalg.lstsq"
    _check_tensor("linalg.lstsq", "A", A)
    _check_tensor("linalg.lstsq", "B", B, 2)
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    _check_float("linalg.lstsq", A)
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"{op}: Expected input and other to have the same dtype, but got input's dtype "
            f"{A.dtype} and other's dtype {B.dtype}"
        )
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(
            f"{op}: input.size(-2) should match other.size(-2)" if not vector else
            f"{op}: input.size(-2) should match other.size(-1)"
        )
    m, n = A.shape[-2], A.shape[-1]
    if rcond is None:
        rcond = _eps(A) * max(m, n)
    U, S, Vh = svd(A, full_matrices=False)
    s_max = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    keep = S > s_max.detach() * rcond
    sinv = _masked_reciprocal(S, keep)
    X = Vh.mT @ (sinv.unsqueeze(-1) * (U.mT @ Bm))
    rank = keep.sum(-1)
    empty = _core.zeros(0, dtype=A.dtype)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = ((A @ X - Bm) ** 2).sum(-2)
        if vector:
            residuals = residuals.squeeze(-1)
    if vector:
        X = X.squeeze(-1)
    if driver == "gels":
        rank = _core.zeros(0, dtype=_core.int64)
    sv = S if driver in ("gelsd", "gelss") else empty
    return return_types.linalg_lstsq((X, residuals, rank, sv))


# Pade [13/13] coefficients (Higham 2005, "The scaling and squaring method for the matrix
# exponential revisited"), and the 1-norm bound below which no scaling is needed.
_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)
_THETA13 = 5.371920351148152


def matrix_exp(A: Tensor) -> Tensor:
    """Matrix exponential by scaling and squaring with a [13/13] Pade approximant (one
    scaling for the whole batch); differentiable through its matmuls and solve.

    Args:
        A (Tensor): a square matrix or a batch of them.

    Example:
        >>> import ferric
        >>> ferric.linalg.matrix_exp(ferric.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    op = "linalg.matrix_exp"
    _check_tensor(op, "A", A)
    _check_square(op, A)
    _check_float(op, A)
    if A.numel() == 0:
        return A.clone()
    norm1 = float(A.detach().abs().sum(-2).amax().item())
    s = 0 if norm1 <= _THETA13 else max(0, math.ceil(math.log2(norm1 / _THETA13)))
    X = A / (2.0 ** s) if s else A
    b = _PADE13
    eye = _core.eye(A.shape[-1], dtype=A.dtype)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2)
             + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 \
        + b[0] * eye
    R = solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R
