"""Reduction, softmax and fused-nn workloads for the ferric / PyTorch / NumPy comparison.

``workloads(scale=1.0)`` returns a list of ``Workload(name, setup, bytes, flops)`` (see
``workload.py``); ``bytes`` (memory traffic) turns a time into GB/s. NumPy has no
autograd: its setups of the forward + backward workloads raise ``NotImplementedError``.
The shared driver ``benches/compare.py`` times this list with every other ``cmp_*`` list;
this file runs it alone, with the driver's options::

    python benches/cmp_reduce.py [--libs ferric,torch,numpy] [--threads 1] [--only sum]
"""

from __future__ import annotations

from workload import Workload, grad_leaves, inputs, is_numpy, scaled


def _sum(shape, dim=None, transposed=False):
    def setup(T):
        (x,) = inputs(T, shape)
        if transposed:
            x = x.T
        if dim is None:
            return lambda: x.sum()
        return lambda: x.sum(dim)
    return setup


def _softmax(shape, dim, log=False, transposed=False):
    def setup(T):
        (x,) = inputs(T, shape[::-1] if transposed else shape)
        if transposed:
            x = x.T
        if is_numpy(T):
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
        T, F, (x,) = grad_leaves(T, (n, c))
        T.manual_seed(0)
        y = T.randint(0, c, (n,))

        def fn():
            loss = F.cross_entropy(x, y)
            loss.backward()
            x.grad = None
            return loss
        return fn
    return setup


def _layer_norm(n, d):
    def setup(T):
        T, F, (x,) = grad_leaves(T, (n, d))
        w = T.ones(d, requires_grad=True)
        b = T.zeros(d, requires_grad=True)

        def fn():
            y = F.layer_norm(x, (d,), w, b)
            y.sum().backward()
            x.grad = w.grad = b.grad = None
            return y
        return fn
    return setup


def _layer_norm_fwd(n, d):
    def setup(T):
        T, F, (x,) = grad_leaves(T, (n, d))
        w, b = T.randn(d), T.randn(d)
        x = x.detach()
        return lambda: F.layer_norm(x, (d,), w, b)
    return setup


def _batch_norm(shape):
    def setup(T):
        T, F, (x,) = grad_leaves(T, shape)
        rm, rv = T.zeros(shape[1]), T.ones(shape[1])

        def fn():
            y = F.batch_norm(x, rm, rv, training=True)
            y.sum().backward()
            x.grad = None
            return y
        return fn
    return setup


def workloads(scale=1.0):
    def s(n):
        return scaled(n, scale)

    big, side, rows, cols = s(16_000_000), s(4096), s(4096), s(1024)
    square, sm = side * side * 4, 2 * rows * cols * 4
    ce_small, ce_big = (s(128), s(10)), (s(4096), s(1000))
    bn = (s(32), s(64), s(28), s(28))
    bn_elems = bn[0] * bn[1] * bn[2] * bn[3]
    return [
        Workload("sum_all_16e6", _sum((big,)), big * 4, None),
        Workload("sum_lastdim_4096x4096", _sum((side, side), -1), square, None),
        Workload("sum_lastdim_4096x4096_transposed", _sum((side, side), -1, True), square,
                 None),
        Workload("sum_dim0_4096x4096", _sum((side, side), 0), square, None),
        Workload("softmax_lastdim_4096x1024", _softmax((rows, cols), -1), sm, None),
        Workload("log_softmax_lastdim_4096x1024", _softmax((rows, cols), -1, log=True), sm,
                 None),
        Workload("softmax_dim0_4096x1024", _softmax((rows, cols), 0), sm, None),
        Workload("softmax_lastdim_transposed", _softmax((rows, cols), -1, transposed=True),
                 sm, None),
        Workload("cross_entropy_fwd_bwd_128x10", _cross_entropy(*ce_small),
                 4 * ce_small[0] * ce_small[1] * 4, None),
        Workload("cross_entropy_fwd_bwd_4096x1000", _cross_entropy(*ce_big),
                 4 * ce_big[0] * ce_big[1] * 4, None),
        Workload("layer_norm_fwd_4096x256", _layer_norm_fwd(rows, s(256)), 2 * rows * s(256) * 4,
                 None),
        Workload("layer_norm_fwd_bwd_4096x1024", _layer_norm(rows, cols), 5 * rows * cols * 4,
                 None),
        Workload("batch_norm_train_fwd_bwd_32x64x28x28", _batch_norm(bn), 5 * bn_elems * 4,
                 None),
    ]


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
