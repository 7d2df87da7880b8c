"""``weight_norm``, ``spectral_norm`` and ``orthogonal`` as parametrizations
(``torch.nn.utils.parametrizations``), on top of :mod:`ferric.nn.utils.parametrize`.

``orthogonal`` needs a matrix exponential, a Householder product or the Cayley map of a
skew-symmetric matrix; all three are composed here from differentiable matrix products
(scaling and squaring of a Taylor polynomial; a product of reflections; a Newton-Schulz
inverse), so gradients come from the core autograd and nothing depends on a linear
algebra module. The one-off QR factorisations of ``right_inverse`` (no gradient) run in
NumPy.
"""

from __future__ import annotations

import math
from enum import Enum, auto

import numpy as np

from ... import _core
from ..._core import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------------------- weight norm


def _norm_except_dim(v, pow_, dim):
    # torch.norm_except_dim: the p-norm over every dim but `dim` (all of them for -1),
    # shaped to broadcast against v
    if dim == -1:
        return v.norm(pow_)
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    if not others:
        return v.abs() if pow_ else v
    return v.norm(pow_, others, keepdim=True)


def _weight_norm(v, g, dim):
    return v * (g / _norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    r"""Reparametrizes ``module.<name>`` as ``g * v / ||v||`` (norm over every dim but
    ``dim``): ``parametrizations.<name>.original0`` is ``g``, ``original1`` is ``v``.
    State dicts of the legacy ``nn.utils.weight_norm`` (``<name>_g``/``<name>_v``) load.

    Args:
        module (nn.Module): the module.
        name (str): the weight's name. Default: ``"weight"``.
        dim (int, optional): the dim kept by the norm (``None``: norm of everything).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils.parametrizations import weight_norm
        >>> m = weight_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight.original0.shape
        ferric.Size([40, 1])
        >>> m.parametrizations.weight.original1.shape
        ferric.Size([40, 20])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                     unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_compat_hook)
    return module


# ---------------------------------------------------------------------------- spectral norm


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] "
                f"but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = _core.empty(h, dtype=weight.dtype).normal_(0, 1)
            v = _core.empty(w, dtype=weight.dtype).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from reasonable vectors: 15 iterations of the power method
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.dim() <= 1:
            raise AssertionError(
                f"Expected weight to have more than 1 dimension, got {weight.dim()}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim())
                                                if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (as PyTorch does), without gradient
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                F.normalize(weight_mat.t().mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        # the spectral norm is not invertible: assigning sets the original
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Reparametrizes ``module.<name>`` as ``W / sigma(W)``, the largest singular value
    estimated by power iteration (one step per forward in training; ``u``/``v`` are
    buffers of the parametrization, started with 15 steps from a normal draw).

    Args:
        module (nn.Module): the module.
        name (str): the weight's name. Default: ``"weight"``.
        n_power_iterations (int): power-method steps per forward. Default: 1.
        eps (float): for the normalisations. Default: ``1e-12``.
        dim (int, optional): the output dim (1 for transposed convolutions, else 0).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils.parametrizations import spectral_norm
        >>> snm = spectral_norm(nn.Linear(20, 40))
        >>> snm.parametrizations.weight.original.shape
        ferric.Size([40, 20])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------------------- orthogonal


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _eye_like(x, n, k=None):
    eye = _core.eye(n, k if k is not None else n, dtype=x.dtype)
    return eye.expand(*x.shape[:-2], n, k if k is not None else n)


def _matrix_exp(a):
    """``exp(A)`` by scaling and squaring of a degree-18 Taylor polynomial (Horner):
    differentiable matrix products only."""
    with no_grad():
        norm = float(a.detach().abs().sum(-2).max()) if a.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    x = a / (2.0 ** s)
    n = a.shape[-1]
    eye = _eye_like(a, n)
    out = eye + x / 18.0
    for k in range(17, 0, -1):
        out = eye + (x @ out) / float(k)
    for _ in range(s):
        out = out @ out
    return out


def _inverse(m):
    """Newton-Schulz iteration ``X <- X (2I - M X)`` from ``M^T / (|M|_1 |M|_inf)``,
    which converges for any invertible ``M``; run until the residual stops falling."""
    with no_grad():
        md = m.detach()
        scale = md.abs().sum(-2).amax(-1) * md.abs().sum(-1).amax(-1)
    x = m.mT / scale.unsqueeze(-1).unsqueeze(-1)
    eye = _eye_like(m, m.shape[-1])
    best = math.inf
    for _ in range(100):
        x = x @ (2 * eye - m @ x)
        with no_grad():
            res = float((m.detach() @ x.detach() - eye).abs().max())
        if res >= best or res < 1e-15:
            break
        best = res
    return x


def _householder_product(a, tau):
    """``H_1 H_2 ... H_k`` applied to the first ``k`` columns of the identity, with
    ``H_i = I - tau_i v_i v_i^T`` and ``v_i`` column ``i`` of ``a`` below the diagonal,
    1 on it (LAPACK's ``orgqr``)."""
    n, k = a.shape[-2], a.shape[-1]
    v = a.tril(-1) + _eye_like(a, n, k)
    q = _eye_like(a, n, k)
    for i in range(k - 1, -1, -1):
        vi = v[..., :, i:i + 1]
        q = q - (tau[..., i:i + 1].unsqueeze(-1) * vi) @ (vi.mT @ q)
    return q


def _np_qr_positive(q):
    """Q of a QR factorisation with ``diag(R) >= 0``, in NumPy (no gradient)."""
    arr = np.asarray(q.detach().tolist(), dtype=np.float64)
    qq, rr = np.linalg.qr(arr)
    sign = np.sign(np.diagonal(rr, axis1=-2, axis2=-1))
    return _core.tensor(qq * sign[..., None, :], dtype=q.dtype)


def _is_orthogonal(q):
    # PyTorch's test: allclose(Q^T Q, I, atol=10 n eps)
    n, k = q.shape[-2], q.shape[-1]
    eye = _eye_like(q, k)
    eps = 10 * n * (2.220446049250313e-16 if q.dtype == _core.float64 else 1.1920929e-07)
    return bool(((q.mT @ q) - eye).abs().le(eps + 1e-5 * eye.abs()).all())


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = _core.cat([x, _core.zeros(*x.shape[:-2], n, n - k, dtype=x.dtype)], -1)
            a = x - x.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:
                eye = _eye_like(a, n)
                q = _inverse(eye - 0.5 * a) @ (eye + 0.5 * a)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(-2))
            q = _householder_product(a, tau)
            # the signs of the diagonal of x (not differentiated)
            q = q * x.diagonal(0, -2, -1).detach().to(_core.int64).to(q.dtype).unsqueeze(-2)
        if self._buffers.get("base") is not None:
            q = self._buffers["base"] @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        with no_grad():
            if tuple(q.shape) != tuple(self.shape):
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. "
                    f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.shape[-2], q.shape[-1]
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the "
                        "Cayley parametrizations when use_trivialization=False.")
                return _householder_inverse(q, transpose)
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _np_qr_positive(q)
            else:
                extra = _core.randn(*q.shape[:-2], n, n - k, dtype=q.dtype)
                q = _np_qr_positive(_core.cat([q, extra], -1))
            self.base = q
            neg_id = _core.zeros_like(q_init)
            neg_id.diagonal(0, -2, -1).fill_(-1.0)
            return neg_id


def _householder_inverse(q, transpose):
    """LAPACK's ``geqrf`` of ``q`` (reflectors below the diagonal) with the diagonal set
    to the signs PyTorch gives it, via NumPy's raw QR."""
    arr = np.asarray(q.detach().tolist(), dtype=np.float64)
    h, tau = np.linalg.qr(arr, mode="raw")
    a = np.swapaxes(h, -1, -2).copy()
    diag = np.sign(np.diagonal(a, axis1=-2, axis2=-1)).copy()
    diag[tau == 0.0] *= -1
    idx = np.arange(min(a.shape[-2:]))
    a[..., idx, idx] = diag
    out = _core.tensor(a, dtype=q.dtype)
    return out.mT if transpose else out


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    r"""Reparametrizes the matrix (or batch of matrices) ``module.<name>`` to be
    orthogonal: ``Q^T Q = I`` (tall) or ``Q Q^T = I`` (wide), through ``matrix_exp`` (the
    default for square matrices), ``cayley`` or ``householder`` (default otherwise) of the
    original. With ``use_trivialization`` the map is applied relative to a ``base``
    orthogonal matrix set on assignment (the initial weight is kept).

    Args:
        module (nn.Module): the module.
        name (str): the weight's name. Default: ``"weight"``.
        orthogonal_map (str, optional): ``"matrix_exp"``, ``"cayley"`` or
            ``"householder"``.
        use_trivialization (bool): parametrize relative to a base point. Default: ``True``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils.parametrizations import orthogonal
        >>> m = orthogonal(nn.Linear(20, 40))
        >>> q = m.weight
        >>> bool(((q.T @ q) - ferric.eye(20)).abs().max() < 1e-5)
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} "
            "dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.shape[-2] == weight.shape[-1]
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
