"""No silent graph drops: every public function and ``Tensor`` method, called with float64
inputs that require grad, keeps the autograd graph exactly where PyTorch 2.13 does.

The calls are the recipes of ``fixtures/graph_drops/recipes.py``; PyTorch's outcome for
each (which outputs have a ``grad_fn``, or the exception it raised) was recorded by
``fixtures/graph_drops/generate.py``. A float result without ``grad_fn`` where PyTorch
has one is a silent graph drop: training would run on and simply not learn. The walk
test makes sure every public name of ferric has a recipe or an entry in ``SKIP`` with
the reason it cannot be called generically.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import types

import pytest

import ferric

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "graph_drops")
sys.path.insert(0, HERE)

from recipes import CASES, Lib, run_case  # noqa: E402

with open(os.path.join(HERE, "pytorch_grad_fn.json")) as _f:
    FIXTURE = json.load(_f)["cases"]

LIB = Lib(ferric, ferric.nn.functional)

# Public names with no recipe, and why.
_NO_TENSOR_INPUT = "takes no tensor input (factory, seeding, configuration or I/O)"
SKIP = {
    **{f"ferric.{n}": _NO_TENSOR_INPUT for n in (
        "arange", "empty", "eye", "full", "linspace", "logspace", "ones", "zeros", "rand",
        "randn", "randint", "randperm", "tensor", "as_tensor", "from_numpy", "from_dlpack",
        "compile", "get_autocast_dtype", "get_default_device", "get_default_dtype",
        "get_num_threads", "get_printoptions", "get_rng_state", "initial_seed",
        "is_anomaly_enabled", "is_autocast_available", "is_autocast_enabled",
        "is_grad_enabled", "is_inference_mode_enabled", "manual_seed", "seed",
        "set_autocast_enabled", "set_default_device", "set_num_threads",
        "clear_autocast_cache", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
        "set_printoptions", "set_rng_state", "show_config", "load", "save",
        "promote_types", "broadcast_shapes", "result_type", "tril_indices",
        "triu_indices", "can_cast", "set_default_dtype")},
    # issue 15 breadth (misc): flags and factories without a tensor input
    **{f"ferric.{n}": _NO_TENSOR_INPUT for n in (
        "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
        "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
        "get_deterministic_debug_mode", "set_float32_matmul_precision",
        "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
        "set_flush_denormal", "get_num_interop_threads", "set_num_interop_threads",
        "init_num_threads", "set_default_tensor_type", "scalar_tensor", "frombuffer")},
    "ferric.tensor_repr": "ferric's repr helper (returns a string; not a PyTorch name)",
    "Tensor.cuda": "device errors are compared with a CPU-only PyTorch in test_idioms.py",
    "Tensor.pin_memory": "device errors are compared with a CPU-only PyTorch in "
                         "test_idioms.py",
    **{f"{w}.{n}": "linear algebra: graphs, node names and gradients are checked against "
                   "PyTorch in tests/test_linalg.py (square or SPD inputs needed)"
       for w in ("ferric", "Tensor") for n in (
           "det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve",
           "cholesky_inverse", "pinverse", "svd", "qr", "matrix_power", "matrix_exp")},
}

# Known differences from PyTorch, as strict xfails with the reason: the test fails as
# soon as one is fixed, so the entry must then be removed. (None today: the pow,
# nan_to_num, floor_divide, rounded div, in-place logical and bincount drops were fixed.)
XFAIL: dict[str, str] = {}

# Conversions to dtypes ferric does not have yet raise a TypeError naming the dtype; they
# are compared as soon as the dtype exists.
DTYPE_OF_METHOD = {"half": "float16", "bfloat16": "bfloat16", "int": "int32",
                   "short": "int16", "char": "int8", "byte": "uint8"}


def _is_function(obj):
    return callable(obj) and not isinstance(obj, (type, types.ModuleType, ferric.dtype))


def public_names():
    """ferric's public functions and ``Tensor`` methods, as ``ferric.x`` / ``Tensor.x``."""
    names = {f"ferric.{n}" for n in dir(ferric)
             if not n.startswith("_") and _is_function(getattr(ferric, n))}
    names |= {f"Tensor.{n}" for n in dir(ferric.Tensor)
              if not n.startswith("_") and callable(inspect.getattr_static(ferric.Tensor, n))}
    return names


def _exists(name):
    where, attr = name.split(".", 1)
    if where == "ferric":
        return _is_function(getattr(ferric, attr, None))
    return hasattr(ferric.Tensor, attr)


def _absent(outcome):
    return outcome.get("error") == "AttributeError"


def test_every_public_name_has_a_recipe_or_a_reason():
    covered = {n for names, _ in CASES.values() for n in names}
    compared = {n for cid, (names, _) in CASES.items() for n in names
                if not _absent(FIXTURE[cid])}
    public = public_names()
    assert sorted(public - covered - set(SKIP)) == [], "add a recipe or a SKIP reason"
    # a covered name must have been callable in PyTorch somewhere, or the case compares
    # nothing: such names need a reason instead
    assert sorted((public & covered) - compared - set(SKIP)) == []
    assert sorted(n for n in SKIP if not _exists(n)) == [], "stale SKIP entries"


def test_fixture_matches_the_recipes():
    assert sorted(FIXTURE) == sorted(CASES)
    assert sorted(set(XFAIL) - set(CASES)) == []


def _cases():
    for cid, (names, _) in CASES.items():
        if names and not all(_exists(n) for n in names):
            continue  # a form ferric does not have: nothing to drop
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[cid])] if cid in XFAIL else []
        dtype = DTYPE_OF_METHOD.get(cid.removeprefix("Tensor."))
        if dtype is not None and not isinstance(getattr(ferric, dtype, None), ferric.dtype):
            marks.append(pytest.mark.skip(reason=f"ferric has no {dtype} dtype yet"))
        yield pytest.param(cid, id=cid, marks=marks)


def _describe(outcome):
    if "error" in outcome:
        return f"raised {outcome['error']}: {outcome['message']}"
    return f"outputs {outcome['outputs']}"


@pytest.mark.parametrize("case_id", list(_cases()))
def test_graph_kept_as_in_pytorch(case_id):
    want = FIXTURE[case_id]
    got = run_case(case_id, LIB)
    if _absent(want):
        if _absent(got):
            return
        pytest.skip("PyTorch has no such function or method to compare with")
    if "error" in want:
        assert got.get("error") == want["error"], (
            f"PyTorch {_describe(want)}; ferric {_describe(got)}")
        return
    assert "outputs" in got, f"PyTorch {_describe(want)}; ferric {_describe(got)}"
    pairs = zip(want["outputs"], got["outputs"], strict=False)  # lengths compared below
    dropped = [i for i, (w, g) in enumerate(pairs)
               if w == "grad" and g != "grad"]
    assert not dropped, f"graph dropped at output(s) {dropped}: PyTorch {want['outputs']}, " \
                        f"ferric {got['outputs']}"
    assert got["outputs"] == want["outputs"]


@pytest.mark.parametrize("fn, message", [
    (lambda x: ferric.unique(x), "the derivative for '_unique2' is not implemented."),
    (lambda x: x.unique_consecutive(),
     "the derivative for 'unique_consecutive' is not implemented."),
])
def test_unique_keeps_a_node_whose_backward_raises_as_in_pytorch(fn, message):
    x = ferric.tensor([0.5, 0.25, 0.5], dtype=ferric.float64, requires_grad=True)
    out = fn(x)
    assert out.grad_fn is not None
    with pytest.raises(NotImplementedError, match=message):
        out.sum().backward()
    with ferric.no_grad():
        assert not fn(x).requires_grad


@pytest.mark.parametrize("weights", [
    lambda: ferric.tensor([0.5, 0.25, 2.0], dtype=ferric.float64, requires_grad=True),
    lambda: ferric.tensor([0.5, 0.25, 2.0], requires_grad=True),
    lambda: ferric.tensor([0.5, 0.25, 2.0], dtype=ferric.float64, requires_grad=True) * 2,
])
def test_bincount_keeps_a_not_implemented_node_as_in_pytorch(weights):
    w = weights()
    out = ferric.bincount(ferric.tensor([0, 3, 0]), weights=w)
    a, b, c = w.tolist()
    assert out.tolist() == [a + c, 0.0, 0.0, b]
    assert out.dtype == w.dtype
    assert type(out.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bincount is not implemented"):
        out.sum().backward()
    with ferric.no_grad():
        assert ferric.bincount(ferric.tensor([0, 3, 0]), weights=w).grad_fn is None
    assert ferric.bincount(ferric.tensor([0, 3, 0]), weights=w.detach()).grad_fn is None


# Backward nodes whose class name differs from PyTorch's, as strict xfails: case id ->
# reason; an entry goes as soon as it is fixed.
_INPLACE_HYPERBOLIC = ("PyTorch records the in-place inverse hyperbolic functions under "
                       "their second derivative entry (AsinhBackward1, ...); ferric uses the "
                       "out-of-place node (AsinhBackward0)")
_REPEAT_INTERLEAVE = ("PyTorch composes repeat_interleave(int) from an expand and a view "
                      "(ViewBackward0); ferric's is one IndexSelectBackward0 node")
_COMPOSED = ("composed in Python of ferric ops (nn.functional's or docs/extra_ops.md's); "
             "PyTorch records one fused kernel node (DistBackward0, CeluBackward0, ...)")
NODE_XFAIL: dict[str, str] = {
    **{cid: "ferric's vmap runs func per example and stacks the results (StackBackward0); "
            "PyTorch's batched execution ends in func's last op"
       for cid in ("ferric.vmap", "ferric.vmap in_dims")},
    **{f"Tensor.{n}_": _INPLACE_HYPERBOLIC
       for n in ("asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh")},
    "ferric.repeat_interleave": _REPEAT_INTERLEAVE,
    "Tensor.repeat_interleave": _REPEAT_INTERLEAVE,
    "ferric.einsum": "PyTorch's einsum ends in a view of a bmm (ViewBackward0); ferric's "
                     "last step is a squeeze (SqueezeBackward1)",
    **{f"Tensor.{n}_": "the composed in-place form writes its result with copy_ "
                       "(CopyBackwards); PyTorch's kernel records the op's own node. "
                       "Python cannot rebase a tensor's history onto another node: this "
                       "needs a Rust hook (an in-place write that takes the result's node)"
       for n in ("addbmm", "addcdiv", "addcmul", "addmv", "addr", "lerp", "renorm",
                 "index_copy")},
    # issue 15 breadth (misc): Python compositions of ferric ops where PyTorch has one
    # fused kernel node; the graph is kept (test_graph_kept_as_in_pytorch), only the
    # last node's class name differs
    **{cid: _COMPOSED for cid in (
        "ferric.cov", "Tensor.cov", "ferric.dist", "Tensor.dist", "ferric.dist(p=1)",
        "Tensor.dist(p=1)", "ferric.hardshrink", "Tensor.hardshrink", "ferric.prelu",
        "Tensor.prelu", "ferric.clamp_max_", "Tensor.clamp_max_", "ferric.clamp_min_",
        "Tensor.clamp_min_", "ferric.trapezoid", "ferric.trapz", "ferric.trapezoid(x=)",
        "ferric.selu", "ferric.celu", "ferric.rrelu", "ferric.rsub", "ferric.rsub(scalar)",
        "ferric.fill", "ferric.alpha_dropout_", "ferric.feature_alpha_dropout_",
        "ferric.group_norm", "ferric.instance_norm", "ferric.selu_", "ferric.celu_",
        "ferric.rrelu_", "ferric.threshold_", "ferric.threshold", "ferric.pixel_shuffle",
        "ferric.pixel_unshuffle", "ferric.channel_shuffle", "ferric.pairwise_distance",
        "ferric.addmv_", "ferric.conv3d", "ferric.conv_transpose3d", "ferric.alias_copy",
        "ferric.t_copy", "ferric.diagonal_copy", "ferric.expand_copy", "ferric.permute_copy",
        "ferric.select_copy", "ferric.slice_copy", "ferric.split_copy",
        "ferric.split_with_sizes_copy", "ferric.squeeze_copy", "ferric.transpose_copy",
        "ferric.unbind_copy", "ferric.unsqueeze_copy", "ferric.view_copy",
        *(f"{w}.{n}" for w in ("ferric", "Tensor") for n in (
            "conj_physical_", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes",
            "select_scatter", "slice_scatter", "diagonal_scatter")))},
    **{f"ferric.{n}_": _INPLACE_HYPERBOLIC
       for n in ("asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh")},
    **{f"{w}.conj_physical_": "a real tensor's conj_physical_ changes nothing, so ferric "
                              "records no node; PyTorch records ConjPhysicalBackward1"
       for w in ("ferric", "Tensor")},
    "Tensor.polygamma_": "PyTorch records in-place polygamma_ under its second derivative "
                         "entry (PolygammaBackward1); ferric uses PolygammaBackward0",
}


def _node_cases():
    for cid, (names, _) in CASES.items():
        want = FIXTURE[cid]
        if not any(want.get("nodes") or ()):
            continue  # no output with a grad_fn in PyTorch: nothing to name
        if names and not all(_exists(n) for n in names):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=NODE_XFAIL[cid])] \
            if cid in NODE_XFAIL else []
        dtype = DTYPE_OF_METHOD.get(cid.removeprefix("Tensor."))
        if dtype is not None and not isinstance(getattr(ferric, dtype, None), ferric.dtype):
            marks.append(pytest.mark.skip(reason=f"ferric has no {dtype} dtype yet"))
        yield pytest.param(cid, id=cid, marks=marks)


@pytest.mark.parametrize("case_id", list(_node_cases()))
def test_node_class_names_as_in_pytorch(case_id):
    """``type(out.grad_fn).__name__`` is PyTorch's node name for every output that keeps
    the graph (``MulBackward0``, ``MseLossBackward0``, ...)."""
    want = FIXTURE[case_id]["nodes"]
    got = run_case(case_id, LIB).get("nodes")
    assert got is not None, f"ferric raised: {run_case(case_id, LIB)}"
    pairs = [(w, g) for w, g in zip(want, got, strict=False) if w is not None]
    assert [g for _, g in pairs] == [w for w, _ in pairs]


def test_node_classes_are_node_subclasses():
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    assert type(y.grad_fn).__name__ == "SumBackward0"
    assert isinstance(y.grad_fn, ferric.autograd.graph.Node)
    mul = y.grad_fn.next_functions[0][0]
    assert type(mul).__name__ == "MulBackward0"
    acc = mul.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.name() == "torch::autograd::AccumulateGrad"
    # one class per name, shared by all nodes of that op
    assert type((x * 3).grad_fn) is type(mul)
    with pytest.raises(TypeError):
        type(mul)()
    with pytest.raises(TypeError):
        ferric.autograd.graph.Node()
