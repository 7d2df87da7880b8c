"""Per-op overhead of the dynamic graph, for the ferric / PyTorch / NumPy comparison.

``workloads(scale=1.0)`` returns a list of ``Workload(name, setup, bytes, flops, ops)``
(see ``workload.py``) whose rate is microseconds per op: ``a + b`` on 1-element tensors
without grad, the same with ``a.requires_grad`` (graph recorded, forward only), and
forward + backward of a 10-op scalar chain (time / 10 ops). The first two repeat the op
100 times per call so the cost of the call itself is spread thin. Names and bodies follow
the shared yardstick's ``overhead_*`` group. NumPy runs only the plain ``a + b`` (no
autograd); the sizes do not scale. The shared driver ``benches/compare.py`` times this list
with every other ``cmp_*`` list; this file runs it alone, with the driver's options::

    python benches/cmp_overhead.py [--libs ferric,torch] [--min-time 1]
"""

from __future__ import annotations

from workload import Workload, inputs, needs

OPS_PER_CALL = 100


def _add(requires_grad):
    def setup(T):
        if requires_grad:
            needs(T, "autograd")
        a, b = inputs(T, (1,), (1,))
        if requires_grad:
            a.requires_grad_(True)

        def fn():
            for _ in range(OPS_PER_CALL):
                c = a + b
            return c
        return fn
    return setup


def _chain10(T):
    T = needs(T, "autograd")
    (x,) = inputs(T, (1,))
    x.requires_grad_(True)

    def fn():
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
        return y
    return fn


def workloads(scale=1.0):
    del scale  # one-element tensors: the overhead is the measured quantity
    return [
        Workload("overhead_add_scalar", _add(False), None, None, OPS_PER_CALL),
        Workload("overhead_add_scalar_requires_grad", _add(True), None, None, OPS_PER_CALL),
        Workload("overhead_chain10_fwd_bwd", _chain10, None, None, 10),
    ]


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
