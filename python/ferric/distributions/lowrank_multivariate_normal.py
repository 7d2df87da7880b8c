"""The multivariate normal with a low-rank-plus-diagonal covariance ``W W^T + diag(D)``,
computed through the small capacitance matrix ``I + W^T D^-1 W`` (Woodbury identity and
matrix determinant lemma)."""

from __future__ import annotations

import math

from .. import _core, _functions, linalg
from .._size import Size
from . import constraints
from ._loc_scale import _CentredAtLoc
from .distribution import _EMPTY, Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _batch_capacitance_tril(W, D):
    """Cholesky factor of ``I + W^T D^-1 W``."""
    m = W.size(-1)
    K = _core.matmul(W.mT / D.unsqueeze(-2), W) + _core.eye(m, dtype=W.dtype)
    return linalg.cholesky(K)


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """``log det(W W^T + D) = log det C + log det D``."""
    return (2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + D.log().sum(-1))


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """``x^T (W W^T + D)^-1 x`` by the Woodbury identity."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    term1 = (x.pow(2) / D).sum(-1)
    term2 = _batch_mahalanobis(capacitance_tril, _batch_mv(Wt_Dinv, x))
    return term1 - term2


class LowRankMultivariateNormal(_CentredAtLoc, Distribution):
    """A multivariate normal with covariance ``cov_factor @ cov_factor.T +
    diag(cov_diag)``; determinants and inverses go through the ``rank x rank``
    capacitance matrix.

    Args:
        loc (Tensor): mean, ``batch_shape + (n,)``.
        cov_factor (Tensor): ``batch_shape + (n, rank)``.
        cov_diag (Tensor): positive diagonal, ``batch_shape + (n,)``.
        validate_args (bool, optional): check the arguments (see ``Distribution``).

    Example:
        >>> import ferric
        >>> from ferric.distributions import LowRankMultivariateNormal
        >>> m = LowRankMultivariateNormal(ferric.zeros(2), ferric.tensor([[1.0], [0.0]]),
        ...                               ferric.ones(2))
        >>> m.covariance_matrix
        tensor([[2., 0.],
                [0., 1.]])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = _functions.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape + self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return self._init_expanded(new, batch_shape, self.event_shape)

    def _matrix_shape(self):
        return tuple(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def variance(self):
        """The diagonal of the covariance."""
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape + self._event_shape))

    @lazy_property
    def scale_tril(self):
        """Lower Cholesky factor of the covariance."""
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / d_sqrt
        K = _core.matmul(Dinvsqrt_W, Dinvsqrt_W.mT) + _core.eye(n, dtype=d_sqrt.dtype)
        return (d_sqrt * linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """``W W^T + diag(D)``."""
        W = self._unbroadcasted_cov_factor
        return (_core.matmul(W, W.mT) + _core.diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse covariance by the Woodbury identity."""
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision = _core.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=_EMPTY):
        """``loc + W eps_W + sqrt(D) eps_D`` with standard-normal draws in PyTorch's
        order (``eps_W`` first).

        Args:
            sample_shape (Size): leading shape of the result.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LowRankMultivariateNormal
            >>> m = LowRankMultivariateNormal(ferric.zeros(2), ferric.ones(2, 1), ferric.ones(2))
            >>> m.rsample((4,)).shape
            ferric.Size([4, 2])
        """
        shape = self._extended_shape(sample_shape)
        w_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = _standard_normal(w_shape, dtype=self.loc.dtype)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _logdet(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        """Log density at ``value``.

        Args:
            value (Tensor): points to score, ``(*, n)``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LowRankMultivariateNormal
            >>> m = LowRankMultivariateNormal(ferric.zeros(2), ferric.zeros(2, 1), ferric.ones(2))
            >>> m.log_prob(ferric.zeros(2))
            tensor(-1.8379)
        """
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, value - self.loc,
                                       self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._logdet() + M)

    def entropy(self):
        """``n/2 (1 + log 2 pi) + log det(cov) / 2``.

        Example:
            >>> import ferric
            >>> from ferric.distributions import LowRankMultivariateNormal
            >>> m = LowRankMultivariateNormal(ferric.zeros(2), ferric.zeros(2, 1), ferric.ones(2))
            >>> m.entropy()
            tensor(2.8379)
        """
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._logdet())
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
