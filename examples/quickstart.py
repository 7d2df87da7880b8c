"""A first look at ferric: build a small computation on the fly, print it, and
differentiate it.

Run with ``python examples/quickstart.py``. Everything here is plain PyTorch API; the
script also runs unchanged with ``import torch as ferric``.
"""

import numpy as np

import ferric

ferric.manual_seed(0)

# Ordinary Python control flow decides what gets computed: the graph is recorded as the
# code runs, so a data-dependent loop is differentiated like any other code.
x = ferric.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x
steps = 0
while y.norm() < 100:
    y = y * 2 + x.sin()
    steps += 1
loss = (y ** 2).mean()
loss.backward()
print(f"{steps} loop steps, loss = {loss.item():.4f}")
print("d loss / d x =", x.grad)
# The recorded graph can be walked from the result: grad_fn is None only for leaves.
root = loss.grad_fn
assert root is not None
parent, _ = root.next_functions[0]
print("graph root:", root.name(), "<-", parent.name() if parent is not None else None)

# Views share memory: a transposed view and a strided slice see writes to the base.
m = ferric.arange(12.0).reshape(3, 4)
col = m.t()[1]
m[:, 1] = -1
print("m =", m)
print("column 1 through a view of m.t():", col)

# NumPy interop is zero-copy both ways.
a = np.ones((2, 3), dtype=np.float32)
ferric.from_numpy(a).mul_(3)
print("numpy array after an in-place op on the tensor:\n", a)

# Type promotion, reductions and matrix products follow PyTorch.
i = ferric.tensor([1, 2, 3])
print("int tensor / 2 ->", i / 2, (i / 2).dtype)
w = ferric.randn(3, 2)
print("x @ w =", x.detach() @ w, " softmax:", ferric.softmax(x.detach(), dim=0))
