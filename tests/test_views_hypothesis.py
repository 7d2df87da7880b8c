"""Property tests for the view algebra: random chains of view ops applied to a ferric
tensor and to a NumPy array in parallel must agree on shape, values, strides and storage
offset, and views must share memory with their base. The Hypothesis profile in
conftest.py is deterministic (``derandomize``) and modest (150 examples)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import ferric as F

DTYPES = ["float32", "float64", "int64", "bool"]


def values(shape, dtype):
    n = math.prod(shape)
    if dtype == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    return np.arange(n).astype(dtype).reshape(shape)


def offset_of(a, base):
    return (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // a.itemsize


def shares(a, base):
    return a.size > 0 and np.may_share_memory(a, base)


@st.composite
def base_arrays(draw):
    nd = draw(st.integers(0, 4))
    # zero-size dims are allowed but rare
    shape = tuple(draw(st.integers(0, 5) if draw(st.integers(0, 9)) == 0 else st.integers(1, 5))
                  for _ in range(nd))
    return values(shape, draw(st.sampled_from(DTYPES)))


def reshape_targets(shape):
    n = math.prod(shape)
    out = [(-1,), tuple(shape) + (1,), (1,) + tuple(shape)]
    if n > 0:
        out += [(d, n // d) for d in range(1, n + 1) if n % d == 0]
        out += [(d, -1, 1) for d in range(1, n + 1) if n % d == 0]
    if len(shape) >= 2:
        out.append(tuple(shape[:-2]) + (shape[-2] * shape[-1],))
    return out


def step(data, x, a):
    """Applies one random view op to ferric ``x`` and NumPy ``a``; returns the new pair,
    the op's description and whether it was a pure view (reshape may copy)."""
    nd = a.ndim
    ops = ["unsqueeze", "expand_new", "reshape"]
    if nd:
        ops += ["slice", "transpose", "permute", "narrow", "movedim", "squeeze_all"]
        if any(s >= 1 for s in a.shape):
            ops.append("select")
        if 1 in a.shape:
            ops += ["squeeze", "expand"]
    if nd <= 2:
        ops.append("t")
    if nd >= 2:
        ops.append("mT")
    op = data.draw(st.sampled_from(ops))
    dim = st.integers(-nd, nd - 1) if nd else st.just(0)
    if op == "slice":
        d = data.draw(st.integers(0, nd - 1))
        n = a.shape[d]
        s = slice(data.draw(st.one_of(st.none(), st.integers(-n - 2, n + 2))),
                  data.draw(st.one_of(st.none(), st.integers(-n - 2, n + 2))),
                  data.draw(st.one_of(st.none(), st.integers(1, 3))))
        key = (slice(None),) * d + (s,)
        return x[key], a[key], f"[{key}]"
    if op == "transpose":
        d0, d1 = data.draw(dim), data.draw(dim)
        return x.transpose(d0, d1), np.swapaxes(a, d0, d1), f"transpose({d0}, {d1})"
    if op == "permute":
        p = data.draw(st.permutations(range(nd)))
        return x.permute(*p), a.transpose(p), f"permute{tuple(p)}"
    if op == "movedim":
        s, t = data.draw(dim), data.draw(dim)
        return x.movedim(s, t), np.moveaxis(a, s, t), f"movedim({s}, {t})"
    if op == "t":
        return x.t(), a.T, "t()"
    if op == "mT":
        return x.mT, np.swapaxes(a, -1, -2), "mT"
    if op == "unsqueeze":
        d = data.draw(st.integers(-nd - 1, nd))
        return x.unsqueeze(d), np.expand_dims(a, d), f"unsqueeze({d})"
    if op == "squeeze":
        d = data.draw(st.sampled_from([i for i, s in enumerate(a.shape) if s == 1]))
        return x.squeeze(d), a.squeeze(d), f"squeeze({d})"
    if op == "squeeze_all":
        return x.squeeze(), a.reshape([s for s in a.shape if s != 1]), "squeeze()"
    if op == "expand":
        new = tuple(data.draw(st.integers(0, 3)) if s == 1 else -1 for s in a.shape)
        target = tuple(a.shape[i] if s == -1 else s for i, s in enumerate(new))
        return x.expand(*new), np.broadcast_to(a, target), f"expand{new}"
    if op == "expand_new":
        k = data.draw(st.integers(1, 3))
        return x.expand(k, *a.shape), np.broadcast_to(a, (k,) + a.shape), f"expand({k}, ...)"
    if op == "narrow":
        d = data.draw(st.integers(0, nd - 1))
        start = data.draw(st.integers(0, a.shape[d]))
        length = data.draw(st.integers(0, a.shape[d] - start))
        key = (slice(None),) * d + (slice(start, start + length),)
        return x.narrow(d, start, length), a[key], f"narrow({d}, {start}, {length})"
    if op == "select":
        d = data.draw(st.sampled_from([i for i, s in enumerate(a.shape) if s >= 1]))
        i = data.draw(st.integers(-a.shape[d], a.shape[d] - 1))
        key = (slice(None),) * d + (i, Ellipsis)  # Ellipsis: NumPy keeps a 0-d view
        return x.select(d, i), a[key], f"select({d}, {i})"
    target = data.draw(st.sampled_from(reshape_targets(a.shape)))
    return x.reshape(*target), a.reshape(target), f"reshape{target}"


def assert_same(x, a, base, base_np, where):
    assert tuple(x.shape) == a.shape, where
    assert x.dtype.__repr__().endswith(a.dtype.name), where
    np.testing.assert_array_equal(x.numpy(), a, err_msg=where)
    if shares(a, base_np) and x.numel() > 0:
        # same memory layout as NumPy's view: offset and the strides that matter
        assert x.storage_offset() == offset_of(a, base_np), where
        for d in range(a.ndim):
            if a.shape[d] > 1:
                assert x.stride(d) == a.strides[d] // a.itemsize, (where, d)


def view_chain(data, x, a, fewest, most):
    """``fewest`` to ``most`` random view steps from ``x`` and its NumPy mirror ``a``: the
    last view, its mirror and the trail of the steps taken."""
    trail = "base"
    for _ in range(data.draw(st.integers(fewest, most))):
        x, a, desc = step(data, x, a)
        trail += "." + desc
    return x, a, trail


@given(st.data(), base_arrays())
def test_view_chains_match_numpy(data, base_np):
    base = F.tensor(base_np)
    x, a, trail = base, base_np, "base"
    for _ in range(data.draw(st.integers(1, 6))):
        x, a, desc = step(data, x, a)
        trail += "." + desc
        assert_same(x, a, base, base_np, trail)
        # NumPy's reshape copies exactly when no view is possible; ferric must agree
        assert shares(x.numpy(), base.numpy()) == shares(a, base_np), trail


@given(st.data(), base_arrays())
def test_views_write_through_to_base(data, base_np):
    base = F.tensor(base_np)
    mirror_base = base_np.copy()
    x, a, trail = view_chain(data, base, mirror_base, 1, 5)
    if not shares(a, mirror_base) or 0 in a.strides and a.size > 1:
        return  # a copy, or an expanded view (writing it is an error: test_errors)
    new = values(a.shape, a.dtype.name)
    new = ~new if a.dtype == bool else new + 100
    x.copy_(F.tensor(new))
    a_w = np.lib.stride_tricks.as_strided(
        mirror_base.reshape(-1)[offset_of(a, mirror_base):], a.shape, a.strides)
    a_w[...] = new
    np.testing.assert_array_equal(base.numpy(), mirror_base, err_msg=trail)
    np.testing.assert_array_equal(x.numpy(), new, err_msg=trail)


@given(st.data(), base_arrays())
def test_reshape_is_a_view_when_contiguous(data, base_np):
    base = F.tensor(base_np)
    x, a, trail = view_chain(data, base, base_np, 0, 4)
    target = data.draw(st.sampled_from(reshape_targets(a.shape)))
    r = x.reshape(*target)
    want = a.reshape(target)
    assert tuple(r.shape) == want.shape
    np.testing.assert_array_equal(r.numpy(), want)
    if x.is_contiguous() and x.numel() > 0:
        assert shares(r.numpy(), base.numpy()), f"{trail}.reshape{target} copied"
    # view() succeeds exactly when reshape() did not need to copy
    is_view = shares(want, a) or x.numel() == 0
    try:
        v = x.view(*target)
    except RuntimeError as e:
        assert not is_view, f"{trail}.view{target}: {e}"
    else:
        assert is_view or x.numel() <= 1, f"{trail}.view{target} should have failed"
        np.testing.assert_array_equal(v.numpy(), want)


@given(st.data(), base_arrays())
def test_contiguous_copies_only_when_needed(data, base_np):
    base = F.tensor(base_np)
    x, a = base, base_np
    for _ in range(data.draw(st.integers(0, 4))):
        x, a, _desc = step(data, x, a)
    c = x.contiguous()
    assert c.is_contiguous()
    np.testing.assert_array_equal(c.numpy(), a)
    if x.is_contiguous():
        assert c is x
    elif x.numel() > 0:
        assert not shares(c.numpy(), base.numpy())
    # PyTorch's contiguity ignores the strides of size-1 dims, like NumPy's flags
    assert x.is_contiguous() == (a.flags.c_contiguous or a.size <= 1 or
                                 _contiguous_ignoring_ones(a))


def _contiguous_ignoring_ones(a):
    expected = 1
    for s, st_ in reversed(list(zip(a.shape, a.strides, strict=True))):
        if s == 0:
            return True
        if s != 1:
            if st_ // a.itemsize != expected:
                return False
            expected *= s
    return True
