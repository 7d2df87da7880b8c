"""Handles for hooks kept in plain Python dicts (optimizer hooks), like
``torch.utils.hooks.RemovableHandle``."""

from __future__ import annotations

import itertools
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Removes the hook it was returned for from ``hooks_dict`` on ``remove()``.

    The dict is held weakly where possible (``OrderedDict`` supports weak references,
    a plain ``dict`` does not) so a forgotten handle does not keep its owner alive.
    Usable as a context manager: the hook is removed on exit.
    """

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict) -> None:
        try:
            self.hooks_dict_ref = weakref.ref(hooks_dict)
        except TypeError:
            self.hooks_dict_ref = lambda: hooks_dict
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        """Unregisters the hook (removing it twice does nothing)."""
        hooks = self.hooks_dict_ref()
        if hooks is not None and self.id in hooks:
            del hooks[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
