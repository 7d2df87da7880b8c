"""``python -m ferric.distributed.run``: the mpiexec command it builds (Open MPI and
MPICH, one node and several), and a real 2-process run giving every process torchrun's
environment."""

from __future__ import annotations

import json
import os
import sys

import pytest
from mpi_harness import MPI_DIR, needs_mpi, run

from ferric.distributed import run as launcher


def command(argv, flavour="openmpi"):
    return launcher.build_command(launcher.parse_args(argv), "mpiexec", flavour)


def tail(cmd):
    """What follows the python executable: the worker shim and the target."""
    return cmd[cmd.index(sys.executable) + 1:]


@pytest.mark.parametrize("argv,flavour,expected", [
    (["--nproc-per-node", "2", "train.py", "--lr", "0.1"], "openmpi",
     ["-n", "2"]),
    (["--nnodes", "3", "--nproc-per-node", "4", "--hostfile", "hosts", "t.py"], "openmpi",
     ["-n", "12", "--hostfile", "hosts", "--map-by", "ppr:4:node"]),
    (["--nnodes", "2", "--nproc_per_node", "2", "--host", "a,b", "t.py"], "openmpi",
     ["-n", "4", "--host", "a:2,b:2", "--map-by", "ppr:2:node"]),
    (["--nnodes", "2", "--nproc-per-node", "2", "--hostfile", "h", "t.py"], "mpich",
     ["-n", "4", "-f", "h", "-ppn", "2"]),
    (["--nproc-per-node", "2", "--oversubscribe", "--allow-run-as-root", "t.py"], "openmpi",
     ["-n", "2", "--oversubscribe", "--allow-run-as-root"]),
])
def test_mpiexec_command(argv, flavour, expected, monkeypatch):
    for var in ("FERRIC_NUM_THREADS", "OMP_NUM_THREADS", "PYTHONPATH", "MASTER_ADDR",
                "MASTER_PORT", "TORCHELASTIC_RUN_ID"):
        monkeypatch.delenv(var, raising=False)
    cmd = command(argv, flavour)
    assert cmd[0] == "mpiexec"
    head = cmd[1:cmd.index(sys.executable)]
    assert head == expected
    script = argv[next(i for i, a in enumerate(argv) if a.endswith(".py"))]
    assert tail(cmd)[:3] == ["-m", "ferric.distributed._worker", script]


def test_script_arguments_and_module_mode_pass_through():
    cmd = command(["--nproc-per-node", "2", "-m", "pkg.train", "--epochs", "3"])
    assert tail(cmd) == ["-m", "ferric.distributed._worker", "-m", "pkg.train", "--epochs",
                         "3"]


@pytest.mark.parametrize("argv,message", [
    (["--nnodes", "2", "t.py"], "needs --hostfile or --host"),
    (["--nproc-per-node", "0", "t.py"], "must be positive"),
])
def test_bad_arguments_exit_with_usage(argv, message, capsys):
    with pytest.raises(SystemExit):
        launcher.parse_args(argv)
    assert message in capsys.readouterr().err


@needs_mpi
def test_two_processes_get_torchruns_environment():
    proc = run([os.path.join(MPI_DIR, "fail_worker.py"), "env", "--flag", "x"],
               launcher=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = sorted((json.loads(line) for line in proc.stdout.splitlines()
                   if line.startswith("{")), key=lambda r: r["rank"])
    assert [r["rank"] for r in rows] == [0, 1]
    for r, row in enumerate(rows):
        assert row["RANK"] == str(r) and row["WORLD_SIZE"] == "2"
        assert row["LOCAL_RANK"] == str(r) and row["LOCAL_WORLD_SIZE"] == "2"
        assert row["node_local"] == r and row["world"] == 2
        assert row["argv"] == ["env", "--flag", "x"]
        assert row["launched"] is True
        assert row["FERRIC_NUM_THREADS"] == "1"
