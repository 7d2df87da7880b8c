"""Random numbers: seeding, Generator objects, factories, in-place samplers.

The PYTORCH_VALUES table was produced by running the same calls under PyTorch 2.15 on
x86-64 and copying its output here; ferric's generator is bit-identical to PyTorch's CPU
generator for these calls (no torch needed to run the tests). Everything else checks
reproducibility, shapes/dtypes, ranges and loose statistics.
"""

import numpy as np
import pytest

import ferric


def seeded(fn, seed=0):
    def run():
        ferric.manual_seed(seed)
        return fn()

    return run


def _view_uniform():
    x = ferric.zeros(2, 3)
    x.t().uniform_()  # fills the storage in memory order, as PyTorch does
    return x


PYTORCH_VALUES = [
    (
        seeded(lambda: ferric.rand(3)),
        [0.49625658988952637, 0.7682217955589294, 0.08847743272781372],
    ),
    (
        seeded(lambda: ferric.randn(3)),
        [1.5409960746765137, -0.293428897857666, -2.1787893772125244],
    ),
    (
        seeded(lambda: ferric.randn(17)),
        [
            -1.1258398294448853,
            -1.6959311962127686,
            0.5666506290435791,
            0.7935083508491516,
            0.5988394618034363,
            -1.5550950765609741,
            -0.3413603901863098,
            1.85300612449646,
            0.46809640526771545,
            -0.5854975581169128,
            -0.1733967512845993,
            0.18347793817520142,
            1.3893661499023438,
            1.586334228515625,
            0.946298360824585,
            -0.843676745891571,
            0.9318265914916992,
        ],
    ),
    (seeded(lambda: ferric.rand(2, dtype=ferric.float64)), [0.9700530018065531, 0.707819864399788]),
    (
        seeded(lambda: ferric.randn(3, dtype=ferric.float64)),
        [1.5409961082440433, -0.2934289057609464, -2.1787893820745574],
    ),
    (seeded(lambda: ferric.randint(0, 10, (8,))), [4, 9, 3, 0, 3, 9, 7, 3]),
    (seeded(lambda: ferric.randperm(8)), [4, 0, 7, 3, 2, 5, 1, 6]),
    # ranges from 2^28 up take 64-bit draws
    (
        seeded(lambda: ferric.randint(0, 2**31, (4,))),
        [398764591, 1478610112, 1537364731, 1491434855],
    ),
    (
        seeded(lambda: ferric.randint(-(2**40), 2**40, (3,))),
        [-358231004625, -593374360384, 291447657211],
    ),
    (
        seeded(lambda: ferric.rand(2, 2), 42),
        [[0.8822692632675171, 0.9150039553642273], [0.38286375999450684, 0.9593056440353394]],
    ),
    (
        seeded(lambda: ferric.bernoulli(ferric.full((10,), 0.5))),
        [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
    ),
    (
        seeded(lambda: ferric.multinomial(ferric.tensor([0.1, 0.2, 0.3, 0.4]), 6, True)),
        [3, 3, 2, 3, 3, 3],
    ),
    (seeded(lambda: ferric.multinomial(ferric.tensor([0.1, 0.2, 0.3, 0.4]), 3)), [2, 1, 3]),
    (
        seeded(lambda: ferric.empty(3).exponential_()),
        [3.508326292037964, 1.2303847074508667, 0.615044116973877],
    ),
    (
        lambda: ferric.rand(3, generator=ferric.Generator().manual_seed(123)),
        [0.29611194133758545, 0.516562283039093, 0.2516707181930542],
    ),
    (
        seeded(_view_uniform),
        [
            [0.49625658988952637, 0.7682217955589294, 0.08847743272781372],
            [0.13203048706054688, 0.30742281675338745, 0.6340786814689636],
        ],
    ),
    (
        seeded(
            lambda: ferric.normal(ferric.tensor([0.0, 10.0, 100.0]), ferric.tensor([1.0, 2.0, 3.0]))
        ),
        [1.5409960746765137, 9.413142204284668, 93.46363067626953],
    ),
    (
        seeded(lambda: ferric.zeros(3).cauchy_(1.5, 0.7)),
        [8.918410301208496, 2.035336971282959, 1.410190463066101],
    ),
    (
        seeded(lambda: ferric.zeros(3).log_normal_()),
        [59.2634162902832, 1.5115599632263184, 0.03481946140527725],
    ),
    (seeded(lambda: ferric.zeros(5, dtype=ferric.int64).geometric_(0.3)), [1, 1, 3, 1, 2]),
    (
        # a step-sliced (non-contiguous) view takes the scalar path with cached pairs
        seeded(lambda: ferric.zeros(4, 5)[:, ::2].normal_()[0]),
        [1.5409960746765137, -0.293428897857666, -2.1787893772125244],
    ),
    (
        seeded(lambda: ferric.get_rng_state()[:24]),
        [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ),
]


@pytest.mark.parametrize("fn,want", PYTORCH_VALUES)
def test_bit_identical_to_pytorch(fn, want):
    assert fn().tolist() == want


FACTORIES = {
    "rand": lambda g: ferric.rand(5, 4, generator=g),
    "randn": lambda g: ferric.randn(5, 4, generator=g),
    "randn_big": lambda g: ferric.randn(1000, generator=g),
    "randint": lambda g: ferric.randint(-3, 9, (7,), generator=g),
    "randperm": lambda g: ferric.randperm(20, generator=g),
    "normal": lambda g: ferric.normal(0.0, 2.0, (6,), generator=g),
    "bernoulli": lambda g: ferric.bernoulli(ferric.full((9,), 0.3), generator=g),
    "multinomial": lambda g: ferric.multinomial(ferric.ones(5), 3, generator=g),
    "uniform_": lambda g: ferric.zeros(6).uniform_(2, 3, generator=g),
    "normal_": lambda g: ferric.zeros(6).normal_(generator=g),
    "exponential_": lambda g: ferric.zeros(6).exponential_(generator=g),
    "random_": lambda g: ferric.zeros(6, dtype=ferric.int64).random_(0, 100, generator=g),
    "cauchy_": lambda g: ferric.zeros(6).cauchy_(generator=g),
    "log_normal_": lambda g: ferric.zeros(6).log_normal_(generator=g),
    "geometric_": lambda g: ferric.zeros(6).geometric_(0.5, generator=g),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_reproducible_with_seed_and_generator(name):
    make = FACTORIES[name]
    ferric.manual_seed(7)
    a = make(None).tolist()
    ferric.manual_seed(7)
    assert make(None).tolist() == a
    # an explicit generator with the same seed gives the same stream...
    assert make(ferric.Generator().manual_seed(7)).tolist() == a
    # ...and does not consume the default generator
    ferric.manual_seed(7)
    make(ferric.Generator().manual_seed(99))
    assert make(None).tolist() == a


def test_generator_api():
    g = ferric.Generator()
    assert g.device == ferric.device("cpu") and g.device.type == "cpu"
    assert g.initial_seed() == 67280421310721
    assert g.manual_seed(5) is g
    assert g.initial_seed() == 5
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert ferric.manual_seed(3) is ferric.default_generator
    assert ferric.initial_seed() == 3
    assert isinstance(ferric.seed(), int)
    ferric.manual_seed(-1)
    assert ferric.initial_seed() == 2**64 - 1
    with pytest.raises(ValueError):
        ferric.manual_seed(2**64)
    with pytest.raises(TypeError):
        ferric.rand(3, generator=5)


def test_state_round_trip_and_normal_cache():
    for state_of, set_state in [
        (ferric.get_rng_state, ferric.set_rng_state),
        (ferric.default_generator.get_state, ferric.default_generator.set_state),
    ]:
        ferric.manual_seed(11)
        ferric.randn(3)  # leaves a cached normal sample, which is part of the state
        s = state_of()
        assert s.dtype == ferric.int64 and tuple(s.shape) == (5056,)
        a = ferric.randn(5).tolist()
        set_state(s)
        assert ferric.randn(5).tolist() == a
        set_state(bytes(s.tolist()))
        assert ferric.randn(5).tolist() == a
    with pytest.raises(RuntimeError, match="size 5056"):
        ferric.set_rng_state(ferric.zeros(10, dtype=ferric.int64))
    with pytest.raises(TypeError):
        ferric.set_rng_state(ferric.zeros(5056))


@pytest.mark.parametrize(
    "call,shape",
    [
        (lambda: ferric.rand(2, 3), (2, 3)),
        (lambda: ferric.rand((2, 3)), (2, 3)),
        (lambda: ferric.rand([2, 3]), (2, 3)),
        (lambda: ferric.rand(size=(4,)), (4,)),
        (lambda: ferric.randn(()), ()),
        (lambda: ferric.rand(0, 3), (0, 3)),
        (lambda: ferric.randint(5, (2, 2)), (2, 2)),
        (lambda: ferric.randint(low=1, high=5, size=(3,)), (3,)),
        (lambda: ferric.randperm(0), (0,)),
        (lambda: ferric.normal(ferric.zeros(2, 1), ferric.ones(3)), (2, 3)),
        (lambda: ferric.rand_like(ferric.zeros(3, 2)), (3, 2)),
        (lambda: ferric.randint_like(ferric.zeros(4), 10), (4,)),
        (lambda: ferric.multinomial(ferric.ones(3, 4), 2), (3, 2)),
        (lambda: ferric.multinomial(ferric.ones(4), 1), (1,)),
    ],
)
def test_shapes(call, shape):
    assert tuple(call().shape) == shape


def test_dtypes_and_requires_grad():
    assert ferric.rand(2).dtype == ferric.float32
    assert ferric.rand(2, dtype=ferric.float64).dtype == ferric.float64
    assert ferric.randn(2, dtype=ferric.float64).dtype == ferric.float64
    assert ferric.randint(0, 3, (2,)).dtype == ferric.int64
    assert ferric.randint(0, 3, (2,), dtype=ferric.float32).dtype == ferric.float32
    assert ferric.randint(0, 2, (5,), dtype=ferric.bool).dtype == ferric.bool
    assert ferric.randperm(4).dtype == ferric.int64
    assert ferric.randperm(4, dtype=ferric.float64).dtype == ferric.float64
    assert ferric.randn_like(ferric.zeros(2, dtype=ferric.float64)).dtype == ferric.float64
    assert (
        ferric.normal(ferric.zeros(2, dtype=ferric.float64), ferric.ones(2)).dtype == ferric.float64
    )
    assert ferric.normal(1.0, ferric.ones(2, dtype=ferric.float64)).dtype == ferric.float64
    assert ferric.bernoulli(ferric.rand(3, dtype=ferric.float64)).dtype == ferric.float64
    assert ferric.randn(3, requires_grad=True).requires_grad
    assert ferric.rand(3, requires_grad=True).requires_grad


def test_ranges():
    ferric.manual_seed(1)
    u = ferric.rand(10000).numpy()
    assert u.min() >= 0 and u.max() < 1
    u = ferric.zeros(10000, dtype=ferric.float64).uniform_(-2, 5).numpy()
    assert u.min() >= -2 and u.max() < 5
    r = ferric.randint(-3, 4, (10000,)).numpy()
    assert set(np.unique(r)) == set(range(-3, 4))
    r = ferric.randint(2**40, 2**40 + 5, (1000,)).numpy()
    assert r.min() >= 2**40 and r.max() < 2**40 + 5
    r = ferric.zeros(1000, dtype=ferric.int64).random_(5, None).numpy()
    assert r.min() >= 5
    b = ferric.zeros(1000, dtype=ferric.bool).random_().numpy()
    assert b.any() and not b.all()
    p = ferric.randperm(100).numpy()
    assert sorted(p.tolist()) == list(range(100))
    e = ferric.zeros(1000).exponential_(3.0).numpy()
    assert e.min() >= 0
    m = ferric.multinomial(ferric.tensor([0.0, 1.0, 0.0, 2.0]), 2).numpy()
    assert sorted(m.tolist()) == [1, 3]


@pytest.mark.parametrize(
    "n,dtype", [(100000, "float32"), (5, "float32"), (100000, "float64"), (9999, "float32")]
)
def test_normal_statistics(n, dtype):
    ferric.manual_seed(2)
    x = np.concatenate(
        [ferric.randn(n, dtype=getattr(ferric, dtype)).numpy() for _ in range(max(1, 20000 // n))]
    )
    assert abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05
    y = ferric.normal(3.0, 0.5, (50000,)).numpy()
    assert abs(y.mean() - 3) < 0.02 and abs(y.std() - 0.5) < 0.02


def test_other_statistics():
    ferric.manual_seed(3)
    u = ferric.rand(100000).numpy()
    assert abs(u.mean() - 0.5) < 0.01
    b = ferric.zeros(100000).bernoulli_(0.3).numpy()
    assert abs(b.mean() - 0.3) < 0.01
    e = ferric.zeros(100000, dtype=ferric.float64).exponential_(2.0).numpy()
    assert abs(e.mean() - 0.5) < 0.01
    m = ferric.multinomial(ferric.tensor([1.0, 2.0, 7.0]), 100000, True).numpy()
    freq = np.bincount(m, minlength=3) / len(m)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.01)
    p = ferric.bernoulli(ferric.tensor([0.0, 1.0]).expand(50000, 2)).numpy()
    assert p[:, 0].sum() == 0 and p[:, 1].sum() == 50000


@pytest.mark.parametrize(
    "method,args",
    [
        ("uniform_", ()),
        ("normal_", ()),
        ("bernoulli_", (0.5,)),
        ("exponential_", ()),
        ("random_", (1, 9)),
        ("cauchy_", ()),
        ("log_normal_", ()),
        ("geometric_", (0.5,)),
    ],
)
def test_inplace_on_views(method, args):
    base = ferric.zeros(6, 8)
    view = base[::2, 1::3]  # a step-sliced view: only its elements may change
    out = getattr(view, method)(*args)
    assert out is view
    b = base.numpy()
    mask = np.zeros((6, 8), bool)
    mask[::2, 1::3] = True
    assert (b[~mask] == 0).all()
    if method != "bernoulli_":
        assert (b[mask] != 0).all()
    t = ferric.zeros(4, 5).t()  # transposed: sampled in memory order
    getattr(t, method)(*args)
    assert tuple(t.shape) == (5, 4)


def test_inplace_samplers_keep_dtype():
    for d in [ferric.float32, ferric.float64]:
        assert ferric.zeros(3, dtype=d).uniform_().dtype == d
        assert ferric.zeros(30, dtype=d).normal_().dtype == d
    x = ferric.zeros(20, dtype=ferric.int64).bernoulli_(0.5)
    assert x.dtype == ferric.int64 and set(x.tolist()) <= {0, 1}


def _t(*s, dtype="float32"):
    return ferric.zeros(*s, dtype=getattr(ferric, dtype))


ERRORS = [
    (
        lambda: _t(3, dtype="int64").uniform_(),
        NotImplementedError,
        "\"check_uniform_bounds\" not implemented for 'Long'",
    ),
    (
        lambda: _t(3).uniform_(2, 1),
        RuntimeError,
        "uniform_ expects to return a [from, to) range, but found from=2 > to=1",
    ),
    (lambda: _t(3).uniform_(0, float("inf")), RuntimeError, "to is out of bounds for float"),
    (lambda: _t(3).normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (
        lambda: ferric.randn(3, dtype=ferric.int64),
        NotImplementedError,
        "\"normal_kernel_cpu\" not implemented for 'Long'",
    ),
    (
        lambda: ferric.rand(-1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1]",
    ),
    (
        lambda: ferric.randint(5, 3, (2,)),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=5 >= to=3",
    ),
    (
        lambda: ferric.randint(0, 3, (3,), dtype=ferric.bool),
        RuntimeError,
        "to - 1 is out of bounds for bool",
    ),
    (
        lambda: ferric.randint(5),
        TypeError,
        "randint() received an invalid combination of arguments",
    ),
    (
        lambda: ferric.randint(0, 5, 3),
        TypeError,
        "randint() received an invalid combination of arguments",
    ),
    (
        lambda: _t(3).bernoulli_(1.5),
        RuntimeError,
        "bernoulli_ expects p to be in [0, 1], but got p=1.5",
    ),
    (
        lambda: ferric.bernoulli(ferric.tensor([0.5, 1.5])),
        RuntimeError,
        "Expected p_in >= 0 && p_in <= 1 to be true, but got false.",
    ),
    (
        lambda: ferric.bernoulli(ferric.tensor([0, 1])),
        NotImplementedError,
        "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'",
    ),
    (
        lambda: _t(3).bernoulli_(ferric.tensor([0.1, 0.5])),
        RuntimeError,
        "The expanded size of the tensor (3) must match the existing size (2)",
    ),
    (
        lambda: _t(3).exponential_(-1),
        RuntimeError,
        "exponential_ expects lambda > 0.0, but found lambda=-1",
    ),
    (
        lambda: _t(3, dtype="int64").exponential_(),
        RuntimeError,
        "Exponential distribution is a continuous probability distribution. dtype must be a "
        "floating point but you specified Long",
    ),
    (
        lambda: _t(3).cauchy_(0, -1),
        RuntimeError,
        "cauchy_ expects sigma > 0.0, but found sigma=-1",
    ),
    (
        lambda: _t(3).log_normal_(0, 0),
        RuntimeError,
        "log_normal_ expects std > 0.0, but found std=0",
    ),
    (
        lambda: _t(3).geometric_(1.0),
        RuntimeError,
        "geometric_ expects p to be in (0, 1), but got p=1",
    ),
    (
        lambda: ferric.randperm(-1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1",
    ),
    (
        lambda: ferric.randperm(2, dtype=ferric.bool),
        NotImplementedError,
        "\"randperm\" not implemented for 'Bool'",
    ),
    (
        lambda: ferric.multinomial(ferric.ones(2, 2, 2), 1),
        RuntimeError,
        "prob_dist must be 1 or 2 dim",
    ),
    (
        lambda: ferric.multinomial(ferric.ones(3, dtype=ferric.int64), 1),
        RuntimeError,
        "multinomial only supports floating-point dtypes for input, got: Long",
    ),
    (
        lambda: ferric.multinomial(ferric.ones(3), 0),
        RuntimeError,
        "cannot sample n_sample <= 0 samples",
    ),
    (
        lambda: ferric.multinomial(ferric.ones(3), 4),
        RuntimeError,
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
    ),
    (
        lambda: ferric.multinomial(ferric.tensor([0.5, -1.0]), 1),
        RuntimeError,
        "probability tensor contains either `inf`, `nan` or element < 0",
    ),
    (
        lambda: ferric.multinomial(ferric.tensor([0.5, -1.0]), 2, True),
        RuntimeError,
        "invalid multinomial distribution (encountering probability entry < 0)",
    ),
    (
        lambda: ferric.multinomial(ferric.zeros(3), 2, True),
        RuntimeError,
        "invalid multinomial distribution (sum of probabilities <= 0)",
    ),
    (
        lambda: ferric.normal(ferric.zeros(3), ferric.tensor([1.0, -1.0, 1.0])),
        RuntimeError,
        "normal expects all elements of std >= 0.0",
    ),
    (
        lambda: ferric.normal(0.0, -1.0, (3,)),
        RuntimeError,
        "normal expects std >= 0.0, but found std -1",
    ),
    (
        lambda: ferric.normal(0.0, 1.0),
        TypeError,
        "normal() received an invalid combination of arguments",
    ),
    (
        lambda: ferric.normal(ferric.zeros(2), ferric.ones(3)),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    (lambda: ferric.zeros(2, 3).expand(4, 2, 3).normal_(), RuntimeError, "more than one element"),
]


@pytest.mark.parametrize("fn,exc,msg", ERRORS)
def test_errors(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn()
    assert msg in str(info.value)


def test_failed_sampler_leaves_tensor_unchanged():
    x = ferric.ones(4)
    with pytest.raises(RuntimeError):
        x.uniform_(3, 1)
    with pytest.raises(RuntimeError):
        x.bernoulli_(ferric.tensor([0.5, 0.5, 2.0, 0.5]))
    assert x.tolist() == [1.0, 1.0, 1.0, 1.0]
