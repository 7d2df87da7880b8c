"""layer_norm gives PyTorch's bits for float32 and float64, on every row-length shape
of PyTorch's row-moment algorithm (a tail only, part of a vector chunk, whole chunks,
several merge levels, a tail after them), with and without weight and bias. Values
recorded from PyTorch 2.13.0 (tests/fixtures/layer_norm_bits/generate.py); the inputs
are rebuilt here from the same seeds. (A plain two-pass mean and variance differed from
PyTorch's by an ulp in about a third of the rows, which showed in the printed losses of
transformer scripts.)
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "layer_norm_bits")
sys.path.insert(0, HERE)
from layer_norm_inputs import EPS, inputs  # noqa: E402

FIXTURE = np.load(os.path.join(HERE, "layer_norm_bits.npz"))
CASES = sorted(k for k in FIXTURE.files if k != "torch")


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("case", CASES)
def test_layer_norm_matches_pytorch_bit_for_bit(case):
    dtype, n, form = case.split("_")
    n = int(n)
    x, w, b = inputs(n, dtype)
    wt = ferric.from_numpy(w) if "w" in form else None
    bt = ferric.from_numpy(b) if "b" in form else None
    y = F.layer_norm(ferric.from_numpy(x), (n,), wt, bt, EPS).numpy()
    want = FIXTURE[case]
    bad = np.flatnonzero(_bits(y) != _bits(want))
    assert bad.size == 0, (f"{bad.size} of {y.size} elements differ, first at {bad[0]}: "
                           f"{y.reshape(-1)[bad[0]]!r} vs {want.reshape(-1)[bad[0]]!r}")


def test_module_and_strided_input_take_the_same_path():
    # nn.LayerNorm, and a transposed (non-contiguous) input, give the same bits
    x, w, b = inputs(64, "float32")
    ln = ferric.nn.LayerNorm(64)
    with ferric.no_grad():
        ln.weight.copy_(ferric.from_numpy(w))
        ln.bias.copy_(ferric.from_numpy(b))
        got = ln(ferric.from_numpy(np.ascontiguousarray(x.T)).t()).numpy()
    np.testing.assert_array_equal(_bits(got), _bits(FIXTURE["float32_64_wb"]))


def test_the_fixture_states_pytorchs_version():
    assert str(FIXTURE["torch"]).startswith("2.13")
