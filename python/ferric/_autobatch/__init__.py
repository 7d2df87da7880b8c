"""``ferric.autobatch``: run per-example code as batched kernels, automatically.

Inside ``with ferric.autobatch():`` ops with a batching rule record a pending node
instead of running (``_graph``); reading a value, an op without a rule, or leaving the
region evaluates the pending graph group by group, each group of same-signature calls
as one batched kernel (``_rules``, ``_rules_nn``, ``_rules_extra``). ``_intercept``
routes functions and methods to the rules while a region is active; ``_pending`` gives
pending tensors their methods. See ``docs/autobatch.md``.
"""

from __future__ import annotations

import gc
from collections import Counter

from ._graph import Graph
from ._intercept import Patches, state
from ._pending import install

__all__ = ["autobatch"]

_patches: Patches | None = None


def _get_patches() -> Patches:
    global _patches
    if _patches is None:
        _patches = Patches()
        install(_patches.rules)
    return _patches


class autobatch:
    r"""Context manager: per-example code inside it runs as batched kernels.

    Ops on tensors inside the region are recorded instead of run. When a value is
    needed (``.item()``, ``print``, ``bool()``, ``.numpy()``, ``backward()``, an op with
    no batching rule, or leaving the region), the recorded calls are grouped by
    signature (op, dtype, per-example shapes, the identity of shared tensors such as a
    layer's weight) and each group runs as one kernel on the stacked examples. Values
    and gradients are those of running the same code without the region (to float
    rounding); the autograd graph holds the batched ops, so ``backward()`` is batched
    too.

    Rules exist for ``Linear``/``F.linear``, ``matmul``/``@`` with 1-d and 2-d
    operands, ``cat``/``stack``, ``chunk``/``split``/``unbind``, views (``view``,
    ``reshape``, ``unsqueeze``, ``squeeze``, ``transpose``, ``permute``, ``narrow``,
    ``select``, basic indexing), elementwise arithmetic and activations, ``sum``/
    ``mean``, ``softmax``/``log_softmax``, ``Embedding``, ``cross_entropy`` and
    ``LSTMCell``/``GRUCell``; any other op first evaluates what is pending and then
    runs as usual.

    Example:
        >>> import ferric
        >>> lin = ferric.nn.Linear(3, 2)
        >>> xs = [ferric.randn(1, 3) for _ in range(4)]
        >>> with ferric.autobatch() as ab:
        ...     ys = [ferric.tanh(lin(x)) for x in xs]
        >>> ab.plan()
        'evaluations: 1; groups: 2; ops: 8\n  depth 1  linear x4\n  depth 2  tanh x4'
        >>> bool(ferric.allclose(ys[2], ferric.tanh(lin(xs[2]))))
        True
    """

    def __init__(self) -> None:
        self._gc_was = False
        self._graph: Graph | None = None
        self._log: list[tuple[int, str, int]] = []
        self._evaluations = 0

    def __enter__(self) -> autobatch:
        if state.region is not None:
            raise RuntimeError(
                "ferric.autobatch: regions do not nest, and only one thread at a time "
                "may have one (a region is already active)")
        patches = _get_patches()
        self._graph = Graph()
        state.region = self._graph
        state.recording = True
        patches.install()
        # a region makes a few container objects per op and frees none of them before it
        # evaluates: the cycle collector's passes over the growing graph cost ~30% of
        # the recording time and find nothing, so it is paused until the region ends
        self._gc_was = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        g = self._graph
        try:
            g.evaluate()
        except Exception:
            if exc_type is None:
                raise
        finally:
            state.region = None
            state.recording = False
            _get_patches().remove()
            if self._gc_was:
                gc.enable()
            self._log = g.log
            self._evaluations = g.evaluations
            self._graph = None

    def plan(self) -> str:
        """The batching plan of the region so far: the number of evaluations, of groups
        (batched kernels) and of recorded ops, then each group as ``depth``, op and
        batch size, in the order they ran."""
        g = self._graph
        log = g.log if g is not None else self._log
        ev = g.evaluations if g is not None else self._evaluations
        lines = [f"evaluations: {ev}; groups: {len(log)}; ops: {sum(n for _, _, n in log)}"]
        for depth, name, n in log:
            lines.append(f"  depth {depth}  {name} x{n}")
        return "\n".join(lines)

    def stats(self) -> dict:
        """Counts of the region so far: ``evaluations``, ``groups``, ``ops`` and the
        number of groups per op name (``per_op``)."""
        g = self._graph
        log = g.log if g is not None else self._log
        return {"evaluations": g.evaluations if g is not None else self._evaluations,
                "groups": len(log), "ops": sum(n for _, _, n in log),
                "per_op": dict(Counter(name for _, name, _ in log))}

