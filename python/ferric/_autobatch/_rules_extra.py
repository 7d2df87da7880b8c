"""Batching rules for ops with a dim argument (``softmax``) and basic indexing."""

from __future__ import annotations

from .. import _core
from ._graph import ARGS, DEPTH, DTYPE, SHAPE, Pending
from ._rules import _FLOATS, Rule, _dim

Tensor = _core.Tensor
_probe_base = None


class DimUnary(Rule):
    """``fn(x, dim)`` along one dim of a pending float tensor (``softmax``,
    ``log_softmax``); the dim moves past the batch dim."""

    def record(self, g, args, kwargs):
        if not args or type(args[0]) is not Pending:
            return NotImplemented
        n = g.nodes[id(args[0])]
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        if len(args) > 2 or (kwargs and set(kwargs) - {"dim"}):
            return NotImplemented
        if n[DTYPE] not in _FLOATS or not n[SHAPE]:
            return NotImplemented
        bd = _dim(dim, len(n[SHAPE]))
        if bd is None:
            return NotImplemented
        key = (self, n[SHAPE], n[DTYPE], bd)
        return g.add(self, key, (n,), bd, n[SHAPE], n[DTYPE], n[DEPTH] + 1)

    def run(self, g, nodes, kw):
        x = g.gather([n[ARGS][0] for n in nodes])
        return self.fn(x, kw)


def _basic(index):
    """The index as a tuple when it is basic indexing (ints, slices, None, ...)."""
    items = index if type(index) is tuple else (index,)
    for i in items:
        t = type(i)
        if not (t is int or t is slice or i is None or i is Ellipsis):
            return None
        if t is slice:
            for v in (i.start, i.stop, i.step):
                if v is not None and type(v) is not int:
                    return None
    return items


class GetItem(Rule):
    """``x[i, a:b, None, ...]`` (basic indexing) of a pending tensor: the same index
    after a full slice over the batch dim. The per-example shape comes from indexing an
    expanded 0-d tensor, so an invalid index raises the eager error at the user's line."""

    name = "getitem"

    def record(self, g, args, kwargs):
        if kwargs or len(args) != 2 or type(args[0]) is not Pending:
            return NotImplemented
        items = _basic(args[1])
        if items is None:
            return NotImplemented
        n = g.nodes[id(args[0])]
        global _probe_base
        if _probe_base is None:
            _probe_base = _core.zeros(())
        probe = _probe_base.expand(n[SHAPE])
        shape = tuple(probe[items].shape)
        key = (self, n[SHAPE], n[DTYPE], repr(items))
        return g.add(self, key, (n,), (slice(None),) + items, shape, n[DTYPE], n[DEPTH] + 1)

    def run(self, g, nodes, kw):
        x = g.gather([n[ARGS][0] for n in nodes])
        return x[kw]
