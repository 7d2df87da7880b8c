"""``Flatten`` and ``Unflatten``."""

from __future__ import annotations

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    r"""Flattens dims ``start_dim..end_dim`` into one.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.Flatten()(ferric.zeros(32, 1, 5, 5)).shape
        ferric.Size([32, 25])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    r"""Expands dim ``dim`` into ``unflattened_size``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.Unflatten(1, (2, 5))(ferric.zeros(3, 10)).shape
        ferric.Size([3, 2, 5])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, value):
        if isinstance(value, tuple | list):
            for idx, elem in enumerate(value):
                if not isinstance(elem, int):
                    raise TypeError(
                        "unflattened_size must be tuple of ints, but found element of type "
                        f"{type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(value).__name__}"
        )

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
