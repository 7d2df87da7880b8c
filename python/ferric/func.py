"""``ferric.func`` (``torch.func``): function transforms built on ferric's tape.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and
``functional_call``. Arguments may be tensors or nested tuples/lists/dicts of tensors
(pytrees). The transforms compose (``grad(grad(f))``): each level differentiates with
``create_graph=True`` and detaches its results only when no outer level needs them.
ferric has no ``vmap``; ``jacfwd`` computes in reverse mode (same values).
"""

from __future__ import annotations

import contextlib

from . import _core
from .autograd import functional as _af
from .autograd.grad_mode import enable_grad

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "vjp"]


def _flatten(tree):
    """``(leaves, rebuild)``: the tensors of a pytree and a function rebuilding it."""
    if isinstance(tree, _core.Tensor):
        return [tree], lambda leaves: leaves[0]
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(t) for t in tree]
        sizes = [len(p[0]) for p in parts]
        kind = type(tree)

        def rebuild(leaves):
            out, i = [], 0
            for (_, rb), n in zip(parts, sizes, strict=True):
                out.append(rb(leaves[i:i + n]))
                i += n
            return kind(out) if kind in (tuple, list) else kind(*out)
        return [leaf for p in parts for leaf in p[0]], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, rb = _flatten([tree[k] for k in keys])
        return leaves, lambda ls: dict(zip(keys, rb(ls), strict=True))
    return [], lambda leaves: tree


def _argnums(argnums, n, api):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError(f"{api}: argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or not -n <= a < n:
            raise RuntimeError(f"Got argnums={argnums}, but only {n} positional inputs")
    return nums, isinstance(argnums, int)


def _track(leaves):
    """Fresh differentiable stand-ins for ``leaves`` (views when an outer level tracks
    them, so its graph continues through)."""
    return [t.view_as(t) if t.requires_grad else t.detach().requires_grad_(True)
            for t in leaves]


def _done(ts, nested):
    return [t if nested else t.detach() for t in ts]


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function computing ``(gradient, value)`` of the scalar ``func`` with
    respect to the arguments ``argnums`` (``((gradient, (value, aux)))`` with ``has_aux``).

    Args:
        func (callable): returns a single-element tensor (and an aux value).
        argnums (int or tuple of ints, optional): the arguments to differentiate.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``.

    Example::

        >>> import ferric
        >>> from ferric.func import grad_and_value
        >>> grad_and_value(lambda x: (x ** 2).sum())(ferric.tensor([1.0, 2.0]))
        (tensor([2., 4.]), tensor(5.))
    """
    def wrapper(*args, **kwargs):
        nums, single = _argnums(argnums, len(args), "grad_and_value")
        args = list(args)
        flat, rebuilds = [], []
        for a in nums:
            leaves, rb = _flatten(args[a])
            tracked = _track(leaves)
            args[a] = rb(tracked)
            flat.append(tracked)
            rebuilds.append(rb)
        nested = any(t.requires_grad for leaves in flat for t in leaves
                     if t.grad_fn is not None)
        with enable_grad():
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f "
                                       "should be a tuple: (output, aux) if has_aux is True")
                out, aux = out
            if not isinstance(out, _core.Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {out.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            everything = [t for leaves in flat for t in leaves]
            if out.requires_grad:
                gs = _core._grad([out], everything, [_core.ones_like(out)], True, True, True,
                                 False)
            else:
                gs = (None,) * len(everything)
        gs = [_core.zeros_like(t) if g is None else g for g, t in zip(gs, everything,
                                                                       strict=True)]
        gs = _done(gs, nested)
        grads, i = [], 0
        for leaves, rb in zip(flat, rebuilds, strict=True):
            grads.append(rb(gs[i:i + len(leaves)]))
            i += len(leaves)
        g = grads[0] if single else tuple(grads)
        value = out if nested else out.detach()
        return (g, (value, aux)) if has_aux else (g, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """Returns a function computing the gradient of the scalar ``func`` with respect to
    the arguments ``argnums`` (``(gradient, aux)`` with ``has_aux``). Composes:
    ``grad(grad(f))`` is the second derivative.

    Args:
        func (callable): returns a single-element tensor (and an aux value).
        argnums (int or tuple of ints, optional): the arguments to differentiate.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``.

    Example::

        >>> import ferric
        >>> from ferric.func import grad
        >>> x = ferric.tensor(0.5)
        >>> grad(ferric.sin)(x), grad(grad(ferric.sin))(x)
        (tensor(0.8776), tensor(-0.4794))
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns the vector-Jacobian
    products, one per primal.

    Args:
        func (callable): the function.
        *primals (Tensor): where to evaluate.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``; then the result is
            ``(output, vjp_fn, aux)``.

    Example::

        >>> import ferric
        >>> from ferric.func import vjp
        >>> out, fn = vjp(lambda x: x ** 2, ferric.tensor([1.0, 3.0]))
        >>> fn(ferric.ones(2))
        (tensor([2., 6.]),)
    """
    tracked = _track(list(primals))
    nested = any(t.grad_fn is not None for t in tracked)
    with enable_grad():
        out = func(*tracked)
    aux = None
    if has_aux:
        out, aux = out
    out_leaves, _ = _flatten(out)

    def vjp_fn(cotangents):
        cot, _ = _flatten(cotangents)
        if len(cot) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function")
        pairs = [(o, c) for o, c in zip(out_leaves, cot, strict=True) if o.requires_grad]
        with enable_grad():
            if pairs:
                gs = _core._grad([p[0] for p in pairs], tracked, [p[1] for p in pairs], True,
                                 True, True, False)
            else:
                gs = (None,) * len(tracked)
        gs = [_core.zeros_like(t) if g is None else g for g, t in zip(gs, tracked, strict=True)]
        return tuple(_done(gs, nested))

    value = out if nested else _flatten(out)[1](_done(out_leaves, False))
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product (computed with the
    double-vjp trick).

    Args:
        func (callable): the function.
        primals (tuple of Tensors): where to evaluate.
        tangents (tuple of Tensors): one per primal.
        strict (bool, optional): accepted.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``.

    Example::

        >>> import ferric
        >>> from ferric.func import jvp
        >>> jvp(lambda x: x ** 2, (ferric.tensor([1.0, 3.0]),), (ferric.ones(2),))
        (tensor([1., 9.]), tensor([2., 6.]))
    """
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be "
                           "tuples")
    aux_box = []

    def f(*a):
        out = func(*a)
        if has_aux:
            out, aux = out
            aux_box.append(aux)
        return out

    out, jv = _af.jvp(f, primals, tangents)
    return (out, jv, aux_box[0]) if has_aux else (out, jv)


def _jac(api, func, argnums, has_aux):
    def wrapper(*args):
        nums, single = _argnums(argnums, len(args), api)
        aux_box = []

        def f(*chosen):
            full = list(args)
            for a, c in zip(nums, chosen, strict=True):
                full[a] = c
            out = func(*full)
            if has_aux:
                out, aux = out
                aux_box.append(aux)
            return out

        jac = _af.jacobian(f, tuple(args[a] for a in nums))
        if isinstance(jac, tuple) and jac and isinstance(jac[0], tuple):
            jac = tuple(j[0] if single else j for j in jac)
        elif single:
            jac = jac[0]
        return (jac, aux_box[0]) if has_aux else jac
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """Returns a function computing the Jacobian of ``func`` with respect to the
    arguments ``argnums`` by reverse mode (one row at a time).

    Args:
        func (callable): the function.
        argnums (int or tuple of ints, optional): the arguments to differentiate.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``.
        chunk_size (int, optional): accepted.

    Example::

        >>> import ferric
        >>> from ferric.func import jacrev
        >>> jacrev(lambda x: x ** 2)(ferric.tensor([1.0, 3.0]))
        tensor([[2., 0.],
                [0., 6.]])
    """
    return _jac("jacrev", func, argnums, has_aux)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """Returns a function computing the Jacobian of ``func`` with respect to ``argnums``
    (PyTorch uses forward mode; ferric computes the same values in reverse mode).

    Args:
        func (callable): the function.
        argnums (int or tuple of ints, optional): the arguments to differentiate.
        has_aux (bool, optional): ``func`` returns ``(output, aux)``.
        randomness (str, optional): accepted.

    Example::

        >>> import ferric
        >>> from ferric.func import jacfwd
        >>> jacfwd(lambda x: x.sum() * x)(ferric.tensor([1.0, 2.0]))
        tensor([[4., 1.],
                [2., 5.]])
    """
    return _jac("jacfwd", func, argnums, has_aux)


def hessian(func, argnums=0):
    """Returns a function computing the Hessian of the scalar ``func`` with respect to
    ``argnums``.

    Args:
        func (callable): returns a single-element tensor.
        argnums (int or tuple of ints, optional): the arguments to differentiate.

    Example::

        >>> import ferric
        >>> from ferric.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(ferric.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    def wrapper(*args):
        nums, single = _argnums(argnums, len(args), "hessian")

        def f(*chosen):
            full = list(args)
            for a, c in zip(nums, chosen, strict=True):
                full[a] = c
            return func(*full)

        h = _af.hessian(f, tuple(args[a] for a in nums))
        return h[0][0] if single else h
    return wrapper


def _swap(module, name, value):
    """Sets the parameter/buffer/attribute ``name`` ("a.b.c") of ``module``; returns a
    function putting the old value back."""
    *path, leaf = name.split(".")
    for p in path:
        module = getattr(module, p)
    for store in ("_parameters", "_buffers"):
        d = module.__dict__.get(store)
        if d is not None and leaf in d:
            old = d[leaf]
            d[leaf] = value

            def restore(d=d, old=old):
                d[leaf] = old
            return restore
    old = getattr(module, leaf)
    object.__setattr__(module, leaf, value)
    return lambda: object.__setattr__(module, leaf, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Calls ``module`` with its parameters and buffers replaced by the tensors of
    ``parameter_and_buffer_dicts`` (a dict name -> tensor, or a tuple of dicts), then
    puts the originals back.

    Args:
        module (nn.Module): the module to call.
        parameter_and_buffer_dicts (dict or tuple of dicts): replacement tensors by name.
        args (Any or tuple, optional): positional arguments (a non-tuple is one argument).
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool, optional): accepted (tied names point at one tensor already).
        strict (bool, optional): every parameter and buffer must be replaced.

    Example::

        >>> import ferric
        >>> from ferric.func import functional_call
        >>> lin = ferric.nn.Linear(2, 1, bias=False)
        >>> functional_call(lin, {"weight": ferric.ones(1, 2)}, (ferric.tensor([[1.0, 2.0]]),))
        tensor([[3.]])
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = (dicts,)
    merged = {}
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged[k] = v
    if strict:
        names = {n for n, _ in module.named_parameters()} | \
            {n for n, _ in module.named_buffers()}
        missing = sorted(names - set(merged))
        unexpected = sorted(set(merged) - names)
        if missing or unexpected:
            raise RuntimeError("Error(s) in reparametrizing for "
                               f"{type(module).__name__}: missing keys {missing}, "
                               f"unexpected keys {unexpected}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    restores = []
    with contextlib.ExitStack() as stack:
        for name, value in merged.items():
            restores.append(_swap(module, name, value))
        stack.callback(lambda: [r() for r in reversed(restores)])
        return module(*args, **(kwargs or {}))
