"""``out=`` on the op functions, replayed against PyTorch 2.13's recorded behaviour
(``tests/fixtures/out_kwarg``): values written into out, the same object returned, the
dtype rules and their exceptions, resizing (with its UserWarning), layouts of out,
aliasing, the autograd refusal and one version bump per write."""

from __future__ import annotations

import pytest
from fixture_loader import Recording
from fixture_loader import close as _close

import ferric

RECORDING = Recording("out_kwarg", "out_kwarg_cases", "out_kwarg.json")
CASES = RECORDING.cases

# PyTorch resizes a linalg out into LAPACK's column-major layout; ferric's resize is
# row-major (the values and shape are the same)
# (and nonzero's column-major index matrix likewise)
STRIDE_DIFFERS = {"linalg_solve_resize_warns", "nonzero"}
# PyTorch's mean writes a partial result into out before refusing its dtype; ferric
# leaves out as it was (every failed ferric call does)
PARTIAL_WRITE_IN_PYTORCH = {"mean_into_long_raises"}
# PyTorch warns once per process that torch.cholesky / torch.qr are deprecated (so the
# record depends on the order of the cases); ferric does not warn
# PyTorch's kron writes out through a reshaped view, svd writes V through its transpose
# and randn fills a resized out in two steps: their version counters move by 0 / 2 / 1
# more than ferric's one bump per write
VERSIONS_DIFFER = {"kron", "svd", "randn"}
DEPRECATED_ALIAS_WARNINGS = ("torch.cholesky is deprecated", "torch.qr is deprecated")


def _recorded_warnings(want: dict) -> list:
    return [w for w in want["warnings"] if not w[1].startswith(DEPRECATED_ALIAS_WARNINGS)]


def test_fixture_is_pytorch_2_13():
    RECORDING.check_complete()


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_matches_pytorch(name):
    want, got = RECORDING.replay(name, ferric)
    assert got.get("error") == want.get("error"), got.get("error")
    assert got["warnings"] == _recorded_warnings(want)
    assert got.get("same") == want.get("same")
    if name not in VERSIONS_DIFFER:
        assert got.get("versions") == want.get("versions")
    assert len(got["outs"]) == len(want["outs"])
    for g, w in zip(got["outs"], want["outs"], strict=True):
        assert (g["dtype"], g["shape"]) == (w["dtype"], w["shape"])
        if name not in STRIDE_DIFFERS:
            assert g["stride"] == w["stride"]
        tol = 1e-2 if w["dtype"] in ("bfloat16", "float16") else 1e-5
        if name in PARTIAL_WRITE_IN_PYTORCH:
            assert g["values"] == [7] * len(g["values"])
        else:
            assert _close(g["values"], w["values"], tol), (g["values"], w["values"])
    if "result" in want:
        assert _close(got["result"]["values"], want["result"]["values"], 1e-5)
    if "x_after" in want:
        assert _close(got["x_after"], want["x_after"], 1e-5)


@pytest.mark.parametrize("name", ["exp", "tanh", "neg", "arctan", "tril", "round", "nonzero"])
def test_tensor_methods_take_no_out(name):
    # out= is a keyword of the functions; PyTorch's methods take none (and ferric's do
    # not parse it, which keeps a method call as cheap as before)
    x = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert getattr(ferric, name)(x, out=None).tolist() == getattr(x, name)().tolist()
    with pytest.raises(TypeError, match="keyword"):
        getattr(x, name)(out=ferric.empty(2, 2))


def test_relu_has_no_out():
    # (PyTorch: "relu() got an unexpected keyword argument 'out'"; ferric.relu is the
    # method, whose message is Python's for a method without keywords)
    with pytest.raises(TypeError, match="keyword argument"):
        ferric.relu(ferric.ones(2), out=ferric.empty(2))


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "sqrt", "log1p", "erf"])
def test_unary_rows_write_into_out(name):
    x = ferric.tensor([[0.25, 0.5], [1.0, 2.0]])
    o = ferric.empty(2, 2)
    r = getattr(ferric, name)(x, out=o)
    assert r is o
    assert o.tolist() == getattr(ferric, name)(x).tolist()


def test_failed_call_leaves_out_unchanged():
    o = ferric.full((2,), 7, dtype=ferric.long)
    v = o._version
    with pytest.raises(RuntimeError, match="can't be cast"):
        ferric.exp(ferric.ones(2), out=o)
    assert o.tolist() == [7, 7] and o._version == v


@pytest.mark.parametrize("call", [
    lambda a: ferric.linalg.inv_ex(a).info,
    lambda a: ferric.linalg.cholesky_ex(a).info,
    lambda a: ferric.linalg.solve_ex(a, ferric.ones(2)).info,
    lambda a: ferric.linalg.inv_ex(ferric.stack([a, ferric.zeros(2, 2)])).info,
])
def test_linalg_info_is_int32(call):
    # PyTorch's info tensors are int32 (LAPACK's info is a C int)
    info = call(ferric.tensor([[4.0, 1.0], [1.0, 3.0]]))
    assert info.dtype == ferric.int32


def test_linalg_info_values():
    a = ferric.stack([ferric.eye(2), ferric.zeros(2, 2)])
    assert ferric.linalg.inv_ex(a).info.tolist() == [0, 1]
    bad = ferric.tensor([[1.0, 2.0], [2.0, 1.0]])
    assert ferric.linalg.cholesky_ex(bad).info.tolist() == 2
