"""Variable-length sequence utilities: ``PackedSequence``, ``pack_padded_sequence``,
``pad_packed_sequence``, ``pad_sequence``, ``pack_sequence`` (``torch.nn.utils.rnn``).

Packed data is time-major: all batch entries still active at step 0, then at step 1,
and so on; ``batch_sizes[t]`` says how many. Batches are kept sorted by decreasing
length, so the active entries are always the first ``batch_sizes[t]``.
"""

from __future__ import annotations

from collections import namedtuple

from ... import _core
from ..._core import Tensor

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
    "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence",
]


def invert_permutation(permutation):
    """The inverse of a 1-D index permutation (``None`` stays ``None``)."""
    if permutation is None:
        return None
    perm = permutation.tolist()
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return _core.tensor(inv, dtype=_core.int64)


class PackedSequence(namedtuple("PackedSequence_",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    r"""Holds the data and ``batch_sizes`` of a packed batch of sequences.

    Built by :func:`pack_padded_sequence` / :func:`pack_sequence`, not by hand.
    ``sorted_indices`` maps sorted position -> original batch index (``None`` when the
    input was already sorted); ``unsorted_indices`` is its inverse.
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # the PackedSequence(data_tuple) form
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """A ``PackedSequence`` whose ``data`` is ``data.to(*args, **kwargs)`` (the index tensors
        unchanged).
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def float(self):
        """``data`` cast to float32."""
        return self.to(_core.float32)

    def double(self):
        """``data`` cast to float64."""
        return self.to(_core.float64)

    def cpu(self):
        """Returns ``self``: the data is on the CPU already."""
        return self

    @property
    def is_cuda(self):
        """``False``: ferric has no CUDA device."""
        return False

    def is_pinned(self):
        """``False``: ferric does not pin memory."""
        return False


def _as_lengths(lengths):
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _pack(input, lengths, batch_first):
    """Packs a padded (sorted) batch; returns (data, batch_sizes list)."""
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    T, B = input.shape[0], input.shape[1]
    if len(lengths) != B:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={B})"
        )
    if lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    for a, b in zip(lengths, lengths[1:], strict=False):
        if a < b:
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
    if lengths[0] > T:
        raise RuntimeError(
            f"pack_padded_sequence: a length of {lengths[0]} exceeds the padded sequence "
            f"length {T}"
        )
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    pieces = []
    t = 0
    while t < len(batch_sizes):
        # steps with the same batch size form one contiguous block of the packed data
        bs = batch_sizes[t]
        end = t
        while end < len(batch_sizes) and batch_sizes[end] == bs:
            end += 1
        block = input[t:end, :bs]
        pieces.append(block.reshape((end - t) * bs, *tuple(input.shape[2:])))
        t = end
    data = pieces[0] if len(pieces) == 1 else _core.cat(pieces, 0)
    return data, batch_sizes


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    r"""Packs a padded batch ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``) of
    sequences with the given lengths.

    With ``enforce_sorted=False`` the batch is first sorted by decreasing length (stably)
    and the permutation is recorded in the result.
    """
    lengths = _as_lengths(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = _core.tensor(order, dtype=_core.int64)
        lengths = [lengths[i] for i in order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, lengths, batch_first)
    return PackedSequence(data, _core.tensor(batch_sizes, dtype=_core.int64), sorted_indices,
                          None)


def _segments(batch_sizes):
    """Yields (start_step, end_step, batch_size, data_offset) runs of equal batch size."""
    t, offset = 0, 0
    while t < len(batch_sizes):
        bs = batch_sizes[t]
        end = t
        while end < len(batch_sizes) and batch_sizes[end] == bs:
            end += 1
        yield t, end, bs, offset
        offset += (end - t) * bs
        t = end


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    r"""Inverse of :func:`pack_padded_sequence`: returns ``(padded, lengths)`` in the
    original batch order; ``total_length`` pads the time dim further."""
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_len}"
            )
        max_len = total_length
    data = sequence.data
    B = batch_sizes[0] if batch_sizes else 0
    feat = tuple(data.shape[1:])
    pieces = []
    for t0, t1, bs, off in _segments(batch_sizes):
        block = data[off:off + (t1 - t0) * bs].reshape(t1 - t0, bs, *feat)
        if bs < B:
            fill = _core.full((t1 - t0, B - bs) + feat, padding_value, dtype=data.dtype)
            block = _core.cat([block, fill], 1)
        pieces.append(block)
    if max_len > len(batch_sizes):
        pieces.append(_core.full((max_len - len(batch_sizes), B) + feat, padding_value,
                                 dtype=data.dtype))
    padded = _core.cat(pieces, 0) if len(pieces) > 1 else pieces[0]
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(B)]
    lengths_t = _core.tensor(lengths, dtype=_core.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths_t = lengths_t.index_select(0, sequence.unsorted_indices)
    return padded, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    r"""Stacks ``(L_i, *)`` tensors into ``(max L, B, *)`` (``(B, max L, *)`` if
    ``batch_first``), filling with ``padding_value`` on ``padding_side``.

    Example:
        >>> import ferric
        >>> from ferric.nn.utils.rnn import pad_sequence
        >>> pad_sequence([ferric.ones(2), ferric.ones(1)], batch_first=True)
        tensor([[1., 1.],
                [1., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if any(s.dim() == 0 for s in seqs):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    first = seqs[0]
    # like PyTorch, every sequence is copied into a slot shaped like the first one:
    # trailing dims broadcast, and the dtype is the first sequence's
    trailing = tuple(first.shape[1:])
    max_len = max(s.shape[0] for s in seqs)
    rows = []
    for s in seqs:
        slot = (s.shape[0], *trailing)
        if tuple(s.shape) != slot:
            _check_copy_broadcast(slot, tuple(s.shape))
            s = s.expand(*slot)
        if s.dtype != first.dtype:
            s = s.to(first.dtype)
        missing = max_len - s.shape[0]
        if missing:
            fill = _core.full((missing, *trailing), padding_value, dtype=s.dtype)
            s = _core.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return _core.stack(rows, 0 if batch_first else 1)


def _check_copy_broadcast(target, source):
    """The error PyTorch's ``copy_`` raises when ``source`` cannot fill ``target``."""
    nd = max(len(target), len(source))
    shape = []
    for i in range(nd - 1, -1, -1):
        off = nd - 1 - i
        a = target[len(target) - 1 - off] if len(target) - 1 - off >= 0 else 1
        b = source[len(source) - 1 - off] if len(source) - 1 - off >= 0 else 1
        if a != b and a != 1 and b != 1:
            raise RuntimeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                f"non-singleton dimension {i}"
            )
        shape.insert(0, max(a, b))
    if tuple(shape) != tuple(target):
        raise RuntimeError(
            f"output with shape {list(target)} doesn't match the broadcast shape {shape}"
        )


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Splits a padded batch back into a list of variable-length tensors."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _as_lengths(lengths), strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    r"""Packs a list of ``(L_i, *)`` tensors (sorted by decreasing length unless
    ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Inverse of :func:`pack_sequence`: a list of the original tensors."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
