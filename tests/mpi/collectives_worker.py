"""Every collective of ``ferric.distributed`` against a reference each rank computes
itself (it can rebuild every rank's inputs), for each dtype and for contiguous,
transposed, stepped, empty and 0-d tensors; then the object collectives, groups,
``async_op`` and the bad-input errors. Usage: ``mpiexec -n 2 python collectives_worker.py OUT``.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from common import HALF, Checks, assert_equal, dist, fdtype, ferric, init, npy, rounded, values
from layouts import layout

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool")
KINDS = ("contiguous", "transposed", "stepped", "empty", "0-d")
SHAPE = (3, 4)
OPS = {"SUM": (dist.ReduceOp.SUM, lambda a: np.sum(a, axis=0)),
       "PRODUCT": (dist.ReduceOp.PRODUCT, lambda a: np.prod(a, axis=0)),
       "MIN": (dist.ReduceOp.MIN, lambda a: np.min(a, axis=0)),
       "MAX": (dist.ReduceOp.MAX, lambda a: np.max(a, axis=0)),
       "AVG": (dist.ReduceOp.AVG, lambda a: np.mean(a, axis=0)),
       "BAND": (dist.ReduceOp.BAND, lambda a: np.bitwise_and.reduce(a, axis=0)),
       "BOR": (dist.ReduceOp.BOR, lambda a: np.bitwise_or.reduce(a, axis=0)),
       "BXOR": (dist.ReduceOp.BXOR, lambda a: np.bitwise_xor.reduce(a, axis=0))}
BOOL_REF = {"SUM": np.any, "MAX": np.any, "BOR": np.any, "PRODUCT": np.all, "MIN": np.all,
            "BAND": np.all, "BXOR": lambda a, axis: np.logical_xor.reduce(a, axis=axis)}


def ops_for(dtype):
    if dtype == "bool":
        return [k for k in OPS if k in BOOL_REF]
    if dtype.startswith(("int", "uint")):
        return [k for k in OPS if k != "AVG"]
    return ["SUM", "PRODUCT", "MIN", "MAX", "AVG"]


def reference(opname, dtype, stack):
    if dtype == "bool":
        return BOOL_REF[opname](stack, axis=0)
    if dtype in HALF:  # reduced in float32, rounded once (see ferric.distributed)
        return rounded(OPS[opname][1](stack.astype(np.float32)), dtype)
    out = OPS[opname][1](stack)
    return out.astype(stack.dtype)


def tensor_of(arr, kind, dtype):
    """A ferric tensor laid out as ``kind`` holding ``arr`` (or its edge shape), and the
    NumPy values it holds."""
    lay = layout(arr, kind)
    return lay.tensor(fdtype(dtype)), lay.values()


def main(out):
    rank, world = init()
    checks = Checks(out, rank)
    others = range(world)

    def inputs(tag, dtype, kind, r=None):
        return tensor_of(values((tag, dtype, kind, rank if r is None else r), SHAPE, dtype),
                         kind, dtype)

    def all_values(tag, dtype, kind):
        return np.stack([inputs(tag, dtype, kind, r)[1] for r in others])

    for dtype in DTYPES:
        for kind in KINDS:
            for opname in ops_for(dtype):
                def all_reduce(dtype=dtype, kind=kind, opname=opname):
                    t, _ = inputs("ar" + opname, dtype, kind)
                    dist.all_reduce(t, op=OPS[opname][0])
                    want = reference(opname, dtype, all_values("ar" + opname, dtype, kind))
                    assert_equal(npy(t), want, dtype, f"all_reduce {opname}")
                checks.run(f"all_reduce-{opname}-{dtype}-{kind}", all_reduce)

            def broadcast(dtype=dtype, kind=kind):
                t, _ = inputs("bc", dtype, kind)
                dist.broadcast(t, src=world - 1)
                assert_equal(npy(t), inputs("bc", dtype, kind, world - 1)[1], dtype,
                             "broadcast")
            checks.run(f"broadcast-{dtype}-{kind}", broadcast)

            def reduce(dtype=dtype, kind=kind):
                t, mine = inputs("rd", dtype, kind)
                dist.reduce(t, dst=world - 1, op=dist.ReduceOp.MAX)
                want = (reference("MAX", dtype, all_values("rd", dtype, kind))
                        if rank == world - 1 else mine)
                assert_equal(npy(t), want, dtype, "reduce")
            checks.run(f"reduce-{dtype}-{kind}", reduce)

            def all_gather(dtype=dtype, kind=kind):
                t, _ = inputs("ag", dtype, kind)
                outs = [tensor_of(np.zeros(SHAPE, dtype=np.asarray(_).dtype), kind, dtype)[0]
                        for _ in others]
                dist.all_gather(outs, t)
                for r, o in enumerate(outs):
                    assert_equal(npy(o), inputs("ag", dtype, kind, r)[1], dtype,
                                 f"all_gather[{r}]")
            checks.run(f"all_gather-{dtype}-{kind}", all_gather)

            def gather(dtype=dtype, kind=kind):
                t, _ = inputs("ga", dtype, kind)
                outs = None
                if rank == 0:
                    outs = [tensor_of(np.zeros(SHAPE, dtype=np.asarray(_).dtype), kind,
                                      dtype)[0] for _ in others]
                dist.gather(t, outs, dst=0)
                if rank == 0:
                    for r, o in enumerate(outs):
                        assert_equal(npy(o), inputs("ga", dtype, kind, r)[1], dtype,
                                     f"gather[{r}]")
            checks.run(f"gather-{dtype}-{kind}", gather)

            def scatter(dtype=dtype, kind=kind):
                src = world - 1
                t = tensor_of(np.zeros(SHAPE, dtype=bool if dtype == "bool" else None),
                              kind, dtype)[0]
                pieces = None
                if rank == src:
                    pieces = [inputs(("sc", j), dtype, kind)[0] for j in others]
                dist.scatter(t, pieces, src=src)
                assert_equal(npy(t), inputs(("sc", rank), dtype, kind, src)[1], dtype,
                             "scatter")
            checks.run(f"scatter-{dtype}-{kind}", scatter)

            def reduce_scatter(dtype=dtype, kind=kind):
                t = tensor_of(np.zeros(SHAPE, dtype=bool if dtype == "bool" else None),
                              kind, dtype)[0]
                pieces = [inputs(("rs", j), dtype, kind)[0] for j in others]
                dist.reduce_scatter(t, pieces, op=dist.ReduceOp.SUM)
                stack = np.stack([inputs(("rs", rank), dtype, kind, r)[1] for r in others])
                assert_equal(npy(t), reference("SUM", dtype, stack), dtype,
                             "reduce_scatter")
            checks.run(f"reduce_scatter-{dtype}-{kind}", reduce_scatter)

        def gather_into(dtype=dtype):
            t, _ = inputs("agt", dtype, "transposed")
            want = np.stack([inputs("agt", dtype, "transposed", r)[1] for r in others])
            cat = ferric.zeros(world * SHAPE[0], SHAPE[1], dtype=fdtype(dtype))
            dist.all_gather_into_tensor(cat, t)
            assert_equal(npy(cat), want.reshape(-1, SHAPE[1]), dtype, "concatenated")
            stacked = ferric.zeros(SHAPE[1], SHAPE[0], world, dtype=fdtype(dtype)).permute(
                2, 1, 0)  # non-contiguous output
            dist.all_gather_into_tensor(stacked, t)
            assert_equal(npy(stacked), want.reshape(world, *SHAPE), dtype, "stacked")
        checks.run(f"all_gather_into_tensor-{dtype}", gather_into)

        def reduce_scatter_tensor(dtype=dtype):
            big = [values(("rst", dtype, r), (world * 2, 3), dtype) for r in others]
            out = ferric.zeros(2, 3, dtype=fdtype(dtype))
            dist.reduce_scatter_tensor(out, ferric.tensor(big[rank], dtype=fdtype(dtype)),
                                       op=dist.ReduceOp.MAX)
            want = reference("MAX", dtype, np.stack(big))[2 * rank: 2 * rank + 2]
            assert_equal(npy(out), want, dtype, "reduce_scatter_tensor")
        checks.run(f"reduce_scatter_tensor-{dtype}", reduce_scatter_tensor)

        def all_to_all(dtype=dtype):
            # rank r sends r + j + 1 elements to rank j: pieces of different sizes
            def piece(r, j):
                return values(("a2a", dtype, r, j), (r + j + 1,), dtype)
            ins = [ferric.tensor(piece(rank, j), dtype=fdtype(dtype)) for j in others]
            outs = [ferric.zeros(r + rank + 1, dtype=fdtype(dtype)) for r in others]
            dist.all_to_all(outs, ins)
            for r, o in enumerate(outs):
                assert_equal(npy(o), piece(r, rank), dtype, f"all_to_all[{r}]")
        checks.run(f"all_to_all-{dtype}", all_to_all)

        def all_to_all_single(dtype=dtype):
            splits = [[1 + ((r + j) % 2) for j in others] for r in others]  # rows r -> j
            data = [values(("a2s", dtype, r), (sum(splits[r]), 2), dtype) for r in others]
            recv_rows = [splits[r][rank] for r in others]
            out = ferric.zeros(sum(recv_rows), 2, dtype=fdtype(dtype))
            dist.all_to_all_single(out, ferric.tensor(data[rank], dtype=fdtype(dtype)),
                                   recv_rows, splits[rank])
            want = np.concatenate([data[r][sum(splits[r][:rank]): sum(splits[r][:rank + 1])]
                                   for r in others])
            assert_equal(npy(out), want, dtype, "all_to_all_single")
        checks.run(f"all_to_all_single-{dtype}", all_to_all_single)

        def point_to_point(dtype=dtype):
            if world < 2:
                return
            if rank == 0:
                dist.send(inputs("p2p", dtype, "stepped")[0], dst=1, tag=3)
            elif rank == 1:
                t = tensor_of(np.zeros(SHAPE, dtype=bool if dtype == "bool" else None),
                              "transposed", dtype)[0]
                assert dist.recv(t, tag=3) == 0
                assert_equal(npy(t), inputs("p2p", dtype, "stepped", 0)[1], dtype, "recv")
            # both directions at once with the non-blocking forms
            peer = 1 - rank if rank < 2 else None
            if peer is not None:
                mine = inputs("ip2p", dtype, "contiguous")[0]
                got = ferric.zeros(*SHAPE, dtype=fdtype(dtype))
                works = dist.batch_isend_irecv([dist.P2POp(dist.isend, mine, peer),
                                                dist.P2POp(dist.irecv, got, peer)])
                for w in works:
                    w.wait()
                assert_equal(npy(got), inputs("ip2p", dtype, "contiguous", peer)[1], dtype,
                             "irecv")
        checks.run(f"send_recv-{dtype}", point_to_point)

    def zero_copy():
        t = ferric.ones(4, 5)
        alias = t.view(-1)
        ptr = t.data_ptr()
        dist.all_reduce(t)
        assert t.data_ptr() == ptr
        assert_equal(npy(alias), np.full(20, world, np.float32), "float32", "alias")
        p = ferric.nn.Parameter(ferric.ones(3))  # requires grad: still reducible in place
        dist.all_reduce(p)
        assert_equal(npy(p.detach()), np.full(3, world, np.float32), "float32", "param")
    checks.run("zero_copy_in_place", zero_copy)

    def async_work():
        t = ferric.full((1000,), float(rank + 1), dtype=ferric.float64)
        work = dist.all_reduce(t, async_op=True)
        assert isinstance(work, dist.Work)
        assert work.wait() is True
        assert work.is_completed() and work.is_success() and work.exception() is None
        assert work.result()[0] is t
        assert_equal(npy(t), np.full(1000, world * (world + 1) / 2), "float64", "async")
        works = [dist.broadcast(ferric.tensor([float(rank)]), src=0, async_op=True)
                 for _ in range(3)] + [dist.barrier(async_op=True)]
        for w in works:
            w.wait()
        assert all(w.result() == [] or w.result()[0].item() == 0.0 for w in works)
    checks.run("async_op", async_work)

    def objects():
        gathered = [None] * world
        dist.all_gather_object(gathered, {"rank": rank, "t": ferric.tensor([rank])})
        assert [g["rank"] for g in gathered] == list(others)
        assert [g["t"].item() for g in gathered] == list(others)
        objs = [f"hello-{rank}", rank * 10, None] if rank == 0 else [None, None, None]
        dist.broadcast_object_list(objs, src=0)
        assert objs == ["hello-0", 0, None], objs
        target = [None] * world if rank == world - 1 else None
        dist.gather_object(("x" * (rank + 1), rank), target, dst=world - 1)
        if rank == world - 1:
            assert target == [("x" * (r + 1), r) for r in others]
        got = [None]
        dist.scatter_object_list(got, [{"to": j} for j in others] if rank == 0 else None,
                                 src=0)
        assert got == [{"to": rank}]
    checks.run("object_collectives", objects)

    def groups():
        assert dist.get_rank() == rank and dist.get_world_size() == world
        assert dist.is_initialized() and dist.get_backend() == "mpi"
        last = dist.new_group([world - 1])
        both = dist.new_group()
        t = ferric.tensor([float(rank + 1)])
        if rank == world - 1:
            assert dist.get_world_size(last) == 1 and dist.get_rank(last) == 0
            dist.all_reduce(t, group=last)
            assert t.item() == rank + 1
        else:
            assert last is dist.GroupMember.NON_GROUP_MEMBER
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert dist.all_reduce(t, group=last) is None
            assert caught and "does not belong" in str(caught[0].message)
            assert dist.get_rank(last) == -1
        dist.all_reduce(t, group=both)
        assert t.item() == world * (world + 1) / 2 + (world - 1 if world > 1 else 0) * 0
        assert dist.get_process_group_ranks(both) == list(others)
        dist.broadcast(t, src=world - 1, group=both)
        dist.destroy_process_group(both)
    checks.run("new_group", groups)

    def bad_input():
        t = ferric.tensor([1.0, 2.0, 3.0])
        before = npy(t).copy()
        cases = [
            (lambda: dist.init_process_group("mpi"), ValueError,
             "trying to initialize the default process group twice!"),
            (lambda: dist.broadcast(t, src=world + 1), RuntimeError, "invalid root rank"),
            (lambda: dist.all_reduce([1.0]), TypeError, "Expected parameter `tensor`"),
            (lambda: dist.all_gather([t] * (world + 1), t), RuntimeError,
             "invalid output tensor list"),
            (lambda: dist.all_gather([ferric.zeros(4)] * world, t), RuntimeError,
             "invalid tensor size"),
            (lambda: dist.all_gather_into_tensor(ferric.zeros(world * 3 + 1), t),
             RuntimeError, "invalid tensor size"),
            (lambda: dist.send(t, dst=rank), ValueError, "Invalid destination rank"),
            (lambda: dist.all_reduce(t, op=dist.ReduceOp.BAND), RuntimeError,
             "Cannot use ReduceOp.BAND"),
            (lambda: dist.all_reduce(ferric.tensor([1]), op=dist.ReduceOp.AVG), RuntimeError,
             "Cannot use ReduceOp.AVG"),
            (lambda: dist.gather(t, [t] * world, dst=world - 1) if rank != world - 1
             else dist.gather(t, None, dst=world - 1), ValueError, "gather_list"),
        ]
        for fn, exc, text in cases:
            try:
                fn()
            except exc as e:
                assert text in str(e), (text, str(e))
            else:
                raise AssertionError(f"no {exc.__name__} for {text!r}")
            np.testing.assert_array_equal(npy(t), before)
    checks.run("bad_input", bad_input)

    checks.run("barrier", dist.barrier)

    def allreduce_algorithm():
        # ferric's default for Open MPI's non-blocking all-reduce (docs/distributed.md)
        got = os.environ.get("OMPI_MCA_coll_libnbc_iallreduce_algorithm")
        assert got == "3", got
    checks.run("iallreduce_algorithm", allreduce_algorithm)
    checks.dump()
    dist.destroy_process_group()
    assert not dist.is_initialized()


if __name__ == "__main__":
    main(sys.argv[1])
