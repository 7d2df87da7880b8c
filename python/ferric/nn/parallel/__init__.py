"""``ferric.nn.parallel``: ``DistributedDataParallel`` and ``DataParallel``
(``torch.nn.parallel``)."""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
