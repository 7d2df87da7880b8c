"""How the profiler times calls: while a profile records, the public functions of
``ferric``, ``ferric.nn.functional``, ``ferric.linalg``, ``ferric.special`` and the
extension, and the methods and operators of ``Tensor``, are replaced by wrappers that
note ``(name, start, end, thread, shapes, stack)`` of each call; the autograd engine
notes its backward nodes itself (``_core._profiler_start``). Stopping puts the originals
back and turns the notes into ``FunctionEvent``\\ s nested by time, per thread, as
PyTorch's profiler nests them. Ops are named as PyTorch names them (``aten::add`` for
``a + b``, ``torch.add`` and ``a.add``)."""

from __future__ import annotations

import functools
import sys
import threading
import time

from .. import _core
from ._events import EventList, FunctionEvent

_ns = time.perf_counter_ns
_tid = threading.get_ident

# operators and their ops' names
_DUNDERS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide", "__mod__": "remainder",
    "__rmod__": "remainder", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__invert__": "bitwise_not", "__and__": "bitwise_and", "__or__": "bitwise_or",
    "__xor__": "bitwise_xor", "__lshift__": "__lshift__", "__rshift__": "__rshift__",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__getitem__": "index", "__setitem__": "index_put_",
}
# methods that answer questions about a tensor rather than compute: not ops
_NOT_OPS = frozenset({
    "dim", "ndimension", "size", "numel", "nelement", "stride", "storage_offset",
    "element_size", "is_contiguous", "is_floating_point", "is_complex", "data_ptr",
    "get_device", "type", "tolist", "numpy", "backward", "register_hook",
    "register_post_accumulate_grad_hook", "retain_grad", "requires_grad_", "is_shared",
    "is_pinned", "dim_order", "untyped_storage", "storage", "is_set_to", "has_names",
    "is_inference", "is_leaf", "__len__", "__iter__", "__repr__", "__str__", "__format__",
    "__hash__", "__reduce_ex__", "__setstate__", "__getstate__", "__array__", "__dlpack__",
    "__dlpack_device__", "__index__", "__int__", "__float__", "__bool__", "__contains__",
    "__deepcopy__", "__copy__", "__sizeof__", "__array_wrap__",
})

# functions of the namespaces that configure or query rather than compute
_SETTINGS = ("set_", "get_", "is_", "use_", "are_")
_NOT_OP_FUNCTIONS = frozenset({
    "manual_seed", "seed", "initial_seed", "compile", "load", "save", "show_config",
    "typename", "autobatch", "autocast", "enable_grad", "no_grad", "inference_mode",
})


class _State:
    """The profile that is recording (one at a time)."""

    def __init__(self):
        self.active = None      # the recording profile's options, or None
        self.notes: list = []
        self.origin = 0         # perf_counter_ns when recording began
        self.thread = 0         # the thread whose backward nodes the engine notes
        self.installed: list = []


state = _State()
_lock = threading.Lock()
_open = threading.local()    # per thread: the names of the timed calls in progress


def _shapes(args, kwargs):
    out = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, _core.Tensor):
            out.append(list(a.shape))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(t, _core.Tensor)
                                                        for t in a):
            out.append([list(t.shape) for t in a])
        else:
            out.append([])
    return out


def _stack():
    """``file(line): function`` of the caller's frames outside ferric, innermost first
    (read from the frames themselves: no source lines are loaded)."""
    out = []
    f = sys._getframe(2)    # past this function and the timing wrapper
    while f is not None:
        code = f.f_code
        if "/ferric/" not in code.co_filename.replace("\\", "/"):
            out.append(f"{code.co_filename}({f.f_lineno}): {code.co_name}")
        f = f.f_back
    return out


def _timed(fn, name):
    def profiled(*args, **kwargs):
        opts = state.active
        if opts is None:
            return fn(*args, **kwargs)
        inside = _open.__dict__.setdefault("names", [])
        if inside and inside[-1] == name:
            return fn(*args, **kwargs)   # `F.relu` calling `Tensor.relu`: one op
        inside.append(name)
        t0 = _ns()
        try:
            return fn(*args, **kwargs)
        finally:
            t1 = _ns()
            inside.pop()
            state.notes.append((name, t0, t1, _tid(),
                                _shapes(args, kwargs) if opts.record_shapes else None,
                                _stack() if opts.with_stack else None, False))
    return functools.update_wrapper(profiled, fn)


def _routable(obj):
    return callable(obj) and not isinstance(obj, type) and not isinstance(obj, property)


def _targets():
    """(owner, attribute, original, op name) of everything a profile times."""
    # by name, not by import: the profiler sits below the layers it times (and
    # `ferric.autograd.profiler` is built on it); every one is loaded once `ferric` is
    ferric = sys.modules["ferric"]
    spaces = ((sys.modules["ferric.nn.functional"], "aten::"), (ferric, "aten::"),
              (sys.modules["ferric.linalg"], "aten::linalg_"),
              (sys.modules["ferric.special"], "aten::special_"), (_core, "aten::"))
    out = []
    for mod, prefix in spaces:
        for name, obj in list(vars(mod).items()):
            if name.startswith("_") or not _routable(obj) or name in _NOT_OPS:
                continue
            module = getattr(obj, "__module__", None)
            if module is not None and not module.startswith("ferric"):
                continue    # a helper imported from elsewhere (math, typing, ...)
            if name.startswith(_SETTINGS) or name in _NOT_OP_FUNCTIONS:
                continue
            out.append((mod, name, obj, prefix + name))
    for name, obj in list(vars(_core.Tensor).items()):
        if name in _NOT_OPS or not _routable(obj):
            continue
        if name.startswith("__"):
            op = _DUNDERS.get(name)
            if op is None:
                continue
        elif name.startswith("_"):
            continue
        else:
            op = name
        out.append((_core.Tensor, name, obj, "aten::" + op))
    return out


def start(opts):
    """Starts recording with the options ``opts`` (record_shapes, with_stack)."""
    with _lock:
        if state.active is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        if not state.installed:
            state.installed = [(owner, name, old, _timed(old, op))
                               for owner, name, old, op in _targets()]
        for owner, name, _, new in state.installed:
            setattr(owner, name, new)
        state.notes = []
        state.thread = _tid()
        _core._profiler_start()
        state.origin = _ns()
        state.active = opts


def stop():
    """Stops recording; returns the calls as an ``EventList`` of nested events."""
    with _lock:
        if state.active is None:
            return EventList()
        state.active = None
        spans = _core._profiler_stop() if _tid() == state.thread else []
        for owner, name, old, _ in state.installed:
            setattr(owner, name, old)
        notes, state.notes = state.notes, []
    origin = state.origin
    rows = [(n, (t0 - origin) / 1e3, (t1 - origin) / 1e3, tid, shapes, stack, user)
            for n, t0, t1, tid, shapes, stack, user in notes]
    rows += [(n, t0 / 1e3, t1 / 1e3, state.thread, None, None, False) for n, t0, t1 in spans]
    return _nest(rows)


def note_user(name, t0, t1):
    """Notes a ``record_function`` range (perf_counter_ns times) while recording."""
    opts = state.active
    if opts is not None:
        state.notes.append((name, t0, t1, _tid(), [] if opts.record_shapes else None,
                            _stack() if opts.with_stack else None, True))


def _nest(rows):
    """``FunctionEvent``\\ s in start order, each with its parent and children: per
    thread, an event is a child of the innermost earlier event that encloses it."""
    rows.sort(key=lambda r: (r[3], r[1], -r[2]))
    events = EventList()
    open_: list[FunctionEvent] = []
    thread = None
    for i, (name, t0, t1, tid, shapes, stack, user) in enumerate(rows):
        if tid != thread:
            open_ = []
            thread = tid
        e = FunctionEvent(i + 1, name, tid, t0, t1, shapes, stack, user)
        while open_ and open_[-1].time_range.end < t1:
            open_.pop()
        if open_:
            e.cpu_parent = open_[-1]
            open_[-1].cpu_children.append(e)
        open_.append(e)
        events.append(e)
    events.sort(key=lambda e: e.time_range.start)
    for k, e in enumerate(events):
        e.id = k + 1
    return events
