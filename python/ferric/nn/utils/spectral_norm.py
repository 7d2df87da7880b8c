"""Legacy spectral normalization (``torch.nn.utils.spectral_norm``): ``<name>_orig``
parameter, ``<name>_u``/``<name>_v`` buffers and a forward pre-hook dividing the weight
by its estimated largest singular value. Prefer
:func:`ferric.nn.utils.parametrizations.spectral_norm`."""

from __future__ import annotations

from ... import _core
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d
from .weight_norm import _remove_norm_hook

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm` (PyTorch's class of that name)."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *(d for d in range(mat.dim()) if d != self.dim))
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                mat = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    F.normalize(mat.t().mv(u), dim=0, eps=self.eps, out=v)
                    F.normalize(mat.mv(v), dim=0, eps=self.eps, out=u)
                if self.n_power_iterations > 0:
                    u = u.clone()
                    v = v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        from ..parameter import Parameter

        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = F.normalize(_core.empty(h, dtype=weight.dtype).normal_(0, 1), dim=0, eps=eps)
            v = F.normalize(_core.empty(w, dtype=weight.dtype).normal_(0, 1), dim=0, eps=eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Divides ``module.<name>`` by its largest singular value, estimated by power
    iteration before every forward (updating ``<name>_u``/``<name>_v`` in training).

    Args:
        module (nn.Module): the module.
        name (str): the weight's name. Default: ``"weight"``.
        n_power_iterations (int): power-method steps per forward. Default: 1.
        eps (float): for the normalisations. Default: ``1e-12``.
        dim (int, optional): the output dim (1 for transposed convolutions, else 0).

    Example:
        >>> from ferric import nn
        >>> m = nn.utils.spectral_norm(nn.Linear(20, 40))
        >>> m.weight_u.shape, m.weight_orig.shape
        (ferric.Size([40]), ferric.Size([40, 20]))
    """
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    r"""Removes the spectral normalization of ``module.<name>``.

    Example:
        >>> from ferric import nn
        >>> m = nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 3)))
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'weight']
    """
    return _remove_norm_hook(module, name, SpectralNorm, "spectral_norm")
