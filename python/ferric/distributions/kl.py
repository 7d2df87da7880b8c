"""``kl_divergence`` and ``register_kl``: KL(p || q) by a registry of pairwise formulas,
dispatched on the most specific registered pair of classes."""

from __future__ import annotations

import functools
import math
import warnings

from .. import _core, _functions, linalg
from ..nn import functional as F
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .distribution import Distribution
from .exp_family import ExponentialFamily, _kl_bregman
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}  # (type_p, type_q) -> function, as registered
_KL_MEMOIZE: dict = {}  # (type(p), type(q)) -> the function dispatch chose


def register_kl(type_p, type_q):
    """Decorator registering a function computing KL(p || q) for ``p`` of type
    ``type_p`` and ``q`` of type ``type_q`` (or subclasses: the most specific registered
    pair wins; a tie between two pairs warns with a ``RuntimeWarning``).

    Args:
        type_p (type): a subclass of ``Distribution``.
        type_q (type): a subclass of ``Distribution``.

    Example:
        >>> import ferric
        >>> from ferric.distributions import Normal, kl_divergence, register_kl
        >>> class MyNormal(Normal):
        ...     pass
        >>> @register_kl(MyNormal, MyNormal)
        ... def _kl_mine(p, q):
        ...     return ferric.zeros(p.batch_shape)
        >>> kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 1.0))
        tensor(0.)
    """
    for t, name in ((type_p, "type_p"), (type_q, "type_q")):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the most specific match may have changed
        return fun

    return decorator


@functools.total_ordering
class _Match:
    """A registered pair ordered by specificity: ``a <= b`` when a's types are
    subclasses of b's, compared left to right."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types, strict=True):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(p, q) for p, q in _KL_REGISTRY
               if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left, right = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left


def kl_divergence(p, q):
    """The Kullback-Leibler divergence KL(p || q), batched over the batch shape.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Raises:
        NotImplementedError: no formula is registered for the pair of types.

    Example:
        >>> import ferric
        >>> from ferric.distributions import Normal, kl_divergence
        >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
        tensor(0.4431)
    """
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    fun = _KL_MEMOIZE[key]
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(t):
    return _core.full_like(t, math.inf)


# --- same family ---------------------------------------------------------------------

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = _core.where(q.probs == 0, math.inf, t1)
    t1 = _core.where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = _core.where(q.probs == 1, math.inf, t2)
    t2 = _core.where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _core.where(q.probs == 0, math.inf, t)
    t = _core.where(p.probs == 0, 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


_kl_expfamily_expfamily = register_kl(ExponentialFamily, ExponentialFamily)(_kl_bregman)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return (-scale_ratio.log() + loc_abs_diff / q.scale
            + scale_ratio * _core.exp(-loc_abs_diff / p.scale) - 1)


def _batch_trace_XXT(m):
    n, k = m.size(-1), m.size(-2)
    return m.reshape(-1, n * k).pow(2).sum(-1).reshape(tuple(m.shape[:-2]))


def _check_event_shapes(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes "
                         "cannot be computed")


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    _check_event_shapes(p, q, "Multivariate Normals")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = tuple(_functions.broadcast_shapes(tuple(Lq.shape[:-2]), tuple(Lp.shape[:-2])))
    n = p.event_shape[0]
    term2 = _batch_trace_XXT(linalg.solve_triangular(
        Lq.expand(batch + (n, n)), Lp.expand(batch + (n, n)), upper=False))
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


def _woodbury_A(q):
    # A with inv(q.cov) = inv(qD) - A^T A
    Wt_Dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return linalg.solve_triangular(q._capacitance_tril, Wt_Dinv, upper=False)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                                 d._capacitance_tril)


def _lowrank_mahalanobis(q, x):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                      x, q._capacitance_tril)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    A = _woodbury_A(q)
    pW, pD, qD = (p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag,
                  q._unbroadcasted_cov_diag)
    term2 = ((pD / qD).sum(-1) + _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A * pD.sqrt().unsqueeze(-2))
             - _batch_trace_XXT(A.matmul(pW)))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    Lp = p._unbroadcasted_scale_tril
    term1 = _lowrank_logdet(q) - 2 * Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    A = _woodbury_A(q)
    term2 = (_batch_trace_XXT(Lp * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A.matmul(Lp)))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    Lq = q._unbroadcasted_scale_tril
    term1 = 2 * Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _lowrank_logdet(p)
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    batch = tuple(_functions.broadcast_shapes(tuple(Lq.shape[:-2]),
                                              tuple(p._unbroadcasted_cov_factor.shape[:-2])))
    n = p.event_shape[0]
    L = Lq.expand(batch + (n, n))
    W = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    D = _core.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term2 = (_batch_trace_XXT(linalg.solve_triangular(L, W, upper=False))
             + _batch_trace_XXT(linalg.solve_triangular(L, D, upper=False)))
    return 0.5 * (term1 + term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _core.where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = _core.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - _core.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return _core.where(p.support.lower_bound < q.support.lower_bound, math.inf, result)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + _core.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - _core.log1p(-q.probs)
    return t1 + t2 + t3


# --- different families ----------------------------------------------------------------

@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate = p.rate * q.scale
    loc_scale = q.loc / q.scale
    t1 = scale_rate.log() - 1
    t2 = _core.exp(loc_scale) * scale_rate / (scale_rate + 1)
    return t1 - loc_scale + t2 + scale_rate.reciprocal()


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale = p.loc / q.scale
    var_scale_sq = (p.scale / q.scale).pow(2)
    loc_scale = q.loc / q.scale
    t1 = var_scale_sq.log() * 0.5
    t2 = mean_scale - loc_scale
    t3 = _core.exp(-mean_scale + 0.5 * var_scale_sq + loc_scale)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high_diff = (p.high - q.loc) / q.scale
    low_diff = (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (high_diff + low_diff)
    t2 = common * (_core.exp(-high_diff) - _core.exp(-low_diff))
    return t1 - t2


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p, q):
    return -p.entropy() - _core.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + _core.square(q.loc / q.scale)) + _core.log(q.scale)
    t3 = ((p.variance + _core.square(p.mean) - 2.0 * q.loc * p.mean)
          / (2.0 * _core.square(q.scale)))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return _core.where(outside, math.inf, result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p, q):
    result = -p.entropy() - p.mean * q.logits - _core.log1p(-q.probs) - q._cont_bern_log_norm()
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return _core.where(outside, math.inf, result)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    scale_rate = p.scale * q.rate
    t1 = (p.alpha / scale_rate).log()
    t3 = p.alpha * scale_rate / (p.alpha - 1)
    result = t1 - p.alpha.reciprocal() + t3 - 1
    return _core.where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var_normal = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / var_normal - 1
    return _core.where(p.alpha <= 2, math.inf, result)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_core.xlogy(p.high, p.high) - _core.xlogy(p.low, p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    return _core.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * _core.log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * _core.log(2 * ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    z = loc_diff / p.scale
    t1 = _core.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * _core.exp(-0.5 * z.pow(2))
    t3 = loc_diff * _core.erf(math.sqrt(0.5) * z)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _core.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


# KL(p || q) is infinite where q's support does not cover p's: p's type, the parameter
# giving the result's shape, and the types of q.
_INFINITE_KL = (
    (Gumbel, "loc", (ContinuousBernoulli, Exponential, Uniform)),
    (ContinuousBernoulli, "probs", (Pareto,)),
    (Pareto, "scale", (ContinuousBernoulli, Uniform)),
    (Exponential, "rate", (ContinuousBernoulli, Pareto, Uniform)),
    (Laplace, "loc", (ContinuousBernoulli, Exponential, Pareto, Uniform)),
    (Normal, "loc", (ContinuousBernoulli, Exponential, Pareto, Uniform)),
)


def _kl_infinity(param):
    def kl(p, q):
        return _infinite_like(getattr(p, param))
    return kl


for _type_p, _param, _types_q in _INFINITE_KL:
    _fun = _kl_infinity(_param)  # one function per p type, shared by its q types
    for _type_q in _types_q:
        register_kl(_type_p, _type_q)(_fun)
del _type_p, _param, _types_q, _type_q, _fun
