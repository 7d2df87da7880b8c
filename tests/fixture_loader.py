"""Loading a PyTorch-recorded fixture (``tests/fixtures/<topic>/``): the case module
beside the json (shared by the generator, run on PyTorch, and the test, run on ferric)
and the recorded json; and the tolerant comparison of recorded values."""

from __future__ import annotations

import importlib
import json
import math
import pathlib
import sys
from types import ModuleType

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def load_fixture(topic: str, cases_module: str, json_name: str) -> tuple[ModuleType, dict]:
    """The case module ``cases_module`` of ``fixtures/<topic>`` and its recorded json."""
    here = FIXTURES / topic
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))
    cases = importlib.import_module(cases_module)
    return cases, json.loads((here / json_name).read_text())


def close(a, b, tol: float) -> bool:
    """Nested lists of numbers equal within ``tol`` (relative and absolute); NaN equals
    NaN."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            close(x, y, tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
