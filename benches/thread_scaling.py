"""ferric's speed on all threads against one thread, for matmul and ``a + b``.

One and ``--threads`` threads are timed in alternation in one process (one sample each,
repeated, medians), so a noisy machine slows both alike::

    python benches/thread_scaling.py [--threads 2] [--sizes 64,128,256,512,1024,2048]
"""

from __future__ import annotations

import argparse
import statistics
import time

import ferric


def _rate(fn, min_time):
    fn()
    t0, k = time.perf_counter(), 0
    while True:
        fn()
        k += 1
        t = time.perf_counter() - t0
        if t >= min_time:
            return t / k


def scaling(fn, threads, rounds, min_time):
    """(median seconds on one thread, on `threads` threads)."""
    before = ferric.get_num_threads()
    times = {1: [], threads: []}
    try:
        for _ in range(rounds):
            for t in times:
                ferric.set_num_threads(t)
                times[t].append(_rate(fn, min_time))
    finally:
        ferric.set_num_threads(before)
    return statistics.median(times[1]), statistics.median(times[threads])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="64,128,256,512,1024,2048")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--min-time", type=float, default=0.2)
    args = ap.parse_args(argv)
    print(f"{'workload':<16} {'1 thread':>14} {f'{args.threads} threads':>14} {'scaling':>8}")

    def report(name, fn, amount, unit):
        one, many = scaling(fn, args.threads, args.rounds, args.min_time)
        print(
            f"{name:<16} {amount / one:>9.1f} {unit} {amount / many:>9.1f} {unit}"
            f" {one / many:>7.2f}x"
        )

    for n in (int(s) for s in args.sizes.split(",")):
        a, b = ferric.randn(n, n), ferric.randn(n, n)
        report(f"matmul_{n}", lambda x=a, y=b: x @ y, 2 * n**3 / 1e9, "GF/s")
    a, b = ferric.randn(16_000_000), ferric.randn(16_000_000)
    report("ew_add_16e6", lambda: a + b, 3 * 4 * 16e6 / 1e9, "GB/s")


if __name__ == "__main__":
    main()
