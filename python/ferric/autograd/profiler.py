"""``ferric.autograd.profiler``: the older profiler API (``profile(use_cuda=...)``,
``record_function``), on the same recorder as ``ferric.profiler``."""

from __future__ import annotations

import warnings

from ..profiler import _Options, record_function
from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg
from ..profiler._record import start, stop

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class profile:
    """Records the ops run inside it; the result is a list of events that prints as a
    table (``print(prof)``) and has ``key_averages()``, ``table()``, ``total_average()``
    and ``export_chrome_trace()``.

    Args:
        enabled (bool): False makes the block record nothing.
        use_cuda (bool): must be False (a CPU-only build); deprecated in PyTorch.
        use_device (str, optional): ``"cpu"`` or None.
        record_shapes (bool): note the shapes of every op's inputs.
        with_stack (bool): note the Python call site of every op.
        with_flops, profile_memory, with_modules (bool): accepted; not recorded (a
            warning says so).
        use_kineto: accepted for compatibility, as are ``use_cpu``,
            ``experimental_config``, ``acc_events`` and ``custom_trace_id_callback``.

    Example:
        >>> import ferric
        >>> with ferric.autograd.profiler.profile() as prof:
        ...     y = (ferric.ones(3) * 2).sum()
        >>> "aten::sum" in [e.key for e in prof.key_averages()]
        True
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        if use_cuda:
            raise AssertionError("Torch not compiled with CUDA enabled")
        if use_device not in (None, "cpu"):
            raise AssertionError(f"the profiler of a CPU-only build cannot use {use_device}")
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.function_events: EventList | None = None
        self.entered = False
        skipped = [n for n, on in (("profile_memory", profile_memory),
                                   ("with_flops", with_flops),
                                   ("with_modules", with_modules)) if on]
        if skipped:
            warnings.warn(f"ferric.autograd.profiler does not record {', '.join(skipped)}",
                          stacklevel=2)

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        start(_Options(self.record_shapes, self.with_stack))
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.function_events = stop()
        return False

    def _events(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The recorded calls grouped by op name and summed.

        Args:
            group_by_input_shape (bool): separate calls with different input shapes.
            group_by_stack_n (int): separate calls by their innermost call sites.

        Example:
            >>> # print(prof.key_averages().table(sort_by="self_cpu_time_total"))
        """
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The recorded calls as a table (see ``EventList.table``).

        Args:
            sort_by (str, optional): the attribute to sort by, largest first.
            row_limit (int): at most this many rows.
            max_src_column_width, max_name_column_width, max_shapes_column_width (int):
                column width limits.
            header (str, optional): a line above the table.
            top_level_events_only (bool): only calls not made inside another.

        Example:
            >>> # print(prof.table(sort_by="cpu_time_total"))
        """
        return self._events().table(sort_by, row_limit, max_src_column_width,
                                    max_name_column_width, max_shapes_column_width, header,
                                    top_level_events_only)

    def total_average(self):
        """Every call summed into one average keyed ``Total``.

        Example:
            >>> # prof.total_average().cpu_time_total
        """
        return self._events().total_average()

    def export_chrome_trace(self, path):
        """Writes the recorded calls as a Chrome trace.

        Args:
            path (str): the file to write.

        Example:
            >>> # prof.export_chrome_trace("trace.json")
        """
        return self._events().export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        """The summed self time of every recorded call, in microseconds."""
        return self._events().self_cpu_time_total

    def __str__(self):
        return self._events().table()

    def __repr__(self):
        return "<unfinished torch.autograd.profile>" if self.function_events is None \
            else str(self)
