"""``ferric.Size``, the type of ``Tensor.shape``.

It lives in its own module (below everything that builds shapes: ``_functions``,
``_tensor_types``, ``serialization``, ``ferric.nested``) so that none of them has to
import the package ``__init__``, which imports them. Its public home is ``ferric``:
``__module__`` says so, which keeps its pickles and ``repr`` of the class unchanged.
"""

from __future__ import annotations


class Size(tuple):
    """The shape of a tensor: a tuple of ints that prints like ``torch.Size``.

    Args:
        iterable (iterable of ints): the sizes. Default: ``()``.

    Example::

        >>> import ferric
        >>> s = ferric.zeros(2, 3, 4).shape
        >>> s
        ferric.Size([2, 3, 4])
        >>> s[1:], s.numel(), s == (2, 3, 4)
        (ferric.Size([3, 4]), 24, True)
    """

    __module__ = "ferric"

    def __repr__(self):
        return f"ferric.Size({list(self)!r})"

    def numel(self):
        """The number of elements of a tensor of this shape (the product of the sizes).

        Example:
            >>> import ferric
            >>> ferric.Size([2, 3, 4]).numel()
            24
        """
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, item):
        r = super().__getitem__(item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))
