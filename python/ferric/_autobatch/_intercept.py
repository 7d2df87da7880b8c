"""Where a region meets user code: the methods of :class:`Pending` and the functions a
region routes through its rules.

- ``Pending`` gets every ``Tensor`` method at import: those with a rule record a node,
  every other one evaluates the pending graph first (the object then *is* an ordinary
  tensor) and calls the tensor's own method. Shape, dtype and dimension queries answer
  from the node.
- While a region is active, the public functions of ``ferric``, ``ferric.nn.functional``,
  ``ferric.autograd``, ``ferric.special`` and ``ferric.linalg`` are replaced by wrappers:
  a function with a rule records, any other evaluates first when it is given a pending
  tensor or writes in place (a name ending in ``_``, ``out=``, ``inplace=True``). The
  in-place methods of ``Tensor`` (``add_``, ``__setitem__``, ``__iadd__``, ...) also
  evaluate first, so a write never changes what a pending op reads. ``LSTMCell`` and
  ``GRUCell`` route their calls to the cell rule. Leaving the region puts the
  originals back.
"""

from __future__ import annotations

import operator
import threading
import types

from .. import _core
from ._graph import Pending, state
from ._rules import (
    Binary,
    Join,
    Linear,
    Matmul,
    Reduce,
    Split,
    Unary,
    View,
    _flip,
)
from ._rules_extra import DimUnary, GetItem
from ._rules_nn import Cell, CrossEntropy, Embedding

Tensor = _core.Tensor
_get_ident = threading.get_ident


def _foreign():
    return RuntimeError(
        "ferric.autobatch: a pending tensor was used on a thread other than the one whose "
        "autobatch region created it; pending tensors belong to their region's thread")


def evaluate_for(h):
    """Evaluates the graph that the pending tensor ``h`` belongs to."""
    g = state.region
    if g is None or type(h) is not Pending:
        if type(h) is Pending:
            raise RuntimeError(
                "ferric.autobatch: this pending tensor's region ended without computing it "
                "(the region was left by an exception raised while evaluating)")
        return
    if g.thread != _get_ident():
        raise _foreign()
    g.evaluate()


def suspended(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with the region switched off: an op without a rule runs
    eagerly all the way down (its own inner ops, which may call the extension directly,
    must not record)."""
    if not state.recording:
        return fn(*args, **kwargs)
    state.recording = False
    try:
        return fn(*args, **kwargs)
    finally:
        state.recording = True


def _has_pending(args, kwargs):
    for a in args:
        t = type(a)
        if t is Pending or ((t is list or t is tuple or t is dict) and _nested_pending(a, 3)):
            return True
    if kwargs:
        for a in kwargs.values():
            t = type(a)
            if t is Pending or ((t is list or t is tuple or t is dict) and
                                _nested_pending(a, 3)):
                return True
    return False


def _nested_pending(c, depth):
    """Whether the list/tuple/dict ``c`` holds a pending tensor (``depth`` levels)."""
    for a in (c.values() if type(c) is dict else c):
        t = type(a)
        if t is Pending:
            return True
        if depth > 1 and (t is list or t is tuple or t is dict) and _nested_pending(
                a, depth - 1):
            return True
    return False


def _evaluate_if_needed(args, kwargs, writes):
    g = state.region
    if g is None or not g.pending:
        return
    if writes or _has_pending(args, kwargs):
        if g.thread != _get_ident():
            if _has_pending(args, kwargs):
                raise _foreign()
            return
        g.evaluate()


# --------------------------------------------------------------------------------------
# the rules of functions and methods
# --------------------------------------------------------------------------------------
_UNARY = ("sigmoid", "tanh", "exp", "log", "relu", "sqrt", "rsqrt", "sin", "cos", "abs",
          "neg", "negative", "expm1", "log1p", "log2", "exp2", "erf", "reciprocal",
          "square", "sinh", "cosh", "atan", "asin", "acos", "softplus", "gelu", "silu",
          "mish", "elu", "selu", "celu", "leaky_relu", "hardtanh", "relu6",
          "logsigmoid", "softsign", "tanhshrink", "hardsigmoid", "hardswish")


def _build_rules():
    """name -> rule, for ``ferric.*``, ``F.*`` and ``Tensor`` methods alike (a name means
    the same op in all three places)."""
    import ferric.nn.functional as F

    rules = {}
    for name in _UNARY:
        fn = getattr(F, name, None) or getattr(Tensor, name, None)
        if fn is not None:
            rules[name] = Unary(name, fn)
    for name, fn, kw in (("add", _core.add, ("alpha",)), ("sub", _core.sub, ("alpha",)),
                         ("mul", _core.mul, ()), ("div", _core.div, ()),
                         ("pow", _core.pow, ())):
        rules[name] = Binary(name, fn, kw)
    for name, fn in (("maximum", _core.maximum), ("minimum", _core.minimum)):
        rules[name] = Binary(name, fn, tensors_only=True)    # no Python numbers
    rules["subtract"] = rules["sub"]
    rules["multiply"] = rules["mul"]
    rules["true_divide"] = rules["divide"] = rules["div"]
    ops = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
           "truediv": operator.truediv, "pow": operator.pow}
    for name, fn in ops.items():
        rules[f"__{name}__"] = Binary(name, fn)
        rules[f"__r{name}__"] = Binary(name, _flip(fn), num_first=True)
    rules["__neg__"] = Unary("neg", operator.neg)
    rules["linear"] = Linear(F.linear)
    mm = Matmul(operator.matmul)
    rules["matmul"] = rules["mm"] = rules["__matmul__"] = mm
    rules["__rmatmul__"] = Matmul(_flip(operator.matmul))
    rules["cat"] = rules["concat"] = rules["concatenate"] = Join(
        "cat", lambda parts, d: _core.cat(parts, d), stack=False)
    rules["stack"] = Join("stack", lambda parts, d: _core.stack(parts, d), stack=True)
    for kind in ("chunk", "split", "unbind"):
        rules[kind] = Split(kind)
    for kind in ("view", "reshape", "unsqueeze", "squeeze", "transpose", "permute", "t",
                 "narrow", "select"):
        rules[kind] = View(kind)
    rules["swapaxes"] = rules["swapdims"] = rules["transpose"]
    rules["sum"] = Reduce("sum", lambda x, d, k: x.sum(d, keepdim=k))
    rules["mean"] = Reduce("mean", lambda x, d, k: x.mean(d, keepdim=k))
    rules["softmax"] = DimUnary("softmax", F.softmax)
    rules["log_softmax"] = DimUnary("log_softmax", F.log_softmax)
    rules["__getitem__"] = GetItem()
    rules["embedding"] = Embedding(F.embedding)
    rules["cross_entropy"] = CrossEntropy(F.cross_entropy)
    return rules


# functions of these names are recorded only through the module that defines them
# (ferric.nn.functional): ferric.embedding etc. are lower-level entry points
_F_ONLY = {"linear", "embedding", "cross_entropy"}


def _like(wrapper, orig):
    """``wrapper`` named and documented as ``orig`` (which ``__wrapped__`` gives back)."""
    wrapper.__wrapped__ = orig
    wrapper.__name__ = getattr(orig, "__name__", "routed")
    wrapper.__doc__ = getattr(orig, "__doc__", None)
    return wrapper


def _rule_function(orig, rule):
    def routed(*args, **kwargs):
        g = state.region
        if g is None:
            return orig(*args, **kwargs)
        if g.thread != _get_ident():
            if g.pending and _has_pending(args, kwargs):
                raise _foreign()
            return orig(*args, **kwargs)
        if state.recording:
            r = rule.record(g, args, kwargs)
            if r is not NotImplemented:
                return r
        if g.pending and _has_pending(args, kwargs):
            g.evaluate()
        return suspended(orig, *args, **kwargs)

    return _like(routed, orig)


def _evaluating_function(orig, writes_always):
    def routed(*args, **kwargs):
        g = state.region
        if g is None:
            return orig(*args, **kwargs)
        if g.pending:
            writes = writes_always or (kwargs and (kwargs.get("out") is not None
                                                   or kwargs.get("inplace") is True))
            _evaluate_if_needed(args, kwargs, writes)
        if g.thread != _get_ident():
            return orig(*args, **kwargs)
        return suspended(orig, *args, **kwargs)

    return _like(routed, orig)


def _evaluating_method(orig, writes):
    """A method of ordinary tensors without a rule: evaluates first when it writes in
    place (and something is pending) or gets a pending argument, then runs with the
    region off (hooks, backward, Python-level methods never record)."""
    def routed(self, *args, **kwargs):
        g = state.region
        if g is None:
            return orig(self, *args, **kwargs)
        if g.thread != _get_ident():
            if g.pending and _has_pending(args, kwargs):
                raise _foreign()
            return orig(self, *args, **kwargs)
        if g.pending and (writes or _has_pending(args, kwargs)):
            g.evaluate()
        return suspended(orig, self, *args, **kwargs)

    return _like(routed, orig)


def _evaluating_property(desc):
    """``Tensor.grad``/``Tensor.data`` whose setter evaluates a pending value first."""
    def get(self):
        return desc.__get__(self, Tensor)

    def set_(self, value):
        g = state.region
        if g is not None and type(value) is Pending:
            if g.thread != _get_ident():
                raise _foreign()
            g.evaluate()
        desc.__set__(self, value)

    def delete(self):
        desc.__delete__(self)

    return property(get, set_, delete, getattr(desc, "__doc__", None))


def _is_routable(obj):
    return isinstance(obj, (types.BuiltinFunctionType, types.FunctionType,
                            types.MethodDescriptorType))


_INPLACE_DUNDERS = ("__setitem__", "__delitem__", "__iadd__", "__isub__", "__imul__",
                    "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
                    "__ior__", "__ixor__")


class Patches:
    """The replacements a region installs, built once."""

    def __init__(self):
        import sys

        import ferric.autograd
        import ferric.linalg
        import ferric.nn.functional as F
        import ferric.onnx
        import ferric.special
        from ferric.nn.modules.rnn import GRUCell, LSTMCell

        # the package namespace itself (by name: its __init__ imports this module)
        ferric = sys.modules["ferric"]
        self.rules = rules = _build_rules()
        self.items: list[tuple[object, str, object, object]] = []
        seen: dict[int, object] = {}
        for mod in (F, ferric, ferric.autograd, ferric.special, ferric.linalg, ferric.onnx):
            for name, obj in list(vars(mod).items()):
                if name.startswith("__") or not _is_routable(obj):
                    continue
                if name == "autobatch":
                    continue
                new = seen.get(id(obj))
                if new is None:
                    rule = rules.get(name)
                    if rule is not None and (mod is F or name not in _F_ONLY):
                        new = _rule_function(obj, rule)
                    else:
                        new = _evaluating_function(obj, name.endswith("_"))
                    seen[id(obj)] = new
                self.items.append((mod, name, obj, new))
        # ops on ordinary tensors record too (an example's own inputs get stacked)
        tensor_dict = vars(Tensor)
        for name, rule in rules.items():
            if isinstance(rule, (Unary, Binary, Matmul)) and name in tensor_dict:
                obj = tensor_dict[name]
                self.items.append((Tensor, name, obj, _rule_function(obj, rule)))
        # every function of the extension, as Python code (ferric's own, or a function
        # imported by name before the region) calls it: a pending argument is evaluated
        # first, and the in-place entry points (the optimizers' fused steps) evaluate
        # what is pending before they write
        for name, obj in list(vars(_core).items()):
            if _is_routable(obj) and not name.startswith("__"):
                writes = name.startswith("_fused") or name.endswith("_")
                self.items.append((_core, name, obj, _evaluating_function(obj, writes)))
        # every other method of ordinary tensors (a pending argument must be evaluated
        # before the extension sees it; an in-place one evaluates what is pending first)
        routed_names = {name for mod, name, _, _ in self.items if mod is Tensor}
        for name, obj in list(vars(Tensor).items()):
            if name in routed_names or not callable(obj) or isinstance(obj, type):
                continue
            if name.startswith("__") and name not in _INPLACE_DUNDERS + (
                    "__getitem__", "__array__"):
                continue
            writes = (name.endswith("_") and not name.startswith("_")) or (
                name in _INPLACE_DUNDERS)
            self.items.append((Tensor, name, obj, _evaluating_method(obj, writes)))
        # the tensor-valued properties a pending tensor may be assigned to
        for name in ("grad", "data"):
            obj = vars(Tensor)[name]
            self.items.append((Tensor, name, obj, _evaluating_property(obj)))
        cells = ((LSTMCell, Cell("LSTMCell", LSTMCell.forward, True)),
                 (GRUCell, Cell("GRUCell", GRUCell.forward, False)))
        for cls, rule in cells:
            self.items.append((cls, "forward", cls.__dict__["forward"], _cell_forward(rule)))

    def install(self):
        for mod, name, _, new in self.items:
            setattr(mod, name, new)

    def remove(self):
        for mod, name, old, _ in self.items:
            setattr(mod, name, old)


def _cell_forward(rule):
    orig = rule.forward

    def forward(self, *args, **kwargs):
        g = state.region
        if g is None or g.thread != _get_ident():
            return orig(self, *args, **kwargs)
        if state.recording:
            r = rule.record(g, self, args, kwargs)
            if r is not NotImplemented:
                return r
        if g.pending and _has_pending(args, kwargs):
            g.evaluate()
        return suspended(orig, self, *args, **kwargs)

    forward.__doc__ = orig.__doc__
    return forward
