"""ferric.linalg: values against NumPy on every layout (contiguous, transposed, stepped,
broadcast batch, zero-size batch) in float32 and float64, float64 gradcheck of every
differentiable op, and PyTorch 2.13's errors, named-tuple results and gradients replayed
from ``tests/fixtures/linalg`` (see the generator there).

Decompositions whose factors are unique only up to signs (QR, SVD, eigh) are checked
through sign-free quantities: reconstruction, orthonormality, and factors normalised to
a positive diagonal / leading entry.
"""

from __future__ import annotations

import doctest
import importlib
import json
import math
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import variants

import ferric
from ferric.autograd import gradcheck

FIX = json.loads((pathlib.Path(__file__).parent / "fixtures/linalg/linalg.json").read_text())
KINDS = ("contiguous", "transposed", "stepped", "expanded", "empty")
DTYPES = {"float32": (ferric.float32, 2e-4), "float64": (ferric.float64, 1e-10)}


def rng(seed=0):
    return np.random.default_rng(seed)


def general(shape, seed=0):
    return rng(seed).standard_normal(shape)


def spd(shape, seed=0):
    a = rng(seed).standard_normal(shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def sym(shape, seed=0):
    a = rng(seed).standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def well_conditioned(shape, seed=0):
    return rng(seed).standard_normal(shape) + 3 * np.eye(shape[-1])


def npf(t):
    return t.detach().numpy().astype(np.float64)


def close(got, want, tol, what=""):
    np.testing.assert_allclose(npf(got) if isinstance(got, ferric.Tensor) else got,
                               want, rtol=tol * 10, atol=tol * 10, err_msg=what)


def mT(a):
    return np.swapaxes(a, -1, -2)


def normalise_qr(q, r):
    # make R's diagonal non-negative (Q R unchanged): flip the first k columns of Q and
    # rows of R together
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    d = np.where(d == 0, 1.0, d)
    k = d.shape[-1]
    q, r = q.copy(), r.copy()
    q[..., :, :k] *= d[..., None, :]
    r[..., :k, :] *= d[..., :, None]
    return q, r


# --- values on every layout -----------------------------------------------------------

# name -> (input maker for the base array, ferric call, NumPy reference)
SQUARE_VALUES = {
    "det": (general, lambda a: ferric.linalg.det(a), np.linalg.det),
    "slogdet.sign": (general, lambda a: ferric.linalg.slogdet(a).sign,
                     lambda a: np.linalg.slogdet(a)[0]),
    "slogdet.logabsdet": (general, lambda a: ferric.linalg.slogdet(a).logabsdet,
                          lambda a: np.linalg.slogdet(a)[1]),
    "inv": (well_conditioned, ferric.linalg.inv, np.linalg.inv),
    "inv_ex": (well_conditioned, lambda a: ferric.linalg.inv_ex(a).inverse, np.linalg.inv),
    "cholesky": (spd, ferric.linalg.cholesky, np.linalg.cholesky),
    "cholesky.upper": (spd, lambda a: ferric.linalg.cholesky(a, upper=True),
                       lambda a: mT(np.linalg.cholesky(a))),
    "cholesky_ex": (spd, lambda a: ferric.linalg.cholesky_ex(a).L, np.linalg.cholesky),
    "eigvalsh": (sym, ferric.linalg.eigvalsh, np.linalg.eigvalsh),
    "eigvalsh.U": (sym, lambda a: ferric.linalg.eigvalsh(a, UPLO="U"),
                   lambda a: np.linalg.eigvalsh(a, UPLO="U")),
    "eigh.values": (sym, lambda a: ferric.linalg.eigh(a).eigenvalues, np.linalg.eigvalsh),
    "svdvals": (general, ferric.linalg.svdvals, lambda a: np.linalg.svd(a, compute_uv=False)),
    "pinv": (general, ferric.linalg.pinv, np.linalg.pinv),
    "pinv.hermitian": (sym, lambda a: ferric.linalg.pinv(a, hermitian=True),
                       lambda a: np.linalg.pinv(a, hermitian=True)),
    "matrix_rank": (general, ferric.linalg.matrix_rank, np.linalg.matrix_rank),
    "matrix_power.3": (general, lambda a: ferric.linalg.matrix_power(a, 3),
                       lambda a: np.linalg.matrix_power(a, 3)),
    "matrix_power.-2": (well_conditioned, lambda a: ferric.linalg.matrix_power(a, -2),
                        lambda a: np.linalg.matrix_power(a, -2)),
    "matrix_power.0": (general, lambda a: ferric.linalg.matrix_power(a, 0),
                       lambda a: np.linalg.matrix_power(a, 0)),
    "matrix_power.7": (general, lambda a: ferric.linalg.matrix_power(a, 7),
                       lambda a: np.linalg.matrix_power(a, 7)),
    "matrix_exp": (sym, ferric.linalg.matrix_exp,
                   lambda a: (lambda w, v: (v * np.exp(w)[..., None, :]) @ mT(v))(
                       *np.linalg.eigh(a))),
    "diagonal": (general, ferric.linalg.diagonal,
                 lambda a: np.diagonal(a, axis1=-2, axis2=-1)),
    "det.alias": (general, ferric.det, np.linalg.det),
    "inverse": (well_conditioned, ferric.inverse, np.linalg.inv),
    "Tensor.det": (general, lambda a: a.det(), np.linalg.det),
    "Tensor.inverse": (well_conditioned, lambda a: a.inverse(), np.linalg.inv),
    "logdet": (spd, ferric.logdet, lambda a: np.log(np.linalg.det(a))),
}

NORMS = [("fro", None), ("nuc", None), (math.inf, None), (-math.inf, None), (1, None),
         (-1, None), (2, None), (-2, None)]
for _ord, _ in NORMS:
    SQUARE_VALUES[f"matrix_norm.{_ord}"] = (
        general, lambda a, o=_ord: ferric.linalg.matrix_norm(a, o),
        lambda a, o=_ord: np.linalg.norm(a, o, axis=(-2, -1)))
for _ord in (2, 1, 0.5, 3, math.inf, -math.inf, 0):
    SQUARE_VALUES[f"vector_norm.{_ord}"] = (
        general, lambda a, o=_ord: ferric.linalg.vector_norm(a, o, dim=-1),
        lambda a, o=_ord: np.linalg.norm(a, o, axis=-1))
SQUARE_VALUES["norm.default"] = (general, lambda a: ferric.linalg.norm(a, dim=(-2, -1)),
                                 lambda a: np.linalg.norm(a, axis=(-2, -1)))
SQUARE_VALUES["norm.vector"] = (general, lambda a: ferric.linalg.norm(a, 3, dim=-1),
                                lambda a: np.linalg.norm(a, 3, axis=-1))


def batch_shapes():
    return [(2, 4, 4), (3, 1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", batch_shapes(), ids=str)
@pytest.mark.parametrize("name", SQUARE_VALUES)
def test_square_op_values(name, shape, dtype):
    make, fn, ref = SQUARE_VALUES[name]
    fdt, tol = DTYPES[dtype]
    arr = make(shape)
    for kind, t, vals in variants(arr, KINDS, dtype=fdt):
        got = fn(t)
        want = ref(vals.astype(np.float64))
        assert got.shape == tuple(np.shape(want)), (name, kind)
        assert got.dtype == (ferric.int64 if name == "matrix_rank" else fdt), (name, kind)
        scale = max(1.0, float(np.max(np.abs(want)))) if np.size(want) else 1.0
        close(got, want, tol * scale, f"{name} {kind}")


def test_unbatched_and_1x1_and_0x0():
    a = general((3, 3))
    close(ferric.linalg.det(ferric.tensor(a)), np.linalg.det(a), 1e-5)
    z = ferric.zeros(0, 0, dtype=ferric.float64)
    assert ferric.linalg.det(z).item() == 1.0
    assert ferric.linalg.inv(z).shape == (0, 0)
    assert ferric.linalg.svdvals(z).shape == (0,)
    assert ferric.linalg.cholesky(z).shape == (0, 0)
    s, l = ferric.linalg.slogdet(z)
    assert (s.item(), l.item()) == (1.0, 0.0)


RECT_SHAPES = [(2, 5, 3), (2, 3, 5), (4, 4)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", RECT_SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, dtype, mode):
    fdt, tol = DTYPES[dtype]
    for kind, t, vals in variants(general(shape), KINDS, dtype=fdt):
        Q, R = ferric.linalg.qr(t, mode)
        m, n = vals.shape[-2:]
        nq, nr = np.linalg.qr(vals, mode="complete" if mode == "complete" else "reduced")
        nq, nr = normalise_qr(nq, nr)
        assert R.shape == nr.shape, kind
        if mode == "r":
            assert Q.shape == (0,)
            close(np.abs(npf(R)), np.abs(nr), tol, kind)
            continue
        assert Q.shape == nq.shape, kind
        close(npf(Q) @ npf(R), vals, tol, kind)
        eye = np.eye(Q.shape[-1])
        close(mT(npf(Q)) @ npf(Q), np.broadcast_to(eye, Q.shape[:-2] + eye.shape), tol, kind)
        if kind == "expanded" or mode == "complete":
            continue  # rank-deficient input / the completion: Q is not unique
        q, r = normalise_qr(npf(Q), npf(R))
        close(q, nq, tol, kind)
        close(r, nr, tol, kind)
        assert np.allclose(np.tril(npf(R), -1), 0), kind


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", RECT_SHAPES, ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd(shape, dtype, full):
    fdt, tol = DTYPES[dtype]
    for kind, t, vals in variants(general(shape), KINDS, dtype=fdt):
        U, S, Vh = ferric.linalg.svd(t, full_matrices=full)
        nu, ns, nvh = np.linalg.svd(vals, full_matrices=full)
        assert (U.shape, S.shape, Vh.shape) == (nu.shape, ns.shape, nvh.shape), kind
        close(S, ns, tol, kind)
        k = ns.shape[-1]
        u, vh = npf(U), npf(Vh)
        close(u[..., :k] * npf(S)[..., None, :] @ vh[..., :k, :], vals, tol, kind)
        eye_u, eye_v = np.eye(u.shape[-1]), np.eye(vh.shape[-2])
        close(mT(u) @ u, np.broadcast_to(eye_u, u.shape[:-2] + eye_u.shape), tol, kind)
        close(vh @ mT(vh), np.broadcast_to(eye_v, vh.shape[:-2] + eye_v.shape), tol, kind)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, uplo):
    fdt, tol = DTYPES[dtype]
    base = general((2, 4, 4))
    for kind, t, vals in variants(base, KINDS, dtype=fdt):
        L, V = ferric.linalg.eigh(t, UPLO=uplo)
        tri = np.tril(vals) if uplo == "L" else np.triu(vals)
        a = tri + mT(tri) - np.diagonal(vals, axis1=-2, axis2=-1)[..., None] * np.eye(4)
        close(L, np.linalg.eigvalsh(a), tol, kind)
        v = npf(V)
        close(a @ v, v * npf(L)[..., None, :], tol * 10, kind)
        close(mT(v) @ v, np.broadcast_to(np.eye(4), v.shape), tol, kind)


SOLVES = {
    # name -> (ferric call on (A, B), NumPy reference, B shape)
    "solve": (lambda a, b: ferric.linalg.solve(a, b), np.linalg.solve, (2, 4, 3)),
    "solve.vector": (lambda a, b: ferric.linalg.solve(a, b),
                     lambda a, b: np.linalg.solve(a, b[..., None])[..., 0], (4,)),
    "solve.batch_vector": (lambda a, b: ferric.linalg.solve(a, b),
                           lambda a, b: np.linalg.solve(a, b[..., None])[..., 0], (2, 4)),
    "solve.broadcast": (lambda a, b: ferric.linalg.solve(a, b), np.linalg.solve, (4, 2)),
    "solve.left_false": (lambda a, b: ferric.linalg.solve(a, b, left=False),
                         lambda a, b: mT(np.linalg.solve(mT(a), mT(b))), (2, 3, 4)),
    "solve_ex": (lambda a, b: ferric.linalg.solve_ex(a, b).result, np.linalg.solve, (2, 4, 3)),
    "solve_triangular.upper": (
        lambda a, b: ferric.linalg.solve_triangular(a, b, upper=True),
        lambda a, b: np.linalg.solve(np.triu(a), b), (2, 4, 3)),
    "solve_triangular.lower_unit": (
        lambda a, b: ferric.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
        lambda a, b: np.linalg.solve(np.tril(a, -1) + np.eye(4), b), (2, 4, 3)),
    "solve_triangular.right": (
        lambda a, b: ferric.linalg.solve_triangular(a, b, upper=True, left=False),
        lambda a, b: mT(np.linalg.solve(mT(np.triu(a)), mT(b))), (2, 3, 4)),
    "cholesky_solve": (
        lambda a, b: ferric.cholesky_solve(b, ferric.linalg.cholesky(a @ a.mT + 4 * ferric.eye(
            4, dtype=a.dtype))),
        lambda a, b: np.linalg.solve(a @ mT(a) + 4 * np.eye(4), b), (2, 4, 3)),
    "lstsq.square": (lambda a, b: ferric.linalg.lstsq(a, b).solution,
                     lambda a, b: np.linalg.solve(a, b), (2, 4, 3)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOLVES)
def test_solves(name, dtype):
    fn, ref, bshape = SOLVES[name]
    fdt, tol = DTYPES[dtype]
    b = ferric.tensor(general(bshape, 1), dtype=fdt)
    for kind, t, vals in variants(well_conditioned((2, 4, 4)), KINDS, dtype=fdt):
        if kind == "empty" and len(bshape) < 3:
            continue  # a zero-size batch of A broadcasts only with B's own empty batch
        bb = b[:0] if kind == "empty" else b
        got = fn(t, bb)
        want = ref(vals, npf(bb))
        assert got.shape == want.shape, (name, kind)
        close(got, want, tol, f"{name} {kind}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_tall_and_rank_deficient(dtype):
    fdt, tol = DTYPES[dtype]
    a = general((2, 6, 3))
    b = general((2, 6, 2), 1)
    r = ferric.linalg.lstsq(ferric.tensor(a, dtype=fdt), ferric.tensor(b, dtype=fdt))
    for i in range(2):
        close(r.solution[i], np.linalg.lstsq(a[i], b[i], rcond=None)[0], tol)
    assert r.rank.tolist() == [3, 3]
    # rank deficient: the minimum-norm solution, as gelsy/gelsd give
    d = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0], [1.0, 3.0, 4.0]])
    rd = ferric.linalg.lstsq(ferric.tensor(d, dtype=fdt), ferric.tensor(b[0, :4], dtype=fdt))
    close(rd.solution, np.linalg.lstsq(d, b[0, :4], rcond=None)[0], tol * 10)
    assert rd.rank.item() == 2


def test_multi_dot_cross_vecdot():
    a, b, c, v = general((2, 5)), general((5, 3), 1), general((3, 4), 2), general(4, 3)
    ts = [ferric.tensor(x) for x in (a[0], b, c, v)]
    close(ferric.linalg.multi_dot(ts), np.linalg.multi_dot([a[0], b, c, v]), 1e-12)
    ts = [ferric.tensor(x) for x in (a, b, c)]
    close(ferric.linalg.multi_dot(ts), np.linalg.multi_dot([a, b, c]), 1e-12)
    x, y = general((4, 3)), general((1, 3), 1)
    for kind, t, vals in variants(x, ("contiguous", "transposed", "stepped", "expanded")):
        close(ferric.linalg.cross(t, ferric.tensor(y)), np.cross(vals, y), 1e-6, kind)
        close(ferric.linalg.vecdot(t, ferric.tensor(y)), np.sum(vals * y, -1), 1e-6, kind)
    close(ferric.linalg.cross(ferric.tensor(x.T), ferric.tensor(x.T[:, ::-1].copy()), dim=0),
          np.cross(x.T, x.T[:, ::-1], axis=0), 1e-12)


# --- autograd ---------------------------------------------------------------------------

def _t(a):
    return ferric.tensor(a, dtype=ferric.float64, requires_grad=True)


def _sym(x):
    return x + x.mT


def _spd(x):
    return x @ x.mT + 3 * ferric.eye(x.shape[-1], dtype=x.dtype)


GRADCHECK = {
    "det": (general((2, 3, 3)), ferric.linalg.det),
    "slogdet": (general((3, 3)), lambda x: ferric.linalg.slogdet(x).logabsdet),
    "inv": (well_conditioned((2, 3, 3)), ferric.linalg.inv),
    "inv_ex": (well_conditioned((3, 3)), lambda x: ferric.linalg.inv_ex(x).inverse),
    "solve": (well_conditioned((2, 3, 3)),
              lambda x: ferric.linalg.solve(x, x[..., :2] * 2 + 1)),
    "solve.vector": (well_conditioned((3, 3)), lambda x: ferric.linalg.solve(x, x[0])),
    "solve.left_false": (well_conditioned((3, 3)),
                         lambda x: ferric.linalg.solve(x, x[:2] + 1, left=False)),
    "cholesky": (general((2, 3, 3)), lambda x: ferric.linalg.cholesky(_spd(x))),
    "cholesky.upper": (general((3, 3)), lambda x: ferric.linalg.cholesky(_spd(x), upper=True)),
    "cholesky_ex": (general((3, 3)), lambda x: ferric.linalg.cholesky_ex(_spd(x)).L),
    "solve_triangular": (well_conditioned((2, 3, 3)),
                         lambda x: ferric.linalg.solve_triangular(x, x[..., :2], upper=True)),
    "solve_triangular.right_unit": (
        well_conditioned((3, 3)),
        lambda x: ferric.linalg.solve_triangular(x, x[:2] + 1, upper=False, left=False,
                                                 unitriangular=True)),
    "qr.tall": (general((5, 3)), lambda x: ferric.linalg.qr(x)),
    "qr.wide": (general((3, 5)), lambda x: ferric.linalg.qr(x)),
    "qr.square_complete": (general((2, 3, 3)), lambda x: ferric.linalg.qr(x, "complete")),
    "svd.tall": (general((5, 3)), lambda x: (lambda u, s, vh: (u @ vh, s))(
        *ferric.linalg.svd(x, full_matrices=False))),
    "svd.wide_full": (general((3, 5)), lambda x: (lambda u, s, vh: (u[:, :3] @ vh[:3], s))(
        *ferric.linalg.svd(x))),
    "svd.uv_sign_free": (general((2, 4, 4)), lambda x: (lambda u, s, vh: u * vh.mT)(
        *ferric.linalg.svd(x))),
    "svdvals": (general((2, 4, 3)), ferric.linalg.svdvals),
    "eigh": (general((2, 3, 3)), lambda x: (lambda w, v: (w, v * v))(
        *ferric.linalg.eigh(_sym(x)))),
    "eigvalsh": (general((3, 3)), lambda x: ferric.linalg.eigvalsh(_sym(x))),
    "pinv": (general((4, 3)), ferric.linalg.pinv),
    "pinv.hermitian": (general((3, 3)), lambda x: ferric.linalg.pinv(_spd(x), hermitian=True)),
    "lstsq": (general((5, 3)), lambda x: ferric.linalg.lstsq(x, x[:, :2] + 1).solution),
    "matrix_power": (general((2, 3, 3)), lambda x: ferric.linalg.matrix_power(x, 5)),
    "matrix_power.neg": (well_conditioned((3, 3)),
                         lambda x: ferric.linalg.matrix_power(x, -2)),
    "matrix_exp": (general((2, 3, 3)), ferric.linalg.matrix_exp),
    "matrix_norm.nuc": (general((3, 4)), lambda x: ferric.linalg.matrix_norm(x, "nuc")),
    "matrix_norm.2": (general((3, 4)), lambda x: ferric.linalg.matrix_norm(x, 2)),
    "matrix_norm.1": (general((3, 4)), lambda x: ferric.linalg.matrix_norm(x, 1)),
    "matrix_norm.fro": (general((3, 4)), lambda x: ferric.linalg.matrix_norm(x)),
    "vector_norm": (general((3, 4)), lambda x: ferric.linalg.vector_norm(x, 3, dim=0)),
    "multi_dot": (general((3, 3)), lambda x: ferric.linalg.multi_dot([x[0], x, x.mT, x])),
    "cross": (general((2, 3)), lambda x: ferric.linalg.cross(x, x.flip(0))),
    "vecdot": (general((2, 3)), lambda x: ferric.linalg.vecdot(x, x.flip(0))),
    "logdet": (general((3, 3)), lambda x: ferric.logdet(_spd(x))),
    "cholesky_solve": (general((3, 3)), lambda x: ferric.cholesky_solve(
        x[:, :2], ferric.linalg.cholesky(_spd(x)))),
    "cholesky_inverse": (general((3, 3)), lambda x: ferric.cholesky_inverse(
        ferric.linalg.cholesky(_spd(x)))),
    "old_svd": (general((4, 3)), lambda x: ferric.svd(x).S),
}


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck(name):
    arr, fn = GRADCHECK[name]
    assert gradcheck(fn, (_t(arr),))


@pytest.mark.parametrize("kind", ["transposed", "stepped"])
@pytest.mark.parametrize("name", ["det", "inv", "cholesky", "svdvals", "eigvalsh"])
def test_gradcheck_on_layouts(name, kind):
    from layouts import leaf_and_view
    arr, fn = GRADCHECK[name]
    leaf, view = leaf_and_view(arr, kind)
    assert gradcheck(lambda t: fn(view(t)), (leaf,))


NODES = {
    "LinalgDetBackward0": lambda x: ferric.linalg.det(x),
    "LinalgSlogdetBackward0": lambda x: ferric.linalg.slogdet(x).logabsdet,
    "LinalgInvExBackward0": lambda x: ferric.linalg.inv(x),
    "LinalgSolveExBackward0": lambda x: ferric.linalg.solve(x, x),
    "LinalgCholeskyExBackward0": lambda x: ferric.linalg.cholesky(x @ x.mT),
    "LinalgQrBackward0": lambda x: ferric.linalg.qr(x).Q,
    "LinalgSvdBackward0": lambda x: ferric.linalg.svd(x).S,
    "LinalgEighBackward0": lambda x: ferric.linalg.eigh(x).eigenvectors,
    "LinalgSolveTriangularBackward0": lambda x: ferric.linalg.solve_triangular(
        x, x, upper=True),
    "LinalgVectorNormBackward0": lambda x: ferric.linalg.vector_norm(x),
}


@pytest.mark.parametrize("node", NODES)
def test_node_names(node):
    assert NODES[node](_t(well_conditioned((3, 3)))).grad_fn.name() == node
    assert ferric.linalg.svdvals(_t(general((3, 3)))).grad_fn.name() == "LinalgSvdBackward0"


def test_no_graph_without_requires_grad():
    x = ferric.tensor(well_conditioned((3, 3)))
    assert ferric.linalg.inv(x).grad_fn is None
    assert ferric.linalg.svd(x).U.requires_grad is False


def test_repeated_singular_values_only_s_used_stays_finite():
    # PyTorch: the gradient of S alone is well defined even for repeated values
    x = _t(np.eye(3))
    ferric.linalg.svd(x).S.sum().backward()
    assert np.allclose(npf(x.grad), np.eye(3))
    x = _t(np.eye(3))
    ferric.linalg.eigh(x).eigenvalues.sum().backward()
    assert np.allclose(npf(x.grad), np.eye(3))


def test_double_backward_through_inv_and_det():
    from ferric.autograd import gradgradcheck
    assert gradgradcheck(ferric.linalg.inv, (_t(well_conditioned((3, 3))),))
    assert gradgradcheck(ferric.linalg.det, (_t(general((3, 3))),))


# --- PyTorch fixtures ---------------------------------------------------------------------

def env(dtype):
    fdt = getattr(ferric, dtype)
    e = {"lib": ferric, "math": math}
    for k, v in FIX["inputs"].items():
        e[k] = ferric.tensor(v, dtype=fdt)
    e["I3"] = ferric.eye(3, dtype=fdt)
    e["nan3"] = ferric.full((3, 3), float("nan"), dtype=fdt)
    e["ints"] = ferric.ones(2, 2, dtype=ferric.int64)
    return e


TYPES = {"LinAlgError": ferric.linalg.LinAlgError, "RuntimeError": RuntimeError,
         "NotImplementedError": NotImplementedError, "IndexError": IndexError,
         "TypeError": TypeError}


@pytest.mark.parametrize("case", FIX["errors"], ids=lambda c: f"{c['dtype']}:{c['expr']}")
def test_errors_match_pytorch(case):
    e = env(case["dtype"])
    with pytest.raises(TYPES[case["type"]]) as info:
        eval(case["expr"], e)
    if case["type"] != "LinAlgError":
        assert not isinstance(info.value, ferric.linalg.LinAlgError)
    msg = case["message"]
    if "(error code:" in msg:  # LAPACK's iteration count; faer does not report one
        msg = msg.split("(error code:")[0]
    assert msg in str(info.value)


def decode(r):
    if "tensor" in r:
        vals = [math.nan if v is None else float(v) for v in r["tensor"]]
        return np.array(vals, dtype=np.float64).reshape(r["shape"]), r["dtype"]
    return r


def check_value(got, want, tol, what):
    if "tuple" in want:
        assert sorted(got._fields) == sorted(want["fields"]), what
        for g, w in zip(got, want["tuple"], strict=True):
            check_value(g, w, tol, what)
        return
    arr, dt = decode(want)
    assert tuple(got.shape) == arr.shape, what
    # (the info tensors are int32, as PyTorch's)
    assert str(got.dtype).endswith(dt), what
    np.testing.assert_allclose(npf(got), arr, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("case", FIX["values"], ids=lambda c: f"{c['dtype']}:{c['expr']}")
def test_values_match_pytorch(case):
    tol = 2e-4 if case["dtype"] == "float32" else 1e-9
    got = eval(case["expr"], env(case["dtype"]))
    check_value(got, case["result"], tol * 20, case["expr"])


@pytest.mark.parametrize("case", FIX["grads"], ids=lambda c: c["loss"][:60])
def test_gradients_match_pytorch(case):
    e = env("float64")
    x = e[case["input"]].clone().requires_grad_()
    e["x"] = x
    eval(case["loss"], e).backward()
    want, _ = decode(case["grad"])
    np.testing.assert_allclose(npf(x.grad), want, rtol=1e-7, atol=1e-9)


def test_fixture_records_pytorch_2_13():
    assert FIX["torch_version"].startswith("2.13")


def test_named_tuples():
    a = ferric.tensor(well_conditioned((3, 3)))
    assert ferric.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert ferric.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert ferric.svd(a)._fields == ("U", "S", "V")
    assert ferric.linalg.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert ferric.linalg.qr(a)._fields == ("Q", "R")
    assert ferric.linalg.inv_ex(a)._fields == ("inverse", "info")
    assert ferric.linalg.cholesky_ex(a)._fields == ("L", "info")
    assert ferric.linalg.solve_ex(a, a)._fields == ("result", "info")
    assert type(ferric.linalg.svd(a)).__module__ == "ferric.return_types"
    assert repr(ferric.linalg.qr(a)).startswith("ferric.return_types.linalg_qr(")


def test_linalg_error_is_a_runtime_error():
    assert issubclass(ferric.linalg.LinAlgError, RuntimeError)
    assert ferric.linalg.LinAlgError.__module__ == "ferric.linalg"
    assert ferric.linalg.LinAlgError.__name__ == "LinAlgError"


def test_failed_call_leaves_inputs_unchanged():
    s = ferric.tensor([[1.0, 2.0], [2.0, 4.0]])
    before = s.clone()
    with pytest.raises(ferric.linalg.LinAlgError):
        ferric.linalg.inv(s)
    with pytest.raises(ferric.linalg.LinAlgError):
        ferric.linalg.cholesky(s)
    assert ferric.equal(s, before)


def test_old_svd_and_qr_aliases():
    a = general((4, 3))
    t = ferric.tensor(a)
    U, S, V = ferric.svd(t)
    close(npf(U) * npf(S) @ npf(V).T, a, 1e-5)
    U, S, V = ferric.svd(t, some=False)
    assert (U.shape, V.shape) == ((4, 4), (3, 3))
    Q, R = ferric.qr(t, some=False)
    assert (Q.shape, R.shape) == ((4, 4), (4, 3))
    assert t.qr().Q.shape == (4, 3)
    sq = ferric.tensor(general((3, 3)))
    close(sq.matrix_power(2), np.linalg.matrix_power(npf(sq), 2), 1e-5)


# --- properties -----------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), batch=st.integers(0, 3), seed=st.integers(0, 10_000))
def test_solve_and_inverse_roundtrip(n, batch, seed):
    a = well_conditioned((batch, n, n), seed)
    x = rng(seed + 1).standard_normal((batch, n, 2))
    t = ferric.tensor(a)
    close(ferric.linalg.solve(t, ferric.tensor(a @ x)), x, 1e-5)
    close(ferric.linalg.inv(t) @ t, np.broadcast_to(np.eye(n), a.shape), 1e-5)
    close(ferric.linalg.det(t), np.linalg.det(a), 1e-5 * max(1, np.abs(np.linalg.det(a)).max(
        initial=1)))


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 6), n=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_svd_reconstructs(m, n, seed):
    a = rng(seed).standard_normal((m, n))
    U, S, Vh = ferric.linalg.svd(ferric.tensor(a), full_matrices=False)
    close(npf(U) * npf(S) @ npf(Vh), a, 1e-5)
    close(S, np.linalg.svd(a, compute_uv=False), 1e-5)


# --- docs -------------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["ferric._linalg", "ferric._linalg_composed",
                                    "ferric._linalg_aliases"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
