"""Sorting and selection workloads for the ferric / PyTorch / NumPy comparison: top-k
over a GPT-2-sized vocabulary batch (what top-k sampling runs every step) and full
sorts. NumPy has no top-k: its top-k setup uses ``np.argpartition`` plus a sort of the
k, the usual NumPy spelling. The shared driver ``benches/compare.py`` times this list
with every other ``cmp_*`` list; this file runs it alone, with the driver's options::

    python benches/cmp_sort.py [--libs ferric,torch,numpy] [--threads 1] [--only topk*]
"""

from __future__ import annotations

from workload import Workload, op_setup, scaled


def _np_topk(np, x, k):
    part = np.argpartition(-x, k - 1, axis=-1)[:, :k]
    vals = np.take_along_axis(x, part, -1)
    order = np.argsort(-vals, axis=-1, kind="stable")
    return np.take_along_axis(vals, order, -1), np.take_along_axis(part, order, -1)


def _np_sort(np, x, dim):
    idx = np.argsort(x, axis=dim, kind="stable")
    return np.take_along_axis(x, idx, dim), idx


def _topk(shape, k):
    return op_setup(shape, lambda T, x: T.topk(x, k), lambda np, x: _np_topk(np, x, k))


def _sort(shape, dim):
    return op_setup(shape, lambda T, x: T.sort(x, dim), lambda np, x: _np_sort(np, x, dim))


def workloads(scale=1.0):
    def s(n):
        return scaled(n, scale)

    rows, vocab = s(64), s(50257)
    n1 = s(1_000_000)
    side = s(1024)
    return [
        Workload("topk_64x50257_k50", _topk((rows, vocab), min(50, vocab)),
                 rows * vocab * 4, None),
        Workload("sort_lastdim_1024x1024", _sort((side, side), -1), side * side * 12, None),
        Workload("sort_dim0_1024x1024", _sort((side, side), 0), side * side * 12, None),
        Workload("sort_1e6", _sort((n1,), 0), n1 * 12, None),
    ]


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
