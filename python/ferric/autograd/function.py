"""Custom differentiable operations written in Python (``torch.autograd.Function``)."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from .grad_mode import no_grad


class FunctionCtx:
    """The ``ctx`` passed to ``forward`` and ``backward``."""

    def __init__(self):
        self._to_save = ()
        self._saved = None
        self._non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        """Save tensors for ``backward``; read them back with ``ctx.saved_tensors``."""
        self._to_save = tensors

    @property
    def saved_tensors(self):
        """The tensors passed to :meth:`save_for_backward`, checked against in-place changes since.
        """
        if self._saved is None:
            return tuple(self._to_save)
        return self._saved.unpack()

    def mark_non_differentiable(self, *args):
        """Outputs that will never get gradients (e.g. indices)."""
        self._non_differentiable = args

    def mark_dirty(self, *args):
        """Accepted for compatibility; in-place outputs are handled as new tensors."""

    def set_materialize_grads(self, value: bool):
        """With ``False``, ``backward`` receives ``None`` (not zeros) for outputs that got no
        gradient.
        """
        self.materialize_grads = bool(value)


class FunctionMeta(type):
    pass


class Function(metaclass=FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``, then
    call ``MyFunction.apply(*args)``.

    Example:
        >>> import ferric
        >>> class Square(ferric.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> x = ferric.tensor([3.0], requires_grad=True)
        >>> Square.apply(x).sum().backward()
        >>> x.grad
        tensor([6.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Computes the outputs from the inputs; ``ctx`` stores what ``backward`` needs. Override
        it (a ``@staticmethod``).
        """
        # abstract: PyTorch raises the same error when a subclass forgets forward()
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Given the gradients of the outputs, returns one gradient per input of ``forward``
        (``None`` for non-tensor inputs). Override it (a ``@staticmethod``).
        """
        raise NotImplementedError(
            "You must implement the backward function for custom autograd.Function."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs ``forward`` on the arguments and records a node whose backward calls ``backward``;
        use ``MyFunction.apply(x)``, never ``forward`` directly.
        """
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(
            isinstance(a, Tensor) and a.requires_grad for a in args
        )
        with no_grad():
            outputs = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else tuple(outputs)
        tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in tensor_pos]
        if not (_core.is_grad_enabled() and any(ctx.needs_input_grad)):
            ctx._to_save = ()
            return outputs
        out_tensors = [o for o in outs if isinstance(o, Tensor)]
        non_diff = ctx._non_differentiable
        differentiable = [
            o.is_floating_point() and not any(o is n for n in non_diff) for o in out_tensors
        ]
        n_args = len(args)

        def backward_fn(*grads):
            # one gradient per forward output; non-differentiable ones get None
            it = iter(grads)
            diff_iter = iter(differentiable)
            full = tuple(
                (next(it) if next(diff_iter) else None) if isinstance(o, Tensor) else None
                for o in outs
            )
            res = cls.backward(ctx, *full)
            if not isinstance(res, tuple):
                res = (res,)
            # one gradient per forward argument (PyTorch allows extra trailing Nones only)
            if len(res) < n_args or any(r is not None for r in res[n_args:]):
                raise RuntimeError(
                    f"function {cls.__name__}Backward returned an incorrect number of gradients "
                    f"(expected {n_args}, got {len(res)})"
                )
            return tuple(res[i] for i in tensor_pos)

        recorded = _core._record_function(
            cls.__name__, out_tensors, inputs, differentiable, backward_fn
        )
        # a saved forward output is saved as the recorded output (the node's own result),
        # so that a double backward through ``saved_tensors`` reaches this node
        to_save = tuple(
            next((r for o, r in zip(out_tensors, recorded, strict=True) if o is t), t)
            for t in ctx._to_save
        )
        ctx._saved = _core._pack_saved(to_save, recorded, cls.__name__ + "Backward")
        ctx._to_save = ()
        it = iter(recorded)
        result = tuple(next(it) if isinstance(o, Tensor) else o for o in outs)
        return result[0] if single else result


class once_differentiable:  # noqa: N801 - PyTorch's name
    """Decorator accepted for compatibility: marks a backward as not twice differentiable."""

    def __new__(cls, fn):
        return fn
