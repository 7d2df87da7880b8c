"""``ferric.autograd.functional`` (``torch.autograd.functional``): Jacobians, Hessians and
vector products of a Python function, built on :func:`ferric.autograd.grad`.

As in PyTorch, ``inputs`` and ``v`` are a tensor or a tuple of tensors; a function
returning a tuple gives results indexed by output, then by input; results are detached
unless ``create_graph=True``; an input a result does not depend on gets zeros (or a
``RuntimeError`` with ``strict=True``). ``vectorize=True`` is accepted and computes the
Jacobian one row at a time (ferric has no vmap), with the same values.
"""

from __future__ import annotations

from .. import _core
from .grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _grad(outputs, inputs, grad_outputs, create_graph):
    outs = [(o, g) for o, g in zip(outputs, grad_outputs, strict=False) if o.requires_grad]
    if not outs:
        return (None,) * len(inputs)
    # autograd.grad's core (the package __init__ imports this module)
    return _core._grad([o for o, _ in outs], list(inputs), [g for _, g in outs], True,
                       create_graph, True, False)


def _as_tuple(x, arg_name, fn_name):
    is_tuple = isinstance(x, (tuple, list))
    xs = tuple(x) if is_tuple else (x,)
    for i, el in enumerate(xs):
        if not isinstance(el, _core.Tensor):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or "
                                f"a tuple of Tensors but the value at index {i} has type "
                                f"{type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the given {arg_name} has type {type(el)}.")
    return is_tuple, xs


def _prep_inputs(inputs, create_graph):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _call(func, inputs, fn_name):
    with enable_grad():
        outputs = func(*inputs)
    return _as_tuple(outputs, "outputs of the user-provided function", fn_name)


def _finish(ts, create_graph):
    return tuple(t if create_graph else t.detach() for t in ts)


def _fill(grads, refs, strict, what, create_graph):
    out = []
    for i, (g, r) in enumerate(zip(grads, refs, strict=False)):
        if g is None:
            if strict:
                raise RuntimeError(f"The {what} for the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode.")
            g = _core.zeros_like(r)
        out.append(g)
    return _finish(out, create_graph)


def _vector(v, refs, fn_name, none_error):
    """``v`` as a tuple shaped like ``refs``; with ``v=None``, ones for a single
    one-element ``refs`` (else ``RuntimeError(none_error)``)."""
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(none_error)
        return (_core.ones_like(refs[0]),)
    _, v = _as_tuple(v, "v", fn_name)
    if len(v) != len(refs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got "
                           f"{len(v)}.")
    for i, (a, b) in enumerate(zip(v, refs, strict=False)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Entry {i} in v has invalid size: should be {tuple(b.shape)} "
                               f"but got {tuple(a.shape)}.")
    return v


_NONE_FOR_OUTPUT = ("The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element.")
_NONE_FOR_INPUT = ("The vector v can only be None if the input to the user-provided "
                   "function is a single Tensor with a single element.")


def _single_output(outs, fn_name):
    if len(outs) != 1 or outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


def _unwrap(is_tuple, xs):
    return xs if is_tuple else xs[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    Args:
        func (callable): takes the tensors of ``inputs``, returns a tensor or tuple.
        inputs (Tensor or tuple of Tensors): where to evaluate.
        v (Tensor or tuple of Tensors, optional): one per output (may be omitted for a
            single-element output).
        create_graph (bool, optional): make the result differentiable.
        strict (bool, optional): raise if an input does not influence the outputs.

    Returns:
        ``(func_output, vjp)``, the latter shaped like ``inputs``.

    Example::

        >>> import ferric
        >>> from ferric.autograd.functional import vjp
        >>> vjp(lambda x: (x ** 2).sum(), ferric.tensor([1.0, 2.0]))
        (tensor(5.), tensor([2., 4.]))
    """
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prep_inputs(inputs, create_graph)
        out_tuple, outs = _call(func, inputs, "vjp")
        v = _vector(v, outs, "vjp", _NONE_FOR_OUTPUT)
        if strict and not any(o.requires_grad for o in outs):
            raise RuntimeError("The output of the user-provided function is independent of "
                               "input 0. This is not allowed in strict mode.")
        grads = _grad(outs, inputs, v, create_graph)
        res = _fill(grads, inputs, strict, "output", create_graph)
    return _unwrap(out_tuple, _finish(outs, create_graph)), _unwrap(in_tuple, res)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product ``J v`` of ``func`` at ``inputs`` (by the double-vjp
    trick, as PyTorch's reverse-mode implementation).

    Args:
        func (callable): takes the tensors of ``inputs``, returns a tensor or tuple.
        inputs (Tensor or tuple of Tensors): where to evaluate.
        v (Tensor or tuple of Tensors, optional): one per input (may be omitted for a
            single-element input).
        create_graph (bool, optional): make the result differentiable.
        strict (bool, optional): raise if an output does not depend on the inputs.

    Returns:
        ``(func_output, jvp)``, the latter shaped like the outputs.

    Example::

        >>> import ferric
        >>> from ferric.autograd.functional import jvp
        >>> jvp(lambda x: x ** 2, ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 0.0]))
        (tensor([1., 4.]), tensor([2., 0.]))
    """
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prep_inputs(inputs, create_graph)
        v = _vector(v, inputs, "jvp", _NONE_FOR_INPUT)
        out_tuple, outs = _call(func, inputs, "jvp")
        dummies = tuple(_core.zeros_like(o).requires_grad_(True) for o in outs)
        g = _grad(outs, inputs, dummies, True)
        pairs = [(gi, vi) for gi, vi in zip(g, v, strict=False)
                 if gi is not None and gi.requires_grad]
        if pairs:
            res = _grad([p[0] for p in pairs], dummies, [p[1] for p in pairs], create_graph)
        else:
            res = (None,) * len(outs)
        out = []
        for i, (r, o) in enumerate(zip(res, outs, strict=False)):
            if r is None:
                if strict:
                    raise RuntimeError(f"The jvp for output {i} of the user-provided function "
                                       "is independent of the inputs. This is not allowed in "
                                       "strict mode.")
                r = _core.zeros_like(o)
            out.append(r)
    return (_unwrap(out_tuple, _finish(outs, create_graph)),
            _unwrap(out_tuple, _finish(out, create_graph)))


def _stack_jacobian(out, inputs, rows):
    """Per input ``j`` the block of shape ``out.shape + inputs[j].shape`` stacked from
    ``rows`` (``rows[k][j]``: the gradient of element ``k`` of ``out`` w.r.t.
    ``inputs[j]``); zeros when ``out`` has no elements. ``ferric.func``'s jacrev/jacfwd
    share it."""
    blocks = []
    for j, inp in enumerate(inputs):
        shape = tuple(out.shape) + tuple(inp.shape)
        if rows:
            blocks.append(_core.stack([r[j] for r in rows]).reshape(shape))
        else:
            blocks.append(_core.zeros(shape, dtype=inp.dtype))
    return blocks


def _jacobian_row(flat, k, i, inputs, create_graph, strict):
    """The gradients of ``flat[k]`` (of output ``i``) w.r.t. every input."""
    if flat.requires_grad:
        element = flat[k]
        gs = _grad([element], inputs, [_core.ones_like(element)], create_graph)
    else:
        gs = (None,) * len(inputs)
    row = []
    for j, (g, inp) in enumerate(zip(gs, inputs, strict=False)):
        if g is None:
            if strict:
                raise RuntimeError(f"Output {i} of the user-provided function is "
                                   f"independent of input {j}. This is not allowed "
                                   "in strict mode.")
            g = _core.zeros_like(inp)
        row.append(g)
    return row


def _jacobian_rows(outs, inputs, create_graph, strict):
    """``jac[i][j]``: d outs[i] / d inputs[j], shaped ``outs[i].shape + inputs[j].shape``."""
    jac = []
    for i, o in enumerate(outs):
        flat = o.reshape(-1)
        rows = [_jacobian_row(flat, k, i, inputs, create_graph, strict)
                for k in range(flat.numel())]
        blocks = _stack_jacobian(o, inputs, rows)
        jac.append(tuple(b if create_graph else b.detach() for b in blocks))
    return jac


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j`` a tensor of
    shape ``outputs[i].shape + inputs[j].shape``.

    Args:
        func (callable): takes the tensors of ``inputs``, returns a tensor or tuple.
        inputs (Tensor or tuple of Tensors): where to evaluate.
        create_graph (bool, optional): make the result differentiable.
        strict (bool, optional): raise if an output does not depend on an input.
        vectorize (bool, optional): accepted; rows are computed one by one either way.
        strategy (str, optional): ``"reverse-mode"`` or ``"forward-mode"`` (the latter
            needs ``vectorize=True``, as in PyTorch; the values are the same).

    Example::

        >>> import ferric
        >>> from ferric.autograd.functional import jacobian
        >>> jacobian(lambda x: x ** 2, ferric.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode". Hint: If your function has more outputs than '
                             'inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      'and `strategy="forward-mode"` are not supported together '
                                      "(yet). Please either set `create_graph=False` or "
                                      '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("torch.autograd.functional.jacobian: `strategy=\"forward"
                                      "-mode\"` is only implemented for `vectorize=True`.")
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prep_inputs(inputs, create_graph)
        out_tuple, outs = _call(func, inputs, "jacobian")
        jac = _jacobian_rows(outs, inputs, create_graph, strict)
    if not in_tuple:
        jac = [row[0] for row in jac]
    return tuple(jac) if out_tuple else jac[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs``: for inputs ``i``, ``j``
    a tensor of shape ``inputs[i].shape + inputs[j].shape``.

    Args:
        func (callable): takes the tensors of ``inputs``, returns a single-element tensor.
        inputs (Tensor or tuple of Tensors): where to evaluate.
        create_graph (bool, optional): make the result differentiable.
        strict (bool, optional): raise if the output does not depend on an input.
        vectorize (bool, optional): accepted; rows are computed one by one either way.
        outer_jacobian_strategy (str, optional): ``"reverse-mode"`` or
            ``"forward-mode"`` for the outer Jacobian (same values).

    Example::

        >>> import ferric
        >>> from ferric.autograd.functional import hessian
        >>> hessian(lambda x: (x ** 3).sum(), ferric.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode".')

    def jac_func(*inp):
        out = func(*inp)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _single_output(outs, "hessian")
        return _inner_grad(outs[0].reshape(()), inp, strict)

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return res if in_tuple else res[0][0]


def _inner_grad(out, inputs, strict):
    g = _grad([out], inputs, [_core.ones_like(out)], True)
    res = []
    for i, (gi, inp) in enumerate(zip(g, inputs, strict=False)):
        if gi is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode.")
            gi = _core.zeros_like(inp)
        res.append(gi)
    return tuple(res)


def _second_order(name, func, inputs, v, create_graph, strict):
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _prep_inputs(inputs, create_graph)
        v = _vector(v, inputs, name, _NONE_FOR_INPUT)
        out_tuple, outs = _call(func, inputs, name)
        _single_output(outs, name)
        first = _inner_grad(outs[0], inputs, strict)
        # the Hessian is symmetric for twice continuously differentiable functions, so the
        # vhp and hvp agree; both are computed as v^T H (the grad of <grad, v>)
        pairs = [(g, vi) for g, vi in zip(first, v, strict=False) if g.requires_grad]
        if pairs:
            res = _grad([p[0] for p in pairs], inputs, [p[1] for p in pairs], create_graph)
        else:
            res = (None,) * len(inputs)
        res = _fill(res, inputs, strict, "hessian", create_graph)
    return _unwrap(out_tuple, _finish(outs, create_graph)), _unwrap(in_tuple, res)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product ``v^T H`` of the scalar function ``func`` at ``inputs``.

    Args:
        func (callable): takes the tensors of ``inputs``, returns a single-element tensor.
        inputs (Tensor or tuple of Tensors): where to evaluate.
        v (Tensor or tuple of Tensors, optional): shaped like ``inputs``.
        create_graph (bool, optional): make the result differentiable.
        strict (bool, optional): raise if the result does not depend on an input.

    Returns:
        ``(func_output, vhp)``.

    Example::

        >>> import ferric
        >>> from ferric.autograd.functional import vhp
        >>> vhp(lambda x: (x ** 3).sum(), ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 1.0]))
        (tensor(9.), tensor([ 6., 12.]))
    """
    return _second_order("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product ``H v`` of the scalar function ``func`` at ``inputs``.

    Args:
        func (callable): takes the tensors of ``inputs``, returns a single-element tensor.
        inputs (Tensor or tuple of Tensors): where to evaluate.
        v (Tensor or tuple of Tensors, optional): shaped like ``inputs``.
        create_graph (bool, optional): make the result differentiable.
        strict (bool, optional): raise if the result does not depend on an input.

    Returns:
        ``(func_output, hvp)``.

    Example::

        >>> import ferric
        >>> from ferric.autograd.functional import hvp
        >>> hvp(lambda x: (x ** 3).sum(), ferric.tensor([1.0, 2.0]), ferric.tensor([1.0, 0.0]))
        (tensor(9.), tensor([6., 0.]))
    """
    return _second_order("hvp", func, inputs, v, create_graph, strict)
