"""Legacy weight normalization (``torch.nn.utils.weight_norm``): ``<name>_g`` and
``<name>_v`` parameters and a forward pre-hook that recomputes ``<name>`` from them.
Prefer :func:`ferric.nn.utils.parametrizations.weight_norm`."""

from __future__ import annotations

import warnings

from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from .parametrizations import _norm_except_dim, _weight_norm

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm` (PyTorch's class of that name)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    r"""Replaces ``module.<name>`` by ``g * v / ||v||`` (norm over every dim but ``dim``)
    with parameters ``<name>_g`` and ``<name>_v``, recomputed before every forward.
    Deprecated in PyTorch (a ``FutureWarning``) in favour of the parametrization.

    Args:
        module (nn.Module): the module.
        name (str): the weight's name. Default: ``"weight"``.
        dim (int, optional): the dim kept by the norm (``None``: whole tensor).

    Example:
        >>> import warnings
        >>> from ferric import nn
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     m = nn.utils.weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.weight_g.shape, m.weight_v.shape
        (ferric.Size([40, 1]), ferric.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    r"""Removes the weight normalization of ``module.<name>`` (the weight keeps its
    current value as a plain parameter).

    Example:
        >>> import warnings
        >>> from ferric import nn
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     m = nn.utils.weight_norm(nn.Linear(2, 3))
        >>> m = nn.utils.remove_weight_norm(m)
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'weight']
    """
    return _remove_norm_hook(module, name, WeightNorm, "weight_norm")


def _remove_norm_hook(module, name, hook_type, what):
    """Removes the ``hook_type`` forward pre-hook of ``module.<name>`` (undoing it) and
    returns the module; PyTorch's ValueError names ``what`` when there is none."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
