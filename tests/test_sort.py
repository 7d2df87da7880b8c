"""Sorting and selection beyond the op table (tests/specs/sort.py): PyTorch's recorded
results on tie and NaN rows and its errors (tests/fixtures/sort, written by generate.py
with PyTorch), zero-size and expanded inputs, gradients, and the function forms."""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest
from layouts import laid_out
from specs.sort import std_sort, std_topk

import ferric
from ferric.autograd import gradcheck

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures/sort/sort.json").read_text())
ROWS = FIXTURE["rows"]


def dec(v):
    if isinstance(v, list):
        return [dec(e) for e in v]
    return float(v) if isinstance(v, str) else v


def same_nested(a, b):
    """Equal nested lists, NaN equal to NaN, -0.0 told apart from 0.0."""
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(same_nested(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a)
                                                    == math.copysign(1, b))
    return a == b and type(a) is type(b)


def same(a, b):
    a, b = np.asarray(dec(a), dtype=float), np.asarray(dec(b), dtype=float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# mode over a row with NaN: PyTorch's kernel std::sorts with `<`, which NaN breaks.
def undefined_in_pytorch(case):
    return "mode" in case["expr"] and case["input"] in ("nan8", "inf", "allnan", "mat")


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: f"{c['input']}:{c['expr']}")
def test_matches_recorded_pytorch(case):
    spec = ROWS[case["input"]]
    x = ferric.tensor(dec(spec["data"]), dtype=getattr(ferric, spec["dtype"]))
    want = case["out"]
    if "error" in want:
        with pytest.raises(ERRORS[want["error"]]) as e:
            eval(case["expr"], {"torch": ferric, "x": x})
        assert want["message"][:30] in str(e.value)
        return
    got = eval(case["expr"], {"torch": ferric, "x": x})
    if undefined_in_pytorch(case):
        pytest.skip("PyTorch's mode is undefined on NaN rows")
    if "indices" not in want:
        assert same(got.tolist(), want["values"])
        return
    vals, idx = got
    assert same(vals.tolist(), want["values"])
    assert idx.tolist() == want["indices"]


ERRORS = {"RuntimeError": RuntimeError, "IndexError": IndexError, "TypeError": TypeError,
          "NotImplementedError": NotImplementedError}


@pytest.mark.parametrize("case", FIXTURE["errors"], ids=lambda c: c["expr"])
def test_errors_match_recorded_pytorch(case):
    if case["error"] is None:
        eval(case["expr"], {"torch": ferric})
        return
    with pytest.raises(ERRORS[case["error"]]) as e:
        eval(case["expr"], {"torch": ferric})
    if case["error"] != "TypeError":  # pyo3 words argument errors its own way
        assert case["message"] in str(e.value)


@pytest.mark.parametrize("case", FIXTURE["search"], ids=lambda c: c["expr"])
def test_search_and_unique_match_recorded_pytorch(case):
    r = eval(case["expr"], {"torch": ferric})
    got = [t.tolist() for t in r] if isinstance(r, tuple) else r.tolist()
    assert same_nested(got, dec(case["out"]))


def test_search_out_int32_is_refused():
    with pytest.raises(NotImplementedError, match="int32"):
        ferric.searchsorted(ferric.tensor([1.0]), ferric.tensor([1.0]), out_int32=True)


def test_fixture_records_its_pytorch_version():
    assert FIXTURE["torch_version"].startswith("2.13.0")


def test_stable_sort_keeps_ties_in_order_on_long_rows():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, (5, 300)).astype(np.float32)
    a[a == 3] = np.nan
    v, i = ferric.sort(ferric.tensor(a), dim=1, stable=True)
    assert np.array_equal(i.numpy(), np.argsort(a, axis=1, kind="stable"))
    v, i = ferric.tensor(a).sort(1, descending=True, stable=True)
    nan = np.isnan(a)
    want = np.stack([np.lexsort((np.arange(300), -np.where(nan[r], 0, a[r]), ~nan[r]))
                     for r in range(5)])
    assert np.array_equal(i.numpy(), want)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "expanded_last"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_topk_and_sort_on_layouts(layout, dtype):
    rng = np.random.default_rng(1)
    t, a = laid_out(rng.integers(-3, 4, (6, 40)).astype(dtype), layout)
    for dim in (0, 1):
        v, i = t.sort(dim, stable=True)
        assert np.array_equal(i.numpy(), np.argsort(a, axis=dim, kind="stable"))
        assert np.array_equal(v.numpy(), np.sort(a, axis=dim, kind="stable"))
        k = 3
        v, i = t.topk(k, dim, largest=False)
        # ties in PyTorch's order (specs.stl_model), values as np.partition finds them
        want = np.apply_along_axis(std_topk, dim, a, k, False)
        assert np.array_equal(i.numpy(), want)
        part = np.partition(a, k - 1, axis=dim)
        assert np.array_equal(np.sort(np.take(part, range(k), axis=dim), axis=dim), v.numpy())


def test_topk_of_a_vocabulary_batch():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 50257)).astype(np.float32)
    v, i = ferric.topk(ferric.tensor(a), 50)
    want = np.argsort(-a, axis=1, kind="stable")[:, :50]  # no ties among normals
    assert np.array_equal(i.numpy(), want)
    assert np.array_equal(v.numpy(), np.take_along_axis(a, want, 1))


def test_zero_size_and_0d():
    e = ferric.ones(2, 0)
    assert ferric.sort(e, 1).values.shape == (2, 0)
    assert ferric.topk(e, 0).indices.shape == (2, 0)
    assert ferric.topk(ferric.ones(0, 3), 2).values.shape == (0, 2)
    assert ferric.kthvalue(ferric.ones(0, 3), 1, 1).values.shape == (0,)
    assert ferric.mode(e, 0).values.shape == (0,)
    assert math.isnan(ferric.median(ferric.ones(0)).item())
    s = ferric.tensor(5.0)
    for r in (s.sort(), s.topk(1), s.kthvalue(1), s.median(0), s.mode(), s.sort(0, True)):
        assert r.values.shape == () and r.values.item() == 5.0 and r.indices.item() == 0
    assert ferric.argsort(s).item() == 0 and ferric.msort(s).item() == 5.0


def test_named_tuples_and_no_sort_():
    r = ferric.tensor([2.0, 1.0]).sort()
    assert type(r).__name__ == "sort" and r._fields == ("values", "indices")
    assert type(ferric.topk(ferric.ones(2), 1)).__name__ == "topk"
    assert not hasattr(ferric.Tensor, "sort_")  # PyTorch has none either


GRAD_OPS = {
    "sort": lambda x: x.sort(1, descending=True).values,
    "sort(0)": lambda x: ferric.sort(x, 0).values,
    "msort": lambda x: x.msort(),
    "topk": lambda x: x.topk(2).values,
    "topk(0, smallest)": lambda x: x.topk(2, 0, largest=False).values,
    "kthvalue": lambda x: x.kthvalue(2, 1).values,
    "kthvalue(keepdim)": lambda x: x.kthvalue(1, 0, True).values,
    "median(dim)": lambda x: x.median(1).values,
    "nanmedian(dim)": lambda x: x.nanmedian(0, True).values,
    "median()": lambda x: x.median(),
    "nanmedian()": lambda x: x.nanmedian(),
    "mode": lambda x: x.mode(1).values,
}


@pytest.mark.parametrize("name", GRAD_OPS)
def test_gradcheck(name):
    rng = np.random.default_rng(3)
    x = ferric.tensor(rng.standard_normal((3, 5)), dtype=ferric.float64, requires_grad=True)
    assert gradcheck(GRAD_OPS[name], (x,))


def test_gradients_go_to_the_indices():
    x = ferric.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    v, i = x.topk(2)
    (v * ferric.tensor([[10.0, 1.0], [10.0, 1.0]])).sum().backward()
    assert x.grad.tolist() == [[10.0, 0.0, 1.0], [0.0, 10.0, 1.0]]
    assert v.grad_fn.name() == "TopkBackward0"
    x = ferric.tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True)
    x.median().backward()  # the median's value is shared by its ties, as max() does
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
    x.grad = None
    x.sort(descending=True).values.sum().backward(create_graph=True)
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_integer_and_bool_inputs():
    b = ferric.tensor([True, False, True])
    assert b.sort().indices.tolist() == [1, 0, 2]
    assert b.mode().values.item() is True
    i = ferric.tensor([3, -1, 3, 7])
    assert i.topk(2).values.dtype == ferric.int64
    assert i.kthvalue(2).values.item() == 3 and i.median().item() == 3
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        b.topk(1)


def test_default_sort_orders_ties_like_pytorch_on_long_rows():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, (3, 70)).astype(np.float64)
    a[0, ::7] = np.nan
    for desc in (False, True):
        i = ferric.tensor(a).sort(descending=desc).indices.numpy()
        assert np.array_equal(i, np.stack([std_sort(r, desc) for r in a]))
    i = ferric.tensor(a.T).sort(0).indices.numpy()  # along a strided dim
    assert np.array_equal(i.T, np.stack([std_sort(r) for r in a]))
    big = rng.integers(0, 5, 40000)  # PyTorch's 1-d int64 radix path is stable
    assert np.array_equal(ferric.tensor(big).sort().indices.numpy(),
                          np.argsort(big, kind="stable"))


def test_unique_dim_is_not_supported_yet():
    with pytest.raises(NotImplementedError, match="dim"):
        ferric.unique(ferric.ones(2, 2), dim=0)
