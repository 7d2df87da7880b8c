"""The per-process entry of ``python -m ferric.distributed.run``:
``python -m ferric.distributed._worker [-m] target args...``.

Sets torchrun's environment variables from the MPI launcher's, runs the target as
``__main__``, and turns an uncaught exception into the end of the whole job: the
traceback is printed, then ``MPI_Abort`` (when MPI is running in this process) or a
plain non-zero exit, which ``mpiexec`` answers by stopping the other processes.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback

_RANK = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK")
_SIZE = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
_LOCAL_RANK = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK")
_LOCAL_SIZE = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE")


def _first(names, default):
    for n in names:
        if os.environ.get(n):
            return os.environ[n]
    return default


def set_environment() -> None:
    """RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and GROUP_RANK (the node's index),
    from the MPI launcher's variables (kept when already set)."""
    rank = int(_first(_RANK, "0"))
    size = int(_first(_SIZE, "1"))
    local_rank = int(_first(_LOCAL_RANK, "0"))
    local_size = int(_first(_LOCAL_SIZE, "1"))
    for name, value in (("RANK", rank), ("WORLD_SIZE", size), ("LOCAL_RANK", local_rank),
                        ("LOCAL_WORLD_SIZE", local_size),
                        ("GROUP_RANK", rank // max(local_size, 1)),
                        ("ROLE_RANK", rank), ("ROLE_WORLD_SIZE", size)):
        os.environ.setdefault(name, str(value))


def _end_job(code: int) -> None:
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        if mpi.COMM_WORLD.Get_size() > 1:
            sys.stderr.write(f"[rank {os.environ.get('RANK')}] aborting the MPI job\n")
            sys.stderr.flush()
            mpi.COMM_WORLD.Abort(code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: list[str]) -> None:
    as_module = bool(argv) and argv[0] == "-m"
    if as_module:
        argv = argv[1:]
    if not argv:
        sys.exit("usage: python -m ferric.distributed._worker [-m] target [args...]")
    set_environment()
    sys.argv = list(argv)
    try:
        if as_module:
            runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code:
            if not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
            _end_job(code)
        raise
    except BaseException:  # noqa: BLE001 - any failure must end the job
        traceback.print_exc()
        _end_job(1)


if __name__ == "__main__":
    main(sys.argv[1:])
