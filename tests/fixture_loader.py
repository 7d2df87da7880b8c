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


class Recording:
    """A fixture whose case module has ``CASES`` (name -> case) and ``run_case(torch,
    case)``: ``module`` is the case module, ``fixture`` the recorded json, ``recorded``
    its ``"cases"`` (name -> what PyTorch did)."""

    def __init__(self, topic: str, cases_module: str, json_name: str):
        self.module, self.fixture = load_fixture(topic, cases_module, json_name)
        self.cases, self.recorded = self.module.CASES, self.fixture["cases"]

    def check_complete(self) -> None:
        """The recording is PyTorch 2.13's and holds exactly the module's cases."""
        assert self.fixture["torch_version"].startswith("2.13")
        assert set(self.recorded) == set(self.cases)

    def replay(self, name: str, lib) -> tuple[dict, dict]:
        """What PyTorch recorded for case ``name`` and what ``lib`` does on it now."""
        return self.recorded[name], self.module.run_case(lib, self.cases[name])


def json_safe(v):
    """``v`` (a Python value or nested lists of them) as JSON holds it: NaN and the
    infinities as the strings ``'nan'``, ``'inf'``, ``'-inf'`` (fixture generators write
    these; :func:`from_json_safe` reads them back)."""
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def from_json_safe(v):
    """The inverse of :func:`json_safe`."""
    if isinstance(v, list):
        return [from_json_safe(x) for x in v]
    return float(v) if v in ("nan", "inf", "-inf") else v
