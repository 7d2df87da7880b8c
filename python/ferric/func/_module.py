"""``functional_call`` and ``stack_module_state``: running a module with other
parameters/buffers, and stacking an ensemble's states for ``vmap``."""

from __future__ import annotations

import contextlib

from .. import _core


def _owner(module, name: str):
    """(submodule, attribute) for a dotted name, or (None, name) when a prefix is missing."""
    *path, attr = name.split(".")
    m = module
    for p in path:
        subs = m.__dict__.get("_modules", {})
        if p not in subs or subs[p] is None:
            return None, attr
        m = subs[p]
    return m, attr


def _tied_names(module) -> dict[str, list[str]]:
    """name -> every name of the same parameter/buffer object (tied weights)."""
    by_id: dict[int, list[str]] = {}
    members = list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False))
    for n, t in members:
        by_id.setdefault(id(t), []).append(n)
    return {n: by_id[id(t)] for n, t in members}


@contextlib.contextmanager
def _reparametrize(module, values: dict, tie_weights: bool, strict: bool):
    params = dict(module.named_parameters(remove_duplicate=False))
    buffers = dict(module.named_buffers(remove_duplicate=False))
    known = set(params) | set(buffers)
    values = dict(values)
    if tie_weights:
        for name, names in _tied_names(module).items():
            if name in values:
                for other in names:
                    if other not in values:
                        values[other] = values[name]
    if strict:
        missing = sorted(known - set(values))
        unexpected = sorted(set(values) - known)
        if missing or unexpected:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + "."
            raise RuntimeError(msg)
    undo = []
    try:
        for name, value in values.items():
            m, attr = _owner(module, name)
            if m is None:
                raise AttributeError(f"'{type(module).__name__}' has no submodule for '{name}'")
            for store in ("_parameters", "_buffers"):
                d = m.__dict__[store]
                if attr in d:
                    undo.append((d, attr, d[attr]))
                    d[attr] = value
                    break
            else:
                had = attr in m.__dict__
                undo.append((m.__dict__, attr, m.__dict__[attr] if had else _MISSING))
                m.__dict__[attr] = value
        yield
    finally:
        for d, attr, old in reversed(undo):
            if old is _MISSING:
                d.pop(attr, None)
            else:
                d[attr] = old


_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``torch.func.functional_call``: calls ``module(*args, **kwargs)`` with its
    parameters and buffers replaced by the given tensors (for this call only; the
    module's own are put back afterwards, also when the call raises).

    Args:
        module (nn.Module): the module to call.
        parameter_and_buffer_dicts (dict or sequence of dicts): name (as in
            ``named_parameters()`` / ``named_buffers()``) -> tensor. Names missing here keep
            the module's own tensors. A name in several dicts is an error.
        args (Any or tuple): the positional arguments (a non-tuple is one argument).
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool): a replacement for one name of a tied parameter replaces the
            tied ones too.
        strict (bool): every parameter and buffer must be given, and no unknown name.

    Example:
        >>> import ferric
        >>> from ferric.func import functional_call
        >>> lin = ferric.nn.Linear(2, 1)
        >>> new = {"weight": ferric.tensor([[1.0, 2.0]]), "bias": ferric.tensor([0.5])}
        >>> functional_call(lin, new, (ferric.tensor([1.0, 1.0]),))
        tensor([3.5000])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        seen: dict = {}
        dup = []
        for d in parameter_and_buffer_dicts:
            if not isinstance(d, dict):
                raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                                 f"dictionaries, got {type(d)}")
            for k, v in d.items():
                if k in seen and k not in dup:
                    dup.append(k)
                seen[k] = v
        if dup:
            raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        values = seen
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _stacked(tensors, name):
    rg = {t.requires_grad for t in tensors}
    if len(rg) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = _core.stack([t.detach() for t in tensors], 0)
    return out.requires_grad_() if rg.pop() else out


def stack_module_state(models):
    """``torch.func.stack_module_state``: stacks the parameters and buffers of several
    modules of one class into ``(params, buffers)`` dicts (a new leading dimension of
    size ``len(models)``), ready for ``vmap(functional_call(...))`` over an ensemble.
    Stacked parameters are new leaves (requiring grad as the originals do).

    Args:
        models (sequence of nn.Module): the modules (same class, same mode).

    Example:
        >>> import ferric
        >>> from ferric.func import stack_module_state
        >>> params, buffers = stack_module_state([ferric.nn.Linear(3, 2) for _ in range(4)])
        >>> params["weight"].shape, buffers
        (ferric.Size([4, 2, 3]), {})
    """
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    names = [n for n, _ in models[0].named_parameters()]
    params = {n: _stacked([dict(m.named_parameters())[n] for m in models], n) for n in names}
    bnames = [n for n, _ in models[0].named_buffers()]
    buffers = {n: _stacked([dict(m.named_buffers())[n] for m in models], n) for n in bnames}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """``torch.func.replace_all_batch_norm_modules_``: in place, makes every BatchNorm
    module of ``root`` (``root`` itself included) stop tracking running statistics:
    ``running_mean``, ``running_var`` and ``num_batches_tracked`` become None and
    ``track_running_stats`` False, so the modules always normalise with the batch's own
    statistics (the state ``vmap`` over a model with BatchNorm needs in PyTorch).

    Args:
        root (nn.Module): the module to update.

    Returns:
        ``root``.

    Example:
        >>> import ferric
        >>> from ferric.func import replace_all_batch_norm_modules_
        >>> net = ferric.nn.Sequential(ferric.nn.BatchNorm1d(3), ferric.nn.ReLU())
        >>> net = replace_all_batch_norm_modules_(net)
        >>> net[0].running_mean is None, net[0].track_running_stats
        (True, False)
    """
    for m in root.modules():
        is_bn = any(c.__name__ == "_BatchNorm" for c in type(m).__mro__)
        if is_bn and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
