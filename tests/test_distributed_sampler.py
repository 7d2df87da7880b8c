"""``DistributedSampler`` gives PyTorch's indices (recorded in
``tests/fixtures/distributed/distributed.json`` by ``generate.py`` beside it) for every
seed, epoch, world size, drop_last and shuffle case, and PyTorch's errors."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ferric.utils.data import DistributedSampler as Exported
from ferric.utils.data.distributed import DistributedSampler

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "distributed",
                       "distributed.json")
with open(FIXTURE) as _f:
    TORCH = json.load(_f)

CASES = TORCH["sampler"]


@pytest.mark.parametrize("case", CASES, ids=[
    f"n{c['n']}-w{c['num_replicas']}-s{c['seed']}-e{c['epoch']}-shuffle{c['shuffle']}-"
    f"drop{c['drop_last']}" for c in CASES])
def test_indices_match_pytorch(case):
    for rank, want in enumerate(case["indices"]):
        s = DistributedSampler(range(case["n"]), num_replicas=case["num_replicas"], rank=rank,
                               shuffle=case["shuffle"], seed=case["seed"],
                               drop_last=case["drop_last"])
        s.set_epoch(case["epoch"])
        assert list(s) == want
        assert len(s) == len(want)


@pytest.mark.parametrize("name,kwargs", [
    ("sampler_bad_rank", {"num_replicas": 2, "rank": 2}),
    ("sampler_negative_rank", {"num_replicas": 2, "rank": -1}),
])
def test_bad_rank_raises_pytorchs_error(name, kwargs):
    want = TORCH["errors"][name]
    with pytest.raises(ValueError) as info:
        DistributedSampler(range(4), **kwargs)
    assert type(info.value).__name__ == want["type"]
    assert str(info.value) == want["message"]


@given(n=st.integers(0, 60), world=st.integers(1, 7), drop_last=st.booleans(),
       epoch=st.integers(0, 3))
def test_ranks_partition_the_padded_permutation(n, world, drop_last, epoch):
    shares = []
    for rank in range(world):
        s = DistributedSampler(range(n), num_replicas=world, rank=rank, drop_last=drop_last)
        s.set_epoch(epoch)
        shares.append(list(s))
    sizes = {len(x) for x in shares}
    assert len(sizes) == 1  # every rank gets the same number of samples
    flat = [i for x in shares for i in x]
    if drop_last:
        assert len(set(flat)) == len(flat)  # nothing repeated
        assert len(flat) == (n // world) * world
    elif n:
        assert set(flat) == set(range(n))  # everything covered (the padding repeats)


def test_exported_from_utils_data():
    assert Exported is DistributedSampler
