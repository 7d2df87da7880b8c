"""Comparison of a ferric case outcome with a PyTorch-recorded one (the descriptions of
``fixtures/extra_ops/extra_ops_cases.describe``): values to float64 rounding, dtypes,
shapes, exception types, warning classes."""

from __future__ import annotations

import math


def _close(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6) or a == b
    return a == b


def assert_same(want, got, path="result"):
    """Asserts ``got`` (ferric) matches ``want`` (PyTorch), naming the first difference."""
    if "error" in want:
        assert "error" in got, f"{path}: PyTorch raised {want}, ferric returned {got}"
        assert got["error"] == want["error"], f"{path}: PyTorch {want}, ferric {got}"
        return
    assert "error" not in got, f"{path}: ferric raised {got}, PyTorch returned {want}"
    assert want.keys() == got.keys(), f"{path}: PyTorch {want}, ferric {got}"
    if "seq" in want:
        assert len(want["seq"]) == len(got["seq"]), f"{path}: lengths differ"
        for i, (w, g) in enumerate(zip(want["seq"], got["seq"], strict=True)):
            assert_same(w, g, f"{path}[{i}]")
    elif "tensor" in want:
        assert got["dtype"] == want["dtype"], f"{path}: dtype {got['dtype']} != {want['dtype']}"
        assert got["shape"] == want["shape"], f"{path}: shape {got['shape']} != {want['shape']}"
        assert _close(want["tensor"], got["tensor"]), \
            f"{path}: values {got['tensor']} != {want['tensor']}"
    else:
        key = "size" if "size" in want else "value"
        assert _close(want[key], got[key]), f"{path}: {got[key]!r} != {want[key]!r}"


def assert_same_case(want, got, name):
    """A case outcome of ``extra_ops_cases.run_case`` on ferric (``got``) matches the
    recorded PyTorch one (``want``): the result, then the warning classes."""
    assert_same(want["result"], got["result"], name)
    assert got["warnings"] == want["warnings"], \
        f"{name}: warnings {got['warnings']} != PyTorch's {want['warnings']}"
