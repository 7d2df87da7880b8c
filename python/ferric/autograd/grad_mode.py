"""Grad-mode context managers: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``. The flag is thread-local (it lives in the Rust core), like PyTorch's."""

from __future__ import annotations

import functools

from .. import _core


class _DecoratorContextManager:
    """Usable as ``with no_grad():`` and as ``@no_grad()`` (or ``@no_grad``)."""

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        """A fresh copy of this context manager (each decorated call enters its own)."""
        return self.__class__()


class _RestoresGradMode(_DecoratorContextManager):
    """A manager that sets grad mode and restores the mode it found (``self.prev``) when
    its block ends."""

    def __exit__(self, *exc):
        _core._set_grad_enabled(self.prev)
        return False


class _FixedGradMode(_RestoresGradMode):
    """``no_grad`` and ``enable_grad``: grad mode is ``_enabled`` inside the block."""

    _enabled: bool

    def __enter__(self):
        self.prev = _core.is_grad_enabled()
        _core._set_grad_enabled(self._enabled)


class no_grad(_FixedGradMode):
    """Disables graph recording inside the block (results do not require grad).

    Also usable as a decorator (``@ferric.no_grad()`` or ``@ferric.no_grad``).

    Args:
        orig_func (callable, optional): the function to wrap, when used as a bare
            decorator (``@ferric.no_grad``).

    Example::

        >>> import ferric
        >>> x = ferric.ones(2, requires_grad=True)
        >>> with ferric.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> @ferric.no_grad()
        ... def double(t):
        ...     return t * 2
        >>> double(x).requires_grad
        False
    """

    _enabled = False

    def __init__(self, orig_func=None):
        self._orig = orig_func

    def __new__(cls, orig_func=None):
        # support the bare-decorator form `@no_grad`
        if callable(orig_func) and cls is no_grad:
            return no_grad()(orig_func)
        return super().__new__(cls)


class enable_grad(_FixedGradMode):
    """Enables graph recording inside the block (e.g. within ``no_grad``).

    Args:
        orig_func (callable, optional): the function to wrap, when used as a bare
            decorator (``@ferric.enable_grad``).

    Example::

        >>> import ferric
        >>> x = ferric.ones(2, requires_grad=True)
        >>> with ferric.no_grad():
        ...     with ferric.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    _enabled = True

    def __new__(cls, orig_func=None):
        if callable(orig_func) and cls is enable_grad:
            return enable_grad()(orig_func)
        return super().__new__(cls)

    def __init__(self, orig_func=None):
        pass


class set_grad_enabled(_RestoresGradMode):
    """Sets grad mode on or off. Takes effect immediately (usable as a function) and is
    restored when used as a context manager.

    Args:
        mode (bool): whether to record operations for autograd.

    Example::

        >>> import ferric
        >>> x = ferric.ones(2, requires_grad=True)
        >>> is_train = False
        >>> with ferric.set_grad_enabled(is_train):
        ...     y = x * 2
        >>> y.requires_grad, ferric.is_grad_enabled()
        (False, True)
    """

    def __init__(self, mode: bool):
        self.prev = _core.is_grad_enabled()
        self.mode = bool(mode)
        _core._set_grad_enabled(self.mode)

    def __enter__(self):
        pass

    def clone(self):
        """A fresh copy with the same mode (each decorated call enters its own)."""
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``; tensors allocated inside are inference tensors, which outside the
    mode may not be written in place or set to require grad (as in PyTorch).

    Args:
        mode (bool): whether to turn inference mode on. Default: True.

    Example::

        >>> import ferric
        >>> with ferric.inference_mode():
        ...     y = ferric.ones(2, requires_grad=True) * 2
        >>> y.requires_grad
        False
    """

    def __new__(cls, mode=True):
        if callable(mode) and cls is inference_mode:
            return inference_mode()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = _core.is_grad_enabled()
        self.prev_inference = _core._is_inference_mode_enabled()
        if self.mode:
            _core._set_grad_enabled(False)
        _core._set_inference_mode(self.mode)

    def __exit__(self, *exc):
        _core._set_grad_enabled(self.prev)
        _core._set_inference_mode(self.prev_inference)
        return False

    def clone(self):
        """A fresh copy with the same mode (each decorated call enters its own)."""
        return self.__class__(self.mode)


def is_grad_enabled() -> bool:
    """Whether operations are recorded for autograd now (``False`` inside ``no_grad``).

    Example:
        >>> import ferric
        >>> with ferric.no_grad():
        ...     ferric.is_grad_enabled()
        False
    """
    return _core.is_grad_enabled()


def is_inference_mode_enabled() -> bool:
    """Whether inference mode is on now (inside ``ferric.inference_mode()``).

    Example:
        >>> import ferric
        >>> ferric.is_inference_mode_enabled()
        False
        >>> with ferric.inference_mode():
        ...     print(ferric.is_inference_mode_enabled())
        True
    """
    return _core._is_inference_mode_enabled()
