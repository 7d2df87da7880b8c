"""A helper the layers' ``extra_repr`` methods share."""

from __future__ import annotations


def _nondefault_repr(module, defaults, fmt=str) -> str:
    """The ``", name=value"`` parts of an ``extra_repr`` for the attributes of ``module``
    that differ from their defaults, in the order of ``defaults`` (``(name, default)``
    pairs): PyTorch's ``if self.bias is not True: s += ...`` chains. ``None`` and bool
    defaults compare by identity (``bias=1`` is printed), the others by ``!=``
    (``norm_type=2.0`` is not); ``fmt`` formats the value (``repr`` where PyTorch uses
    ``!r``)."""
    parts = []
    for name, default in defaults:
        value = getattr(module, name)
        if default is None or isinstance(default, bool):
            changed = value is not default
        else:
            changed = value != default
        if changed:
            parts.append(f", {name}={fmt(value)}")
    return "".join(parts)
