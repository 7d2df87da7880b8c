"""``ferric.func``: PyTorch's composable function transforms (``torch.func``) on
ferric's reverse-mode autograd: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian``, ``vmap``, ``functional_call`` and
``stack_module_state``. See ``docs/func.md`` for how they are computed and where they
differ from PyTorch.
"""

from __future__ import annotations

from ._eager import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._module import functional_call, stack_module_state
from ._vmap import vmap

__all__ = [
    "functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
    "stack_module_state", "vjp", "vmap",
]
