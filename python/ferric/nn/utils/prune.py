r"""``ferric.nn.utils.prune``: PyTorch's pruning reparametrization.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, registers a buffer
``<name>_mask`` and a forward pre-hook (the pruning method itself) that recomputes
``module.<name> = <name>_orig * <name>_mask`` before every forward. Pruning the same
tensor again combines the masks through a :class:`PruningContainer` (only entries still
un-pruned are eligible); :func:`remove` makes the pruning permanent. Masks are computed
with the same ``topk`` / ``kthvalue`` / ``rand`` calls as PyTorch, so they agree with
PyTorch's for the same weights and, for the random methods, after the same
``manual_seed``.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import _core
from ...autograd.grad_mode import no_grad
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured",
    "PruningContainer", "RandomStructured", "RandomUnstructured", "custom_from_mask",
    "global_unstructured", "identity", "is_pruned", "l1_unstructured", "ln_structured",
    "random_structured", "random_unstructured", "remove",
]


class BasePruningMethod(ABC):
    r"""Abstract base class of the pruning methods: subclasses define
    :meth:`compute_mask` (and a ``PRUNING_TYPE``: ``"unstructured"``, ``"structured"``
    with a ``dim`` attribute, or ``"global"``) and usually a typed :meth:`apply`.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> class FirstEntry(prune.BasePruningMethod):
        ...     PRUNING_TYPE = "unstructured"
        ...     def compute_mask(self, t, default_mask):
        ...         mask = default_mask.clone()
        ...         mask.view(-1)[0] = 0
        ...         return mask
        >>> m = nn.Linear(2, 2)
        >>> _ = FirstEntry.apply(m, "weight")
        >>> m.weight_mask
        tensor([[0., 1.],
                [1., 1.]])
    """

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: sets ``module.<name>`` to the masked tensor."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        r"""The mask for tensor ``t`` (same shape), combined with ``default_mask`` (the
        mask of earlier pruning iterations)."""

    def apply_mask(self, module):
        r"""``module.<name>_orig * module.<name>_mask`` (the pruned tensor)."""
        if getattr(self, "_tensor_name", None) is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        r"""Prunes ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with an
        earlier pruning of the same tensor) and returns the (container) method.

        Args:
            module (nn.Module): the module holding the tensor.
            name (str): the parameter's name in ``module``.
            importance_scores (Tensor, optional): scores ranking the entries (same
                shape as the parameter); the parameter itself when ``None``.
        """
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter "
                    f"{name} of {module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        container = isinstance(method, PruningContainer)
        if not container:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _core.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=_core.contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not container:
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        r"""``t`` times the mask this method computes (from ``importance_scores``, or
        ``t`` itself), combined with ``default_mask`` (all ones when ``None``)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as tensor t, "
                    f"got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        if default_mask is None:
            default_mask = _core.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        r"""Makes the pruning of ``module.<name>`` permanent: ``<name>`` becomes a
        parameter holding the masked values; ``<name>_orig`` and ``<name>_mask`` go."""
        if getattr(self, "_tensor_name", None) is None:
            raise AssertionError(
                f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        with no_grad():
            orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """``cls(*args, **kwargs)`` for ``module.<name>``, chained after the tensor's
    existing pruning hook (taken off the module) in a :class:`PruningContainer`."""
    old_method = None
    found = []
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            found.append(k)
    if len(found) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer.")
    for k in found:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        method = old_method
    elif old_method is not None:
        container = PruningContainer(old_method)
        container.add_pruning_method(method)
        method = container
    return method


class PruningContainer(BasePruningMethod):
    r"""A sequence of pruning methods applied to one tensor (iterative pruning): the
    last method only sees the entries (or channels) the earlier ones left.

    Args:
        *args: the pruning methods, all acting on the same tensor name.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = nn.Linear(4, 2)
        >>> with ferric.no_grad():
        ...     _ = m.weight.copy_(ferric.arange(8.).view(2, 4))
        >>> _ = prune.l1_unstructured(m, "weight", amount=2)
        >>> c = prune.l1_unstructured(m, "weight", amount=2)._forward_pre_hooks
        >>> type(list(c.values())[0]).__name__
        'PruningContainer'
        >>> m.weight_mask
        tensor([[0., 0., 0., 0.],
                [1., 1., 1., 1.]])
    """

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        r"""Appends ``method`` (a :class:`BasePruningMethod` acting on the same tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on "
                f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                f" Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        r"""The last method's mask, computed on the part of ``t`` that
        ``default_mask`` leaves (un-pruned entries, or kept channels for structured
        methods), written into a copy of ``default_mask``."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    "Pruning methods of PRUNING_TYPE 'structured' need to have the "
                    "attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = tuple(keep if d == dim else slice(None) for d in range(n_dims))
        elif kind == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    r"""Prunes nothing: sets up the reparametrization with a mask of ones.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.Identity.apply(nn.Linear(2, 1), "bias")
        >>> type(m).__name__
        'Identity'
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        r"""``default_mask`` unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module, name):
        r"""Sets up pruning of ``module.<name>`` with a mask of ones."""
        return super().apply(module, name)


def _validate_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a "
            "non-negative integer")


def _validate_amount(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}")


def _validate_structured(t):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found "
            f"tensor of shape {shape} with {len(shape)} dims")


def _validate_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _nparams_toprune(amount, tensor_size):
    """The number of entries (channels) to prune out of ``tensor_size``, validated."""
    k = amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)
    _validate_amount(k, tensor_size)
    return k


class _UnstructuredPruningMethod(BasePruningMethod):
    """Prunes ``amount`` single entries: the ``topk`` of the subclass's ``_scores(t)``
    (largest first when ``_largest``)."""

    PRUNING_TYPE = "unstructured"
    _largest = True

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def _scores(self, t):
        raise NotImplementedError

    def compute_mask(self, t, default_mask):
        r"""``default_mask`` with the ``amount`` entries of ``t`` that rank first by the
        method's scores set to 0 (random entries for :class:`RandomUnstructured`, the
        smallest-magnitude ones for :class:`L1Unstructured`)."""
        k = _nparams_toprune(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_core.contiguous_format)
        if k != 0:
            top = _core.topk(self._scores(t).view(-1), k=k, largest=self._largest)
            mask.view(-1)[top.indices] = 0
        return mask


class _StructuredPruningMethod(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``; the subclass's
    ``_channels_to_keep(t, tensor_size, k)`` picks the ones that stay."""

    PRUNING_TYPE = "structured"

    def _channels_to_keep(self, t, tensor_size, k):
        raise NotImplementedError

    def compute_mask(self, t, default_mask):
        r"""``default_mask`` times a mask keeping all but ``amount`` channels of ``t``
        along ``dim`` (random ones for :class:`RandomStructured`, those of smallest norm
        for :class:`LnStructured`)."""
        _validate_structured(t)
        _validate_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        k = _nparams_toprune(self.amount, tensor_size)
        if k == 0:
            return default_mask
        keep = self._channels_to_keep(t, tensor_size, k)
        return _channel_mask(t, self.dim, keep, default_mask)


def _channel_mask(t, dim, keep, default_mask):
    """``default_mask`` times a mask of ones on the channels ``keep`` (indices or a bool
    mask) along ``dim`` of ``t``, zeros elsewhere."""
    mask = _core.zeros_like(t)
    slc = [slice(None)] * t.dim()
    slc[dim] = keep
    mask[tuple(slc)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask


class RandomUnstructured(_UnstructuredPruningMethod):
    r"""Prunes ``amount`` entries chosen at random (the ``topk`` of ``rand_like``).

    Args:
        amount (int or float): entries to prune: a count, or a fraction in ``[0, 1]``.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(4, 5), "weight", amount=0.25)
        >>> int(m.weight_mask.sum())
        15
    """

    def _scores(self, t):
        return _core.rand_like(t)

    @classmethod
    def apply(cls, module, name, amount):
        r"""Prunes ``module.<name>`` (see :func:`random_unstructured`)."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(_UnstructuredPruningMethod):
    r"""Prunes the ``amount`` entries of smallest absolute value (``topk`` with
    ``largest=False`` on ``|t|``, so ties go as in PyTorch).

    Args:
        amount (int or float): entries to prune: a count, or a fraction in ``[0, 1]``.

    Example:
        >>> import ferric
        >>> from ferric.nn.utils import prune
        >>> prune.L1Unstructured(amount=2).prune(ferric.tensor([3., -1., 0.5, 2.]))
        tensor([3., -0., 0., 2.])
    """

    _largest = False

    def _scores(self, t):
        return _core.abs(t)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        r"""Prunes ``module.<name>`` (see :func:`l1_unstructured`)."""
        return super().apply(module, name, amount=amount,
                             importance_scores=importance_scores)


class RandomStructured(_StructuredPruningMethod):
    r"""Prunes ``amount`` whole channels along ``dim``, chosen at random.

    Args:
        amount (int or float): channels to prune: a count, or a fraction in ``[0, 1]``.
        dim (int): the channel dimension. Default: -1.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.random_structured(nn.Linear(4, 3), "weight", amount=1, dim=0)
        >>> m.weight_mask.sum(dim=1).tolist().count(0.0)
        1
    """

    def __init__(self, amount, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def _channels_to_keep(self, t, tensor_size, k):
        prob = _core.rand(tensor_size)
        threshold = _core.kthvalue(prob, k=k).values
        return prob > threshold

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        r"""Prunes ``module.<name>`` (see :func:`random_structured`)."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_StructuredPruningMethod):
    r"""Prunes the ``amount`` channels along ``dim`` of smallest L\ ``n`` norm.

    Args:
        amount (int or float): channels to prune: a count, or a fraction in ``[0, 1]``.
        n (int, float, inf, -inf, 'fro', 'nuc'): the norm's order (as :func:`ferric.norm`).
        dim (int): the channel dimension. Default: -1.

    Example:
        >>> import ferric
        >>> from ferric.nn.utils import prune
        >>> w = ferric.tensor([[1., 2.], [0.1, 0.1], [3., 0.]])
        >>> prune.LnStructured(amount=1, n=2, dim=0).prune(w)
        tensor([[1., 2.],
                [0., 0.],
                [3., 0.]])
    """

    def __init__(self, amount, n, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def _channels_to_keep(self, t, tensor_size, k):
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        norm = _core.norm(t, p=self.n, dim=dims)
        return _core.topk(norm, k=tensor_size - k, largest=True).indices

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        r"""Prunes ``module.<name>`` (see :func:`ln_structured`)."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    r"""Prunes with a given ``mask`` (combined with earlier masks).

    Args:
        mask (Tensor): the mask, shaped as the tensor.

    Example:
        >>> import ferric
        >>> from ferric.nn.utils import prune
        >>> prune.CustomFromMask(ferric.tensor([1., 0.])).prune(ferric.tensor([2., 3.]))
        tensor([2., 0.])
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        r"""``default_mask * mask``."""
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match "
                f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        r"""Prunes ``module.<name>`` (see :func:`custom_from_mask`)."""
        return super().apply(module, name, mask=mask)


def identity(module, name):
    r"""Sets up pruning of ``module.<name>`` without pruning anything (mask of ones).

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.identity(nn.Linear(2, 3), "bias")
        >>> m.bias_mask
        tensor([1., 1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    r"""Prunes ``amount`` random entries of ``module.<name>``.

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.
        amount (int or float): a count, or a fraction in ``[0, 1]``.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(2, 3), "weight", amount=1)
        >>> int((m.weight_mask == 0).sum())
        1
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    r"""Prunes the ``amount`` entries of ``module.<name>`` of smallest absolute value
    (of ``importance_scores`` when given).

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.
        amount (int or float): a count, or a fraction in ``[0, 1]``.
        importance_scores (Tensor, optional): the scores ranking the entries.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = nn.Linear(3, 1)
        >>> with ferric.no_grad():
        ...     _ = m.weight.copy_(ferric.tensor([[0.5, -2., 0.1]]))
        >>> m = prune.l1_unstructured(m, "weight", amount=0.34)
        >>> m.weight
        tensor([[ 0.5000, -2.0000,  0.0000]], grad_fn=<MulBackward0>)
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    r"""Prunes ``amount`` random channels of ``module.<name>`` along ``dim``.

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.
        amount (int or float): a count, or a fraction in ``[0, 1]``.
        dim (int): the channel dimension.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.random_structured(nn.Linear(2, 4), "weight", amount=0.5, dim=0)
        >>> m.weight_mask.sum(dim=1).tolist().count(0.0)
        2
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    r"""Prunes the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
    L\ ``n`` norm (of ``importance_scores`` when given).

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.
        amount (int or float): a count, or a fraction in ``[0, 1]``.
        n (int, float, inf, -inf, 'fro', 'nuc'): the norm's order.
        dim (int): the channel dimension.
        importance_scores (Tensor, optional): the scores ranking the channels.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.ln_structured(nn.Conv2d(1, 4, 3), "weight", amount=0.5, n=2, dim=0)
        >>> m.weight_mask.sum(dim=(1, 2, 3)).tolist().count(0.0)
        2
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    r"""Prunes the given ``(module, name)`` tensors together: the method (an
    ``"unstructured"`` one, built as ``pruning_method(**kwargs)``) ranks all their
    entries at once, so some tensors lose more than others.

    Args:
        parameters (Iterable of (module, name) tuples): the tensors.
        pruning_method (type): a :class:`BasePruningMethod` subclass.
        importance_scores (dict, optional): ``{(module, name): scores}``; the
            parameter itself where missing.
        **kwargs: the method's arguments (``amount``).

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> a, b = nn.Linear(4, 4), nn.Linear(4, 2)
        >>> prune.global_unstructured([(a, "weight"), (b, "weight")],
        ...                           pruning_method=prune.L1Unstructured, amount=6)
        >>> int((a.weight == 0).sum() + (b.weight == 0).sum())
        6
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([
        importance_scores.get((module, name), getattr(module, name))
        for (module, name) in parameters])
    default_mask = parameters_to_vector([
        getattr(module, name + "_mask", _core.ones_like(getattr(module, name)))
        for (module, name) in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num].view_as(param))
        pointer += num


def custom_from_mask(module, name, mask):
    r"""Prunes ``module.<name>`` with the given ``mask``.

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.
        mask (Tensor): the mask (same shape as the parameter).

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.custom_from_mask(nn.Linear(5, 3), "bias", ferric.tensor([0, 1, 0]))
        >>> m.bias_mask
        tensor([0., 1., 0.])
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    r"""Makes the pruning of ``module.<name>`` permanent: removes the hook,
    ``<name>_orig`` and ``<name>_mask``, and leaves ``<name>`` a parameter holding the
    pruned values.

    Args:
        module (nn.Module): the module holding the tensor.
        name (str): the parameter's name.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = prune.random_unstructured(nn.Linear(5, 3), "weight", amount=0.2)
        >>> m = prune.remove(m, "weight")
        >>> sorted(n for n, _ in m.named_parameters()), list(m.named_buffers())
        (['bias', 'weight'], [])
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be "
        "removed")


def is_pruned(module):
    r"""Whether ``module`` or a submodule has a pruning hook.

    Args:
        module (nn.Module): the module.

    Example:
        >>> from ferric import nn
        >>> from ferric.nn.utils import prune
        >>> m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        >>> prune.is_pruned(m)
        False
        >>> _ = prune.identity(m[0], "weight")
        >>> prune.is_pruned(m)
        True
    """
    for _, sub in module.named_modules():
        for hook in sub._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False

