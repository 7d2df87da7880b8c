"""``nn.Module``: the base class of all layers, with PyTorch's registration, traversal,
state_dict, train/eval, conversion and hook semantics."""

from __future__ import annotations

import warnings
from collections import OrderedDict

from ... import _core
from ..._core import Tensor
from ..._device import _check_device
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter
from . import _state_dict as _sd
from ._hooks import BackwardHook, RemovableHandle
from ._state_dict import _IncompatibleKeys  # noqa: F401  (PyTorch's import location)

__all__ = ["Module"]

_TENSOR_TYPENAMES = {
    "float32": "torch.FloatTensor",
    "float64": "torch.DoubleTensor",
    "int64": "torch.LongTensor",
    "bool": "torch.BoolTensor",
}


def typename(obj) -> str:
    """``torch.typename``: the tensor type string or the qualified class name."""
    if isinstance(obj, Tensor):
        return _TENSOR_TYPENAMES.get(str(obj.dtype).rsplit(".", 1)[-1], "torch.Tensor")
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("builtins", "", None) else f"{module}.{name}"


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


def _attribute_owner(module, target):
    """The submodule of ``module`` holding the attribute at dotted path ``target``, and the
    attribute's name (PyTorch's AttributeError when there is no such attribute)."""
    module_path, _, name = target.rpartition(".")
    mod = module.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    return mod, name


def _is_float_dtype(d) -> bool:
    return d.is_floating_point


class Module:
    r"""Base class for all neural network modules.

    Subclasses call ``super().__init__()`` first, then assign parameters, buffers and
    submodules as attributes (they are registered automatically), and define
    ``forward``. Call the module (``m(x)``), not ``forward``, so hooks run.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> class Net(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Linear(2, 1)
        ...     def forward(self, x):
        ...         return self.fc(x)
        >>> Net()
        Net(
          (fc): Linear(in_features=2, out_features=1, bias=True)
        )
        >>> list(Net().state_dict())
        ['fc.weight', 'fc.bias']
    """

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__ skips our registration logic during construction
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_modules", {})
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *input):
        """Defines the computation of the module; subclasses override it. Call the module
        (``module(x)``) rather than ``forward``, so that hooks run.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ------------------------------------------------------------------ registration

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer (state that is not a parameter, e.g. running statistics);
        non-persistent buffers are left out of ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            persistent = getattr(tensor, "persistent", persistent)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter (``None`` registers a placeholder, like a missing bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                f"must be created explicitly. To express '{name}' as a function of another "
                "Tensor, compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module, reachable as an attribute called ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def __getattr__(self, name):
        # only reached when normal lookup fails: parameters, buffers, submodules
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*dicts_or_sets):
            for ds in dicts_or_sets:
                if name in ds:
                    if isinstance(ds, dict):
                        del ds[name]
                    else:
                        ds.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = getattr(value, "persistent", True)
            else:
                persistent = name not in self._non_persistent_buffers_set
            remove_from(d, self._parameters, self._modules)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (
            dir(type(self)) + list(self.__dict__) + list(self._parameters)
            + list(self._modules) + list(self._buffers)
        )
        # leave out names that cannot be attributes (ModuleList's "0", "1", ...)
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled before these hook tables existed
        for name in ("_state_dict_pre_hooks", "_load_state_dict_pre_hooks"):
            self.__dict__.setdefault(name, OrderedDict())

    # ------------------------------------------------------------------ traversal

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k), v

    def parameters(self, recurse=True):
        """Iterator over the parameters (of submodules too if ``recurse``)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over ``(name, parameter)``; shared parameters appear once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse=True):
        """Iterator over the buffers (of submodules too with ``recurse=True``)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over ``(name, buffer)``; shared buffers appear once unless
        ``remove_duplicate=False``.
        """
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def children(self):
        """Iterator over the immediate submodules."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Iterator over ``(name, submodule)`` for the immediate submodules."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """Iterator over this module and every module below it (each once)."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterator over ``(qualified name, module)`` for this module and all below it."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``""`` is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at dotted path ``target``."""
        mod, name = _attribute_owner(self, target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at dotted path ``target``."""
        mod, name = _attribute_owner(self, target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def set_submodule(self, target, module, strict=False):
        """Replaces (or with ``strict=False`` adds) the submodule at ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        parent = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    # ------------------------------------------------------------------ modes and grads

    def train(self, mode=True):
        """Sets training mode (affects Dropout, BatchNorm, ...) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Sets evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` of every parameter (freezes them with ``False``); returns
        ``self``.
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of all parameters (to ``None`` by default)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        """Calls ``fn`` on every submodule (children first) and then on ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ conversion

    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            # rebind the data in place: the Parameter objects (held by optimizers)
            # stay the same, like PyTorch's default
            param.data = applied.data if isinstance(applied, Tensor) else applied
            if param.grad is not None:
                with no_grad():
                    param.grad = fn(param.grad).detach()
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Casts floating-point parameters and buffers: ``to(dtype)``, ``to(tensor)``,
        ``to('cpu')`` or ``to('cpu', dtype)``; ``memory_format=`` relays the 4-d and 5-d
        ones (``channels_last`` for convolution weights)."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        memory_format = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {kwargs}")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, _core.dtype):
                dtype = a
            elif isinstance(a, bool):
                continue
            else:
                device = a
        # anything but the CPU raises what CPU-only PyTorch raises (AssertionError for CUDA)
        _check_device(device)
        if dtype is not None and not _is_float_dtype(dtype):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )
        if dtype is None and memory_format is None:
            return self

        def convert(t):
            d = dtype if dtype is not None and t.is_floating_point() else t.dtype
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(d, memory_format=memory_format)
            return t.to(d)

        return self._apply(convert)

    def float(self):
        """Casts floating-point parameters and buffers to float32; returns ``self``."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Casts floating-point parameters and buffers to float64; returns ``self``."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Casts floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Casts floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type):
        """Casts all parameters and buffers to ``dst_type``; returns ``self``."""
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self):
        """Moves parameters and buffers to the CPU: they are there already."""
        return self

    def cuda(self, device=None):
        """Raises as on a CPU-only PyTorch build (``AssertionError``: no CUDA)."""
        _check_device("cuda")

    def share_memory(self):
        """A no-op (ferric tensors live in ordinary process memory); returns ``self``."""
        return self

    # ------------------------------------------------------------------ state dict

    def get_extra_state(self):
        """Extra (non-tensor) state for ``state_dict``; override together with
        ``set_extra_state``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state):
        """Restores what ``get_extra_state`` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Saves this module's own entries (not its children's); overridable."""
        _sd.save_own(self, destination, prefix, keep_vars, Module)

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` of parameters and persistent buffers keyed by dotted name
        (tensors are detached and share memory with the module unless ``keep_vars``);
        its ``_metadata`` holds each module's version, as in PyTorch."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        return _sd.state_dict(self, destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        """Loads this module's own entries (PyTorch's overridable per-module step)."""
        _sd.load_own(self, state_dict, prefix, local_metadata, strict, missing_keys,
                     unexpected_keys, error_msgs, Module)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from ``state_dict``.

        Keys and shapes are checked for the whole tree first; on any error nothing is
        modified and a RuntimeError lists the missing/unexpected keys and size
        mismatches (``strict`` controls whether missing/unexpected keys are errors).
        Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.
        """
        return _sd.load_state_dict(self, state_dict, strict, assign)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict``."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook):
        """A post hook that may return a new state dict (honoured at the root)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _sd.WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module's entries are loaded."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after
        ``state_dict`` and may edit it in place (it must return None)."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict``; it may edit
        the missing/unexpected key lists. Returns a removable handle.
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ hooks

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) runs before
        ``forward``; a non-None return replaces the arguments."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` runs after ``forward``; a non-None return
        replaces the output."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients w.r.t. the
        module's inputs are computed; a non-None return replaces ``grad_input``."""
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients w.r.t. the module's
        outputs are computed; a non-None return replaces ``grad_output``."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """Deprecated: registers ``hook`` as a full backward hook (with a warning), as
        PyTorch recommends ``register_full_backward_hook``.
        """
        warnings.warn(
            "register_backward_hook is deprecated; ferric runs it as a full backward hook",
            stacklevel=2,
        )
        return self.register_full_backward_hook(hook)

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        result = None
        called_always = set()
        try:
            for hook_id, hook in list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of "
                                f"(new_args, new_kwargs), but got {res}."
                            )
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                bw_hook = BackwardHook(self, list(self._backward_hooks.values()),
                                       list(self._backward_pre_hooks.values()))
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor "
                        f"or a tuple of Tensors but received {type(result)}", stacklevel=2)
                else:
                    result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:  # the forward error is the one to report
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an "
                            f"exception that was silenced as another error was raised in "
                            f"forward: {e}", stacklevel=2)
            raise

    __call__ = _call_impl

    # ------------------------------------------------------------------ printing

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """Extra information shown inside the parentheses of ``repr(module)``."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            "(" + key + "): " + _addindent(repr(module), 2)
            for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


# PyTorch exposes `Module.__call__` as `_wrapped_call_impl`; keep the name for code that
# patches it.
Module._wrapped_call_impl = Module._call_impl
