"""CPU autocast against PyTorch 2.13's recorded policy (``tests/fixtures/autocast_cpu``):
the dtype every op returns inside ``ferric.autocast("cpu")`` (the lower-precision list,
the float32 list, the ops in neither, float64 never cast), the values within bfloat16
rounding, the region's state and gradients through the casts."""

from __future__ import annotations

import json
import math
import pathlib
import sys

import pytest

import ferric

HERE = pathlib.Path(__file__).parent / "fixtures" / "autocast_cpu"
sys.path.insert(0, str(HERE))

from autocast_cases import CASES, STATE, run_case, run_state  # noqa: E402

FIXTURE = json.loads((HERE / "autocast_cpu.json").read_text())


def _close(a, b, tol: float) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            _close(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _check(got: dict, want: dict) -> None:
    assert got.keys() == want.keys(), (got, want)
    for key, w in want.items():
        g = got[key]
        if key == "tuple":
            for gi, wi in zip(g, w, strict=True):
                _check(gi, wi)
        elif key == "values":
            # both libraries round the result to bfloat16 (8 significant bits) once;
            # reductions inside may round in a different order
            tol = 3e-2 if want.get("dtype") in ("bfloat16", "float16") else 1e-2
            assert _close(g, w, tol), (g, w)
        else:
            assert g == w, (key, g, w)


def test_fixture_is_pytorch_2_13():
    assert FIXTURE["torch_version"].startswith("2.13")


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_under_autocast(name):
    _check(run_case(ferric, CASES[name]), FIXTURE["cases"][name])


@pytest.mark.parametrize("name", sorted(STATE))
def test_region_state(name):
    _check(run_state(ferric, STATE[name]), FIXTURE["state"][name])


def test_outside_a_region_nothing_is_cast():
    x = ferric.ones(2, 2)
    assert (x @ x).dtype == ferric.float32
    assert ferric._core._autocast_cpu_dtype() is None


def test_region_state_is_restored_after_an_exception():
    with pytest.raises(ValueError), ferric.autocast("cpu"):
        raise ValueError
    assert ferric._core._autocast_cpu_dtype() is None
    assert not ferric.is_autocast_enabled("cpu")


def test_set_autocast_enabled_switches_the_casts():
    try:
        ferric.set_autocast_enabled("cpu", True)
        assert ferric.mm(ferric.ones(2, 2), ferric.ones(2, 2)).dtype == ferric.bfloat16
    finally:
        ferric.set_autocast_enabled("cpu", False)
    assert ferric.mm(ferric.ones(2, 2), ferric.ones(2, 2)).dtype == ferric.float32


def test_linear_layer_trains_under_autocast():
    lin = ferric.nn.Linear(3, 2)
    x = ferric.ones(4, 3)
    with ferric.autocast("cpu"):
        y = lin(x)
        loss = ferric.nn.functional.mse_loss(y, ferric.zeros(4, 2))
    assert y.dtype == ferric.bfloat16 and loss.dtype == ferric.float32
    loss.backward()
    assert lin.weight.grad.dtype == ferric.float32
