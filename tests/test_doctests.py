"""Runs the ``>>>`` examples in the package's docstrings (pydantic-core style), so the
documented examples cannot drift from what ferric does.

Every module under ``ferric`` is collected; modules without examples are skipped. Output
that depends on random numbers or the machine is marked in the docstring itself
(``# doctest: +ELLIPSIS`` / ``+SKIP``), never here.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ferric

FLAGS = doctest.NORMALIZE_WHITESPACE

# optional dependencies: a module that needs one is left out when it is not installed
# (``ferric.utils.tensorboard`` needs the ``tensorboard`` extra)
OPTIONAL = {"tensorboard"}


def _missing_optional(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError as e:
        cause = e if isinstance(e, ModuleNotFoundError) else e.__cause__
        if isinstance(cause, ModuleNotFoundError) and cause.name in OPTIONAL:
            return True
        raise
    return False


def _modules() -> list[str]:
    names = ["ferric"]
    for info in pkgutil.walk_packages(ferric.__path__, prefix="ferric."):
        names.append(info.name)
    # the Rust extension's examples (``ferric._core``) need ``ferric`` in scope and run in
    # tests/test_docstrings.py
    return sorted(n for n in names if n != "ferric._core" and not _missing_optional(n))


def _rust_classes() -> set[str]:
    """Where the extension's classes say they live (``ferric.Tensor``, ``ferric.Generator``,
    ``ferric.autograd.graph.Node``, ...)."""
    return {f"{c.__module__}.{c.__qualname__}" for c in vars(ferric._core).values()
            if isinstance(c, type) and not issubclass(c, BaseException)}


def _examples(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    rust = _rust_classes()
    # only docstrings written in this module (not re-exported objects); the Rust classes'
    # examples (``Tensor``'s and the others') run in tests/test_docstrings.py, with
    # ``ferric`` in scope
    return [t for t in finder.find(module, name)
            if t.examples and not any(t.name == c or t.name.startswith(c + ".") for c in rust)]


MODULES = [m for m in _modules() if _examples(m)]


def test_enough_examples_are_collected():
    # guards the collection itself: most public layers and functions carry examples
    total = sum(len(t.examples) for m in MODULES for t in _examples(m))
    assert len(MODULES) >= 25 and total >= 150, (len(MODULES), total)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    state = ferric.get_rng_state()
    ferric.manual_seed(0)
    try:
        for test in _examples(name):
            runner.run(test)
    finally:
        ferric.set_rng_state(state)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
