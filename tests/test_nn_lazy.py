"""Lazy modules and uninitialized parameters beyond the PyTorch-recorded cases in
tests/test_nn_breadth.py (seeded weights, reprs, errors): materialization in place,
state-dict loading into an uninitialized module, and the class swap."""

from __future__ import annotations

import copy

import pytest

import ferric
from ferric import nn


def test_materialize_keeps_the_object():
    m = nn.LazyLinear(3)
    w = m.weight
    assert m.has_uninitialized_params()
    m(ferric.ones(2, 4))
    assert m.weight is w and type(w) is nn.Parameter and w.shape == (3, 4)
    assert not hasattr(m, "_initialize_hook")
    assert type(m) is nn.Linear


def test_optimizer_built_after_first_call_trains():
    m = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    x = ferric.randn(8, 3)
    m(x)
    opt = ferric.optim.SGD(m.parameters(), lr=0.1)
    before = m[0].weight.detach().clone()
    m(x).pow(2).mean().backward()
    opt.step()
    assert not ferric.equal(before, m[0].weight.detach())


def test_load_state_dict_materializes():
    src = nn.Conv2d(3, 5, 3)
    lazy = nn.LazyConv2d(5, 3)
    lazy.load_state_dict(src.state_dict())
    assert not lazy.has_uninitialized_params()
    x = ferric.randn(1, 3, 6, 6)
    assert ferric.equal(lazy(x), src(x))
    assert type(lazy) is nn.Conv2d


def test_lazy_batchnorm_buffers_are_plain_tensors():
    m = nn.LazyBatchNorm2d()
    m(ferric.randn(2, 3, 4, 4))
    assert type(m.running_mean) is ferric.Tensor
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                    "num_batches_tracked"]
    assert int(m.num_batches_tracked) == 1


def test_uninitialized_parameter_api():
    p = nn.UninitializedParameter(dtype=ferric.float64)
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        p.size()
    q = copy.deepcopy(p)
    assert type(q) is nn.UninitializedParameter
    p.materialize(3)
    assert p.dtype == ferric.float64 and p.shape == (3,) and p.requires_grad
    b = nn.UninitializedBuffer()
    b.materialize((2, 2))
    assert b.shape == (2, 2)


def test_deepcopy_of_uninitialized_module():
    m = copy.deepcopy(nn.LazyLinear(2))
    assert m(ferric.ones(1, 3)).shape == (1, 2)


@pytest.mark.parametrize(("lazy", "cls", "shape", "weight"), [
    (lambda: nn.LazyConv3d(4, 2, groups=2), nn.Conv3d, (1, 6, 3, 3, 3), (4, 3, 2, 2, 2)),
    (lambda: nn.LazyConvTranspose3d(4, 2), nn.ConvTranspose3d, (1, 6, 2, 2, 2),
     (6, 4, 2, 2, 2)),
    (lambda: nn.LazyConv1d(2, 3), nn.Conv1d, (5, 4), (2, 5, 3)),
])
def test_lazy_convs_infer_channels(lazy, cls, shape, weight):
    m = lazy()
    m(ferric.randn(*shape))
    assert type(m) is cls and tuple(m.weight.shape) == weight
