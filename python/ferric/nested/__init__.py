"""``ferric.nested``: ragged batches without padding (``torch.nested``, jagged layout).

A nested tensor holds ``B`` tensors whose first dim differs (the trailing dims agree),
packed into one ``(sum of lengths, *trailing)`` buffer plus offsets. Its shape is
``(B, j1, *trailing)``; ``j1`` stands for the ragged size. Row-wise ops (elementwise,
activations, ``Linear``, layer norm) run once on the packed buffer; reductions and
softmax over the ragged dim are segment ops; attention is per item. See
``docs/nested.md`` for the full list of supported ops.

``nested_tensor`` copies its inputs into a new leaf; ``as_nested_tensor`` keeps the
autograd history, so gradients flow back to the component tensors.
"""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from . import _functional  # registers the nested handling of ferric.nn (nn/_nested_hook.py)
from ._ops import to_padded_tensor as _to_padded
from ._ragged import NestedInt, _norm_dim, _short, jagged, ragged_for
from ._tensor import NestedTensor

__all__ = [
    "NestedInt", "NestedTensor", "as_nested_tensor", "jagged", "masked_select", "narrow",
    "nested_tensor", "nested_tensor_from_jagged", "to_padded_tensor",
]

NestedTensor.__module__ = NestedInt.__module__ = __name__


def _check_layout(layout, op):
    if layout is not None and layout is not jagged:
        raise RuntimeError(
            f"{op}(): ferric nested tensors use the jagged layout (ferric.jagged); got "
            f"layout={layout!r}"
        )


def _items(tensor_list, dtype, op):
    """The list entries as tensors, validated: at least one; each at least 1-D; equal
    dims, trailing dims and dtypes (each mismatch names the offending items)."""
    if isinstance(tensor_list, Tensor | NestedTensor):
        raise TypeError(f"{op}(): expected a list of tensors, got {type(tensor_list).__name__}")
    items = [t if isinstance(t, Tensor) else _core.tensor(t, dtype=dtype)
             for t in tensor_list]
    if not items:
        raise RuntimeError("Cannot construct a nested tensor from an empty tensor list")
    if any(t.dim() == 0 for t in items):
        raise RuntimeError("Cannot construct a nested tensor from a list of zero-dim tensors")
    first = items[0]
    for i, t in enumerate(items[1:], 1):
        if t.dim() != first.dim():
            raise RuntimeError(
                f"{op}(): all tensors must have the same number of dims; item 0 has shape "
                f"{tuple(first.shape)} but item {i} has shape {tuple(t.shape)}"
            )
        if tuple(t.shape[1:]) != tuple(first.shape[1:]):
            raise RuntimeError(
                f"{op}(): all tensors must have the same trailing dims (every dim after the "
                f"first); item 0 has shape {tuple(first.shape)} but item {i} has shape "
                f"{tuple(t.shape)}"
            )
        if t.dtype != first.dtype:
            raise RuntimeError(
                f"{op}(): all tensors must have the same dtype; item 0 is {first.dtype} but "
                f"item {i} is {t.dtype}"
            )
    return items


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    r"""A nested tensor holding copies of ``tensor_list`` (tensors or nested lists),
    whose first dims may differ. The result is a new leaf: it does not share autograd
    history with the inputs (use :func:`as_nested_tensor` for that).

    Args:
        tensor_list: tensors of equal dtype and equal shape after the first dim.
        dtype: converts the items to this dtype.
        layout: ``None`` or ``ferric.jagged``.
        requires_grad: makes the result a leaf that requires grad.

    Example:
        >>> import ferric
        >>> nt = ferric.nested.nested_tensor([[1., 2.], [3.]])
        >>> nt.offsets()
        tensor([0, 2, 3])
    """
    _check_layout(layout, "nested_tensor")
    items = [t.detach() for t in _items(tensor_list, dtype, "nested_tensor")]
    values = _core.cat(items, 0) if len(items) > 1 else items[0].clone()
    if dtype is not None or device is not None:
        values = values.to(device=device, dtype=dtype)
    if requires_grad:
        values.requires_grad_(True)
    return NestedTensor(values, ragged_for(t.shape[0] for t in items))


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    r"""A nested tensor from a list of tensors that keeps their autograd history:
    gradients of the result flow back to each tensor. A dense ``(B, n, ...)`` tensor
    becomes ``B`` items of length ``n``; a nested tensor is returned as is (converted to
    ``dtype`` if given).

    Example:
        >>> import ferric
        >>> a = ferric.ones(2, 3, requires_grad=True)
        >>> nt = ferric.nested.as_nested_tensor([a, ferric.ones(1, 3)])
        >>> nt.sum().backward()
        >>> a.grad.sum().item()
        6.0
    """
    _check_layout(layout, "as_nested_tensor")
    if isinstance(ts, NestedTensor):
        return ts if dtype is None else ts.to(dtype)
    if isinstance(ts, Tensor):
        if ts.dim() < 2:
            raise RuntimeError(
                f"as_nested_tensor(): a dense tensor must have at least 2 dims (batch and "
                f"sequence), got shape {tuple(ts.shape)}"
            )
        b, n = ts.shape[0], ts.shape[1]
        values = ts.reshape(b * n, *tuple(ts.shape[2:]))
        lengths = [n] * b
    else:
        items = _items(ts, dtype, "as_nested_tensor")
        values = _core.cat(items, 0)
        lengths = [t.shape[0] for t in items]
    if dtype is not None or device is not None:
        values = values.to(device=device, dtype=dtype)
    return NestedTensor(values, ragged_for(lengths))


def _int_list(x, batch, name, op):
    """An int or a 1-D tensor/sequence of ``batch`` ints, as a list of ``batch`` ints."""
    if isinstance(x, Tensor):
        if x.dim() != 1 or x.is_floating_point():
            raise RuntimeError(
                f"{op}(): {name} must be an int or a 1-D integer tensor, got a tensor of "
                f"shape {tuple(x.shape)} and dtype {x.dtype}"
            )
        x = x.tolist()
    if isinstance(x, int):
        return [x] * batch
    x = [int(v) for v in x]
    if len(x) != batch:
        raise RuntimeError(
            f"{op}(): {name} has {len(x)} entries but the batch size is {batch}"
        )
    return x


def _from_rows(source, rows, lengths):
    index = _core.tensor(rows, dtype=_core.int64)
    return NestedTensor(source.index_select(0, index), ragged_for(lengths))


def narrow(tensor, dim, start, length, layout=None):
    r"""A nested tensor of the ``length[i]`` rows of ``tensor[i]`` from ``start[i]``:
    the jagged batch inside a padded ``(B, L, ...)`` tensor (``torch.nested.narrow``).

    ``start`` and ``length`` are ints or per-item 1-D tensors/lists. Unlike PyTorch,
    which returns a non-contiguous view, the rows are copied into a packed buffer
    (differentiably: gradients flow back to ``tensor``). Ranges past the end of a row
    raise ``RuntimeError`` naming the items.

    Example:
        >>> import ferric
        >>> padded = ferric.arange(8.).reshape(2, 4)
        >>> nt = ferric.nested.narrow(padded, 1, 0, ferric.tensor([3, 1]),
        ...                           layout=ferric.jagged)
        >>> nt.unbind()
        (tensor([0., 1., 2.]), tensor([4.]))
    """
    _check_layout(layout, "narrow")
    if _norm_dim(dim, tensor.dim()) != 1:
        raise RuntimeError("jagged layout only supports dim=1")
    b, width = tensor.shape[0], tensor.shape[1]
    starts = _int_list(start, b, "start", "narrow")
    lengths = _int_list(length, b, "length", "narrow")
    bad = [i for i in range(b)
           if starts[i] < 0 or lengths[i] < 0 or starts[i] + lengths[i] > width]
    if bad:
        i = bad[0]
        raise RuntimeError(
            f"narrow(): item(s) {_short(bad)} do not fit in dim 1 of size {width}: item {i} "
            f"has start {starts[i]} and length {lengths[i]}"
        )
    rows = [i * width + starts[i] + p for i in range(b) for p in range(lengths[i])]
    flat = tensor.reshape(b * width, *tuple(tensor.shape[2:]))
    return _from_rows(flat, rows, lengths)


def masked_select(tensor, mask):
    r"""A nested tensor of the entries of ``tensor`` where ``mask`` is True, one item per
    row of the ``(B, L)`` mask (``torch.nested.masked_select``). ``tensor`` is
    ``(B, L)`` like the mask, or (a ferric extension) ``(B, L, *trailing)``, whose
    selected rows become the items' rows.

    Example:
        >>> import ferric
        >>> x = ferric.arange(6.).reshape(2, 3)
        >>> m = ferric.tensor([[True, True, False], [False, True, False]])
        >>> ferric.nested.masked_select(x, m).unbind()
        (tensor([0., 1.]), tensor([4.]))
    """
    if mask.dtype != _core.bool or mask.dim() != 2 or tensor.dim() < 2 or \
            tuple(tensor.shape[:2]) != tuple(mask.shape):
        raise RuntimeError(
            "masked_select(): expected a 2-D bool mask matching the first two dims of the "
            f"tensor, got tensor shape {tuple(tensor.shape)} and mask shape "
            f"{tuple(mask.shape)} ({mask.dtype})"
        )
    b, width = tuple(mask.shape)
    keep = mask.reshape(-1).tolist()
    rows = [i for i, k in enumerate(keep) if k]
    lengths = [sum(keep[i * width:(i + 1) * width]) for i in range(b)]
    flat = tensor.reshape(b * width, *tuple(tensor.shape[2:]))
    return _from_rows(flat, rows, lengths)


def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None,
                              min_seqlen=None, max_seqlen=None):
    r"""A nested tensor over an existing packed ``values`` buffer (no copy when the
    items are back to back; autograd history is kept).

    Item ``i`` is ``values[offsets[i]:offsets[i + 1]]``, or
    ``values[offsets[i]:offsets[i] + lengths[i]]`` when ``lengths`` is given too.
    With only ``lengths``, items are back to back from row 0. ``jagged_dim`` (default 1)
    is the logical position of the ragged dim; ``values`` holds it at ``jagged_dim - 1``.

    Example:
        >>> import ferric
        >>> nt = ferric.nested.nested_tensor_from_jagged(ferric.ones(5, 2),
        ...                                              ferric.tensor([0, 2, 5]))
        >>> nt.shape  # doctest: +ELLIPSIS
        ferric.Size([2, j..., 2])
    """
    op = "nested_tensor_from_jagged"
    if offsets is None and lengths is None:
        raise RuntimeError(f"{op}(): offsets or lengths must be given")
    ridx = 1 if jagged_dim is None else jagged_dim
    if not 1 <= ridx <= values.dim():
        raise RuntimeError(
            f"{op}(): jagged_dim must be in [1, {values.dim()}] for values of shape "
            f"{tuple(values.shape)}, got {jagged_dim}"
        )
    if ridx != 1:
        values = values.movedim(ridx - 1, 0)
    total = values.shape[0]
    if offsets is not None:
        offs = [int(v) for v in offsets.tolist()]
        if lengths is None:
            lens = [b - a for a, b in zip(offs, offs[1:], strict=False)]
        else:
            lens = [int(v) for v in lengths.tolist()]
            if len(offs) not in (len(lens), len(lens) + 1):
                raise RuntimeError(f"{op}(): got {len(offs)} offsets for {len(lens)} lengths")
    else:
        lens = [int(v) for v in lengths.tolist()]
        offs = [0]
        for n in lens:
            offs.append(offs[-1] + n)
    ends = [offs[i] + lens[i] for i in range(len(lens))]
    bad = [i for i in range(len(lens)) if lens[i] < 0 or offs[i] < 0 or ends[i] > total]
    if not lens or bad:
        raise RuntimeError(
            f"{op}(): invalid offsets/lengths for values with {total} rows: item(s) "
            f"{_short(bad) if bad else '(none given)'} are negative or fall outside the "
            f"buffer; offsets {_short(offs)}"
        )
    back_to_back = all(ends[i] == offs[i + 1] for i in range(len(lens) - 1))
    if back_to_back:
        start, end = offs[0], ends[-1]
        if (start, end) != (0, total):
            values = values.narrow(0, start, end - start)
        return NestedTensor(values, ragged_for(lens), ridx)
    rows = [offs[i] + p for i in range(len(lens)) for p in range(lens[i])]
    nt = _from_rows(values, rows, lens)
    nt._ridx = ridx
    return nt


def to_padded_tensor(input, padding, output_size=None):
    """``input.to_padded_tensor(padding, output_size)``: a dense tensor with each item
    padded with ``padding`` to the longest item (or to ``output_size``)."""
    if not isinstance(input, NestedTensor):
        raise TypeError(
            f"to_padded_tensor(): expected a nested tensor, got {type(input).__name__}"
        )
    return _to_padded(input, padding, output_size)
