"""``ferric.compile``: accepted so ``model = torch.compile(model)`` scripts run; ferric
has no graph compiler, so the result runs eagerly, like ``torch.compile(backend="eager")``.
"""

from __future__ import annotations

import functools

__all__ = ["compile"]


@functools.cache
def _optimized_module_class():
    from .nn.modules.module import Module

    class OptimizedModule(Module):
        """What ``compile(module)`` returns: a wrapper that calls the module eagerly.
        As in PyTorch, the module is ``_orig_mod`` (so state-dict keys gain the
        ``_orig_mod.`` prefix) and other attributes are looked up on it."""

        def __init__(self, mod):
            super().__init__()
            self._orig_mod = mod

        def forward(self, *args, **kwargs):
            return self._orig_mod(*args, **kwargs)

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(self._modules["_orig_mod"], name)

    return OptimizedModule


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """Returns ``model`` prepared to run eagerly (ferric has no compiler). Accepts every
    ``torch.compile`` argument; usable as ``@compile`` or ``@compile(...)``.

    Args:
        model (callable, optional): the module or function (None: return a decorator).
        fullgraph (bool): accepted and ignored. Default: False.
        dynamic (bool, optional): accepted and ignored.
        backend (str or callable): accepted and ignored. Default: ``'inductor'``.
        mode (str, optional): accepted and ignored.
        options (dict, optional): accepted and ignored.
        disable (bool): accepted and ignored (the model always runs eagerly). Default: False.

    Example:
        >>> import ferric
        >>> f = ferric.compile(lambda a: a * 2)
        >>> f(ferric.ones(2))
        tensor([2., 2.])
    """
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic,
                                 backend=backend, mode=mode, options=options, disable=disable)
    from .nn.modules.module import Module

    if isinstance(model, Module):
        return _optimized_module_class()(model)
    if not callable(model):
        raise RuntimeError("torch.compile: model must be a callable or an nn.Module")

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled
