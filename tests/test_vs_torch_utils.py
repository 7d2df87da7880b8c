"""``nn.utils`` (gradient clipping, parameter vectors, sequence packing), ``nn.init``
and ``utils.data`` (seeded shuffling, samplers, random_split, collation) against
PyTorch. Random draws are expected to match exactly: ferric's generator is PyTorch's
mt19937 CPU generator."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch_compat import as_lib, assert_close, np_of  # noqa: E402

import ferric  # noqa: E402

LIBS = (ferric, torch)


def _grads_params(lib, with_none=True):
    rng = np.random.default_rng(3)
    shapes = [(3, 4), (5,), (2, 2, 3), (4,)]
    ps = []
    for i, s in enumerate(shapes):
        p = as_lib(lib, rng.standard_normal(s), requires_grad=True)
        g = rng.standard_normal(s) * (i + 1)
        if not (with_none and i == 3):
            p.grad = as_lib(lib, g)
        ps.append(p)
    return ps


# -- clipping --------------------------------------------------------------------------

@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, float("inf"), "inf", -math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm(norm_type, max_norm):
    out = []
    for lib in LIBS:
        ps = _grads_params(lib)
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        out.append((total, [p.grad for p in ps]))
    assert_close(out[0][0], out[1][0], what="total norm")
    assert isinstance(out[0][0], ferric.Tensor) and out[0][0].dim() == 0
    assert_close(out[0][1], out[1][1], what="clipped grads")


def test_clip_grad_norm_single_tensor_and_float32():
    out = []
    for lib in LIBS:
        p = as_lib(lib, np.array([3.0, 4.0], dtype=np.float32), requires_grad=True)
        p.grad = as_lib(lib, np.array([30.0, -40.0], dtype=np.float32))
        total = lib.nn.utils.clip_grad_norm_(p, 5)
        out.append((total, p.grad))
    assert_close(out[0], out[1], "float32")
    assert str(out[0][0].dtype) == "ferric.float32"


def test_clip_grad_norm_empty_and_nonfinite():
    res = [lib.nn.utils.clip_grad_norm_([], 1.0) for lib in LIBS]
    assert_close(res[0], res[1])
    for lib in LIBS:
        p = as_lib(lib, np.zeros(2), requires_grad=True)
        p.grad = as_lib(lib, np.array([np.nan, 1.0]))
        with pytest.raises(RuntimeError, match="non-finite"):
            lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    nan_res = []
    for lib in LIBS:
        p = as_lib(lib, np.zeros(2), requires_grad=True)
        p.grad = as_lib(lib, np.array([np.inf, 1.0]))
        nan_res.append((lib.nn.utils.clip_grad_norm_([p], 1.0), p.grad))
    assert_close(nan_res[0], nan_res[1])


def test_get_total_norm_and_clip_grads_with_norm():
    out = []
    for lib in LIBS:
        ps = _grads_params(lib)
        grads = [p.grad for p in ps if p.grad is not None]
        total = lib.nn.utils.get_total_norm(grads, norm_type=3.0)
        lib.nn.utils.clip_grads_with_norm_(ps, 0.7, total)
        out.append((total, [p.grad for p in ps]))
    assert_close(out[0], out[1])


@pytest.mark.parametrize("clip", [0.5, 2, 100.0])
def test_clip_grad_value(clip):
    out = []
    for lib in LIBS:
        ps = _grads_params(lib)
        r = lib.nn.utils.clip_grad_value_(ps, clip)
        out.append((r, [p.grad for p in ps]))
    assert out[0][0] is None and out[1][0] is None
    assert_close(out[0][1], out[1][1])


def test_parameters_to_vector_round_trip():
    out = []
    for lib in LIBS:
        ps = _grads_params(lib)
        vec = lib.nn.utils.parameters_to_vector(ps)
        (vec * vec).sum().backward()
        new = as_lib(lib, np.arange(vec.numel(), dtype=np.float64))
        lib.nn.utils.vector_to_parameters(new, ps)
        out.append((vec, [p.grad for p in ps], [p.detach().clone() for p in ps],
                    [type(p).__name__ for p in ps], [p.requires_grad for p in ps]))
    assert_close(out[0][:3], out[1][:3])
    assert out[0][3:] == out[1][3:]


# -- sequence packing ------------------------------------------------------------------

def _seqs(lib, lengths, feat=(3,), requires_grad=False):
    rng = np.random.default_rng(sum(lengths))
    return [as_lib(lib, rng.standard_normal((n, *feat)), requires_grad=requires_grad)
            for n in lengths]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("lengths", [[4, 2, 5], [1], [3, 3]])
def test_pad_sequence(lengths, side, batch_first):
    out = []
    for lib in LIBS:
        seqs = _seqs(lib, lengths, requires_grad=True)
        padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first,
                                               padding_value=-2.5, padding_side=side)
        (padded * padded).sum().backward()
        out.append((padded, [s.grad for s in seqs]))
    assert_close(out[0], out[1])


@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_broadcasts_and_casts_like_first(batch_first):
    """Each sequence fills a slot shaped and typed like the first one: trailing size-1
    dims broadcast and other dtypes are converted."""
    out = []
    for lib in LIBS:
        a = as_lib(lib, np.arange(6.0).reshape(2, 3), requires_grad=True)
        b = as_lib(lib, np.array([[1.0], [2.0], [3.0], [4.0]]), requires_grad=True)
        c = as_lib(lib, np.array([[7, 8, 9]]))
        padded = lib.nn.utils.rnn.pad_sequence([a, b, c], batch_first=batch_first,
                                               padding_value=2.5, padding_side="left")
        (padded * padded).sum().backward()
        out.append((padded, a.grad, b.grad, str(padded.dtype).split(".")[1]))
    assert_close(out[0][:3], out[1][:3])
    assert out[0][3] == out[1][3]


def _packed_fields(p):
    return (p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)


@pytest.mark.parametrize("lengths_as", ["list", "tensor"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize(("lengths", "enforce_sorted"), [
    ([5, 3, 3, 1], True), ([5, 3, 3, 1], False), ([2, 5, 1, 5, 3], False), ([4], True)])
def test_pack_pad_round_trip(lengths, enforce_sorted, batch_first, lengths_as):
    out = []
    for lib in LIBS:
        seqs = _seqs(lib, lengths, feat=(2,))
        padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first)
        padded.requires_grad_(True)
        lens = lengths if lengths_as == "list" else as_lib(lib, np.array(lengths))
        packed = lib.nn.utils.rnn.pack_padded_sequence(
            padded, lens, batch_first=batch_first, enforce_sorted=enforce_sorted)
        un, un_lens = lib.nn.utils.rnn.pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=9.0, total_length=7)
        (un * un).sum().backward()
        out.append((_packed_fields(packed), un, un_lens, padded.grad))
    assert_close(out[0], out[1])
    assert str(out[0][2].dtype) == "ferric.int64"


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_unpack(enforce_sorted):
    lengths = [4, 3, 1] if enforce_sorted else [1, 4, 3]
    out = []
    for lib in LIBS:
        seqs = _seqs(lib, lengths, requires_grad=True)
        packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        back = lib.nn.utils.rnn.unpack_sequence(packed)
        sum((b * b).sum() for b in back).backward()
        out.append((_packed_fields(packed), back, [s.grad for s in seqs]))
    assert_close(out[0], out[1])


def test_unpad_sequence():
    out = []
    for lib in LIBS:
        padded = lib.nn.utils.rnn.pad_sequence(_seqs(lib, [3, 5, 2]), batch_first=True)
        out.append(lib.nn.utils.rnn.unpad_sequence(
            padded, as_lib(lib, np.array([3, 5, 2])), batch_first=True))
    assert_close(out[0], out[1])


# -- nn.init ---------------------------------------------------------------------------

def _init_cases():
    i = "nn.init."
    return [
        (f"{i}uniform_", lambda lib, t: lib.nn.init.uniform_(t, -0.3, 2.0), (5, 7)),
        (f"{i}normal_", lambda lib, t: lib.nn.init.normal_(t, 1.5, 0.3), (5, 7)),
        (f"{i}normal_-odd", lambda lib, t: lib.nn.init.normal_(t), (37,)),
        (f"{i}constant_", lambda lib, t: lib.nn.init.constant_(t, 0.3), (3, 4)),
        (f"{i}ones_", lambda lib, t: lib.nn.init.ones_(t), (3, 4)),
        (f"{i}zeros_", lambda lib, t: lib.nn.init.zeros_(t), (3, 4)),
        (f"{i}eye_", lambda lib, t: lib.nn.init.eye_(t), (3, 5)),
        (f"{i}dirac_", lambda lib, t: lib.nn.init.dirac_(t), (4, 3, 3, 3)),
        (f"{i}dirac_-groups", lambda lib, t: lib.nn.init.dirac_(t, 2), (6, 2, 3)),
        (f"{i}xavier_uniform_", lambda lib, t: lib.nn.init.xavier_uniform_(t), (5, 7)),
        (f"{i}xavier_uniform_-gain", lambda lib, t: lib.nn.init.xavier_uniform_(
            t, gain=lib.nn.init.calculate_gain("relu")), (4, 3, 2, 2)),
        (f"{i}xavier_normal_", lambda lib, t: lib.nn.init.xavier_normal_(t, 0.5), (6, 4)),
        (f"{i}kaiming_uniform_", lambda lib, t: lib.nn.init.kaiming_uniform_(t), (5, 7)),
        (f"{i}kaiming_uniform_-fanout-relu", lambda lib, t: lib.nn.init.kaiming_uniform_(
            t, mode="fan_out", nonlinearity="relu"), (4, 3, 3)),
        (f"{i}kaiming_uniform_-a", lambda lib, t: lib.nn.init.kaiming_uniform_(
            t, a=math.sqrt(5)), (8, 3, 2, 2)),
        (f"{i}kaiming_normal_", lambda lib, t: lib.nn.init.kaiming_normal_(t), (5, 7)),
        (f"{i}kaiming_normal_-fanout", lambda lib, t: lib.nn.init.kaiming_normal_(
            t, a=0.1, mode="fan_out", nonlinearity="leaky_relu"), (6, 2, 3)),
        (f"{i}trunc_normal_", lambda lib, t: lib.nn.init.trunc_normal_(t), (20, 30)),
        (f"{i}trunc_normal_-narrow", lambda lib, t: lib.nn.init.trunc_normal_(
            t, mean=0.5, std=2.0, a=-0.2, b=0.4), (10, 13)),
        (f"{i}trunc_normal_-shifted", lambda lib, t: lib.nn.init.trunc_normal_(
            t, mean=1.0, std=0.5, a=0.0, b=3.0), (40,)),
        (f"{i}sparse_", lambda lib, t: lib.nn.init.sparse_(t, 0.3, std=0.2), (7, 5)),
        ("Tensor.uniform_", lambda lib, t: t.uniform_(2, 3), (7, 3)),
        ("Tensor.normal_", lambda lib, t: t.normal_(0, 2), (17,)),
        ("Tensor.exponential_", lambda lib, t: t.exponential_(1.5), (9,)),
        ("Tensor.bernoulli_", lambda lib, t: t.bernoulli_(0.3), (9, 2)),
        ("Tensor.random_", lambda lib, t: t.random_(0, 10), (9,)),
        ("randn", lambda lib, t: lib.randn(3, 5, dtype=t.dtype), (1,)),
        ("randperm", lambda lib, t: lib.randperm(13), (1,)),
        ("randint", lambda lib, t: lib.randint(-3, 9, (4, 5)), (1,)),
        ("multinomial", lambda lib, t: lib.multinomial(
            as_lib(lib, np.array([0.1, 0.5, 0.2, 0.2])), 6, replacement=True), (1,)),
    ]


INIT_CASES = _init_cases()
ORTHO = [
    ("orthogonal_", lambda lib, t: lib.nn.init.orthogonal_(t), (5, 3)),
    ("orthogonal_-wide-gain", lambda lib, t: lib.nn.init.orthogonal_(t, gain=2.0), (3, 6)),
    ("orthogonal_-4d", lambda lib, t: lib.nn.init.orthogonal_(t), (4, 2, 2, 2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "fn", "shape"), INIT_CASES, ids=[c[0] for c in INIT_CASES])
def test_init_bit_identical(name, fn, shape, dtype):
    """Global seed: same values; with an explicit generator: same values and the global
    generator untouched."""
    out = []
    for lib in LIBS:
        lib.manual_seed(1234)
        t = lib.zeros(*shape, dtype=getattr(lib, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fn(lib, t)
        out.append((np_of(res), lib.rand(3).tolist()))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][0].dtype == out[1][0].dtype
    assert out[0][1] == out[1][1], "generator left in a different state"


@pytest.mark.parametrize(("name", "fn", "shape"), ORTHO, ids=[c[0] for c in ORTHO])
def test_orthogonal_init(name, fn, shape):
    """Same normal draws, then a Householder QR: equal to rounding."""
    out = []
    for lib in LIBS:
        lib.manual_seed(99)
        t = lib.zeros(*shape, dtype=lib.float64)
        out.append((fn(lib, t), lib.rand(3).tolist()))
    assert_close(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    assert out[0][1] == out[1][1]


@pytest.mark.parametrize("init", ["uniform_", "normal_", "xavier_uniform_", "kaiming_normal_",
                                  "trunc_normal_"])
def test_init_with_generator(init):
    out = []
    for lib in LIBS:
        lib.manual_seed(0)
        g = lib.Generator().manual_seed(77)
        t = lib.empty(6, 5)
        getattr(lib.nn.init, init)(t, generator=g)
        out.append((np_of(t), lib.rand(2).tolist()))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1]


@pytest.mark.parametrize(("nl", "param"), [
    ("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu", None),
    ("conv_transpose3d", None)])
def test_calculate_gain(nl, param):
    assert ferric.nn.init.calculate_gain(nl, param) == torch.nn.init.calculate_gain(nl, param)


# -- utils.data ------------------------------------------------------------------------

def _dataset(lib, n=23):
    return lib.utils.data.TensorDataset(as_lib(lib, np.arange(n) * 1.0),
                                        as_lib(lib, np.arange(n)))


def _batches(loader):
    return [b[1].tolist() for b in loader]


@pytest.mark.parametrize(("batch_size", "drop_last"), [(4, False), (4, True), (1, False),
                                                       (23, False), (30, True)])
def test_dataloader_shuffle_with_generator(batch_size, drop_last):
    orders = []
    for lib in LIBS:
        g = lib.Generator().manual_seed(2024)
        loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=batch_size,
                                           shuffle=True, generator=g, drop_last=drop_last)
        orders.append([_batches(loader) for _ in range(3)] + [len(loader)])
    assert orders[0] == orders[1]


@pytest.mark.parametrize("seed", [0, 5])
def test_dataloader_shuffle_global_seed(seed):
    """No generator: the loader draws its seeds from the global generator."""
    orders = []
    for lib in LIBS:
        lib.manual_seed(seed)
        loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=5, shuffle=True)
        first = [_batches(loader) for _ in range(2)]
        orders.append((first, lib.rand(2).tolist()))
    assert orders[0] == orders[1]


def test_dataloader_batches_and_collate():
    out = []
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(_dataset(lib, 10), batch_size=4)
        batches = list(loader)
        out.append([(np_of(x), np_of(y), str(x.dtype).split(".")[1], str(y.dtype).split(".")[1])
                    for x, y in batches])
    for (fx, fy, fxd, fyd), (tx, ty, txd, tyd) in zip(*out, strict=True):
        np.testing.assert_array_equal(fx, tx)
        np.testing.assert_array_equal(fy, ty)
        assert (fxd, fyd) == (txd, tyd)


def test_default_collate_structures():
    samples = [{"a": 1, "b": (2.5, np.array([1.0, 2.0])), "c": "x"},
               {"a": 3, "b": (0.5, np.array([3.0, 4.0])), "c": "y"}]
    f = ferric.utils.data.default_collate(samples)
    t = torch.utils.data.default_collate(samples)
    assert f["c"] == t["c"]
    for ft, tt in ((f["a"], t["a"]), (f["b"][0], t["b"][0]), (f["b"][1], t["b"][1])):
        assert_close(ft, tt)
        assert str(ft.dtype).split(".")[1] == str(tt.dtype).split(".")[1]


@pytest.mark.parametrize("make", [
    lambda lib, ds, g: lib.utils.data.RandomSampler(ds, generator=g),
    lambda lib, ds, g: lib.utils.data.RandomSampler(ds, replacement=True, num_samples=70,
                                                    generator=g),
    lambda lib, ds, g: lib.utils.data.RandomSampler(ds, num_samples=50, generator=g),
    lambda lib, ds, g: lib.utils.data.SubsetRandomSampler([3, 8, 1, 20, 7], generator=g),
    lambda lib, ds, g: lib.utils.data.WeightedRandomSampler(
        [0.1, 0.9, 0.4, 0.0, 2.0], 12, generator=g),
    lambda lib, ds, g: lib.utils.data.WeightedRandomSampler(
        [0.1, 0.9, 0.4, 0.3, 2.0], 4, replacement=False, generator=g),
    lambda lib, ds, g: lib.utils.data.BatchSampler(
        lib.utils.data.RandomSampler(ds, generator=g), 5, drop_last=True),
], ids=["random", "random-replacement", "random-num_samples", "subset", "weighted",
        "weighted-noreplace", "batch"])
def test_samplers(make):
    out = []
    for lib in LIBS:
        g = lib.Generator().manual_seed(31)
        sampler = make(lib, _dataset(lib), g)
        out.append(([list(sampler) for _ in range(2)], len(sampler)))
    assert out[0] == out[1]


def test_random_sampler_global_seed():
    out = []
    for lib in LIBS:
        lib.manual_seed(8)
        s = lib.utils.data.RandomSampler(range(17))
        out.append(([list(s) for _ in range(2)], lib.rand(1).tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize("lengths", [[10, 13], [0.5, 0.3, 0.2], [0.25, 0.75]])
def test_random_split(lengths):
    out = []
    for lib in LIBS:
        g = lib.Generator().manual_seed(4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parts = lib.utils.data.random_split(range(23), lengths, generator=g)
        out.append([list(p) for p in parts])
    assert out[0] == out[1]
