"""Matrix-product and convolution workloads for the ferric / PyTorch / NumPy comparison.

``workloads(scale=1.0)`` returns a list of ``Workload(name, setup, bytes, flops)`` (see
``workload.py``); ``flops`` turns a time into GFLOP/s (the matrix-vector products, which
are bound by memory, also give ``bytes``). NumPy has no ``nn``: its setups of the linear
and convolution workloads raise ``NotImplementedError``. The shared driver
``benches/compare.py`` times this list with every other ``cmp_*`` list; this file runs it
alone, with the driver's options::

    python benches/cmp_matmul.py [--libs ferric,torch] [--threads 1] [--only bmm] [--cpu]
"""

from __future__ import annotations

from workload import Workload, inputs, needs, scaled


def _matmul(n, rhs_transposed=False):
    def setup(T):
        a, b = inputs(T, (n, n), (n, n))
        if rhs_transposed:
            return lambda: a @ b.T
        return lambda: a @ b
    return setup


def _bmm(batch, n):
    def setup(T):
        a, b = inputs(T, (batch, n, n), (batch, n, n))
        return lambda: a @ b
    return setup


def _mv(n, transposed=False):
    def setup(T):
        a, v = inputs(T, (n, n), (n,))
        if transposed:
            a = a.T
        return lambda: a @ v
    return setup


def _linear(shape, out, fwd_bwd=False):
    def setup(T):
        T = needs(T, "nn")
        x, w, b = inputs(T, shape, (out, shape[-1]), (out,))
        w.requires_grad_(fwd_bwd)
        b.requires_grad_(fwd_bwd)
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
        T = needs(T, "nn")
        T.manual_seed(0)
        conv = T.nn.Conv2d(cin, cout, k, padding=pad)
        (x,) = inputs(T, (batch, cin, size, size))
        x.requires_grad_(backward)
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


def _conv_workload(name, batch, cin, size, cout, k, pad, scale, backward=False):
    batch, cin, cout = (scaled(d, scale) for d in (batch, cin, cout))
    size = scaled(size, scale, least=k)
    out = size + 2 * pad - k + 1
    flops = (3 if backward else 1) * 2 * batch * cout * out * out * cin * k * k
    return Workload(name, _conv(batch, cin, size, cout, k, pad, backward), None, flops)


def workloads(scale=1.0):
    def s(n):
        return scaled(n, scale)

    def linear(name, shape, fwd_bwd=False):
        shape, out = tuple(s(d) for d in shape), s(1024)
        rows = 1
        for d in shape[:-1]:
            rows *= d
        flops = (2 if fwd_bwd else 1) * 2 * rows * shape[-1] * out
        return Workload(name, _linear(shape, out, fwd_bwd), None, flops)

    m, v = s(1024), s(4096)
    return [
        *(Workload(f"matmul_{n}", _matmul(s(n)), None, 2 * s(n) ** 3)
          for n in (64, 128, 256, 512, 1024, 2048)),
        Workload("matmul_1024_rhs_transposed", _matmul(m, True), None, 2 * m ** 3),
        Workload("bmm_64x128x128", _bmm(s(64), s(128)), None, s(64) * 2 * s(128) ** 3),
        Workload("bmm_512x32x32", _bmm(s(512), s(32)), None, s(512) * 2 * s(32) ** 3),
        Workload("mv_4096", _mv(v), v * v * 4, 2 * v ** 2),
        Workload("mv_4096_transposed", _mv(v, True), v * v * 4, 2 * v ** 2),
        linear("linear_fwd_256x512_to_1024", (256, 512)),
        linear("linear_fwd_8x32x512_to_1024", (8, 32, 512)),
        linear("linear_fwd_bwd_256x512_to_1024", (256, 512), True),
        _conv_workload("conv2d_fwd_32x64x56x56_k3", 32, 64, 56, 64, 3, 1, scale),
        _conv_workload("conv2d_fwd_bwd_8x64x56x56_k3", 8, 64, 56, 64, 3, 1, scale, True),
        _conv_workload("conv2d_fwd_lenet_64x1x28x28_k5", 64, 1, 28, 6, 5, 0, scale),
    ]


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
