"""Hook bookkeeping for modules: removable handles and full backward hooks.

Full backward hooks wrap a module's tensor inputs and outputs in identity autograd
functions (like PyTorch's ``BackwardHook``): the output-side identity sees the gradients
w.r.t. the outputs first, the input-side identity then sees the gradients w.r.t. the
inputs and hands both to the user hooks, which may replace the input gradients.
"""

from __future__ import annotations

import weakref

from ... import _core
from ..._core import Tensor
from ...autograd.function import Function
from ...utils.hooks import RemovableHandle as _BaseHandle


class RemovableHandle(_BaseHandle):
    """``ferric.utils.hooks.RemovableHandle`` that can also remove the hook's id from
    extra dicts (a module keeps "with kwargs"/"always call" flags in side dicts, like
    ``torch.utils.hooks.RemovableHandle(extra_dict=...)``)."""

    def __init__(self, hooks_dict, *, extra_dict=None):
        super().__init__(hooks_dict)
        if extra_dict is None:
            extra_dict = []
        elif not isinstance(extra_dict, list):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        super().remove()
        for ref in self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]


class _Identity(Function):
    """Identity whose backward calls ``ctx.on_grads(grads)`` and returns its result."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        outs = tuple(t.detach() for t in tensors)
        return outs

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.on_grads(grads))


class BackwardHook:
    """Runs a module's full backward (pre-)hooks around one forward call."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_idx = None
        self.n_outputs = 0
        self.output_idx = None

    @staticmethod
    def _pack(indices, values, n):
        out = [None] * n
        for i, v in zip(indices, values, strict=True):
            out[i] = v
        return tuple(out)

    def _wrap(self, args, on_grads):
        """Routes the tensors of ``args`` (a tuple or a single tensor) through one identity
        node; returns (new args, tensor indices) or (args, None) if nothing needs grad."""
        single = isinstance(args, Tensor)
        seq = (args,) if single else tuple(args)
        idx = [i for i, a in enumerate(seq) if isinstance(a, Tensor)]
        if not (_core.is_grad_enabled() and any(seq[i].requires_grad for i in idx)):
            return args, None
        outs = _Identity.apply(on_grads, *(seq[i] for i in idx))
        if not isinstance(outs, tuple):
            outs = (outs,)
        new = list(seq)
        for i, o in zip(idx, outs, strict=True):
            # tensors that did not require grad stay as they were (no fake history)
            new[i] = o if seq[i].requires_grad else seq[i]
        return (new[0] if single else tuple(new)), idx

    def setup_input_hook(self, args):
        self.n_inputs = len(args)

        def on_input_grads(grads):
            grads = tuple(grads)
            if not self.user_hooks:
                return grads
            grad_inputs = self._pack(self.input_idx, grads, self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is None:
                    continue
                res = (res,) if isinstance(res, Tensor) else tuple(res)
                if len(res) != len(grad_inputs):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got "
                        f"{len(res)}, but expected {len(grad_inputs)}"
                    )
                grad_inputs = res
            self.grad_outputs = None
            return tuple(grad_inputs[i] for i in self.input_idx)

        new_args, self.input_idx = self._wrap(args, on_input_grads)
        return new_args

    def setup_output_hook(self, result):
        def on_output_grads(grads):
            grads = tuple(grads)
            packed = self._pack(self.output_idx, grads, self.n_outputs)
            for hook in self.user_pre_hooks:
                res = hook(self.module, packed)
                if res is not None:
                    packed = (res,) if isinstance(res, Tensor) else tuple(res)
            self.grad_outputs = packed
            if self.input_idx is None:
                # no input needs a gradient: the hooks run now, with None grad_inputs
                grad_inputs = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not all(r is None for r in res):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient "
                            "should always return None or None for all gradients."
                        )
                self.grad_outputs = None
            return tuple(packed[i] for i in self.output_idx)

        self.n_outputs = 1 if isinstance(result, Tensor) else len(result)
        new, self.output_idx = self._wrap(result, on_output_grads)
        return new
