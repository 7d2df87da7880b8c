"""Smoke test of the comparison benchmarks (benches/compare.py and the cmp_*.py lists).

Every workload is built tiny (``workloads(scale=...)``) for ferric and NumPy, called once,
and the two results compared where NumPy can run it: a workload whose ferric and NumPy
closures compute different things (or fail) makes the timings it prints meaningless.
Then the driver itself runs once on one small workload and its table and JSON are checked.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

import ferric

BENCHES = Path(__file__).resolve().parent.parent / "benches"
sys.path.insert(0, str(BENCHES))

import compare  # noqa: E402

SCALE = 1e-3
MODULES = sorted(p.stem for p in BENCHES.glob("cmp_*.py"))
SOURCES = compare.workload_sources()
WORKLOADS = [w for f in SOURCES for w in f(SCALE)]


def _as_numpy(result):
    if hasattr(result, "detach"):
        result = result.detach()
    if hasattr(result, "numpy"):
        result = result.numpy()
    return np.asarray(result)


def test_every_cmp_module_is_a_source():
    assert len(SOURCES) == len(MODULES) >= 4
    names = [w.name for w in WORKLOADS]
    assert len(names) == len(set(names)), "workload names must be unique across modules"
    # the full-size list keeps the same names as the tiny one, so --only means the same
    assert names == [w.name for f in SOURCES for w in f(1.0)]


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.name)
def test_workload_runs_and_agrees_with_numpy(w):
    assert w.bytes or w.flops or w.ops, "a workload needs a rate to print"
    got = w.setup(ferric)()
    assert got is not None
    try:
        fn = w.setup(np)
    except NotImplementedError:
        return
    np.testing.assert_allclose(_as_numpy(got), _as_numpy(fn()), rtol=1e-4, atol=1e-5)


@pytest.fixture
def restore_threads(monkeypatch):
    # the driver exports the thread variables and sets ferric's pool size
    for var in compare.THREAD_ENV:
        if var in os.environ:
            monkeypatch.setenv(var, os.environ[var])
        else:
            monkeypatch.delenv(var, raising=False)
    before = ferric.get_num_threads()
    yield
    ferric.set_num_threads(before)


def test_driver_prints_table_and_json(tmp_path, capsys, restore_threads):
    out = tmp_path / "r.json"
    results = compare.main(["--libs", "ferric,numpy", "--min-time", "0", "--scale", "1e-3",
                            "--only", "ew_add_16e6,overhead_*_grad", "--json", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:6] == ["workload", "unit", "ferric", "numpy", "vs", "numpy"]
    add = next(i for i, s in enumerate(lines) if s.startswith("ew_add_16e6 "))
    assert lines[add].endswith("x")  # ferric speed vs numpy
    assert lines[add + 1].split()[0] == "GB/s"
    grad = next(s for s in lines if s.startswith("overhead_add_scalar_requires_grad"))
    assert grad.split()[3] == "-"  # numpy has no autograd
    data = json.loads(out.read_text())
    assert data["results"] == results
    status = {(r["workload"], r["lib"]): r["status"] for r in results}
    assert status == {("ew_add_16e6", "ferric"): "ok", ("ew_add_16e6", "numpy"): "ok",
                      ("overhead_add_scalar_requires_grad", "ferric"): "ok",
                      ("overhead_add_scalar_requires_grad", "numpy"): "unsupported"}
    assert all(r["median_s"] > 0 for r in results if r["status"] == "ok")


@pytest.mark.parametrize("argv", [["--cpu", "--threads", "2"], ["--libs", "jax"],
                                  ["--only", "no_such_workload"]])
def test_driver_rejects_bad_options(argv, restore_threads):
    with pytest.raises(SystemExit):
        compare.main(argv)


def test_only_patterns():
    assert [w.name for w in compare.select(WORKLOADS, "bmm")] == ["bmm_64x128x128", "bmm_512x32x32"]
    assert [w.name for w in compare.select(WORKLOADS, "matmul_1024*,unary_exp*")] == [
        "unary_exp_16e6", "matmul_1024", "matmul_1024_rhs_transposed"]


def _readme_performance_commands():
    """The shell commands of the README's Performance section, split into words: the
    ``python ...`` lines of its code blocks and its inline ```python ...``` commands."""
    readme = (BENCHES.parent / "README.md").read_text()
    section = readme.split("\n## Performance\n", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0] for line in section.splitlines()
                if line.startswith("python ")]
    commands += re.findall(r"`(python [^`]+)`", section)
    return [shlex.split(c) for c in commands]


def test_readme_performance_commands_run_from_a_clone():
    """Every command in the README's Performance section names a file of this repository
    (the shared yardstick only through a variable the text explains), and each ``--only``
    pattern of a ``benches/compare.py`` command selects a workload."""
    commands = _readme_performance_commands()
    assert len(commands) >= 3
    compare_cmds = 0
    for words in commands:
        script = words[1]
        assert "../" not in script, f"{words} reaches outside the repository"
        if script == "$YARDSTICK":
            continue  # the shared yardstick, which the text says where to find
        assert (BENCHES.parent / script).is_file(), words
        if script == "benches/compare.py":
            compare_cmds += 1
            only = words[words.index("--only") + 1]
            for pattern in only.split(","):
                assert compare.select(WORKLOADS, pattern), f"{pattern!r} selects nothing"
    assert compare_cmds >= 2


@pytest.mark.skipif(not (BENCHES.parent.parent / "shared" / "bench" / "workloads.py").exists(),
                    reason="needs ../shared/bench/workloads.py beside the repository")
def test_autobatch_bench_runs_every_variant():
    import subprocess

    out = subprocess.run([sys.executable, str(BENCHES / "autobatch.py"), "--lib", "ferric",
                          "--calls", "1"], capture_output=True, text=True, check=True,
                         env=dict(os.environ, FERRIC_NUM_THREADS="1"), timeout=300).stdout
    times = json.loads(out)
    assert set(times) == {"tree_lstm/eager", "tree_lstm/autobatch", "bilstm/per_sentence",
                          "bilstm/autobatch", "bilstm/packed"}
    assert all(len(v) == 1 and v[0] > 0 for v in times.values())
