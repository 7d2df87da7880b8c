"""``ferric.autograd.graph``: the recorded graph's nodes, and drawing them.

``tensor.grad_fn`` is a :class:`Node`: ``name()``, ``next_functions`` (the edges towards
the inputs), ``metadata`` (a dict of your own), ``_saved_self``/``_saved_other``/
``_saved_result``/... (what the backward rule saved) and, on leaf nodes,
``variable``. :func:`to_dot` walks those to draw the graph the way the torchviz package's
``make_dot`` does for PyTorch; :func:`render` turns the drawing into an SVG or PNG file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping

from .. import _core

Node = _core.Node

_ACCUMULATE = "torch::autograd::AccumulateGrad"
_FORMATS = ("svg", "png", "pdf")


def _shape(t) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ("," if t.dim() == 1 else "") + ")"


def _quote(text: str) -> str:
    """A DOT string literal; lines are joined with DOT's own ``\\n`` escape."""
    lines = str(text).split("\n")
    return '"' + "\\n".join(ln.replace("\\", "\\\\").replace('"', '\\"') for ln in lines) + '"'


def _param_names(params):
    """{autograd id or id(): name} for the tensors in ``params``."""
    if params is None:
        return {}, {}
    if isinstance(params, Mapping):
        items = list(params.items())
    else:
        try:
            items = [tuple(p) for p in params]
        except TypeError:
            raise TypeError(
                "to_dot(): params must be a dict of name -> Tensor (e.g. "
                f"dict(model.named_parameters())), but got {type(params).__name__}"
            ) from None
    by_graph, by_object = {}, {}
    for item in items:
        if len(item) != 2 or not isinstance(item[1], _core.Tensor):
            raise TypeError(
                "to_dot(): params must map names to Tensors, but got an entry "
                f"{type(item[1]).__name__ if len(item) == 2 else item!r}"
            )
        name, t = item
        key = _core._autograd_id(t)
        if key is not None:
            by_graph.setdefault(key, str(name))
        by_object.setdefault(id(t), str(name))
    return by_graph, by_object


def to_dot(tensor, params=None, *, show_saved=True) -> str:
    """Returns Graphviz DOT source drawing the graph that produced ``tensor``.

    Operations are grey boxes named after their ``grad_fn`` with the shape(s) they
    produced; leaf tensors are blue boxes with their shape, named from ``params`` when
    given (pass ``dict(model.named_parameters())``), each feeding an ``AccumulateGrad``
    node; tensors the backward rules saved are orange (``show_saved=False`` hides them);
    the tensor itself is green. A tensor without a graph gives a one-node drawing.

    Args:
        tensor: a Tensor, or a tuple/list of Tensors to draw together.
        params: optional dict of name -> Tensor used to label leaves.
        show_saved: also draw saved tensors.

    Example:
        >>> import ferric
        >>> w = ferric.ones(2, 3, requires_grad=True)
        >>> dot = ferric.autograd.graph.to_dot((w * 2).sum(), params={"w": w})
        >>> "SumBackward0" in dot and '"w\\\\n(2, 3)"' in dot
        True
    """
    roots = [tensor] if isinstance(tensor, _core.Tensor) else tensor
    if not isinstance(roots, (list, tuple)) or not all(
        isinstance(t, _core.Tensor) for t in roots
    ):
        raise TypeError(
            "to_dot(): expected a Tensor or a list/tuple of Tensors, but got "
            f"{type(tensor).__name__}"
        )
    by_graph, by_object = _param_names(params)

    def name_of(t):
        key = _core._autograd_id(t)
        if key is not None and key in by_graph:
            return by_graph[key]
        return by_object.get(id(t), "")

    lines = [
        "digraph {",
        '    node [align=left fontname=monospace fontsize=10 height=0.2 '
        'ranksep=0.1 shape=box style=filled]',
    ]
    ids = {}

    def add_node(ident, label, color):
        lines.append(f"    {ident} [label={_quote(label)} fillcolor={color}]")

    def tensor_label(name, t):
        return f"{name}\n{_shape(t)}" if name else _shape(t)

    # nodes are visited with an explicit stack: a graph from a 10 000-step loop is
    # deeper than Python's recursion limit
    stack = []

    def node_id(fn):
        if fn not in ids:
            ids[fn] = f"n{len(ids)}"
            stack.append(fn)
        return ids[fn]

    edges = []
    for i, t in enumerate(roots):
        rid = f"t{i}"
        fn = t.grad_fn
        color = "darkolivegreen1" if fn is not None else (
            "lightblue" if t.requires_grad else "white")
        add_node(rid, tensor_label(name_of(t), t), color)
        if fn is not None:
            edges.append(f"    {node_id(fn)} -> {rid}")
    saved_count = 0
    while stack:
        fn = stack.pop()
        me = ids[fn]
        if fn.name() == _ACCUMULATE:
            add_node(me, "AccumulateGrad", "lightgrey")
            var = fn.variable
            leaf = f"{me}_leaf"
            add_node(leaf, tensor_label(name_of(var), var), "lightblue")
            edges.append(f"    {leaf} -> {me}")
            continue
        shapes = ", ".join(
            "(" + ", ".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"
            for s in fn._output_shapes()
        )
        add_node(me, f"{fn.name()}\n{shapes}", "lightgrey")
        if show_saved:
            for attr in dir(fn):
                if not attr.startswith("_saved_"):
                    continue
                try:
                    val = getattr(fn, attr)
                    label = f"{attr[len('_saved_'):]}\n{_shape(val)}"
                except RuntimeError:  # freed by a backward without retain_graph
                    label = f"{attr[len('_saved_'):]}\n(freed)"
                sid = f"s{saved_count}"
                saved_count += 1
                add_node(sid, label, "orange")
                edges.append(f"    {sid} -> {me} [dir=none]")
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                edges.append(f"    {node_id(nxt)} -> {me}")
    lines.extend(edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot, path, format="svg"):  # noqa: A002 - the name graphviz tools use
    """Writes the DOT source ``dot`` (from :func:`to_dot`) as an image to ``path``, using
    the Graphviz ``dot`` program. Returns ``path``.

    Raises:
        RuntimeError: when Graphviz is not installed, or ``dot`` rejects the input.
        ValueError: for a format other than "svg", "png" or "pdf".
    """
    if not isinstance(dot, str):
        raise TypeError(f"render(): dot must be DOT source (a str), but got {type(dot).__name__}")
    if format not in _FORMATS:
        raise ValueError(
            f"render(): unsupported format {format!r}; expected one of {', '.join(_FORMATS)}"
        )
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "render(): the Graphviz 'dot' program was not found on PATH. Install Graphviz "
            "(e.g. `apt-get install graphviz` or `brew install graphviz`), or save the "
            "DOT source to a file and render it elsewhere."
        )
    path = os.fspath(path)
    proc = subprocess.run([exe, f"-T{format}", "-o", path], input=dot.encode(),
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"render(): dot exited with status {proc.returncode}: "
            f"{proc.stderr.decode(errors='replace').strip()}"
        )
    return path


__all__ = ["Node", "render", "to_dot"]
