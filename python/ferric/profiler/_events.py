"""The profiler's results: ``FunctionEvent`` (one timed call), ``FunctionEventAvg`` (the
calls of one name, summed) and ``EventList`` (a list of either, which prints as PyTorch's
profiler table and exports a Chrome trace). Times are in microseconds, as in PyTorch."""

from __future__ import annotations

import json

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]

_COLUMN = 12    # the width of every numeric column
_SPACING = 2    # the blank between columns


def _format_time(us):
    """``1.234ms``: three decimals in the largest unit that keeps the value >= 1."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _in_unit(us, unit):
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return _format_time(us)


def _share(us, total):
    if total == 0:
        return "NaN" if us == 0 else "inf"
    return f"{us * 100.0 / total:.2f}%"


class _FormattedTimesMixin:
    """The ``*_str`` properties both event classes share (PyTorch's
    ``FormattedTimesMixin``): their times formatted as the table prints them."""

    @property
    def self_cpu_time_total_str(self):
        """``self_cpu_time_total`` formatted as the table prints it."""
        return _format_time(self.self_cpu_time_total)

    @property
    def cpu_time_total_str(self):
        """``cpu_time_total`` formatted as the table prints it."""
        return _format_time(self.cpu_time_total)

    @property
    def cpu_time_str(self):
        """``cpu_time`` formatted as the table prints it."""
        return _format_time(self.cpu_time)


class FunctionEvent(_FormattedTimesMixin):
    """One timed call: an op, a backward node, or a ``record_function`` range.

    Attributes:
        id (int): its number in the profile.
        name (str): the op's name (``aten::mm``, ``MulBackward0``, a user label).
        thread (int): the thread that ran it.
        time_range: ``start``/``end``/``elapsed_us()`` in microseconds since the profile
            began.
        input_shapes (list): the shapes of its inputs (``[]`` for a non-tensor), when the
            profile recorded shapes.
        stack (list[str]): ``file(line): function`` of the Python frames that called it,
            innermost first, when the profile recorded stacks.
        cpu_children (list[FunctionEvent]): the calls made inside it.
        cpu_parent (FunctionEvent or None): the call it was made in.
    """

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, stack=None,
                 is_user_annotation=False):
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = _Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.node_id = -1
        self.overload_name = ""
        self.sequence_nr = -1
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_type = "DeviceType.CPU"

    @property
    def key(self):
        """The name the event is grouped by in ``key_averages``."""
        return self.name

    @property
    def cpu_time_total(self):
        """The time from the call's start to its end, in microseconds."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """``cpu_time_total`` less the time of the calls made inside it."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        """The time per call (for one event: ``cpu_time_total``)."""
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name= "
                f"device_type={self.device_type} node_id={self.node_id} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start:.3f} "
                f"end_us={self.time_range.end:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"name={self.name} thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} is_async={self.is_async} "
                f"is_remote={self.is_remote} seq_nr={self.sequence_nr} "
                f"is_legacy={self.is_legacy}>")


class _Interval:
    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class FunctionEventAvg(_FormattedTimesMixin):
    """The calls that share a key (a name, and optionally input shapes or a stack),
    summed: what ``key_averages()`` lists.

    Attributes:
        key (str): the name.
        count (int): how many calls.
        cpu_time_total, self_cpu_time_total (float): summed, in microseconds (the
            per-call mean is ``cpu_time``).
        input_shapes, stack: the group's, when grouping by them.
    """

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_user_annotation = False
        self.overload_name = ""
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.cpu_parent = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0

    def add(self, other):
        """Adds an event (or another average) of the same key."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_user_annotation = other.is_user_annotation
            self.cpu_parent = other.cpu_parent
            self.input_shapes = other.input_shapes
            self.stack = other.stack
        elif other.key != self.key:
            raise AssertionError(f"cannot add an event of key {other.key!r} to {self.key!r}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        """The time per call (for one event: ``cpu_time_total``)."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self):
        shapes = str(self.input_shapes) if self.input_shapes else ""
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str}"
                f" cpu_time={self.cpu_time_str} input_shapes={shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of ``FunctionEvent``/``FunctionEventAvg`` that prints as a table."""

    def __init__(self, *args, **kwargs):
        kwargs.pop("use_device", None)
        kwargs.pop("use_cuda", None)
        self._profile_memory = kwargs.pop("profile_memory", False)
        self._with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        """The summed self time of every event (the profile's total CPU time)."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events grouped by name (and input shapes, and the innermost
        ``group_by_stack_n`` stack frames, when asked), each group summed.

        Args:
            group_by_input_shapes (bool): separate calls with different input shapes.
            group_by_stack_n (int): separate calls from different call sites (needs a
                profile with ``with_stack=True``).
            group_by_overload_name (bool): accepted; ferric's ops have no overloads.

        Example:
            >>> # prof.key_averages().table(sort_by="self_cpu_time_total")
        """
        groups: dict = {}
        for e in self:
            key = (e.key,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(e)
        out = EventList(groups.values(), profile_memory=self._profile_memory)
        for avg in out:
            avg.stack = list(avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return out

    def total_average(self):
        """Every event summed into one ``FunctionEventAvg`` keyed ``Total``.

        Example:
            >>> # prof.events().total_average().cpu_time_total
        """
        total = FunctionEventAvg()
        for e in self:
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.count += e.count
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's profiler table.

        Args:
            sort_by (str, optional): an attribute to sort by, largest first
                (``cpu_time_total``, ``self_cpu_time_total``, ``cpu_time``, ``count``).
            row_limit (int): at most this many rows.
            max_src_column_width, max_name_column_width, max_shapes_column_width (int):
                column width limits.
            header (str, optional): a line printed above the table.
            top_level_events_only (bool): only the events not called from another.
            time_unit (str, optional): ``"s"``, ``"ms"`` or ``"us"`` for every time.

        Example:
            >>> # print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
        """
        return _table(self, sort_by, row_limit, max_src_column_width, max_name_column_width,
                      max_shapes_column_width, header, top_level_events_only, time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (``chrome://tracing``, Perfetto) to ``path``.

        Args:
            path (str): the file to write.

        Example:
            >>> # prof.export_chrome_trace("trace.json")
        """
        events = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                raise RuntimeError("export_chrome_trace needs the profile's events, not their "
                                   "key_averages()")
            args = {}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if e.stack:
                args["Call stack"] = ";".join(e.stack)
            events.append({
                "name": e.name, "ph": "X", "ts": e.time_range.start,
                "dur": e.time_range.elapsed_us(), "pid": "CPU functions", "tid": e.thread,
                "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                "args": args,
            })
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


def _table(events, sort_by, row_limit, max_src_width, max_name_width, max_shapes_width,
           header, top_level_only, time_unit):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by), reverse=True)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_width is not None:
        name_width = min(name_width, max_name_width)
    has_shapes = any(e.input_shapes for e in events)
    stacks = [e.stack for e in events if e.stack]

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    widths = [name_width] + [_COLUMN] * 5
    aligns = [">"] * 6
    headers.append("# of Calls")
    widths.append(_COLUMN)
    aligns.append(">")
    if has_shapes:
        shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
        if max_shapes_width is not None:
            shapes_width = min(shapes_width, max_shapes_width)
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        src_width = max(len(line) for s in stacks for line in s) + 4
        if max_src_width is not None:
            src_width = min(src_width, max_src_width)
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    row_format = "".join("{: " + a + str(w) + "}" + " " * _SPACING
                         for a, w in zip(aligns, widths, strict=True))
    sep = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(widths) + _SPACING * (len(widths) - 1)

    total_self = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, row_format.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        row = [name, _share(e.self_cpu_time_total, total_self),
               _in_unit(e.self_cpu_time_total, time_unit),
               _share(e.cpu_time_total, total_self), _in_unit(e.cpu_time_total, time_unit),
               _in_unit(e.cpu_time, time_unit)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            first = e.stack[0] if e.stack else ""
            row.append(first[-src_width:] if len(first) > src_width else first)
        out.append(row_format.format(*row))
        if stacks and e.stack:
            blank = [""] * (len(row) - 1)
            for line in e.stack[1:]:
                out.append(row_format.format(*blank, line[-src_width:]))
    out += [sep, f"Self CPU time total: {_in_unit(total_self, time_unit)}"]
    return "".join(line + "\n" for line in out)
