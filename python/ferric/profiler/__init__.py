"""``ferric.profiler``: where the time of a model goes, op by op, with PyTorch's API.

``with profile() as prof:`` times every op a region runs (the functions of ``ferric``,
``ferric.nn.functional``, ``ferric.linalg`` and ``ferric.special``, the methods and
operators of tensors) and every node of its backward passes, named as PyTorch names them
(``aten::addmm``, ``autograd::engine::evaluate_function: AddmmBackward0``);
``record_function("name")`` adds ranges of your own. ``prof.key_averages().table()``
prints PyTorch's table, ``prof.export_chrome_trace(path)`` writes a trace for
``chrome://tracing`` or Perfetto, and ``schedule`` / ``step()`` / ``on_trace_ready``
profile chosen steps of a training loop. ferric runs on the CPU only: the CUDA activity
and memory columns are not recorded.
"""

from __future__ import annotations

import enum
import gzip
import os
import socket
import time
import warnings

from ._events import EventList, FunctionEvent, FunctionEventAvg
from ._record import note_user, start, stop

__all__ = [
    "EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction", "ProfilerActivity",
    "profile", "record_function", "schedule", "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """The kinds of activity a profile can record; ferric records ``CPU``."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` tells the profiler to do at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    """The activities this build can record: ``{ProfilerActivity.CPU}``.

    Example:
        >>> import ferric
        >>> ferric.profiler.supported_activities()
        {<ProfilerActivity.CPU: 0>}
    """
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A profiling schedule for ``profile(schedule=...)``: after ``skip_first`` steps,
    cycles of ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps (the
    last of which hands the trace to ``on_trace_ready``), ``repeat`` times (0: forever).

    Args:
        wait, warmup, active (int): the lengths of the three phases of a cycle.
        repeat (int): the number of cycles; 0 repeats until the profile ends.
        skip_first (int): steps to ignore before the first cycle.
        skip_first_wait (int): 1 to leave out the first cycle's wait phase.

    Example:
        >>> import ferric
        >>> s = ferric.profiler.schedule(wait=1, warmup=1, active=2)
        >>> [s(i).name for i in range(4)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        span = wait + warmup + active
        idle = wait
        if skip_first_wait:
            step += wait     # the first cycle starts at its warmup
        if repeat > 0 and step // span >= repeat:
            return ProfilerAction.NONE
        pos = step % span
        if pos < idle:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < span - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _default_schedule(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` handler that writes each trace into ``dir_name`` as
    ``{worker_name}.{timestamp}.pt.trace.json`` (``.gz`` with ``use_gzip``), the files
    TensorBoard's profiler plugin reads.

    Args:
        dir_name (str): the directory (created if missing).
        worker_name (str, optional): default ``{hostname}_{pid}``.
        use_gzip (bool): compress the files.

    Example:
        >>> # with profile(on_trace_ready=tensorboard_trace_handler("./log")) as p: ...
    """
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json")
        if use_gzip:
            tmp = path + ".tmp"
            prof.export_chrome_trace(tmp)
            with open(tmp, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                dst.write(src.read())
            os.remove(tmp)
        else:
            prof.export_chrome_trace(path)

    return handler


class _Options:
    __slots__ = ("record_shapes", "with_stack")

    def __init__(self, record_shapes, with_stack):
        self.record_shapes = record_shapes
        self.with_stack = with_stack


class profile:
    """Records the ops run inside it (see the module docs).

    Args:
        activities (iterable of ProfilerActivity, optional): default all supported;
            ``CUDA`` is accepted and records nothing (a CPU-only build).
        schedule (callable, optional): step number -> ``ProfilerAction``
            (see :func:`schedule`); default: record throughout.
        on_trace_ready (callable, optional): called with the profiler when a scheduled
            recording ends.
        record_shapes (bool): note the shapes of every op's inputs.
        profile_memory (bool): accepted; ferric does not record memory (a warning says so).
        with_stack (bool): note the Python call site of every op.
        with_flops, with_modules (bool): accepted; not recorded (a warning says so).
        experimental_config: accepted for compatibility, as are
            ``execution_trace_observer``, ``acc_events``, ``use_cuda``,
            ``custom_trace_id_callback`` and ``post_processing_timeout_s``.

    Example:
        >>> import ferric
        >>> from ferric.profiler import profile, record_function
        >>> with profile() as prof:
        ...     with record_function("step"):
        ...         y = (ferric.ones(3) * 2).sum()
        >>> "aten::mul" in [e.key for e in prof.key_averages()]
        True
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule if schedule is not None else _default_schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._events: EventList | None = None
        self._recording = False
        skipped = [n for n, on in (("profile_memory", profile_memory),
                                   ("with_flops", with_flops),
                                   ("with_modules", with_modules)) if on]
        if skipped:
            warnings.warn(f"ferric.profiler does not record {', '.join(skipped)}; the "
                          f"profile has times and shapes only", stacklevel=2)

    # -- recording -----------------------------------------------------------------------
    def _begin(self):
        if not self._recording:
            start(_Options(self.record_shapes, self.with_stack))
            self._recording = True

    def _end(self):
        if self._recording:
            self._recording = False
            events = stop()
            if self.acc_events and self._events is not None:
                events = EventList(list(self._events) + list(events))
            self._events = events

    def start(self):
        """Starts profiling (as entering the ``with`` block does).

        Example:
            >>> import ferric
            >>> p = ferric.profiler.profile(); p.start(); p.stop()
        """
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def stop(self):
        """Stops profiling (as leaving the ``with`` block does); a recording in progress
        is handed to ``on_trace_ready``.

        Example:
            >>> import ferric
            >>> p = ferric.profiler.profile(); p.start(); p.stop()
        """
        was = self._recording
        self._end()
        if was and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def step(self):
        """Marks the end of a training step: the schedule decides what the next step
        records, and a finished recording goes to ``on_trace_ready``.

        Example:
            >>> # for batch in data: train(batch); prof.step()
        """
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev == ProfilerAction.RECORD_AND_SAVE or (
                prev in recording and self.current_action not in recording):
            self._end()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if self.current_action in recording:
            self._begin()

    # -- results -------------------------------------------------------------------------
    def events(self):
        """Every recorded call as an ``EventList`` of ``FunctionEvent``\\ s.

        Example:
            >>> # prof.events()[0].name
        """
        if self._recording:
            raise RuntimeError("profiler's events are read after it stops")
        return self._events if self._events is not None else EventList()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The recorded calls grouped by op name and summed (see
        ``EventList.key_averages``).

        Args:
            group_by_input_shape (bool): separate calls with different input shapes
                (needs ``record_shapes=True``).
            group_by_stack_n (int): separate calls by their innermost call sites (needs
                ``with_stack=True``).
            group_by_overload_name (bool): accepted for compatibility.

        Example:
            >>> # print(prof.key_averages().table(sort_by="cpu_time_total"))
        """
        return self.events().key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def export_chrome_trace(self, path):
        """Writes the recorded calls as a Chrome trace.

        Args:
            path (str): the file to write.

        Example:
            >>> # prof.export_chrome_trace("trace.json")
        """
        return self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Writes the recorded call stacks with their times, one ``frame;frame;op time``
        line each (the input of flame graph tools); needs ``with_stack=True``.

        Args:
            path (str): the file to write.
            metric (str): ``self_cpu_time_total`` (the only one a CPU build has).

        Example:
            >>> # prof.export_stacks("stacks.txt")
        """
        if not self.with_stack:
            raise RuntimeError("export_stacks() requires with_stack=True")
        with open(path, "w") as f:
            for e in self.events():
                if e.stack:
                    value = int(getattr(e, metric))
                    frames = ";".join(reversed(e.stack))
                    f.write(f"{frames};{e.name} {value}\n")

    def export_memory_timeline(self, path, device=None):
        """Not recorded by ferric (no memory profile): raises ``RuntimeError``.

        Args:
            path (str): the file PyTorch would write.
            device (str, optional): the device.

        Example:
            >>> # prof.export_memory_timeline("mem.html")  # RuntimeError
        """
        raise RuntimeError("ferric.profiler does not record memory")

    def __str__(self):
        return self.key_averages().table()


class record_function:
    """A named range in the profile, as a context manager or a decorator; costs nothing
    when no profile records.

    Args:
        name (str): the label shown in the table.
        args (str, optional): accepted for compatibility.

    Example:
        >>> import ferric
        >>> with ferric.profiler.record_function("loss"):
        ...     y = ferric.ones(2).sum()
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._t0 = None

    def __enter__(self):
        self._t0 = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        note_user(self.name, self._t0, time.perf_counter_ns())
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper
