"""``ferric.autograd.graph``: the Node API (name, next_functions, metadata, saved
tensors, AccumulateGrad.variable), ``to_dot`` drawings and ``render``."""

import re
import shutil

import numpy as np
import pytest
from nn_helpers import Square

import ferric
from ferric import nn
from ferric.autograd.graph import Node, render, to_dot

NODE_RE = re.compile(r'^    (\w+) \[label="((?:[^"\\]|\\.)*)" fillcolor=(\w+)\]$')
EDGE_RE = re.compile(r"^    (\w+) -> (\w+)( \[dir=none\])?$")


def parse(dot):
    """(nodes {id: (label lines, color)}, edges [(src, dst, undirected)]) of to_dot output;
    fails on any line it does not understand."""
    lines = dot.splitlines()
    assert lines[0] == "digraph {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[2:-1]:
        m = NODE_RE.match(line)
        if m:
            label = m.group(2).replace('\\"', '"').split("\\n")
            assert m.group(1) not in nodes
            nodes[m.group(1)] = (label, m.group(3))
            continue
        m = EDGE_RE.match(line)
        assert m, line
        edges.append((m.group(1), m.group(2), bool(m.group(3))))
    for a, b, _ in edges:
        assert a in nodes and b in nodes
    return nodes, edges


def by_color(nodes, color):
    return sorted(label[0] if len(label) == 1 else tuple(label)
                  for label, c in nodes.values() if c == color)


# --- the Node API ---------------------------------------------------------------------

def test_node_name_next_functions_and_type():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    c = ferric.tensor([3.0, 4.0])
    y = (x * c).sum()
    fn = y.grad_fn
    assert isinstance(fn, Node) and fn.name() == "SumBackward0"
    (mul, nr), = fn.next_functions
    assert mul.name() == "MulBackward0" and nr == 0
    (acc, nr0), (none, nr1) = mul.next_functions
    assert acc.name() == "torch::autograd::AccumulateGrad" and nr0 == 0
    assert none is None and nr1 == 0  # c needs no gradient
    assert acc.next_functions == ()
    assert repr(acc).startswith("<AccumulateGrad object at 0x")
    # every access returns an equal, hashable node
    assert y.grad_fn == fn and hash(y.grad_fn) == hash(fn) and len({fn, y.grad_fn}) == 1


def test_metadata_is_a_dict_that_lives_with_the_node():
    x = ferric.ones(2, requires_grad=True)
    y = x * 2
    z = y + 1
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["note"] = "scaled"
    y.grad_fn.metadata["step"] = 3
    assert y.grad_fn.metadata == {"note": "scaled", "step": 3}
    assert z.grad_fn.metadata == {}
    assert z.grad_fn.next_functions[0][0].metadata["note"] == "scaled"
    acc = y.grad_fn.next_functions[0][0]
    acc.metadata["leaf"] = True
    assert z.grad_fn.next_functions[0][0].next_functions[0][0].metadata == {"leaf": True}
    z.sum().backward()  # metadata does not disturb backward
    assert x.grad.tolist() == [2.0, 2.0]


def test_accumulate_grad_variable_is_the_leaf():
    w = nn.Parameter(ferric.arange(6.0).reshape(2, 3))
    y = (w * 3).sum()
    acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert hasattr(acc, "variable") and "variable" in dir(acc)
    v = acc.variable
    assert v.requires_grad and v.is_leaf and v.shape == (2, 3)
    assert v.data_ptr() == w.data_ptr()
    assert ferric._core._autograd_id(v) == ferric._core._autograd_id(w)
    mul = y.grad_fn.next_functions[0][0]
    assert not hasattr(mul, "variable")
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute 'variable'"):
        _ = mul.variable
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        _ = mul.nonsense


@pytest.mark.parametrize("make, names", [
    (lambda x, w: x * w, {"self", "other"}),
    (lambda x, w: x * x, {"self", "other"}),
    (lambda x, w: x.exp(), {"result"}),
    (lambda x, w: x.sin(), {"self"}),
    (lambda x, w: x + w, set()),
    (lambda x, w: x @ w.t(), {"self", "mat2"}),
    (lambda x, w: nn.functional.linear(x, w, w[0, :2]), {"mat1", "mat2"}),
    (lambda x, w: x.masked_fill(w > 1, 0.0), {"mask"}),
    (lambda x, w: x.max(dim=1)[0], {"indices"}),
])
def test_saved_tensors_are_listed_and_readable(make, names):
    x = ferric.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]], requires_grad=True)
    w = ferric.tensor([[2.0, 1.0, 1.0], [1.0, 1.0, 4.0]], requires_grad=True)
    fn = make(x, w).grad_fn
    listed = {a[len("_saved_"):] for a in dir(fn) if a.startswith("_saved_")}
    assert listed == names
    for n in names:
        assert isinstance(getattr(fn, "_saved_" + n), ferric.Tensor)


def test_saved_values_match_what_was_saved():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    c = ferric.tensor([5.0, 7.0])
    m = x * c  # only c is needed for backward (PyTorch's _saved_self is None here)
    assert [a for a in dir(m.grad_fn) if a.startswith("_saved_")] == ["_saved_other"]
    assert m.grad_fn._saved_other.tolist() == [5.0, 7.0]
    m2 = x * (x + 1)
    assert m2.grad_fn._saved_self.tolist() == [1.0, 2.0]
    assert m2.grad_fn._saved_other.tolist() == [2.0, 3.0]
    # a saved input keeps its graph, like PyTorch's `_saved_self`
    assert m2.grad_fn._saved_self.requires_grad
    assert m2.grad_fn._saved_other.grad_fn.name() == "AddBackward0"
    e = x.exp()
    r = e.grad_fn._saved_result
    np.testing.assert_allclose(r.detach().numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    assert r.grad_fn == e.grad_fn  # a saved output is bound to its own node, as in PyTorch


def test_saved_value_modified_in_place_raises_like_backward():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    e = x.exp()
    with ferric.no_grad():
        e.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _ = e.grad_fn._saved_result


def test_saved_tensors_are_freed_by_backward():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved_result.shape == (2,)  # retained
    y.sum().backward()
    assert "_saved_result" in dir(y.grad_fn)  # still listed, as in PyTorch
    with pytest.raises(RuntimeError, match="already been freed"):
        _ = y.grad_fn._saved_result


def test_saved_list_does_not_keep_memory_alive():
    """The node lists its saved values weakly: once backward frees them, nothing else
    holds them (the listing would otherwise still produce the tensor)."""
    x = ferric.randn(100, requires_grad=True)
    y = x.sin().exp()  # ExpBackward0 saves its result
    sin_fn = y.grad_fn.next_functions[0][0]  # SinBackward0 saves its input x
    y.sum().backward()
    assert "_saved_result" in dir(y.grad_fn) and "_saved_self" in dir(sin_fn)
    for fn, attr in ((y.grad_fn, "_saved_result"), (sin_fn, "_saved_self")):
        with pytest.raises(RuntimeError, match="already been freed"):
            getattr(fn, attr)


def test_saved_values_of_unrecorded_ops_are_not_misattributed():
    x = ferric.tensor([1.0, -1.0], requires_grad=True)
    mask = ferric.tensor([True, False])
    plain = ferric.tensor([3.0, 4.0])
    with ferric.no_grad():
        for _ in range(50):
            x.masked_fill(mask, 0.0)
            x * x
    plain.masked_fill(mask, 0.0)  # grad mode on, but nothing requires grad
    z = x + x  # AddBackward0 saves nothing
    assert not [a for a in dir(z.grad_fn) if a.startswith("_saved_")]


def test_custom_function_saved_tensors_stay_with_the_function():
    x = ferric.tensor([3.0], requires_grad=True)
    y = Square.apply(x)
    z = y + 1  # recorded right after: must not list Square's saved x
    assert not [a for a in dir(z.grad_fn) if a.startswith("_saved_")]
    z.backward()
    assert x.grad.tolist() == [6.0]


# --- to_dot ----------------------------------------------------------------------------

def mlp():
    ferric.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def test_to_dot_mlp_structure():
    model = mlp()
    x = ferric.randn(5, 3)
    out = model(x).sum()
    params = dict(model.named_parameters())
    nodes, edges = parse(to_dot(out, params))
    # leaves: named, with shapes, each feeding its own AccumulateGrad node
    assert by_color(nodes, "lightblue") == [("0.bias", "(4,)"), ("0.weight", "(4, 3)"),
                                            ("2.bias", "(2,)"), ("2.weight", "(2, 4)")]
    assert by_color(nodes, "darkolivegreen1") == ["()"]
    ops = [lab for lab, c in nodes.values() if c == "lightgrey"]
    assert sum(lab == ["AccumulateGrad"] for lab in ops) == 4
    assert ["SumBackward0", "()"] in ops
    assert ["TanhBackward0", "(5, 4)"] in ops
    # the drawing has exactly the grad_fn graph's nodes, found here independently
    seen, stack = set(), [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        stack.extend(f for f, _ in fn.next_functions if f is not None)
    assert len(ops) == len(seen)
    assert sorted(lab[0] for lab in ops) == sorted(
        "AccumulateGrad" if f.name().endswith("AccumulateGrad") else f.name() for f in seen)
    # every leaf reaches the root along directed edges
    succ = {}
    for a, b, undirected in edges:
        if not undirected:
            succ.setdefault(a, []).append(b)
    root = next(k for k, (_, c) in nodes.items() if c == "darkolivegreen1")
    for leaf in (k for k, (_, c) in nodes.items() if c == "lightblue"):
        frontier, reached = [leaf], set()
        while frontier:
            n = frontier.pop()
            if n not in reached:
                reached.add(n)
                frontier.extend(succ.get(n, []))
        assert root in reached


def test_to_dot_saved_tensors_and_show_saved():
    x = ferric.ones(2, 3, requires_grad=True)
    w = ferric.ones(3, 4, requires_grad=True)
    y = (x @ w).exp().sum()
    nodes, edges = parse(to_dot(y, {"x": x, "w": w}))
    saved = by_color(nodes, "orange")
    assert ("result", "(2, 4)") in saved
    assert ("self", "(2, 3)") in saved and ("mat2", "(3, 4)") in saved
    assert all(u for a, _, u in edges if nodes[a][1] == "orange")
    nodes2, _ = parse(to_dot(y, {"x": x, "w": w}, show_saved=False))
    assert not by_color(nodes2, "orange")
    y.backward()
    nodes3, _ = parse(to_dot(y))
    assert ("result", "(freed)") in by_color(nodes3, "orange")


def test_to_dot_leaf_used_twice_is_drawn_once():
    w = ferric.ones(3, requires_grad=True)
    y = (w * 2 + w.sin()).sum()
    nodes, _ = parse(to_dot(y, {"w": w}))
    assert by_color(nodes, "lightblue") == [("w", "(3,)")]


def test_to_dot_without_graph_is_one_node():
    t = ferric.zeros(2, 5)
    nodes, edges = parse(to_dot(t))
    assert list(nodes.values()) == [(["(2, 5)"], "white")] and edges == []
    nodes, edges = parse(to_dot(t, {"buffer": t}))
    assert list(nodes.values()) == [(["buffer", "(2, 5)"], "white")] and edges == []
    leaf = ferric.ones((), requires_grad=True)
    nodes, edges = parse(to_dot(leaf, {"p": leaf}))
    assert list(nodes.values()) == [(["p", "()"], "lightblue")] and edges == []


def test_to_dot_several_roots_and_multi_output_nodes():
    x = ferric.randn(4, 3, requires_grad=True)
    a, b = x.chunk(2, dim=1)
    nodes, edges = parse(to_dot((a.sum(), b.sum())))
    assert by_color(nodes, "darkolivegreen1") == ["()", "()"]
    assert len([1 for lab, c in nodes.values() if c == "lightblue"]) == 1


def test_to_dot_deep_graph_needs_no_recursion():
    x = ferric.ones(1, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y + 1
    nodes, edges = parse(to_dot(y, show_saved=False))
    assert len(nodes) == 5000 + 3 and len(edges) == 5000 + 2


def test_to_dot_escapes_names():
    x = ferric.ones(2, requires_grad=True)
    dot = to_dot(x * 2, {'odd "name" \\ here': x})
    nodes, _ = parse(dot)
    (label,) = by_color(nodes, "lightblue")
    assert label[0] == 'odd "name" \\\\ here'  # DOT escape of the backslash kept


def test_to_dot_params_as_pairs():
    model = mlp()
    out = model(ferric.ones(1, 3))
    a = to_dot(out, model.named_parameters())
    b = to_dot(out, dict(model.named_parameters()))
    assert a == b and "0.weight" in a


@pytest.mark.parametrize("args, kwargs, fragment", [
    ((3,), {}, "expected a Tensor or a list/tuple of Tensors, but got int"),
    (([1.0, 2.0],), {}, "but got list"),
    ((np.ones(3),), {}, "but got ndarray"),
    ((None,), {}, "but got NoneType"),
    ((ferric.ones(1),), {"params": 5}, "params must be a dict"),
    ((ferric.ones(1),), {"params": {"a": 3}}, "must map names to Tensors"),
])
def test_to_dot_bad_input(args, kwargs, fragment):
    with pytest.raises(TypeError, match=re.escape(fragment)):
        to_dot(*args, **kwargs)


# --- render ----------------------------------------------------------------------------

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed")


@needs_dot
@pytest.mark.parametrize("fmt, magic", [("svg", b"<?xml"), ("png", b"\x89PNG"),
                                        ("pdf", b"%PDF")])
def test_render_writes_the_file(tmp_path, fmt, magic):
    model = mlp()
    dot = to_dot(model(ferric.ones(2, 3)).sum(), dict(model.named_parameters()))
    path = render(dot, tmp_path / f"graph.{fmt}", format=fmt)
    assert path == str(tmp_path / f"graph.{fmt}")
    data = (tmp_path / f"graph.{fmt}").read_bytes()
    assert data.startswith(magic)
    if fmt == "svg":
        assert b"0.weight" in data and b"AddmmBackward0" in data or b"Backward" in data


@needs_dot
def test_render_escaped_names(tmp_path):
    x = ferric.ones(2, requires_grad=True)
    render(to_dot(x * 2, {'a "b" \\': x}), tmp_path / "g.svg")
    assert (tmp_path / "g.svg").stat().st_size > 0


@needs_dot
def test_render_reports_dot_errors(tmp_path):
    with pytest.raises(RuntimeError, match="dot exited with status"):
        render("digraph { -> }", tmp_path / "bad.svg")


def test_render_without_graphviz(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="Graphviz 'dot' program was not found"):
        render(to_dot(ferric.ones(1)), tmp_path / "g.svg")
    assert not (tmp_path / "g.svg").exists()


def test_render_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="unsupported format 'gif'"):
        render("digraph {}", tmp_path / "g.gif", format="gif")
    with pytest.raises(TypeError, match="must be DOT source"):
        render(ferric.ones(1), tmp_path / "g.svg")


def test_var_saves_no_result_but_std_does():
    # PyTorch: VarBackward0 / VarMeanBackward0 save only self; Std(Mean)Backward0 also
    # the result
    x = ferric.tensor([1.0, 2.0, 4.0], requires_grad=True)
    assert "_saved_result" not in dir(x.var().grad_fn)
    assert "_saved_result" in dir(x.std().grad_fn)
    assert "_saved_self" in dir(x.var().grad_fn)
    v, _ = ferric.var_mean(x)
    assert "_saved_result0" not in dir(v.grad_fn) and "_saved_result" not in dir(v.grad_fn)
