"""Datasets: map-style (``__getitem__`` + ``__len__``) and iterable-style, plus the
standard wrappers and ``random_split`` (same split as PyTorch for the same seed)."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from ... import _core
from ..._core import Tensor

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses implement ``__getitem__(index)`` and usually
    ``__len__()``. ``a + b`` concatenates two datasets."""

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable):
    """An iterable-style dataset: subclasses implement ``__iter__()``. ``a + b`` chains."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is the tuple ``(t[i] for t in tensors)``; the tensors must agree in
    their first dimension.

    Example:
        >>> import ferric
        >>> from ferric.utils.data import TensorDataset
        >>> ds = TensorDataset(ferric.arange(3), ferric.tensor([1.0, 2.0, 3.0]))
        >>> len(ds), ds[1]
        (3, (tensor(1), tensor(2.)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zips datasets of equal length: positional ones give tuples, keyword ones dicts."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or"
                "``dict``- (via ``kwargs``) like input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """The concatenation of map-style datasets.

    Example::

        >>> from ferric.utils.data import ConcatDataset
        >>> ds = ConcatDataset([[1, 2, 3], [10, 20]])
        >>> len(ds), ds[3], ds[-1]
        (5, 10, 20)
    """

    @staticmethod
    def cumsum(sequence) -> list[int]:
        """The running totals of the lengths of ``sequence`` (the index where each dataset ends)."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        offset = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - offset]


class ChainDataset(IterableDataset):
    """Iterates several iterable datasets one after another."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    Example::

        >>> from ferric.utils.data import Subset
        >>> s = Subset(["a", "b", "c", "d"], [3, 0])
        >>> len(s), s[0], s[1]
        (2, 'd', 'a')
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        inner = [self.indices[i] for i in indices]
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(inner)
        return [self.dataset[i] for i in inner]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float], generator=None) -> list:
    """Splits ``dataset`` into non-overlapping random subsets of the given lengths (or
    fractions summing to 1; leftover items go round-robin to the first splits).

    The permutation is ``randperm(len(dataset), generator=generator)``, so a generator
    seeded as in PyTorch gives the same split.

    Example:
        >>> import ferric
        >>> from ferric.utils.data import random_split
        >>> a, b = random_split(range(10), [0.7, 0.3], generator=ferric.Generator().manual_seed(42))
        >>> list(a), list(b)
        ([2, 6, 1, 8, 4, 5, 0], [9, 3, 7])
    """
    if generator is None:
        generator = _core.default_generator
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, n in enumerate(lengths):
            if n == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = _core.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, perm[end - n:end])
            for end, n in zip(itertools.accumulate(lengths), lengths, strict=True)]
