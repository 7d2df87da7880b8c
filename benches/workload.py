"""The record the ``cmp_*.py`` workload lists are made of, and the input helpers they share.

Kept apart from ``compare.py`` so that a ``cmp_*`` module can import it without importing
the driver (which imports every ``cmp_*`` module) and without importing NumPy: the driver
must set the BLAS thread variables before NumPy, ferric or PyTorch is first imported.
"""

from __future__ import annotations

from collections import namedtuple

Workload = namedtuple("Workload", "name setup bytes flops ops", defaults=(None,))
Workload.__doc__ = """One timed unit of a comparison benchmark.

``setup(T)`` receives the library module (``ferric``, ``torch`` or ``numpy``), builds the
inputs (not timed) and returns the closure to time, which returns its result so that a
test can compare libraries; it raises ``NotImplementedError`` when the library cannot run
the workload. ``bytes`` (memory traffic per call) gives GB/s, ``flops`` gives GFLOP/s and
``ops`` (operations per call) gives microseconds per operation; any may be ``None``.
"""


def scaled(n, scale, least=2):
    """``n * scale`` rounded, at least ``least`` (2 by default: a dimension of 1 is a
    special case for broadcasting and batch statistics). The ``workloads(scale)`` functions
    pass every size through this so a test can build the same workloads tiny (names keep
    the nominal sizes, ``bytes``/``flops`` follow the scaled ones)."""
    return max(least, round(n * scale))


def is_numpy(T):
    return T.__name__ == "numpy"


def needs(T, feature):
    """Return ``T``, or raise ``NotImplementedError`` when ``T`` is NumPy, which has no
    ``feature`` (autograd, ``nn``)."""
    if is_numpy(T):
        raise NotImplementedError(f"numpy has no {feature}")
    return T


def inputs(T, *shapes, seed=0):
    """Standard-normal float32 arrays of the given shapes as ``T`` tensors.

    Drawn with NumPy's seeded generator for every library, so ferric, PyTorch and NumPy
    compute on the same values and their results can be compared."""
    import numpy as np  # here, not at the top: see the module docstring

    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(shape, dtype=np.float32) for shape in shapes]
    if is_numpy(T):
        return arrays
    return [T.from_numpy(a) for a in arrays]


def grad_leaves(T, *shapes):
    """For a forward + backward workload: ``T`` (``NotImplementedError`` for NumPy, which
    has no autograd), its ``nn.functional`` and the :func:`inputs` of ``shapes`` as leaves
    that require grad."""
    T = needs(T, "autograd")
    xs = inputs(T, *shapes)
    for x in xs:
        x.requires_grad_(True)
    return T, T.nn.functional, xs


def op_setup(shape, op, numpy_op):
    """The setup of a workload timing ``op(T, x)`` on ferric and PyTorch and its NumPy
    spelling ``numpy_op(np, x)`` on NumPy, ``x`` the :func:`inputs` of ``shape``."""
    def setup(T):
        (x,) = inputs(T, shape)
        fn = numpy_op if is_numpy(T) else op
        return lambda: fn(T, x)
    return setup
