"""CPU autocast against PyTorch 2.13's recorded policy (``tests/fixtures/autocast_cpu``):
the dtype every op returns inside ``ferric.autocast("cpu")`` (the lower-precision list,
the float32 list, the ops in neither, float64 never cast), the values within bfloat16
rounding, the region's state and gradients through the casts."""

from __future__ import annotations

import pytest
from fixture_loader import close as _close
from fixture_loader import load_fixture

import ferric

_cases, FIXTURE = load_fixture("autocast_cpu", "autocast_cases", "autocast_cpu.json")
CASES, STATE, run_case, run_state = _cases.CASES, _cases.STATE, _cases.run_case, _cases.run_state


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


def _cache_len() -> int:
    return ferric._core._autocast_cache_len()


def test_a_weight_used_twice_in_a_region_is_cast_once():
    x = ferric.ones(2, 2)
    w = ferric.ones(2, 2, requires_grad=True)
    with ferric.autocast("cpu"):
        ferric.mm(x, w)
        assert _cache_len() == 1
        ferric.mm(x, w)
        ferric.matmul(x, w)
        assert _cache_len() == 1
        # neither a tensor without grad nor a non-leaf is cached (PyTorch's rule)
        ferric.mm(x, ferric.ones(2, 2))
        ferric.mm(x, w * 2)
        assert _cache_len() == 1
        ferric.mm(x, ferric.ones(2, 2, requires_grad=True))
        assert _cache_len() == 2
    assert _cache_len() == 0


def test_the_cached_cast_is_reused():
    # the second product's weight is the first one's cast: the same bfloat16 values even
    # after the float32 weight changed in place inside the region (PyTorch's cache too)
    x = ferric.eye(2)
    w = ferric.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with ferric.autocast("cpu"):
        a = ferric.mm(x, w)
        with ferric.no_grad():
            w.mul_(10)
        b = ferric.mm(x, w)
    assert b.tolist() == a.tolist()
    with ferric.autocast("cpu"):
        c = ferric.mm(x, w)
    assert c.tolist() == [[10.0, 20.0], [30.0, 40.0]]


def test_cache_disabled_region_caches_nothing():
    w = ferric.ones(2, 2, requires_grad=True)
    with ferric.autocast("cpu", cache_enabled=False):
        assert not ferric.is_autocast_cache_enabled()
        ferric.mm(ferric.ones(2, 2), w)
        assert _cache_len() == 0
    assert ferric.is_autocast_cache_enabled()


def test_the_cache_lives_until_the_outermost_region_exits():
    w = ferric.ones(2, 2, requires_grad=True)
    with ferric.autocast("cpu"):
        with ferric.autocast("cpu"):
            ferric.mm(ferric.ones(2, 2), w)
        assert _cache_len() == 1
        ferric.clear_autocast_cache()
        assert _cache_len() == 0
        ferric.mm(ferric.ones(2, 2), w)
        assert _cache_len() == 1
    assert _cache_len() == 0


def test_the_cache_is_emptied_when_a_region_exits_by_an_exception():
    w = ferric.ones(2, 2, requires_grad=True)
    with pytest.raises(ValueError), ferric.autocast("cpu"):
        ferric.mm(ferric.ones(2, 2), w)
        raise ValueError
    assert _cache_len() == 0
