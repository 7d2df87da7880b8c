"""ferric.utils.data: datasets, samplers, DataLoader batching/collation, and shuffling
that reproduces PyTorch's order for the same seed (orders recorded from PyTorch 2.x by
hand with the same calls)."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import ferric
from ferric.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    random_split,
)


def tensors10():
    x = ferric.arange(10)
    return TensorDataset(x, x * 10)


def firsts(loader):
    return [batch[0].tolist() for batch in loader]


# -- reproducing PyTorch's random streams ---------------------------------------------


def test_shuffle_with_generator_matches_pytorch():
    loader = DataLoader(tensors10(), batch_size=3, shuffle=True,
                        generator=ferric.Generator().manual_seed(7))
    epochs = [firsts(loader) for _ in range(3)]
    assert epochs == [
        [[1, 3, 5], [7, 9, 4], [6, 2, 8], [0]],
        [[5, 1, 6], [0, 9, 7], [8, 4, 3], [2]],
        [[4, 3, 2], [8, 1, 0], [6, 5, 9], [7]],
    ]


def test_shuffle_with_global_seed_matches_pytorch():
    ferric.manual_seed(123)
    loader = DataLoader(tensors10(), batch_size=4, shuffle=True, drop_last=True)
    assert [firsts(loader) for _ in range(3)] == [
        [[8, 2, 6, 7], [0, 3, 9, 1]],
        [[5, 9, 2, 7], [8, 6, 4, 0]],
        [[6, 0, 5, 3], [2, 4, 9, 7]],
    ]
    # the default generator advanced exactly as PyTorch's does
    assert ferric.rand(2).tolist() == pytest.approx([0.07563531398773193, 0.19663816690444946])


def test_random_split_matches_pytorch():
    ferric.manual_seed(5)
    assert [list(s) for s in random_split(range(11), [0.5, 0.3, 0.2])] == [
        [9, 5, 0, 8, 10, 2], [3, 6, 7], [1, 4]]
    g = ferric.Generator().manual_seed(42)
    assert [list(s) for s in random_split(range(10), [3, 7], generator=g)] == [
        [2, 6, 1], [8, 4, 5, 0, 9, 3, 7]]


def test_samplers_match_pytorch():
    g = ferric.Generator().manual_seed(3)
    assert list(RandomSampler(range(5), replacement=True, num_samples=70, generator=g)) == [
        1, 3, 2, 2, 0, 0, 0, 0, 1, 4, 4, 1, 0, 4, 1, 4, 0, 4, 0, 4, 1, 4, 1, 1, 2, 3, 2, 4, 4,
        0, 0, 1, 4, 3, 4, 2, 3, 0, 2, 1, 3, 4, 1, 0, 4, 1, 1, 3, 2, 1, 3, 1, 4, 4, 4, 0, 1, 3,
        1, 2, 4, 3, 0, 2, 4, 2, 3, 3, 3, 0]
    assert list(RandomSampler(range(4), num_samples=10, generator=g)) == [
        0, 3, 1, 2, 1, 3, 2, 0, 1, 2]
    assert list(SubsetRandomSampler([10, 20, 30, 40], generator=g)) == [20, 10, 40, 30]
    assert list(WeightedRandomSampler([0.1, 0.0, 0.5, 0.4], 8, generator=g)) == [
        2, 2, 2, 2, 2, 3, 2, 2]
    assert list(WeightedRandomSampler([0.1, 0.2, 0.5, 0.4], 3, replacement=False,
                                      generator=g)) == [0, 2, 3]


def test_same_seed_same_order_and_epochs_differ():
    def order(seed):
        loader = DataLoader(range(20), batch_size=5, shuffle=True,
                            generator=ferric.Generator().manual_seed(seed))
        return [[b.tolist() for b in loader] for _ in range(2)]

    a, b = order(0), order(0)
    assert a == b and a[0] != a[1]
    assert sorted(sum(a[0], [])) == list(range(20))


# -- batching ---------------------------------------------------------------------------

BATCHING = [
    # (len, batch_size, drop_last, expected batch sizes)
    (10, 3, False, [3, 3, 3, 1]),
    (10, 3, True, [3, 3, 3]),
    (9, 3, True, [3, 3, 3]),
    (2, 5, False, [2]),
    (2, 5, True, []),
    (0, 4, False, []),
]


@pytest.mark.parametrize("n,bs,drop,sizes", BATCHING)
def test_batch_sizes_and_len(n, bs, drop, sizes):
    ds = TensorDataset(ferric.arange(n), ferric.ones(n, 2))
    loader = DataLoader(ds, batch_size=bs, drop_last=drop)
    assert len(loader) == len(sizes)
    batches = list(loader)
    assert [len(b[0]) for b in batches] == sizes
    if batches:
        assert batches[0][1].shape == (sizes[0], 2)
        assert sum((b[0].tolist() for b in batches), []) == list(range(sum(sizes)))


def test_default_batch_size_is_one_and_none_disables_batching():
    ds = TensorDataset(ferric.arange(3.0))
    (first, *_) = list(DataLoader(ds))
    assert first[0].shape == (1,)
    unbatched = list(DataLoader([np.float32(1.5), np.float32(2.5)], batch_size=None))
    assert [t.dim() for t in unbatched] == [0, 0]
    assert [t.item() for t in unbatched] == [1.5, 2.5]


def test_batch_sampler_and_sampler_arguments():
    ds = tensors10()
    assert firsts(DataLoader(ds, batch_sampler=[[0, 1], [5, 6, 7]])) == [[0, 1], [5, 6, 7]]
    assert firsts(DataLoader(ds, sampler=[9, 8, 7], batch_size=2)) == [[9, 8], [7]]
    bs = BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=True)
    assert list(bs) == [[0, 1], [2, 3]] and len(bs) == 2
    assert len(BatchSampler(range(5), 2, False)) == 3


def test_custom_collate_fn():
    loader = DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(loader) == [1, 5, 4]


def test_getitems_is_used_for_batches():
    class Batched(Dataset):
        calls = 0

        def __len__(self):
            return 4

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, idx):
            Batched.calls += 1
            return [float(i) for i in idx]

    out = list(DataLoader(Batched(), batch_size=3))
    assert [b.tolist() for b in out] == [[0.0, 1.0, 2.0], [3.0]] and Batched.calls == 2


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


@pytest.mark.parametrize("drop,expected", [(False, [[0, 1, 2], [3, 4, 5], [6]]),
                                           (True, [[0, 1, 2], [3, 4, 5]])])
def test_iterable_dataset(drop, expected):
    loader = DataLoader(Stream(7), batch_size=3, drop_last=drop)
    assert [b.tolist() for b in loader] == expected
    assert len(loader) == len(expected)
    assert list(DataLoader(Stream(2), batch_size=None)) == [0, 1]  # ints stay ints


def test_iterable_dataset_longer_than_reported_warns():
    class Liar(Stream):
        def __len__(self):
            return 1

    loader = DataLoader(Liar(3), batch_size=1)
    assert len(loader) == 1
    with pytest.warns(UserWarning, match="was reported to be 1"):
        list(loader)


def test_num_workers_loads_in_process_with_the_same_batches():
    ds = tensors10()
    loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2,
                        generator=ferric.Generator().manual_seed(7))
    ref = DataLoader(ds, batch_size=4, shuffle=True, generator=ferric.Generator().manual_seed(7))
    assert firsts(loader) == firsts(ref)


# -- datasets ---------------------------------------------------------------------------


def test_tensor_dataset():
    ds = TensorDataset(ferric.arange(3), ferric.tensor([[1.0], [2.0], [3.0]]))
    assert len(ds) == 3
    x, y = ds[2]
    assert x.item() == 2 and y.tolist() == [3.0]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(ferric.zeros(3), ferric.zeros(4))


def test_subset_concat_stack_chain():
    base = tensors10()
    sub = Subset(base, [7, 2])
    assert len(sub) == 2 and sub[0][1].item() == 70
    cat = base + Subset(base, [0])
    assert isinstance(cat, ConcatDataset) and len(cat) == 11
    assert cat[10][0].item() == 0 and cat[-1][0].item() == 0 and cat[9][0].item() == 9
    assert cat.cumulative_sizes == [10, 11]
    stack = StackDataset(a=range(3), b="xyz")
    assert stack[1] == {"a": 1, "b": "y"} and len(stack) == 3
    assert StackDataset(range(2), range(2))[1] == (1, 1)
    chain = Stream(2) + Stream(3)
    assert isinstance(chain, ChainDataset) and list(chain) == [0, 1, 0, 1, 2]
    assert len(chain) == 5


def test_random_split_lengths():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = random_split(range(5), [0.5, 0.5, 0.0],
                             generator=ferric.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 2, 0]
    parts = random_split(range(7), [2, 5], generator=ferric.Generator().manual_seed(1))
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(7))


# -- collation --------------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


def describe(b):
    """A comparable picture of a batch: tensors become (dtype, values)."""
    if isinstance(b, ferric.Tensor):
        return ("T", str(b.dtype), b.tolist())
    if isinstance(b, dict):
        return {k: describe(v) for k, v in b.items()}
    if isinstance(b, (list, tuple)):
        return (type(b).__name__, [describe(v) for v in b])
    return b


F32, F64, I64, BOOL = "ferric.float32", "ferric.float64", "ferric.int64", "ferric.bool"
COLLATE = [
    ([1.5, 2.0], ("T", F64, [1.5, 2.0])),
    ([1, 2], ("T", I64, [1, 2])),
    ([True, False], ("T", BOOL, [True, False])),
    (["a", "b"], ("list", ["a", "b"])),
    ([(1, 2.0, "x"), (3, 4.0, "y")],
     ("list", [("T", I64, [1, 3]), ("T", F64, [2.0, 4.0]), ("tuple", ["x", "y"])])),
    ([[1, 2], [3, 4]], ("list", [("T", I64, [1, 3]), ("T", I64, [2, 4])])),
    ([{"a": 1, "b": ferric.ones(2)}, {"a": 2, "b": ferric.zeros(2)}],
     {"a": ("T", I64, [1, 2]), "b": ("T", F32, [[1.0, 1.0], [0.0, 0.0]])}),
    ([Point(1, 2.0), Point(3, 4.0)], ("Point", [("T", I64, [1, 3]), ("T", F64, [2.0, 4.0])])),
    ([np.array([1.0, 2.0], dtype=np.float32), np.array([3.0, 4.0], dtype=np.float32)],
     ("T", F32, [[1.0, 2.0], [3.0, 4.0]])),
    ([np.int64(3), np.int64(4)], ("T", I64, [3, 4])),
    ([np.float64(3), np.float64(4)], ("T", F64, [3.0, 4.0])),
    ([ferric.tensor(1.0), ferric.tensor(2.0)], ("T", F32, [1.0, 2.0])),
    ([ferric.arange(6).reshape(2, 3).t(), ferric.zeros(3, 2, dtype=ferric.int64)],
     ("T", I64, [[[0, 3], [1, 4], [2, 5]], [[0, 0], [0, 0], [0, 0]]])),
]


@pytest.mark.parametrize("batch,expected", COLLATE)
def test_default_collate(batch, expected):
    assert describe(default_collate(batch)) == expected


def test_namedtuple_result_type_and_default_convert():
    out = default_collate([Point(1, 2), Point(3, 4)])
    assert type(out) is Point
    conv = default_convert((np.array([1, 2]), 3, "s"))
    assert describe(conv) == ("list", [("T", I64, [1, 2]), 3, "s"])


COLLATE_ERRORS = [
    ([object(), object()], TypeError, "default_collate: batch must contain tensors"),
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
    ([np.array(["a"]), np.array(["b"])], TypeError, "found <U1"),
]


@pytest.mark.parametrize("batch,exc,msg", COLLATE_ERRORS)
def test_default_collate_errors(batch, exc, msg):
    with pytest.raises(exc, match=msg):
        default_collate(batch)


# -- argument validation ----------------------------------------------------------------

LOADER_ERRORS = [
    (dict(batch_size=2, batch_sampler=[[0]]), "batch_sampler option is mutually exclusive"),
    (dict(shuffle=True, batch_sampler=[[0]]), "batch_sampler option is mutually exclusive"),
    (dict(drop_last=True, batch_sampler=[[0]]), "batch_sampler option is mutually exclusive"),
    (dict(shuffle=True, sampler=[0]), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(batch_size=0), "batch_size should be a positive integer value"),
]


@pytest.mark.parametrize("kwargs,msg", LOADER_ERRORS)
def test_loader_argument_errors(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        DataLoader([1, 2, 3], **kwargs)


def test_iterable_dataset_rejects_sampling_options():
    for kw in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected "
                                             "unspecified"):
            DataLoader(Stream(3), **kw)


def test_empty_dataset():
    loader = DataLoader(TensorDataset(ferric.zeros(0, 3)), batch_size=4)
    assert len(loader) == 0 and list(loader) == []
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, "
                                         "but got num_samples=0"):
        RandomSampler([])
    with pytest.raises(ValueError, match="num_samples=0"):
        DataLoader([], shuffle=True)


def test_sampler_errors_and_frozen_attributes():
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler([1], replacement=1)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler([1], 2, 1)
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(5), [1.5, -0.5])
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        ConcatDataset([range(3)])[-4]
    loader = DataLoader([1])
    with pytest.raises(ValueError, match="batch_size attribute should not be set after "
                                         "DataLoader is initialized"):
        loader.batch_size = 3


@pytest.mark.parametrize("module", ["ferric.utils.data.dataset", "ferric.utils.data.sampler",
                                    "ferric.utils.data.dataloader",
                                    "ferric.utils.data._utils.collate"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
