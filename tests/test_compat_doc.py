"""docs/compat.md (the share of PyTorch's public names ferric has) is the committed output
of tools/compat.py: it renders exactly from its data file, and every name it says ferric
has exists in ferric, so the page cannot silently claim more than ferric offers. (The
generator needs PyTorch; these checks do not.)"""

from __future__ import annotations

import importlib
import importlib.util
import json
from pathlib import Path

import pytest

import ferric

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "compat.md"
DATA = ROOT / "docs" / "compat.json"


def _generator():
    spec = importlib.util.spec_from_file_location("compat_generator", ROOT / "tools" / "compat.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


DATA_JSON = json.loads(DATA.read_text())
SPACES = DATA_JSON["namespaces"]


def test_page_is_the_generators_rendering_of_its_data():
    assert DOC.read_text() == _generator().render(DATA_JSON)


def test_page_covers_the_namespaces_the_readme_names():
    labels = {ns["label"] for ns in SPACES}
    assert {"torch", "Tensor", "nn", "nn.functional", "optim", "optim.lr_scheduler",
            "linalg", "special", "fft", "autograd", "utils.data", "distributions"} <= labels
    assert sum(len(ns["names"]) for ns in SPACES) > 2000
    readme = (ROOT / "README.md").read_text()
    assert "(docs/compat.md)" in readme


def _ferric_object(path):
    parts = path.split(".")
    assert parts[0] == "ferric"
    obj = ferric
    for i, part in enumerate(parts[1:], 1):
        if not hasattr(obj, part):
            try:
                importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                return None
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


@pytest.mark.parametrize("ns", SPACES, ids=[ns["label"] for ns in SPACES])
def test_every_name_claimed_present_exists_in_ferric(ns):
    assert ns["names"] == sorted(set(ns["names"]))
    assert set(ns["present"]) <= set(ns["names"])
    obj = _ferric_object(ns["ferric"])
    assert (obj is not None) == ns["ferric_exists"], ns["ferric"]
    if ns["kind"] == "operators":
        # a dunder counts only when ferric's class defines it (not object's default)
        own = set().union(*(vars(c) for c in obj.__mro__ if c is not object))
        missing = [n for n in ns["present"] if n not in own]
    else:
        missing = [n for n in ns["present"] if not hasattr(obj, n)]
    assert not missing, f"docs/compat.md says {ns['ferric']} has {missing}"
