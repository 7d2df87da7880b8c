"""``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian``
on ferric's reverse-mode autograd.

PyTorch's transforms run ``func`` at a new "level" that sees its own inputs as fresh
variables. Here each call makes the chosen inputs into new graph nodes: a detached leaf
that requires grad when nothing outside differentiates through the call, or a view of the
input (still connected to the outer graph) when the input already requires grad, in which
case the derivatives are computed with ``create_graph=True`` so that an enclosing
transform (``hessian = jacfwd(jacrev(f))``, ``grad(grad(f))``) or ``backward()`` can
differentiate them again.
"""

from __future__ import annotations

import contextlib
import functools

from .. import _core
from ..autograd import grad as _autograd_grad
from ..autograd.functional import _stack_jacobian
from ..autograd.grad_mode import enable_grad
from ..autograd.grad_mode import no_grad as _no_grad
from . import _pytree

Tensor = _core.Tensor


def _check_argnums(argnums, nargs: int):
    """The normalised argnums (an int or a tuple of ints) for ``nargs`` positional args."""
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        for a in argnums:
            if not isinstance(a, int) or isinstance(a, bool):
                raise RuntimeError(
                    f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        out = tuple(_check_argnums(a, nargs) for a in argnums)
        if len(set(out)) != len(out):
            raise RuntimeError(f"argnums must be unique, got {argnums}")
        return out
    if not isinstance(argnums, int) or isinstance(argnums, bool):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not -nargs <= argnums < nargs:
        raise RuntimeError(f"Got argnum={argnums}, but only {nargs} positional inputs")
    return argnums % nargs


def _check_tensors(leaves, what="transform API"):
    for x in leaves:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to {what} must be Tensor, got {type(x)}")


def _wrap(x: Tensor) -> Tensor:
    """``x`` as a fresh input of this level (see the module docstring)."""
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_()


# how many transforms are running ``func`` (or differentiating it) right now: inside one,
# every result must stay differentiable, since ``func`` may close over an enclosing
# transform's inputs (``grad(lambda x: grad(lambda y: f(x, y))(y0))``)
_DEPTH = [0]


@contextlib.contextmanager
def _level():
    """Grad mode on and the transform depth raised while a transform runs ``func``."""
    _DEPTH[0] += 1
    try:
        with enable_grad():
            yield
    finally:
        _DEPTH[0] -= 1


def _lift(leaves):
    """(wrapped leaves, whether an outer level differentiates through them). An outer
    ``no_grad`` hides the inputs' own graph (as PyTorch's regular autograd level is then
    off), but the transform itself still differentiates ``func``."""
    _check_tensors(leaves)
    outer = _DEPTH[0] > 0 or (_core.is_grad_enabled() and any(x.requires_grad for x in leaves))
    with enable_grad():
        return [_wrap(x) if outer else x.detach().requires_grad_() for x in leaves], outer


def _grads(outs, ins, grad_outputs, create_graph: bool):
    """d(outs . grad_outputs)/d(ins); zeros for the inputs the outputs do not reach."""
    pairs = [(o, g) for o, g in zip(outs, grad_outputs, strict=True) if o.requires_grad]
    got = [None] * len(ins)
    if pairs:
        got = list(_autograd_grad([o for o, _ in pairs], ins, [g for _, g in pairs],
                                  retain_graph=True, create_graph=create_graph,
                                  allow_unused=True))
    return [_core.zeros_like(x) if g is None else g for g, x in zip(got, ins, strict=True)]


def _done(t, outer: bool):
    """A result leaving this level: detached unless an outer level differentiates it."""
    if outer or not isinstance(t, Tensor):
        return t
    return t.detach()


def _done_tree(tree, outer: bool):
    """:func:`_done` on every leaf of ``tree``."""
    leaves, spec = _pytree.flatten(tree)
    return _pytree.unflatten([_done(x, outer) for x in leaves], spec)


def _split_aux(out, has_aux: bool, api: str):
    """``(output, aux)`` from what ``func`` returned (``aux`` is None without has_aux)."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return out


def _select_args(args, argnums):
    """The selected positional args as (structure, leaves) and a function rebuilding args."""
    sel = argnums if isinstance(argnums, tuple) else (argnums,)
    trees = tuple(args[i] for i in sel)
    leaves, spec = _pytree.flatten(trees if isinstance(argnums, tuple) else trees[0])

    def rebuild(new_leaves):
        new = _pytree.unflatten(new_leaves, spec)
        new = new if isinstance(argnums, tuple) else (new,)
        out = list(args)
        for i, v in zip(sel, new, strict=True):
            out[i] = v
        return out

    return leaves, spec, rebuild


def grad_and_value(func, argnums=0, has_aux=False):
    """``torch.func.grad_and_value``: a function returning the gradient of ``func``
    (which must return a scalar tensor) w.r.t. the ``argnums`` arguments *and* the value.

    Args:
        func (callable): takes tensors (or tuples/lists/dicts of them) and returns a
            0-d tensor, or ``(tensor, aux)`` when ``has_aux``.
        argnums (int or tuple of ints): which positional arguments to differentiate.
            With a tuple the gradient is a tuple with one entry per argument.
        has_aux (bool): ``func`` returns ``(output, aux)``; aux is passed through
            (detached) as ``(grad, (value, aux))``.

    Example:
        >>> import ferric
        >>> from ferric.func import grad_and_value
        >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(ferric.tensor([1.0, 3.0]))
        >>> g, v
        (tensor([2., 6.]), tensor(10.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        leaves, spec, rebuild = _select_args(args, nums)
        ins, outer = _lift(leaves)
        with _level():
            out, aux = _split_aux(func(*rebuild(ins), **kwargs), has_aux,
                                  "grad_and_value(f)(*args)")
            if not isinstance(out, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?")
            gs = _grads([out], ins, [_core.ones_like(out)], outer)
        gs = [_done(g, outer) for g in gs]
        g = _pytree.unflatten(gs, spec)
        value = _done(out, outer)
        if has_aux:
            return g, (value, _done_tree(aux, outer))
        return g, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``torch.func.grad``: a function computing the gradient of ``func`` (which returns
    a scalar tensor) w.r.t. its ``argnums`` arguments. Compose it: ``grad(grad(f))`` is
    the second derivative, ``vmap(grad(f))`` gives per-sample gradients.

    Args:
        func (callable): takes tensors (or pytrees of them) and returns a 0-d tensor, or
            ``(tensor, aux)`` when ``has_aux``.
        argnums (int or tuple of ints): the positional arguments to differentiate.
        has_aux (bool): ``func`` returns ``(output, aux)``; the result is then
            ``(grad, aux)``.

    Example:
        >>> import ferric
        >>> from ferric.func import grad
        >>> x = ferric.tensor(0.5)
        >>> grad(ferric.sin)(x)
        tensor(0.8776)
        >>> grad(grad(ferric.sin))(x)
        tensor(-0.4794)
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _check_outputs(leaves, api: str):
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


def vjp(func, *primals, has_aux=False):
    """``torch.func.vjp``: runs ``func(*primals)`` and returns ``(output, vjp_fn)``;
    ``vjp_fn(cotangents)`` (cotangents shaped like the output) returns the
    vector-Jacobian products, a tuple with one entry per primal. ``vjp_fn`` may be called
    many times.

    Args:
        func (callable): takes the primals and returns a tensor or a pytree of tensors
            (or ``(output, aux)`` when ``has_aux``).
        *primals: tensors or pytrees of tensors.
        has_aux (bool): ``func`` returns ``(output, aux)``; then ``vjp`` returns
            ``(output, vjp_fn, aux)``.

    Example:
        >>> import ferric
        >>> from ferric.func import vjp
        >>> out, vjp_fn = vjp(lambda x: x ** 2, ferric.tensor([1.0, 2.0]))
        >>> vjp_fn(ferric.tensor([1.0, 10.0]))
        (tensor([ 2., 40.]),)
    """
    leaves, spec = _pytree.flatten(primals)
    ins, outer = _lift(leaves)
    with _level():
        out, aux = _split_aux(func(*_pytree.unflatten(ins, spec)), has_aux, "vjp(f, *primals)")
    out_leaves, out_spec = _pytree.flatten(out)
    _check_outputs(out_leaves, "vjp(f, *primals)")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        ct_leaves, ct_spec = _pytree.flatten(cotangents)
        if _pytree.spec_str(ct_spec) != _pytree.spec_str(out_spec):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {_pytree.spec_pprint(ct_spec)}, "
                f"primal output: {_pytree.spec_pprint(out_spec)}")
        for c in ct_leaves:
            if not isinstance(c, Tensor):
                raise TypeError("gradients can be either Tensors or None, but got "
                                f"{type(c).__name__}")
        for i, (c, o) in enumerate(zip(ct_leaves, out_leaves, strict=True)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and "
                    f"output[{i}] has a shape of {o.shape}.")
        if create_graph is None:
            cg = outer or (_core.is_grad_enabled() and any(c.requires_grad for c in ct_leaves))
        else:
            cg = create_graph
        with _level():
            gs = _grads(out_leaves, ins, ct_leaves, cg)
        return _pytree.unflatten([_done(g, cg) for g in gs], spec)

    out_done = _pytree.unflatten([_done(o, outer) for o in out_leaves], out_spec)
    if has_aux:
        return out_done, vjp_fn, _done_tree(aux, outer)
    return out_done, vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``torch.func.jvp``: ``(func(*primals), J @ tangents)``, the Jacobian-vector product.

    ferric has reverse-mode autograd only: the product is computed exactly with the
    double-vjp trick (``J t = d/du [u^T J] t``, two reverse passes), so it costs about
    twice a backward pass and needs ``func`` to be twice differentiable in ferric.

    Args:
        func (callable): takes the primals and returns a tensor or pytree of tensors
            (``(output, aux)`` when ``has_aux``).
        primals (tuple): the arguments of ``func``.
        tangents (tuple): a tangent for every primal, same structure and shapes.
        strict (bool): accepted for PyTorch compatibility (PyTorch raises
            "not implemented" for ``strict=True``; so does this).
        has_aux (bool): ``func`` returns ``(output, aux)``; then the result is
            ``(output, jvp_out, aux)``.

    Example:
        >>> import ferric
        >>> from ferric.func import jvp
        >>> x = ferric.tensor([1.0, 2.0])
        >>> jvp(lambda x: x ** 3, (x,), (ferric.tensor([1.0, 0.5]),))
        (tensor([1., 8.]), tensor([3., 6.]))
    """
    api = "jvp(f, primals, tangents)"
    if strict:
        raise RuntimeError(f"{api}: strict=True is not yet implemented")
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    p_leaves, p_spec = _pytree.flatten(primals)
    t_leaves, t_spec = _pytree.flatten(tangents)
    if _pytree.spec_str(p_spec) != _pytree.spec_str(t_spec):
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {_pytree.spec_str(p_spec)} and tangents with structure "
            f"{_pytree.spec_str(t_spec)}")
    _check_tensors(p_leaves, f"{api}: primals")
    _check_tensors(t_leaves, f"{api}: tangents")
    for p, t in zip(p_leaves, t_leaves, strict=True):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of "
                f"the original Tensor, this is not supported. Tensor is of size "
                f"{list(p.shape)} while the given forward gradient is of size {list(t.shape)}.")
    ins, outer = _lift(p_leaves)
    outer = outer or (_core.is_grad_enabled() and any(t.requires_grad for t in t_leaves))
    with _level():
        out, aux = _split_aux(func(*_pytree.unflatten(ins, p_spec)), has_aux, api)
        o_leaves, o_spec = _pytree.flatten(out)
        _check_outputs(o_leaves, api)
        us = [_core.zeros_like(o).requires_grad_() for o in o_leaves]
        # g(u) = J^T u for every input, linear in u; d(g . t)/du = J t
        gs = _grads(o_leaves, ins, us, True)
        jv = _grads([g for g in gs], us, t_leaves, outer)
    o_done = _pytree.unflatten([_done(o, outer) for o in o_leaves], o_spec)
    j_done = _pytree.unflatten([_done(j, outer) for j in jv], o_spec)
    if has_aux:
        return o_done, j_done, _done_tree(aux, outer)
    return o_done, j_done


def linearize(func, *primals):
    """``torch.func.linearize``: ``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)``
    is the Jacobian-vector product at ``primals`` (cheap to call again for many tangents
    in PyTorch, which traces ``func`` once; ferric reruns :func:`jvp` on each call, with
    the same values).

    Args:
        func (callable): takes the primals and returns a tensor or pytree of tensors.
        *primals: tensors (or pytrees of tensors) to linearize at.

    Example:
        >>> import ferric
        >>> from ferric.func import linearize
        >>> out, jvp_fn = linearize(lambda x: x ** 2, ferric.tensor([1.0, 3.0]))
        >>> jvp_fn(ferric.tensor([1.0, 1.0]))
        tensor([2., 6.])
    """
    p_leaves, p_spec = _pytree.flatten(primals)
    _check_tensors(p_leaves)
    with _no_grad():
        out = func(*primals)
    out_leaves, out_spec = _pytree.flatten(out)
    _check_outputs(out_leaves, "linearize(f, *primals)")
    out = _pytree.unflatten([o.detach() for o in out_leaves], out_spec)

    def jvp_fn(*tangents):
        t_leaves, t_spec = _pytree.flatten(tangents)
        if _pytree.spec_str(t_spec) != _pytree.spec_str(p_spec):
            raise RuntimeError(f"Expected the tangents {_pytree.spec_str(t_spec)} to have the "
                               f"same argspec as the primals {_pytree.spec_str(p_spec)}")
        _check_tensors(t_leaves)
        for i, (t, p) in enumerate(zip(t_leaves, p_leaves, strict=True)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {p.shape} of the corresponding primal.")
        with _no_grad():
            return jvp(func, primals, tangents)[1]

    return out, jvp_fn


RANDOM_IN_ERROR_MODE = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap")


def _basis(flat, i):
    """The one-hot vector like ``flat`` with a 1 at ``i``."""
    onehot = _core.zeros_like(flat)
    onehot[i] = 1.0
    return onehot


def _jacobian(func, argnums, has_aux, api, randomness=None):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        leaves, spec, rebuild = _select_args(args, nums)
        ins, outer = _lift(leaves)
        with _level():
            state = _core.get_rng_state() if randomness == "error" else None
            out = func(*rebuild(ins), **kwargs)
            # PyTorch's jacfwd vmaps func over the tangents, with vmap's randomness rule
            if state is not None and not bool((_core.get_rng_state() == state).all()):
                raise RuntimeError(RANDOM_IN_ERROR_MODE)
            out, aux = _split_aux(out, has_aux, f"{api}(f, ...)(*args)")
            o_leaves, o_spec = _pytree.flatten(out)
            _check_outputs(o_leaves, "vjp(f, *primals)")
            per_out = []
            for o in o_leaves:
                flat = o.reshape(-1)
                rows = [_grads([o], ins, [_basis(flat, i).view(o.shape)], outer)
                        for i in range(flat.shape[0])]
                jacs = [_done(j, outer) for j in _stack_jacobian(o, ins, rows)]
                per_out.append(_pytree.unflatten(jacs, spec))
        result = _pytree.unflatten(per_out, o_spec)
        if has_aux:
            return result, _done_tree(aux, outer)
        return result

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``torch.func.jacrev``: the Jacobian of ``func`` w.r.t. the ``argnums`` arguments,
    by reverse mode, one vector-Jacobian product per output element.

    For an output of shape ``O`` and an input of shape ``I`` the Jacobian has shape
    ``O + I``. With several outputs (a pytree) the result has the output's structure;
    with tuple ``argnums`` each output's entry is a tuple over the arguments.

    Args:
        func (callable): takes tensors (or pytrees) and returns a tensor or pytree of
            tensors (``(output, aux)`` when ``has_aux``).
        argnums (int or tuple of ints): the positional arguments to differentiate.
        has_aux (bool): ``func`` returns ``(output, aux)``; the result is
            ``(jacobian, aux)``.
        chunk_size (int, optional): accepted for PyTorch compatibility; the rows are
            computed one at a time regardless (values are the same).

    Example:
        >>> import ferric
        >>> from ferric.func import jacrev
        >>> jacrev(lambda x: x ** 2)(ferric.tensor([1.0, 3.0]))
        tensor([[2., 0.],
                [0., 6.]])
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``torch.func.jacfwd``: the Jacobian of ``func`` w.r.t. the ``argnums`` arguments.

    ferric has no forward-mode AD: this computes the Jacobian by reverse mode, row by
    row, exactly as :func:`jacrev` does. The values are the same as PyTorch's
    forward-mode result; only the cost differs (one backward pass per output element
    instead of one forward pass per input element).

    Args:
        func (callable): takes tensors (or pytrees) and returns a tensor or pytree of
            tensors (``(output, aux)`` when ``has_aux``).
        argnums (int or tuple of ints): the positional arguments to differentiate.
        has_aux (bool): ``func`` returns ``(output, aux)``; the result is
            ``(jacobian, aux)``.
        randomness (str): ``'error'`` (default) raises if ``func`` draws random
            numbers (PyTorch's jacfwd runs ``func`` under ``vmap``); ``'same'`` and
            ``'different'`` allow it (``func`` runs once here, so both give one draw).

    Example:
        >>> import ferric
        >>> from ferric.func import jacfwd
        >>> jacfwd(lambda x: x.sin())(ferric.tensor([0.0, 0.0]))
        tensor([[1., 0.],
                [0., 1.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    return _jacobian(func, argnums, has_aux, "jacfwd", randomness)


def hessian(func, argnums=0):
    """``torch.func.hessian``: the Hessian of ``func`` (``jacfwd(jacrev(func))``), shape
    ``O + I + I`` for an output of shape ``O`` and an input of shape ``I``.

    Args:
        func (callable): takes tensors (or pytrees) and returns a tensor.
        argnums (int or tuple of ints): the positional arguments to differentiate.

    Example:
        >>> import ferric
        >>> from ferric.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(ferric.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
