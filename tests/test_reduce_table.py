"""The reduction table (``src/ops/reduce_table.rs``) is the single place a reduction is
declared; these tests check that what is generated from each row (the binding, its
docstring, ``out=``, ``dtype=``, the autograd node, nested support) agrees with the row,
and that every row has spec rows (``tests/specs/reduce.py``). Rows are read from
``ferric._core._op_table()`` (family ``"reduction"``)."""

from __future__ import annotations

import op_specs as S
import pytest

import ferric
import ferric.nested

ROWS = [r for r in ferric._core._op_table() if r["family"] == "reduction"]
SPEC_NAMES = {s.name for s in S.SPECS}


def _ids(rows):
    return [r["name"] for r in rows]


def _x(requires_grad=False):
    return ferric.tensor([[1.0, -2.0, 3.0, 0.5], [0.5, 4.0, -1.5, 2.0], [2.0, 1.0, 0.0, -1.0]],
                         dtype=ferric.float64, requires_grad=requires_grad)


def _call(row, x, **kw):
    """``ferric.<name>(x, dim=0)``: every sig takes ``dim`` by keyword."""
    return getattr(ferric, row["name"])(x, dim=0, **kw)


def _tensors(r):
    return list(r) if isinstance(r, tuple) else [r]


def test_the_table_covers_the_reduce_family():
    names = set(_ids(ROWS))
    assert len(names) == len(ROWS)
    assert names >= {
        "sum", "mean", "prod", "nansum", "nanmean", "amax", "amin", "max", "min", "argmax",
        "argmin", "all", "any", "std", "var", "std_mean", "var_mean", "logsumexp", "norm",
        "count_nonzero", "cumsum", "cumprod", "cummax", "cummin", "aminmax",
    }


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_binding_exists_with_a_spec(row):
    assert callable(getattr(ferric, row["name"], None))
    for m in row["methods"]:
        assert callable(getattr(ferric.Tensor, m, None)), f"Tensor.{m}"
    # var_mean/std_mean are functions only, as in PyTorch
    assert bool(row["methods"]) == (row["sig"] != "VarMean")
    # spec rows are named by the call (`max()`, `max(dim)`) or the bare name
    assert row["name"] in SPEC_NAMES or any(n.startswith(row["name"] + "(") for n in SPEC_NAMES), \
        f"no spec row for {row['name']}"


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_docstring_is_composed_from_the_row(row):
    doc = getattr(ferric, row["name"]).__doc__
    first, _, rest = doc.partition("\n")
    assert first.startswith(row["name"] + "(input")
    assert first.endswith(" -> " + row["returns"])
    assert ("out=None" in first) == (row["out"] != "no")
    assert row["doc"] in doc
    args = rest.split("Args:\n", 1)[1].split("\nExample:\n", 1)[0]
    assert ("    out (" in args) == (row["out"] != "no")
    assert ("    dtype (" in args) == row["dtype"]
    assert ("    keepdim (" in args) == row["keepdim"]
    assert ">>> ferric." in doc


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_out_column(row):
    x = _x()
    if row["out"] == "no":
        with pytest.raises(TypeError):
            _call(row, x, out=ferric.empty(0))
        return
    want = _call(row, x)
    outs = [ferric.empty(0, dtype=t.dtype) for t in _tensors(want)]
    got = _call(row, x, out=tuple(outs) if row["out"] == "pair" else outs[0])
    assert all(g is o for g, o in zip(_tensors(got), outs, strict=True))
    for g, w in zip(_tensors(got), _tensors(want), strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tolist() == w.tolist()
    if row["tuple"]:
        assert type(got).__name__ == row["tuple"]


@pytest.mark.parametrize("row", [r for r in ROWS if r["dtype"]],
                         ids=_ids([r for r in ROWS if r["dtype"]]))
def test_row_dtype_column(row):
    x = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
    kw = {"p": 2.0} if row["name"] == "norm" else {}
    r = getattr(ferric, row["name"])(x, dim=0, dtype=ferric.float64, **kw)
    assert r.dtype == ferric.float64


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_grad_column(row):
    r = _tensors(_call(row, _x(requires_grad=True)))[0]
    if row["grad"] == "none":
        assert not r.requires_grad
        assert not row["differentiable"]
        return
    assert r.requires_grad and row["differentiable"]
    if row["grad"] != "composed":
        assert r.grad_fn.name() == row["grad"]


def _nested():
    return ferric.nested.nested_tensor([ferric.ones(2, 3), ferric.ones(4, 3)])


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_nested_column(row):
    nt = _nested()
    if row["nested"]:
        r = getattr(nt, row["name"])(dim=-1)
        assert isinstance(_tensors(r)[0], ferric.nested.NestedTensor)
        assert getattr(ferric.nested.NestedTensor, row["name"]).__doc__.startswith(row["doc"])
    elif row["methods"]:
        with pytest.raises(NotImplementedError):
            getattr(nt, row["name"])(dim=-1)
