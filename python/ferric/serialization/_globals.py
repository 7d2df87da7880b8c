"""Classes the user vouches for: ``load(weights_only=True)`` may rebuild them.

The list and its API mirror ``torch.serialization``'s (entries are classes or
``(class, "module.Name")`` pairs).
"""

from __future__ import annotations

_safe_globals: list = []


def add_safe_globals(safe_globals: list) -> None:
    """Marks classes (or ``(class, "module.Name")`` pairs) as safe for
    ``load(weights_only=True)``.

    Args:
        safe_globals (list): classes or functions, or ``(obj, "module.Name")`` pairs.

    Example:
        >>> import ferric
        >>> class Marker:
        ...     pass
        >>> ferric.serialization.add_safe_globals([Marker])
        >>> Marker in ferric.serialization.get_safe_globals()
        True
        >>> ferric.serialization.clear_safe_globals()
    """
    for g in safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full "
                                f"path, but got: {type(g[1])}")
        if g not in _safe_globals:
            _safe_globals.append(g)


def get_safe_globals() -> list:
    """The classes added with :func:`add_safe_globals` (a new list)."""
    return list(_safe_globals)


def clear_safe_globals() -> None:
    """Forgets every class added with :func:`add_safe_globals`."""
    _safe_globals.clear()


class safe_globals:
    """Context manager that adds safe globals for the duration of a ``with`` block.

    Example:
        >>> import ferric
        >>> with ferric.serialization.safe_globals([ferric.nn.Linear]):
        ...     ferric.nn.Linear in ferric.serialization.get_safe_globals()
        True
    """

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self):
        self._before = list(_safe_globals)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _safe_globals[:] = self._before
        return False


def by_path() -> dict:
    """{"module.qualname": obj} of the user's safe globals (PyTorch's spelling)."""
    out = {}
    for g in _safe_globals:
        if isinstance(g, tuple):
            out[g[1]] = g[0]
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
    return out


def colon_paths() -> set:
    """The "module:qualname" spelling the safetensors metadata uses for tensor classes."""
    paths = set()
    for g in _safe_globals:
        cls = g[0] if isinstance(g, tuple) else g
        paths.add(f"{cls.__module__}:{cls.__qualname__}")
    return paths
