"""Per-op overhead of the dynamic graph: ferric vs PyTorch (when installed) in one process.

Three workloads, as in ``../shared/bench/workloads.py`` group 1: ``a + b`` on 1-element
tensors without grad, the same with ``a.requires_grad`` (graph recorded, forward only),
and forward + backward of a 10-op scalar chain (time / 10 ops). One thread.

Usage:  python benches/overhead.py [--repeat 7] [--number 20000]
Prints a table of median microseconds per op and the ferric/PyTorch ratio.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("FERRIC_NUM_THREADS", "1")


def workloads(T):
    a, b = T.randn(1) if hasattr(T, "randn") else T.ones(1), T.ones(1)
    ag = T.ones(1, requires_grad=True)
    x = T.ones(1, requires_grad=True)

    def add():
        a + b

    def add_grad():
        ag + b

    def chain():
        y = x * 1.5
        y = y + x
        y = y * y
        y = T.relu(y)
        y = y + 1.0
        y = y * x
        y = y - x
        y = y * 0.5
        y = y + y
        y = y.sum()
        y.backward()
        x.grad = None

    return [("a + b (1 elem)", add, 1), ("a + b, requires_grad", add_grad, 1),
            ("10-op chain fwd+bwd", chain, 10)]


def measure(fn, ops, number, repeat):
    for _ in range(100):
        fn()
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t) / number / ops * 1e6)
    return statistics.median(samples)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--number", type=int, default=20000)
    args = p.parse_args()
    libs = {}
    for name in ("ferric", "torch"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, "set_num_threads"):
            mod.set_num_threads(1)
        libs[name] = mod
    results = {}
    for name, mod in libs.items():
        for label, fn, ops in workloads(mod):
            n = args.number // ops if ops > 1 else args.number
            results[(name, label)] = measure(fn, ops, max(n, 100), args.repeat)
    labels = [w[0] for w in workloads(libs["ferric"])]
    print(f"{'workload':28s} {'ferric us/op':>13s} {'torch us/op':>12s} {'ratio':>7s}")
    for label in labels:
        f = results[("ferric", label)]
        t = results.get(("torch", label))
        ratio = f"{f / t:6.2f}x" if t else "   n/a"
        tt = f"{t:12.3f}" if t else f"{'n/a':>12s}"
        print(f"{label:28s} {f:13.3f} {tt} {ratio}")


if __name__ == "__main__":
    main()
