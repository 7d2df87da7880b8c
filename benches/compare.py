"""Times the ``benches/cmp_*.py`` workloads in ferric, NumPy and PyTorch, in one process.

Usage::

    python benches/compare.py [--libs ferric,numpy,torch] [--threads 1] [--only GLOB,GLOB]
                              [--min-time S] [--cpu] [--scale F] [--json OUT]

Every ``cmp_*.py`` module next to this file provides ``workloads(scale=1.0)``, a list of
``Workload(name, setup, bytes, flops, ops)`` (see ``workload.py``); each ``cmp_*.py`` also
runs on its own, restricted to its list, with the same options.

Method: for each workload, every library's inputs are built (untimed), each closure is
called twice to warm up, then the libraries are sampled **in alternation** (one sample
each, repeated, the starting library rotating) until ``--min-time`` seconds have passed
and at least 5 rounds were taken; a sample times a calibrated number of back-to-back
calls. The table shows median seconds per call, the rate the workload defines (GB/s,
GFLOP/s, us/op) and ferric's speed relative to PyTorch and to NumPy (their median time
over ferric's: above 1 means ferric is faster). Alternating makes noise from other work on
the machine hit all libraries alike, so the ratios stay meaningful on a loaded machine.

``--only`` takes comma-separated ``fnmatch`` patterns; a pattern without wildcards matches
as a substring (``--only bmm``). ``--cpu`` times process CPU instead of wall clock, which
ignores time spent descheduled; it is only valid with ``--threads 1``.

Threads: ``--threads N`` (default 1) calls ``ferric.set_num_threads(N)`` and
``torch.set_num_threads(N)``. NumPy's BLAS (used by its matrix products; its elementwise
loops are single-threaded) reads its thread count from the environment once, when it is
loaded, so the driver exports ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``,
``MKL_NUM_THREADS`` etc. *before* importing any library. When NumPy was already imported
(the driver called from a test, say) that has no effect on it and a note says so.

PyTorch is optional: a library that cannot be imported is skipped with a note. To compare
against PyTorch from another virtualenv, put ferric's ``python/`` directory on
``PYTHONPATH`` and run this file with that environment's interpreter.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import importlib
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

BENCHES = Path(__file__).resolve().parent
LIBS = ("ferric", "numpy", "torch")
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "FERRIC_NUM_THREADS")
MIN_ROUNDS = 5
MAX_ROUNDS = 200
SAMPLE_SECONDS = 0.02  # one sample of the slowest library, when --min-time allows it


def workload_sources():
    """The ``workloads`` function of every ``cmp_*.py`` module next to this file."""
    if str(BENCHES) not in sys.path:
        sys.path.insert(0, str(BENCHES))
    return [importlib.import_module(p.stem).workloads
            for p in sorted(BENCHES.glob("cmp_*.py"))]


def select(workloads, only):
    """The workloads whose name matches one of the comma-separated patterns of ``only``."""
    patterns = [p for p in only.split(",") if p]
    if not patterns:
        return list(workloads)

    def match(name, pat):
        if any(c in pat for c in "*?["):
            return fnmatch.fnmatchcase(name, pat)
        return pat in name
    return [w for w in workloads if any(match(w.name, p) for p in patterns)]


def _sample(fn, clock, reps):
    t0 = clock()
    for _ in range(reps):
        fn()
    return (clock() - t0) / reps


def measure(fns, clock, min_time):
    """Median seconds per call of each closure in ``fns`` (a dict), sampled in alternation."""
    for fn in fns.values():
        fn()
        fn()
    # Every library gets the same number of calls per sample, sized on the slowest so that
    # its sample lasts about SAMPLE_SECONDS (less when --min-time asks for a quick run).
    slowest = max(_sample(fn, time.perf_counter, 1) for fn in fns.values())
    target = min(SAMPLE_SECONDS, min_time / MIN_ROUNDS)
    reps = max(1, int(target / max(slowest, 1e-9)))
    names = list(fns)
    times = {k: [] for k in names}
    start = time.perf_counter()
    rounds = 0
    while rounds < MIN_ROUNDS or (time.perf_counter() - start < min_time
                                  and rounds < MAX_ROUNDS):
        # rotate the order so that no library always runs right after the same other one
        for i in range(len(names)):
            k = names[(rounds + i) % len(names)]
            times[k].append(_sample(fns[k], clock, reps))
        rounds += 1
    return {k: statistics.median(v) for k, v in times.items()}


def rates(w, seconds):
    """The rates ``w`` defines for a median time per call, as ``{unit: value}``."""
    out = {}
    if w.flops:
        out["GFLOP/s"] = w.flops / seconds / 1e9
    if w.bytes:
        out["GB/s"] = w.bytes / seconds / 1e9
    if w.ops:
        out["us/op"] = seconds / w.ops * 1e6
    return out


def _time_unit(seconds):
    best = min(seconds)
    if best < 1e-3:
        return "us", 1e6
    if best < 1.0:
        return "ms", 1e3
    return "s", 1.0


class Table:
    """One row of times per workload, then one row per rate it defines."""

    def __init__(self, libs, name_width, out):
        self.libs = libs
        self.ratios = [other for other in ("torch", "numpy")
                       if "ferric" in libs and other in libs]
        self.width = max(name_width, len("workload"))
        self.out = out
        head = "".join(f"{n:>11s}" for n in libs)
        tail = "".join(f"{'vs ' + o:>10s}" for o in self.ratios)
        speed = "   (ferric speed: >1 = faster)" if self.ratios else ""
        self._line(f"{'workload':{self.width}s} {'unit':8s}{head}{tail}{speed}")

    def _line(self, text):
        print(text.rstrip(), file=self.out, flush=True)

    def _cells(self, values, fmt):
        return "".join(f"{fmt(values[n]):>11s}" if isinstance(values.get(n), float)
                       else f"{values.get(n, '-'):>11s}" for n in self.libs)

    def row(self, w, med, status):
        """``med``: library -> median seconds; ``status``: library -> '-' or 'err'."""
        if not med:
            self._line(f"{w.name:{self.width}s} {'':8s}{self._cells(status, str)}")
            return
        unit, mult = _time_unit(med.values())
        times = {**status, **{k: v * mult for k, v in med.items()}}
        tail = "".join(f"{med[o] / med['ferric']:9.2f}x" if "ferric" in med and o in med
                       else f"{'-':>10s}" for o in self.ratios)
        self._line(f"{w.name:{self.width}s} {unit:8s}{self._cells(times, _fmt)}{tail}")
        per_lib = {k: rates(w, v) for k, v in med.items()}
        for r in rates(w, 1.0):
            vals = {**status, **{k: v[r] for k, v in per_lib.items()}}
            self._line(f"{'':{self.width}s} {r:8s}{self._cells(vals, _fmt)}")


def _fmt(v):
    return f"{v:.4g}"


def _import_libs(names, threads):
    libs = {}
    for name in names:
        try:
            mod = importlib.import_module(name)
        except ImportError as e:
            print(f"({name} not importable, skipped: {e})", file=sys.stderr)
            continue
        if hasattr(mod, "set_num_threads"):
            mod.set_num_threads(threads)
        libs[name] = mod
    return libs


def _setups(w, libs):
    """The closure of each library that can run ``w``, and '-'/'err' for the others."""
    fns, status = {}, {}
    for name, T in libs.items():
        try:
            fn = w.setup(T)
            fn()  # a failure in the first call is reported like one in the setup
            fns[name] = fn
        except NotImplementedError:
            status[name] = "-"
        except Exception as e:  # noqa: BLE001 - one broken workload must not end the run
            print(f"{w.name} [{name}]: {type(e).__name__}: {e}", file=sys.stderr)
            status[name] = "err"
    return fns, status


def _parser(description):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--libs", default=",".join(LIBS),
                    help="comma-separated libraries, of " + ", ".join(LIBS))
    ap.add_argument("--threads", type=int, default=1,
                    help="threads per library (NumPy's BLAS: through the environment)")
    ap.add_argument("--only", default="",
                    help="comma-separated fnmatch patterns; no wildcard = substring")
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="seconds of alternating samples per workload (at least 5 rounds)")
    ap.add_argument("--cpu", action="store_true",
                    help="time process CPU instead of wall clock (only with --threads 1)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every workload size (e.g. 0.1 for a quick check)")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    return ap


def main(argv=None, sources=None, description=None):
    """Run the comparison; ``sources`` are ``workloads(scale)`` functions (default: those
    of every ``cmp_*.py``), which is how each ``cmp_*.py`` runs alone."""
    ap = _parser(description or __doc__.split("\n")[0])
    args = ap.parse_args(argv)
    if args.cpu and args.threads != 1:
        ap.error("--cpu measures process CPU time, which sums all threads: use --threads 1")
    if args.threads < 1:
        ap.error("--threads must be at least 1")
    names = [n for n in args.libs.split(",") if n]
    unknown = sorted(set(names) - set(LIBS))
    if unknown:
        ap.error(f"unknown libraries {unknown}; choose among {', '.join(LIBS)}")

    if "numpy" in sys.modules and "numpy" in names:
        print("(numpy was imported before the driver: its BLAS thread count is whatever "
              "the environment said then)", file=sys.stderr)
    for var in THREAD_ENV:
        os.environ[var] = str(args.threads)
    libs = _import_libs(names, args.threads)
    clock = time.process_time if args.cpu else time.perf_counter

    workloads = [w for f in (sources or workload_sources()) for w in f(args.scale)]
    chosen = select(workloads, args.only)
    if not chosen:
        ap.error(f"no workload matches --only {args.only!r}")
    table = Table(list(libs), max(len(w.name) for w in chosen), sys.stdout)
    results = []
    for w in chosen:
        gc.collect()  # garbage of the previous workload is not this one's to collect
        fns, status = _setups(w, libs)
        med = measure(fns, clock, args.min_time) if fns else {}
        table.row(w, med, status)
        for lib in libs:
            entry = {"workload": w.name, "lib": lib}
            if lib in med:
                entry.update(status="ok", median_s=med[lib], **rates(w, med[lib]))
            else:
                entry["status"] = "unsupported" if status[lib] == "-" else "error"
            results.append(entry)
        del fns  # frees this workload's inputs before the next one's are built
    if args.json:
        meta = {"threads": args.threads, "clock": "process_time" if args.cpu else "wall",
                "min_time": args.min_time, "scale": args.scale,
                "python": platform.python_version(),
                "versions": {k: getattr(m, "__version__", "?") for k, m in libs.items()}}
        Path(args.json).write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    return results


if __name__ == "__main__":
    main()
