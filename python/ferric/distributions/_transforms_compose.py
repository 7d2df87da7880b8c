"""Transforms built from other transforms: ``ComposeTransform`` (and
``identity_transform``), ``IndependentTransform``; the vector-to-simplex maps
``SoftmaxTransform`` and ``StickBreakingTransform``; and the matrix maps
``LowerCholeskyTransform`` and ``PositiveDefiniteTransform``."""

from __future__ import annotations

from .. import _core, linalg
from .._dtype_info import finfo
from ..nn import functional as F
from . import constraints
from ._transforms import Transform
from .utils import _sum_rightmost

__all__ = ["ComposeTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "SoftmaxTransform", "StickBreakingTransform",
           "identity_transform"]


class ComposeTransform(Transform):
    """Applies ``parts`` in order; the log-abs-det-Jacobian is the sum of the parts'
    (each summed over the event dimensions the composition has at that point).

    Args:
        parts (list of Transform): the transforms, first applied first.
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import (AffineTransform, ComposeTransform,
        ...                                              ExpTransform)
        >>> t = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])
        >>> t(ferric.tensor([0.5]))
        tensor([2.7183])
    """

    def __init__(self, parts, cache_size: int = 0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):  # type: ignore[override]
        """The first part's domain, with enough event dimensions for the chain."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):  # type: ignore[override]
        """The last part's codomain, with enough event dimensions for the chain."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):  # type: ignore[override]
        """Whether every part is bijective."""
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        """The product of the parts' signs."""
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        """The composition of the inverses, in reverse order."""
        return ComposeTransform([p.inv for p in reversed(self.parts)])

    def with_cache(self, cache_size: int = 1):
        """This composition with ``cache_size`` on every part.

        Args:
            cache_size (int): 0 or 1.

        Example:
            >>> from ferric.distributions.transforms import ComposeTransform, ExpTransform
            >>> ComposeTransform([ExpTransform()]).with_cache(1)._cache_size
            1
        """
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """The sum of the parts' log-abs-det-Jacobians along the chain.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import (AffineTransform,
            ...     ComposeTransform, ExpTransform)
            >>> t = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])
            >>> x = ferric.tensor([0.5])
            >>> t.log_abs_det_jacobian(x, t(x))
            tensor([1.6931])
        """
        if not self.parts:
            return _core.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = None
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:], strict=True):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b),
                                  event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        """The shape after every part.

        Args:
            shape (tuple): input shape.

        Example:
            >>> from ferric.distributions.transforms import ComposeTransform, ExpTransform
            >>> ComposeTransform([ExpTransform()]).forward_shape((2,))
            (2,)
        """
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The shape before every part.

        Args:
            shape (tuple): output shape.

        Example:
            >>> from ferric.distributions.transforms import ComposeTransform, ExpTransform
            >>> ComposeTransform([ExpTransform()]).inverse_shape((2,))
            (2,)
        """
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return (type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts)
                + "\n)")


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Reinterprets ``reinterpreted_batch_ndims`` batch dimensions of
    ``base_transform`` as event dimensions (the log-det is summed over them).

    Args:
        base_transform (Transform): the transform.
        reinterpreted_batch_ndims (int): how many rightmost dimensions to sum over.
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import ExpTransform, IndependentTransform
        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> x = ferric.tensor([1.0, 2.0])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor(3.)
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1):
        """This transform with ``cache_size``.

        Args:
            cache_size (int): 0 or 1.

        Example:
            >>> from ferric.distributions.transforms import ExpTransform, IndependentTransform
            >>> IndependentTransform(ExpTransform(), 1).with_cache(1)._cache_size
            1
        """
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @property
    def domain(self):  # type: ignore[override]
        """The base domain with the reinterpreted dimensions as event dimensions."""
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self):  # type: ignore[override]
        """The base codomain with the reinterpreted dimensions as event dimensions."""
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):  # type: ignore[override]
        """Whether the base transform is bijective."""
        return self.base_transform.bijective

    @property
    def sign(self):
        """The base transform's sign."""
        return self.base_transform.sign

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        """The base log-det summed over the reinterpreted dimensions.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import ExpTransform, IndependentTransform
            >>> IndependentTransform(ExpTransform(), 1).log_abs_det_jacobian(
            ...     ferric.ones(2, 2), None)
            tensor([2., 2.])
        """
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        """The base transform's output shape.

        Args:
            shape (tuple): input shape.

        Example:
            >>> from ferric.distributions.transforms import ExpTransform, IndependentTransform
            >>> IndependentTransform(ExpTransform(), 1).forward_shape((2,))
            (2,)
        """
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        """The base transform's input shape.

        Args:
            shape (tuple): output shape.

        Example:
            >>> from ferric.distributions.transforms import ExpTransform, IndependentTransform
            >>> IndependentTransform(ExpTransform(), 1).inverse_shape((2,))
            (2,)
        """
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, " \
               f"{self.reinterpreted_batch_ndims})"


class SoftmaxTransform(Transform):
    """Maps real vectors to the simplex by ``exp`` and normalising (not bijective; the
    "inverse" is ``log``).

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import SoftmaxTransform
        >>> SoftmaxTransform()(ferric.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        """``shape`` (at least one dimension).

        Args:
            shape (tuple): input shape.

        Example:
            >>> from ferric.distributions.transforms import SoftmaxTransform
            >>> SoftmaxTransform().forward_shape((2, 3))
            (2, 3)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        """``shape`` (at least one dimension).

        Args:
            shape (tuple): output shape.

        Example:
            >>> from ferric.distributions.transforms import SoftmaxTransform
            >>> SoftmaxTransform().inverse_shape((3,))
            (3,)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


def _clipped_sigmoid(x):
    info = finfo(x.dtype)
    return _core.sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)


def _stick_offset(n: int, dtype):
    # n, n-1, ..., 1: the number of sticks left at each break
    return n + 1 - _core.arange(1, n + 1, dtype=dtype)


class StickBreakingTransform(Transform):
    """Maps ``R^(K-1)`` onto the ``K``-simplex by stick breaking: each coordinate,
    shifted by ``log`` of the sticks left, is a sigmoid fraction of what remains.

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import StickBreakingTransform
        >>> StickBreakingTransform()(ferric.zeros(2))
        tensor([0.3333, 0.3333, 0.3333])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        offset = _stick_offset(x.shape[-1], x.dtype)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        ones = _core.ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype)
        return _core.cat([z, ones], -1) * _core.cat([ones, z_cumprod], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _stick_offset(y_crop.shape[-1], y.dtype)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        """``sum(-x' + logsigmoid(x') + log y[:-1])`` with ``x'`` the shifted input.

        Args:
            x (Tensor): input.
            y (Tensor): output.

        Example:
            >>> import ferric
            >>> from ferric.distributions.transforms import StickBreakingTransform
            >>> t = StickBreakingTransform()
            >>> x = ferric.zeros(2)
            >>> t.log_abs_det_jacobian(x, t(x))
            tensor(-3.2958)
        """
        x = x - _stick_offset(x.shape[-1], x.dtype).log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        """``shape`` with one more element in the last dimension.

        Args:
            shape (tuple): input shape.

        Example:
            >>> from ferric.distributions.transforms import StickBreakingTransform
            >>> StickBreakingTransform().forward_shape((4, 2))
            (4, 3)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        """``shape`` with one fewer element in the last dimension.

        Args:
            shape (tuple): output shape.

        Example:
            >>> from ferric.distributions.transforms import StickBreakingTransform
            >>> StickBreakingTransform().inverse_shape((3,))
            (2,)
        """
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Maps square matrices to lower-triangular ones with a positive diagonal: the
    strict lower triangle is kept and the diagonal exponentiated.

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import LowerCholeskyTransform
        >>> LowerCholeskyTransform()(ferric.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + _core.diag_embed(x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return y.tril(-1) + _core.diag_embed(y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(Transform):
    """Maps square matrices to positive-definite ones: ``L L^T`` with ``L`` from
    ``LowerCholeskyTransform``.

    Args:
        cache_size (int): 0 or 1 (see ``Transform``).

    Example:
        >>> import ferric
        >>> from ferric.distributions.transforms import PositiveDefiniteTransform
        >>> PositiveDefiniteTransform()(ferric.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(linalg.cholesky(y))
