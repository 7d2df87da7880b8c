"""Tensor methods of the composed ops (``_shape_ops``, ``_composite_ops``), attached to
the Rust ``ferric.Tensor`` class: ``t.kron(u)``, ``t.diff()``, ``t.lerp_(end, 0.5)``,
``t.quantile(q)``, ... Each calls the module function with ``self`` first; the in-place
forms write the result back with PyTorch's shape and dtype checks."""

from __future__ import annotations

from . import _composite_ops as C
from . import _shape_ops as S
from ._core import Tensor


def _write_back(self: Tensor, result: Tensor) -> Tensor:
    if list(result.shape) != list(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(result.shape)}")
    if result.dtype.is_floating_point and not self.dtype.is_floating_point:
        raise RuntimeError(f"result type {S._tname(result.dtype)} can't be cast to the "
                           f"desired output type {S._tname(self.dtype)}")
    return self.copy_(result)


def _inplace(fn, name: str):
    def method(self, *args, **kwargs):
        return _write_back(self, fn(self, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``: writes the result into this tensor."
    return method


def _method(fn, name: str):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``ferric.{name}(self, ...)``."
    return method


_PLAIN = {
    "kron": S.kron, "diff": S.diff, "rot90": S.rot90, "take_along_dim": S.take_along_dim,
    "tensor_split": S.tensor_split, "cross": S.cross,
    "lerp": C.lerp, "addcmul": C.addcmul, "addcdiv": C.addcdiv, "addmv": C.addmv,
    "addr": C.addr, "addbmm": C.addbmm, "logcumsumexp": C.logcumsumexp, "histc": C.histc,
    "bincount": C.bincount, "quantile": C.quantile, "nanquantile": C.nanquantile,
}
_INPLACE = {"lerp_": C.lerp, "addcmul_": C.addcmul, "addcdiv_": C.addcdiv,
            "addmv_": C.addmv, "addr_": C.addr, "addbmm_": C.addbmm}


def trace(self) -> Tensor:
    """``ferric.trace(self)``: the sum of the main diagonal."""
    return S.trace(self)


def install() -> None:
    """Attaches the methods (never replacing one the Rust class defines)."""
    methods = {n: _method(f, n) for n, f in _PLAIN.items()}
    methods.update({n: _inplace(f, n) for n, f in _INPLACE.items()})
    methods["trace"] = trace
    for name, fn in methods.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)
