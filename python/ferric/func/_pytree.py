"""A small pytree for ``ferric.func``: tuples, lists and dicts (of tuples, lists, dicts
...) are containers, everything else is a leaf. ``flatten`` lists the leaves depth first
(dict values in insertion order) with a spec that ``unflatten`` rebuilds the structure from.
"""

from __future__ import annotations

LEAF = None  # the spec of a leaf


def flatten(obj) -> tuple[list, object]:
    """``(leaves, spec)`` of ``obj``."""
    leaves: list = []
    return leaves, _flatten(obj, leaves)


def _flatten(obj, leaves):
    if isinstance(obj, (tuple, list)):  # namedtuples too
        return (type(obj), None, [_flatten(x, leaves) for x in obj])
    if isinstance(obj, dict):
        keys = list(obj)
        return (type(obj), keys, [_flatten(obj[k], leaves) for k in keys])
    leaves.append(obj)
    return LEAF


def unflatten(leaves, spec):
    """Rebuilds the structure ``spec`` (from :func:`flatten`) with ``leaves``."""
    return _unflatten(iter(leaves), spec)


def _unflatten(it, spec):
    if spec is LEAF:
        return next(it)
    kind, keys, children = spec
    items = [_unflatten(it, c) for c in children]
    if keys is not None:
        return kind(zip(keys, items, strict=True))
    if kind is tuple or kind is list:
        return kind(items)
    return kind(*items)  # a namedtuple


def spec_str(spec) -> str:
    """PyTorch's ``TreeSpec`` repr on one line (``*`` for a leaf)."""
    if spec is LEAF:
        return "*"
    kind, keys, children = spec
    return f"TreeSpec({kind.__name__}, {keys!r}, [{', '.join(spec_str(c) for c in children)}])"


def broadcast_prefix(prefix, obj, is_leaf) -> list | None:
    """The leaves of ``prefix`` (a tree that is a prefix of ``obj``'s structure) repeated
    over the leaves of ``obj`` below them (``is_leaf`` says what a leaf of ``prefix`` is);
    ``None`` when ``prefix`` does not fit."""
    out: list = []
    if not _broadcast(prefix, obj, out, is_leaf):
        return None
    return out


def _broadcast(prefix, obj, out, is_leaf) -> bool:
    if is_leaf(prefix):
        n = len(flatten(obj)[0])
        out.extend([prefix] * n)
        return True
    if isinstance(prefix, (tuple, list)):
        same_kind = isinstance(obj, tuple if isinstance(prefix, tuple) else list)
        if not same_kind or len(prefix) != len(obj):
            return False
        return all(_broadcast(p, o, out, is_leaf) for p, o in zip(prefix, obj, strict=True))
    if isinstance(prefix, dict):
        if not isinstance(obj, dict) or set(prefix) != set(obj):
            return False
        return all(_broadcast(prefix[k], obj[k], out, is_leaf) for k in obj)
    return False


def spec_pprint(spec) -> str:
    """The structure in Python syntax with ``*`` for leaves (``(*, [*, *])``), as
    PyTorch's ``treespec_pprint`` prints it."""
    if spec is LEAF:
        return "*"
    kind, keys, children = spec
    parts = [spec_pprint(c) for c in children]
    if keys is not None:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts, strict=True)) + "}"
    if issubclass(kind, list):
        return "[" + ", ".join(parts) + "]"
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
