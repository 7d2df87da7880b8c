"""Collectives on picklable Python objects (``all_gather_object``,
``broadcast_object_list``, ``gather_object``, ``scatter_object_list``).

Objects are pickled to bytes; the byte counts travel first, then the bytes, both as
non-blocking MPI calls waited on with the group's timeout, as for tensors.
"""

from __future__ import annotations

import pickle

import numpy as np

from ._backend import Work, mpi
from ._collectives import _root
from ._group import _resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object",
           "scatter_object_list"]


def _run(pg, opname: str, start) -> None:
    Work(start(), what=opname, timeout=pg._timeout, rank=pg.rank()).wait()


def _dump(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _load(buf: np.ndarray):
    return pickle.loads(buf.tobytes())


def _offsets(sizes) -> list[int]:
    return [int(x) for x in np.concatenate(([0], np.cumsum(sizes)[:-1]))]


def all_gather_object(object_list, obj, group=None) -> None:
    """Gathers ``obj`` from every rank into ``object_list`` (of length world_size).

    Example:
        >>> import ferric.distributed as dist
        >>> # out = [None] * dist.get_world_size(); dist.all_gather_object(out, {"r": rank})
    """
    pg = _resolve(group, "all_gather_object")
    if pg is None:
        return
    n = pg.size()
    if len(object_list) != n:
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries, "
                         f"expected world_size {n}")
    MPI = mpi()
    mine = _dump(obj)
    sizes = np.zeros(n, dtype=np.int64)
    _run(pg, "all_gather_object",
         lambda: [pg._comm.Iallgather([np.array([mine.size], np.int64), MPI.INT64_T],
                                      [sizes, MPI.INT64_T])])
    data = np.empty(int(sizes.sum()), dtype=np.uint8)
    counts = [int(s) for s in sizes]
    _run(pg, "all_gather_object",
         lambda: [pg._comm.Iallgatherv([mine, MPI.BYTE],
                                       [data, (counts, _offsets(counts)), MPI.BYTE])])
    for i, (off, c) in enumerate(zip(_offsets(counts), counts, strict=True)):
        object_list[i] = _load(data[off:off + c])


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces ``object_list``'s entries on every rank with those of rank ``src``
    (the lists must have the same length everywhere)."""
    pg = _resolve(group, "broadcast_object_list")
    if pg is None:
        return
    root = _root(pg, "broadcast_object_list", src, group_src)
    MPI = mpi()
    me = pg.rank()
    parts = [_dump(o) for o in object_list] if me == root else []
    sizes = (np.array([p.size for p in parts], dtype=np.int64) if me == root
             else np.zeros(len(object_list), dtype=np.int64))
    _run(pg, "broadcast_object_list", lambda: [pg._comm.Ibcast([sizes, MPI.INT64_T], root)])
    data = (np.concatenate(parts) if parts else np.empty(0, np.uint8)) if me == root \
        else np.empty(int(sizes.sum()), dtype=np.uint8)
    _run(pg, "broadcast_object_list", lambda: [pg._comm.Ibcast([data, MPI.BYTE], root)])
    if me != root:
        for i, (off, c) in enumerate(zip(_offsets(sizes), sizes, strict=True)):
            object_list[i] = _load(data[off:off + int(c)])


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Gathers ``obj`` from every rank into ``object_gather_list`` on rank ``dst``."""
    pg = _resolve(group, "gather_object")
    if pg is None:
        return
    root = _root(pg, "gather_object", dst, group_dst)
    MPI = mpi()
    me, n = pg.rank(), pg.size()
    if me == root and (object_gather_list is None or len(object_gather_list) != n):
        raise ValueError(f"gather_object: object_gather_list must have world_size ({n}) "
                         f"entries on the destination rank")
    mine = _dump(obj)
    sizes = np.zeros(n, dtype=np.int64)
    _run(pg, "gather_object",
         lambda: [pg._comm.Igather([np.array([mine.size], np.int64), MPI.INT64_T],
                                   [sizes, MPI.INT64_T] if me == root else None, root)])
    counts = [int(s) for s in sizes]
    data = np.empty(sum(counts), dtype=np.uint8) if me == root else None
    _run(pg, "gather_object",
         lambda: [pg._comm.Igatherv([mine, MPI.BYTE],
                                    [data, (counts, _offsets(counts)), MPI.BYTE]
                                    if me == root else None, root)])
    if me == root:
        for i, (off, c) in enumerate(zip(_offsets(counts), counts, strict=True)):
            object_gather_list[i] = _load(data[off:off + c])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Rank ``i`` receives ``scatter_object_input_list[i]`` of rank ``src`` into
    ``scatter_object_output_list[0]``."""
    pg = _resolve(group, "scatter_object_list")
    if pg is None:
        return
    root = _root(pg, "scatter_object_list", src, group_src)
    MPI = mpi()
    me, n = pg.rank(), pg.size()
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size "
                         "at least 1.")
    if me == root and (scatter_object_input_list is None
                       or len(scatter_object_input_list) != n):
        raise ValueError(f"scatter_object_list: the source rank needs {n} input objects")
    parts = [_dump(o) for o in scatter_object_input_list] if me == root else []
    counts = [p.size for p in parts]
    size = np.zeros(1, dtype=np.int64)
    _run(pg, "scatter_object_list",
         lambda: [pg._comm.Iscatter([np.array(counts, np.int64), MPI.INT64_T]
                                    if me == root else None, [size, MPI.INT64_T], root)])
    data = np.empty(int(size[0]), dtype=np.uint8)
    send = np.concatenate(parts) if parts else None
    _run(pg, "scatter_object_list",
         lambda: [pg._comm.Iscatterv([send, (counts, _offsets(counts)), MPI.BYTE]
                                     if me == root else None, [data, MPI.BYTE], root)])
    scatter_object_output_list[0] = _load(data)
