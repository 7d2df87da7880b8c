"""``sys.modules["torch"] = ferric``: submodule imports follow the alias.

A common way to run an unmodified PyTorch script on ferric is to put ferric in
``sys.modules`` under PyTorch's name before the script runs. Python would then load
``import torch.nn`` as a *second copy* of ``ferric/nn`` named ``torch.nn`` (the package
path is ferric's, the module name is new), so ``torch.nn.Module`` would not be
``ferric.nn.Module``, and ``isinstance`` checks, registries and global state would split
in two. The finder below, first on ``sys.meta_path``, answers an import of ``X.sub``
whenever ``sys.modules["X"]`` is ferric itself (under any name but its own) with the one
module ``ferric.sub``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__: list[str] = []


class _Alias(importlib.abc.Loader):
    def __init__(self, real: str):
        self.real = real

    def create_module(self, spec):
        return importlib.import_module(self.real)

    def exec_module(self, module) -> None:
        pass  # ferric's own module, already executed


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        head, _, rest = fullname.partition(".")
        if not rest or head == "ferric":
            return None
        root = sys.modules.get(head)
        if root is None or getattr(root, "__name__", None) != "ferric":
            return None
        real = "ferric." + rest
        if importlib.util.find_spec(real) is None:
            return None  # the usual ModuleNotFoundError for the aliased name
        return importlib.util.spec_from_loader(fullname, _Alias(real))


def install() -> None:
    """Puts the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
