"""The pending graph of an ``autobatch`` region: nodes, their handles, and evaluation.

Inside a region an op with a batching rule does not run. It records a node (the rule,
its arguments, the per-example output shape and dtype) and returns a *handle*: a
:class:`Pending` tensor object standing for the value. Each node belongs to a
:class:`Signature`: the rule's key (op, per-example shapes, dtype, the identity of
shared tensors such as a Linear's weight, scalar arguments) and the grad mode; calls of
one signature can run as one kernel.

:meth:`Graph.evaluate` schedules the nodes with DyNet's agenda: it repeatedly runs, as
one group, all the nodes whose inputs are computed of the signature with the smallest
average depth. A group of ``B`` nodes is one call of the rule's batched form on
``(B, *shape)`` inputs gathered from the batched results of earlier groups (``narrow``
or ``index_select`` along dim 0), so the autograd tape records the batched ops and
``backward()`` runs them too. A node's value is then row ``row`` of its group's result.
A handle still referenced by the user is bound to that row
(``Tensor._autobatch_bind``) and turns into a plain ``ferric.Tensor``; nodes whose
handles were dropped are never materialised one by one.
"""

from __future__ import annotations

import heapq
import sys
import threading

from .. import _core

Tensor = _core.Tensor
_bind = Tensor._autobatch_bind
_mark = Tensor._autobatch_mark
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
    """The active region's graph (one region at a time, on one thread) and whether it
    records: off while it evaluates and while an op without a rule runs."""

    region: Graph | None = None
    recording = False


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
# [args, shape, dtype, depth, handle, value, row, signature, waiting, consumers].
# ``args`` holds the recorded arguments (pending inputs as their nodes); ``handle`` is
# the Pending tensor standing for the value (a multi-output node keeps the list of its
# item nodes there instead; an item's ``args`` is ``(ITEM, parent)``); ``value`` is the
# group's batched result once run and ``row`` this node's row in it; ``signature`` is
# the node's Signature; ``waiting``/``consumers`` are the scheduler's.
ARGS, SHAPE, DTYPE, DEPTH, HANDLE, VALUE, ROW, SIG, WAIT, CONS = range(10)
ITEM = object()     # marks an item node's args
MAX_PENDING = 1 << 18   # a region evaluates on its own once this many ops are pending


class Signature:
    """The pending nodes that may run as one group: same rule, same key, same grad mode.
    ``depth_sum`` gives the average depth the scheduler orders signatures by."""

    __slots__ = ("rule", "kwargs", "multi", "grad", "count", "depth_sum", "seq")

    def __init__(self, rule, kwargs, multi, grad, seq):
        self.rule = rule
        self.kwargs = kwargs
        self.multi = multi
        self.grad = grad
        self.count = 0
        self.depth_sum = 0
        self.seq = seq


class Graph:
    """The pending nodes of one region (one thread)."""

    def __init__(self):
        self.thread = _get_ident()
        self.sigs: dict = {}                # (grad, key) -> Signature
        self.order: list[list] = []         # the pending nodes, in recording order
        self.nodes: dict[int, list] = {}    # id(handle) -> node, for pending handles
        self.pending = 0
        self.log: list[tuple[int, str, int]] = []   # (depth, op, batch size) per group run
        self.joins: dict = {}   # sources joined by `gather` in the current evaluation
        self.evaluations = 0

    # -- recording ---------------------------------------------------------------------
    def node(self, h):
        """The node of the pending tensor ``h``."""
        return self.nodes[id(h)]

    def _sig(self, rule, key, kwargs, multi, depth):
        grad = _is_grad_enabled()
        sk = (grad, key)
        sig = self.sigs.get(sk)
        if sig is None:
            sig = self.sigs[sk] = Signature(rule, kwargs, multi, grad, len(self.sigs))
        sig.count += 1
        sig.depth_sum += depth
        return sig

    def add(self, rule, key, args, kwargs, shape, dtype, depth):
        """Records one call; returns its handle (a Pending tensor)."""
        sig = self._sig(rule, key, kwargs, False, depth)
        h = Pending()
        _mark(h)
        n = [args, shape, dtype, depth, h, None, 0, sig, 0, None]
        self.order.append(n)
        self.nodes[id(h)] = n
        self.pending += 1
        if self.pending >= MAX_PENDING:
            self.evaluate()     # bounds the memory of a region that never reads a value
        return h

    def add_multi(self, rule, key, args, kwargs, shapes, dtype, depth):
        """Records a call with several outputs; returns one handle per output."""
        sig = self._sig(rule, key, kwargs, True, depth)
        n = [args, None, dtype, depth, None, None, 0, sig, 0, None]
        items = []
        handles = []
        nodes = self.nodes
        parent = (ITEM, n)
        for s in shapes:
            h = Pending()
            _mark(h)
            item = [parent, s, dtype, depth, h, None, 0, None, 0, None]
            nodes[id(h)] = item
            items.append(item)
            handles.append(h)
        n[HANDLE] = items
        self.order.append(n)
        self.pending += 1
        return tuple(handles)

    # -- evaluation --------------------------------------------------------------------
    def evaluate(self):
        """Runs every pending node, as few groups as the agenda finds. The groups run
        with the region switched off, so their own ops are not recorded."""
        if not self.order:
            return
        was = state.recording
        state.recording = False
        try:
            self._evaluate()
        finally:
            state.recording = was

    def _evaluate(self):
        """DyNet's agenda: of the signatures with nodes whose inputs are all computed,
        run the one whose nodes lie shallowest on average, all its ready nodes as one
        group; repeat. A signature whose nodes sit at many depths (the loss of each of
        many trees) so waits until most of them are ready."""
        self.evaluations += 1
        order, self.order = self.order, []
        self.sigs = {}
        self.pending = 0
        ready: dict = {}
        for n in order:
            waiting = 0
            for a in n[ARGS]:
                t = type(a)
                if t is list:
                    waiting += _depend(n, a)
                elif t is tuple:
                    for x in a:
                        if type(x) is list:
                            waiting += _depend(n, x)
            n[WAIT] = waiting
            if not waiting:
                r = ready.get(n[SIG])
                if r is None:
                    ready[n[SIG]] = [n]
                else:
                    r.append(n)
        heap = [(sig.depth_sum / sig.count, sig.seq, sig) for sig in ready]
        heapq.heapify(heap)
        grad_was = _is_grad_enabled()
        try:
            while heap:
                sig = heapq.heappop(heap)[2]
                nodes = ready.pop(sig)
                if sig.grad != _is_grad_enabled():
                    _set_grad_enabled(sig.grad)
                self.run_group(sig, nodes)
                for n in nodes:
                    cons = n[CONS]
                    if cons is None:
                        continue
                    for c in cons:
                        c[WAIT] -= 1
                        if not c[WAIT]:
                            cs = c[SIG]
                            r = ready.get(cs)
                            if r is None:
                                ready[cs] = [c]
                                heapq.heappush(heap, (cs.depth_sum / cs.count, cs.seq, cs))
                            else:
                                r.append(c)
        finally:
            _set_grad_enabled(grad_was)
            # every handle is bound or gone now (ids of dead ones may be reused)
            self.nodes = {}
            self.joins = {}

    def run_group(self, sig, nodes):
        out = sig.rule.run(self, nodes, sig.kwargs)
        self.log.append((nodes[0][DEPTH], sig.rule.name, len(nodes)))
        if not sig.multi:
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
        # several sources: join them whole (once per evaluation for one set of sources)
        # and take the rows from the join with one index_select: two ops however many
        # sources. When the sources are much larger than what is taken, each source's
        # rows are taken first instead.
        sizes: dict = {}
        for n in items:
            y = n[VALUE]
            if id(y) not in sizes:
                sizes[id(y)] = y
        srcs = tuple(sizes)
        total = 0
        for y in sizes.values():
            total += y.shape[0]
        if total > 4 * len(items) + 64:
            return self._gather_parts(items)
        joined = self.joins.get(srcs)
        if joined is None:
            offsets = {}
            off = 0
            for k, y in sizes.items():
                offsets[k] = off
                off += y.shape[0]
            joined = self.joins[srcs] = (_cat(list(sizes.values()), 0), offsets)
        y, offsets = joined
        return _index_select(y, 0, _core.tensor([offsets[id(n[VALUE])] + n[ROW]
                                                 for n in items]))

    def _gather_parts(self, items):
        """``gather`` from large sources: each source's rows, then one reordering."""
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


def _depend(n, x):
    """Makes ``n`` a consumer of the input node ``x`` (its parent for an item); 1 when
    ``x`` is still to be computed, else 0."""
    if x[VALUE] is not None:
        return 0
    a = x[ARGS]
    if type(a) is tuple and a and a[0] is ITEM:
        x = a[1]
    cons = x[CONS]
    if cons is None:
        x[CONS] = [n]
    else:
        cons.append(n)
    return 1


def bind(h, y, row):
    """Makes the handle ``h`` row ``row`` of ``y`` and a plain tensor from now on."""
    _bind(h, _select(y, 0, row))
    h.__class__ = Tensor
