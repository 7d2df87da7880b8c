"""``ferric.distributed`` and ``DistributedDataParallel`` on real MPI processes (2 ranks
under ``mpiexec --oversubscribe``), and the misuse errors against PyTorch's, recorded in
``tests/fixtures/distributed/distributed.json`` (``generate.py`` beside it).

Each worker script (``tests/mpi/``) runs a table of checks in one MPI job and writes
every check's outcome per rank; the tests here assert on groups of those outcomes, so a
failure names the check, the rank and the traceback.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from mpi_harness import MPI_DIR, needs_mpi, run, run_checks

import ferric
import ferric.distributed as dist
from ferric.nn.parallel import DistributedDataParallel
from ferric.utils.data.distributed import DistributedSampler

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "distributed",
                       "distributed.json")
with open(FIXTURE) as _f:
    TORCH = json.load(_f)


@pytest.fixture(scope="module")
def collectives(tmp_path_factory):
    return run_checks("collectives_worker.py", str(tmp_path_factory.mktemp("mpi") / "coll"))


@pytest.fixture(scope="module")
def ddp(tmp_path_factory):
    return run_checks("ddp_worker.py", str(tmp_path_factory.mktemp("mpi") / "ddp"))


def _assert_group(results, prefix, at_least):
    for rank, checks in enumerate(results):
        mine = {k: v for k, v in checks.items() if k == prefix or k.startswith(prefix + "-")}
        assert len(mine) >= at_least, f"rank {rank}: only {sorted(mine)} ran for {prefix}"
        bad = {k: v for k, v in mine.items() if v != "ok"}
        assert not bad, f"rank {rank}:\n" + "\n".join(f"{k}: {v}" for k, v in bad.items())


# (check-name prefix, how many checks at least: 10 dtypes x layouts x ops)
COLLECTIVE_GROUPS = [
    ("all_reduce", 10 * 5 * 5), ("broadcast", 10 * 5), ("reduce", 10 * 5),
    ("all_gather", 10 * 5), ("gather", 10 * 5), ("scatter", 10 * 5),
    ("reduce_scatter", 10 * 5), ("all_gather_into_tensor", 10), ("reduce_scatter_tensor", 10),
    ("all_to_all", 10), ("all_to_all_single", 10), ("send_recv", 10),
    ("zero_copy_in_place", 1), ("async_op", 1),
    ("object_collectives", 1), ("new_group", 1), ("bad_input", 1), ("barrier", 1),
    ("iallreduce_algorithm", 1),
]


@needs_mpi
@pytest.mark.parametrize("prefix,at_least", COLLECTIVE_GROUPS,
                         ids=[g[0] for g in COLLECTIVE_GROUPS])
def test_collectives_match_single_process_reference(collectives, prefix, at_least):
    _assert_group(collectives, prefix, at_least)


DDP_CHECKS = [
    "ddp_equals_single_process", "ddp_sync_batchnorm_equals_single_process",
    "ddp_many_small_buckets_float64", "ddp_gradient_as_bucket_view",
    "ddp_progress_thread", "ddp_progress_from_hooks", "ddp_float16_gradients",
    "ddp_bfloat16_gradients",
    "ddp_buckets_reverse_order", "ddp_buckets_start_during_backward",
    "ddp_no_sync_accumulation", "ddp_find_unused_parameters",
    "ddp_unused_without_flag_raises", "ddp_module_and_state_dict_prefix", "ddp_bad_input",
    "sync_batchnorm_eval_is_local",
]


@needs_mpi
@pytest.mark.parametrize("name", DDP_CHECKS)
def test_ddp_two_ranks_equal_one_process(ddp, name):
    _assert_group(ddp, name, 1)


@needs_mpi
@pytest.mark.parametrize("mode,expected", [
    ("raise", "boom on rank 1"),
    ("timeout", "timed out after 2 s"),
])
def test_a_failing_rank_ends_the_job_fast(mode, expected):
    start = time.monotonic()
    proc = run([os.path.join(MPI_DIR, "fail_worker.py"), mode], timeout=60)
    elapsed = time.monotonic() - start
    assert proc.returncode != 0
    assert expected in proc.stderr, proc.stderr[-3000:]
    assert "not reached" not in proc.stdout
    assert elapsed < 30, f"the job took {elapsed:.1f} s to end"


@needs_mpi
def test_world_size_from_the_environment_must_agree_with_mpi():
    proc = run([os.path.join(MPI_DIR, "fail_worker.py"), "mismatch"], n=2, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [s for s in proc.stdout.splitlines() if s.startswith("ValueError")]
    assert len(lines) == 2
    assert "WORLD_SIZE=5 but MPI started this process as rank" in lines[0]


@needs_mpi
def test_a_failing_rank_ends_the_job_under_the_launcher():
    proc = run([os.path.join(MPI_DIR, "fail_worker.py"), "raise"], timeout=60, launcher=True)
    assert proc.returncode != 0
    assert "boom on rank 1" in proc.stderr


# --- misuse without a process group: the pytest process never starts MPI -----------

def _torch_case(name):
    return TORCH["errors"][name]


BEFORE_INIT = [
    ("all_reduce_before_init", lambda: dist.all_reduce(ferric.ones(3))),
    ("get_rank_before_init", dist.get_rank),
    ("get_world_size_before_init", dist.get_world_size),
    ("barrier_before_init", dist.barrier),
    ("destroy_before_init", dist.destroy_process_group),
    ("new_group_before_init", lambda: dist.new_group([0])),
    ("unknown_backend", lambda: dist.init_process_group("foo")),
    ("sampler_no_group", lambda: DistributedSampler(range(4))),
]


@pytest.mark.parametrize("name,call", BEFORE_INIT, ids=[c[0] for c in BEFORE_INIT])
def test_misuse_raises_pytorchs_exception(name, call):
    want = _torch_case(name)
    assert not dist.is_initialized()
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value).__name__ == want["type"]
    assert str(info.value) == want["message"]


def test_ddp_before_init_raises():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(ferric.nn.Linear(2, 2))


def test_reduce_op_names_match_pytorch():
    ops = [dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX,
           dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR, dist.ReduceOp.AVG]
    assert [str(op) for op in ops] == TORCH["reduce_op_repr"]


def test_backend_names():
    assert dist.Backend("MPI") == "mpi" and dist.Backend("gloo") == "gloo"
    assert dist.Backend("cpu:gloo,cuda:nccl") == "gloo"
    with pytest.raises(AssertionError, match="Unknown backend type bogus"):
        dist.Backend("bogus")
    with pytest.raises(RuntimeError, match="doesn't have NCCL built in"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_exception_hierarchy_matches_pytorch():
    assert issubclass(dist.DistBackendError, dist.DistError)
    assert issubclass(dist.DistError, RuntimeError)
    assert dist.is_available() in (True, False)
    assert dist.is_nccl_available() is False
