"""Idioms from the public PyTorch tutorials that ferric got wrong when the tutorials were
run under ``import ferric as torch`` (values and messages as PyTorch 2.13 gives them)."""

from __future__ import annotations

import pytest

import ferric


def test_index_with_a_python_range():
    # "What is torch.nn really?": input[range(target.shape[0]), target]
    x = ferric.arange(6.0).view(3, 2)
    got = x[range(3), ferric.tensor([0, 1, 0])]
    assert got.tolist() == [0.0, 3.0, 4.0]
    assert x[range(1, 3)].tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert x[range(0)].shape == (0, 2)
    y = ferric.zeros(3, 2)
    y[range(3), ferric.tensor([1, 0, 1])] = 7.0
    assert y.tolist() == [[0.0, 7.0], [7.0, 0.0], [0.0, 7.0]]


@pytest.mark.parametrize(("a", "b", "message"), [
    ((4, 3, 2), (4, 3), "The size of tensor a (2) must match the size of tensor b (3) at "
                        "non-singleton dimension 2"),
    ((2, 3), (3, 2), "The size of tensor a (3) must match the size of tensor b (2) at "
                     "non-singleton dimension 1"),
    ((5, 1, 4), (2, 3), "The size of tensor a (4) must match the size of tensor b (3) at "
                        "non-singleton dimension 2"),
])
def test_broadcast_error_names_the_trailing_mismatch(a, b, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ferric.ones(*a) * ferric.ones(*b)
