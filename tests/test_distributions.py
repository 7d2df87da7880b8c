"""``ferric.distributions`` replayed against PyTorch 2.13's recorded behaviour
(``tests/fixtures/distributions``): moments, entropies, ``log_prob``/``cdf``/``icdf``
values, samples after ``manual_seed`` (ferric draws PyTorch's streams, so they are equal),
batch/event/sample shapes with broadcasting and ``expand``, KL divergences, reprs and the
exceptions of argument validation. Then gradients: ``gradcheck`` in float64 through
``rsample`` (fixed seed), ``log_prob``, ``entropy``, ``cdf`` and ``kl_divergence``.
"""

from __future__ import annotations

import math

import pytest
from fixture_loader import Recording
from nn_helpers import WrongGradient

import ferric
import ferric.distributions as D
from ferric.autograd import gradcheck
from ferric.autograd.gradcheck import GradcheckError

RECORDING = Recording("distributions", "distributions_cases", "distributions.json")
CASES, RECORDED = RECORDING.cases, RECORDING.recorded

# same exception type, ferric's message differs (PyTorch's is an accident of its code)
MESSAGE_DIFFERS = {
    # PyTorch's check calls issubclass on the non-class and fails inside it
    "error/register_kl_not_a_type",
    # PyTorch's message carries the indentation of a backslash-continued string
    "kl/bernoulli_normal_cross_family",
    "kl/lowrank_event_mismatch",
}


def _same(got, want, tol: float, path: str = "r") -> None:
    if isinstance(want, dict) and "values" in want:
        assert isinstance(got, dict) and "values" in got, f"{path}: {got!r} vs a tensor"
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), path
        assert got["requires_grad"] == want["requires_grad"], path
        for i, (g, w) in enumerate(zip(got["values"], want["values"], strict=True)):
            if isinstance(w, str):  # nan / inf / -inf
                assert g == w, f"{path}[{i}]: {g} vs {w}"
            else:
                assert not isinstance(g, str) and math.isclose(g, w, rel_tol=tol,
                                                               abs_tol=tol), \
                    f"{path}[{i}]: {g} vs {w}"
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, tol, f"{path}[{i}]")
    elif isinstance(want, float):
        assert isinstance(got, float) and math.isclose(got, want, rel_tol=tol), path
    else:
        assert got == want, f"{path}: {got!r} vs {want!r}"

# PyTorch raises where ferric answers: Multinomial.expand() drops the private Binomial
# that PyTorch's entropy() reads (AttributeError); ferric's entropy needs none.
# test_multinomial_expanded_entropy checks ferric's answer instead.
PYTORCH_RAISES = {"multinomial/expand", "multinomial_logits/expand",
                  "multinomial_zero_prob/expand"}


def test_fixture_is_pytorch_2_13():
    RECORDING.check_complete()


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name, recwarn):
    want, got = RECORDING.replay(name, ferric)
    if name in PYTORCH_RAISES:
        assert want["error"][0] == "AttributeError" and "error" not in got
        return
    if name in MESSAGE_DIFFERS:
        assert got["error"][0] == want["error"][0]
    else:
        assert got.get("error") == want.get("error")
    if "result" in want:
        _same(got["result"], want["result"], 1e-5)


def test_the_comparison_can_fail():
    want = RECORDED["normal_batch/log_prob"]["result"]
    bad = dict(want, values=[v + 1e-3 for v in want["values"]])
    with pytest.raises(AssertionError):
        _same(bad, want, 1e-5)


# --- gradients -------------------------------------------------------------------------

def _t(values, requires_grad=True):
    return ferric.tensor(values, dtype=ferric.float64, requires_grad=requires_grad)


def _seeded(fn):
    """``fn`` with the generator reset before each call, so rsample's noise is fixed
    across gradcheck's perturbed evaluations."""
    def run(*args):
        ferric.manual_seed(0)
        return fn(*args)
    return run


SPD = [[2.0, 0.5, 0.1], [0.5, 1.5, -0.2], [0.1, -0.2, 1.0]]
TRIL = [[1.0, 0.0], [0.4, 1.5]]
X2 = [[0.3, -0.7], [1.2, 0.4]]

GRAD_CASES = {
    "normal_rsample": (_seeded(lambda m, s: D.Normal(m, s).rsample((3,))),
                       [_t([0.5, -1.0]), _t([1.0, 2.0])]),
    "normal_log_prob": (lambda m, s, x: D.Normal(m, s).log_prob(x),
                        [_t([0.5, -1.0]), _t([1.0, 2.0]), _t([0.2, 0.1])]),
    "normal_cdf": (lambda m, s, x: D.Normal(m, s).cdf(x),
                   [_t([0.5, -1.0]), _t([1.0, 2.0]), _t([0.2, 0.1])]),
    "normal_icdf": (lambda m, s, q: D.Normal(m, s).icdf(q),
                    [_t([0.5, -1.0]), _t([1.0, 2.0]), _t([0.2, 0.7])]),
    "normal_entropy": (lambda s: D.Normal(0.0, s).entropy(), [_t([1.0, 0.3])]),
    "normal_kl": (lambda m1, s1, m2, s2: D.kl_divergence(D.Normal(m1, s1), D.Normal(m2, s2)),
                  [_t([0.5, -1.0]), _t([1.0, 2.0]), _t([0.0, 0.3]), _t([0.7, 1.1])]),
    "laplace_rsample": (_seeded(lambda m, s: D.Laplace(m, s).rsample((3,))),
                        [_t([0.5, -1.0]), _t([1.0, 2.0])]),
    "laplace_log_prob": (lambda m, s, x: D.Laplace(m, s).log_prob(x),
                         [_t([0.5, -1.0]), _t([1.0, 2.0]), _t([0.2, 0.1])]),
    "laplace_kl": (lambda m1, s1, m2, s2: D.kl_divergence(D.Laplace(m1, s1),
                                                          D.Laplace(m2, s2)),
                   [_t([0.5, -1.0]), _t([1.0, 2.0]), _t([0.0, 0.3]), _t([0.7, 1.1])]),
    "exponential_rsample": (_seeded(lambda r: D.Exponential(r).rsample((2,))),
                            [_t([0.5, 2.0])]),
    "exponential_log_prob_kl": (lambda r, q: D.Exponential(r).log_prob(_t([0.5, 1.0], False))
                                + D.kl_divergence(D.Exponential(r), D.Exponential(q)),
                                [_t([0.5, 2.0]), _t([1.0, 0.7])]),
    "uniform_rsample": (_seeded(lambda lo, hi: D.Uniform(lo, hi).rsample((2,))),
                        [_t([0.0, -1.0]), _t([1.0, 2.0])]),
    "uniform_entropy_kl": (lambda lo, hi: D.Uniform(lo, hi).entropy()
                           + D.kl_divergence(D.Uniform(lo, hi), D.Normal(0.0, 1.0)),
                           [_t([0.0, -1.0]), _t([1.0, 2.0])]),
    "lognormal_rsample": (_seeded(lambda m, s: D.LogNormal(m, s).rsample((2,))),
                          [_t([0.1, -0.5]), _t([0.5, 0.3])]),
    "lognormal_log_prob": (lambda m, s: D.LogNormal(m, s).log_prob(_t([0.5, 2.0], False)),
                           [_t([0.1, -0.5]), _t([0.5, 0.3])]),
    "bernoulli_log_prob_entropy": (lambda lg: D.Bernoulli(logits=lg).log_prob(
        _t([1.0, 0.0], False)) + D.Bernoulli(logits=lg).entropy(), [_t([0.3, -1.2])]),
    "bernoulli_kl_probs": (lambda p, q: D.kl_divergence(D.Bernoulli(p), D.Bernoulli(q)),
                           [_t([0.3, 0.6]), _t([0.5, 0.2])]),
    "categorical_log_prob_entropy": (lambda lg: D.Categorical(logits=lg).log_prob(
        ferric.tensor([2, 0])) + D.Categorical(logits=lg).entropy(),
        [_t([[0.1, 0.5, -0.3], [1.0, 0.0, 0.2]])]),
    "categorical_kl": (lambda p, q: D.kl_divergence(D.Categorical(p), D.Categorical(q)),
                       [_t([0.2, 0.3, 0.5]), _t([0.4, 0.4, 0.2])]),
    "mvn_rsample": (_seeded(lambda m, L: D.MultivariateNormal(m, scale_tril=L.tril())
                            .rsample((2,))), [_t([0.5, -1.0]), _t(TRIL)]),
    "mvn_log_prob_cov": (lambda m, c: D.MultivariateNormal(m, (c + c.mT) / 2).log_prob(
        _t([[0.5, 0.1, -0.2], [1.0, 1.0, 1.0]], False)), [_t([0.5, -1.0, 0.0]), _t(SPD)]),
    "mvn_log_prob_precision": (lambda c: D.MultivariateNormal(
        ferric.zeros(3, dtype=ferric.float64), precision_matrix=(c + c.mT) / 2).log_prob(
        _t([0.5, 0.1, -0.2], False)), [_t(SPD)]),
    "mvn_entropy": (lambda L: D.MultivariateNormal(ferric.zeros(2, dtype=ferric.float64),
                                                   scale_tril=L.tril()).entropy(), [_t(TRIL)]),
    "mvn_kl": (lambda m, L, x: D.kl_divergence(
        D.MultivariateNormal(m, scale_tril=L.tril()),
        D.MultivariateNormal(ferric.zeros(2, dtype=ferric.float64), (x @ x.mT) + 0.5
                             * ferric.eye(2, dtype=ferric.float64))),
        [_t([0.5, -1.0]), _t(TRIL), _t(X2)]),
    "cauchy_rsample_log_prob": (_seeded(lambda m, s: D.Cauchy(m, s).log_prob(
        D.Cauchy(m, s).rsample((2,)))), [_t([0.5, -1.0]), _t([1.0, 2.0])]),
    "gumbel_rsample": (_seeded(lambda m, s: D.Gumbel(m, s).rsample((2,))),
                       [_t([0.5, -1.0]), _t([1.0, 2.0])]),
    "gumbel_log_prob_kl": (lambda m, s: D.Gumbel(m, s).log_prob(_t([0.3, 0.1], False))
                           + D.kl_divergence(D.Gumbel(m, s), D.Normal(0.0, 1.0)),
                           [_t([0.5, -1.0]), _t([1.0, 2.0])]),
    "halfnormal_rsample_log_prob": (_seeded(lambda s: D.HalfNormal(s).rsample((2,))
                                            + D.HalfNormal(s).log_prob(_t([0.5, 1.0], False))),
                                    [_t([1.0, 2.0])]),
    "tanh_normal_rsample_log_prob": (_seeded(lambda m, s: (lambda d: d.log_prob(d.rsample()))(
        D.TransformedDistribution(D.Normal(m, s), [D.transforms.TanhTransform(cache_size=1)]))),
        [_t([0.5, -1.0]), _t([1.0, 0.7])]),
    "geometric_log_prob_entropy": (lambda p: D.Geometric(p).log_prob(_t([2.0, 0.0], False))
                                   + D.Geometric(p).entropy(), [_t([0.3, 0.6])]),
    "mixture_log_prob": (lambda lg, m: D.MixtureSameFamily(D.Categorical(logits=lg), D.Normal(
        m, 1.0)).log_prob(_t([[0.5], [-0.3]], False)), [_t([0.2, -0.4]), _t([-1.0, 1.0])]),
    "lowrank_rsample_log_prob": (_seeded(lambda m, W, d: (lambda dist: dist.log_prob(
        dist.rsample((2,))))(D.LowRankMultivariateNormal(m, W, d))),
        [_t([0.5, -1.0, 0.0]), _t([[1.0, 0.2], [0.5, -0.3], [0.0, 1.0]]), _t([0.5, 1.0, 2.0])]),
    "lowrank_kl": (lambda W, d, L: D.kl_divergence(
        D.LowRankMultivariateNormal(ferric.zeros(2, dtype=ferric.float64), W, d),
        D.MultivariateNormal(ferric.ones(2, dtype=ferric.float64), scale_tril=L.tril()))
        + D.kl_divergence(D.MultivariateNormal(ferric.ones(2, dtype=ferric.float64),
                                               scale_tril=L.tril()),
                          D.LowRankMultivariateNormal(ferric.zeros(2, dtype=ferric.float64),
                                                      W, d)),
        [_t([[1.0], [0.5]]), _t([0.5, 1.0]), _t(TRIL)]),
    "kumaraswamy_rsample_log_prob": (_seeded(lambda a, b: (lambda d: d.log_prob(d.rsample()))(
        D.Kumaraswamy(a, b))), [_t([0.7, 2.0]), _t([1.5, 3.0])]),
    "logistic_normal_rsample_log_prob": (_seeded(lambda m, s: (lambda d: d.log_prob(
        d.rsample()))(D.LogisticNormal(m, s))), [_t([0.3, -0.2]), _t([1.0, 0.5])]),
    "continuous_bernoulli": (_seeded(lambda p: (lambda d: d.log_prob(d.rsample()) + d.entropy()
                                                 + d.mean)(D.ContinuousBernoulli(p))),
                             [_t([0.2, 0.7, 0.95])]),
    "von_mises_log_prob": (lambda m, k: D.VonMises(m, k).log_prob(_t([0.3, 2.0, -3.0], False))
                           + D.VonMises(m, k).variance, [_t([0.0, 1.0, -2.0]),
                                                         _t([0.5, 4.0, 2.0])]),
    "independent_log_prob": (lambda m: D.Independent(D.Normal(m, 1.0), 1).log_prob(
        _t([[0.1, 0.2]], False)), [_t([[0.5, -1.0], [0.0, 1.0]])]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck(name):
    fn, inputs = GRAD_CASES[name]
    assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5)


def test_gradcheck_sees_a_wrong_gradient():
    with pytest.raises(GradcheckError):
        gradcheck(lambda s: D.Normal(0.0, WrongGradient.apply(s)).entropy(), (_t([1.0, 2.0]),),
                  eps=1e-6, atol=1e-5)


# --- shapes, table-driven --------------------------------------------------------------

SHAPE_CASES = [
    # (constructor, sample_shape, batch_shape, event_shape)
    (lambda: D.Normal(ferric.zeros(2, 1), ferric.ones(3)), (4,), (2, 3), ()),
    (lambda: D.Normal(0.0, 1.0), (), (), ()),
    (lambda: D.Normal(0.0, 1.0).expand((2, 2)), (1, 3), (2, 2), ()),
    (lambda: D.Categorical(ferric.ones(5, 2, 4)), (3,), (5, 2), ()),
    (lambda: D.OneHotCategorical(ferric.ones(5, 4)), (3,), (5,), (4,)),
    (lambda: D.Independent(D.Normal(ferric.zeros(5, 2, 3), 1.0), 2), (6,), (5,), (2, 3)),
    (lambda: D.MultivariateNormal(ferric.zeros(4, 1, 3), ferric.eye(3).expand(2, 3, 3)),
     (2,), (4, 2), (3,)),
    (lambda: D.MultivariateNormal(ferric.zeros(3), scale_tril=ferric.eye(3)).expand((2,)),
     (), (2,), (3,)),
    (lambda: D.LogNormal(ferric.zeros(2), 1.0), (3,), (2,), ()),
    (lambda: D.Bernoulli(ferric.full((2, 3), 0.5)).expand((4, 2, 3)), (), (4, 2, 3), ()),
    (lambda: D.Uniform(ferric.zeros(0), 1.0), (2,), (0,), ()),
]


@pytest.mark.parametrize("i", range(len(SHAPE_CASES)))
def test_shapes(i):
    make, sample_shape, batch, event = SHAPE_CASES[i]
    d = make()
    assert (tuple(d.batch_shape), tuple(d.event_shape)) == (batch, event)
    x = d.sample(sample_shape)
    assert tuple(x.shape) == tuple(sample_shape) + batch + event
    assert tuple(d.log_prob(x).shape) == tuple(sample_shape) + batch
    if d.has_rsample:
        assert tuple(d.rsample(sample_shape).shape) == tuple(sample_shape) + batch + event


def test_kl_unregistered_pair_raises():
    with pytest.raises(NotImplementedError, match="p type Categorical and q type Normal"):
        D.kl_divergence(D.Categorical(ferric.ones(2)), D.Normal(0.0, 1.0))


def test_register_kl_most_specific_wins_and_ambiguity_warns():
    class A(D.Normal):
        pass

    class B(A):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: ferric.tensor(1.0))
    D.register_kl(D.Normal, B)(lambda p, q: ferric.tensor(2.0))
    try:
        assert D.kl_divergence(A(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 1.0
        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    finally:
        from ferric.distributions import kl

        del kl._KL_REGISTRY[A, D.Normal], kl._KL_REGISTRY[D.Normal, B]
        kl._KL_MEMOIZE.clear()


def test_failed_construction_leaves_arguments_unchanged():
    scale = ferric.tensor([1.0, -1.0])
    with pytest.raises(ValueError):
        D.Normal(0.0, scale)
    assert scale.tolist() == [1.0, -1.0]


def test_multinomial_expanded_entropy():
    m = D.Multinomial(5, ferric.tensor([[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]]))
    want = RECORDED["multinomial/entropy"]["result"]["values"]
    got = m.expand((4, 2)).entropy()
    assert got.shape == (4, 2)
    for row in got.tolist():
        assert row == pytest.approx(want, rel=1e-5)
