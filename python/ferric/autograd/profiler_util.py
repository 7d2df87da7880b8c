"""``ferric.autograd.profiler_util``: the profiler's result types (see ``ferric.profiler``)."""

from __future__ import annotations

from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]
