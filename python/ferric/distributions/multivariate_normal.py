"""The multivariate normal distribution, computed through the Cholesky factor of the
covariance."""

from __future__ import annotations

import math

from .. import _core, _functions, _linalg_aliases, linalg
from .._size import Size
from . import constraints
from ._loc_scale import _CentredAtLoc
from .distribution import _EMPTY, Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products with broadcast batch shapes."""
    return _core.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^{-1} x`` per batch entry: a triangular solve against ``L``, with
    ``L``'s batch shape broadcast against ``x``'s."""
    n = bx.size(-1)
    batch = _functions.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = bL.expand(tuple(batch) + (n, n))
    x = bx.expand(tuple(batch) + (n,)).unsqueeze(-1)
    return linalg.solve_triangular(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    # L with L L^T = P^{-1}, from the Cholesky factor of P with rows/columns reversed
    Lf = linalg.cholesky(_core.flip(P, (-2, -1)))
    L_inv = _core.transpose(_core.flip(Lf, (-2, -1)), -2, -1)
    eye = _core.eye(P.shape[-1], dtype=P.dtype)
    return linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(_CentredAtLoc, Distribution):
    """A multivariate normal with mean ``loc`` and a covariance given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (its lower Cholesky
    factor, the cheapest: every computation goes through it).

    Args:
        loc (Tensor): mean, ``(*batch, n)``.
        covariance_matrix (Tensor): positive-definite covariance, ``(*batch, n, n)``.
        precision_matrix (Tensor): positive-definite precision, ``(*batch, n, n)``.
        scale_tril (Tensor): lower-triangular factor with a positive diagonal.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import MultivariateNormal
        >>> m = MultivariateNormal(ferric.zeros(2), ferric.eye(2))
        >>> m.log_prob(ferric.zeros(2))
        tensor(-1.8379)
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, scale_tril, precision_matrix) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        matrix = given[0]
        name = ("scale_tril matrix" if scale_tril is not None else "covariance_matrix"
                if covariance_matrix is not None else "precision_matrix")
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        batch_shape = _functions.broadcast_shapes(tuple(matrix.shape[:-2]),
                                                  tuple(loc.shape[:-1]))
        expanded = matrix.expand(tuple(batch_shape) + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = expanded
        elif covariance_matrix is not None:
            self.covariance_matrix = expanded
        else:
            self.precision_matrix = expanded
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape + self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        return self._init_expanded(new, batch_shape, self.event_shape)

    def _matrix_shape(self):
        return tuple(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        """Lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """Covariance ``L L^T``."""
        L = self._unbroadcasted_scale_tril
        return _core.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """Precision (inverse covariance), from the Cholesky factor."""
        return _linalg_aliases.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())

    @property
    def variance(self):
        """The diagonal of the covariance."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape=_EMPTY):
        """``loc + L eps`` with ``eps`` standard normal (PyTorch's draw).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import MultivariateNormal
            >>> MultivariateNormal(ferric.zeros(2), ferric.eye(2)).rsample((3,)).shape
            ferric.Size([3, 2])
        """
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        """Log density at ``value``.

        Args:
            value (Tensor): points to score, ``(*, n)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import MultivariateNormal
            >>> m = MultivariateNormal(ferric.zeros(2), 2 * ferric.eye(2))
            >>> m.log_prob(ferric.ones(2))
            tensor(-3.0310)
        """
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        """``n/2 (1 + log 2 pi) + log det L``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import MultivariateNormal
            >>> MultivariateNormal(ferric.zeros(2), ferric.eye(2)).entropy()
            tensor(2.8379)
        """
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
