"""``vmap``: runs ``func`` once per example (slicing the mapped inputs along their
``in_dims``) and stacks the results along ``out_dims``.

PyTorch batches the operations themselves; running per example gives the same values
(every op is applied to each example on its own) at the cost of a Python loop. Two
behaviours follow from running real tensors per example: ``.item()`` and data-dependent
control flow work inside ``func`` (PyTorch refuses them), and ``randomness='error'`` is
detected after the first example ran, by seeing the global generator's state move.
"""

from __future__ import annotations

import functools

from .. import _core
from . import _pytree
from ._eager import RANDOM_IN_ERROR_MODE

Tensor = _core.Tensor

_RANDOMNESS = ("error", "different", "same")


def _fname(func) -> str:
    return getattr(func, "__name__", repr(func))


def _is_dim(d) -> bool:
    return d is None or (isinstance(d, int) and not isinstance(d, bool))


def _structure_mismatch(head, name, dims, what, spec) -> ValueError:
    """PyTorch's error for ``in_dims``/``out_dims`` (``name``) whose structure is not a
    prefix of the ``inputs``/``outputs`` (``what``) pytree ``spec``."""
    _, dspec = _pytree.flatten(dims)
    return ValueError(
        f"{head}: {name} is not compatible with the structure of `{what}`. {name} has "
        f"structure {_pytree.spec_str(dspec)} but {what} has structure "
        f"{_pytree.spec_str(spec)}.")


def _in_dims_per_leaf(func, in_dims, args):
    """The in_dim of every leaf of ``args`` (None = not mapped), PyTorch's errors."""
    head = f"vmap({_fname(func)}, in_dims={in_dims!r}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    leaves, spec = _pytree.flatten(args)
    if isinstance(in_dims, int):
        dims = [in_dims] * len(leaves)
    else:
        dims = _pytree.broadcast_prefix(in_dims, args, _is_dim)
        if dims is None:
            raise _structure_mismatch(head, "in_dims", in_dims, "inputs", spec)
    for x, d in zip(leaves, dims, strict=True):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{head}: in_dims must be int or None, got {type(d)}")
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{head}: Got in_dim={d} for an input but the input is of type {type(x)}. "
                "We cannot vmap over non-Tensor arguments, please use None as the "
                "respective in_dim")
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{head}: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
    return leaves, spec, dims


def _batch_size(func, in_dims, leaves, dims) -> int:
    sizes = [x.shape[d] for x, d in zip(leaves, dims, strict=True) if d is not None]
    if not sizes:
        raise ValueError(
            f"vmap({_fname(func)}, in_dims={in_dims!r}, ...)(<inputs>): at least one input "
            "must be a Tensor with an in_dim that is not None (got only non-mapped inputs)")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _stack_outputs(func, out_dims, results):
    """Stacks the per-example outputs (pytrees) leaf by leaf along their out_dims."""
    head = f"vmap({_fname(func)}, ..., out_dims={out_dims!r})(<inputs>)"
    leaves0, spec = _pytree.flatten(results[0])
    if isinstance(out_dims, int) and not isinstance(out_dims, bool):
        dims = [out_dims] * len(leaves0)
    elif isinstance(out_dims, tuple) or out_dims is None:
        dims = ([None] * len(leaves0) if out_dims is None
                else _pytree.broadcast_prefix(out_dims, results[0], _is_dim))
        if dims is None:
            raise _structure_mismatch(head, "out_dims", out_dims, "outputs", spec)
    else:
        raise ValueError(f"{head}: expected `out_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of outputs, got: {type(out_dims)}.")
    per_leaf = [_pytree.flatten(r)[0] for r in results]
    out = []
    for j, d in enumerate(dims):
        col = [leaves[j] for leaves in per_leaf]
        if d is None:
            out.append(col[0])
            continue
        if not isinstance(col[0], Tensor):
            raise ValueError(
                f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got "
                f"type {type(col[0])}. Did you mean to set out_dims= to None for output?")
        out.append(_core.stack(col, d))
    return _pytree.unflatten(out, spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``torch.func.vmap``: vectorises ``func`` over a batch dimension of its inputs.

    ``vmap(func)(*args)`` slices every mapped input along its in_dim, calls ``func`` on
    each example, and stacks the outputs along ``out_dims``. ferric runs ``func`` once
    per example (the values equal PyTorch's batched execution), so it composes with
    everything, e.g. ``vmap(grad(loss))`` for per-sample gradients and ``vmap(vmap(f))``.
    Keyword arguments are passed to every call unmapped.

    Args:
        func (callable): takes tensors (or pytrees) and returns tensors (or pytrees).
        in_dims (int or tuple): the mapped dimension of each positional input: an int
            for all, or a tuple (nested to match pytree arguments) with ``None`` for
            arguments passed whole to every call.
        out_dims (int or tuple): where the batch dimension goes in each output.
        randomness (str): ``'error'`` (default) raises if ``func`` draws random numbers;
            ``'same'`` gives every example the same draws; ``'different'`` independent
            ones.
        chunk_size (int, optional): accepted for PyTorch compatibility (examples are run
            one at a time anyway).

    Example:
        >>> import ferric
        >>> from ferric.func import vmap
        >>> x = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> vmap(ferric.dot)(x, x)
        tensor([ 5., 25.])
        >>> vmap(lambda a, b: a * b, in_dims=(1, None))(x, ferric.tensor(2.0))
        tensor([[2., 6.],
                [4., 8.]])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if not args:
            raise ValueError(
                f"vmap({_fname(func)})(<inputs>): got no inputs. Maybe you forgot to add "
                "inputs, or you are trying to vmap over a function with no inputs. The "
                "latter is unsupported.")
        leaves, spec, dims = _in_dims_per_leaf(func, in_dims, args)
        batch = _batch_size(func, in_dims, leaves, dims)
        state = _core.get_rng_state()
        results = []
        for b in range(batch):
            if randomness == "same":
                _core.set_rng_state(state)
            ex = [x if d is None else x.select(d, b) for x, d in zip(leaves, dims, strict=True)]
            results.append(func(*_pytree.unflatten(ex, spec), **kwargs))
            if randomness == "error" and b == 0 and not bool(
                    (_core.get_rng_state() == state).all()):
                raise RuntimeError(RANDOM_IN_ERROR_MODE)
        if batch == 0:
            raise ValueError(f"vmap({_fname(func)}, ...)(<inputs>): the mapped dimension has "
                             "size 0; ferric runs func per example and needs at least one")
        return _stack_outputs(func, out_dims, results)

    return wrapped
