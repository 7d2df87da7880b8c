"""The Rust core has no panic paths outside its tests: no `unwrap()`, `expect(...)`,
`panic!`, `todo!` or `unimplemented!` in library code. A panic inside a binding would
reach Python as pyo3's `PanicException` (a `BaseException` that escapes
`except Exception`), so user-reachable failures must be `Result`s mapped to PyTorch's
exception types. Test modules (`#[cfg(test)]` and `tests.rs` files) may panic freely.
"""

from __future__ import annotations

import pathlib
import re

import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
PANICKY = re.compile(r"\.unwrap\(\)|\.expect\(|\bpanic!\(|\btodo!\(|\bunimplemented!\(")


def library_code(path: pathlib.Path) -> list[tuple[int, str]]:
    """The file's lines before its `#[cfg(test)]` module, comments dropped."""
    lines = path.read_text().split("\n")
    out = []
    for i, line in enumerate(lines, 1):
        if line.strip().startswith("#[cfg(test)]"):
            break
        code = line.split("//", 1)[0]
        out.append((i, code))
    return out


@pytest.mark.skipif(not SRC.is_dir(), reason="needs the source tree (not in the wheel run)")
def test_no_panic_paths_in_library_code():
    found = []
    for path in sorted(SRC.rglob("*.rs")):
        if path.name == "tests.rs" or "tests" in path.parts:
            continue
        for n, code in library_code(path):
            if PANICKY.search(code):
                found.append(f"{path.relative_to(SRC.parent)}:{n}: {code.strip()}")
    assert not found, "panic paths in library code:\n" + "\n".join(found)


def test_the_scanner_sees_a_panic_path(tmp_path):
    f = tmp_path / "x.rs"
    f.write_text("fn f(v: Option<u8>) -> u8 {\n    v.unwrap() // boom\n}\n#[cfg(test)]\n"
                 "mod tests { fn g() { None::<u8>.unwrap(); } }\n")
    hits = [n for n, code in library_code(f) if PANICKY.search(code)]
    assert hits == [2]
