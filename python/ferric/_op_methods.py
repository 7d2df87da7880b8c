"""Tensor methods of the composed ops (``_shape_ops``, ``_composite_ops``), attached to
the Rust ``ferric.Tensor`` class: ``t.kron(u)``, ``t.diff()``, ``t.lerp_(end, 0.5)``,
``t.quantile(q)``, ... Each calls the module function with ``self`` first; the in-place
forms write the result back with PyTorch's shape and dtype checks."""

from __future__ import annotations

from . import _composite_ops as C
from . import _extra_ops as X
from . import _lu
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


# PyTorch's signature line and an example for each method; the docstring names the
# function it forwards to, which documents the arguments.
_DOCS = {
    "kron": ("kron(other)", """
    >>> ferric.tensor([1, 2]).kron(ferric.tensor([1, 10]))
    tensor([ 1, 10,  2, 20])
"""),
    "diff": ("diff(n=1, dim=-1, prepend=None, append=None)", """
    >>> ferric.tensor([1, 3, 6, 10]).diff()
    tensor([2, 3, 4])
"""),
    "rot90": ("rot90(k=1, dims=(0, 1))", """
    >>> ferric.tensor([[1, 2], [3, 4]]).rot90()
    tensor([[2, 4],
            [1, 3]])
"""),
    "take_along_dim": ("take_along_dim(indices, dim=None)", """
    >>> x = ferric.tensor([[10, 30, 20], [60, 40, 50]])
    >>> x.take_along_dim(x.argmax(dim=1, keepdim=True), dim=1)
    tensor([[30],
            [60]])
"""),
    "tensor_split": ("tensor_split(indices_or_sections, dim=0)", """
    >>> ferric.arange(5).tensor_split(2)
    (tensor([0, 1, 2]), tensor([3, 4]))
"""),
    "cross": ("cross(other, dim=None)", """
    >>> ferric.tensor([1.0, 0.0, 0.0]).cross(ferric.tensor([0.0, 1.0, 0.0]), dim=0)
    tensor([0., 0., 1.])
"""),
    "lerp": ("lerp(end, weight)", """
    >>> ferric.tensor([0.0, 10.0]).lerp(ferric.tensor([10.0, 20.0]), 0.5)
    tensor([ 5., 15.])
"""),
    "addcmul": ("addcmul(tensor1, tensor2, *, value=1)", """
    >>> ferric.ones(2).addcmul(ferric.tensor([1.0, 2.0]), ferric.tensor([3.0, 4.0]), value=0.5)
    tensor([2.5000, 5.0000])
"""),
    "addcdiv": ("addcdiv(tensor1, tensor2, *, value=1)", """
    >>> ferric.ones(2).addcdiv(ferric.tensor([1.0, 2.0]), ferric.tensor([4.0, 4.0]), value=2)
    tensor([1.5000, 2.0000])
"""),
    "addmv": ("addmv(mat, vec, *, beta=1, alpha=1)", """
    >>> ferric.zeros(2).addmv(ferric.eye(2), ferric.tensor([3.0, 4.0]), alpha=2)
    tensor([6., 8.])
"""),
    "addr": ("addr(vec1, vec2, *, beta=1, alpha=1)", """
    >>> ferric.zeros(2, 2).addr(ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 10.0]))
    tensor([[ 1., 10.],
            [ 2., 20.]])
"""),
    "addbmm": ("addbmm(batch1, batch2, *, beta=1, alpha=1)", """
    >>> b = ferric.ones(3, 2, 2)
    >>> ferric.zeros(2, 2).addbmm(b, b)
    tensor([[6., 6.],
            [6., 6.]])
"""),
    "logcumsumexp": ("logcumsumexp(dim)", """
    >>> ferric.tensor([0.0, 0.0, 0.0]).logcumsumexp(dim=0)
    tensor([0.0000, 0.6931, 1.0986])
"""),
    "histc": ("histc(bins=100, min=0, max=0)", """
    >>> ferric.tensor([1.0, 2.0, 1.0, 4.0]).histc(bins=4, min=0, max=4)
    tensor([0., 2., 1., 1.])
"""),
    "bincount": ("bincount(weights=None, minlength=0)", """
    >>> ferric.tensor([0, 1, 1, 3]).bincount()
    tensor([1, 2, 0, 1])
"""),
    "quantile": ("quantile(q, dim=None, keepdim=False, *, interpolation='linear')", """
    >>> ferric.tensor([0.0, 1.0, 2.0, 3.0]).quantile(0.5)
    tensor(1.5000)
"""),
    "nanquantile": ("nanquantile(q, dim=None, keepdim=False, *, interpolation='linear')", """
    >>> ferric.tensor([0.0, float('nan'), 2.0]).nanquantile(0.5)
    tensor(1.)
"""),
    "lerp_": ("lerp_(end, weight)", """
    >>> x = ferric.tensor([0.0, 10.0])
    >>> x.lerp_(ferric.tensor([10.0, 20.0]), 0.5)
    tensor([ 5., 15.])
"""),
    "addcmul_": ("addcmul_(tensor1, tensor2, *, value=1)", """
    >>> x = ferric.ones(2)
    >>> x.addcmul_(ferric.tensor([1.0, 2.0]), ferric.tensor([3.0, 4.0]))
    tensor([4., 9.])
"""),
    "addcdiv_": ("addcdiv_(tensor1, tensor2, *, value=1)", """
    >>> x = ferric.ones(2)
    >>> x.addcdiv_(ferric.tensor([1.0, 2.0]), ferric.tensor([4.0, 4.0]))
    tensor([1.2500, 1.5000])
"""),
    "addmv_": ("addmv_(mat, vec, *, beta=1, alpha=1)", """
    >>> x = ferric.zeros(2)
    >>> x.addmv_(ferric.eye(2), ferric.tensor([3.0, 4.0]))
    tensor([3., 4.])
"""),
    "addr_": ("addr_(vec1, vec2, *, beta=1, alpha=1)", """
    >>> x = ferric.zeros(2, 2)
    >>> x.addr_(ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 10.0]))
    tensor([[ 1., 10.],
            [ 2., 20.]])
"""),
    "addbmm_": ("addbmm_(batch1, batch2, *, beta=1, alpha=1)", """
    >>> x = ferric.zeros(2, 2)
    >>> b = ferric.ones(3, 2, 2)
    >>> x.addbmm_(b, b)
    tensor([[6., 6.],
            [6., 6.]])
"""),
}


def _doc(name: str, summary: str) -> str:
    signature, example = _DOCS[name]
    example = example.strip("\n")
    return f"{signature} -> Tensor\n\n{summary}\n\nExample:\n{example}\n"


def _inplace(fn, name: str):
    def method(self, *args, **kwargs):
        return _write_back(self, fn(self, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = _doc(name, f"In-place version of :meth:`Tensor.{name[:-1]}`: writes "
                                f"the result into this tensor and returns it.")
    return method


def _method(fn, name: str):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = _doc(name, f"See :func:`ferric.{name}`.")
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
    """trace() -> Tensor

    See :func:`ferric.trace`: the sum of the main diagonal.

    Example:
        >>> import ferric
        >>> ferric.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
        tensor(5.)
    """
    return S.trace(self)


# ``_extra_ops``: methods that forward to the function and share its docstring, and the
# in-place forms defined there with ``self`` first
_EXTRA = {n: getattr(X, n) for n in (
    "float_power", "signbit", "frexp", "conj", "conj_physical", "resolve_conj",
    "resolve_neg", "is_conj", "is_neg", "inner", "index_copy", "renorm", "narrow_copy",
    "triangular_solve")}
_EXTRA["lu"] = _lu.lu_deprecated
_EXTRA["lu_solve"] = _lu.lu_solve_deprecated
_EXTRA_INPLACE = {n: getattr(X, n) for n in ("float_power_", "index_copy_", "renorm_")}
_EXTRA["conj_physical_"] = X.conj_physical_


_NO_ARGS = ("conj", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "conj_physical_")
_OUT_ONLY = ("signbit", "frexp", "conj_physical")


def _forward(fn, name: str):
    if name in _NO_ARGS:
        def method(self):
            return fn(self)
    elif name in _OUT_ONLY:
        def method(self, *, out=None):
            return fn(self, out=out)
    else:
        def method(self, *args, **kwargs):
            return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = fn.__doc__
    return method


def arctan2_(self, other):
    """arctan2_(other) -> Tensor

    In-place version of :func:`ferric.arctan2` (an alias of :meth:`Tensor.atan2_`).

    Example:
        >>> import ferric
        >>> x = ferric.tensor([1.0, -1.0])
        >>> x.arctan2_(ferric.tensor([1.0, 1.0]))
        tensor([ 0.7854, -0.7854])
    """
    return self.atan2_(other)


def install() -> None:
    """Attaches the methods (never replacing one the Rust class defines)."""
    methods = {n: _method(f, n) for n, f in _PLAIN.items()}
    methods.update({n: _forward(f, n) for n, f in _EXTRA.items()})
    methods.update(_EXTRA_INPLACE)
    methods.update({n: _inplace(f, n) for n, f in _INPLACE.items()})
    methods["trace"] = trace
    for name, fn in methods.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)
    # the table's generated alias in-place form has no example in its docstring; this
    # one documents it (and forwards to the same kernel)
    Tensor.arctan2_ = arctan2_
