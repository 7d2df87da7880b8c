"""ferric.nested: every supported op against the same op applied item by item to
ordinary float64 tensors (values and gradients), gradcheck on the segment ops, the
nn-layer dispatch, and the error table."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F
from ferric import nested, nn
from ferric.autograd import gradcheck

F64 = ferric.float64
LENGTHS = (3, 1, 5, 0, 2)     # includes an empty item
NONEMPTY = (3, 1, 5, 2)       # for per-item max / RNNs
D = 4


def arrays(lengths, trail=(D,), seed=0, positive=False):
    rng = np.random.default_rng(seed)
    out = [rng.uniform(-1.5, 1.5, size=(n, *trail)) for n in lengths]
    return [np.abs(a) + 0.5 for a in out] if positive else out


def leaves(arrs):
    return [ferric.tensor(a, dtype=F64, requires_grad=True) for a in arrs]


def assert_close(actual, expected, tol=1e-10):
    a = actual.detach().numpy() if isinstance(actual, ferric.Tensor) else np.asarray(actual)
    e = expected.detach().numpy() if isinstance(expected, ferric.Tensor) else expected
    assert a.shape == np.shape(e), (a.shape, np.shape(e))
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True)


def run_against_loop(nested_fn, item_fn, lengths=LENGTHS, trail=(D,), kind="nested",
                     grad=True, positive=False, seed=0):
    """``nested_fn(nt)`` vs ``item_fn(item)`` on every item: values, then gradients of
    a random weighting of the outputs with respect to the component tensors."""
    arrs = arrays(lengths, trail, seed, positive)
    xs, refs_in = leaves(arrs), leaves(arrs)
    out = nested_fn(nested.as_nested_tensor(xs))
    refs = [item_fn(t) for t in refs_in]
    rng = np.random.default_rng(seed + 1)
    if kind == "nested":
        assert isinstance(out, nested.NestedTensor)
        items = out.unbind()
        assert len(items) == len(refs)
        for got, want in zip(items, refs, strict=True):
            assert got.dtype == want.dtype
            assert_close(got, want)
        pairs = list(zip(items, refs, strict=True))
    else:
        assert isinstance(out, ferric.Tensor)
        want = ferric.stack(refs, 0) if kind == "dense" else refs[0]
        assert_close(out, want)
        pairs = [(out, want)]
    if not grad:
        return out
    loss = loss_ref = 0.0
    for got, want in pairs:
        w = ferric.tensor(rng.uniform(-1, 1, size=tuple(want.shape)), dtype=F64)
        loss = loss + (got * w).sum()
        loss_ref = loss_ref + (want * w).sum()
    loss.backward()
    loss_ref.backward()
    for a, b in zip(xs, refs_in, strict=True):
        assert_close(a.grad, b.grad)
    return out


# ---------------------------------------------------------------------- row-wise ops

UNARY = [
    ("relu", lambda x: x.relu()), ("tanh", lambda x: x.tanh()),
    ("sigmoid", lambda x: x.sigmoid()), ("exp", lambda x: x.exp()),
    ("abs", lambda x: x.abs()), ("neg", lambda x: -x), ("sin", lambda x: x.sin()),
    ("clamp", lambda x: x.clamp(-0.5, 0.7)), ("square", lambda x: x.square()),
    ("pow_scalar", lambda x: x ** 3), ("rpow", lambda x: 2.0 ** x),
    ("radd", lambda x: 1.5 + x), ("rsub", lambda x: 2 - x), ("rdiv", lambda x: 3.0 / (x * x + 1)),
    ("erf", lambda x: x.erf()), ("to_same", lambda x: x.to(F64) * 2),
    ("F.relu", F.relu), ("F.gelu", F.gelu),
    ("F.gelu_tanh", lambda x: F.gelu(x, approximate="tanh")),
    ("F.silu", F.silu), ("F.elu", F.elu), ("F.selu", F.selu), ("F.celu", F.celu),
    ("F.leaky_relu", lambda x: F.leaky_relu(x, 0.2)), ("F.softplus", F.softplus),
    ("F.mish", F.mish), ("F.logsigmoid", F.logsigmoid), ("F.hardtanh", F.hardtanh),
    ("F.relu6", lambda x: F.relu6(x * 5)), ("F.hardsigmoid", F.hardsigmoid),
    ("F.hardswish", F.hardswish), ("F.softsign", F.softsign), ("F.tanhshrink", F.tanhshrink),
    ("F.hardshrink", F.hardshrink), ("F.softshrink", F.softshrink),
    ("F.threshold", lambda x: F.threshold(x, 0.1, -2.0)), ("F.sigmoid", F.sigmoid),
    ("F.tanh", F.tanh), ("nn.GELU", nn.GELU()), ("nn.ReLU", nn.ReLU()),
    ("F.dropout_eval", lambda x: F.dropout(x, 0.5, training=False)),
]
POSITIVE = [("log", lambda x: x.log()), ("sqrt", lambda x: x.sqrt()),
            ("rsqrt", lambda x: x.rsqrt()), ("reciprocal", lambda x: x.reciprocal())]


@pytest.mark.parametrize("name,fn", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn):
    run_against_loop(fn, fn)


@pytest.mark.parametrize("name,fn", POSITIVE, ids=[u[0] for u in POSITIVE])
def test_unary_positive_domain(name, fn):
    run_against_loop(fn, fn, positive=True)


def _other(seed, shape=(D,)):
    return ferric.tensor(np.random.default_rng(seed).uniform(0.5, 1.5, size=shape), dtype=F64)


W_D, W_1D = _other(5), _other(6, (1, D))
PER_ITEM = _other(7, (len(LENGTHS), 1, D))
BINARY_DENSE = [
    ("add_vec", lambda x: x + W_D, lambda x, i: x + W_D),
    ("mul_row", lambda x: x * W_1D, lambda x, i: x * W_1D),
    ("rsub_vec", lambda x: W_D - x, lambda x, i: W_D - x),
    ("div_vec", lambda x: x / W_D, lambda x, i: x / W_D),
    ("rtruediv_vec", lambda x: W_D / (x * x + 1), lambda x, i: W_D / (x * x + 1)),
    ("per_item", lambda x: x * PER_ITEM, lambda x, i: x * PER_ITEM[i]),
    ("per_item_add", lambda x: PER_ITEM + x, lambda x, i: x + PER_ITEM[i]),
    ("maximum_vec", lambda x: x.maximum(W_D - 1), lambda x, i: x.maximum(W_D - 1)),
    ("add_alpha", lambda x: x.add(W_D, alpha=2.5), lambda x, i: x.add(W_D, alpha=2.5)),
    ("scalar_0d", lambda x: x * ferric.tensor(3.0, dtype=F64), lambda x, i: x * 3.0),
]


@pytest.mark.parametrize("name,fn,ref", BINARY_DENSE, ids=[b[0] for b in BINARY_DENSE])
def test_binary_with_dense(name, fn, ref):
    counter = iter(range(len(LENGTHS)))
    run_against_loop(fn, lambda x: ref(x, next(counter)))


BINARY_NESTED = [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / (b * b + 1)), ("pow", lambda a, b: (a * a + 1) ** b),
    ("maximum", lambda a, b: a.maximum(b)), ("atan2", lambda a, b: a.atan2(b)),
    ("method_mul", lambda a, b: a.mul(b)),
]


@pytest.mark.parametrize("name,fn", BINARY_NESTED, ids=[b[0] for b in BINARY_NESTED])
def test_binary_nested_same_structure(name, fn):
    other = arrays(LENGTHS, seed=9)
    others = [ferric.tensor(a, dtype=F64) for a in other]
    ob = nested.nested_tensor(others)   # a separately built tensor with equal lengths
    counter = iter(range(len(LENGTHS)))
    run_against_loop(lambda nt: fn(nt, ob), lambda x: fn(x, others[next(counter)]))


def test_comparisons_and_bool_results():
    nt = nested.nested_tensor(arrays(LENGTHS))
    for op in (lambda x: x > 0.2, lambda x: x <= 0.0, lambda x: 0.5 < x, lambda x: x == x,
               lambda x: x.isnan(), lambda x: x.ne(0.1)):
        got = op(nt)
        assert got.dtype == ferric.bool
        for g, item in zip(got.unbind(), nt.unbind(), strict=True):
            assert g.tolist() == op(item).tolist()


def test_inplace_ops_return_self_and_update_values():
    arrs = arrays(LENGTHS)
    nt = nested.nested_tensor(arrs)
    assert nt.mul_(2.0) is nt and nt.add_(W_D) is nt and nt.relu_() is nt
    assert F.relu(nt, inplace=True) is nt
    for got, a in zip(nt.unbind(), arrs, strict=True):
        assert_close(got, np.maximum(a * 2 + W_D.numpy(), 0))


def test_dropout_training_keeps_structure():
    ferric.manual_seed(0)
    nt = nested.nested_tensor([np.ones((n, D)) for n in LENGTHS])
    out = F.dropout(nt, 0.5, training=True)
    vals = out.values().numpy()
    assert out.shape == nt.shape and set(np.unique(vals)) <= {0.0, 2.0}
    assert 0 < (vals == 0).sum() < vals.size


# ---------------------------------------------------------------------- linear / norms

W_IN, B_IN = _other(11, (3, D)), _other(12, (3,))
W_B = _other(13, (len(NONEMPTY), D, 2))
LINEAR = [
    ("matmul_2d", lambda x: x @ W_IN.t(), NONEMPTY),
    ("matmul_1d", lambda x: x.matmul(W_D), LENGTHS),
    ("F.linear", lambda x: F.linear(x, W_IN, B_IN), LENGTHS),
    ("F.linear_nobias", lambda x: F.linear(x, W_IN), LENGTHS),
    ("layer_norm", lambda x: F.layer_norm(x, (D,), W_D, W_D - 1), LENGTHS),
    ("rms_norm", lambda x: F.rms_norm(x, (D,), W_D), LENGTHS),
]


@pytest.mark.parametrize("name,fn,lengths", LINEAR, ids=[r[0] for r in LINEAR])
def test_linear_and_norms(name, fn, lengths):
    run_against_loop(fn, fn, lengths=lengths)


def test_matmul_with_per_item_matrices():
    counter = iter(range(len(NONEMPTY)))
    run_against_loop(lambda nt: nt.matmul(W_B), lambda x: x @ W_B[next(counter)],
                     lengths=NONEMPTY)


def test_nn_linear_module_and_parameter_grads():
    ferric.manual_seed(0)
    lin = nn.Linear(D, 3).double()
    arrs = arrays(LENGTHS)
    out = lin(nested.nested_tensor(arrs))
    (out * out).sum().backward()
    g_nested = lin.weight.grad.clone()
    lin.weight.grad = None
    sum((lin(ferric.tensor(a, dtype=F64)) ** 2).sum() for a in arrs).backward()
    assert_close(g_nested, lin.weight.grad)


def test_embedding_of_nested_indices():
    emb = nn.Embedding(10, 3).double()
    idx = nested.nested_tensor([[1, 2, 3], [4], [9, 0]])
    out = emb(idx)
    assert out.shape[2] == 3
    for o, i in zip(out.unbind(), idx.unbind(), strict=True):
        assert_close(o, emb(i))


# ---------------------------------------------------------------------- reductions

REDUCE = [
    ("sum_ragged", lambda x: x.sum(dim=1), lambda x: x.sum(0), "dense", LENGTHS),
    ("sum_ragged_keep", lambda x: x.sum(1, keepdim=True), lambda x: x.sum(0, keepdim=True),
     "dense", LENGTHS),
    ("sum_trailing", lambda x: x.sum(dim=-1), lambda x: x.sum(-1), "nested", LENGTHS),
    ("sum_trailing_keep", lambda x: x.sum(2, keepdim=True), lambda x: x.sum(1, keepdim=True),
     "nested", LENGTHS),
    ("sum_both", lambda x: x.sum(dim=(1, 2)), lambda x: x.sum(), "dense", LENGTHS),
    ("sum_both_keep", lambda x: x.sum(dim=(1, 2), keepdim=True),
     lambda x: x.sum((0, 1), keepdim=True), "dense", LENGTHS),
    ("mean_ragged", lambda x: x.mean(dim=1), lambda x: x.mean(0), "dense", NONEMPTY),
    ("mean_ragged_empty_is_nan", lambda x: x.mean(dim=1), lambda x: x.sum(0) / x.shape[0],
     "dense", LENGTHS),
    ("mean_both", lambda x: x.mean(dim=(1, 2)), lambda x: x.mean(), "dense", NONEMPTY),
    ("mean_trailing", lambda x: x.mean(-1), lambda x: x.mean(-1), "nested", LENGTHS),
    ("amax_ragged", lambda x: x.amax(dim=1), lambda x: x.amax(0), "dense", NONEMPTY),
    ("amin_both", lambda x: x.amin(dim=(1, 2)), lambda x: x.amin((0, 1)), "dense", NONEMPTY),
    ("max_ragged", lambda x: x.max(dim=1).values, lambda x: x.max(0).values, "dense", NONEMPTY),
    ("min_ragged_keep", lambda x: x.min(1, keepdim=True).values,
     lambda x: x.min(0, keepdim=True).values, "dense", NONEMPTY),
    ("max_trailing", lambda x: x.max(dim=2).values, lambda x: x.max(1).values, "nested",
     LENGTHS),
    ("amax_trailing", lambda x: x.amax(-1), lambda x: x.amax(-1), "nested", LENGTHS),
    ("softmax_trailing", lambda x: x.softmax(-1), lambda x: x.softmax(-1), "nested", LENGTHS),
    ("softmax_ragged", lambda x: x.softmax(dim=1), lambda x: x.softmax(0), "nested", LENGTHS),
    ("F.softmax_ragged", lambda x: F.softmax(x * 30, dim=1), lambda x: F.softmax(x * 30, 0),
     "nested", LENGTHS),
    ("log_softmax_ragged", lambda x: x.log_softmax(1), lambda x: x.log_softmax(0), "nested",
     LENGTHS),
    ("F.log_softmax_trailing", lambda x: F.log_softmax(x, dim=2), lambda x: x.log_softmax(1),
     "nested", LENGTHS),
]


@pytest.mark.parametrize("name,fn,ref,kind,lengths", REDUCE, ids=[r[0] for r in REDUCE])
def test_reductions_and_softmax(name, fn, ref, kind, lengths):
    run_against_loop(fn, ref, lengths=lengths, kind=kind)


def test_reduction_indices_and_whole_tensor_reductions():
    arrs = arrays(NONEMPTY)
    nt = nested.nested_tensor(arrs)
    got = nt.max(dim=1)
    assert got.indices.tolist() == [np.argmax(a, 0).tolist() for a in arrs]
    assert nt.min(dim=-1).indices.unbind()[2].tolist() == np.argmin(arrs[2], 1).tolist()
    flat = np.concatenate(arrs)
    assert_close(nt.sum(), flat.sum())
    assert_close(nt.mean(), flat.mean())
    assert_close(nt.max(), flat.max())
    assert_close(nt.sum(dim=(0, 1)), flat.sum(0))
    assert nested.nested_tensor([[True, False], [True]]).sum(dim=1).tolist() == [1, 1]


def test_gradcheck_segment_ops():
    arrs = arrays((2, 3, 1), trail=(2,), seed=3)
    xs = leaves(arrs)

    def fn(*items):
        nt = nested.as_nested_tensor(list(items))
        return (nt.softmax(1) * nt).sum(1) + nt.mean(1) + nt.amax(1)

    assert gradcheck(fn, tuple(xs))


def test_gradgradcheck_attention_and_segment_ops():
    xs = leaves(arrays((2, 3), trail=(2,), seed=5))

    def fn(*items):
        nt = nested.as_nested_tensor(list(items))
        q = nt.unflatten(-1, (1, 2)).transpose(1, 2)
        att = F.scaled_dot_product_attention(q, q, q).transpose(1, 2).flatten(-2)
        return (att.softmax(1) * nt).sum(1) + nt.amax(1)

    assert ferric.autograd.gradgradcheck(fn, tuple(xs))


def test_unbind_views_refuse_in_place_writes_with_autograd():
    # PyTorch 2.13: "Output 0 of UnbindBackwardAutogradNestedTensor0 is a view and is
    # being modified inplace ..." (the items are views of one multi-output op)
    a = ferric.ones(2, 3, requires_grad=True)
    b = ferric.ones(1, 3, requires_grad=True)
    y = nested.as_nested_tensor([a, b]) * 1.0
    with pytest.raises(RuntimeError, match="is a view and is being modified inplace"):
        y.unbind()[0].mul_(2)
    assert y.values().tolist() == [[1.0] * 3] * 3
    with ferric.no_grad():
        y.unbind()[0].mul_(2)
    assert y.values().tolist() == [[2.0] * 3, [2.0] * 3, [1.0] * 3]


# ---------------------------------------------------------------------- attention

def _sdpa_case(lengths, heads, causal, scale=None, cross=False):
    E = 4
    qa = arrays(lengths, (E,), seed=20)
    ka = arrays([n + 1 for n in lengths] if cross else lengths, (E,), seed=21)
    va = arrays([n + 1 for n in lengths] if cross else lengths, (E,), seed=22)
    qs, ks, vs = leaves(qa), leaves(ka), leaves(va)
    rq, rk, rv = leaves(qa), leaves(ka), leaves(va)

    def split(nt):
        return nt if heads is None else nt.unflatten(-1, (heads, E // heads)).transpose(1, 2)

    def merge(nt):
        return nt if heads is None else nt.transpose(1, 2).flatten(-2)

    out = merge(F.scaled_dot_product_attention(
        split(nested.as_nested_tensor(qs)), split(nested.as_nested_tensor(ks)),
        split(nested.as_nested_tensor(vs)), is_causal=causal, scale=scale))
    total = ref_total = 0.0
    for i, (q, k, v) in enumerate(zip(rq, rk, rv, strict=True)):
        def item_split(t):
            return t if heads is None else t.unflatten(-1, (heads, E // heads)).transpose(0, 1)
        ref = F.scaled_dot_product_attention(item_split(q), item_split(k), item_split(v),
                                             is_causal=causal, scale=scale)
        ref = ref if heads is None else ref.transpose(0, 1).flatten(-2)
        got = out.unbind()[i]
        assert_close(got, ref)
        w = _other(30 + i, tuple(ref.shape))
        total = total + (got * w).sum()
        ref_total = ref_total + (ref * w).sum()
    total.backward()
    ref_total.backward()
    for a, b in zip(qs + ks + vs, rq + rk + rv, strict=True):
        assert_close(a.grad, b.grad)


@pytest.mark.parametrize("heads", [None, 2])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_per_item(heads, causal):
    _sdpa_case(NONEMPTY, heads, causal)


def test_sdpa_cross_attention_scale_and_empty_query():
    _sdpa_case((2, 0, 3), 2, False, scale=0.3, cross=True)


def test_sdpa_dense_path_unchanged():
    q = _other(40, (2, 3, 4))
    ref = ((q @ q.transpose(-2, -1)) / 2.0).softmax(-1) @ q
    assert_close(F.scaled_dot_product_attention(q, q, q), ref)


def test_multihead_attention_nested_matches_per_item():
    ferric.manual_seed(0)
    mha = nn.MultiheadAttention(D, 2, batch_first=True).double()
    arrs = arrays(NONEMPTY)
    x = nested.as_nested_tensor(leaves(arrs))
    out, weights = mha(x, x, x, need_weights=False)
    assert weights is None
    for got, a in zip(out.unbind(), arrs, strict=True):
        item = ferric.tensor(a, dtype=F64).unsqueeze(0)
        assert_close(got, mha(item, item, item, need_weights=False)[0][0])
    out.sum().backward()
    g = mha.in_proj_weight.grad.clone()
    mha.zero_grad()
    for a in arrs:
        item = ferric.tensor(a, dtype=F64).unsqueeze(0)
        mha(item, item, item, need_weights=False)[0].sum().backward()
    assert_close(g, mha.in_proj_weight.grad)
    # cross-attention with other lengths, and a causal mask per item
    mem = nested.nested_tensor(arrays((2, 4, 1, 3), seed=3))
    out, _ = mha(x, mem, mem, need_weights=False)
    for got, a, m in zip(out.unbind(), arrs, mem.unbind(), strict=True):
        item = ferric.tensor(a, dtype=F64).unsqueeze(0)
        assert_close(got, mha(item, m.unsqueeze(0), m.unsqueeze(0), need_weights=False)[0][0])
    causal, _ = mha(x, x, x, need_weights=False, is_causal=True)
    a = ferric.tensor(arrs[2], dtype=F64).unsqueeze(0)
    mask = nn.Transformer.generate_square_subsequent_mask(5).double()
    ref = mha(a, a, a, need_weights=False, attn_mask=mask)[0][0]
    assert_close(causal.unbind()[2], ref)


# ---------------------------------------------------------------------- RNNs

RNNS = [
    ("LSTM", lambda: nn.LSTM(D, 3, batch_first=True)),
    ("GRU_2layer_bidir", lambda: nn.GRU(D, 3, num_layers=2, bidirectional=True)),
    ("RNN_relu", lambda: nn.RNN(D, 3, nonlinearity="relu", batch_first=True)),
]


@pytest.mark.parametrize("name,make", RNNS, ids=[r[0] for r in RNNS])
def test_rnn_nested_matches_per_item(name, make):
    ferric.manual_seed(0)
    rnn = make().double()
    arrs = arrays(NONEMPTY)
    xs = leaves(arrs)
    out, hidden = rnn(nested.as_nested_tensor(xs))
    h_n = hidden[0] if name == "LSTM" else hidden
    loss = out.sum(dim=(1, 2)).sum() + h_n.sum()
    loss.backward()
    ref_x = leaves(arrs)
    for i, x in enumerate(ref_x):
        seq = x.unsqueeze(0) if rnn.batch_first else x.unsqueeze(1)
        o, h = rnn(seq)
        o = o[0] if rnn.batch_first else o[:, 0]
        hh = h[0] if name == "LSTM" else h
        assert_close(out.unbind()[i], o)
        assert_close(h_n[:, i], hh[:, 0])
        (o.sum() + hh.sum()).backward()
    for a, b in zip(xs, ref_x, strict=True):
        assert_close(a.grad, b.grad)


# ---------------------------------------------------------------------- structure

def test_shape_size_and_repr():
    nt = nested.nested_tensor([np.zeros((2, 3)), np.zeros((5, 3))])
    j = nt.size(1)
    assert nt.shape == (2, j, 3) and nt.dim() == 3 and len(nt) == 2 and nt.numel() == 21
    assert repr(nt.shape) == f"ferric.Size([2, {j!r}, 3])" and repr(j).startswith("j")
    assert (nt * 2).shape[1] == j and nested.nested_tensor([np.ones((2, 3)),
                                                            np.ones((5, 3))]).size(1) == j
    assert nested.nested_tensor([np.ones((2, 3))]).size(1) != j
    assert nt.size(-1) == 3 and nt.offsets().tolist() == [0, 2, 7] and nt.lengths() is None
    assert repr(nt).startswith(f"NestedTensor(size=(2, {j!r}, 3), offsets=tensor([0, 2, 7])")
    assert nt.is_nested and nt.layout is ferric.jagged and nt.is_contiguous()
    assert nt.dtype == F64 and not nt.requires_grad


def test_nested_tensor_copies_as_nested_tensor_keeps_history():
    a = ferric.ones(2, 3, requires_grad=True)
    b = ferric.ones(1, 3, requires_grad=True)
    leaf = nested.nested_tensor([a, b], requires_grad=True)
    assert leaf.is_leaf and leaf.requires_grad and leaf.grad_fn is None
    (leaf * 2).sum().backward()
    assert a.grad is None and leaf.grad.values().tolist() == [[2.0] * 3] * 3
    view = nested.as_nested_tensor([a, b])
    assert not view.is_leaf and view.grad_fn is not None
    (view * 3).sum().backward()
    assert a.grad.tolist() == [[3.0] * 3] * 2 and b.grad.tolist() == [[3.0] * 3]
    # nested_tensor copies: writing to it leaves the inputs alone
    c = ferric.zeros(2, 2)
    nested.nested_tensor([c]).values().fill_(5.0)
    assert c.tolist() == [[0.0, 0.0]] * 2


LAYOUT_ITEMS = [
    ("transposed", lambda: ferric.arange(12.).reshape(3, 4).t()),
    ("step_sliced", lambda: ferric.arange(24.).reshape(6, 4)[::2]),
    ("expanded", lambda: ferric.arange(4.).reshape(1, 4).expand(3, 4)),
    ("zero_rows", lambda: ferric.zeros(0, 3)),
]


@pytest.mark.parametrize("name,make", LAYOUT_ITEMS, ids=[r[0] for r in LAYOUT_ITEMS])
def test_items_of_any_layout(name, make):
    item = make()
    other = ferric.ones(2, item.shape[1])
    nt = nested.nested_tensor([item, other])
    got = nt.unbind()
    assert got[0].tolist() == item.tolist() and got[1].tolist() == other.tolist()
    assert_close(nt.sum(dim=1), ferric.stack([item.sum(0), other.sum(0)]))


def test_to_padded_and_back():
    arrs = arrays(LENGTHS)
    xs = leaves(arrs)
    nt = nested.as_nested_tensor(xs)
    padded = nt.to_padded_tensor(-1.0)
    assert tuple(padded.shape) == (5, 5, D)
    for i, a in enumerate(arrs):
        assert_close(padded[i, :len(a)], a)
        assert (padded[i, len(a):].detach().numpy() == -1.0).all()
    big = nested.to_padded_tensor(nt, 0.0, output_size=(6, 7, D + 1))
    assert tuple(big.shape) == (6, 7, D + 1) and big[5].abs().sum().item() == 0
    (padded * 2).sum().backward()
    assert all((x.grad.numpy() == 2).all() for x in xs)
    # back: narrow() with per-item lengths, masked_select with a mask
    lengths = ferric.tensor(list(LENGTHS))
    back = nested.narrow(padded, 1, 0, lengths, layout=ferric.jagged)
    for got, a in zip(back.unbind(), arrs, strict=True):
        assert_close(got, a)
    mask = ferric.arange(5).unsqueeze(0) < lengths.unsqueeze(1)
    for got, a in zip(nested.masked_select(padded, mask).unbind(), arrs, strict=True):
        assert_close(got, a)
    shifted = nested.narrow(padded, 1, ferric.tensor([1, 0, 0, 2, 1]), 1)
    assert_close(shifted.values(), np.stack([padded[i, s].detach().numpy()
                                             for i, s in enumerate([1, 0, 0, 2, 1])]))


def test_nested_tensor_from_jagged():
    values = ferric.arange(12., requires_grad=True).reshape(6, 2)
    nt = nested.nested_tensor_from_jagged(values, ferric.tensor([0, 2, 6]))
    assert nt.values() is values and [t.shape[0] for t in nt] == [2, 4]
    gaps = nested.nested_tensor_from_jagged(values, ferric.tensor([0, 3, 6]),
                                            lengths=ferric.tensor([1, 2]))
    assert gaps.values().tolist() == [[0., 1.], [6., 7.], [8., 9.]]
    by_len = nested.nested_tensor_from_jagged(values, lengths=ferric.tensor([5, 1]))
    assert by_len.offsets().tolist() == [0, 5, 6]
    heads = nested.nested_tensor_from_jagged(ferric.zeros(3, 6, 2), ferric.tensor([0, 2, 6]),
                                             jagged_dim=2)
    assert heads.shape[3] == 2 and heads.unbind()[1].shape == (3, 4, 2)


def test_views_transpose_unflatten_flatten_reshape():
    arrs = arrays(NONEMPTY, trail=(6,))
    nt = nested.nested_tensor(arrs)
    h = nt.unflatten(-1, (2, 3)).transpose(1, 2)
    assert h.shape[1] == 2 and h.shape[2] == nt.shape[1] and h.shape[3] == 3
    for got, a in zip(h.unbind(), arrs, strict=True):
        assert_close(got, a.reshape(-1, 2, 3).transpose(1, 0, 2))
    back = h.transpose(1, 2).flatten(-2)
    assert_close(back.values(), nt.values())
    assert_close(h.transpose(2, 3).unbind()[0], arrs[0].reshape(-1, 2, 3).transpose(1, 2, 0))
    assert_close(nt.reshape(4, -1, 3, 2).unbind()[1], arrs[1].reshape(-1, 3, 2))
    assert_close(nt.view(4, nt.size(1), 6).values(), nt.values())
    assert_close(nt.unsqueeze(-1).squeeze(-1).values(), nt.values())
    assert_close(h.sum(dim=1).unbind()[0], arrs[0].reshape(-1, 2, 3).sum(1))
    assert_close(h.softmax(-1).unbind()[2],
                 ferric.tensor(arrs[2]).reshape(-1, 2, 3).softmax(-1).transpose(0, 1))


# ---------------------------------------------------------------------- errors

def _nt(lengths=(2, 3)):
    return nested.nested_tensor([np.ones((n, D)) for n in lengths])


ERRORS = [
    ("trailing_mismatch", lambda: nested.nested_tensor([ferric.ones(2, 4), ferric.ones(3, 4),
                                                        ferric.ones(1, 5)]),
     RuntimeError, "item 0 has shape (2, 4) but item 2 has shape (1, 5)"),
    ("dtype_mismatch", lambda: nested.as_nested_tensor(
        [ferric.ones(2, 4), ferric.ones(1, 4, dtype=F64)]),
     RuntimeError, "item 0 is ferric.float32 but item 1 is ferric.float64"),
    ("ndim_mismatch", lambda: nested.nested_tensor([ferric.ones(2, 4), ferric.ones(2)]),
     RuntimeError, "same number of dims; item 0 has shape (2, 4) but item 1 has shape (2,)"),
    ("empty_list", lambda: nested.nested_tensor([]), RuntimeError, "empty tensor list"),
    ("zero_dim", lambda: nested.nested_tensor([ferric.tensor(1.0)]), RuntimeError,
     "zero-dim"),
    ("int_requires_grad", lambda: nested.nested_tensor([[1, 2]], requires_grad=True),
     RuntimeError, "floating point"),
    ("structure_mismatch", lambda: _nt() + _nt((3, 2)), RuntimeError,
     "same ragged structure"),
    ("dense_operand", lambda: _nt() + ferric.ones(3, D), RuntimeError,
     "cannot be broadcast with a nested tensor of shape (2, j"),
    ("sum_batch", lambda: _nt().sum(dim=0), RuntimeError, "batch dimension"),
    ("softmax_batch", lambda: _nt().softmax(0), RuntimeError, "batch dimension"),
    ("mean_int_ragged", lambda: nested.nested_tensor([[1, 2]]).mean(1), RuntimeError,
     "floating point"),
    ("max_empty_item", lambda: _nt((2, 0)).max(dim=1), RuntimeError, "item(s) [1]"),
    ("unsupported_method", lambda: _nt().cumsum(1), NotImplementedError, "cumsum()"),
    ("unsupported_property", lambda: _nt().mT, NotImplementedError, "mT()"),
    ("core_function", lambda: ferric.cumsum(_nt(), 1), TypeError, "NestedTensor"),
    ("nested_matmul_nested", lambda: _nt() @ _nt(), NotImplementedError, "nested @ nested"),
    ("dense_matmul_nested", lambda: ferric.ones(3, 3) @ _nt(), NotImplementedError,
     "dense tensor @ a nested"),
    ("linear_on_ragged", lambda: F.linear(nested.nested_tensor([[1., 2.]]), ferric.ones(2, 2)),
     RuntimeError, "include the ragged dim"),
    ("sdpa_mask", lambda: F.scaled_dot_product_attention(_nt(), _nt(), _nt(),
                                                         attn_mask=ferric.ones(2, 2)),
     NotImplementedError, "attn_mask"),
    ("sdpa_mixed", lambda: F.scaled_dot_product_attention(_nt(), ferric.ones(2, 3, D),
                                                          _nt()),
     RuntimeError, "key is a dense tensor"),
    ("sdpa_kv_lengths", lambda: F.scaled_dot_product_attention(_nt(), _nt(), _nt((1, 1))),
     RuntimeError, "same item lengths"),
    ("narrow_overflow", lambda: nested.narrow(ferric.ones(3, 4), 1, 1, ferric.tensor([2, 4, 3])),
     RuntimeError, "item(s) [1] do not fit in dim 1 of size 4"),
    ("narrow_dim", lambda: nested.narrow(ferric.ones(3, 4), 0, 0, 1), RuntimeError, "dim=1"),
    ("padded_truncate", lambda: _nt().to_padded_tensor(0.0, output_size=(2, 2, D)),
     RuntimeError, "Truncation is not supported"),
    ("padded_rank", lambda: _nt().to_padded_tensor(0.0, output_size=(2, 3)), RuntimeError,
     "Broadcasting is not supported"),
    ("ragged_int", lambda: int(_nt().size(1)), TypeError, "no single integer value"),
    ("ragged_arith", lambda: _nt().size(1) * 2, TypeError, "no single integer value"),
    ("transpose_batch", lambda: _nt().transpose(0, 1), ValueError, "batch dimension"),
    ("getitem_slice", lambda: _nt()[:, 0], NotImplementedError, "integer index"),
    ("view_bad", lambda: _nt().view(2, 5, D), RuntimeError, "cannot view shape"),
    ("unbind_dim", lambda: _nt().unbind(1), RuntimeError, "dim=0"),
    ("bool", lambda: bool(_nt()), RuntimeError, "ambiguous"),
    ("mha_weights", lambda: nn.MultiheadAttention(D, 2, batch_first=True)(_nt(), _nt(), _nt()),
     NotImplementedError, "need_weights=True"),
    ("mha_seq_first", lambda: nn.MultiheadAttention(D, 2)(_nt(), _nt(), _nt(),
                                                          need_weights=False),
     RuntimeError, "batch_first=True"),
    ("rnn_empty_item", lambda: nn.GRU(D, 2)(_nt((2, 0))), RuntimeError, "item(s) [1]"),
    ("mha_functional", lambda: F.multi_head_attention_forward(
        _nt(), _nt(), _nt(), D, 2, None, None, None, None, False, 0.0, None, None),
     NotImplementedError, "nn.MultiheadAttention"),
]


@pytest.mark.parametrize("name,call,exc,fragment", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment in str(info.value)


def test_failed_inplace_op_leaves_input_unchanged():
    nt = _nt()
    before = nt.values().tolist()
    with pytest.raises(RuntimeError):
        nt.add_(_nt((3, 2)))
    with pytest.raises(RuntimeError):
        nt.mul_(ferric.ones(3, D))
    assert nt.values().tolist() == before


# ---------------------------------------------------------------------- vs PyTorch

def test_matches_pytorch_jagged():
    torch = pytest.importorskip("torch")
    arrs = arrays(NONEMPTY, seed=4)
    nt = nested.nested_tensor(arrs)
    tn = torch.nested.nested_tensor([torch.tensor(a) for a in arrs], layout=torch.jagged)
    for fn in (lambda x: x.sum(dim=1), lambda x: x.mean(dim=1), lambda x: x.amax(dim=1),
               lambda x: x.to_padded_tensor(0.0), lambda x: x.max(dim=1).indices):
        np.testing.assert_allclose(fn(nt).numpy(), fn(tn).numpy(), rtol=1e-12)
    for fn in (lambda x: x.softmax(1), lambda x: x.log_softmax(-1),
               lambda x: (x * 2 + 1).relu()):
        np.testing.assert_allclose(fn(nt).values().numpy(), fn(tn).values().numpy(),
                                   rtol=1e-12)
    assert math.isclose(nt.sum().item(), tn.sum().item(), rel_tol=1e-12)


def test_transformer_encoder_runs_on_nested_batches():
    ferric.manual_seed(0)
    layer = nn.TransformerEncoderLayer(D, 2, dim_feedforward=8, dropout=0.0, batch_first=True,
                                       activation="gelu", norm_first=True)
    enc = nn.TransformerEncoder(layer, 2).double()
    arrs = arrays(NONEMPTY)
    out = enc(nested.nested_tensor(arrs))
    for got, a in zip(out.unbind(), arrs, strict=True):
        assert_close(got, enc(ferric.tensor(a, dtype=F64).unsqueeze(0))[0], tol=1e-9)


def test_where_masked_fill_and_empty_dim_list():
    arrs = arrays(LENGTHS)
    nt = nested.nested_tensor(arrs)
    got = nt.where(nt > 0, W_D)
    filled = nt.masked_fill(nt < 0, -7.0)
    for g, f, a in zip(got.unbind(), filled.unbind(), arrs, strict=True):
        assert_close(g, np.where(a > 0, a, W_D.numpy()))
        assert_close(f, np.where(a < 0, -7.0, a))
    assert_close(nt.sum(dim=[]), np.concatenate(arrs).sum())
    assert nested.nested_tensor([[1.0]], device="cpu", dtype=F64).dtype == F64


def test_docstring_examples():
    import doctest

    # NestedTensor's own examples run here too: its __module__ is ferric.nested
    result = doctest.testmod(nested, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 15
