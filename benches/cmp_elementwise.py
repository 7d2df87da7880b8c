"""Elementwise workloads of the kernels issue for the ferric / PyTorch / NumPy comparison.

``workloads(scale=1.0)`` returns a list of ``Workload(name, setup, bytes, flops)`` (see
``workload.py``) on 1.6e7 float32 elements: ``c = a + b`` and ``a += b`` (GB/s counts three
arrays: two read, one written), ``exp``, ``tanh`` and ``relu`` (two arrays), the same add
on a transposed pair and a ``(4096, 4096) + (4096,)`` row broadcast, and two copies into
a new layout (``x.T.contiguous()``, NCHW -> channels-last). The names follow the
shared yardstick's (``ew_*``, ``unary_*``). NumPy runs all of them: ``relu`` is
``np.maximum(x, 0)`` and ``a += b`` is ``np.add(a, b, out=a)``. The shared driver
``benches/compare.py`` times this list with every other ``cmp_*`` list; this file runs it
alone, with the driver's options::

    python benches/cmp_elementwise.py [--libs ferric,numpy,torch] [--threads 1] [--only unary]
"""

from __future__ import annotations

from workload import Workload, inputs, is_numpy, scaled

N = 16_000_000


def _add(shape_a, shape_b, transposed=False):
    def setup(T):
        a, b = inputs(T, shape_a, shape_b)
        if transposed:
            a, b = a.T, b.T
        return lambda: a + b
    return setup


def _add_inplace(n):
    def setup(T):
        a, b = inputs(T, (n,), (n,))

        def fn():
            nonlocal a
            a += b  # in place for all three libraries (NumPy: np.add(a, b, out=a))
            return a
        return fn
    return setup


def _unary(name, n):
    def setup(T):
        (x,) = inputs(T, (n,))
        if is_numpy(T) and name == "relu":
            np = T
            return lambda: np.maximum(x, 0)
        f = getattr(T, name)
        return lambda: f(x)
    return setup


def _copy_transposed(shape, perm):
    """The copy of a permuted view into a fresh row-major (or, for a 4-d ``perm`` of
    ``None``, channels-last) array: ``x.T.contiguous()`` and NCHW -> NHWC."""
    def setup(T):
        (x,) = inputs(T, shape)
        if is_numpy(T):
            np = T
            if perm is None:  # the NHWC copy, seen as NCHW like the others' results
                return lambda: np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
            return lambda: np.ascontiguousarray(x.transpose(perm))
        if perm is None:
            return lambda: x.contiguous(memory_format=T.channels_last)
        xp = x.permute(*perm)
        return lambda: xp.contiguous()
    return setup


def workloads(scale=1.0):
    n, side, rows = scaled(N, scale), scaled(4000, scale), scaled(4096, scale)
    return [
        Workload("ew_add_16e6", _add((n,), (n,)), 3 * 4 * n, None),
        Workload("ew_add_inplace_16e6", _add_inplace(n), 3 * 4 * n, None),
        *(Workload(f"unary_{f}_16e6", _unary(f, n), 2 * 4 * n, None)
          for f in ("exp", "tanh", "relu")),
        Workload("ew_add_transposed_4000x4000", _add((side, side), (side, side), True),
                 3 * 4 * side * side, None),
        Workload("ew_add_row_broadcast_4096x4096", _add((rows, rows), (rows,)),
                 4 * (2 * rows * rows + rows), None),
        Workload("copy_transposed_4096x4096", _copy_transposed((rows, rows), (1, 0)),
                 2 * 4 * rows * rows, None),
        Workload("copy_to_channels_last_32x64x56x56",
                 _copy_transposed((32, 64, scaled(56, scale), scaled(56, scale)), None),
                 2 * 4 * 32 * 64 * scaled(56, scale) ** 2, None),
    ]


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
