"""Every public Python-level function, class and method of the documented modules has a
docstring, so ``help()`` and the API reference (``docs/api_pages.py`` lists the
modules) show something for each.

Methods count as documented when ``inspect.getdoc`` finds a docstring, which is what
``help()`` and Sphinx show: an override without its own docstring (``Linear.forward``)
shows the documented base method's.

Names implemented in Rust (the ``_core`` bindings, ``Tensor``'s methods; their
docstrings live in ``src/python/`` and, for the op-table families, are generated from
the rows of ``src/ops/table.rs``) are checked further down: every one needs a docstring
that starts with its PyTorch-style signature line, and their ``>>>`` examples run as
doctests.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import re
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
    for name in MODULES:
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


def _assert_none(missing, what):
    assert not missing, f"{len(missing)} {what}:\n" + "\n".join(missing)


def test_every_public_python_name_has_a_docstring():
    _assert_none(undocumented(), "public names without a docstring")


def test_the_check_sees_a_missing_docstring(monkeypatch):
    import ferric.nn as nn

    monkeypatch.setattr(nn.Linear, "__doc__", None)
    assert "ferric.nn.Linear" in undocumented()


@pytest.mark.parametrize("module", ["ferric.nn", "ferric.optim", "ferric.utils.data"])
def test_modules_are_listed_for_the_reference(module):
    assert module in MODULES


def test_the_reference_index_lists_every_page():
    index = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "api", "index.rst")
    with open(index) as f:
        pages = [ln.strip().removeprefix("_generated/") for ln in f
                 if ln.strip().startswith("_generated/")]
    assert sorted(pages) == sorted(MODULES)


# --- the Rust bindings: signature line and runnable examples ------------------------------
#
# (``tests/test_doctests.py`` runs the examples of the Python-defined names; the doctest
# finder skips builtins, so the bindings' examples are parsed from ``__doc__`` here.)
#
# Every public callable of these namespaces (and every public ``Tensor`` method) needs a
# docstring; the ones implemented in Rust (builtins and method descriptors, which
# ``inspect.signature`` shows only as PyO3's text signature) must start with their
# PyTorch-style signature line, ``name(args) -> result``. Python-defined callables are
# introspectable, so for them the docstring itself is enough.

BINDING_MODULES = ["ferric", "ferric.nn.functional", "ferric.linalg", "ferric.special",
                   "ferric.fft"]


def _namespaces():
    import ferric

    out = []
    for name in BINDING_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        out.append((name, [(n, getattr(module, n)) for n in dir(module)
                           if not n.startswith("_")]))
    tensor = ferric.Tensor
    out.append(("ferric.Tensor", [(n, getattr(tensor, n)) for n in dir(tensor)
                                  if not n.startswith("_")]))
    return out


def _is_binding(obj) -> bool:
    return inspect.isbuiltin(obj) or inspect.ismethoddescriptor(obj)


def _documentable():
    """(qualified name, attribute name, object) of every public callable, once each."""
    out, seen = [], set()
    for where, members in _namespaces():
        for name, obj in members:
            if inspect.ismodule(obj) or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append((f"{where}.{name}", name, obj))
    return out


def _docstring(obj) -> str:
    if inspect.isclass(obj) and not _is_core_class(obj):
        return (inspect.getdoc(obj) or "").strip()
    return (obj.__doc__ or "").strip()


def _doc_problem(names, doc: str, binding: bool) -> str | None:
    """What is wrong with ``doc`` as the docstring of a callable called ``names``."""
    if not doc:
        return "no docstring"
    first = doc.splitlines()[0]
    if binding and not any(first.startswith(f"{n}(") for n in names):
        return f"first line {first!r} is not a signature of {sorted(names)}"
    return None


def _is_core_class(obj) -> bool:
    from ferric import _core

    return getattr(_core, getattr(obj, "__name__", ""), None) is obj


def undocumented_bindings():
    out = []
    for where, name, obj in _documentable():
        names = {name, getattr(obj, "__name__", name)}
        problem = _doc_problem(names, _docstring(obj), _is_binding(obj))
        if problem is not None:
            out.append(f"{where}: {problem}")
    return out


def test_every_public_callable_and_tensor_method_has_a_signature_docstring():
    _assert_none(undocumented_bindings(), "callables without a proper docstring")


@pytest.mark.parametrize("doc, binding, ok", [
    ("zeros(*size, *, dtype=None) -> Tensor\n\nReturns zeros.", True, True),
    ("Returns zeros.\n\nzeros(*size) -> Tensor", True, False),
    ("ones(*size) -> Tensor", True, False),
    ("", True, False),
    ("", False, False),
    ("Returns zeros.", False, True),
])
def test_the_docstring_check_can_fail(doc, binding, ok):
    assert (_doc_problem({"zeros"}, doc, binding) is None) == ok


def test_the_bindings_are_checked_as_bindings():
    import ferric

    assert _is_binding(ferric.zeros) and _is_binding(ferric.Tensor.add_)
    assert _is_binding(ferric.tanh) and not _is_binding(ferric.nn.functional.relu6)


def _hidden_from_doctest(where: str, obj) -> bool:
    """A Python function whose examples tests/test_doctests.py cannot find: one attached
    to ``Tensor`` (no module holds it), or a wrapper whose globals are not its module's
    (the doctest finder only takes functions defined in the module it searches)."""
    if not inspect.isfunction(obj):
        return False
    if where.startswith("ferric.Tensor."):
        return True
    module = sys.modules.get(obj.__module__ or "")
    return module is not None and obj.__globals__ is not vars(module)


def _examples():
    parser = doctest.DocTestParser()
    out = []
    for where, _, obj in _documentable():
        doc = obj.__doc__ if (_is_binding(obj) or _is_core_class(obj)
                              or _hidden_from_doctest(where, obj)) else None
        if doc is None:
            continue
        test = parser.get_doctest(doc, {}, where, None, 0)
        if test.examples:
            out.append(pytest.param(test, id=where))
    return out


def _run(test):
    import ferric

    test.globs = {"ferric": ferric}
    state = ferric.get_rng_state()
    out = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    try:
        runner.run(test, out=out.append)
    finally:
        ferric.set_rng_state(state)
    return runner, "".join(out)


@pytest.mark.parametrize("test", _examples())
def test_binding_examples_run(test):
    runner, report = _run(test)
    assert runner.failures == 0, report


def test_a_wrong_example_fails():
    test = doctest.DocTestParser().get_doctest(
        ">>> ferric.zeros(2)\ntensor([1., 1.])\n", {}, "wrong", None, 0)
    runner, report = _run(test)
    assert runner.failures == 1 and "tensor([0., 0.])" in report


def test_there_are_examples_for_the_bindings():
    # the op-table families and the hand-written bindings: hundreds, not a handful
    assert len(_examples()) > 300


# --- Args and Example sections ----------------------------------------------------------
#
# Every public callable of the namespaces above and every public ``Tensor`` method (and
# every class there but exceptions) has an ``Example:`` section; one that takes arguments
# also has ``Args:``, unless its summary hands the reader to another documented callable,
# as PyTorch's docs do: "Alias for :func:`ferric.abs`", "In-place version of ...",
# "See :func:`ferric.bmm`".

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Examples?):?:?\s*$", re.M)
_DEFERS = re.compile(r"Alias (for|of) |In-place version of |See :(func|meth|class):")


def _parameters(obj, doc: str, binding: bool) -> list[str]:
    """The parameters a reader must be told about (``self``, ``*``, ``/`` excluded)."""
    if binding:  # the signature line: ``name(a, b=1, *, c=None) -> Tensor``
        first = doc.splitlines()[0] if doc else ""
        head = first.split("->")[0]
        inner = head[head.find("(") + 1:head.rfind(")")] if "(" in head else ""
        return [p.strip() for p in inner.split(",") if p.strip() not in ("", "self", "*", "/")]
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters if p not in ("self", "cls")]


_SIGNATURE_LINE = re.compile(r"^[A-Za-z_]\w*\(.*\)( -> .*)?$")


def _summary(doc: str) -> str:
    """The paragraph after the signature line (or the first one, if there is none)."""
    paragraphs = doc.split("\n\n")
    if len(paragraphs) > 1 and _SIGNATURE_LINE.match(paragraphs[0].strip()):
        return paragraphs[1]
    return paragraphs[0]


def _section_problem(obj, doc: str, binding: bool) -> str | None:
    sections = {m.group(1).rstrip("s") for m in _SECTION.finditer(doc)}
    if "Example" not in sections:
        return "no Example: section"
    takes = _parameters(obj, doc, binding)
    if takes and not sections & {"Arg", "Argument", "Parameter"} and not _DEFERS.search(
            _summary(doc)):
        return f"takes {', '.join(takes)} but has no Args: section"
    return None


def incomplete_docstrings():
    out = []
    for where, _, obj in _documentable():
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue  # an exception class: raised, not called
        binding = _is_binding(obj)
        problem = _section_problem(obj, _docstring(obj), binding)
        if problem is not None:
            out.append(f"{where}: {problem}")
    return out


def test_every_callable_has_args_and_an_example():
    incomplete = incomplete_docstrings()
    assert not incomplete, (f"{len(incomplete)} docstrings without Args:/Example: sections:\n"
                            + "\n".join(incomplete))


SIG = "f(a, b=1, *, c=None) -> Tensor"


@pytest.mark.parametrize("doc, binding, problem", [
    (f"{SIG}\n\nDoes f.\n\nArgs:\n    a: x.\n\nExample:\n    >>> 1\n    1", True, None),
    (f"{SIG}\n\nDoes f.\n\nExample:\n    >>> 1\n    1", True, "takes a, b=1, c=None"),
    (f"{SIG}\n\nDoes f.\n\nArgs:\n    a: x.", True, "no Example"),
    (f"{SIG}\n\nAlias for :func:`ferric.g`.\n\nExample:\n    >>> 1\n    1", True, None),
    (f"{SIG}\n\nSee :func:`ferric.g`.\n\nExample:\n    >>> 1\n    1", True, None),
    (f"{SIG}\n\nSee :func:`ferric.g`.", True, "no Example"),
    ("f() -> int\n\nA number.\n\nExample:\n    >>> 1\n    1", True, None),
    ("Does f.\n\nExamples::\n\n    >>> 1\n    1", False, "takes a, b"),
    ("Does f.\n\nArgs:\n    a: x.\n\nExample::\n\n    >>> 1\n    1", False, None),
])
def test_the_section_check_can_fail(doc, binding, problem):
    def f(a, b=1):
        return a

    found = _section_problem(f, doc, binding)
    assert (found is None) if problem is None else (problem in (found or "")), found
