"""The Rust crate's modules form layers, and no modules import each other in a circle.

The layers (also in `docs/ARCHITECTURE.md`), highest first:

    python      PyO3 bindings: convert arguments, call autograd or ops, map errors
    autograd    the graph tape: ops on graph variables (`Var`), the backward engine
    ops         tensor-level ops: check arguments, allocate outputs, call kernels
    tensor      the `Tensor` type (storage + layout + dtype); copies through kernels
    kernels     loops over slices and strides: no Tensor, no tape, no pyo3, no errors
    base        dtype, error, shape, layout, storage, memory_order, threads

A module may use its own layer and the layers below it, with two exceptions:
- only `ops` and `tensor` use `kernels`: the bindings and the tape reach a kernel
  through an ops function (or a type that an ops module re-exports);
- `kernels` use only `dtype`, `shape`, `layout` and `threads`. Kernels get checked
  arguments and allocated outputs, so they cannot fail (no `error`) and never see a
  buffer's owner (no `storage`, no `memory_order`); an interrupted kernel reports it
  through `threads`, and the op turns that into an error.
The base modules use only each other.

Inside any module, sibling files/modules must not import each other in a circle (`a`
uses `b` and `b` uses `a`, directly or through other siblings): neither could be read,
tested or moved without the other. A parent and its own children may refer to each other
(`mod.rs` as a family's facade, `super::` helpers).

The graph is read from the source text: `use` trees of `crate::`/`super::`/`self::`/
child-module paths (braces, globs, `as`), such paths in code (`crate::a::b::f(..)`),
paths through an imported module (`use crate::ops; ops::unary::f()`), `#[macro_export]`
macros (attributed to the file defining them) and `pub use` re-exports: one made by an
ancestor of the defining file (a family's `mod.rs`, the crate root) is followed to that
file; one made elsewhere (`ops::conv::pool` re-exporting the kernel's `AvgRule`) makes
the re-exporting module the item's home. Paths in macro arguments count where they are
written. Comments, string literals and test code (`#[cfg(test)]` items, `tests.rs`
files) are left out: tests may use anything.
"""

from __future__ import annotations

import pathlib
import re
from collections import defaultdict

import pytest
from graphs import strongly_connected

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

# The base modules `kernels` may use (see the module docstring for why these).
KERNEL_BASE = {"dtype", "layout", "shape", "threads"}
BASE = KERNEL_BASE | {"error", "storage", "memory_order"}
# What each top-level module may use besides itself.
ALLOWED: dict[str, set[str]] = {
    "python": BASE | {"tensor", "ops", "autograd"},
    "autograd": BASE | {"tensor", "ops"},
    "ops": BASE | {"tensor", "kernels"},
    "tensor": BASE | {"kernels"},
    "kernels": set(KERNEL_BASE),
    **{m: set(BASE) for m in BASE},
}

# Sibling circles and layer-skipping edges that may stay, as sorted tuples of module
# paths / (from, to) pairs. None today: the op tables (issue 14) removed the last ones
# (autograd binary <-> unary, ops binary <-> unary, autograd -> kernels::strided).
ALLOWED_CYCLES: set[tuple[str, ...]] = set()
ALLOWED_EDGES: set[tuple[str, str]] = set()

_TOKEN = re.compile(r"\$?[A-Za-z_][A-Za-z0-9_]*|::|\S")
_SPECIAL = re.compile(r'//|/\*|b?r#*"|"|\'')
_CHAR = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'")
_STRING_END = re.compile(r'\\.|"', re.S)


def strip_code(text: str) -> str:
    """`text` with comments, string and char literals blanked out (newlines kept)."""
    out = []
    i = 0
    while (m := _SPECIAL.search(text, i)) is not None:
        out.append(text[i:m.start()])
        s, tok = m.start(), m.group()
        if tok == "//":
            j = text.find("\n", s)
            j = len(text) if j < 0 else j
        elif tok == "/*":
            depth, j = 1, s + 2
            while depth and j < len(text):
                nxt = min((k for k in (text.find("/*", j), text.find("*/", j)) if k >= 0),
                          default=len(text))
                depth += 1 if text.startswith("/*", nxt) else -1
                j = nxt + 2
        elif tok == "'":
            c = _CHAR.match(text, s)  # a char literal, else a lifetime or label
            j = c.end() if c else s + 1
            out.append("' '" if c else "'")
            i = j
            continue
        elif tok.endswith('"') and "r" in tok and not (s and (text[s - 1].isalnum()
                                                               or text[s - 1] == "_")):
            end = text.find('"' + tok[tok.index("r") + 1:-1], m.end())
            j = len(text) if end < 0 else end + len(tok) - tok.index("r") - 1
        else:  # a plain string (possibly right after an identifier ending in b or r)
            if tok != '"':
                out.append(tok[:-1])
                s = m.end() - 1
            j = s + 1
            while (e := _STRING_END.search(text, j)) is not None and e.group() != '"':
                j = e.end()
            j = len(text) if e is None else e.end()
            out.append('""')
        out.append("\n" * text.count("\n", s, j))
        i = j
    out.append(text[i:])
    return "".join(out)


def tokens(text: str) -> list[tuple[str, int]]:
    """(token, line) pairs of stripped source."""
    code = strip_code(text)
    line_starts = [0] + [m.end() for m in re.finditer("\n", code)]
    out = []
    line = 0
    for m in _TOKEN.finditer(code):
        while line + 1 < len(line_starts) and line_starts[line + 1] <= m.start():
            line += 1
        out.append((m.group(), line + 1))
    return out


def is_ident(tok: str) -> bool:
    """A name, including a macro's `$crate` and `$metavariable`."""
    return bool(re.fullmatch(r"\$?[A-Za-z_][A-Za-z0-9_]*", tok))


def module_of(path: pathlib.Path, root: pathlib.Path) -> str:
    """`src/a/b.rs` and `src/a/b/mod.rs` -> `a::b`; `src/lib.rs` -> `` (the crate root)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return "::".join(parts)


def join(*parts: str) -> str:
    return "::".join(p for p in parts if p)


class FileScan:
    """What one file declares and refers to, with relative paths still unresolved.

    `refs` holds (scope, segments, line): `scope` is the logical module the path is
    written in (the file's module plus any inline `mod x { }` around it), `segments`
    the path as written, starting with `crate`, `super`, `self` or a plain name.
    """

    def __init__(self, module: str, text: str):
        self.module = module
        self.children: dict[str, bool] = {}  # `mod name;` -> is test-only
        self.uses: list[tuple[str, list[str], str | None, bool, int]] = []
        self.refs: list[tuple[str, list[str], int]] = []
        self.macros: list[str] = []
        self._scan(tokens(text))

    def _scan(self, toks: list[tuple[str, int]]) -> None:
        depth = 0
        inline: list[tuple[str, int]] = []  # (name, depth outside its braces)
        i, n = 0, len(toks)
        test_next = export_next = False
        while i < n:
            tok, line = toks[i]
            scope = join(self.module, *(name for name, _ in inline))
            if tok == "#" and i + 1 < n and toks[i + 1][0] in ("[", "!"):
                j = i + 1 if toks[i + 1][0] == "[" else i + 2
                end = self._matching(toks, j, "[", "]")
                attr = "".join(t for t, _ in toks[j + 1:end])
                test_next |= attr == "cfg(test)"
                export_next |= attr == "macro_export"
                i = end + 1
                continue
            if test_next:
                test_next = False
                if tok == "mod" and i + 2 < n and toks[i + 2][0] == ";":
                    self.children[toks[i + 1][0]] = True
                    i += 3
                else:
                    i = self._skip_item(toks, i)
                continue
            if export_next and tok == "macro_rules" and i + 2 < n:
                self.macros.append(toks[i + 2][0])
                export_next = False
            if tok == "mod" and i + 2 < n and is_ident(toks[i + 1][0]):
                if toks[i + 2][0] == ";":
                    self.children.setdefault(toks[i + 1][0], False)
                    i += 3
                    continue
                if toks[i + 2][0] == "{":
                    inline.append((toks[i + 1][0], depth))
                    depth += 1
                    i += 3
                    continue
            if tok == "use":
                public = self._is_public(toks, i)
                end = i + 1
                while end < n and toks[end][0] != ";":
                    end += 1
                for segs, alias in self._use_tree([t for t, _ in toks[i + 1:end]]):
                    self.uses.append((scope, segs, alias, public, line))
                i = end + 1
                continue
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if inline and inline[-1][1] == depth:
                    inline.pop()
            elif (is_ident(tok) and i + 2 < n and toks[i + 1][0] == "::"
                  and is_ident(toks[i + 2][0]) and (i == 0 or toks[i - 1][0] != "::")):
                segs = [tok]
                j = i + 1
                while j + 1 < n and toks[j][0] == "::" and is_ident(toks[j + 1][0]):
                    segs.append(toks[j + 1][0])
                    j += 2
                self.refs.append((scope, segs, line))
                i = j
                continue
            i += 1

    @staticmethod
    def _matching(toks, i: int, open_: str, close: str) -> int:
        depth = 0
        for j in range(i, len(toks)):
            if toks[j][0] == open_:
                depth += 1
            elif toks[j][0] == close:
                depth -= 1
                if depth == 0:
                    return j
        return len(toks) - 1

    def _skip_item(self, toks, i: int) -> int:
        """Index after the item starting at `i` (`use ...;`, `mod x { }`, `fn f() { }`)."""
        for j in range(i, len(toks)):
            if toks[j][0] == ";":
                return j + 1
            if toks[j][0] == "{":
                end = self._matching(toks, j, "{", "}")
                if toks[i][0] == "use":
                    continue
                return end + 1
        return len(toks)

    @staticmethod
    def _is_public(toks, i: int) -> bool:
        """Whether the `use` at `i` is `pub use` / `pub(crate) use` / `pub(super) use`."""
        if i >= 1 and toks[i - 1][0] == "pub":
            return True
        return i >= 4 and toks[i - 1][0] == ")" and toks[i - 4][0] == "pub"

    @classmethod
    def _use_tree(cls, toks: list[str]) -> list[tuple[list[str], str | None]]:
        """The leaves of a use tree as (segments, alias); a glob has alias None."""
        out: list[tuple[list[str], str | None]] = []

        def walk(i: int, prefix: list[str]) -> int:
            segs = list(prefix)
            while i < len(toks):
                t = toks[i]
                if t == "::":
                    i += 1
                elif t == "{":
                    i += 1
                    while i < len(toks) and toks[i] != "}":
                        i = walk(i, segs)
                        if i < len(toks) and toks[i] == ",":
                            i += 1
                    return i + 1
                elif t == "*":
                    out.append((segs, None))
                    return i + 1
                elif is_ident(t):
                    segs.append(t)
                    i += 1
                    if i < len(toks) and toks[i] == "as":
                        alias = toks[i + 1]
                        out.append((segs, alias))
                        return i + 2
                else:  # `,` or `}` ends this leaf
                    break
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            if segs:
                out.append((segs, segs[-1]))
            return i

        walk(0, [])
        return out


class Crate:
    """The crate's file modules and the dependency edges between them."""

    def __init__(self, root: pathlib.Path, include_tests: bool = False):
        self.root = root
        self.files: dict[str, FileScan] = {}
        self.paths: dict[str, pathlib.Path] = {}
        for path in sorted(root.rglob("*.rs")):
            mod = module_of(path, root)
            self.files[mod] = FileScan(mod, path.read_text())
            self.paths[mod] = path
        self.tests = {m for m in self.files if self._is_test(m)}
        if not include_tests:
            for m in self.tests:
                del self.files[m]
        self.macros = {name: m for m, f in self.files.items() for name in f.macros}
        # per module: alias -> absolute segments, from its `use`s (pub ones are re-exports)
        self.aliases: dict[str, dict[str, list[str]]] = defaultdict(dict)
        self.reexports: dict[str, dict[str, list[str]]] = defaultdict(dict)
        for f in self.files.values():
            for scope, segs, alias, public, _ in f.uses:
                absolute = self.absolute(scope, segs)
                if absolute is not None and alias is not None:
                    self.aliases[scope][alias] = absolute
                    if public:
                        self.reexports[scope][alias] = absolute
        self.edges: dict[str, dict[str, int]] = {}  # from -> {to: first line}
        for m, f in self.files.items():
            out: dict[str, int] = {}
            refs = [(scope, segs, line) for scope, segs, _, _, line in f.uses] + f.refs
            for scope, segs, line in refs:
                absolute = self.absolute(scope, segs)
                target = None if absolute is None else self.resolve(absolute)
                if target is not None and target != m:
                    out.setdefault(target, line)
            self.edges[m] = out

    def _is_test(self, mod: str) -> bool:
        parts = mod.split("::")
        for k in range(1, len(parts) + 1):
            parent, name = "::".join(parts[:k - 1]), parts[k - 1]
            if name == "tests" or (parent in self.files
                                   and self.files[parent].children.get(name)):
                return True
        return False

    def absolute(self, scope: str, segs: list[str]) -> list[str] | None:
        """`segs` written in `scope` as a path from the crate root; None if external."""
        head, rest = segs[0], segs[1:]
        here = scope.split("::") if scope else []
        if head in ("crate", "$crate"):
            return rest
        if head in ("super", "self"):
            rest = list(segs)
            while rest and rest[0] in ("super", "self"):
                if rest[0] == "super":
                    if not here:
                        return None
                    here = here[:-1]
                rest = rest[1:]
            return here + rest
        file_scope = self._file_module(scope)
        children = self.files[file_scope].children if file_scope in self.files else {}
        if head in children and scope == file_scope:
            return here + segs
        for s in (scope, file_scope):
            if head in self.aliases.get(s, {}):
                return self.aliases[s][head] + rest
        return None

    def _file_module(self, logical: str) -> str:
        parts = logical.split("::") if logical else []
        while parts and "::".join(parts) not in self.files:
            parts.pop()
        return "::".join(parts)

    def resolve(self, absolute: list[str], seen: int = 0) -> str | None:
        """The file module defining the item at `absolute` (following re-exports)."""
        if absolute and absolute[0] in self.macros:
            return self.macros[absolute[0]]
        k = len(absolute)
        while k and "::".join(absolute[:k]) not in self.files:
            k -= 1
        mod = "::".join(absolute[:k])
        if k < len(absolute) and seen < 8:
            target = self.reexports.get(mod, {}).get(absolute[k])
            if target is not None and target[:len(absolute[:k])] == absolute[:k]:
                # a parent re-exporting its children's items (a family's `mod.rs`, the
                # crate root) is a facade: the user depends on the defining file. A
                # re-export from elsewhere makes the re-exporting module the item's home.
                return self.resolve(target + absolute[k + 1:], seen + 1)
        return mod if mod in self.files or mod == "" else None


def sibling_cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Circles among siblings: each edge a -> b is lifted to the children of their
    nearest common ancestor; parent <-> child edges are not sibling edges."""
    graphs: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for a, targets in edges.items():
        pa = a.split("::") if a else []
        for b in targets:
            pb = b.split("::") if b else []
            k = 0
            while k < min(len(pa), len(pb)) and pa[k] == pb[k]:
                k += 1
            if k == len(pa) or k == len(pb):
                continue
            parent = "::".join(pa[:k])
            graphs[parent][join(parent, pa[k])].add(join(parent, pb[k]))
    cycles = []
    for graph in graphs.values():
        cycles.extend(strongly_connected(graph))
    return sorted(cycles)


def layering_violations(crate: Crate) -> list[str]:
    found = []
    for a, targets in sorted(crate.edges.items()):
        top_a = a.split("::")[0]
        if not a:
            continue  # lib.rs: declarations and re-exports only
        for b, line in sorted(targets.items()):
            top_b = b.split("::")[0]
            if (b and top_b != top_a and top_b not in ALLOWED.get(top_a, set())
                    and (a, b) not in ALLOWED_EDGES):
                path = crate.paths[a].relative_to(crate.root.parent)
                found.append(f"{path}:{line}: `{a}` uses `{b}` ({top_a} -> {top_b})")
    return found


needs_src = pytest.mark.skipif(
    not SRC.is_dir(), reason="needs the source tree (not in the wheel run)")


@needs_src
def test_no_import_circles_between_sibling_modules():
    cycles = [c for c in sibling_cycles(Crate(SRC).edges) if tuple(c) not in ALLOWED_CYCLES]
    assert not cycles, "sibling modules importing each other in a circle:\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


@needs_src
def test_allowed_cycles_still_exist():
    """An allowlisted circle that has gone must leave the allowlist too."""
    cycles = {tuple(c) for c in sibling_cycles(Crate(SRC).edges)}
    assert ALLOWED_CYCLES <= cycles, f"gone, remove from ALLOWED_CYCLES: {ALLOWED_CYCLES - cycles}"


@needs_src
def test_allowed_edges_still_exist():
    edges = Crate(SRC).edges
    gone = {(a, b) for a, b in ALLOWED_EDGES if b not in edges.get(a, {})}
    assert not gone, f"gone, remove from ALLOWED_EDGES: {gone}"


@needs_src
def test_layers_only_use_layers_below():
    found = layering_violations(Crate(SRC))
    assert not found, "layering violations:\n" + "\n".join(found)


@needs_src
def test_every_top_level_module_has_a_layer():
    tops = {m.split("::")[0] for m in Crate(SRC).files if m}
    assert tops <= set(ALLOWED), f"add to ALLOWED in this file: {tops - set(ALLOWED)}"


# --- the scanner itself, on small made-up crates -------------------------------------


def write_crate(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    root = tmp_path / "src"
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def test_scanner_reads_use_trees_code_paths_and_super(tmp_path):
    root = write_crate(tmp_path, {
        "lib.rs": "pub mod a;\npub mod b;\npub mod k;\npub use a::Thing;\n",
        "a/mod.rs": "mod x;\nmod y;\npub use x::Thing;\n",
        "a/x.rs": "use super::y::{self as why, f};\npub struct Thing;\n",
        "a/y.rs": "pub fn f() { crate::b::g(); let s = \"crate::k::h\"; }\n"
                  "// crate::k::h\nfn u() -> super::Thing { todo() }\n",
        "b.rs": "use crate::{k::{self}, Thing};\npub fn g() { k::deep::h(); }\n",
        "k/mod.rs": "pub mod deep;\n",
        "k/deep.rs": "pub fn h() {}\n#[cfg(test)]\nmod tests { use crate::b::g; }\n",
    })
    crate = Crate(root)
    assert crate.edges["a::x"] == {"a::y": 1}
    # `super::Thing` is the re-export in a/mod.rs, followed to the file defining it
    assert crate.edges["a::y"] == {"b": 1, "a::x": 3}
    # `Thing` through the crate root's re-export; `k::deep` through the imported `k`
    assert crate.edges["b"] == {"k": 1, "a::x": 1, "k::deep": 2}
    assert crate.edges["k::deep"] == {}
    # a::y -> b -> a::x lifts to a circle between `a` and `b` at the crate root
    assert sibling_cycles(crate.edges) == [["a", "b"], ["a::x", "a::y"]]


def test_scanner_finds_layer_violations_and_nested_circles(tmp_path):
    root = write_crate(tmp_path, {
        "lib.rs": "pub mod autograd;\npub mod kernels;\npub mod ops;\nmod python;\n",
        "kernels/mod.rs": "pub mod p;\npub mod q;\n",
        "kernels/p/mod.rs": "pub mod inner;\n",
        "kernels/p/inner.rs": "pub fn f() { super::super::q::g() }\n",
        "kernels/q.rs": "pub struct Rule;\npub fn g() {}\n"
                        "fn k() { crate::ops::h(); crate::kernels::p::inner::f() }\n",
        "ops.rs": "pub use crate::kernels::q::Rule;\npub fn h() { crate::kernels::q::g() }\n",
        # a type re-exported by ops is ops' to hand out; a kernel function is not
        "python.rs": "use crate::ops::Rule;\n",
        "autograd.rs": "fn f() {\n    crate::kernels::q::g()\n}\n",
    })
    crate = Crate(root)
    assert crate.edges["python"] == {"ops": 1}
    assert sibling_cycles(crate.edges) == [["kernels", "ops"], ["kernels::p", "kernels::q"]]
    assert layering_violations(crate) == [
        "src/autograd.rs:2: `autograd` uses `kernels::q` (autograd -> kernels)",
        "src/kernels/q.rs:3: `kernels::q` uses `ops` (kernels -> ops)",
    ]


def test_scanner_skips_test_items_and_strips_literals():
    scan = FileScan("m", "#[cfg(test)]\nuse crate::z::A;\nfn f() { let c = '\"'; }\n"
                         "fn g<'a>(x: &'a str) { crate::y::f(r#\"crate::w\"#) }\n"
                         "#[cfg(test)]\nmod tests;\n"
                         "#[macro_export]\nmacro_rules! mac { () => {} }\n")
    assert [segs for _, segs, *_ in scan.uses] == []
    assert [segs for _, segs, _ in scan.refs] == [["crate", "y", "f"]]
    assert scan.children == {"tests": True}
    assert scan.macros == ["mac"]
