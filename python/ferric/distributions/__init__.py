"""Probability distributions with PyTorch's ``torch.distributions`` API: parameterised
``Distribution`` objects with ``sample``/``rsample`` (drawing PyTorch's random streams,
so a seed gives PyTorch's samples), ``log_prob``, ``entropy``, moments, ``cdf``/``icdf``,
argument validation with PyTorch's messages, and ``kl_divergence`` between pairs.
Everything is built on ferric tensor ops, so autograd flows through ``rsample``,
``log_prob``, ``entropy`` and ``kl_divergence`` (see ``docs/distributions.md``).
"""

from __future__ import annotations

from . import constraints, transforms
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Categorical", "Cauchy", "ComposeTransform",
    "ContinuousBernoulli", "Distribution", "ExpTransform", "Exponential", "ExponentialFamily",
    "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform",
    "Kumaraswamy", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal",
    "LowerCholeskyTransform", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto",
    "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
    "StickBreakingTransform", "TanhTransform", "Transform", "TransformedDistribution",
    "Uniform", "VonMises", "Weibull", "biject_to", "constraints", "identity_transform",
    "kl_divergence",
    "register_kl", "transform_to", "transforms",
]
