"""Interpolation workloads for the ferric / PyTorch / NumPy comparison: bilinear 2x
upsampling of a U-Net-sized feature map (8x64x56x56 -> 8x64x112x112), forward, and
forward + backward. NumPy has no ``interpolate``: its setup is the same separable
half-pixel rule written with fancy indexing (forward only). The shared driver
``benches/compare.py`` times this list with every other ``cmp_*`` list; this file runs it
alone, with the driver's options::

    python benches/cmp_interpolate.py [--libs ferric,torch,numpy] [--threads 1]
"""

from __future__ import annotations

from workload import Workload, grad_leaves, op_setup, scaled


def _np_bilinear2x(np, x):
    def taps(n):
        src = np.maximum((np.arange(2 * n, dtype=np.float32) + 0.5) / 2 - 0.5, 0)
        i0 = np.minimum(np.floor(src).astype(np.int64), n - 1)
        i1 = np.minimum(i0 + 1, n - 1)
        lam = (src - i0).astype(np.float32)
        return i0, i1, 1 - lam, lam

    h0, h1, hw0, hw1 = taps(x.shape[-2])
    w0, w1, ww0, ww1 = taps(x.shape[-1])
    t = x[..., w0] * ww0 + x[..., w1] * ww1
    return t[..., h0, :] * hw0[:, None] + t[..., h1, :] * hw1[:, None]


def _interpolate2x(T, x):
    return T.nn.functional.interpolate(x, scale_factor=2, mode="bilinear")


def _bilinear2x(shape):
    return op_setup(shape, _interpolate2x, _np_bilinear2x)


def _bilinear2x_backward(shape):
    def setup(T):
        T, F, (x,) = grad_leaves(T, shape)

        def fn():
            x.grad = None
            F.interpolate(x, scale_factor=2, mode="bilinear").sum().backward()
            return x.grad
        return fn
    return setup


def workloads(scale=1.0):
    n, c, side = scaled(8, scale ** 0.25), scaled(64, scale ** 0.25), scaled(56, scale ** 0.25)
    shape = (n, c, side, side)
    out = n * c * 4 * side * side
    return [
        Workload("interp_bilinear2x_8x64x56x56", _bilinear2x(shape), 4 * (out + out // 4),
                 None),
        Workload("interp_bilinear2x_8x64x56x56_fwd_bwd", _bilinear2x_backward(shape),
                 4 * 2 * (out + out // 4), None),
    ]


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
