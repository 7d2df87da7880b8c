"""Collectives and point-to-point calls on tensors (``all_reduce``, ``broadcast``, ...).

Each call checks its arguments (so a bad call changes nothing), starts one non-blocking
MPI operation on the tensors' own memory and returns a ``Work``; with
``async_op=False`` it waits at once. A contiguous tensor is its own MPI buffer (zero
copy); a non-contiguous one goes through a contiguous staging copy that is written back
when the operation completes. List arguments (``all_gather``'s outputs, ``scatter``'s
inputs) are packed into one contiguous buffer, since MPI wants one. bfloat16 tensors
travel as float32 (no NumPy or MPI type), float16 ones are reduced in float32 (MPI has
no half-precision sum) and rounded back once.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from ._backend import (
    DistBackendError,
    ReduceOp,
    Work,
    assign,
    buffer_dtype,
    is_avg,
    mpi,
    mpi_op,
    mpi_type,
    staged,
    values,
    write_back,
)
from ._group import ProcessGroup, _resolve

__all__ = [
    "P2POp",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "gather",
    "irecv",
    "isend",
    "monitored_barrier",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]


def _check_tensor(t, name: str) -> None:
    if not isinstance(t, _core.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"ferric.Tensor\n             but got {type(t)} instead.")


def _check_list(ts, name: str) -> None:
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, _core.Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[ferric.Tensor]\n             but got {type(ts)} instead.")


def _same(opname: str, ref, ts, what: str) -> None:
    """Every tensor of ``ts`` has ``ref``'s shape and dtype (PyTorch's RuntimeErrors)."""
    for i, t in enumerate(ts):
        if t.dtype != ref.dtype:
            raise RuntimeError(f"{opname}: invalid tensor type at index {i} of {what} "
                               f"(expected {ref.dtype}, got {t.dtype})")
        if tuple(t.shape) != tuple(ref.shape):
            raise RuntimeError(f"{opname}: invalid tensor size at index {i} of {what} "
                               f"(expected {tuple(ref.shape)}, got {tuple(t.shape)})")


def _length(opname: str, ts, n: int, what: str) -> None:
    if len(ts) != n:
        raise RuntimeError(f"{opname}: invalid {what} (expected length {n}, got {len(ts)})")


def _root(pg: ProcessGroup, opname: str, rank, group_rank, default=0) -> int:
    """The group rank of the root: ``group_<src|dst>`` directly, else the global rank."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError(f"{opname}: pass either a global rank or a group rank, not both")
        if not 0 <= int(group_rank) < pg.size():
            raise ValueError(f"{opname}: group rank {group_rank} is not part of the group")
        return int(group_rank)
    if rank is None:
        rank = default
    if pg is _resolve(None):
        if not 0 <= int(rank) < pg.size():
            raise RuntimeError(f"{opname}: invalid root rank: {rank}")
        return int(rank)
    return pg.group_rank(rank, opname)


def _start(pg: ProcessGroup, opname: str, start, finish=None, *, async_op: bool, keep=(),
           result=(), statuses=None):
    """Starts the MPI operation(s) and returns a Work, or waits for it (sync calls)."""
    try:
        requests = start()
    except mpi().Exception as e:
        raise DistBackendError(f"[rank {pg.rank()}] {opname} failed in MPI: {e}") from e
    work = Work(requests, finish, what=opname, timeout=pg._timeout, rank=pg.rank(),
                keep=keep, result=result, statuses=statuses)
    if async_op:
        return work
    work.wait()
    return None


def _average(buf, n: int) -> None:
    np.divide(buf, n, out=buf)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` over all processes of ``group``, in place: afterwards every
    rank holds the result.

    Args:
        tensor (Tensor): input and output of the collective (any dtype).
        op (ReduceOp): ``SUM`` (default), ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, or the
            bitwise ops for int64/bool.
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.

    Example:
        >>> import ferric.distributed as dist
        >>> # t = ferric.ones(3) * (dist.get_rank() + 1); dist.all_reduce(t)  # -> 3s on 2 ranks
    """
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "all_reduce")
    if pg is None:
        return None
    mop = mpi_op(op, tensor.dtype, "all_reduce")
    view, buf = staged(tensor, reduce=True)
    typ = mpi_type(buf.dtype)
    n = pg.size()

    def finish():
        if is_avg(op):
            _average(buf, n)
        write_back(view, buf)

    return _start(pg, "all_reduce",
                  lambda: [pg._comm.Iallreduce(mpi().IN_PLACE, [buf, typ], mop)], finish,
                  async_op=async_op, keep=(tensor,), result=(tensor,))


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies ``tensor`` of rank ``src`` into ``tensor`` on every other rank, in place.

    Args:
        tensor (Tensor): the data on ``src``, the destination elsewhere (same shape and
            dtype on every rank).
        src (int): global rank of the source (default 0); or ``group_src``, its rank in
            ``group``.
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.

    Example:
        >>> import ferric.distributed as dist
        >>> # dist.broadcast(model_weights, src=0)
    """
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "broadcast")
    if pg is None:
        return None
    root = _root(pg, "broadcast", src, group_src)
    view, buf = staged(tensor)
    typ = mpi_type(buf.dtype)
    return _start(pg, "broadcast", lambda: [pg._comm.Ibcast([buf, typ], root)],
                  lambda: write_back(view, buf), async_op=async_op, keep=(tensor,),
                  result=(tensor,))


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces ``tensor`` over the group into ``tensor`` of rank ``dst``; the other
    ranks' tensors are left as they were.

    Args:
        tensor (Tensor): input everywhere, output on ``dst``.
        dst (int): global rank receiving the result (default 0), or ``group_dst``.
        op (ReduceOp): the reduction (default ``SUM``).
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.
    """
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "reduce")
    if pg is None:
        return None
    root = _root(pg, "reduce", dst, group_dst)
    mop = mpi_op(op, tensor.dtype, "reduce")
    view, buf = staged(tensor, reduce=True)
    typ = mpi_type(buf.dtype)
    me = pg.rank()
    MPI = mpi()

    def start():
        if me == root:
            return [pg._comm.Ireduce(MPI.IN_PLACE, [buf, typ], mop, root)]
        return [pg._comm.Ireduce([buf, typ], None, mop, root)]

    def finish():
        if me == root:
            if is_avg(op):
                _average(buf, pg.size())
            write_back(view, buf)

    return _start(pg, "reduce", start, finish, async_op=async_op, keep=(tensor,),
                  result=(tensor,))


def _copy_out(block, outs) -> None:
    """Writes row ``i`` of a received block into ``outs[i]`` (any strides)."""
    for i, o in enumerate(outs):
        assign(o, block[i])


def _pack(ts, dtype, count: int, reduce: bool = False) -> np.ndarray:
    """The tensors' elements, one after another, in one new contiguous array."""
    out = np.empty((len(ts), count), dtype=buffer_dtype(dtype, reduce))
    for i, t in enumerate(ts):
        out[i] = values(t, reduce).reshape(-1)
    return out


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers ``tensor`` from every rank into ``tensor_list`` (one tensor per rank, of
    ``tensor``'s shape and dtype).

    Args:
        tensor_list (list[Tensor]): world_size outputs; ``tensor_list[i]`` receives rank
            ``i``'s tensor.
        tensor (Tensor): this rank's contribution.
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.

    Example:
        >>> import ferric.distributed as dist
        >>> # outs = [ferric.zeros(3) for _ in range(dist.get_world_size())]
        >>> # dist.all_gather(outs, ferric.full((3,), float(dist.get_rank())))
    """
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "all_gather")
    if pg is None:
        return None
    n = pg.size()
    _length("all_gather", tensor_list, n, "output tensor list")
    _same("all_gather", tensor, tensor_list, "the output tensor list")
    _, send = staged(tensor)
    recv = np.empty((n, tensor.numel()), dtype=send.dtype)
    typ = mpi_type(send.dtype)
    return _start(pg, "all_gather",
                  lambda: [pg._comm.Iallgather([send, typ], [recv, typ])],
                  lambda: _copy_out(recv, tensor_list), async_op=async_op,
                  keep=(tensor, send), result=tensor_list)


def _check_numel(opname: str, big, small, n: int) -> None:
    if big.dtype != small.dtype:
        raise RuntimeError(f"{opname}: tensors must have the same dtype (got {big.dtype} and "
                           f"{small.dtype})")
    if big.numel() != n * small.numel():
        raise RuntimeError(f"{opname}: invalid tensor size: the large tensor must hold "
                           f"world_size ({n}) times the elements of the small one "
                           f"(expected {n * small.numel()} elements, got {big.numel()}: "
                           f"shapes {tuple(big.shape)} and {tuple(small.shape)})")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers ``input_tensor`` from every rank into ``output_tensor``, concatenated
    along the first dimension (or stacked: any shape with world_size times the elements).
    """
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _resolve(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _check_numel("all_gather_into_tensor", output_tensor, input_tensor, pg.size())
    _, send = staged(input_tensor)
    view, recv = staged(output_tensor)
    typ = mpi_type(send.dtype)
    return _start(pg, "all_gather_into_tensor",
                  lambda: [pg._comm.Iallgather([send, typ], [recv, typ])],
                  lambda: write_back(view, recv), async_op=async_op,
                  keep=(input_tensor, output_tensor, send), result=(output_tensor,))


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``input_list[i]`` over the ranks into ``output`` of rank ``i``.

    Args:
        output (Tensor): this rank's block of the result.
        input_list (list[Tensor]): world_size tensors of ``output``'s shape and dtype.
        op (ReduceOp): the reduction (default ``SUM``).
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.
    """
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    pg = _resolve(group, "reduce_scatter")
    if pg is None:
        return None
    n = pg.size()
    _length("reduce_scatter", input_list, n, "input tensor list")
    _same("reduce_scatter", output, input_list, "the input tensor list")
    mop = mpi_op(op, output.dtype, "reduce_scatter")
    send = _pack(input_list, output.dtype, output.numel(), reduce=True)
    return _reduce_scatter_block(pg, "reduce_scatter", output, send, op, mop, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``input`` (world_size blocks along the first dimension) over the ranks;
    rank ``i`` receives block ``i`` in ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _resolve(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    _check_numel("reduce_scatter_tensor", input, output, pg.size())
    mop = mpi_op(op, output.dtype, "reduce_scatter_tensor")
    _, send = staged(input, reduce=True)
    return _reduce_scatter_block(pg, "reduce_scatter_tensor", output, send, op, mop, async_op)


def _reduce_scatter_block(pg, opname, output, send, op, mop, async_op):
    view, recv = staged(output, reduce=True)
    typ = mpi_type(recv.dtype)

    def finish():
        if is_avg(op):
            _average(recv, pg.size())
        write_back(view, recv)

    return _start(pg, opname,
                  lambda: [pg._comm.Ireduce_scatter_block([send, typ], [recv, typ], mop)],
                  finish, async_op=async_op, keep=(output, send), result=(output,))


def _check_root_list(op, tensor, tensors, is_root, n, role, what):
    """The ``<op>_list`` argument of a rooted collective (``gather``: ``role``
    "destination", the "output" list; ``scatter``: "source", "input"): ``n`` tensors
    like ``tensor`` on the root rank, nothing on the others."""
    arg = f"{op}_list"
    if is_root:
        if not tensors:
            raise ValueError(f"Argument ``{arg}`` must be specified on {role} rank.")
        _check_list(tensors, arg)
        _length(op, tensors, n, f"{what} tensor list")
        _same(op, tensor, tensors, f"the {what} tensor list")
    elif tensors:
        raise ValueError(f"Argument ``{arg}`` must NOT be specified on non-{role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Gathers ``tensor`` from every rank into ``gather_list`` on rank ``dst`` (the
    other ranks pass no list).

    Args:
        tensor (Tensor): this rank's contribution.
        gather_list (list[Tensor], optional): world_size outputs, on ``dst`` only.
        dst (int): global rank gathering (default 0), or ``group_dst``.
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.
    """
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "gather")
    if pg is None:
        return None
    root = _root(pg, "gather", dst, group_dst)
    me, n = pg.rank(), pg.size()
    _check_root_list("gather", tensor, gather_list, me == root, n, "destination", "output")
    _, send = staged(tensor)
    typ = mpi_type(send.dtype)
    recv = np.empty((n, tensor.numel()), dtype=send.dtype) if me == root else None
    outs = list(gather_list) if me == root else []
    return _start(pg, "gather",
                  lambda: [pg._comm.Igather([send, typ],
                                            [recv, typ] if recv is not None else None, root)],
                  lambda: _copy_out(recv, outs) if recv is not None else None,
                  async_op=async_op, keep=(tensor, send), result=outs)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Sends ``scatter_list[i]`` of rank ``src`` into ``tensor`` of rank ``i``.

    Args:
        tensor (Tensor): receives this rank's piece.
        scatter_list (list[Tensor], optional): world_size pieces, on ``src`` only.
        src (int): global rank scattering (default 0), or ``group_src``.
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.
    """
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "scatter")
    if pg is None:
        return None
    root = _root(pg, "scatter", src, group_src)
    me, n = pg.rank(), pg.size()
    _check_root_list("scatter", tensor, scatter_list, me == root, n, "source", "input")
    send = _pack(scatter_list, tensor.dtype, tensor.numel()) if me == root else None
    view, recv = staged(tensor)
    typ = mpi_type(recv.dtype)
    return _start(pg, "scatter",
                  lambda: [pg._comm.Iscatter([send, typ] if send is not None else None,
                                             [recv, typ], root)],
                  lambda: write_back(view, recv), async_op=async_op, keep=(tensor, send),
                  result=(tensor,))


def _displacements(counts):
    return [int(x) for x in np.concatenate(([0], np.cumsum(counts)[:-1]))] if counts else []


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Sends ``input_tensor_list[j]`` to rank ``j`` and receives rank ``j``'s piece
    into ``output_tensor_list[j]`` (the pieces may differ in size).

    Args:
        output_tensor_list (list[Tensor]): world_size outputs, one per source rank.
        input_tensor_list (list[Tensor]): world_size inputs, one per destination rank.
        group (ProcessGroup, optional): the default group when None.
        async_op (bool): return a ``Work`` instead of waiting.
    """
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    pg = _resolve(group, "all_to_all")
    if pg is None:
        return None
    n = pg.size()
    _length("all_to_all", output_tensor_list, n, "output tensor list")
    _length("all_to_all", input_tensor_list, n, "input tensor list")
    ref = input_tensor_list[0] if input_tensor_list else output_tensor_list[0]
    for lst, what in ((input_tensor_list, "input"), (output_tensor_list, "output")):
        for i, t in enumerate(lst):
            if t.dtype != ref.dtype:
                raise RuntimeError(f"all_to_all: invalid tensor type at index {i} of the "
                                   f"{what} list (expected {ref.dtype}, got {t.dtype})")
    scounts = [t.numel() for t in input_tensor_list]
    rcounts = [t.numel() for t in output_tensor_list]
    dt = buffer_dtype(ref.dtype)
    send = np.concatenate([values(t).reshape(-1) for t in input_tensor_list]).astype(
        dt, copy=False) if n else np.empty(0, dt)
    recv = np.empty(sum(rcounts), dtype=dt)
    typ = mpi_type(dt)
    sdis, rdis = _displacements(scounts), _displacements(rcounts)

    def finish():
        for o, off, c in zip(output_tensor_list, rdis, rcounts, strict=True):
            assign(o, recv[off:off + c])

    return _start(pg, "all_to_all",
                  lambda: [pg._comm.Ialltoallv([send, (scounts, sdis), typ],
                                               [recv, (rcounts, rdis), typ])],
                  finish, async_op=async_op, keep=(send,), result=output_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """``all_to_all`` on single tensors split along the first dimension (equal splits
    unless ``*_split_sizes`` are given)."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _resolve(group, "all_to_all_single")
    if pg is None:
        return None
    n = pg.size()
    if output.dtype != input.dtype:
        raise RuntimeError(f"all_to_all_single: tensors must have the same dtype (got "
                           f"{output.dtype} and {input.dtype})")

    def counts(t, splits, what):
        rows = t.shape[0] if t.dim() else 1
        row = t.numel() // rows if rows else 0
        if splits is None:
            if rows % n:
                raise ValueError(f"all_to_all_single: the {what}'s first dimension {rows} is "
                                 f"not divisible by world_size {n}")
            splits = [rows // n] * n
        splits = [int(s) for s in splits]
        if len(splits) != n or sum(splits) != rows:
            raise ValueError(f"all_to_all_single: {what} split sizes {splits} must be "
                             f"{n} sizes summing to {rows}")
        return [s * row for s in splits]

    scounts = counts(input, input_split_sizes, "input")
    rcounts = counts(output, output_split_sizes, "output")
    _, send = staged(input)
    view, recv = staged(output)
    typ = mpi_type(send.dtype)
    sdis, rdis = _displacements(scounts), _displacements(rcounts)
    return _start(pg, "all_to_all_single",
                  lambda: [pg._comm.Ialltoallv([send, (scounts, sdis), typ],
                                               [recv, (rcounts, rdis), typ])],
                  lambda: write_back(view, recv), async_op=async_op,
                  keep=(input, output, send), result=(output,))


def _peer(pg, opname: str, rank, group_rank, what: str) -> int:
    if rank is None and group_rank is None:
        raise ValueError(f"{opname}: a {what} rank is required")
    peer = _root(pg, opname, rank, group_rank)
    if peer == pg.rank():
        word = "destination" if what == "destination" else "source"
        raise ValueError(f"Invalid {word} rank: {word} rank should not be the same as the "
                         f"rank of the current process.")
    return peer


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending ``tensor`` to rank ``dst``; returns a ``Work``."""
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "isend")
    if pg is None:
        return None
    peer = _peer(pg, "isend", dst, group_dst, "destination")
    _, buf = staged(tensor)
    typ = mpi_type(buf.dtype)
    return _start(pg, "send", lambda: [pg._comm.Isend([buf, typ], peer, int(tag))],
                  async_op=True, keep=(tensor, buf))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving into ``tensor`` from rank ``src`` (any rank when None);
    returns a ``Work``."""
    _check_tensor(tensor, "tensor")
    pg = _resolve(group, "irecv")
    if pg is None:
        return None
    MPI = mpi()
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _peer(
        pg, "irecv", src, group_src, "source")
    view, buf = staged(tensor)
    typ = mpi_type(buf.dtype)
    status = MPI.Status()
    work = _start(pg, "recv", lambda: [pg._comm.Irecv([buf, typ], peer, int(tag))],
                  lambda: write_back(view, buf), async_op=True, keep=(tensor,),
                  statuses=[status])
    work._status = status
    work._pg = pg
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None) -> None:
    """Sends ``tensor`` to rank ``dst`` (waits until the buffer may be reused).

    Args:
        tensor (Tensor): the data.
        dst (int): global rank of the receiver, or ``group_dst``.
        group (ProcessGroup, optional): the default group when None.
        tag (int): matches this send with a ``recv`` of the same tag.

    Example:
        >>> import ferric.distributed as dist
        >>> # rank 0: dist.send(t, dst=1)      rank 1: dist.recv(t, src=0)
    """
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None) -> int:
    """Receives into ``tensor`` from ``src`` (any rank when None); returns the sender's
    rank (-1 for a non-member)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    source = work._status.Get_source()
    return work._pg._ranks[source] if group is not None else source


class P2POp:
    """One point-to-point operation for ``batch_isend_irecv``: ``op`` is ``isend`` or
    ``irecv``."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        _check_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer = op, tensor, peer
        self.group, self.tag, self.group_peer = group, tag, group_peer


def batch_isend_irecv(p2p_op_list):
    """Starts every ``P2POp`` and returns their ``Work`` handles."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


def barrier(group=None, async_op=False, device_ids=None):
    """Blocks until every rank of the group has called ``barrier``."""
    pg = _resolve(group, "barrier")
    if pg is None:
        return None
    return _start(pg, "barrier", lambda: [pg._comm.Ibarrier()], async_op=async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False) -> None:
    """A barrier that raises ``DistBackendError`` after ``timeout`` (default: the
    group's) instead of waiting forever."""
    pg = _resolve(group, "monitored_barrier")
    if pg is None:
        return
    work = _start(pg, "monitored_barrier", lambda: [pg._comm.Ibarrier()], async_op=True)
    work.wait(timeout)
