"""``ferric.nn``: modules, parameters, functional forms, initialisers and utilities
(``torch.nn``).

Example:
    >>> import ferric
    >>> from ferric import nn
    >>> ferric.manual_seed(0)  # doctest: +ELLIPSIS
    <ferric.Generator object at ...>
    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> model(ferric.randn(3, 4)).shape
    ferric.Size([3, 2])
"""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .modules.module import Module
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [*_modules_all, "Buffer", "DataParallel", "Module", "Parameter", "functional",
           "init", "parallel", "utils", "UninitializedBuffer", "UninitializedParameter"]
