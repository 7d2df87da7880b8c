"""Failure behaviour on real processes. ``mpiexec -n 2 python fail_worker.py MODE``:

- ``raise``: rank 1 raises after ``init_process_group`` while rank 0 waits in a
  collective; the job must end at once with rank 1's traceback (not hang).
- ``timeout``: rank 1 is stuck (sleeps) while rank 0's collective has a 2 s timeout;
  rank 0 must raise ``DistBackendError`` and the job end.
- ``env``: prints the torchrun-style environment as JSON (for the launcher test).
- ``mismatch``: ``WORLD_SIZE`` disagrees with MPI: ``init_process_group`` refuses.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time

from common import dist, ferric


def main(mode):
    if mode == "env":
        dist.init_process_group()
        print(json.dumps({k: os.environ.get(k) for k in (
            "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
            "FERRIC_NUM_THREADS")} | {"rank": dist.get_rank(), "world": dist.get_world_size(),
                                      "node_local": dist.get_node_local_rank(),
                                      "argv": sys.argv[1:],
                                      "launched": dist.is_torchelastic_launched()}),
              flush=True)
        dist.destroy_process_group()
        return
    if mode == "mismatch":  # the environment says 5 processes, MPI started fewer
        os.environ["WORLD_SIZE"] = "5"
        try:
            dist.init_process_group()
        except ValueError as e:
            print(f"ValueError: {e}", flush=True)
        assert not dist.is_initialized()
        return
    timeout = datetime.timedelta(seconds=2 if mode == "timeout" else 60)
    dist.init_process_group("mpi", timeout=timeout)
    rank = dist.get_rank()
    if rank == 1:
        if mode == "raise":
            raise ValueError("boom on rank 1")
        time.sleep(60)  # stuck: never joins the collective
    dist.all_reduce(ferric.ones(3))
    print(f"rank {rank}: not reached", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
