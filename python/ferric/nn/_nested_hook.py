"""The hook through which ``ferric.nested`` handles nested-tensor inputs of ``ferric.nn``.

``ferric.nested`` builds on ``ferric.nn`` (per-item attention calls the dense
``scaled_dot_product_attention``, nested RNNs run ``nn.utils.rnn`` packed sequences), so
``nn`` does not import it. Instead ``nn`` declares here where a nested tensor may come
in, and ``ferric.nested`` registers the handlers when it is imported (``import ferric``
imports it, so they are in place before any user code runs):

- ``nn.functional`` wraps each function a nested tensor may reach with :func:`routed`.
  The wrapper hands a nested input to the handler registered under the function's name
  and sends everything else straight to the function (one ``type`` test).
- Layers with a nested branch (``RNN``/``LSTM``/``GRU``, ``MultiheadAttention``) test
  :func:`is_nested` and :func:`call` the handler registered under their name.

Nothing here knows what a nested tensor is, and nothing rewrites another module's names.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

# the class whose instances go to the handlers (ferric.nested.NestedTensor), once registered
_nested_type: type | None = None
# name -> handler; a routed function's handler is called as handler(fn, *args, **kwargs)
# with `fn` the plain function, a layer's as handler(module, *args)
_handlers: dict[str, Callable[..., Any]] = {}
# the names of the functions wrapped by `routed` (each needs a handler)
_routed: set[str] = set()


def register(nested_type: type, handlers: dict[str, Callable[..., Any]]) -> None:
    """Called once by ``ferric.nested``: the nested tensor class and its handlers."""
    global _nested_type
    _nested_type = nested_type
    _handlers.update(handlers)


def is_nested(x: object) -> bool:
    return type(x) is _nested_type


def call(name: str, *args: Any) -> Any:
    """Runs the handler registered under ``name`` (a layer's nested branch)."""
    return _handlers[name](*args)


def routed(fn: Callable[..., Any], inputs: int = 1) -> Callable[..., Any]:
    """``fn`` (a function of ``nn.functional``), sending the call to the handler of the
    same name when one of its first ``inputs`` arguments is nested."""
    name = fn.__name__
    _routed.add(name)
    if inputs == 1:
        @functools.wraps(fn)
        def route(input, *args, **kwargs):
            if type(input) is not _nested_type:
                return fn(input, *args, **kwargs)
            return _handlers[name](fn, input, *args, **kwargs)

        return route
    params = tuple(inspect.signature(fn).parameters)[:inputs]

    @functools.wraps(fn)
    def route_any(*args, **kwargs):
        nested = _nested_type
        for a in args[:inputs]:
            if type(a) is nested:
                return _handlers[name](fn, *args, **kwargs)
        if kwargs:
            for p in params[len(args):]:
                if type(kwargs.get(p)) is nested:
                    return _handlers[name](fn, *args, **kwargs)
        return fn(*args, **kwargs)

    return route_any


def unhandled() -> set[str]:
    """Routed functions without a handler (empty once ``ferric.nested`` is imported)."""
    return _routed - set(_handlers)
