"""Every public Python-level function, class and method of the documented modules has a
docstring, so ``help()`` and the API reference (``docs/api_pages.py`` lists the
modules) show something for each.

Methods count as documented when ``inspect.getdoc`` finds a docstring, which is what
``help()`` and Sphinx show: an override without its own docstring (``Linear.forward``)
shows the documented base method's. Names implemented in Rust (the ``_core`` bindings,
``Tensor``'s methods) are counted but not required here: their docstrings live in
``src/python/``.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "docs"))

from api_pages import MODULES, public_names  # noqa: E402


def _python_defined(obj) -> bool:
    from ferric import _core

    module = getattr(obj, "__module__", None) or ""
    if not module.startswith("ferric") or module.startswith("ferric._core"):
        return False
    if getattr(_core, getattr(obj, "__name__", ""), None) is obj:  # a Rust class
        return False
    try:
        return inspect.getsourcefile(obj) is not None
    except TypeError:  # a builtin: the Rust extension
        return False


def _modules():
    out = []
    for name, _, _ in MODULES:
        try:
            out.append(importlib.import_module(name))
        except ImportError as e:  # only an optional dependency (tensorboard) may be missing
            cause = e.__cause__ if e.__cause__ is not None else e
            if getattr(cause, "name", None) != "tensorboard":
                raise
    return out


def undocumented():
    missing, seen = [], set()
    for module in _modules():
        for name in public_names(module):
            obj = getattr(module, name, None)
            if obj is None or id(obj) in seen or not callable(obj):
                continue
            seen.add(id(obj))
            where = f"{module.__name__}.{name}"
            if not _python_defined(obj):
                continue
            if not (obj.__doc__ or "").strip():
                missing.append(where)
            if not inspect.isclass(obj):
                continue
            for attr, raw in vars(obj).items():
                if attr.startswith("_"):
                    continue
                target = raw.fget if isinstance(raw, property) else getattr(raw, "__func__", raw)
                if not inspect.isfunction(target):
                    continue
                doc = raw.__doc__ if isinstance(raw, property) else inspect.getdoc(
                    getattr(obj, attr))
                if not (doc or "").strip():
                    missing.append(f"{where}.{attr}")
    return missing


def test_every_public_python_name_has_a_docstring():
    missing = undocumented()
    assert not missing, f"{len(missing)} public names without a docstring:\n" + "\n".join(
        missing)


def test_the_check_sees_a_missing_docstring(monkeypatch):
    import ferric.nn as nn

    monkeypatch.setattr(nn.Linear, "__doc__", None)
    assert "ferric.nn.Linear" in undocumented()


@pytest.mark.parametrize("module", ["ferric.nn", "ferric.optim", "ferric.utils.data"])
def test_modules_are_listed_for_the_reference(module):
    assert module in [m for m, _, _ in MODULES]


def test_the_reference_index_lists_every_page():
    index = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "api", "index.rst")
    with open(index) as f:
        pages = [ln.strip().removeprefix("_generated/") for ln in f
                 if ln.strip().startswith("_generated/")]
    assert sorted(pages) == sorted(m for m, _, _ in MODULES)
