"""Driver of the narrow-dtype crash sweep: runs the case ids of
``fixtures/narrow_sweep/narrow_cases.py`` in batches, each batch in its own worker
subprocess (``fixtures/narrow_sweep/narrow_worker.py``, two at a time), so an abort
(``free(): invalid next size``), a segfault, a ``PanicException`` or a hang ends at most
one worker and never the sweep.

Fast path: a worker imports ferric once and runs its batch in-process, except the cases
named in ``fork`` (the known crashes), which it runs in forked children. When a worker
dies or hangs, or an in-process case reports a crash or garbage, the batch so far is
re-run with every case in its own forked child: that pins the culprit (a case that
corrupts the heap can make a later, innocent case die) without a Python start-up per
case. ``fork_all=True`` forks every case from the start (the thorough, slower mode).

Run it directly for a report: ``python tests/narrow_sweep_driver.py [substring ...]``.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "fixtures", "narrow_sweep")
WORKER = os.path.join(CASES_DIR, "narrow_worker.py")
CASE_TIMEOUT = 20.0  # seconds a single case may take before it counts as a hang


def is_bad(result):
    """A crash, a panic or garbage values: what the sweep reports."""
    return not (result == "ok" or result.startswith("exc:"))


def _env():
    env = dict(os.environ)
    # no BLAS threads in the worker before it forks
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def _write(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines))
        return f.name


def _run_worker(ids, fork, fork_all):
    """Runs ``ids`` in one worker: ``(results, current)``, with ``current`` the in-process
    case the worker was running when it died or hung (None when it finished)."""
    ids_path = _write(ids)
    fork_path = _write(sorted(fork))
    args = [sys.executable, WORKER, ids_path, str(CASE_TIMEOUT),
            "--fork-all" if fork_all else fork_path]
    results, current = {}, None
    try:
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=_env())
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(ln) for ln in p.stdout] + [lines.put(None)],
                         daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=CASE_TIMEOUT + 15)
            except queue.Empty:  # an in-process case hangs
                p.kill()
                break
            if line is None:
                break
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "S" and len(parts) == 2:
                current = parts[1]
            elif parts[0] == "R" and len(parts) == 3:
                results[parts[1]] = parts[2]
                current = None
        p.wait()
    finally:
        os.unlink(ids_path)
        os.unlink(fork_path)
    if len(results) == len(ids):
        current = None
    elif current is None:  # died outside a case: blame the next one
        current = next(c for c in ids if c not in results)
    return results, current


def _run_batch(batch, fork, fork_all):
    res = {}
    todo = list(batch)
    while todo:
        got, current = _run_worker(todo, fork, fork_all)
        suspicious = [c for c, r in got.items() if is_bad(r) and c not in fork]
        if (current is None and not suspicious) or fork_all:
            res.update(got)
            if current is None:
                break
            res[current] = "crash:worker died"  # cannot happen with forked cases
            todo = todo[todo.index(current) + 1:]
            continue
        # something went wrong in-process: re-run the batch so far, every case forked
        upto = todo[:todo.index(current) + 1] if current else [c for c in todo if c in got]
        again, _ = _run_worker(upto, fork, True)
        res.update(again)
        if current is not None:
            if not any(is_bad(r) for r in again.values()):
                res[current] = "crash-batch:dies only after other cases in one process"
            todo = todo[todo.index(current) + 1:]
        else:
            todo = [c for c in todo if c not in res]
    return res


def run_ids(ids, fork=frozenset(), fork_all=False, batch_size=400, jobs=2):
    """Runs every id; returns ``{id: result}``: ``"ok"``, ``"exc:<Type>"``,
    ``"garbage:<why>"``, ``"panic:<message>"``, ``"crash:<how>"`` or
    ``"crash-batch:<how>"``. ``fork`` ids always run in a forked child."""
    fork = set(fork)
    batches = [ids[i:i + batch_size] for i in range(0, len(ids), batch_size)]
    out = {}
    with ThreadPoolExecutor(jobs) as pool:
        for res in pool.map(lambda b: _run_batch(b, fork, fork_all), batches):
            out.update(res)
    return out


def main(argv):
    sys.path.insert(0, CASES_DIR)
    from narrow_cases import case_ids

    fork_all = "--fork-all" in argv
    subs = [a for a in argv[1:] if a != "--fork-all"]
    ids = [c for c in case_ids() if not subs or any(s in c for s in subs)]
    res = run_ids(ids, fork_all=fork_all)
    bad = {c: r for c, r in res.items() if is_bad(r)}
    for c in sorted(bad):
        print(f"{c}\t{bad[c]}")
    print(f"{len(ids)} cases, {len(bad)} crashing or garbage", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
