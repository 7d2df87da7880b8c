"""``ferric.func``: PyTorch's composable function transforms (``torch.func``) on
ferric's reverse-mode autograd: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``, ``linearize``, ``vmap``, ``functional_call``,
``stack_module_state`` and ``replace_all_batch_norm_modules_``. See ``docs/func.md``
for how they are computed and where they differ from PyTorch.
"""

from __future__ import annotations

from ._eager import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._module import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._vmap import vmap

__all__ = [
    "functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
    "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap",
]
