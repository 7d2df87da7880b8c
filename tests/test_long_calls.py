"""Long kernels and the rest of the process: the GIL is released while they run, Ctrl-C
stops them, and a forked child (a DataLoader worker) can use the thread pool again.

The Ctrl-C and fork checks run in child processes, so a regression (a hang, or an
interrupt that never arrives) fails the test on its timeout instead of stopping the
suite.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import ferric

LINUX = sys.platform.startswith("linux")


@pytest.fixture
def one_thread():
    before = ferric.get_num_threads()
    ferric.set_num_threads(1)
    yield
    ferric.set_num_threads(before)


def _longest_pause_while(call):
    """Runs ``call()`` while another Python thread ticks; returns (longest gap between
    ticks during the call, the call's duration)."""
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    while len(ticks) < 3:
        time.sleep(0.001)
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if start <= x <= end] or [start]
    edges = [start, *during, end]
    return max(b - a for a, b in zip(edges, edges[1:], strict=False)), end - start


@pytest.mark.parametrize("name,make,call", [
    ("matmul 2048", lambda: (ferric.ones(2048, 2048), ferric.ones(2048, 2048)),
     lambda a, b: a @ b),
    ("exp of 3e7", lambda: (ferric.ones(30_000_000),), lambda a: a.exp()),
    ("add of 3e7", lambda: (ferric.ones(30_000_000), ferric.ones(30_000_000)),
     lambda a, b: a + b),
    ("sum of 3e7", lambda: (ferric.ones(30_000_000),), lambda a: a.sum()),
    ("transposed copy 4096^2", lambda: (ferric.ones(4096, 4096),), lambda a: a.t().contiguous()),
    ("clone of 3e7", lambda: (ferric.ones(30_000_000),), lambda a: a.clone()),
    ("softmax 4096^2", lambda: (ferric.ones(4096, 4096),), lambda a: a.softmax(-1)),
    ("conv2d", lambda: (ferric.ones(8, 32, 64, 64), ferric.ones(32, 32, 3, 3)),
     lambda x, w: ferric.nn.functional.conv2d(x, w)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_other_threads_run_during_a_long_kernel(one_thread, name, make, call):
    args = make()
    call(*args)  # warm up: page faults and caches are not what is measured
    pause, took = _longest_pause_while(lambda: call(*args))
    # with the GIL held the ticker would stop for the whole call
    assert pause < max(0.05, took / 2), (name, pause, took)


_INTERRUPT_SCRIPT = textwrap.dedent("""
    import sys, time
    import ferric
    ferric.set_num_threads(int(sys.argv[1]))
    a = ferric.ones(8192, 8192)
    print("start", flush=True)
    t0 = time.perf_counter()
    try:
        c = a @ a
        print("finished", time.perf_counter() - t0, flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    # the process stays usable: the same kernels give right answers afterwards
    b = ferric.ones(300, 300)
    assert float((b @ b)[0, 0]) == 300.0
    print("usable", flush=True)
""")


@pytest.mark.skipif(not LINUX, reason="the SIGINT hook is Linux-only")
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_interrupts_a_long_matmul(threads):
    # unbuffered: readline() then takes only its line from the pipe, so what follows is
    # left for communicate() (a buffered reader could swallow "usable" with "interrupted")
    p = subprocess.Popen([sys.executable, "-c", _INTERRUPT_SCRIPT, str(threads)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        assert p.stdout.readline().strip() == b"start"
        time.sleep(0.5)
        sent = time.perf_counter()
        p.send_signal(signal.SIGINT)
        line = p.stdout.readline().decode().strip()
        latency = time.perf_counter() - sent
        rest, err = (s.decode() for s in p.communicate(timeout=60))
    finally:
        p.kill()
    assert line == "interrupted", (line, err)
    assert latency < 0.5, latency
    assert rest.strip() == "usable" and p.returncode == 0, (rest, err)


_FORK_SCRIPT = textwrap.dedent("""
    import os, sys
    import ferric
    ferric.set_num_threads(2)
    a = ferric.ones(4_000_000)
    assert float((a + a).sum()) == 8_000_000  # the pool's workers exist now
    m = ferric.ones(512, 512)
    assert float((m @ m)[0, 0]) == 512
    pid = os.fork()
    if pid == 0:
        ok = float((a + a).sum()) == 8_000_000 and float((m @ m)[3, 4]) == 512
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status), flush=True)
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_runs_kernels_after_the_parent_used_the_pool():
    r = subprocess.run([sys.executable, "-c", _FORK_SCRIPT], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "child 0", (r.stdout, r.stderr)


def test_a_stale_interrupt_does_not_stop_the_next_call():
    # a Ctrl-C the interpreter handled between calls must not cut the next kernel short
    a = ferric.ones(1024, 1024)
    try:
        signal.raise_signal(signal.SIGINT)
        time.sleep(0.01)
    except KeyboardInterrupt:
        pass
    c = a @ a
    assert float(c.min()) == 1024.0 and float(c.max()) == 1024.0
