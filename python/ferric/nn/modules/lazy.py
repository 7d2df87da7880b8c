"""``LazyModuleMixin`` (``torch.nn.modules.lazy``): modules whose parameter shapes are
inferred from the first input."""

from __future__ import annotations

import itertools

from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, _MaterializedBuffer

__all__ = ["LazyModuleMixin"]


def is_lazy(param):
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    r"""A mixin for modules that infer their parameters' shapes at the first call: the
    parameters start as :class:`~ferric.nn.UninitializedParameter`, a forward pre-hook
    calls ``initialize_parameters(*input)`` and then the module becomes its
    ``cls_to_become`` (``LazyLinear`` becomes ``Linear``). Loading a state dict into an
    uninitialised module materializes the parameters with the loaded shapes.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.LazyLinear(3)
        >>> m.has_uninitialized_params()
        True
        >>> m(ferric.ones(2, 5)).shape
        ferric.Size([2, 3])
        >>> m
        Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars \
                    else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(tuple(input_param.shape))
        self._plain_buffers()

    def _plain_buffers(self):
        # materialized buffers are stored as plain tensors
        for name, buf in list(self._buffers.items()):
            if isinstance(buf, _MaterializedBuffer):
                self._buffers[name] = buf.data

    def initialize_parameters(self, *args, **kwargs):
        r"""Materializes the parameters from the first input (each lazy module's own)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        r"""Whether a parameter or buffer is still uninitialized."""
        return any(is_lazy(p) for p in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        module._plain_buffers()
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run "
            "a dummy forward pass to correctly initialize the modules")
