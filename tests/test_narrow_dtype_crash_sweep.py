"""Narrow-dtype crash sweep (marked ``crash_sweep``; about 30-50 s, in batched
subprocesses): every recipe of ``fixtures/graph_drops/recipes.py`` with its inputs
converted to float16 / bfloat16 / int8 / uint8 / int16 / int32 (and with int32 index
tensors), plus the factories with ``dtype=``, the random fills and ``nn.functional`` over
narrow inputs (``fixtures/narrow_sweep/narrow_cases.py``), must never crash the process
(abort, segfault, ``PanicException``, hang) nor return garbage: a float16/bfloat16 result
must match float32 on the same values. Raising an exception is fine.

The sweep runs once per session in worker subprocesses (``narrow_sweep_driver.py``); the
cases in :data:`KNOWN_CRASHES` run there too, each in a forked child, so their crash
cannot stop the sweep. ``test_no_new_crashes`` fails with the list of new crashing cases
and their one-line repro; ``test_known_crash`` is a strict xfail per known case: once
the Rust fix lands the case passes and the test fails with "remove from
KNOWN_CRASHES". ``python tests/narrow_sweep_driver.py float16 --fork-all`` prints a
report by hand.
"""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "fixtures", "narrow_sweep"))

from narrow_cases import case_ids  # noqa: E402
from narrow_sweep_driver import is_bad, run_ids  # noqa: E402

pytestmark = pytest.mark.crash_sweep

# Cases that crash or return garbage today ("<mode>|<case>"; see narrow_cases.py), by
# likely Rust cause. Remove an entry when its fix lands (test_known_crash tells you).
KNOWN_CRASHES: set[str] = set()  # the 91 found by the first sweep are fixed

# Known crashes that do not show on every run (multinomial reads a half row as float64,
# out of bounds: it aborts only when the stray read hits unmapped or freed memory), so
# their xfail is not strict. Remove them together with their KNOWN_CRASHES entry.
FLAKY = {c for c in KNOWN_CRASHES if "multinomial" in c}

ALL_IDS = case_ids()


@pytest.fixture(scope="module")
def sweep():
    res = run_ids(ALL_IDS, fork=KNOWN_CRASHES)
    # a known crash that looked fine once is re-run (forked) five more times before it
    # counts as fixed: heap corruption does not always show
    maybe_fixed = [c for c in KNOWN_CRASHES if not is_bad(res.get(c, "crash:missing"))]
    for _ in range(5):
        if maybe_fixed:
            again = run_ids(maybe_fixed, fork_all=True)
            res.update({c: r for c, r in again.items() if is_bad(r)})
            maybe_fixed = [c for c in maybe_fixed if not is_bad(again[c])]
    return res


def repro(case_id):
    """A one-line repro of a case (run from the repository root)."""
    return (f"python -c \"import sys; sys.path[:0]=['tests/fixtures/narrow_sweep']; "
            f"import narrow_cases as n; print(n.run_one({case_id!r}))\"")


def test_known_crashes_are_cases():
    assert sorted(KNOWN_CRASHES - set(ALL_IDS)) == []


def test_no_new_crashes(sweep):
    new = sorted(c for c, r in sweep.items() if is_bad(r) and c not in KNOWN_CRASHES)
    assert new == [], "new crashing/garbage cases:\n" + "\n".join(
        f"{c}: {sweep[c]}\n    {repro(c)}" for c in new)


@pytest.mark.parametrize("case_id", [
    pytest.param(c, marks=pytest.mark.xfail(
        strict=c not in FLAKY, reason="known crash; XPASS means it is fixed: remove from "
                                      "KNOWN_CRASHES")) for c in sorted(KNOWN_CRASHES)])
def test_known_crash(sweep, case_id):
    result = sweep[case_id]
    assert not is_bad(result), f"{case_id}: {result}"
