"""``F.interpolate`` / ``nn.Upsample`` against PyTorch 2.13 (tests/fixtures/interpolate,
recorded by its generate.py; PyTorch is not needed here).

Every recorded case (nearest, nearest-exact, linear, bilinear, bicubic, trilinear and
area on 3-d/4-d/5-d inputs; sizes, scale factors with and without
``recompute_scale_factor``; float32 and float64; contiguous and transposed inputs) is
replayed: the output must match PyTorch's to within an ulp or two (its AVX2 kernel may
fuse a multiply-add), the input gradient to a few ulps of its largest entry. The
source-index rule is checked bit for bit through the nearest modes (a wrong index is a
wrong value, not a rounding). Then: layout independence on more stride patterns,
float64 gradcheck for every mode, PyTorch's exception types and messages, the layers.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from layouts import variants

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.autograd import gradcheck

FIXTURE = json.loads(
    (pathlib.Path(__file__).parent / "fixtures/interpolate/interpolate.json").read_text())
CASES = FIXTURE["cases"]


def _id(c):
    kw = ",".join(f"{k}={v}" for k, v in c["kwargs"].items())
    return f"{c['rank']}d-{kw}-{c['dtype']}-{c['layout']}"


def _input(c):
    dtype = getattr(ferric, c["dtype"])
    base = ferric.tensor(_np(c["storage"], c["dtype"]).reshape(c["storage_shape"]),
                         dtype=dtype)
    x = base.transpose(-1, -2) if c["layout"] == "transposed" else base
    return x.detach().requires_grad_(True)


def _kwargs(c):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in c["kwargs"].items()}


def _np(values, dtype):
    # float32 values are stored as their shortest decimals: read back as float32
    return np.asarray(values, dtype=np.float32 if dtype == "float32" else np.float64)


def _ulp_close(actual, expected, dtype, ulps):
    a = _np(actual, dtype).astype(np.float64)
    e = _np(expected, dtype).astype(np.float64)
    eps = np.finfo(np.float32 if dtype == "float32" else np.float64).eps
    scale = max(float(np.abs(e).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(a, e, rtol=0, atol=ulps * eps * scale)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_matches_pytorch(case):
    x = _input(case)
    out = F.interpolate(x, **_kwargs(case))
    assert list(out.shape) == case["out_shape"]
    assert out.dtype == x.dtype
    got = out.detach().reshape(-1).tolist()
    if case["kwargs"]["mode"].startswith("nearest"):
        # a copy of input values: exact, or a wrong source index
        np.testing.assert_array_equal(_np(got, case["dtype"]), _np(case["out"], case["dtype"]))
    else:
        # anti-aliased bicubic: its float32 kernel rounds its weights differently (3 ulps)
        _ulp_close(got, case["out"], case["dtype"], 4 if case["kwargs"].get("antialias")
                   else 2)
    dtype = getattr(ferric, case["dtype"])
    g = ferric.tensor(_np(case["upstream"], case["dtype"]), dtype=dtype).reshape(case["out_shape"])
    out.backward(g)
    _ulp_close(x.grad.reshape(-1).tolist(), case["grad"], case["dtype"], 16)


def test_fixture_covers_every_mode_and_rank():
    seen = {(c["rank"], c["kwargs"]["mode"]) for c in CASES}
    assert {(3, "linear"), (4, "bilinear"), (4, "bicubic"), (5, "trilinear")} <= seen
    for rank in (3, 4, 5):
        for mode in ("nearest", "nearest-exact", "area"):
            assert (rank, mode) in seen
    assert any(c["kwargs"].get("recompute_scale_factor") for c in CASES)
    assert {c["kwargs"]["mode"] for c in CASES if c["kwargs"].get("antialias")} == {
        "bilinear", "bicubic"}
    assert FIXTURE["torch_version"].startswith("2.13")


MODES = [
    (3, "nearest", None), (3, "nearest-exact", None), (3, "linear", False),
    (3, "linear", True), (4, "nearest", None), (4, "bilinear", False),
    (4, "bilinear", True), (4, "bicubic", False), (4, "bicubic", True),
    (5, "trilinear", False), (5, "trilinear", True), (5, "nearest-exact", None),
    (4, "area", None), (5, "area", None), (4, "bilinear-aa", False), (4, "bicubic-aa", True),
]


def _mode_kwargs(mode):
    # "<mode>-aa": the anti-aliased form
    if mode.endswith("-aa"):
        return {"mode": mode[:-3], "antialias": True}
    return {"mode": mode}


@pytest.mark.parametrize(("rank", "mode", "align"), MODES)
def test_layouts_agree(rank, mode, align):
    arr = np.random.default_rng(rank).standard_normal((2, 3, 4, 5, 6)[:rank])
    size = (7, 3, 9)[:rank - 2]
    kw = {"size": size, **_mode_kwargs(mode)}
    if align is not None:
        kw["align_corners"] = align
    want = F.interpolate(ferric.tensor(arr), **kw).numpy()
    for kind, t, values in variants(arr, ("contiguous", "transposed", "stepped",
                                          "permuted", "expanded")):
        ref = F.interpolate(ferric.tensor(values), **kw).numpy()
        got = F.interpolate(t, **kw).numpy()
        np.testing.assert_array_equal(got, ref, err_msg=kind)
        if kind != "expanded":
            np.testing.assert_array_equal(got, want, err_msg=kind)


def test_zero_batch_and_shapes():
    out = F.interpolate(ferric.ones(0, 2, 3, 3), size=5, mode="bilinear")
    assert out.shape == (0, 2, 5, 5)
    x = ferric.randn(1, 1, 4, requires_grad=True)
    F.interpolate(x, scale_factor=2, mode="linear").sum().backward()
    assert x.grad.shape == (1, 1, 4)


@pytest.mark.parametrize(("rank", "mode", "align"), MODES)
def test_gradcheck(rank, mode, align):
    arr = np.random.default_rng(7).standard_normal((1, 2, 3, 4, 3)[:rank])
    x = ferric.tensor(arr, dtype=ferric.float64, requires_grad=True)
    kw = {"size": (5, 2, 4)[:rank - 2], **_mode_kwargs(mode)}
    if align is not None:
        kw["align_corners"] = align
    assert gradcheck(lambda t: F.interpolate(t, **kw), (x,))
    kw = {"scale_factor": 1.7 if "aa" not in mode else 0.6, **_mode_kwargs(mode)}
    if align is not None:
        kw["align_corners"] = align
    assert gradcheck(lambda t: F.interpolate(t, **kw), (x,))


def _env():
    return {"F": F, "x2": ferric.ones(2, 3), "x3": ferric.ones(1, 2, 4),
            "x4": ferric.ones(1, 2, 4, 4), "x5": ferric.ones(1, 1, 2, 2, 2)}


@pytest.mark.parametrize("err", FIXTURE["errors"], ids=lambda e: e["expr"])
def test_errors_match_pytorch(err):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked below
        eval(err["expr"], _env())
    assert type(info.value).__name__ == err["type"], str(info.value)
    # the message up to the first value ferric spells differently (dtype names)
    head = err["message"].split("[")[0].split("'")[0][:60]
    assert head in str(info.value)


def test_failed_call_leaves_input_unchanged():
    x = ferric.randn(1, 2, 3, 3)
    before = x.clone()
    with pytest.raises(RuntimeError):
        F.interpolate(x, size=0, mode="bilinear")
    assert ferric.equal(x, before)


def test_upsample_layers():
    x = ferric.randn(2, 3, 4, 5)
    assert ferric.equal(nn.Upsample(scale_factor=2)(x),
                        F.interpolate(x, scale_factor=2.0))
    assert ferric.equal(nn.Upsample(size=(3, 7), mode="bicubic", align_corners=True)(x),
                        F.interpolate(x, size=(3, 7), mode="bicubic", align_corners=True))
    assert ferric.equal(nn.UpsamplingNearest2d(size=6)(x), F.interpolate(x, size=6))
    assert ferric.equal(nn.UpsamplingBilinear2d(scale_factor=1.5)(x),
                        F.interpolate(x, scale_factor=1.5, mode="bilinear",
                                      align_corners=True))
    up = nn.Upsample(scale_factor=(2, 3), mode="bilinear")
    assert up.scale_factor == (2.0, 3.0)
    assert repr(up) == "Upsample(scale_factor=(2.0, 3.0), mode='bilinear')"
    assert repr(nn.UpsamplingNearest2d(size=5)) == "UpsamplingNearest2d(size=5, mode='nearest')"


def test_upsample_pickle_default_recompute():
    up = nn.Upsample(scale_factor=2)
    state = dict(up.__dict__)
    del state["recompute_scale_factor"]
    fresh = nn.Upsample.__new__(nn.Upsample)
    fresh.__setstate__(state)
    assert fresh.recompute_scale_factor is True


def test_deprecated_aliases_warn():
    x = ferric.randn(1, 1, 2, 2)
    with pytest.warns(UserWarning, match="deprecated"):
        out = F.upsample_bilinear(x, scale_factor=2)
    assert ferric.equal(out, F.interpolate(x, scale_factor=2, mode="bilinear",
                                           align_corners=True))
    with pytest.warns(UserWarning, match="deprecated"):
        assert ferric.equal(F.upsample_nearest(x, 3), F.interpolate(x, 3))
    with pytest.warns(UserWarning, match="deprecated"):
        assert ferric.equal(F.upsample(x, 3, mode="bicubic"),
                            F.interpolate(x, 3, mode="bicubic"))


LINEAR_CASES = [c for c in CASES if not c["kwargs"]["mode"].startswith("nearest")
                and c["kwargs"]["mode"] != "area" and c["dtype"] == "float64"]


@pytest.mark.parametrize("case", LINEAR_CASES, ids=_id)
def test_gather_path_matches_pytorch(case, monkeypatch):
    # dimensions above _DENSE_MAX (and non-finite inputs) take one gather per tap
    from ferric.nn import _functional_interp

    monkeypatch.setattr(_functional_interp, "_DENSE_MAX", 0)
    out = F.interpolate(_input(case), **_kwargs(case))
    _ulp_close(out.detach().reshape(-1).tolist(), case["out"], case["dtype"], 4)


def test_non_finite_values_stay_local():
    # the dense path would spread an inf through the zero weights of its matrix
    x = ferric.zeros(1, 1, 6, 6)
    x[0, 0, 0, 0] = float("inf")
    out = F.interpolate(x, size=(12, 12), mode="bilinear")
    assert bool(out[0, 0, :2, :2].isinf().all())
    assert bool((out[0, 0, 4:, 4:] == 0).all())
    out = F.interpolate(x, size=(4, 4), mode="bicubic", antialias=True)
    assert bool(out[0, 0, 2:, 2:].isfinite().all())
