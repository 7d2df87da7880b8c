"""The Python package `ferric` has no import circles.

The graph is read from the source with `ast` (nothing is imported), one node per file:
`ferric/nn/functional.py` is `ferric.nn.functional`, `ferric/nn/__init__.py` is
`ferric.nn`, and `_core.pyi` stands for the compiled extension `ferric._core` (a leaf).
An edge `a -> b` means a statement in `a` imports `b`:

- `import ferric.x.y` and `from ferric.x import y` / `from .x import y` name a module;
  `from P import n` points at the module `P.n` when `n` is a submodule (as
  `from . import functional` in `nn/__init__.py` does), and at the package `P` itself
  when `n` is a name defined in its `__init__.py` (`from .. import Size`).
- Imports inside functions count too. A lazy import only postpones the circle to the
  first call; the point of the rule is layering, so it sees every dependency. Blocks under
  `if TYPE_CHECKING:` are left out: they never run.
- Importing `P.x` is an edge to `P.x` only, not also to its parent packages. Python does
  run `P/__init__.py` first, but a package that imports its own submodules (the usual
  re-export) would otherwise form a circle with every one of them. What is forbidden is
  a submodule depending on its package's `__init__` for a *name* (`from .. import Size`),
  since that `__init__` imports the submodule: shared names live in a lower module.

The same holds one level up (:func:`subpackage_graph`): with every module of a
subpackage merged into one node (``ferric.nn.modules.rnn`` into ``ferric.nn``) and the
top-level ``ferric/__init__.py`` (which imports everything to build the namespace) left
out, the subpackages and top-level modules form layers. So ``ferric.nested``, built on
``ferric.nn``, reaches ``nn`` only through the hook it registers into
(``ferric/nn/_nested_hook.py``), never by ``nn`` importing it.

No exemptions.
"""

from __future__ import annotations

import ast
import pathlib

import pytest
from graphs import strongly_connected

PKG = pathlib.Path(__file__).resolve().parent.parent / "python" / "ferric"


def module_files(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every `.py` under `root` (the package directory),
    plus `.pyi` stubs without a `.py` beside them (compiled modules)."""
    out: dict[str, pathlib.Path] = {}
    for path in sorted(root.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        if path.suffix == ".pyi" and path.with_suffix(".py").exists():
            continue
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """The modules of `known` that one file imports, anywhere but under TYPE_CHECKING."""

    def __init__(self, name: str, is_package: bool, known: set[str], top: str):
        self.package = name if is_package else name.rpartition(".")[0]
        self.known, self.top = known, top
        self.found: set[str] = set()
        self.unresolved: list[str] = []

    def _add(self, module: str, lineno: int):
        if module in self.known:
            self.found.add(module)
        elif module == self.top or module.startswith(self.top + "."):
            self.unresolved.append(f"line {lineno}: {module}")

    def visit_If(self, node: ast.If):
        if not _is_type_checking(node.test):
            self.visit(node.test)
            for stmt in node.body:
                self.visit(stmt)
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Import(self, node: ast.Import):
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        for alias in node.names:
            sub = f"{source}.{alias.name}"
            self._add(sub if sub in self.known else source, node.lineno)


def import_graph(root: pathlib.Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports (see the module docstring for the rule)."""
    files = module_files(root)
    known = set(files)
    graph: dict[str, set[str]] = {}
    unresolved = []
    for name, path in files.items():
        if path.suffix == ".pyi":
            graph[name] = set()
            continue
        v = _Imports(name, path.name == "__init__.py", known, root.name)
        v.visit(ast.parse(path.read_text(), str(path)))
        graph[name] = v.found - {name}
        unresolved += [f"{name} {u}" for u in v.unresolved]
    assert not unresolved, "imports of modules that do not exist:\n" + "\n".join(unresolved)
    return graph


def _shortest_path(graph: dict[str, set[str]], src: str, dst: str, within: set[str]):
    """The shortest import chain `src -> ... -> dst` through modules of `within`."""
    prev = {src: src}
    frontier = [src]
    while frontier and dst not in prev:
        nxt = []
        for node in frontier:
            for child in sorted(graph[node] & within):
                if child not in prev:
                    prev[child] = node
                    nxt.append(child)
        frontier = nxt
    path = [dst]
    while path[-1] != src:
        path.append(prev[path[-1]])
    return path[::-1]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """For every import that lies on a circle, the shortest circle through it, written
    from its smallest module name: `[a, b, a]` for `a -> b -> a`. (Listing every
    elementary circle instead would run to thousands once a package `__init__` is on one;
    this lists each import that could be the one to remove.)"""
    out = set()
    for comp in strongly_connected(graph):
        members = set(comp)
        for u in comp:
            for v in sorted(graph[u] & members):
                ring = [u] + _shortest_path(graph, v, u, members)[:-1]
                k = ring.index(min(ring))
                ring = ring[k:] + ring[:k]
                out.add(tuple(ring + ring[:1]))
    return sorted(list(c) for c in out)


def subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph with each subpackage merged into one node (``ferric.nn.*`` ->
    ``ferric.nn``) and the package's own ``__init__`` left out."""
    top = min(graph, key=len)

    def unit(m):
        return ".".join(m.split(".")[:2])

    out: dict[str, set[str]] = {}
    for m, deps in graph.items():
        if m == top:
            continue
        u = unit(m)
        out.setdefault(u, set()).update(unit(d) for d in deps if unit(d) != u)
    for deps in list(out.values()):
        for d in deps:
            out.setdefault(d, set())
    return out


@pytest.mark.skipif(not PKG.is_dir(), reason="needs the source tree")
def test_no_import_cycles_in_the_python_package():
    graph = import_graph(PKG)
    assert len(graph) > 50 and "ferric.nn.functional" in graph["ferric.nn"]
    found = cycles(graph)
    assert not found, f"{len(found)} import cycles in python/ferric:\n" + "\n".join(
        " -> ".join(c) for c in found)


@pytest.mark.skipif(not PKG.is_dir(), reason="needs the source tree")
def test_no_import_cycles_between_subpackages():
    graph = subpackage_graph(import_graph(PKG))
    assert "ferric.nn" in graph["ferric.nested"] and "ferric.nested" not in graph["ferric.nn"]
    found = cycles(graph)
    assert not found, f"{len(found)} import cycles between subpackages:\n" + "\n".join(
        " -> ".join(c) for c in found)


def test_every_nested_route_has_a_handler():
    # the hook's two halves: nn.functional's routed functions and nested's handlers
    import ferric  # noqa: F401  (imports ferric.nested, which registers the handlers)
    from ferric.nn import _nested_hook

    assert _nested_hook._nested_type is ferric.nested.NestedTensor
    assert {"relu", "linear", "scaled_dot_product_attention"} <= _nested_hook._routed
    assert _nested_hook.unhandled() == set()
    # and every handler but the layers' has its routed function (a name in nested's
    # _ROWWISE whose nn.functional function is not routed would never be reached)
    layers = {"RNNBase.forward", "MultiheadAttention.forward"}
    assert set(_nested_hook._handlers) - _nested_hook._routed == layers


def _write(root: pathlib.Path, files: dict[str, str]):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_the_scanner_sees_lazy_and_package_level_cycles(tmp_path):
    pkg = tmp_path / "pkg"
    _write(pkg, {
        "__init__.py": "from . import a, sub\nVERSION = 1\n",
        "_ext.pyi": "def f() -> int: ...\n",
        "a.py": "from . import _ext\nfrom .sub import b\n",
        # a lazy import inside a function is an edge: b -> a -> b
        "sub/__init__.py": "from .b import g\n",
        "sub/b.py": "def g():\n    from ..a import _ext\n    return _ext\n",
        # a name from the package's __init__ is an edge to the package: c -> pkg -> c
        "c.py": "import pkg.sub.b\ndef v():\n    from . import VERSION\n    return VERSION\n",
        # TYPE_CHECKING imports never run and are not edges
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import e\n",
        "e.py": "from . import d\n",
    })
    (pkg / "__init__.py").write_text("from . import a, c, d, e, sub\nVERSION = 1\n")
    graph = import_graph(pkg)
    assert graph["pkg"] == {"pkg.a", "pkg.c", "pkg.d", "pkg.e", "pkg.sub"}
    assert graph["pkg.a"] == {"pkg._ext", "pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.a"}
    assert graph["pkg.c"] == {"pkg", "pkg.sub.b"}
    assert graph["pkg.d"] == set() and graph["pkg.e"] == {"pkg.d"}
    assert graph["pkg._ext"] == set()
    assert cycles(graph) == [["pkg", "pkg.c", "pkg"], ["pkg.a", "pkg.sub.b", "pkg.a"]]
    # one level up: pkg.a <-> pkg.sub is a circle between the subpackage and a module
    assert cycles(subpackage_graph(graph)) == [["pkg.a", "pkg.sub", "pkg.a"]]


def test_the_scanner_rejects_imports_of_missing_modules(tmp_path):
    pkg = tmp_path / "pkg"
    _write(pkg, {"__init__.py": "", "a.py": "from .nothere import x\n"})
    with pytest.raises(AssertionError, match=r"pkg.a line 1: pkg.nothere"):
        import_graph(pkg)
