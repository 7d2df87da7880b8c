"""Linear-algebra workloads for the ferric / PyTorch / NumPy comparison: ``solve``,
``svd`` and ``cholesky`` on one 256x256 float32 matrix and on a batch of 64 32x32 ones
(the batched case is where per-matrix overhead and splitting the batch over threads
show). The shared driver ``benches/compare.py`` times this list with every other
``cmp_*`` list; this file runs it alone, with the driver's options::

    python benches/cmp_linalg.py [--libs ferric,torch,numpy] [--threads 1] [--only svd*]
"""

from __future__ import annotations

from workload import Workload, inputs, is_numpy, scaled


def _spd(T, a, n):
    # a @ a^T + n I: symmetric positive definite, well conditioned
    if is_numpy(T):
        np = T
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=a.dtype)
    return a @ a.mT + n * T.eye(n, dtype=a.dtype)


def _solve(batch, n):
    def setup(T):
        shape = (batch, n, n) if batch else (n, n)
        a, b = inputs(T, shape, shape[:-1] + (4,))
        a = _spd(T, a, n)
        return lambda: T.linalg.solve(a, b)
    return setup


def _svd(batch, n):
    def setup(T):
        (a,) = inputs(T, (batch, n, n) if batch else (n, n))
        # U and Vh are computed too; S alone is returned, as the vectors' signs are
        # each library's own and the results are compared across libraries
        return lambda: T.linalg.svd(a, full_matrices=False)[1]
    return setup


def _cholesky(batch, n):
    def setup(T):
        (a,) = inputs(T, (batch, n, n) if batch else (n, n))
        a = _spd(T, a, n)
        return lambda: T.linalg.cholesky(a)
    return setup


def workloads(scale=1.0):
    big, small, batch = scaled(256, scale), scaled(32, scale), scaled(64, scale)
    out = []
    for name, make, flops in (("solve", _solve, lambda n: 2 * n**3 // 3 + 8 * n * n),
                              ("svd", _svd, lambda n: 22 * n**3),
                              ("cholesky", _cholesky, lambda n: n**3 // 3)):
        out.append(Workload(f"{name}_256", make(0, big), big * big * 4, flops(big)))
        out.append(Workload(f"{name}_64x32x32", make(batch, small), batch * small * small * 4,
                            batch * flops(small)))
    return out


WORKLOADS = workloads()


def main(argv=None):
    import compare

    return compare.main(argv, [workloads], __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
