"""ferric's kernel pool: set_num_threads / get_num_threads / FERRIC_NUM_THREADS, and
results that do not depend on the thread count."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ferric


def test_set_and_get(restore_threads):
    ferric.set_num_threads(3)
    assert ferric.get_num_threads() == 3
    ferric.set_num_threads(1)
    assert ferric.get_num_threads() == 1


@pytest.mark.parametrize("bad,msg", [
    (0, "expects a positive integer"), (-2, "expects a positive integer"),
    (2.5, "expects an int, but got float"), ("2", "expects an int, but got str"),
    (True, "expects an int, but got bool"),
])
def test_bad_counts_raise_like_pytorch(bad, msg, restore_threads):
    before = ferric.get_num_threads()
    with pytest.raises(RuntimeError, match=msg):
        ferric.set_num_threads(bad)
    assert ferric.get_num_threads() == before


def test_environment_variable_sets_the_default():
    code = "import ferric; print(ferric.get_num_threads())"
    env = dict(os.environ, FERRIC_NUM_THREADS="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "3"


def _workloads():
    g = ferric.Generator().manual_seed(0)
    a = ferric.randn(300, 200, generator=g, dtype=ferric.float64)
    b = ferric.randn(200, 250, generator=g, dtype=ferric.float64)
    x = ferric.randn(16, 8, 20, 20, generator=g, dtype=ferric.float64)
    w = ferric.randn(8, 8, 3, 3, generator=g, dtype=ferric.float64, requires_grad=True)
    y = ferric.nn.functional.conv2d(x, w, padding=1)
    y.pow(2).sum().backward()
    pooled = ferric.nn.functional.max_pool2d(x, 2)
    return [a @ b, (a * 2 + 1).exp(), y, w.grad, pooled, a.sum(1)]


@pytest.mark.parametrize("threads", [2, 3])
def test_results_do_not_depend_on_thread_count(threads, restore_threads):
    ferric.set_num_threads(1)
    serial = [t.detach().numpy().copy() for t in _workloads()]
    ferric.set_num_threads(threads)
    parallel = [t.detach().numpy() for t in _workloads()]
    for s, p in zip(serial, parallel, strict=True):
        # matmul and the conv weight gradient may sum in another order across threads
        np.testing.assert_allclose(p, s, rtol=1e-12, atol=1e-12)
