"""The op tables in ``src/ops/table.rs`` are the single place an op is declared; these
tests check that everything generated from a row exists and agrees with the row, and
that every row has the tests the spec table gives (``tests/specs``). Rows are read from
``ferric._core._op_table()``."""

from __future__ import annotations

import numpy as np
import op_specs as S
import pytest

import ferric
import ferric.nn.functional as F

ROWS = ferric._core._op_table()
SPEC_NAMES = {s.name for s in S.SPECS}
SPEC_FORMS = {f for s in S.SPECS for f in s.forms}


def _ids(rows):
    return [r["variant"] for r in rows]


def test_the_tables_have_rows_and_unique_variants():
    assert len(ROWS) >= 40
    variants = _ids(ROWS)
    assert len(variants) == len(set(variants))
    assert {r["family"] for r in ROWS} >= {"unary", "predicate"}


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_methods_and_functions_exist(row):
    for m in row["methods"]:
        assert callable(getattr(ferric.Tensor, m, None)), f"Tensor.{m}"
        assert callable(getattr(ferric, m, None)), f"ferric.{m}"
    for m in row["inplace"]:
        assert callable(getattr(ferric.Tensor, m, None)), f"Tensor.{m}"
    first_inplace = row["inplace"][:1]
    for m in first_inplace:
        # the in-place form is a module function exactly when the row says so
        assert hasattr(ferric, m) == row["fn_inplace"], f"ferric.{m}"


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_has_spec_rows_for_every_spelling(row):
    """Each method, alias and in-place form is exercised by the spec table (values against
    NumPy on every layout variant and dtype); rows without methods are nn.functional
    activations (or have a binding of their own, like ``round(decimals=)``) and need a
    spec under their name."""
    if row["methods"]:
        assert row["methods"][0] in SPEC_NAMES, row["name"]
        for m in row["methods"]:
            assert "Tensor." + m in SPEC_FORMS, m
        for m in row["inplace"]:
            assert "Tensor." + m in SPEC_FORMS, m
        if row["fn_inplace"]:
            assert row["inplace"][0] in SPEC_FORMS
    else:
        fn = getattr(F, row["name"], None) or getattr(ferric, row["name"], None)
        assert callable(fn), row["name"]
        assert any(n.split("(")[0] == row["name"] for n in SPEC_NAMES), row["name"]


@pytest.mark.parametrize("row", [r for r in ROWS if r["nested"] and r["methods"]],
                         ids=_ids([r for r in ROWS if r["nested"] and r["methods"]]))
def test_nested_rows_apply_to_packed_values(row):
    rng = np.random.default_rng(0)
    parts = [rng.uniform(0.2, 0.9, size=(n, 3)) for n in (2, 4)]
    nt = ferric.nested.nested_tensor([ferric.tensor(p) for p in parts])
    for m in row["methods"]:
        out = getattr(nt, m)()
        for got, p in zip(out.unbind(), parts):
            want = getattr(ferric.tensor(p), m)()
            np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("row", [r for r in ROWS if r["differentiable"] and r["methods"]],
                         ids=_ids([r for r in ROWS if r["differentiable"] and r["methods"]]))
def test_differentiable_rows_record_their_node(row):
    x = ferric.tensor([0.3, 0.6], dtype=ferric.float64, requires_grad=True)
    y = getattr(x, row["methods"][0])()
    camel = "".join(w.capitalize() for w in row["name"].split("_"))
    assert y.grad_fn.name() == f"{camel}Backward0"


@pytest.mark.parametrize("row", [r for r in ROWS if not r["differentiable"]],
                         ids=_ids([r for r in ROWS if not r["differentiable"]]))
def test_rows_without_a_rule_record_nothing(row):
    x = ferric.tensor([0.3, 0.6], dtype=ferric.float64, requires_grad=True)
    y = getattr(x, row["methods"][0])()
    assert y.grad_fn is None and not y.requires_grad
