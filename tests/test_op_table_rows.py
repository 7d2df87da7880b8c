"""The op tables in ``src/ops/table.rs`` are the single place an op is declared; these
tests check that everything generated from a row exists and agrees with the row, and
that every row has the tests the spec table gives (``tests/specs``). Rows are read from
``ferric._core._op_table()``."""

from __future__ import annotations

import re

import numpy as np
import op_specs as S
import pytest

import ferric
import ferric.nn.functional as F
from ferric import _extra_nn

# the elementwise tables; the reduction rows are checked in test_reduce_table.py
ROWS = [r for r in ferric._core._op_table() if r["family"] != "reduction"]
SPEC_NAMES = {s.name for s in S.SPECS}
SPEC_FORMS = {f for s in S.SPECS for f in s.forms}


def _ids(rows):
    return [r["variant"] for r in rows]


def _call(row, m, x):
    """``x.m()`` for unary rows, ``x.m(x)`` for binary ones."""
    return getattr(x, m)(x) if row["family"] == "binary" else getattr(x, m)()


# Arith rows whose kernels exist for integers only (PyTorch's gcd_cpu / lcm_cpu)
INT_ONLY = {"gcd", "lcm"}


def _ints(row):
    return row.get("kind") == "Bitwise" or row["name"] in INT_ONLY


def _input(row, dtype=ferric.float64, requires_grad=False):
    if _ints(row):
        return ferric.tensor([3, 6])
    return ferric.tensor([0.3, 0.6], dtype=dtype, requires_grad=requires_grad)


def test_the_tables_have_rows_and_unique_variants():
    assert len(ROWS) >= 40
    variants = _ids(ROWS)
    assert len(variants) == len(set(variants))
    assert {r["family"] for r in ROWS} == {"unary", "predicate", "binary"}


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_methods_and_functions_exist(row):
    for m in row["methods"]:
        assert callable(getattr(ferric.Tensor, m, None)), f"Tensor.{m}"
        assert callable(getattr(ferric, m, None)), f"ferric.{m}"
    for m in row["inplace"]:
        assert callable(getattr(ferric.Tensor, m, None)), f"Tensor.{m}"
    first_inplace = row["inplace"][:1]
    for m in first_inplace:
        # the in-place form is a module function exactly when the row says so, or when
        # PyTorch has it at the top level and ferric adds it in Python (_extra_nn)
        python_form = m in _extra_nn._INPLACE
        assert hasattr(ferric, m) == (row["fn_inplace"] or python_form), f"ferric.{m}"
        if python_form and not row["fn_inplace"]:
            assert getattr(ferric, m) is getattr(_extra_nn, m), f"ferric.{m}"


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_row_has_spec_rows_for_every_spelling(row):
    """Each method, alias and in-place form is exercised by the spec table (values against
    NumPy on every layout variant and dtype); rows without methods are nn.functional
    activations (or have a binding of their own, like ``round(decimals=)``) and need a
    spec under their name."""
    if row["methods"]:
        assert row["name"] in SPEC_NAMES or row["methods"][0] in SPEC_NAMES, row["name"]
        for m in row["methods"]:
            assert "Tensor." + m in SPEC_FORMS, m
        for m in row["inplace"]:
            assert "Tensor." + m in SPEC_FORMS, m
        if row["fn_inplace"]:
            assert row["inplace"][0] in SPEC_FORMS
    elif row["name"].startswith("special_"):
        # torch.special-only rows: ferric.special.<name> calls them by name
        short = row["name"][len("special_"):]
        assert callable(getattr(ferric.special, short, None)), row["name"]
        assert any(n.split("(")[0] == "special." + short for n in SPEC_NAMES), row["name"]
    else:
        fn = getattr(F, row["name"], None) or getattr(ferric, row["name"], None)
        assert callable(fn), row["name"]
        assert any(n.split("(")[0] == row["name"] for n in SPEC_NAMES), row["name"]


@pytest.mark.parametrize("row", [r for r in ROWS if r["nested"] and r["methods"]],
                         ids=_ids([r for r in ROWS if r["nested"] and r["methods"]]))
def test_nested_rows_apply_to_packed_values(row):
    rng = np.random.default_rng(0)
    parts = [rng.uniform(0.2, 0.9, size=(n, 3)) for n in (2, 4)]
    if _ints(row):
        parts = [(p * 10).astype(np.int64) for p in parts]
    nt = ferric.nested.nested_tensor([ferric.tensor(p) for p in parts])
    for m in row["methods"]:
        out = _call(row, m, nt)
        for got, p in zip(out.unbind(), parts, strict=True):
            want = _call(row, m, ferric.tensor(p))
            np.testing.assert_array_equal(got.numpy(), want.numpy())


# rows whose PyTorch node is not their capitalised name: square is pow(x, 2) there, and
# fmod / remainder by a tensor (as `_call` passes) are the second overloads
NODE_SPELLINGS = {"square": "PowBackward0", "fmod": "FmodBackward1",
                  "remainder": "RemainderBackward1"}


@pytest.mark.parametrize("row", [r for r in ROWS if r["differentiable"] and r["methods"]],
                         ids=_ids([r for r in ROWS if r["differentiable"] and r["methods"]]))
def test_differentiable_rows_record_their_node(row):
    x = _input(row, requires_grad=True)
    y = _call(row, row["methods"][0], x)
    # PyTorch's codegen: words and letters after a digit start upper-case (Log1P)
    camel = re.sub(r"(?<=\d)([a-z])", lambda m: m.group(1).upper(),
                   "".join(w.capitalize() for w in row["name"].split("_")))
    want = NODE_SPELLINGS.get(row["name"], f"{camel}Backward0")
    assert y.grad_fn.name() == want


NO_RULE = [r for r in ROWS
           if not r["differentiable"] and r["methods"] and not r.get("backward_raises")]
RAISES = [r for r in ROWS if r.get("backward_raises")]


@pytest.mark.parametrize("row", RAISES, ids=_ids(RAISES))
def test_rows_without_a_derivative_record_a_node_whose_backward_raises(row):
    x = _input(row, requires_grad=True)
    y = _call(row, row["methods"][0], x)
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match=f"derivative for aten::{row['name']} is not"):
        y.sum().backward()


@pytest.mark.parametrize("row", NO_RULE, ids=_ids(NO_RULE))
def test_rows_without_a_rule_record_nothing(row):
    x = _input(row, requires_grad=not _ints(row))
    y = _call(row, row["methods"][0], x)
    assert y.grad_fn is None and not y.requires_grad


BINARY = [r for r in ROWS if r["family"] == "binary"]


@pytest.mark.parametrize("row", BINARY, ids=_ids(BINARY))
def test_binary_rows_forms_agree(row):
    """Operators, methods, aliases, module functions and in-place forms of a binary row
    compute the same values (the spec table checks the values themselves)."""
    rng = np.random.default_rng(1)
    if _ints(row):
        a_np, b_np = rng.integers(-9, 9, (3, 4)), rng.integers(1, 9, (3, 4))
    else:
        a_np, b_np = rng.uniform(0.5, 3, (3, 4)), rng.uniform(0.5, 3, (3, 4))
    a, b = ferric.tensor(a_np), ferric.tensor(b_np)
    want = getattr(ferric, row["methods"][0])(a, b) if row["methods"] else None
    for m in row["methods"]:
        np.testing.assert_array_equal(getattr(a, m)(b).numpy(), want.numpy())
        np.testing.assert_array_equal(getattr(ferric, m)(a, b).numpy(), want.numpy())
    if row["dunders"]:
        fwd = getattr(a, row["dunders"][0])(b)
        if want is not None:
            np.testing.assert_array_equal(fwd.numpy(), want.numpy())
        if len(row["dunders"]) == 3:
            rev = getattr(b, row["dunders"][1])(a)
            np.testing.assert_array_equal(rev.numpy(), fwd.numpy())
            c = a.clone()
            getattr(c, row["dunders"][2])(b)
            np.testing.assert_array_equal(c.numpy(), fwd.numpy())
    for m in row["inplace"]:
        c = a.clone()
        getattr(c, m)(b)
        np.testing.assert_array_equal(c.numpy(), want.numpy())
    if row["tensor_only"]:
        with pytest.raises(TypeError, match=r"argument 'other' \(position 1\) must be Tensor"):
            getattr(a, row["methods"][0])(2)
