"""``NestedTensor``: a ragged batch stored packed, modelled on PyTorch's jagged layout.

Representation: ``_values`` is one ordinary ``ferric.Tensor`` of shape
``(T, *trailing)`` holding every item's rows back to back (``T = sum of lengths``), and
``_ragged`` is the interned structure with the item lengths and offsets. The logical
shape is ``(B, j, *trailing)``: dim 0 is the batch, dim ``_ridx`` (1 unless the tensor
was transposed, as attention does with heads) is ragged and reported as a ``NestedInt``.

Autograd needs no code of its own here: every op is an ordinary differentiable op on
``_values`` (row-wise ops apply to the whole buffer at once; segment reductions use
``index_add`` over the segment-id vector; the few per-item ops split ``_values`` into
views and ``cat`` the results), so gradients flow to the packed buffer and, through
``cat``, to the tensors a nested tensor was built from.

Ops that are not defined on nested tensors raise ``NotImplementedError`` naming the op
(see ``__getattr__``) rather than computing on the packed buffer, which would be wrong.
"""

from __future__ import annotations

import operator

from .. import _core
from .._core import Tensor
from .._size import Size
from . import _ops
from ._ragged import NestedInt, _norm_dim, _short, jagged


class NestedTensor:
    """A batch of tensors whose first dimension differs, stored without padding.

    Build one with :func:`ferric.nested.nested_tensor`, :func:`as_nested_tensor`,
    :func:`nested_tensor_from_jagged`, :func:`narrow` or :func:`masked_select`; do not
    call the constructor. ``nt.shape`` is ``ferric.Size([B, j1, *trailing])`` where
    ``j1`` (a :class:`NestedInt`) stands for the ragged size.

    Example:
        >>> import ferric
        >>> nt = ferric.nested.nested_tensor([ferric.ones(2, 3), ferric.ones(4, 3)])
        >>> nt.shape  # doctest: +ELLIPSIS
        ferric.Size([2, j..., 3])
        >>> nt.sum(dim=1)
        tensor([[2., 2., 2.],
                [4., 4., 4.]])
    """

    __slots__ = ("_values", "_ragged", "_ridx")

    is_nested = True
    is_sparse = False
    is_cuda = False
    layout = jagged

    def __init__(self, values, ragged, ridx=1):
        self._values = values
        self._ragged = ragged
        self._ridx = ridx

    def _wrap(self, values, ridx=None):
        """A nested tensor with this structure around new packed ``values`` (the result
        of a row-wise op: one output row per input row)."""
        if values.dim() == 0 or values.size(0) != self._ragged.total:
            raise RuntimeError(
                f"nested tensor: a row-wise op returned shape {tuple(values.shape)} for "
                f"packed values of shape {tuple(self._values.shape)}"
            )
        return NestedTensor(values, self._ragged, self._ridx if ridx is None else ridx)

    # ------------------------------------------------------------------ metadata

    @property
    def shape(self):
        """The sizes, with the ragged dimension as a symbol (``ferric.Size([3, j1, 64])``)."""
        dims = list(self._values.shape[1:])
        dims.insert(self._ridx - 1, NestedInt(self._ragged))
        return Size([self._ragged.batch, *dims])

    def size(self, dim=None):
        """The sizes as :attr:`shape`, or the size of ``dim`` (an error for the ragged dimension).
        """
        shape = self.shape
        return shape if dim is None else shape[_norm_dim(dim, len(shape))]

    def dim(self):
        """The number of dimensions, the batch and ragged ones included."""
        return self._values.dim() + 1

    ndimension = dim

    @property
    def ndim(self):
        """The number of dimensions (as :meth:`dim`)."""
        return self._values.dim() + 1

    @property
    def dtype(self):
        """The dtype of the items."""
        return self._values.dtype

    @property
    def device(self):
        """The device of the items (the CPU)."""
        return self._values.device

    def numel(self):
        """The number of elements of all items together."""
        return self._values.numel()

    nelement = numel

    def element_size(self):
        """The size of one element in bytes."""
        return self._values.element_size()

    def is_floating_point(self):
        """Whether the dtype is a floating-point one."""
        return self._values.is_floating_point()

    def is_contiguous(self, memory_format=None):
        """Whether the packed buffer is contiguous with the items back to back."""
        return self._ridx == 1 and self._values.is_contiguous()

    def values(self):
        """The packed ``(T, *trailing)`` buffer (shares memory and autograd history)."""
        return self._values

    def offsets(self):
        """``(B + 1,)`` int64 row offsets of the items in :meth:`values`."""
        return self._ragged.offsets()

    def lengths(self):
        """``None``: items are stored back to back (PyTorch returns ``None`` as well for a
        contiguous jagged tensor; the lengths are ``offsets().diff()``)."""
        return None

    def __len__(self):
        return self._ragged.batch

    def __iter__(self):
        return iter(self.unbind())

    def __getitem__(self, index):
        if isinstance(index, int) and not isinstance(index, bool):
            b = self._ragged.batch
            if not -b <= index < b:
                raise IndexError(
                    f"index {index} is out of bounds for dimension 0 with size {b}"
                )
            return self.unbind()[index]
        raise NotImplementedError(
            f"__getitem__(): only an integer index (one item) is supported for nested "
            f"tensors, got {index!r}"
        )

    def __bool__(self):
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    __hash__ = object.__hash__

    def _shape_str(self):
        return "(" + ", ".join(repr(d) for d in self.shape) + ")"

    def __repr__(self):
        extra = ""
        if self._values.grad_fn is not None:
            extra = f", grad_fn={self._values.grad_fn!r}"
        elif self._values.requires_grad:
            extra = ", requires_grad=True"
        return (f"NestedTensor(size={self._shape_str()}, offsets={self.offsets()!r}"
                f"{extra}, contiguous={self.is_contiguous()})")

    # ------------------------------------------------------------------ autograd

    @property
    def requires_grad(self):
        """Whether gradients are recorded for the packed buffer."""
        return self._values.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._values.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """Sets :attr:`requires_grad` (of a leaf) in place; returns self."""
        self._values.requires_grad_(requires_grad)
        return self

    @property
    def grad(self):
        """The gradient of a leaf nested tensor after ``backward`` (a nested tensor), or ``None``.
        """
        g = self._values.grad
        return None if g is None else self._wrap(g)

    @grad.setter
    def grad(self, value):
        self._values.grad = value._values if isinstance(value, NestedTensor) else value

    @property
    def grad_fn(self):
        """The backward node that produced the packed buffer, or ``None`` for a leaf."""
        return self._values.grad_fn

    @property
    def is_leaf(self):
        """Whether the nested tensor has no autograd history (a leaf)."""
        return self._values.is_leaf

    @property
    def data(self):
        """The same items without autograd history (sharing memory)."""
        return self._wrap(self._values.data)

    def retain_grad(self):
        """Keeps :attr:`grad` of this non-leaf after ``backward``."""
        self._values.retain_grad()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Backpropagates from this nested tensor (``gradient`` is a nested tensor of the same
        structure; it may be left out for one element).
        """
        if isinstance(gradient, NestedTensor):
            self._check_same(gradient, "backward")
            gradient = gradient._values
        if isinstance(inputs, NestedTensor):
            inputs = inputs._values
        elif inputs is not None:
            inputs = [i._values if isinstance(i, NestedTensor) else i for i in inputs]
        self._values.backward(gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """The same items, cut from the graph (sharing memory)."""
        return self._wrap(self._values.detach())

    def detach_(self):
        """Cuts this nested tensor from the graph in place; returns self."""
        self._values.detach_()
        return self

    def clone(self, memory_format=None):
        """A copy of the items in a new packed buffer (recorded by autograd)."""
        return self._wrap(self._values.clone())

    def contiguous(self, memory_format=None):
        """Self if the buffer is contiguous, else a contiguous copy."""
        return self._wrap(self._values.contiguous())

    def to(self, *args, **kwargs):
        """The items converted as ``Tensor.to`` converts (dtype, device); self when nothing
        changes.
        """
        args = tuple(a._values if isinstance(a, NestedTensor) else a for a in args)
        out = self._values.to(*args, **kwargs)
        return self if out is self._values else self._wrap(out)

    def type_as(self, other):
        """The items cast to the dtype of ``other``."""
        return self.to(other.dtype)

    def cpu(self):
        """Returns self: the items are on the CPU."""
        return self

    def float(self):
        """The items cast to float32."""
        return self.to(_core.float32)

    def double(self):
        """The items cast to float64."""
        return self.to(_core.float64)

    def long(self):
        """The items cast to int64."""
        return self.to(_core.int64)

    def bool(self):
        """The items cast to bool."""
        return self.to(_core.bool)

    # ------------------------------------------------------------------ operands

    def _check_same(self, other, op):
        if other._ragged is not self._ragged or other._ridx != self._ridx:
            raise RuntimeError(
                f"{op}(): nested tensors must have the same ragged structure, got shapes "
                f"{self._shape_str()} and {other._shape_str()} with item lengths "
                f"{_short(self._ragged.lengths)} and {_short(other._ragged.lengths)}"
            )

    def _operand(self, other, op):
        """``other`` as an operand of a row-wise op on ``_values``: the packed values of
        a nested tensor with the same structure, a dense tensor broadcast over the
        trailing dims (or one value per item), or a Python scalar."""
        if isinstance(other, NestedTensor):
            self._check_same(other, op)
            return other._values
        if isinstance(other, Tensor):
            return self._dense_operand(other, op)
        return other

    def _dense_operand(self, other, op):
        nd, od, r = self.dim(), other.dim(), self._ridx
        # dims strictly after the ragged dim line up with the last dims of _values
        if od <= nd - 1 - r:
            return other
        if r == 1 and od == nd - 1 and other.shape[0] == 1:
            return other
        if r == 1 and od == nd and other.shape[1] == 1 and \
                other.shape[0] in (1, self._ragged.batch):
            # one value per item: (B, 1, ...) -> one row per packed row
            per_item = other.squeeze(1)
            if other.shape[0] == 1:
                return per_item
            return per_item.index_select(0, self._ragged.seg())
        raise RuntimeError(
            f"{op}(): a dense tensor of shape {tuple(other.shape)} cannot be broadcast "
            f"with a nested tensor of shape {self._shape_str()}: it must broadcast over "
            "the dims after the ragged one, or have shape (B or 1, 1, ...) to give one "
            "value per item"
        )

    def _binary(self, other, fn, op, reverse=False):
        if not isinstance(other, NestedTensor | Tensor | int | float | bool):
            return NotImplemented
        o = self._operand(other, op)
        return self._wrap(fn(o, self._values) if reverse else fn(self._values, o))

    # ------------------------------------------------------------------ structure ops

    def unbind(self, dim=0):
        """The items as a tuple of views into the packed buffer."""
        if _norm_dim(dim, self.dim()) != 0:
            raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
        items = self._values.split(list(self._ragged.lengths), 0)
        if self._ridx != 1:
            items = tuple(t.movedim(0, self._ridx - 1) for t in items)
        return tuple(items)

    def to_padded_tensor(self, padding, output_size=None):
        """A dense ``(B, max_len, *trailing)`` tensor, ``padding`` past each item's end.

        ``output_size`` (a full shape, each entry at least the padded size) pads
        further; it cannot truncate.
        """
        return _ops.to_padded_tensor(self, padding, output_size)

    def _logical_order(self):
        """Non-batch dims in logical order: ``None`` for the ragged dim, else the
        ``_values`` dim holding it."""
        order = list(range(1, self._values.dim()))
        order.insert(self._ridx - 1, None)
        return order

    def transpose(self, dim0, dim1):
        """Swaps two dimensions; the batch dimension stays first."""
        nd = self.dim()
        d0, d1 = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
        if d0 == 0 or d1 == 0:
            raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
        order = self._logical_order()
        order[d0 - 1], order[d1 - 1] = order[d1 - 1], order[d0 - 1]
        ridx = order.index(None) + 1
        perm = [0] + [d for d in order if d is not None]
        values = self._values
        if perm != list(range(len(perm))):
            values = values.permute(*perm)
        return NestedTensor(values, self._ragged, ridx)

    swapaxes = swapdims = transpose

    def _vdim(self, d, op):
        """The ``_values`` dim of logical dim ``d`` (which must not be batch/ragged)."""
        if d == 0:
            raise RuntimeError(f"{op}(): not supported for NestedTensor on dim=0")
        if d == self._ridx:
            raise RuntimeError(
                f"{op}(): not supported for NestedTensor on the ragged dim={d}"
            )
        return d if d < self._ridx else d - 1

    def unflatten(self, dim, sizes):
        """Splits the regular dimension ``dim`` into ``sizes``."""
        d = _norm_dim(dim, self.dim())
        vd = self._vdim(d, "unflatten")
        ridx = self._ridx + (len(sizes) - 1 if d < self._ridx else 0)
        return self._wrap(self._values.unflatten(vd, sizes), ridx)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merges the regular dimensions ``start_dim`` to ``end_dim``."""
        nd = self.dim()
        s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
        if s == e:
            return self
        if s == 0 or s <= self._ridx <= e:
            bad = 0 if s == 0 else self._ridx
            self._vdim(bad, "flatten")
        vs, ve = self._vdim(s, "flatten"), self._vdim(e, "flatten")
        ridx = self._ridx - (e - s if e < self._ridx else 0)
        return self._wrap(self._values.flatten(vs, ve), ridx)

    def _reshaped(self, shape, op):
        if len(shape) == 1 and isinstance(shape[0], tuple | list | Size):
            shape = tuple(shape[0])
        ok = (self._ridx == 1 and len(shape) >= 2 and shape[0] in (self._ragged.batch, -1)
              and (shape[1] == -1 or shape[1] == NestedInt(self._ragged))
              and all(isinstance(s, int) for s in shape[2:]))
        if not ok:
            raise RuntimeError(
                f"{op}(): cannot view shape {self._shape_str()} as {list(shape)}: keep the "
                "batch size and pass -1 (or nt.size(1)) for the ragged dim"
            )
        return (self._ragged.total, *shape[2:])

    def reshape(self, *shape):
        """``(B, -1 or j, *trailing)``: reshapes the trailing dims of every item."""
        return self._wrap(self._values.reshape(*self._reshaped(shape, "reshape")))

    def view(self, *shape):
        """As :meth:`reshape`, but never copies (raises when the buffer cannot be viewed)."""
        return self._wrap(self._values.view(*self._reshaped(shape, "view")))

    def unsqueeze(self, dim):
        """Inserts a dimension of size 1 at ``dim`` (not before the batch dimension)."""
        nd = self.dim() + 1
        d = _norm_dim(dim, nd)
        if d == 0:
            raise RuntimeError("unsqueeze(): not supported for NestedTensor on dim=0")
        ridx = self._ridx + (1 if d <= self._ridx else 0)
        vd = d if d <= self._ridx else d - 1
        return self._wrap(self._values.unsqueeze(vd), ridx)

    def squeeze(self, dim=None):
        """Removes regular dimensions of size 1 (``dim`` or all)."""
        if dim is None:
            raise RuntimeError("squeeze(): For nested tensors, squeeze without the dim "
                               "argument is not supported")
        d = _norm_dim(dim, self.dim())
        vd = self._vdim(d, "squeeze")
        if self._values.shape[vd] != 1:
            return self
        return self._wrap(self._values.squeeze(vd), self._ridx - (1 if d < self._ridx else 0))

    # ------------------------------------------------------------------ reductions etc.

    # sum, mean, amax, amin, max, min: generated below from the reduction table's rows

    def softmax(self, dim, dtype=None):
        """Softmax over ``dim`` within each item (over the ragged dimension: each item's own
        length).
        """
        return _ops.softmax(self, dim, dtype, log=False)

    def log_softmax(self, dim, dtype=None):
        """Log-softmax over ``dim`` within each item."""
        return _ops.softmax(self, dim, dtype, log=True)

    def matmul(self, other):
        """Batched matrix product per item with a dense matrix or a nested tensor of matching
        structure.
        """
        return _ops.matmul(self, other)

    def where(self, condition, other):
        """``self`` where ``condition`` holds, else ``other`` (each nested with this
        structure, a dense tensor broadcast over the trailing dims, or a scalar)."""
        return self._wrap(self._values.where(self._operand(condition, "where"),
                                             self._operand(other, "where")))

    def masked_fill(self, mask, value):
        """Fills the elements where the nested bool ``mask`` is True with ``value``."""
        return self._wrap(self._values.masked_fill(self._operand(mask, "masked_fill"), value))

    def masked_fill_(self, mask, value):
        """In-place :meth:`masked_fill`; returns self."""
        self._values.masked_fill_(self._operand(mask, "masked_fill_"), value)
        return self

    def __matmul__(self, other):
        if not isinstance(other, NestedTensor | Tensor):
            return NotImplemented
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        raise NotImplementedError(
            "matmul(): a dense tensor @ a nested tensor is not supported (the ragged dim "
            "would be contracted); use nt @ weight"
        )

    def __getattr__(self, name):
        # Reached only for names NestedTensor does not define: a Tensor op that has no
        # nested meaning here must fail loudly, never run on the packed buffer.
        if not name.startswith("_") and hasattr(Tensor, name):
            attr = getattr(Tensor, name)
            message = (f"{name}(): not supported for nested tensors (ferric.nested); see "
                       "docs/nested.md for the supported ops")
            if callable(attr):
                def unsupported(*args, **kwargs):
                    raise NotImplementedError(message)
                return unsupported
            raise NotImplementedError(message)
        raise AttributeError(f"'NestedTensor' object has no attribute '{name}'")


# ---------------------------------------------------------------------- generated ops

# Elementwise ops: applied to the packed buffer as a whole. The op table's rows marked
# nested (read from _core, with their aliases and in-place forms), then the unary ops
# outside the table.
_TABLE = [r for r in _core._op_table()
          if r["family"] in ("unary", "predicate") and r["nested"]]
_UNARY = tuple(m for r in _TABLE for m in r["methods"]) + (
    "round", "clamp", "clip", "clamp_min", "clamp_max", "nan_to_num", "logical_not",
    "bitwise_not",
)
_UNARY_INPLACE = tuple(m for r in _TABLE for m in r["inplace"]) + (
    "clamp_", "clip_", "round_", "zero_", "fill_", "nan_to_num_",
)
# Binary ops: the other operand goes through NestedTensor._operand. The binary table's
# rows marked nested (from _core), then the binary methods with bindings of their own.
_BINARY_TABLE = [r for r in _core._op_table() if r["family"] == "binary" and r["nested"]]
_BINARY = tuple(m for r in _BINARY_TABLE for m in r["methods"]) + (
    "add", "sub", "subtract", "div", "divide", "pow",
)
_BINARY_INPLACE = tuple(m for r in _BINARY_TABLE for m in r["inplace"]) + (
    "add_", "sub_", "div_", "pow_", "copy_",
)
_OPERATORS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
}
_COMPARISONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
                "le": operator.le, "gt": operator.gt, "ge": operator.ge}


def _unary_method(name):
    def method(self, *args, **kwargs):
        return self._wrap(getattr(self._values, name)(*args, **kwargs))
    method.__name__ = name
    method.__doc__ = f"``{name}`` of every element (on the packed buffer)."
    return method


def _unary_inplace_method(name):
    def method(self, *args, **kwargs):
        getattr(self._values, name)(*args, **kwargs)
        return self
    method.__name__ = name
    method.__doc__ = f"In-place ``{name}`` of every element (on the packed buffer); returns self."
    return method


def _binary_method(name):
    def method(self, other, *args, **kwargs):
        o = self._operand(other, name)
        return self._wrap(getattr(self._values, name)(o, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = f"Elementwise ``{name}`` with a nested tensor of the same structure, " \
        "a scalar, or a dense tensor broadcast over the trailing dims."
    return method


def _binary_inplace_method(name):
    def method(self, other, *args, **kwargs):
        getattr(self._values, name)(self._operand(other, name.rstrip("_")), *args, **kwargs)
        return self
    method.__name__ = name
    method.__doc__ = f"In-place elementwise ``{name}`` with a nested tensor of the same " \
        "structure, a scalar, or a dense tensor broadcast over the trailing dims; returns self."
    return method


def _operator(fn, name, reverse):
    def method(self, other):
        return self._binary(other, fn, name, reverse)
    return method


def _install():
    for name in _UNARY:
        setattr(NestedTensor, name, _unary_method(name))
    for name in _UNARY_INPLACE:
        setattr(NestedTensor, name, _unary_inplace_method(name))
    for name in _BINARY:
        setattr(NestedTensor, name, _binary_method(name))
    for name in _BINARY_INPLACE:
        setattr(NestedTensor, name, _binary_inplace_method(name))
    for name, fn in _OPERATORS.items():
        setattr(NestedTensor, f"__{name}__", _operator(fn, name, False))
        setattr(NestedTensor, f"__r{name}__", _operator(fn, name, True))
    for name, fn in _COMPARISONS.items():
        setattr(NestedTensor, f"__{name}__", _operator(fn, name, False))
    NestedTensor.__neg__ = _unary_method("neg")
    NestedTensor.__abs__ = _unary_method("abs")
    NestedTensor.__invert__ = _unary_method("bitwise_not")
    NestedTensor.__pos__ = lambda self: self
    for row in _REDUCTIONS:
        setattr(NestedTensor, row["name"], _nested_reduction(row))


# Reductions: the reduction table's rows marked nested (from _core); each reduces every
# item over its own length along the ragged dim (segment reductions in _ops).
_REDUCTIONS = [r for r in _core._op_table() if r["family"] == "reduction" and r["nested"]]


def _nested_reduction(row):
    name = row["name"]
    if row["sig"] == "MaxMin":
        def method(self, dim=None, keepdim=False):
            return _ops.max_min(self, name, dim, keepdim)
    elif row["dtype"]:
        def method(self, dim=None, keepdim=False, dtype=None):
            return _ops.reduce(self, name, dim, keepdim, dtype)
    else:
        def method(self, dim=(), keepdim=False):
            return _ops.reduce(self, name, None if dim == () else dim, keepdim, None)
    method.__name__ = name
    method.__qualname__ = f"NestedTensor.{name}"
    method.__doc__ = (f"{row['doc']}\n\nOn a nested tensor: along the ragged dimension each "
                      "item is reduced over its own length.")
    return method



_install()
