"""Samplers: iterables of dataset indices (or of index batches) for ``DataLoader``.

The random samplers draw exactly what PyTorch's draw, from ferric's PyTorch-identical
generator, so a seeded run visits samples in the same order as PyTorch.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from ... import _core

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)


def _fresh_seed(generator=None) -> int:
    """One 63-bit seed drawn the way PyTorch does:
    ``torch.empty((), dtype=torch.int64).random_(generator=...)``."""
    return int(_core.empty((), dtype=_core.int64).random_(generator=generator).item())


class Sampler(Generic[T_co]):
    """Base class: subclasses implement ``__iter__`` (and ``__len__`` when known)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Yields ``0, 1, ..., len(data_source) - 1``.

    Example::

        >>> from ferric.utils.data import SequentialSampler
        >>> list(SequentialSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Yields a random permutation of the indices (``replacement=False``) or
    ``num_samples`` indices drawn uniformly with replacement.

    Without a ``generator`` each pass seeds a fresh generator from the default one, as
    PyTorch does; with one, the passes consume it directly.

    Args:
        data_source (Sized): the dataset.
        replacement (bool): draw with replacement (default: False).
        num_samples (int, optional): how many indices per pass (default: ``len(data_source)``).
        generator (Generator, optional): the random generator to use.
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                "replacement should be a boolean value, but got "
                f"replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields: ``num_samples`` if given, else the dataset's length."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.generator is None:
            generator = _core.Generator()
            generator.manual_seed(_fresh_seed())
        else:
            generator = self.generator
        if self.replacement:
            # PyTorch draws in chunks of 32
            for _ in range(self.num_samples // 32):
                yield from _core.randint(high=n, size=(32,), dtype=_core.int64,
                                         generator=generator).tolist()
            yield from _core.randint(high=n, size=(self.num_samples % 32,), dtype=_core.int64,
                                     generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _core.randperm(n, generator=generator).tolist()
            yield from _core.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Yields the given ``indices`` in a random order."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _core.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Yields ``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        w = _core.as_tensor(weights, dtype=_core.float64)
        if w.dim() != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}"
            )
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = _core.multinomial(self.weights, self.num_samples, self.replacement,
                                  generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one
    shorter unless ``drop_last``).

    Example:
        >>> from ferric.utils.data import BatchSampler, SequentialSampler
        >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
