"""``F.grid_sample`` and ``F.affine_grid`` replayed against PyTorch 2.13's recorded values
(``tests/fixtures/grid_sample``): every mode / padding mode / ``align_corners``
combination on contiguous, transposed and stepped inputs and a permuted grid, 4-d and
5-d, with the gradients of input and grid; the errors and warnings; and ``gradcheck`` in
float64."""

from __future__ import annotations

import math
import warnings

import pytest
from fixture_loader import Recording

import ferric
import ferric.nn.functional as F
from ferric.autograd import gradcheck

RECORDING = Recording("grid_sample", "grid_sample_cases", "grid_sample.json")
CASES = RECORDING.cases


def _close(a, b, tol) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            _close(x, y, tol) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is b
    if math.isnan(a):
        return math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def test_fixture_is_pytorch_2_13():
    RECORDING.check_complete()


@pytest.mark.parametrize("name", sorted(CASES))
def test_grid_sample_matches_pytorch(name):
    want, got = RECORDING.replay(name, "ferric")
    if "raised" in want:
        assert got.get("raised") == want["raised"], got
        assert got["message"].replace("ferric", "torch") == want["message"]
        return
    assert "raised" not in got, got
    assert got["shapes"] == want["shapes"]
    assert got["warnings"] == want["warnings"]
    tol = 1e-12 if name == "float64" else 2e-5
    for i, (w, g) in enumerate(zip(want["values"], got["values"], strict=True)):
        assert _close(w, g, tol), (i, w, g)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_gradcheck(mode, padding_mode, align_corners):
    ferric.manual_seed(0)
    x = ferric.randn(1, 2, 3, 4, dtype=ferric.float64, requires_grad=True)
    # keep the points away from pixel boundaries, where the sampling is not smooth
    g = (ferric.rand(1, 2, 3, 2, dtype=ferric.float64) * 2.2 - 1.1).requires_grad_()
    args = (x, g) if mode != "nearest" else (x, g.detach())

    def fn(*a):
        return F.grid_sample(*a, mode=mode, padding_mode=padding_mode,
                             align_corners=align_corners)

    assert gradcheck(fn, args, eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_5d_gradcheck(padding_mode):
    ferric.manual_seed(1)
    x = ferric.randn(1, 1, 2, 3, 3, dtype=ferric.float64, requires_grad=True)
    g = (ferric.rand(1, 2, 1, 2, 3, dtype=ferric.float64) * 2.2 - 1.1).requires_grad_()
    assert gradcheck(lambda a, b: F.grid_sample(a, b, padding_mode=padding_mode,
                                                align_corners=False), (x, g), atol=1e-5)


@pytest.mark.parametrize("size", [(2, 1, 3, 4), (2, 1, 2, 3, 2)])
def test_affine_grid_gradcheck(size):
    ferric.manual_seed(2)
    th = ferric.randn(2, len(size) - 2, len(size) - 1, dtype=ferric.float64,
                      requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, size, align_corners=False), (th,))


@pytest.mark.parametrize("call", [
    lambda: F.grid_sample(ferric.zeros(1, 1, 2, 2), ferric.zeros(1, 1, 1, 2)),
    lambda: F.affine_grid(ferric.zeros(1, 2, 3), (1, 1, 2, 2)),
])
def test_align_corners_none_warns(call):
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        call()


def test_identity_transform_reproduces_input():
    x = ferric.arange(24.).view(1, 2, 3, 4)
    theta = ferric.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for ac in (True, False):
            g = F.affine_grid(theta, x.shape, align_corners=ac)
            for mode in ("bilinear", "nearest", "bicubic"):
                out = F.grid_sample(x, g, mode=mode, align_corners=ac)
                assert _close(out.tolist(), x.tolist(), 1e-5), (ac, mode)
