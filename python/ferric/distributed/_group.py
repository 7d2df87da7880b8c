"""Process groups over MPI communicators: ``init_process_group`` and the group
book-keeping (``get_rank``, ``new_group``, ``destroy_process_group``, ...).

The default group is a duplicate of ``MPI_COMM_WORLD`` (so ferric's traffic never
mixes with the user's own mpi4py calls); ``new_group`` makes sub-communicators.
"""

from __future__ import annotations

import datetime
import importlib.util
import os
import sys
import warnings

from ._backend import DistBackendError, _seconds, mpi

__all__ = [
    "Backend",
    "GroupMember",
    "ProcessGroup",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_node_local_rank",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "new_group",
]

#: PyTorch's default for CPU backends: 30 minutes.
default_pg_timeout = datetime.timedelta(minutes=30)

_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class Backend(str):
    """Backend names. ``"mpi"`` is ferric's backend; ``"gloo"`` (PyTorch's CPU default)
    is accepted and served by MPI too, so scripts written for it run unchanged.

    Example:
        >>> from ferric.distributed import Backend
        >>> Backend("MPI")
        'mpi'
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got "
                             f"{type(name)}")
        value = name.lower()
        if ":" in value:  # "cpu:gloo,cuda:nccl": ferric only has the CPU part
            parts = dict(p.split(":", 1) for p in value.split(",") if ":" in p)
            value = parts.get("cpu", value)
        if value not in (cls.GLOO, cls.NCCL, cls.UCC, cls.MPI, cls.XCCL):
            raise AssertionError(f"Unknown backend type {name}")
        return str.__new__(cls, value)


Backend.__module__ = "ferric.distributed"


class ProcessGroup:
    """A group of processes and the MPI communicator it runs on.

    ``rank()`` and ``size()`` are this process's rank in the group and the group's size.
    """

    def __init__(self, comm, ranks, timeout: float, backend: str = "mpi"):
        self._comm = comm
        self._ranks = list(ranks)  # global rank of each group rank
        self._timeout = timeout
        self._backend = backend
        self._index = {g: i for i, g in enumerate(self._ranks)}

    def rank(self) -> int:
        """This process's rank within the group (0 to ``size() - 1``)."""
        return self._comm.Get_rank()

    def size(self) -> int:
        """The number of processes in the group."""
        return self._comm.Get_size()

    def name(self) -> str:
        """The backend's name (``"mpi"``)."""
        return self._backend

    def group_rank(self, global_rank: int, opname: str) -> int:
        """The group rank of a global rank (ValueError when not a member)."""
        try:
            return self._index[int(global_rank)]
        except KeyError:
            raise ValueError(f"{opname}: Global rank {global_rank} is not part of group "
                             f"{self}") from None

    def __repr__(self):
        return f"<ProcessGroup backend={self._backend} ranks={self._ranks}>"


ProcessGroup.__module__ = "ferric.distributed"


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialised;
    ``GroupMember.NON_GROUP_MEMBER`` is what ``new_group`` returns to non-members."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


class _World:
    """``group.WORLD``: the default process group (``None`` before init)."""

    @property
    def WORLD(self):  # noqa: N802 - PyTorch's name
        return GroupMember.WORLD


group = _World()
GroupMember.__module__ = "ferric.distributed"

_groups: list[ProcessGroup] = []


def is_available() -> bool:
    """True when the MPI backend can be used (mpi4py is installed).

    Example:
        >>> import ferric.distributed as dist
        >>> isinstance(dist.is_available(), bool)
        True
    """
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    """True when the MPI backend can be used."""
    return is_available()


def is_gloo_available() -> bool:
    """Gloo itself is not part of ferric (``backend="gloo"`` is served by MPI)."""
    return False


def is_nccl_available() -> bool:
    """ferric runs on CPUs only: no NCCL."""
    return False


def is_torchelastic_launched() -> bool:
    """True when started by ``python -m ferric.distributed.run`` (or torchrun)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    """True after ``init_process_group`` and before ``destroy_process_group``."""
    return GroupMember.WORLD is not None


def _env_int(*names):
    for n in names:
        v = os.environ.get(n)
        if v not in (None, ""):
            try:
                return n, int(v)
            except ValueError:
                raise ValueError(f"environment variable {n}={v!r} is not an integer") from None
    return None, None


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its node: ``LOCAL_RANK``, else the MPI launcher's
    (Open MPI ``OMPI_COMM_WORLD_LOCAL_RANK``, MPICH ``MPI_LOCALRANKID``), else
    ``fallback_rank``."""
    _, v = _env_int("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                    "PMI_LOCAL_RANK")
    if v is not None:
        return v
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing "
                       "fallback_rank to allow `get_node_local_rank` to work, assuming you "
                       "are not running in a multi-device context and want the code to run "
                       "locally instead.")


def _abort_on_uncaught_exception(comm):
    """An uncaught exception on one rank ends the whole job at once.

    Without this the failing rank would block in ``MPI_Finalize`` at exit while the
    others wait in a collective it never joins; with it, the traceback is printed and
    ``MPI_Abort`` makes ``mpiexec`` stop every rank.
    """
    if getattr(sys.excepthook, "_ferric_abort", False):
        return  # installed by an earlier init_process_group
    previous = sys.excepthook

    def hook(tp, value, tb):
        previous(tp, value, tb)
        if GroupMember.WORLD is not None and comm.Get_size() > 1:
            sys.stderr.write(f"[rank {comm.Get_rank()}] uncaught {tp.__name__}: aborting "
                             f"the MPI job so the other ranks do not wait for this one\n")
            sys.stderr.flush()
            comm.Abort(1)

    hook._ferric_abort = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1,
                       rank=-1, store=None, group_name="", pg_options=None, device_id=None):
    """Joins this process to the job's default process group.

    Processes are started by ``mpiexec -n N python script.py`` or
    ``python -m ferric.distributed.run --nproc-per-node N script.py``; MPI knows each
    one's rank. ``rank`` / ``world_size`` (or ``RANK`` / ``WORLD_SIZE`` in the
    environment) are checked against MPI's and must agree.

    Args:
        backend (str, optional): ``"mpi"`` (default) or ``"gloo"`` (served by MPI).
        init_method (str, optional): accepted for compatibility; MPI does the rendezvous.
        timeout (timedelta, optional): how long a collective may wait for the other
            ranks before raising ``DistBackendError`` (default 30 minutes, as PyTorch's).
        world_size (int, optional): the number of processes, if given.
        rank (int, optional): this process's rank, if given.
        store, group_name, pg_options, device_id: accepted for compatibility.

    Example:
        >>> import ferric.distributed as dist
        >>> # dist.init_process_group("mpi"); dist.get_rank(), dist.get_world_size()
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else Backend.MPI)
    if name in (Backend.NCCL, Backend.XCCL, Backend.UCC):
        raise RuntimeError(f"Distributed package doesn't have {name.upper()} built in "
                           f"(ferric runs on CPUs: use backend='mpi')")
    seconds = _seconds(timeout) if timeout is not None else _seconds(default_pg_timeout)
    if seconds <= 0:
        raise ValueError(f"init_process_group: timeout must be positive, got {timeout}")
    MPI = mpi()
    world = MPI.COMM_WORLD
    size, me = world.Get_size(), world.Get_rank()
    for label, given, env in (("world_size", world_size, ("WORLD_SIZE",)),
                              ("rank", rank, ("RANK",))):
        truth = size if label == "world_size" else me
        if given is not None and int(given) >= 0:
            source, value = label, int(given)
        else:
            source, value = _env_int(*env)
        if value is not None and value != truth:
            raise ValueError(
                f"init_process_group: {source}={value} but MPI started this process as rank "
                f"{me} of {size}. Start the processes with `mpiexec -n N python ...` or "
                f"`python -m ferric.distributed.run --nproc-per-node N ...`.")
    comm = world.Dup()
    comm.Set_errhandler(MPI.ERRORS_RETURN)
    GroupMember.WORLD = ProcessGroup(comm, range(size), seconds, str(name))
    _groups.append(GroupMember.WORLD)
    _abort_on_uncaught_exception(world)


def _resolve(group_, opname: str = "") -> ProcessGroup | None:
    """The group to use: the default one when ``group_`` is None; ``None`` when this
    process is not a member (the call is then a no-op, as in PyTorch)."""
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INIT)
    if group_ is None:
        return GroupMember.WORLD
    if group_ is GroupMember.NON_GROUP_MEMBER:
        if opname:
            warnings.warn(f"Running {opname} on global rank {get_rank()} which does not "
                          f"belong to the given group.", stacklevel=3)
        return None
    if not isinstance(group_, ProcessGroup):
        raise TypeError(f"{opname or 'ferric.distributed'}: group must be a ProcessGroup, "
                        f"got {type(group_).__name__}")
    return group_


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (the default group when None); -1 for a
    non-member."""
    pg = _resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    """The number of processes in ``group`` (the default group when None); -1 for a
    non-member."""
    pg = _resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    """The backend name of ``group``."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg.name()


def get_process_group_ranks(group) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return list(pg._ranks)


def get_global_rank(group, group_rank: int) -> int:
    """The global rank of ``group_rank`` in ``group``."""
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    """The rank in ``group`` of the process whose global rank is ``global_rank``."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg.group_rank(global_rank, "get_group_rank")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """Creates a process group of the given global ranks (all ranks when None).

    Every process of the default group must call it, members or not, as in PyTorch.
    Non-members get ``GroupMember.NON_GROUP_MEMBER``; collectives on it are no-ops.
    """
    world = _resolve(None)
    size = world.size()
    members = list(range(size)) if ranks is None else sorted(int(r) for r in ranks)
    for r in members:
        if not 0 <= r < size:
            raise ValueError(f"new_group: rank {r} is out of range for a world of {size}")
    if len(set(members)) != len(members):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    MPI = mpi()
    sub = world._comm.Create(world._comm.Get_group().Incl(members))
    if sub == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    sub.Set_errhandler(MPI.ERRORS_RETURN)
    seconds = world._timeout if timeout is None else _seconds(timeout)
    pg = ProcessGroup(sub, members, seconds, world.name())
    _groups.append(pg)
    return pg


def destroy_process_group(group=None) -> None:
    """Frees ``group`` (all groups, and the default one, when None). MPI itself stays
    initialised (it cannot be restarted), so ``init_process_group`` may be called again.
    """
    if group is None or group is GroupMember.WORLD:
        if GroupMember.WORLD is None:
            raise AssertionError("Process group cannot be None")
        for pg in _groups:
            _free(pg)
        _groups.clear()
        GroupMember.WORLD = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group not in _groups:
        raise ValueError("Invalid process group specified")
    _groups.remove(group)
    _free(group)


def _free(pg: ProcessGroup) -> None:
    try:
        pg._comm.Free()
    except mpi().Exception as e:
        raise DistBackendError(f"destroy_process_group: MPI failed to free the group: {e}") \
            from e
