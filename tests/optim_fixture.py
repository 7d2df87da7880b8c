"""Reading tests/fixtures/optim_breadth (recorded from PyTorch by its generate.py) and
comparing ferric's optimizer values with it; shared by test_optim_breadth.py and
test_optim_lbfgs.py."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

import ferric

HERE = pathlib.Path(__file__).parent / "fixtures" / "optim_breadth"
FIXTURE = json.loads((HERE / "optim_breadth.json").read_text())
sys.path.insert(0, str(HERE))

# the line-search objectives the generator ran on PyTorch, for the test to run on ferric
from line_search_objectives import line_search_start  # noqa: E402, F401 - re-exported

EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}


def dec(v):
    """A recorded value as ferric values: tagged tensors, tuples and dicts rebuilt."""
    if isinstance(v, dict):
        if "__tensor__" in v:
            return ferric.tensor(v["__tensor__"], dtype=getattr(ferric, v["dtype"]))
        if "__tuple__" in v:
            return tuple(dec(e) for e in v["__tuple__"])
        if "__dict__" in v:
            return {k: dec(e) for k, e in v["__dict__"]}
    if isinstance(v, list):
        return [dec(e) for e in v]
    return v


def deviation(got, want) -> float:
    """max |got - want| over max |want| (0 when both are zero)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = float(np.abs(want).max(initial=0.0))
    err = float(np.abs(got - want).max(initial=0.0))
    return err / scale if scale else err


def assert_ulps(got, want, dtype: str, ulps: float, what: str) -> None:
    """``got`` within ``ulps`` units in the last place of ``want``'s largest element."""
    dev = deviation(got, want)
    assert dev <= ulps * EPS[dtype], (
        f"{what}: off by {dev / EPS[dtype]:.2f} ulps of max|value| (allowed {ulps})")


def assert_same_value(got, want, dtype: str, tol: float, what: str) -> None:
    """Recorded state values: tensors by dtype, shape and a relative deviation of at most
    ``tol``; lists, tuples and dicts element by element; anything else exactly (with
    its type: PyTorch's int ``1`` is not ``1.0``)."""
    if isinstance(want, ferric.Tensor):
        assert isinstance(got, ferric.Tensor), (what, got)
        assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
        assert tuple(got.shape) == tuple(want.shape), (what, got.shape, want.shape)
        dev = deviation(got.tolist(), want.tolist())
        assert dev <= tol, f"{what}: relative deviation {dev:.3g} > {tol:.3g}"
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), (what, got, want)
        for k in want:
            assert_same_value(got[k], want[k], dtype, tol, f"{what}[{k!r}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (what, got, want)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same_value(g, w, dtype, tol, f"{what}[{i}]")
    elif isinstance(want, float) and isinstance(got, float):
        assert abs(got - want) <= tol * abs(want) or got == want, (what, got, want)
    else:
        assert type(got) is type(want) and got == want, (what, got, want)


def assert_state_dict(got: dict, want: dict, dtype: str, tol: float, what: str) -> None:
    """Same layout as PyTorch's state dict (keys and their order at every level, value
    types) and values within ``tol`` (relative to each tensor's largest element)."""
    assert list(got) == list(want) == ["state", "param_groups"], what
    assert_same_value(got["state"], want["state"], dtype, tol, f"{what} state")
    assert_same_value(got["param_groups"], want["param_groups"], dtype, 0.0,
                      f"{what} param_groups")
