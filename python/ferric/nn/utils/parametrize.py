"""``ferric.nn.utils.parametrize`` (``torch.nn.utils.parametrize``): express a parameter or
buffer as a function of other tensors.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (the same ``Parameter`` object, so optimizers
keep working) and makes ``module.weight`` a property that evaluates ``P(original)`` on
every access (once per :func:`cached` block). As in PyTorch, the module's class is
swapped for a ``Parametrized<Class>`` subclass holding the properties, and assigning to
``module.weight`` goes through the parametrizations' ``right_inverse``.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..._core import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "ParametrizationList", "cached", "is_parametrized", "register_parametrization",
    "remove_parametrizations", "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    r"""Within this block each parametrized tensor is computed once, at its first use,
    and reused (e.g. a recurrent layer's parametrized weight across time steps).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> class Sym(nn.Module):
        ...     def forward(self, x):
        ...         return x.triu() + x.triu(1).T
        >>> m = parametrize.register_parametrization(nn.Linear(3, 3), "weight", Sym())
        >>> with parametrize.cached():
        ...     m.weight is m.weight
        True
    """
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest, src):
    # PyTorch swaps the storage with set_() so the tensor object (the one an optimizer
    # holds) survives; ferric copies the values into it (parametrizations keep shapes)
    if dest.shape != src.shape:
        raise RuntimeError(
            f"parametrize: cannot store a tensor of shape {list(src.shape)} in the original "
            f"of shape {list(dest.shape)}")
    dest.copy_(src)


class ParametrizationList(ModuleList):
    r"""The parametrizations of one tensor, and its original value(s): ``original``, or
    ``original0``, ``original1``, ... when the first ``right_inverse`` returns several
    tensors. Calling it evaluates the chain on the originals.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> class Double(nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        >>> m = parametrize.register_parametrization(nn.Linear(2, 2), "bias", Double())
        >>> type(m.parametrizations.bias).__name__
        'ParametrizationList'
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, list, tuple)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: "
                    f"{new.dtype}")
            with no_grad():
                if new is not original:
                    _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(originali).__name__}.")
                originali = originali.detach().clone()
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                else:
                    originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(
                    f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\nparametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\nparametrized shape: {z.shape}")

    def right_inverse(self, value):
        r"""Sets the originals so that the chain evaluates to ``value`` (``module.weight =
        value``), through each parametrization's ``right_inverse`` in reverse order."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement "
                        "right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, (list, tuple)):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. "
                        f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    _maybe_set(getattr(self, f"original{i}"), tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    cls = module.__class__

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). "
            "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    param_cls = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": getstate})
    module.__class__ = param_cls


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(module), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    r"""Registers ``parametrization`` (a module) on ``module.<tensor_name>``: from now on
    the attribute evaluates ``parametrization(original)``. A second registration on the
    same tensor chains after the first.

    Args:
        module (nn.Module): the module holding the tensor.
        tensor_name (str): the name of the parameter or buffer.
        parametrization (nn.Module): the map; may define ``right_inverse``.
        unsafe (bool): skip the consistency checks (dtype and shape preserved).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> class Symmetric(nn.Module):
        ...     def forward(self, x):
        ...         return x.triu() + x.triu(1).T
        >>> m = nn.Linear(3, 3)
        >>> _ = parametrize.register_parametrization(m, "weight", Symmetric())
        >>> bool((m.weight == m.weight.T).all())
        True
        >>> type(m).__name__
        'ParametrizedLinear'
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(
                    f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {y.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if x.shape != y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {y.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {x.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized "
            f"element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    r"""Whether ``module`` has a parametrization (on ``tensor_name``, or on any tensor).

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> parametrize.is_parametrized(nn.Linear(2, 2))
        False
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    r"""Removes the parametrizations on ``module.<tensor_name>``. With
    ``leave_parametrized`` the tensor keeps its current (parametrized) value, stored into
    the original ``Parameter``; otherwise the original value comes back.

    Args:
        module (nn.Module): the module.
        tensor_name (str): the parametrized tensor.
        leave_parametrized (bool): keep the parametrized value. Default: ``True``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> class Double(nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        >>> m = nn.Linear(2, 2)
        >>> _ = parametrize.register_parametrization(m, "weight", Double())
        >>> _ = parametrize.remove_parametrizations(m, "weight")
        >>> type(m).__name__, isinstance(m.weight, nn.Parameter)
        ('Linear', True)
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    r"""The class of ``module`` before parametrizations were registered on it.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> parametrize.type_before_parametrizations(nn.Linear(2, 2)).__name__
        'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    r"""Copies the parametrizations (and their originals) of ``from_module`` onto
    ``to_module`` (all of them, or those of ``tensor_name``).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import parametrize
        >>> class Double(nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        >>> a, b = nn.Linear(2, 2), nn.Linear(2, 2)
        >>> _ = parametrize.register_parametrization(a, "weight", Double())
        >>> _ = parametrize.transfer_parametrizations_and_params(a, b)
        >>> bool((a.weight == b.weight).all())
        True
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name).detach().clone()))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func, unsafe=True)
        src = from_module.parametrizations[name]
        dst = to_module.parametrizations[name]
        with no_grad():
            if src.is_tensor:
                dst.original.copy_(src.original)
            else:
                for i in range(src.ntensors):
                    getattr(dst, f"original{i}").copy_(getattr(src, f"original{i}"))
    return to_module
