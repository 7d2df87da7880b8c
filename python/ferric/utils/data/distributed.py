"""``DistributedSampler``: each process of a data-parallel job reads its own share of
the dataset, in the order PyTorch's sampler gives (ferric's generator matches PyTorch's,
so the same ``seed`` and epoch give the same indices)."""

from __future__ import annotations

import math
from collections.abc import Iterator

from ... import _core
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[int]):
    r"""Yields the indices of the dataset that rank ``rank`` of ``num_replicas``
    processes should read.

    With ``shuffle`` the whole index range is permuted by a generator seeded with
    ``seed + epoch`` (call :meth:`set_epoch` at the start of every epoch, so each epoch
    has its own order that every rank agrees on). The list is then padded by repeating its
    head until it divides evenly (or cut, with ``drop_last``), and rank ``r`` takes every
    ``num_replicas``-th index starting at ``r``.

    Args:
        dataset: a sized dataset.
        num_replicas (int, optional): number of processes (default: the world size).
        rank (int, optional): this process's rank (default: ``get_rank()``).
        shuffle (bool): permute the indices (default: True).
        seed (int): the permutation seed, the same on every rank (default: 0).
        drop_last (bool): cut the tail instead of padding (default: False).

    Example:
        >>> from ferric.utils.data.distributed import DistributedSampler
        >>> list(DistributedSampler(range(10), num_replicas=2, rank=0))
        [4, 7, 3, 0, 6]
        >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
        [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # the largest even share that needs no padding
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = _core.Generator()
            g.manual_seed(self.seed + self.epoch)
            order = _core.randperm(n, generator=g).tolist()
        else:
            order = list(range(n))
        if self.drop_last:
            order = order[: self.total_size]
        else:
            missing = self.total_size - len(order)
            if missing > 0:
                # repeat the list's head as often as needed (several times when the
                # dataset is smaller than the number of replicas)
                order += (order * math.ceil(missing / len(order)))[:missing]
        mine = order[self.rank: self.total_size: self.num_replicas]
        if len(mine) != self.num_samples:
            raise RuntimeError(f"DistributedSampler: rank {self.rank} got {len(mine)} indices, "
                               f"expected {self.num_samples}")
        return iter(mine)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which seeds this epoch's permutation (``seed + epoch``)."""
        self.epoch = epoch
