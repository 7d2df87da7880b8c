"""The pending graph of an ``autobatch`` region: nodes, their handles, and evaluation.

Inside a region an op with a batching rule does not run. It records a :class:`Node`
(the rule, its arguments, the per-example output shape and dtype) and returns a
*handle*: a :class:`Pending` tensor object standing for the value. Each node goes into
a bucket keyed by ``(depth, signature)``: ``depth`` is one more than the deepest
pending input, the signature (made by the rule) holds what must be equal for two calls
to run as one kernel (op, per-example shapes, dtype, the identity of shared tensors
such as a Linear's weight, scalar arguments).

:meth:`Graph.evaluate` runs the buckets by depth. A bucket of ``B`` nodes becomes one
call of the rule's batched form on ``(B, *shape)`` inputs gathered from the batched
results of earlier buckets (``narrow`` or ``index_select`` along dim 0), so the autograd
tape records the batched ops and ``backward()`` runs them too. A node's value is then
row ``row`` of its bucket's result. A handle still referenced by the user is bound to
that row (``Tensor._autobatch_bind``) and turns into a plain ``ferric.Tensor``; nodes
whose handles were dropped are never materialised one by one.
"""

from __future__ import annotations

import sys
import threading

from .. import _core

Tensor = _core.Tensor
_bind = Tensor._autobatch_bind
_select = Tensor.select
_narrow = Tensor.narrow
_index_select = Tensor.index_select
_cat = _core.cat
_stack = _core.stack
_is_grad_enabled = _core.is_grad_enabled
_set_grad_enabled = _core._set_grad_enabled
_get_ident = threading.get_ident
_getrefcount = sys.getrefcount


class _State:
    """The active region's graph (one region at a time, on one thread)."""

    graph: Graph | None = None


state = _State()


class Pending(Tensor):
    """A tensor whose value an ``autobatch`` region has not computed yet.

    Shape, dtype and dimension queries answer from the recorded node without running
    anything; every other use evaluates the pending graph first, after which the object
    is an ordinary :class:`ferric.Tensor` (its class changes in place). The methods are
    installed by ``_intercept``.
    """

    __slots__ = ()


# A node is a list (cheaper to make than an object, and a region makes one per op):
# [args, shape, dtype, depth, handle, value, row]. ``args`` holds the recorded arguments
# (pending inputs as their nodes); ``handle`` is the Pending tensor standing for the
# value (a multi-output node keeps the list of its item nodes there instead); ``value``
# is the group's batched result once run and ``row`` this node's row in it.
ARGS, SHAPE, DTYPE, DEPTH, HANDLE, VALUE, ROW = range(7)


def is_node(x):
    return type(x) is list


class Bucket:
    """The nodes of one signature at one depth: they run as one group."""

    __slots__ = ("rule", "kwargs", "nodes", "multi", "depth", "grad")

    def __init__(self, rule, kwargs, multi, depth, grad):
        self.rule = rule
        self.kwargs = kwargs
        self.nodes = []
        self.multi = multi
        self.depth = depth
        self.grad = grad


class Graph:
    """The pending nodes of one region (one thread)."""

    def __init__(self):
        self.thread = _get_ident()
        self.buckets: dict = {}
        self.nodes: dict[int, list] = {}    # id(handle) -> node, for pending handles
        self.pending = 0
        self.log: list[tuple[int, str, int]] = []   # (depth, op, batch size) per group run
        self.evaluations = 0

    # -- recording ---------------------------------------------------------------------
    def node(self, h):
        """The node of the pending tensor ``h``."""
        return self.nodes[id(h)]

    def add(self, rule, key, args, kwargs, shape, dtype, depth):
        """Records one call; returns its handle (a Pending tensor)."""
        grad = _is_grad_enabled()
        bk = (depth, grad, key)
        b = self.buckets.get(bk)
        if b is None:
            b = self.buckets[bk] = Bucket(rule, kwargs, False, depth, grad)
        h = Pending()
        n = [args, shape, dtype, depth, h, None, 0]
        b.nodes.append(n)
        self.nodes[id(h)] = n
        self.pending += 1
        return h

    def add_multi(self, rule, key, args, kwargs, shapes, dtype, depth):
        """Records a call with several outputs; returns one handle per output."""
        grad = _is_grad_enabled()
        bk = (depth, grad, key)
        b = self.buckets.get(bk)
        if b is None:
            b = self.buckets[bk] = Bucket(rule, kwargs, True, depth, grad)
        items = []
        handles = []
        nodes = self.nodes
        for s in shapes:
            h = Pending()
            item = [None, s, dtype, depth, h, None, 0]
            nodes[id(h)] = item
            items.append(item)
            handles.append(h)
        b.nodes.append([args, None, dtype, depth, items, None, 0])
        self.pending += 1
        return tuple(handles)

    # -- evaluation --------------------------------------------------------------------
    def evaluate(self):
        """Runs every pending node, bucket by bucket in order of depth. The groups run
        with the region switched off (``suspend``), so their ops are not recorded."""
        if not self.buckets:
            return
        active = state.graph
        state.graph = None
        try:
            self._evaluate()
        finally:
            state.graph = active

    def _evaluate(self):
        self.evaluations += 1
        buckets = sorted(self.buckets.values(), key=_depth_of)
        self.buckets = {}
        self.pending = 0
        grad_was = _is_grad_enabled()
        try:
            for b in buckets:
                if b.grad != _is_grad_enabled():
                    _set_grad_enabled(b.grad)
                self.run_group(b)
        finally:
            _set_grad_enabled(grad_was)
            # every handle is bound or gone now (ids of dead ones may be reused)
            self.nodes = {}

    def run_group(self, b):
        nodes = b.nodes
        out = b.rule.run(self, nodes, b.kwargs)
        self.log.append((b.depth, b.rule.name, len(nodes)))
        if not b.multi:
            self.settle(nodes, out)
        else:
            for k, y in enumerate(out):
                self.settle([n[HANDLE][k] for n in nodes], y)
        for n in nodes:
            n[ARGS] = None

    def settle(self, nodes, y):
        """Gives ``nodes`` their rows of ``y``; binds the handles the user still holds."""
        for i, n in enumerate(nodes):
            n[VALUE] = y
            n[ROW] = i
            h = n[HANDLE]
            n[HANDLE] = None
            # referenced by `h` and getrefcount's argument only: nobody else holds it
            if _getrefcount(h) > 2:
                bind(h, y, i)

    # -- gathering the batched inputs of a group ----------------------------------------
    def gather(self, items):
        """The ``(B, *shape)`` tensor holding the values of ``items`` (nodes) in order."""
        y0 = items[0][VALUE]
        r0 = items[0][ROW]
        same = True
        contiguous = True
        for i, n in enumerate(items):
            if n[VALUE] is not y0:
                same = False
                break
            if n[ROW] != r0 + i:
                contiguous = False
        if same:
            if contiguous:
                if r0 == 0 and len(items) == y0.shape[0]:
                    return y0
                return _narrow(y0, 0, r0, len(items))
            return _index_select(y0, 0, _core.tensor([n[ROW] for n in items]))
        # several sources: take each source's rows in one go, then put them in order
        sources: dict = {}
        where = []
        for n in items:
            y = n[VALUE]
            s = sources.get(id(y))
            if s is None:
                s = sources[id(y)] = (y, [])
            where.append((s, len(s[1])))
            s[1].append(n[ROW])
        parts = []
        base = {}
        offset = 0
        for key, (y, rows) in sources.items():
            base[key] = offset
            offset += len(rows)
            if len(rows) == y.shape[0] and rows == list(range(len(rows))):
                parts.append(y)
            else:
                parts.append(_index_select(y, 0, _core.tensor(rows)))
        joined = _cat(parts, 0)
        perm = [base[id(s[0])] + k for s, k in where]
        return _index_select(joined, 0, _core.tensor(perm))


def _depth_of(b):
    return b.depth


def bind(h, y, row):
    """Makes the handle ``h`` row ``row`` of ``y`` and a plain tensor from now on."""
    _bind(h, _select(y, 0, row))
    h.__class__ = Tensor
