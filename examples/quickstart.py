"""A first look at ferric: build a small computation on the fly and print it.

Run with ``python examples/quickstart.py``. Everything here is plain PyTorch API; the
script also runs with ``import torch as ferric``.
"""

import numpy as np

import ferric

x = ferric.linspace(-2.0, 2.0, 5)
print("x        =", x)

# Ordinary Python control flow decides what gets computed: the computation is defined
# by running it.
y = x
steps = 0
while float(abs(y).max() if hasattr(y, "max") else abs(y)[0]) < 10:
    y = y * 2 + 1
    steps += 1
print(f"after {steps} doubling steps, y =", y)

# Views share memory: a transposed view and a strided slice see writes to the base.
m = ferric.arange(12.0).reshape(3, 4)
col = m.t()[1]
m[:, 1] = -1
print("m =", m)
print("column 1 seen through a view of m.t():", col)

# NumPy interop is zero-copy both ways.
a = np.ones((2, 3), dtype=np.float32)
t = ferric.from_numpy(a)
t.mul_(3)
print("numpy array after an in-place op on the tensor:\n", a)

# Type promotion follows PyTorch.
i = ferric.tensor([1, 2, 3])
print("int tensor / 2   ->", i / 2, i.dtype, "->", (i / 2).dtype)
print("sigmoid(x)       ->", x.sigmoid())
