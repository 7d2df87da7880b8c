"""``Module.state_dict`` / ``Module.load_state_dict`` with PyTorch's protocol: the
``_metadata`` versions saved alongside the tensors, the overridable per-module
``_save_to_state_dict`` / ``_load_from_state_dict`` steps (BatchNorm uses the version to
accept pre-``num_batches_tracked`` checkpoints), extra state, and the pre/post hooks.

One deliberate difference: PyTorch copies tensors while it walks the modules, so a load
that ends in an error has already changed part of the model. Here the copies of the
default loading step are queued and applied only when the whole load succeeds, so a
failed ``load_state_dict`` leaves the model as it was. Overrides of
``_load_from_state_dict`` that copy by themselves still copy immediately, as in PyTorch.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._core import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# copies queued by the default _load_from_state_dict of the load_state_dict call in
# progress on this thread (a stack: a hook may start a nested load)
_active = threading.local()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _shape_repr(t):
    return repr(t.shape)


def has_extra_state(module, base) -> bool:
    return getattr(type(module), "get_extra_state", base.get_extra_state) \
        is not base.get_extra_state


def state_dict(module, destination, prefix, keep_vars):
    """The recursion of ``Module.state_dict`` (arguments already normalised)."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": module._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in module._state_dict_pre_hooks.values():
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
    for hook in module._state_dict_hooks.values():
        result = hook(module, destination, prefix, local_metadata)
        if getattr(hook, "_from_public_api", False):
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        elif result is not None:
            destination = result
    return destination


def save_own(module, destination, prefix, keep_vars, base):
    """The default ``_save_to_state_dict``: this module's parameters, persistent
    buffers and extra state."""
    for name, param in module._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in module._buffers.items():
        if buf is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if has_extra_state(module, base):
        destination[prefix + EXTRA_STATE_KEY_SUFFIX] = module.get_extra_state()


def load_own(module, state_dict, prefix, local_metadata, strict, missing_keys,
             unexpected_keys, error_msgs, base):
    """The default ``_load_from_state_dict``: checks this module's entries and copies
    them (queued until the whole load succeeds when a ``load_state_dict`` is running)."""
    for hook in module._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    persistent = {k: v for k, v in module._buffers.items()
                  if k not in module._non_persistent_buffers_set}
    local_state = {k: v for k, v in list(module._parameters.items()) + list(persistent.items())
                   if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    copies = []
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            error_msgs.append(
                f'While copying the parameter named "{key}", expected ferric.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"
            )
            continue
        # a 0-d entry may be stored as a 1-element vector (old checkpoints)
        if param.dim() == 0 and tuple(value.shape) == (1,):
            value = value[0]
        if value.shape != param.shape:
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape {_shape_repr(value)} "
                f"from checkpoint, the shape in current model is {_shape_repr(param)}."
            )
            continue
        copies.append((module, name, param, value, assign))
    extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
    if has_extra_state(module, base):
        if extra_key in state_dict:
            copies.append((module, None, None, state_dict[extra_key], False))
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                parts = key[len(prefix):].split(".", 1)
                # a dotted name must belong to a submodule
                if len(parts) > 1:
                    if parts[0] not in module._modules:
                        unexpected_keys.append(key)
                elif parts[0] not in local_state:
                    unexpected_keys.append(key)
    stack = getattr(_active, "stack", None)
    if stack:
        stack[-1].extend(copies)
    else:
        _apply(copies)


def _apply(copies):
    with no_grad():
        for module, name, target, value, assign in copies:
            if name is None:
                module.set_extra_state(value)
            elif assign:
                if isinstance(target, Parameter):
                    new = value if isinstance(value, Parameter) else Parameter(
                        value, requires_grad=target.requires_grad)
                    if isinstance(value, Parameter):
                        new.requires_grad_(target.requires_grad)
                    module._parameters[name] = new
                else:
                    module._buffers[name] = value
            else:
                target.copy_(value)


def load_state_dict(module, state_dict, strict, assign):
    """``Module.load_state_dict``: walks the tree calling each module's
    ``_load_from_state_dict`` on the entries under its prefix, then the post hooks;
    raises (with nothing queued applied) if anything failed."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing, unexpected, errors = [], [], []
    metadata = getattr(state_dict, "_metadata", None)
    # a copy, so the loading steps may edit it (BatchNorm adds num_batches_tracked)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata
    queued = []
    stack = _active.__dict__.setdefault("stack", [])
    stack.append(queued)

    def load(mod, local_sd, prefix=""):
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        mod._load_from_state_dict(local_sd, prefix, local_metadata, True, missing,
                                  unexpected, errors)
        for name, child in mod._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_sd = {k: v for k, v in local_sd.items() if k.startswith(child_prefix)}
                load(child, child_sd, child_prefix)
        keys = _IncompatibleKeys(missing, unexpected)
        for hook in mod._load_state_dict_post_hooks.values():
            if hook(mod, keys) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be "
                    "modified, it should be done inplace."
                )

    try:
        load(module, state_dict)
    finally:
        stack.pop()
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(module).__name__, "\n\t".join(errors)))
    _apply(queued)
    return _IncompatibleKeys(missing, unexpected)


class WrappedHook:
    """A load-state-dict pre-hook, optionally called with its module first (PyTorch's
    ``_WrappedHook``)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.module = module

    def __call__(self, *args):
        if self.module is not None:
            return self.hook(self.module, *args)
        return self.hook(*args)
