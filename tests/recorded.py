"""Replaying what a fixture generator recorded from PyTorch (``tests/fixtures/<topic>/``,
written with ``tests/fixtures/torch_recorder.py``) on ferric.

A recorded case is an expression over ``torch``, ``F``, ``nn`` and named inputs; here it
runs with ``ferric`` in place of ``torch`` (:func:`env`). The helpers check one recorded
case, repr or error each, so a test module is its table plus these calls.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F
from ferric import nn

FIXTURES = pathlib.Path(__file__).parent / "fixtures"

# relative and absolute tolerance by dtype for values recorded from PyTorch's kernels
POOL_RTOL = {"float64": 1e-12, "float32": 2e-6, "float16": 2e-3, "bfloat16": 1e-2}


def load_fixture(topic, name=None):
    """The JSON fixture ``tests/fixtures/<topic>/<name or topic>.json``."""
    return json.loads((FIXTURES / topic / f"{name or topic}.json").read_text())


def env(**more):
    """The names a recorded expression may use: ``torch`` (ferric), ``F``, ``nn``."""
    return {"torch": ferric, "F": F, "nn": nn, **more}


def close(actual, expected, rtol, what):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64),
                               np.asarray(expected, dtype=np.float64), rtol=rtol, atol=rtol,
                               err_msg=what)


def case_id(case, width=60):
    return f"{case['call'][:width]}-{case['shape']}-{case['dtype']}"


def check_pooling_case(case, rtol, requires_grad=True, check_indices=None):
    """Replays a case of ``torch_recorder.run_pooling_case``: the input ``x`` (and the
    samples ``u`` if recorded), then the output's shape, dtype, values and node, the
    indices when the call returned them, and the input gradient for the recorded upstream
    gradient. ``check_indices(indices, case)`` adds checks of the indices tensor."""
    dtype = getattr(ferric, case["dtype"])
    np_dtype = np.float32 if case["dtype"] == "float32" else np.float64
    x = ferric.tensor(np.asarray(case["values"], dtype=np_dtype).reshape(case["shape"]),
                      dtype=dtype, requires_grad=requires_grad)
    names = env(x=x)
    if "u" in case:
        names["u"] = ferric.tensor(np.asarray(case["u"], dtype=np_dtype).reshape(
            case["u_shape"]), dtype=dtype)
    out = eval(case["call"], names)
    values, indices = out if isinstance(out, tuple) else (out, None)
    assert (indices is None) == ("indices" not in case)
    assert list(values.shape) == case["out_shape"]
    assert values.dtype == dtype
    close(values.detach().reshape(-1).tolist(), case["out"], rtol, "values")
    if indices is not None:
        if check_indices is not None:
            check_indices(indices, case)
        assert indices.reshape(-1).tolist() == case["indices"]
    assert (None if values.grad_fn is None else type(values.grad_fn).__name__) == case["node"]
    if "upstream" in case:
        g = ferric.tensor(np.asarray(case["upstream"], dtype=np_dtype), dtype=dtype)
        values.backward(g.reshape(case["out_shape"]))
        close(x.grad.reshape(-1).tolist(), case["grad_x"], rtol, "grad")
    return values


def check_repr(rec):
    assert repr(eval(rec["expr"], env())) == rec["repr"]


def check_error(err, exact=True):
    """The recorded expression raises PyTorch's exception type with its message (the
    whole message, or with ``exact=False`` a message containing it)."""
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is checked below
        eval(err["expr"], env())
    assert type(info.value).__name__ == err["type"], str(info.value)
    if exact:
        assert str(info.value) == err["message"]
    else:
        assert err["message"] in str(info.value)


def replay_tests(fixture, exact=True, error_seed=None):
    """The tests every recorded fixture has, for a test module to bind at its top level:
    the fixture's PyTorch version, and each recorded repr and error matching PyTorch's
    (``check_repr``, ``check_error``; ``error_seed`` seeds the generator first).

    Usage: ``test_fixture_version, test_repr_matches_pytorch, test_errors_match_pytorch =
    replay_tests(FIXTURE)``."""

    def test_fixture_version():
        assert fixture["torch_version"].startswith("2.13")

    @pytest.mark.parametrize("rec", fixture["reprs"], ids=lambda r: r["expr"])
    def test_repr_matches_pytorch(rec):
        check_repr(rec)

    @pytest.mark.parametrize("err", fixture["errors"], ids=lambda e: e["expr"][:80])
    def test_errors_match_pytorch(err):
        if error_seed is not None:
            ferric.manual_seed(error_seed)
        check_error(err, exact)

    return test_fixture_version, test_repr_matches_pytorch, test_errors_match_pytorch
