"""Matrix-product and convolution workloads for the ferric / PyTorch / NumPy comparison.

``WORKLOADS`` is a list of ``Workload(name, setup, bytes, flops)``: ``setup(T)`` takes the
library module (``ferric``, ``torch`` or ``numpy``), builds the inputs (not timed) and
returns the closure to time; ``flops`` turns a time into GFLOP/s (``bytes`` is unused
here: every workload is compute-bound except the matrix-vector ones, which give both).
A setup raises ``NotImplementedError`` when the library cannot run the workload (NumPy
has no ``nn``). The shared driver ``benches/compare.py`` consumes this list; the file
also runs on its own::

    python benches/cmp_matmul.py [--libs ferric,torch] [--threads 1] [--only bmm] [--cpu]

The libraries are timed in alternation (one sample each, repeated), so a machine loaded
by other work slows them alike and the printed ferric/PyTorch ratio stays meaningful;
``--cpu`` measures process CPU time instead of wall time (only with ``--threads 1``).
To compare against PyTorch from another virtualenv, put ferric's ``python/`` directory
on ``PYTHONPATH`` and run with that environment's interpreter.
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


def _nn(T):
    if T.__name__ == "numpy":
        raise NotImplementedError("numpy has no nn")
    return T


def _matmul(n):
    def setup(T):
        a, b = _randn(T, n, n), _randn(T, n, n)
        return lambda: a @ b
    return setup


def _matmul_rhs_t(T):
    a, b = _randn(T, 1024, 1024), _randn(T, 1024, 1024)
    return lambda: a @ b.T


def _bmm(batch, n):
    def setup(T):
        a, b = _randn(T, batch, n, n), _randn(T, batch, n, n)
        return lambda: a @ b
    return setup


def _mv(n, transposed=False):
    def setup(T):
        a, v = _randn(T, n, n), _randn(T, n)
        if transposed:
            a = a.T
        return lambda: a @ v
    return setup


def _linear(shape, fwd_bwd=False):
    def setup(T):
        T = _nn(T)
        x = T.randn(*shape)
        w = T.randn(1024, shape[-1], requires_grad=fwd_bwd)
        b = T.randn(1024, requires_grad=fwd_bwd)
        F = T.nn.functional
        if not fwd_bwd:
            def fwd():
                with T.no_grad():
                    return F.linear(x, w, b)
            return fwd

        def step():
            y = F.linear(x, w, b)
            y.sum().backward()
            w.grad = b.grad = None
            return y
        return step
    return setup


def _conv(batch, cin, size, cout, k, pad, backward=False):
    def setup(T):
        T = _nn(T)
        if hasattr(T, "manual_seed"):
            T.manual_seed(0)
        conv = T.nn.Conv2d(cin, cout, k, padding=pad)
        x = T.randn(batch, cin, size, size, requires_grad=backward)
        if not backward:
            def fwd():
                with T.no_grad():
                    return conv(x)
            return fwd

        def step():
            y = conv(x)
            y.sum().backward()
            x.grad = None
            conv.zero_grad()
            return y
        return step
    return setup


def _conv_flops(batch, cin, size, cout, k, pad, passes=1):
    out = size + 2 * pad - k + 1
    return passes * 2 * batch * cout * out * out * cin * k * k


WORKLOADS = [
    *(Workload(f"matmul_{n}", _matmul(n), None, 2 * n ** 3)
      for n in (64, 128, 256, 512, 1024, 2048)),
    Workload("matmul_1024_rhs_transposed", _matmul_rhs_t, None, 2 * 1024 ** 3),
    Workload("bmm_64x128x128", _bmm(64, 128), None, 64 * 2 * 128 ** 3),
    Workload("bmm_512x32x32", _bmm(512, 32), None, 512 * 2 * 32 ** 3),
    Workload("mv_4096", _mv(4096), 4096 * 4096 * 4, 2 * 4096 ** 2),
    Workload("mv_4096_transposed", _mv(4096, True), 4096 * 4096 * 4, 2 * 4096 ** 2),
    Workload("linear_fwd_256x512_to_1024", _linear((256, 512)), None, 2 * 256 * 512 * 1024),
    Workload("linear_fwd_8x32x512_to_1024", _linear((8, 32, 512)), None,
             2 * 256 * 512 * 1024),
    Workload("linear_fwd_bwd_256x512_to_1024", _linear((256, 512), True), None,
             2 * 2 * 256 * 512 * 1024),
    Workload("conv2d_fwd_32x64x56x56_k3", _conv(32, 64, 56, 64, 3, 1), None,
             _conv_flops(32, 64, 56, 64, 3, 1)),
    Workload("conv2d_fwd_bwd_8x64x56x56_k3", _conv(8, 64, 56, 64, 3, 1, True), None,
             _conv_flops(8, 64, 56, 64, 3, 1, passes=3)),
    Workload("conv2d_fwd_lenet_64x1x28x28_k5", _conv(64, 1, 28, 6, 5, 0), None,
             _conv_flops(64, 1, 28, 6, 5, 0)),
]


def _sample(fn, clock, reps):
    t0 = clock()
    for _ in range(reps):
        fn()
    return (clock() - t0) / reps


def _compare(fns, clock, min_time):
    """Median seconds per call for each closure, sampled in alternation."""
    for fn in fns.values():
        fn()
        fn()
    slowest = max(_sample(fn, time.perf_counter, 1) for fn in fns.values())
    reps = max(1, int(0.02 / max(slowest, 1e-9)))
    times = {k: [] for k in fns}
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(next(iter(times.values()))) < 5:
        for k, fn in fns.items():
            times[k].append(_sample(fn, clock, reps))
        if len(next(iter(times.values()))) >= 200:
            break
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--libs", default="ferric,torch,numpy")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only", default="", help="substring filter on workload names")
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--cpu", action="store_true", help="time process CPU, not wall clock")
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "FERRIC_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    clock = time.process_time if args.cpu else time.perf_counter
    libs = {}
    for name in args.libs.split(","):
        try:
            libs[name] = importlib.import_module(name)
        except ImportError:
            print(f"({name} not importable, skipped)", file=sys.stderr)
            continue
        if hasattr(libs[name], "set_num_threads"):
            libs[name].set_num_threads(args.threads)
    head = "".join(f"{n:>10s}" for n in libs)
    print(f"{'workload (GFLOP/s)':34s}{head}  ferric speed vs torch")
    for w in WORKLOADS:
        if args.only and args.only not in w.name:
            continue
        fns = {}
        for name, T in libs.items():
            try:
                fns[name] = w.setup(T)
            except (NotImplementedError, AttributeError, TypeError):
                pass
        med = _compare(fns, clock, args.min_time) if fns else {}
        cells = "".join(f"{w.flops / med[n] / 1e9:10.1f}" if n in med else f"{'-':>10s}"
                        for n in libs)
        ratio = ""
        if "ferric" in med and "torch" in med:
            ratio = f"  {med['torch'] / med['ferric']:.2f}x"
        print(f"{w.name:34s}{cells}{ratio}", flush=True)


if __name__ == "__main__":
    main()
