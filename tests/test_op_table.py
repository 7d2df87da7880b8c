"""Runs every row of op_specs.SPECS on every layout variant and dtype it supports.

Layout variants build the same logical values in different memory layouts:
contiguous; transposed (every dim reversed in storage: layouts.py's "permuted"); strided
(a ``base[1::2, ::2]`` view of a larger buffer, so offset and steps matter: "stepped");
broadcast (an ``expand`` with stride 0 in alternate dims); zero_size (a dim of 0);
scalar (0-d).
"""

from __future__ import annotations

import math
import types

import layouts
import numpy as np
import op_specs as S
import pytest

import ferric

F = ferric
DEFAULT_TOL = {S.F32: (1e-5, 1e-6), S.F64: (1e-10, 1e-12)}


# --- building inputs -----------------------------------------------------------------

class Built:
    """A tensor with a given layout, the buffer it views, and NumPy mirrors of both."""

    def __init__(self, tensor, base, base_np, view_np):
        self.tensor, self.base, self.base_np, self.view_np = tensor, base, base_np, view_np


def broadcast_source_shape(shape, i):
    """The small shape an input is expanded from: alternate dims become 1."""
    small = [1 if (j + i) % 2 == 0 else n for j, n in enumerate(shape)]
    if small == list(shape) and shape:
        small[0] = 1
    return tuple(small)


# the specs' layout names -> the kinds of layouts.py ("transposed" reverses every dim)
_KIND = {"transposed": "permuted", "strided": "stepped"}


def build(mod, src, shape, layout):
    """``src`` holds the values (already of the small shape for "broadcast")."""
    if layout == "broadcast" and len(shape) >= 1:
        base_np = src.copy()
        base = mod.tensor(base_np)
        return Built(base.expand(*shape), base, base_np, np.broadcast_to(base_np, shape))
    lay = layouts.layout(src, _KIND.get(layout, "contiguous"))
    base = mod.tensor(lay.base)
    return Built(lay.view(base), base, lay.base, lay.view(lay.base))


def make_inputs(spec, layout, dtypes, mod=None, self_layout=None):
    """Built inputs for one case. ``self_layout`` overrides input 0's layout (in-place
    rows keep their written-to tensor non-expanded)."""
    mod = mod or F
    rng = S.rng_for(spec.name, layout, *dtypes)
    shapes = spec.shapes_for(layout)
    out = []
    for i, (shape, d) in enumerate(zip(shapes, dtypes, strict=True)):
        lay = self_layout if (i == 0 and self_layout) else layout
        small = broadcast_source_shape(shape, i) if lay == "broadcast" else shape
        src = S.generate(rng, spec.domain(i, layout), d, small, spec.specials)
        out.append(build(mod, src, shape, lay))
    return out


def ref_arrays(built):
    """Reference inputs: float64 for floating inputs, the exact values otherwise."""
    return [b.view_np.astype(np.float64) if b.view_np.dtype.kind == "f" else
            np.array(b.view_np) for b in built]


def dname(d):
    return str(d).split(".")[-1]


# --- comparisons -----------------------------------------------------------------------

def assert_values(got, want, dtype, tol=None):
    """``got`` (tensor) equals ``want`` (array) in shape, and in value within the
    tolerance for ``dtype``; NaNs must sit at the same positions."""
    g = np.asarray(got.numpy())
    w = np.asarray(want)
    assert tuple(got.shape) == w.shape, f"shape {tuple(got.shape)} != {w.shape}"
    if dtype in S.FLOAT:
        rtol, atol = (tol or {}).get(dtype, DEFAULT_TOL[dtype])
        with np.errstate(all="ignore"):
            w = w.astype(dtype).astype(np.float64)  # overflow to inf like the op would
        g = g.astype(np.float64)
        # np.allclose is the fast check; assert_allclose only runs to explain a failure
        if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    elif not np.array_equal(g, w.astype(dtype)):
        np.testing.assert_array_equal(g, w.astype(dtype))


def _equal_nan(a, b):
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def same_value(a, b):
    """Deep equality for Python values where NaN equals NaN."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b or (
        isinstance(a, (int, float)) and isinstance(b, (int, float))
        and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def snapshot(built):
    return [np.array(b.base.numpy(), copy=True) for b in built]


def assert_unchanged(built, snap):
    for b, s in zip(built, snap, strict=True):
        assert _equal_nan(b.base.numpy(), s), "an input changed"


def results(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


# --- case generation ---------------------------------------------------------------------

def _not_merged(spec):
    """Rows of ops merged later (``requires``) skip until the Tensor method exists."""
    return bool(spec.requires) and not hasattr(F.Tensor, spec.requires)


def grouped(kinds, check):
    """One pytest item per (row, known-bug reason): the cases of a row that are expected
    to pass run together, and each BUG group is a separate strict xfail item. (One item
    per case would be ~7000 items, and pytest's per-item cost would dominate the run.)"""
    params = []
    for spec in S.SPECS:
        if spec.kind not in kinds:
            continue
        groups: dict = {}
        for lay in spec.layouts:
            for d in spec.dtypes:
                groups.setdefault(spec.xfail_reason(d, lay), []).append((lay, d))
        for reason, group in groups.items():
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if _not_merged(spec):
                marks = [pytest.mark.skip(reason=f"needs Tensor.{spec.requires} (not merged yet)")]
            params.append(pytest.param(check, spec, group, marks=marks,
                                       id=spec.name + ("-BUG" if reason else "")))
    return params


def run_group(check, spec, group):
    failures = []
    for layout, dtypes in group:
        try:
            check(spec, layout, dtypes)
        except Exception as e:  # noqa: BLE001 - collected and reported together below
            first = (str(e).strip().splitlines() or [""])[0]
            failures.append(f"{layout}/{'/'.join(dtypes)}: {type(e).__name__}: {first[:300]}")
    if failures:
        pytest.fail(f"{len(failures)} of {len(group)} cases failed:\n" + "\n".join(failures),
                    pytrace=False)


# --- the generic tests ---------------------------------------------------------------------

def check_forward(spec, layout, dtypes):
    built = make_inputs(spec, layout, dtypes)
    snap = snapshot(built)
    got = results(spec.call(F, *[b.tensor for b in built]))
    want_dtypes = result_dtypes(spec.expected_dtype(dtypes, layout), len(got))
    if spec.ref is not None:
        want = results(spec.ref(*ref_arrays(built)))
        assert len(got) == len(want)
    for i, (g, want_dtype) in enumerate(zip(got, want_dtypes, strict=True)):
        assert isinstance(g, F.Tensor)
        assert dname(g.dtype) == want_dtype
        if spec.ref is not None:
            assert_values(g, want[i], want_dtype, spec.tol)
        if spec.alias is not None and g.numel() > 0 and built[0].tensor.numel() > 0:
            shares = np.may_share_memory(g.numpy(), built[0].tensor.numpy())
            assert shares == spec.alias, "result must " + ("" if spec.alias else "not ") + "alias"
    assert_unchanged(built, snap)


def result_dtypes(rule_result, n):
    """A rule gives one dtype for every result, or a tuple with one per result (e.g.
    ``max(dim)``'s values and int64 indices)."""
    if isinstance(rule_result, tuple):
        assert len(rule_result) == n, f"{n} results, {len(rule_result)} dtypes"
        return rule_result
    return (rule_result,) * n


def check_random(spec, layout, dtypes):
    """Random ops: ``ref`` gives the result shape(s) from the inputs; the values are only
    checked to repeat exactly under the same seed (``F.manual_seed``)."""
    runs = []
    for _ in range(2):
        built = make_inputs(spec, layout, dtypes)
        F.manual_seed(SEED)
        runs.append(results(spec.call(F, *[b.tensor for b in built])))
    first, again = runs
    shapes = spec.ref(*ref_arrays(built))
    shapes = shapes if isinstance(shapes, list) else [shapes]
    want_dtypes = result_dtypes(spec.expected_dtype(dtypes, layout), len(first))
    assert len(first) == len(shapes)
    for a, b, shape, want_dtype in zip(first, again, shapes, want_dtypes, strict=True):
        assert isinstance(a, F.Tensor)
        assert dname(a.dtype) == want_dtype
        assert tuple(a.shape) == tuple(shape), f"shape {tuple(a.shape)} != {tuple(shape)}"
        assert _equal_nan(a.numpy(), b.numpy()), "the same seed gave different values"


SEED = 20240607


def _expect_inplace_error(spec, dtypes, layout):
    out = spec.expected_dtype(dtypes, layout)
    return None if S.can_cast(out, dtypes[0]) else out


def check_inplace(spec, layout, dtypes):
    # the written-to tensor keeps its layout except "broadcast", where the other inputs
    # are expanded and the expanded-self case is checked below
    self_layout = "contiguous" if layout == "broadcast" else None
    built = make_inputs(spec, layout, dtypes, self_layout=self_layout)
    x = built[0].tensor
    snap = snapshot(built)
    version = getattr(x, "_version", None)
    bad = _expect_inplace_error(spec, dtypes, layout)
    if bad:
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            spec.call(F, *[b.tensor for b in built])
        assert_unchanged(built, snap)
        return
    want = np.asarray(spec.ref(*ref_arrays(built)))
    r = spec.call(F, *[b.tensor for b in built])
    assert r is x, "in-place ops return their input"
    assert dname(x.dtype) == dtypes[0]
    assert_values(x, want, dtypes[0], spec.tol)
    # the buffer the view looks into changed exactly at the viewed positions
    expect_base = built[0].base_np.copy()
    mirror = _mirror(built[0], expect_base)
    mirror[...] = want
    assert_values(built[0].base, expect_base, dtypes[0], spec.tol)
    for b, s in zip(built[1:], snap[1:], strict=True):
        if b.base is not built[0].base:
            assert _equal_nan(b.base.numpy(), s), "an input that is not written to changed"
    if version is not None:
        assert x._version > version
    if layout == "broadcast":
        _check_expanded_self(spec, dtypes)


def _mirror(b, base_copy):
    """The view of ``base_copy`` (a contiguous copy of ``b.base_np``) that ``b.view_np``
    is of ``b.base_np``: same offset, shape and strides."""
    off = b.view_np.__array_interface__["data"][0] - b.base_np.__array_interface__["data"][0]
    flat = base_copy.reshape(-1)[off // base_copy.itemsize:]
    return np.lib.stride_tricks.as_strided(flat, b.view_np.shape, b.view_np.strides)


def _check_expanded_self(spec, dtypes):
    built = make_inputs(spec, "broadcast", dtypes)
    x = built[0].tensor
    if x.numel() <= 1 or _expect_inplace_error(spec, dtypes, "broadcast"):
        return
    snap = snapshot(built)
    if spec.overlap_ok:
        spec.call(F, *[b.tensor for b in built])
        return
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        spec.call(F, *[b.tensor for b in built])
    assert_unchanged(built, snap)


def check_meta(spec, layout, dtypes):
    built = make_inputs(spec, layout, dtypes)
    got = spec.call(F, *[b.tensor for b in built])
    want = spec.ref(*[b.view_np for b in built])
    want = want.tolist() if isinstance(want, np.ndarray) else want
    if isinstance(want, tuple) and isinstance(got, tuple):
        got, want = list(got), list(want)
    assert same_value(got, want), f"{got!r} != {want!r}"


@pytest.mark.parametrize("check,spec,group", grouped(("op", "view"), check_forward)
                         + grouped(("inplace",), check_inplace)
                         + grouped(("meta",), check_meta)
                         + grouped(("random",), check_random))
def test_rows(check, spec, group):
    run_group(check, spec, group)


ERROR_CASES = [
    pytest.param(s, dts, exc, frag, marks=[pytest.mark.skip(reason=f"needs Tensor.{s.requires}")]
                 if _not_merged(s) else [pytest.mark.xfail(strict=True, reason=r)]
                 if (r := s.xfail_reason(dts, "errors")) else [],
                 id=f"{s.name}-{'/'.join(dts)}")
    for s in S.SPECS for dts, exc, frag in s.errors]


@pytest.mark.parametrize("spec,dtypes,exc,frag", ERROR_CASES)
def test_dtype_errors(spec, dtypes, exc, frag):
    """Dtype combinations PyTorch rejects raise its exception type, leave inputs alone."""
    built = make_inputs(spec, "contiguous", dtypes)
    snap = snapshot(built)
    with pytest.raises(exc, match=None) as info:
        spec.call(F, *[b.tensor for b in built])
    assert frag in str(info.value), f"{frag!r} not in {str(info.value)!r}"
    assert_unchanged(built, snap)


FORM_CASES = [pytest.param(s, d, id=f"{s.name}-{'/'.join(d)}")
              for s in S.SPECS if len(s.forms) > 1 and s.kind != "creation" for d in s.dtypes]


@pytest.mark.parametrize("spec,dtypes", FORM_CASES)
def test_forms_agree(spec, dtypes):
    """Every spelling of an op (function, method, alias, operator) gives the same result."""
    if _not_merged(spec):
        pytest.skip(f"needs Tensor.{spec.requires}")
    bad = spec.kind == "inplace" and _expect_inplace_error(spec, dtypes, "contiguous")
    outs = []
    for name, call in spec.forms.items():
        built = make_inputs(spec, "contiguous", dtypes)
        if spec.kind == "random":
            F.manual_seed(SEED)  # every spelling draws the same numbers
        if bad:
            with pytest.raises(RuntimeError):
                call(F, *[b.tensor for b in built])
            continue
        try:
            r = call(F, *[b.tensor for b in built])
        except Exception:
            if reason := spec.xfail_reason(dtypes, "contiguous"):
                pytest.xfail(reason)  # the known bug makes the op raise
            raise
        if spec.kind == "inplace":
            assert r is built[0].tensor, name
            r = built[0].tensor
        outs.append((name, r))
    for name, r in outs[1:]:
        first = outs[0][1]
        if spec.kind == "meta":
            assert same_value(r, first), name
            continue
        for a, b in zip(results(first), results(r), strict=True):
            assert dname(a.dtype) == dname(b.dtype), name
            np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


# --- registry -----------------------------------------------------------------------------

# Public names of ferric._core that are not ops, each with the reason it has no row.
NOT_OPS = {
    # the autocast cast cache's switches: tests/test_autocast_cpu.py
    "clear_autocast_cache", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
    "dtype",  # the dtype class (dtype objects are not callable and are not collected)
    # dtype casts and the casting rule: tests/test_dtypes.py replays PyTorch's results
    "Tensor.int", "Tensor.short", "Tensor.char", "Tensor.byte", "Tensor.half",
    "Tensor.bfloat16", "can_cast",
    "memory_format",  # the memory_format class: tests/test_memory_order.py
    "OutOfMemoryError",  # an exception class: tests/test_errors.py
    "Tensor.storage_offset",  # checked against NumPy in test_views_hypothesis
    # as_strided reads the storage, not the logical tensor, so the layout variants of the
    # spec harness do not apply: tests/test_as_strided.py (NumPy, PyTorch, gradcheck)
    "as_strided",
    "Tensor.as_strided",
    # Autograd API, not ops: graph nodes, hook handles, backward/hooks/retain_grad and the
    # grad/anomaly mode queries are covered by tests/test_autograd.py. (The underscored
    # entry points the Python layer uses, _run_backward, _set_grad_enabled, ..., are not
    # collected at all.)
    "Node",
    "RemovableHandle",
    "Tensor.backward",
    "Tensor.register_hook",
    "Tensor.register_post_accumulate_grad_hook",
    "Tensor.retain_grad",
    "Tensor.is_inference",  # inference tensors: tests/test_autograd_view_rebase.py
    "is_grad_enabled",
    "is_anomaly_enabled",
    # the kernel pool's size, not an op: tests/test_threads.py
    "get_num_threads",
    "set_num_threads",
}
# Dunders that are operators (the others are Python protocol plumbing).
OPERATOR_DUNDERS = {f"__{p}{n}__" for n in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift",
    "rshift",
) for p in ("", "r", "i")} | {"__neg__", "__pos__", "__abs__", "__invert__", "__eq__", "__ne__",
                              "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
                              "__setitem__", "__len__", "__iter__", "__bool__", "__float__",
                              "__int__", "__index__", "__array__", "__matmul__", "__rmatmul__",
                              "__imatmul__", "__contains__"}
# Unary operator dunders are one-liners over rows that exist; list them explicitly.
UNARY_DUNDERS = {"Tensor.__neg__": "neg", "Tensor.__abs__": "abs",
                 "Tensor.__invert__": "bitwise_not", "Tensor.__pos__": None}


def public_names():
    core = ferric._core
    names = {n for n in dir(core) if not n.startswith("_") and callable(getattr(core, n))
             and not isinstance(getattr(core, n), type)}
    names |= {n for n in dir(core) if not n.startswith("_") and isinstance(getattr(core, n), type)}
    for n in dir(core.Tensor):
        if n.startswith("_") and n not in OPERATOR_DUNDERS:
            continue
        if not callable(getattr(core.Tensor, n)):
            continue  # properties (shape, dtype, T, ...): T/mT/shape have rows anyway
        if isinstance(getattr(core.Tensor, n), types.FunctionType):
            continue  # attached from Python (ferric/_tensor_methods.py): tests/test_idioms.py
        if n in OPERATOR_DUNDERS and n not in vars(core.Tensor):
            continue
        names.add("Tensor." + n)
    return names


def covered_names():
    out = set()
    for s in S.SPECS:
        out |= {k.split("(")[0] for k in s.forms}
    return out | set(UNARY_DUNDERS)


def test_every_public_op_has_a_row():
    missing = sorted(public_names() - covered_names() - NOT_OPS)
    assert not missing, f"public ops without a row in op_specs.py: {missing}"


def test_allowlist_is_not_stale():
    stale = sorted(NOT_OPS - public_names())
    assert not stale, f"NOT_OPS lists names ferric._core no longer has: {stale}"


@pytest.mark.parametrize("dunder,op", [(k, v) for k, v in UNARY_DUNDERS.items()])
def test_unary_operator_dunders(dunder, op):
    x = F.tensor([[1, -2, 3]])
    r = getattr(x, dunder.split(".")[1])()
    want = x if op is None else getattr(x, op)()
    np.testing.assert_array_equal(r.numpy(), want.numpy())


# --- the promotion rule itself ----------------------------------------------------------------

# operands as (dtype, ndim) or Python numbers -> torch.result_type, checked by hand against
# PyTorch; these pin down op_specs.result_type, which every row's expected dtype uses
PROMOTION = [
    ([("int64", 1), 2.5], "float32"), ([("float64", 1), 2.5], "float64"),
    ([("float32", 1), ("float64", 0)], "float32"), ([("int64", 1), ("float64", 0)], "float64"),
    ([("int64", 0), ("float32", 1)], "float32"), ([("float32", 0), ("float64", 0)], "float64"),
    ([("bool", 0), ("int64", 1)], "int64"), ([("float64", 0), ("int64", 0)], "float64"),
    ([("bool", 1), ("bool", 1)], "bool"), ([("bool", 1), True], "bool"),
    ([("bool", 1), 1], "int64"), ([("int64", 1), 3], "int64"), ([2, 3.0], "float32"),
    ([("bool", 1), ("float32", 1)], "float32"), ([("int64", 1), ("bool", 0)], "int64"),
]


@pytest.mark.parametrize("operands,want", PROMOTION, ids=[str(p[0]) for p in PROMOTION])
def test_promotion_rule(operands, want):
    assert S.result_type(*operands) == want


def test_promotion_examples_on_ferric():
    assert (F.tensor([1, 2]) + 2.5).dtype == F.float32
    assert (F.ones(2) + F.tensor(1.0, dtype=F.float64)).dtype == F.float32
    assert (F.tensor([1, 2]) / F.tensor([2, 2])).dtype == F.float32
    assert (F.tensor([True]) + F.tensor([False])).dtype == F.bool
    assert (F.tensor([1, 2]) + F.tensor(1.0, dtype=F.float64)).dtype == F.float64
