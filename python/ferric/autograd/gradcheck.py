"""Finite-difference checks of gradients (``gradcheck``) and of second derivatives
(``gradgradcheck``), with PyTorch's defaults."""

from __future__ import annotations

import itertools

from .. import _core
from .._core import Tensor
from .grad_mode import no_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(out):
    return tuple(o for o in _as_tuple(out) if isinstance(o, Tensor) and o.requires_grad)


def _numerical_jacobian(fn, inputs, outputs, eps):
    """d out_j / d in_i by central differences, as nested lists [i][j] of (n_in, n_out)."""
    jac = []
    for x in inputs:
        if not (isinstance(x, Tensor) and x.requires_grad):
            jac.append(None)
            continue
        n_in = x.numel()
        cols = [[] for _ in outputs]
        base = x.detach()
        for flat in range(n_in):
            idx = _unravel(flat, tuple(x.shape))
            # values are perturbed without recording; fn itself runs with grad enabled,
            # since gradgradcheck's function computes gradients inside
            with no_grad():
                orig = float(base[idx]) if idx else float(base)
                _set(base, idx, orig + eps)
            plus = [o.detach().clone() for o in _differentiable_plain(fn, inputs)]
            with no_grad():
                _set(base, idx, orig - eps)
            minus = [o.detach().clone() for o in _differentiable_plain(fn, inputs)]
            with no_grad():
                _set(base, idx, orig)
            for j, (p, m) in enumerate(zip(plus, minus, strict=True)):
                cols[j].append(((p - m) / (2 * eps)).reshape(-1).tolist())
        jac.append(cols)  # cols[j][flat_in] = list over out elements
    return jac


def _differentiable_plain(fn, inputs):
    out = _as_tuple(fn(*inputs))
    return [o for o in out if isinstance(o, Tensor) and o.is_floating_point()]


def _unravel(flat, shape):
    idx = []
    for d in reversed(shape):
        idx.append(flat % d)
        flat //= d
    return tuple(reversed(idx))


def _set(t, idx, value):
    if idx:
        t[idx] = value
    else:
        t.fill_(value)


def _analytical_jacobian(inputs, outputs):
    """[i][j][flat_in] = list over out elements, via one backward per output element."""
    diff_in = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    jac = {id(x): [[[0.0] * o.numel() for _ in range(x.numel())] for o in outputs] for x in diff_in}
    for j, o in enumerate(outputs):
        for k in range(o.numel()):
            g = _core.zeros_like(o)
            idx = _unravel(k, tuple(o.shape))
            _set(g, idx, 1.0)
            grads = _core._grad([o], diff_in, [g], True, False, True)
            for x, gx in zip(diff_in, grads, strict=True):
                vals = gx.reshape(-1).tolist() if gx is not None else [0.0] * x.numel()
                for flat, v in enumerate(vals):
                    jac[id(x)][j][flat][k] = v
    return [jac.get(id(x)) if isinstance(x, Tensor) and x.requires_grad else None for x in inputs]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """Compares gradients from autograd with central finite differences.

    Inputs that require grad should be float64. Returns True, or raises GradcheckError
    (or returns False with ``raise_exception=False``) naming the input, output and the
    two Jacobians.

    Example::

        >>> import ferric
        >>> from ferric.autograd import gradcheck
        >>> x = ferric.tensor([0.5, -1.0, 2.0], dtype=ferric.float64, requires_grad=True)
        >>> gradcheck(lambda t: (t.sin() * t).sum(), (x,))
        True
    """
    inputs = _as_tuple(inputs)
    for x in inputs:
        if isinstance(x, Tensor) and x.requires_grad and x.dtype != _core.float64:
            import warnings

            warnings.warn(
                "Input #0 requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                stacklevel=2,
            )
    outputs = _differentiable_outputs(func(*inputs))
    if not outputs:
        raise GradcheckError("gradcheck expects at least one output that requires grad")
    analytical = _analytical_jacobian(inputs, outputs)
    numerical = _numerical_jacobian(func, inputs, outputs, eps)
    for i, (a, n) in enumerate(zip(analytical, numerical, strict=True)):
        if a is None:
            continue
        for j in range(len(outputs)):
            for flat, (ra, rn) in enumerate(zip(a[j], n[j], strict=True)):
                for va, vn in zip(ra, rn, strict=True):
                    if abs(va - vn) > atol + rtol * abs(vn):
                        msg = (
                            f"Jacobian mismatch for output {j} with respect to input {i},\n"
                            f"numerical:{_fmt(n[j])}\nanalytical:{_fmt(a[j])}\n"
                            f"(first difference at input element {flat})"
                        )
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


def _fmt(rows):
    return "\n" + "\n".join(" ".join(f"{v:.6g}" for v in r) for r in rows)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True,
                  nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """Checks second derivatives: gradcheck of the function mapping (inputs,
    grad_outputs) to the gradients of ``func`` with respect to its inputs."""
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        gen = _core.Generator().manual_seed(0) if hasattr(_core, "Generator") else None
        grad_outputs = tuple(_rand_like(o, gen) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_pos = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(func(*ins))
        diff = [ins[i] for i in diff_pos]
        grads = _core._grad(list(outs), diff, list(gos), True, True, True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


def _rand_like(o, gen):
    # deterministic, well-scaled grad_outputs in [-1, 1]
    n = o.numel()
    vals = [((k * 7919) % 97) / 48.5 - 1.0 for k in itertools.islice(itertools.count(1), n)]
    t = _core.tensor(vals, dtype=o.dtype).reshape(tuple(o.shape))
    return t.requires_grad_(True)
