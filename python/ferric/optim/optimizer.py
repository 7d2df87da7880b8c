"""The ``Optimizer`` base class: parameter groups, per-parameter state, ``zero_grad``,
``state_dict``/``load_state_dict`` in PyTorch's format, and step hooks.

Subclasses implement ``step(closure=None)``; the base class wraps every subclass's
``step`` (in ``__init_subclass__``) so it runs with gradient recording off (updates are
in place and must not enter the autograd graph) and fires the registered step hooks.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain
from typing import Any

from .. import _core
from .._core import Tensor
from ..utils.hooks import RemovableHandle
from ._ops import _new_step

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

# the devices PyTorch accepts ``capturable=True`` on (never the CPU); its message lists them
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone"]


class _RequiredParameter:
    """Marks a default that every parameter group has to specify itself."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: OrderedDict = OrderedDict()
_global_step_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)`` to run before every optimizer's step."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """Registers ``hook(optimizer, args, kwargs)`` to run after every optimizer's step."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


_TENSOR_TYPENAMES = {"float32": "FloatTensor", "float64": "DoubleTensor",
                     "int64": "LongTensor", "bool": "BoolTensor"}


def _typename(obj) -> str:
    """``torch.typename``: legacy type names for tensors (``ferric.FloatTensor``)."""
    if isinstance(obj, Tensor):
        kind = _TENSOR_TYPENAMES.get(str(obj.dtype).rsplit(".", 1)[-1], "Tensor")
        return f"ferric.{kind}"
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _to_scalar(x):
    """A 1-element tensor hyperparameter (e.g. a tensor lr) as a Python number."""
    return x.item() if isinstance(x, Tensor) else x


def _run_closure(closure):
    """Evaluates ``closure`` with gradient recording on (``step`` itself runs without)."""
    if closure is None:
        return None
    prev = _core.is_grad_enabled()
    _core._set_grad_enabled(True)
    try:
        return closure()
    finally:
        _core._set_grad_enabled(prev)


def _wrap_step(step):
    """Runs ``step`` without graph recording (unless the group asked to be
    differentiable) and fires the global and per-optimizer step hooks around it."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get("_ferric_in_step"):
            # a subclass's step calling super().step(): hooks already ran once
            return step(self, *args, **kwargs)
        self._ferric_in_step = True
        try:
            return _run_step(step, self, args, kwargs)
        finally:
            self._ferric_in_step = False

    wrapper._ferric_step_wrapped = True
    return wrapper


def _run_step(step, self, args, kwargs):
    pre = self._optimizer_step_pre_hooks
    if _global_step_pre_hooks or pre:
        for hook in chain(_global_step_pre_hooks.values(), pre.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{hook} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
                args, kwargs = result
    prev = _core.is_grad_enabled()
    _core._set_grad_enabled(bool(self.defaults.get("differentiable", False)))
    try:
        out = step(self, *args, **kwargs)
    finally:
        _core._set_grad_enabled(prev)
    # the LR schedulers read this to warn when they are stepped first
    self._opt_called = True
    post = self._optimizer_step_post_hooks
    if _global_step_post_hooks or post:
        for hook in chain(post.values(), _global_step_post_hooks.values()):
            hook(self, args, kwargs)
    return out


_STATE_DICT_HOOKS = ("_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks")


class Optimizer:
    """Base class for all optimizers.

    Args:
        params (iterable): an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts
            (parameter groups, each with its own options). Order must be deterministic.
        defaults (dict): default values of the optimization options, used by groups that
            do not set them.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_ferric_step_wrapped", False):
            cls.step = _wrap_step(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        for name in _STATE_DICT_HOOKS:
            setattr(self, name, OrderedDict())
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + _typename(params)
            )
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a "
                "list instead. This will be an error in a future release.",
                FutureWarning,
                stacklevel=2,
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []

        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # -- pickling ------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
        for name in _STATE_DICT_HOOKS:
            self.__dict__.setdefault(name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            out += "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return out + ")"

    # -- hooks ---------------------------------------------------------------------

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs before ``step``; it may return
        ``(new_args, new_kwargs)``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` runs after ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _add_hook(self, table: str, hook, prepend: bool) -> RemovableHandle:
        hooks = getattr(self, table)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` runs before ``state_dict`` builds its result."""
        return self._add_hook("_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` runs on the result of ``state_dict``; a
        non-None return replaces it."""
        return self._add_hook("_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook,
                                          prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` runs before ``load_state_dict``; a non-None
        return is loaded instead."""
        return self._add_hook("_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook,
                                           prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` runs after ``load_state_dict``."""
        return self._add_hook("_optimizer_load_state_dict_post_hooks", hook, prepend)

    # -- groups --------------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a parameter group (a dict with ``params`` and optional per-group options);
        options it leaves out take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            params = list(params)

        # (name, tensor) pairs, as from named_parameters(), keep their names
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )
            param_group["param_names"] = names

        differentiable = self.defaults.get("differentiable", None)
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(p)
                )
            if not differentiable and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        # tensors hash by identity, so sets of ids are exact membership tests
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients -----------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all optimized tensors: to ``None`` (the default) or,
        with ``set_to_none=False``, to zeros in place.

        Example::

            >>> import ferric
            >>> w = ferric.ones(2, requires_grad=True)
            >>> opt = ferric.optim.SGD([w], lr=0.1)
            >>> (w * 3).sum().backward()
            >>> w.grad
            tensor([3., 3.])
            >>> opt.zero_grad()
            >>> w.grad is None
            True
        """
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure=None):
        """Performs a single optimization step; ``closure`` re-evaluates the model and
        returns the loss."""
        raise NotImplementedError

    # -- state dicts ---------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The optimizer state as ``{'state': {index: {...}}, 'param_groups': [...]}``.

        Parameters are identified by their position across all groups (in order), so a
        state dict can be loaded into an optimizer built over other tensors of the same
        layout. State tensors are returned by reference, as in PyTorch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index: dict[int, int] = {}
        packed_groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {
            (index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state dict made by :meth:`state_dict`.

        Per-parameter state tensors are cloned (and cast to the parameter's dtype when it
        is floating point, except ``step``) so the optimizer never aliases the dict.
        """
        # a shallow copy, so the hooks can edit it
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"])
               for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError(
                "loaded state dict contains a parameter group "
                "that doesn't match the size of optimizer's group"
            )
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups), strict=True))

        # fused and capturable groups keep `step` in float32, as PyTorch casts it
        float32_steps = {i for g in saved_groups if g.get("fused") or g.get("capturable")
                         for i in g["params"]}
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v, step_float32=k in float32_steps)
            else:
                state[k] = v

        new_groups = []
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)


def _check_lr(lr, positive: bool = False) -> None:
    """PyTorch's learning-rate checks: a tensor lr has one element; lr >= 0 (> 0 for
    SparseAdam). ``not 0 <= lr`` also refuses NaN, as PyTorch does."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not (0.0 < lr if positive else 0.0 <= lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_non_negative(what: str, value, positive: bool = False) -> None:
    """``Invalid {what} value: {value}`` unless ``value >= 0`` (``> 0`` if positive)."""
    if not (0.0 < value if positive else 0.0 <= value):
        raise ValueError(f"Invalid {what} value: {value}")


def _check_betas(betas) -> None:
    for i, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _check_adam_family(lr, betas, eps, weight_decay) -> None:
    """The constructor checks Adam, NAdam, RAdam and Adamax share, in PyTorch's order:
    learning rate, epsilon, both betas, weight decay."""
    _check_lr(lr)
    _check_non_negative("epsilon", eps)
    _check_betas(betas)
    _check_non_negative("weight_decay", weight_decay)


def _check_fused_flags(fused, foreach, differentiable) -> None:
    """The flag combinations PyTorch's constructors refuse once ``fused=True``."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


# the flags most optimizers gained after their first release, with their defaults: a
# state dict saved before then lacks them (``_legacy_group_defaults``)
_LEGACY_FLAG_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False,
                         "capturable": False}


class _ParamwiseOptimizer(Optimizer):
    """Base of the optimizers that update every parameter from its own gradient and
    state (all but LBFGS). Their ``step`` is this one: run the closure, then per group
    the shared preamble (:meth:`_init_group`), then the subclass's :meth:`_update`.

    Subclasses set ``_legacy_group_defaults`` (options older state dicts may lack),
    ``_scalar_state_keys`` (0-d state that old checkpoints held as numbers),
    ``_capturable_operands`` (what PyTorch's ``capturable=True`` error names) and
    ``_zeros_state`` (the state tensors that start as zeros shaped like the parameter),
    extend ``_init_state(p, state, group)`` when they keep other state, and implement
    ``_update(group, params, grads, states)``.
    """

    _legacy_group_defaults: dict[str, Any] = {}
    _scalar_state_keys: tuple[str, ...] = ("step",)
    _capturable_operands = "params and state_steps"
    _capturable_on_xla = True
    _zeros_state: tuple[str, ...] = ()

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for name, default in self._legacy_group_defaults.items():
                group.setdefault(name, default)
            for p in group["params"]:
                p_state = self.state.get(p)
                for key in self._scalar_state_keys if p_state else ():
                    if key in p_state and not isinstance(p_state[key], Tensor):
                        p_state[key] = _core.tensor(float(p_state[key]))

    def step(self, closure=None):
        """Performs a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, states = self._init_group(group)
            if params and group.get("capturable"):
                self._refuse_capturable()
            self._update(group, params, grads, states)
        return loss

    def _init_group(self, group: dict[str, Any]) -> tuple[list, list, list]:
        """The preamble every step shares: the group's parameters that have a gradient,
        those gradients (after :meth:`_check_grad`) and each parameter's state dict,
        made by :meth:`_init_state` the first time the parameter has a gradient.
        Optimizers that keep no state for a group (:meth:`_keeps_state`) get ``None``s
        and leave ``self.state`` untouched, as PyTorch's SGD without momentum does."""
        params, grads, states = [], [], []
        keeps_state = self._keeps_state(group)
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            self._check_grad(grad)
            params.append(p)
            grads.append(grad)
            if not keeps_state:
                states.append(None)
                continue
            state = self.state[p]
            if len(state) == 0:
                self._init_state(p, state, group)
            states.append(state)
        return params, grads, states

    def _keeps_state(self, group: dict[str, Any]) -> bool:
        return True

    def _check_grad(self, grad: Tensor) -> None:
        """Refuses gradients the optimizer cannot use (only SparseAdam refuses any)."""

    def _init_state(self, p: Tensor, state: dict, group: dict[str, Any]) -> None:
        """A parameter's state, made the first time it has a gradient: the 0-d ``step``
        counter (float32 in ``fused`` groups, as PyTorch keeps it), then the
        ``_zeros_state`` tensors. Subclasses that keep more state extend this."""
        state["step"] = _new_step(float32=bool(group.get("fused")))
        for key in self._zeros_state:
            state[key] = _core.zeros_like(p)

    def _update(self, group: dict[str, Any], params: list, grads: list, states: list) -> None:
        raise NotImplementedError

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        """The group's options (the constructor's keys) as keyword arguments for the
        functional form, ``betas`` split into ``beta1`` and ``beta2``; the functional
        forms take ``**_ignored`` for the flags they do not use."""
        options = {key: group[key] for key in self.defaults}
        if "betas" in options:
            options["beta1"], options["beta2"] = options.pop("betas")
        return options

    def _refuse_capturable(self) -> None:
        """``capturable=True`` needs an accelerator; PyTorch's CPU step fails its
        device assertion, after the group's state was created, with this message."""
        devices = _CAPTURABLE_DEVICES + (["xla"] if self._capturable_on_xla else [])
        raise AssertionError(
            f"If capturable=True, {self._capturable_operands} must be on supported "
            f"devices: {devices}."
        )


def _cast_state(param: Tensor, value, key=None, step_float32: bool = False):
    """A deep copy of one parameter's saved state with its tensors matched to the
    parameter (floating state follows the parameter's dtype; ``step`` is kept as is, or
    made float32 for fused and capturable groups)."""
    if isinstance(value, Tensor):
        out = value.detach().clone()
        if key == "step":
            if step_float32 and out.dtype != _core.float32:
                out = out.to(dtype=_core.float32)
        elif param.is_floating_point() and out.dtype != param.dtype:
            out = out.to(dtype=param.dtype)
        return out
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k, step_float32) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        items = (_cast_state(param, v, step_float32=step_float32) for v in value)
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value

