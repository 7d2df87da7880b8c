"""Reduction, softmax and fused-nn workloads for the ferric / PyTorch / NumPy comparison.

``WORKLOADS`` is a list of ``Workload(name, setup, bytes, flops)``: ``setup(T)`` takes the
library module (``ferric``, ``torch`` or ``numpy``), builds the inputs (not timed) and
returns the closure to time; ``bytes`` (memory traffic) or ``flops`` turns a time into a
rate. A setup raises ``NotImplementedError`` when the library cannot run the workload
(NumPy has no autograd). The shared driver ``benches/compare.py`` consumes this list; the
file also runs on its own::

    python benches/cmp_reduce.py [--libs ferric,torch,numpy] [--threads 1] [--only sum]

which prints the median time per library and the ratio to PyTorch.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from collections import namedtuple

Workload = namedtuple("Workload", "name setup bytes flops")


def _randn(T, *shape):
    if T.__name__ == "numpy":
        return T.random.default_rng(0).standard_normal(shape, dtype=T.float32)
    return T.randn(*shape)


def _grad_lib(T):
    if T.__name__ == "numpy":
        raise NotImplementedError("numpy has no autograd")
    return T


def _sum_all(T):
    x = _randn(T, 16_000_000)
    return lambda: x.sum()


def _sum_lastdim(T):
    x = _randn(T, 4096, 4096)
    return lambda: x.sum(-1)


def _sum_lastdim_transposed(T):
    x = _randn(T, 4096, 4096).T
    return lambda: x.sum(-1)


def _sum_dim0(T):
    x = _randn(T, 4096, 4096)
    return lambda: x.sum(0)


def _softmax(dim, log=False, transposed=False):
    def setup(T):
        x = _randn(T, 1024, 4096).T if transposed else _randn(T, 4096, 1024)
        if T.__name__ == "numpy":
            np = T

            def fn():
                m = x.max(dim, keepdims=True)
                e = np.exp(x - m)
                s = e.sum(dim, keepdims=True)
                return (x - m - np.log(s)) if log else e / s
            return fn
        f = T.log_softmax if log else T.softmax
        return lambda: f(x, dim)
    return setup


def _cross_entropy(n, c):
    def setup(T):
        T = _grad_lib(T)
        x = T.randn(n, c, requires_grad=True)
        y = T.randint(0, c, (n,))
        F = T.nn.functional

        def fn():
            loss = F.cross_entropy(x, y)
            loss.backward()
            x.grad = None
            return loss
        return fn
    return setup


def _layer_norm(T):
    T = _grad_lib(T)
    x = T.randn(4096, 1024, requires_grad=True)
    w = T.ones(1024, requires_grad=True)
    b = T.zeros(1024, requires_grad=True)
    F = T.nn.functional

    def fn():
        y = F.layer_norm(x, (1024,), w, b)
        y.sum().backward()
        x.grad = w.grad = b.grad = None
        return y
    return fn


def _batch_norm(T):
    T = _grad_lib(T)
    x = T.randn(32, 64, 28, 28, requires_grad=True)
    rm, rv = T.zeros(64), T.ones(64)
    F = T.nn.functional

    def fn():
        y = F.batch_norm(x, rm, rv, training=True)
        y.sum().backward()
        x.grad = None
        return y
    return fn


MB = 4096 * 4096 * 4
WORKLOADS = [
    Workload("sum_all_16e6", _sum_all, 16_000_000 * 4, None),
    Workload("sum_lastdim_4096x4096", _sum_lastdim, MB, None),
    Workload("sum_lastdim_4096x4096_transposed", _sum_lastdim_transposed, MB, None),
    Workload("sum_dim0_4096x4096", _sum_dim0, MB, None),
    Workload("softmax_lastdim_4096x1024", _softmax(-1), 2 * 4096 * 1024 * 4, None),
    Workload("log_softmax_lastdim_4096x1024", _softmax(-1, log=True), 2 * 4096 * 1024 * 4, None),
    Workload("softmax_dim0_4096x1024", _softmax(0), 2 * 4096 * 1024 * 4, None),
    Workload("softmax_lastdim_transposed", _softmax(-1, transposed=True), 2 * 4096 * 1024 * 4,
             None),
    Workload("cross_entropy_fwd_bwd_128x10", _cross_entropy(128, 10), 4 * 128 * 10 * 4, None),
    Workload("cross_entropy_fwd_bwd_4096x1000", _cross_entropy(4096, 1000), 4 * 4096 * 1000 * 4,
             None),
    Workload("layer_norm_fwd_bwd_4096x1024", _layer_norm, 5 * 4096 * 1024 * 4, None),
    Workload("batch_norm_train_fwd_bwd_32x64x28x28", _batch_norm, 5 * 32 * 64 * 784 * 4, None),
]


def _time(fn, min_time=0.3):
    for _ in range(2):
        fn()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(times) < 5:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) > 1000:
            break
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--libs", default="ferric,torch,numpy")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only", default="", help="substring filter on workload names")
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "FERRIC_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    libs = {}
    for name in args.libs.split(","):
        try:
            libs[name] = importlib.import_module(name)
        except ImportError:
            print(f"({name} not importable, skipped)", file=sys.stderr)
            continue
        if hasattr(libs[name], "set_num_threads"):
            libs[name].set_num_threads(args.threads)
    print(f"{'workload':40s}" + "".join(f"{n:>14s}" for n in libs) + "   ferric/torch")
    for w in WORKLOADS:
        if args.only and args.only not in w.name:
            continue
        row = {}
        for name, T in libs.items():
            try:
                row[name] = _time(w.setup(T))
            except (NotImplementedError, AttributeError, TypeError):
                row[name] = None
        cells = "".join(f"{row[n] * 1e3:12.3f}ms" if row[n] else f"{'-':>14s}" for n in libs)
        ratio = ""
        if row.get("ferric") and row.get("torch"):
            ratio = f"   {row['ferric'] / row['torch']:.2f}x"
        print(f"{w.name:40s}{cells}{ratio}", flush=True)


if __name__ == "__main__":
    main()
