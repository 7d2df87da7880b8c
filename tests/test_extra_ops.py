"""The issue-15 breadth names (docs/extra_ops.md): script boilerplate (constants, flags,
``asarray``/``frombuffer``), shape/array helpers, PyTorch's top-level spellings of
functional ops, the top-level in-place forms and ``ferric.random``.

Values, dtypes, exception types and warnings are compared with PyTorch 2.13's, recorded
in ``fixtures/extra_ops/extra_ops.json`` by ``fixtures/extra_ops/generate.py``; the
numerical helpers are checked against NumPy on the layouts of ``tests/layouts.py`` and
the differentiable ones pass ``gradcheck`` in float64.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _fixture_compare import assert_same_case
from fixture_loader import Recording
from layouts import variants

import ferric
from ferric.autograd import gradcheck

RECORDING = Recording("extra_ops", "extra_ops_cases", "extra_ops.json")
CASES = RECORDING.cases


def test_fixture_is_from_pytorch_2_13_and_matches_the_cases():
    RECORDING.check_complete()


@pytest.fixture(autouse=True)
def _restore_global_state():
    yield
    ferric.set_default_dtype(ferric.float32)
    ferric.use_deterministic_algorithms(False)
    ferric.set_float32_matmul_precision("highest")
    ferric.set_warn_always(False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    assert_same_case(*RECORDING.replay(name, ferric), name)


# ----------------------------------------------------------- NumPy on every layout
RNG = np.random.default_rng(15)
M = RNG.uniform(-2, 2, (4, 5))


def _np_trapz(y, x=None, dx=1.0, axis=-1):
    return np.trapezoid(y, x=x, dx=dx, axis=axis) if hasattr(np, "trapezoid") \
        else np.trapz(y, x=x, dx=dx, axis=axis)


def _np_cumtrapz(y, axis=-1):
    y = np.moveaxis(y, axis, -1)
    out = np.cumsum((y[..., 1:] + y[..., :-1]) / 2, axis=-1)
    return np.moveaxis(out, -1, axis)


NUMPY_TABLE = [
    ("trapezoid", lambda t: ferric.trapezoid(t), lambda a: _np_trapz(a)),
    ("trapezoid dim0 dx", lambda t: ferric.trapezoid(t, dx=0.5, dim=0),
     lambda a: _np_trapz(a, dx=0.5, axis=0)),
    ("cumulative_trapezoid", lambda t: ferric.cumulative_trapezoid(t),
     lambda a: _np_cumtrapz(a)),
    ("cov", lambda t: ferric.cov(t), lambda a: np.cov(a)),
    ("cov correction=0", lambda t: ferric.cov(t, correction=0), lambda a: np.cov(a, ddof=0)),
    ("corrcoef", lambda t: ferric.corrcoef(t), lambda a: np.corrcoef(a)),
    ("diagflat", lambda t: ferric.diagflat(t, 1), lambda a: np.diagflat(a, 1)),
    ("atleast_3d", lambda t: ferric.atleast_3d(t), lambda a: np.atleast_3d(a)),
    ("hsplit", lambda t: ferric.hsplit(t, [1, 3])[1], lambda a: np.hsplit(a, [1, 3])[1]),
    ("vsplit", lambda t: ferric.vsplit(t, [2])[0], lambda a: np.vsplit(a, [2])[0]),
    ("isin", lambda t: ferric.isin(t.round(), ferric.tensor([0.0, 1.0])),
     lambda a: np.isin(np.round(a), [0.0, 1.0])),
    ("dist", lambda t: ferric.dist(t, ferric.zeros(()), 3),
     lambda a: np.sum(np.abs(a) ** 3) ** (1 / 3)),
    ("rsub", lambda t: ferric.rsub(t, 2.0, alpha=3), lambda a: 2.0 - 3 * a),
    ("adjoint", lambda t: ferric.adjoint(t), lambda a: np.swapaxes(a, -1, -2)),
]


def _numpy_cases():
    for name, fn, ref in NUMPY_TABLE:
        for kind, t, a in variants(M):
            if a.ndim < 2 and name in ("vsplit", "adjoint", "hsplit"):
                continue
            if a.size == 0 and name in ("cov", "corrcoef"):
                continue  # NumPy warns and returns NaN; PyTorch's are covered by the fixture
            yield pytest.param(fn, ref, t, a, id=f"{name}-{kind}")


@pytest.mark.parametrize("fn, ref, t, a", list(_numpy_cases()))
def test_against_numpy(fn, ref, t, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(ref(a))
    got = fn(t)
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3), (6,), (2, 0), (3, 1, 2)])
def test_unravel_index_matches_numpy(shape):
    n = int(np.prod(shape))
    flat = np.arange(n).reshape(-1)
    got = ferric.unravel_index(ferric.tensor(flat), shape)
    want = np.unravel_index(flat, shape)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w)


@pytest.mark.parametrize("n, increasing", [(None, False), (4, True), (1, False)])
def test_vander_matches_numpy(n, increasing):
    x = np.array([0.5, -2.0, 3.0])
    got = ferric.vander(ferric.tensor(x, dtype=ferric.float64), n, increasing)
    np.testing.assert_allclose(got.numpy(), np.vander(x, n, increasing))


# ------------------------------------------------------------------- gradcheck
def _leaf(*shape):
    return ferric.tensor(RNG.uniform(0.2, 1.0, shape), dtype=ferric.float64,
                         requires_grad=True)


GRAD_TABLE = [
    ("trapezoid x", lambda y, x: ferric.trapezoid(y, x.cumsum(0)), (3, 4), (4,)),
    ("cumulative_trapezoid", lambda y: ferric.cumulative_trapezoid(y, dx=0.3), (3, 4)),
    ("cov weights", lambda x, w: ferric.cov(x, aweights=w), (3, 5), (5,)),
    ("corrcoef", ferric.corrcoef, (3, 5)),
    ("dist p=3", lambda a, b: ferric.dist(a, b, 3), (3, 4), (4,)),
    ("dist p=2", ferric.dist, (3, 4), (3, 4)),
    ("vander", lambda x: ferric.vander(x, 4), (3,)),
    ("diagflat", lambda x: ferric.diagflat(x, -1), (2, 2)),
    ("rsub", lambda a, b: ferric.rsub(a, b, alpha=2.5), (3,), (2, 3)),
    ("fill tensor value", lambda a, v: ferric.fill(a, v.sum()), (3,), (2,)),
    ("split_with_sizes", lambda a: ferric.split_with_sizes(a, [1, 3], 1)[1], (2, 4)),
    ("layer_norm", lambda a, w: ferric.layer_norm(a, [4], w), (3, 4), (4,)),
    ("kl_div", lambda a, b: ferric.kl_div(a, b, 2), (3, 4), (3, 4)),
    ("triplet_margin_loss", lambda a, b, c: ferric.triplet_margin_loss(a, b, c, 2.0),
     (3, 4), (3, 4), (3, 4)),
    ("bilinear", ferric.bilinear, (2, 3), (2, 2), (4, 3, 2)),
    ("select_scatter", lambda a, b: ferric.select_scatter(a, b, 1, 2), (3, 4), (3,)),
    ("slice_scatter", lambda a, b: ferric.slice_scatter(a, b, 1, 0, 4, 2), (3, 4), (3, 2)),
    ("diagonal_scatter", lambda a, b: ferric.diagonal_scatter(a, b, -1), (3, 4), (2,)),
    ("permute_copy", lambda a: ferric.permute_copy(a, [2, 0, 1]), (2, 3, 4)),
    ("rms_norm", lambda a, w: ferric.rms_norm(a, [4], w), (3, 4), (4,)),
]


@pytest.mark.parametrize("fn, shapes", [pytest.param(r[1], r[2:], id=r[0])
                                        for r in GRAD_TABLE])
def test_gradcheck(fn, shapes):
    assert gradcheck(fn, tuple(_leaf(*s) for s in shapes))


# ---------------------------------------------------------- behaviour beyond values
def test_asarray_and_frombuffer_share_memory_both_ways():
    a = np.zeros(3)
    t = ferric.asarray(a)
    t[1] = 4.0
    assert a[1] == 4.0
    buf = bytearray(8)
    f = ferric.frombuffer(buf, dtype=ferric.int32)
    f[0] = 7
    assert buf[0] == 7


def test_asarray_keeps_the_graph_of_a_converted_tensor():
    x = ferric.ones(2, requires_grad=True) * 2
    with pytest.warns(UserWarning, match="requires_grad"):
        y = ferric.asarray(x, dtype=ferric.float64)
    assert y.requires_grad and y.grad_fn is not None
    assert not ferric.asarray(x, dtype=ferric.float64, requires_grad=False).requires_grad


def test_dropout_train_keeps_expectation_and_mask_shape():
    ferric.manual_seed(0)
    x = ferric.ones(4000, dtype=ferric.float64)
    y = ferric.dropout(x, 0.25, True)
    kept = y != 0
    assert abs(kept.double().mean().item() - 0.75) < 0.05
    assert ferric.allclose(y[kept], ferric.full_like(y[kept], 1 / 0.75))
    f = ferric.feature_dropout(ferric.ones(50, 40, 3), 0.5, True)
    per_channel = f.amax(dim=2) == f.amin(dim=2)
    assert bool(per_channel.all())


def test_alpha_dropout_keeps_standard_normal_moments():
    ferric.manual_seed(0)
    x = ferric.randn(200000, dtype=ferric.float64)
    y = ferric.alpha_dropout(x, 0.3, True)
    assert abs(y.mean().item()) < 0.02 and abs(y.std().item() - 1) < 0.02
    z = ferric.feature_alpha_dropout(ferric.randn(400, 300, 4, dtype=ferric.float64), 0.3, True)
    assert abs(z.mean().item()) < 0.03 and abs(z.std().item() - 1) < 0.03


def test_in_place_forms_bump_the_version_and_keep_the_graph():
    x = ferric.tensor([0.3, 0.6], dtype=ferric.float64, requires_grad=True)
    y = x * 1.0
    v = y._version
    out = ferric.sin_(y)
    assert out is y and y._version > v
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.3, 0.6]))


def test_failed_calls_leave_inputs_unchanged():
    x = ferric.tensor([1.0, 2.0, 3.0])
    for bad in (lambda: ferric.split_with_sizes(x, [1, 1]), lambda: ferric.hsplit(x, 2),
                lambda: ferric.resize_as_(x.requires_grad_(), ferric.ones(4))):
        with pytest.raises(RuntimeError):
            bad()
    assert x.tolist() == [1.0, 2.0, 3.0] and x.shape == (3,)


def test_random_module_is_torch_random():
    assert ferric.random.manual_seed is ferric.manual_seed
    ferric.random.manual_seed(3)
    s = ferric.random.get_rng_state()
    with pytest.raises(ValueError), ferric.random.fork_rng():
        ferric.rand(5)
        raise ValueError("state is restored on the way out")
    assert ferric.equal(ferric.random.get_rng_state(), s)
    with pytest.raises(RuntimeError, match="CPU-only"), ferric.random.fork_rng(devices=[0]):
        pass


def test_asarray_device_errors_as_a_cpu_only_build():
    assert ferric.asarray([1.0], device="cpu").tolist() == [1.0]
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ferric.asarray([1.0], device="cuda")
    with pytest.raises(RuntimeError, match="device type at start of device string"):
        ferric.asarray([1.0], device="blah")
