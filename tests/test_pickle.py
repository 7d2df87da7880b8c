"""Pickling and copying of tensors, parameters and modules, with PyTorch's semantics:

* pickle: values, dtype, shape, requires_grad and Python attributes survive; ``.grad``
  does not (as in PyTorch); a view is saved as its own elements;
* copy.copy: a new tensor object sharing memory (PyTorch does the same);
* copy.deepcopy: independent memory, ``.grad`` copied, non-leaf tensors refused;
* a payload from a newer pickle format raises a clear error.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import ferric
from ferric import _pickle, nn


def _base(dtype):
    return ferric.from_numpy((np.arange(24) % 5 - 2).astype(dtype).reshape(4, 6).copy())


LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "step-sliced": lambda t: t[::2, 1::3],
    "expanded": lambda t: t[:1].expand(3, 6),
    "zero-size": lambda t: t[:0],
    "0-d": lambda t: t[2, 3],
}
DTYPES = ["float32", "float64", "int64", "bool"]


def _same(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("proto", [2, pickle.HIGHEST_PROTOCOL])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pickle_round_trip(layout, dtype, proto):
    t = LAYOUTS[layout](_base(dtype))
    r = pickle.loads(pickle.dumps(t, protocol=proto))
    _same(r, t)
    assert not r.requires_grad and r.grad_fn is None
    if t.numel() > 1:
        assert r.data_ptr() != t.data_ptr()
    # the loaded tensor owns writable memory of its own (even from an expanded view)
    if r.numel() and dtype != "bool":
        r.add_(1)
        np.testing.assert_array_equal(r.numpy(), t.numpy() + 1)


def test_pickle_keeps_requires_grad_not_grad_not_history():
    x = ferric.ones(3, requires_grad=True)
    x.grad = ferric.full((3,), 7.0)
    r = pickle.loads(pickle.dumps(x))
    assert r.requires_grad and r.is_leaf and r.grad is None
    y = x * 2  # a non-leaf pickles as a fresh leaf, as in PyTorch
    ry = pickle.loads(pickle.dumps(y))
    assert ry.requires_grad and ry.is_leaf and ry.tolist() == [2.0, 2.0, 2.0]


def test_pickle_keeps_python_attributes_and_subclass():
    t = ferric.zeros(2)
    t.note = "hello"
    assert pickle.loads(pickle.dumps(t)).note == "hello"

    s = _Sub(ferric.arange(3.0))
    s.tag = 5
    r = pickle.loads(pickle.dumps(s))
    assert type(r) is _Sub and r.tag == 5 and r.tolist() == [0.0, 1.0, 2.0]


class _Sub(ferric.Tensor):
    def __new__(cls, data):
        out = ferric.Tensor.__new__(cls)
        out.data = data
        return out


def test_copy_copy_shares_memory():
    t = ferric.arange(4.0)
    c = copy.copy(t)
    assert c is not t and c.data_ptr() == t.data_ptr()
    c[0] = -5.0
    assert t[0].item() == -5.0
    v = ferric.arange(10.0)[1::3]
    cv = copy.copy(v)
    assert cv.stride() == v.stride() and cv.data_ptr() == v.data_ptr()
    x = ferric.ones(2, requires_grad=True)
    cx = copy.copy(x)
    assert cx.requires_grad and cx.is_leaf and cx.data_ptr() == x.data_ptr()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_deepcopy_is_independent(layout, dtype):
    t = LAYOUTS[layout](_base(dtype))
    d = copy.deepcopy(t)
    _same(d, t)
    if t.numel() > 0:
        assert d.data_ptr() != t.data_ptr()


def test_deepcopy_copies_grad_and_refuses_non_leaves():
    x = ferric.ones(3, requires_grad=True)
    x.grad = ferric.full((3,), 7.0)
    d = copy.deepcopy(x)
    assert d.requires_grad and d.grad.tolist() == [7.0] * 3
    assert d.grad.data_ptr() != x.grad.data_ptr()
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)
    # the memo keeps aliasing: one tensor referenced twice is copied once
    pair = copy.deepcopy([x, x])
    assert pair[0] is pair[1]


def test_parameter_pickle_copy_deepcopy():
    p = nn.Parameter(ferric.tensor([1.0, 2.0]))
    p.grad = ferric.ones(2)
    for r in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert type(r) is nn.Parameter and r.requires_grad and r.grad is None
        assert r.tolist() == [1.0, 2.0] and r.data_ptr() != p.data_ptr()
    frozen = nn.Parameter(ferric.zeros(1), requires_grad=False)
    assert not pickle.loads(pickle.dumps(frozen)).requires_grad
    c = copy.copy(p)
    assert type(c) is nn.Parameter and c.data_ptr() == p.data_ptr()


def test_module_deepcopy_and_pickle_give_independent_parameters():
    ferric.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = ferric.randn(5, 3)
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        np.testing.assert_array_equal(clone(x).detach().numpy(), m(x).detach().numpy())
        for (n1, p1), (n2, p2) in zip(m.named_parameters(), clone.named_parameters(),
                                      strict=True):
            assert n1 == n2 and type(p2) is nn.Parameter and p2.requires_grad
            assert p1.data_ptr() != p2.data_ptr()
        with ferric.no_grad():
            clone[0].weight.fill_(0.0)
        assert m[0].weight.abs().sum().item() > 0


# ------------------------------------------------------------------ format versions

def _payload(fn, version):
    args = (version, np.zeros(2, np.float32), "float32", (2,), False)

    class Forged:
        def __reduce__(self):
            return (fn, args)

    return pickle.dumps(Forged())


@pytest.mark.parametrize("fn,what", [(_pickle._rebuild_tensor, "tensor"),
                                     (_pickle._rebuild_parameter, "parameter")])
def test_newer_format_is_refused_clearly(fn, what):
    data = _payload(fn, _pickle._FORMAT_VERSION + 1)
    with pytest.raises(RuntimeError, match=f"this {what} was saved by a newer version of ferric"):
        pickle.loads(data)
    assert pickle.loads(_payload(fn, _pickle._FORMAT_VERSION)).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("version", [0, "1", None])
def test_invalid_format_is_refused(version):
    with pytest.raises(RuntimeError, match="invalid ferric pickle format"):
        pickle.loads(_payload(_pickle._rebuild_tensor, version))


def test_mismatched_payload_is_refused():
    bad = (1, np.zeros(3, np.float32), "float64", (3,), False)
    with pytest.raises(RuntimeError, match="does not match the recorded dtype float64"):
        _pickle._rebuild_tensor(*bad)
