"""Activation checkpointing (``torch.utils.checkpoint``): run a segment of the forward
pass without keeping its intermediate tensors, and recompute them during backward.

The forward runs under ``no_grad``; backward restores the CPU RNG state captured before
the forward (so dropout draws the same mask), re-runs the segment with grad enabled and
backpropagates through the recomputed graph: parameter gradients accumulate into
``.grad`` and input gradients flow on. Both ``use_reentrant`` variants use this
recomputation; ``use_reentrant=False`` also accepts keyword arguments and gives
parameter gradients when no input requires grad.
"""

from __future__ import annotations

import warnings

from .. import _core
from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad

__all__ = ["CheckpointFunction", "checkpoint", "checkpoint_sequential", "detach_variable",
           "noop_context_fn"]

_WARN = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
         "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
         "exception. use_reentrant=False is recommended, but if you need to preserve the "
         "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
         "details on the differences between the two variants.")


def noop_context_fn():
    """The default ``context_fn`` of :func:`checkpoint`: two no-op context managers.

    Example::

        >>> from ferric.utils.checkpoint import noop_context_fn
        >>> len(noop_context_fn())
        2
    """
    import contextlib

    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Detached copies of the tensors in the tuple ``inputs`` that keep ``requires_grad``
    (non-tensors pass through).

    Args:
        inputs (tuple): the values to detach.

    Example::

        >>> import ferric
        >>> from ferric.utils.checkpoint import detach_variable
        >>> x = ferric.ones(1, requires_grad=True) * 2
        >>> y, = detach_variable((x,))
        >>> y.grad_fn is None, y.requires_grad
        (True, True)
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    return tuple(_detached(x) if isinstance(x, _core.Tensor) else x for x in inputs)


def _detached(t):
    """A detached copy of ``t`` with ``t``'s ``requires_grad``."""
    d = t.detach()
    d.requires_grad_(t.requires_grad)
    return d


class CheckpointFunction(Function):
    """The ``autograd.Function`` behind :func:`checkpoint`: ``forward`` runs the segment
    without a graph, ``backward`` recomputes it with one and backpropagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, kwargs, *args):
        """Runs ``run_function(*args, **kwargs)`` without recording (the last arg is a
        grad-requiring anchor added by :func:`checkpoint`)."""
        ctx.run_function = run_function
        ctx.kwargs = kwargs
        ctx.rng_state = _core.get_rng_state() if preserve_rng_state else None
        args = args[:-1]
        ctx.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, _core.Tensor)]
        ctx.args = [None if isinstance(a, _core.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_slots])
        with no_grad():
            out = run_function(*args, **kwargs)
        ctx.out_is_tuple = isinstance(out, tuple)
        return out

    @staticmethod
    def backward(ctx, *grads):
        """Recomputes the segment with grad enabled (RNG state restored) and
        backpropagates ``grads`` through it."""
        args = list(ctx.args)
        saved = ctx.saved_tensors
        for i, t in zip(ctx.tensor_slots, saved, strict=False):
            args[i] = _detached(t)
        outer = _core.get_rng_state()
        if ctx.rng_state is not None:
            _core.set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                out = ctx.run_function(*args, **ctx.kwargs)
        finally:
            if ctx.rng_state is not None:
                _core.set_rng_state(outer)
        outs = out if isinstance(out, tuple) else (out,)
        pairs = [(o, g) for o, g in zip(outs, grads, strict=False)
                 if isinstance(o, _core.Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward([p[0] for p in pairs], [p[1] for p in pairs])
        in_grads = [None] * len(ctx.args)
        for i in ctx.tensor_slots:
            in_grads[i] = args[i].grad if args[i].requires_grad else None
        return (None, None, None, *in_grads, None)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Runs ``function(*args, **kwargs)`` without storing its intermediate activations;
    backward recomputes them (with the RNG state of the forward when
    ``preserve_rng_state=True``, so dropout masks match).

    Args:
        function (callable): the segment to run (a module or function).
        *args: its positional arguments.
        use_reentrant (bool): which PyTorch variant to follow; omitting it warns, as
            PyTorch does, and means ``True``. The reentrant variant accepts no keyword
            arguments for ``function``.
        context_fn (callable, optional): returns two context managers for the forward and
            the recomputation (non-reentrant only).
        determinism_check (str, optional): ``"default"`` or ``"none"`` (accepted).
        debug (bool, optional): accepted (non-reentrant only).
        early_stop (bool, optional): accepted.
        preserve_rng_state (bool, optional, keyword): restore the RNG state for the
            recomputation (default ``True``).
        **kwargs: keyword arguments for ``function`` (non-reentrant only).

    Example::

        >>> import ferric
        >>> from ferric.utils.checkpoint import checkpoint
        >>> x = ferric.tensor([1.0, 2.0], requires_grad=True)
        >>> y = checkpoint(lambda t: (t * t).sin(), x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad
        tensor([ 1.0806, -2.6146])
    """
    if use_reentrant is None:
        warnings.warn(_WARN, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if not is_grad_enabled():
        return function(*args, **kwargs)
    needs_grad = any(isinstance(a, _core.Tensor) and a.requires_grad for a in args)
    if use_reentrant and not needs_grad:
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      UserWarning, stacklevel=2)
    if context_fn is not noop_context_fn:
        fwd_ctx, re_ctx = context_fn()

        def run(*a, **kw):
            with (fwd_ctx if not is_grad_enabled() else re_ctx):
                return function(*a, **kw)
    else:
        run = function
    # an anchor that requires grad, so the output joins the graph even when no input does
    # (parameters inside `function` still get their gradients in the recomputation)
    anchor = _core.zeros((), requires_grad=not use_reentrant or needs_grad)
    return CheckpointFunction.apply(run, preserve, kwargs, *args, anchor)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a sequence of modules/functions in ``segments`` chunks, checkpointing every
    chunk but the last (whose activations are kept for backward).

    Args:
        functions (Sequential or list of callables): the layers, run in order.
        segments (int): number of chunks.
        input (Tensor): the input of the first layer.
        use_reentrant (bool): as for :func:`checkpoint` (omitting it warns).
        preserve_rng_state (bool, optional, keyword): as for :func:`checkpoint`.

    Example::

        >>> import ferric
        >>> from ferric.utils.checkpoint import checkpoint_sequential
        >>> model = ferric.nn.Sequential(ferric.nn.Linear(2, 2), ferric.nn.ReLU(),
        ...                              ferric.nn.Linear(2, 1))
        >>> out = checkpoint_sequential(model, 2, ferric.ones(3, 2), use_reentrant=False)
        >>> out.shape
        ferric.Size([3, 1])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", UserWarning,
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)

    def chunk(lo, hi):
        def run(x):
            for f in functions[lo:hi]:
                x = f(x)
            return x
        return run

    size = len(functions) // segments
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(chunk(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return chunk(end, len(functions))(input)
