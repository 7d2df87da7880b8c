"""The Bessel-type functions, incomplete gamma functions and orthogonal polynomials of
``torch.special`` (re-exported by :mod:`ferric.special`).

The Bessel-type functions and ``gammainc``/``gammaincc`` are float64 scalar kernels
(``src/kernels/bessel.rs``); the polynomials run PyTorch's own algorithm in the element
type (``src/kernels/poly.rs``). Like PyTorch, none of them has a gradient except
``gammainc``/``gammaincc`` in ``other``; integer and bool inputs compute in float32;
float16 / bfloat16 inputs raise PyTorch's NotImplementedError.
"""

from __future__ import annotations

import functools

from . import _core
from ._core import Tensor

# PyTorch's C++ type names in its out= dtype messages
from ._tensor_types import _CPP_NAMES as _CPP


def _dname(dtype, names: dict) -> str:
    key = str(dtype).split(".")[-1]
    return names.get(key, key)


def _same_dtype_message(result, out) -> str:
    return (f"Expected out tensor to have dtype {_dname(result, _CPP)}, but got "
            f"{_dname(out, _CPP)} instead")


def _takes_out(op: str, rule: str = "cast", message=None):
    """Adds PyTorch's ``out=`` keyword to a function composed in Python.

    The wrapped function computes its result as usual; with ``out`` the result is written
    into it (``rule`` ``"cast"``: converted to out's dtype where PyTorch allows it;
    ``"same"``: out must have the result's dtype) and out is returned, resized first with
    PyTorch's warning when its shape differs; a call that would need autograd raises.
    Named-tuple results take a tuple of tensors, one each. ``message(result_dtype,
    out_dtype)``, when given, is the op's own dtype error (the check runs before any
    write)."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            r = fn(*args, **kwargs)
            if out is None:
                return r
            if isinstance(r, tuple):
                if not isinstance(out, (tuple, list)) or len(out) != len(r):
                    kind = "Tensor" if isinstance(out, Tensor) else type(out).__name__
                    raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, not "
                                    f"{kind}")
                for o, x in zip(out, r, strict=True):
                    if isinstance(o, Tensor) and o.dtype != x.dtype and rule == "same":
                        raise RuntimeError(_same_dtype_message(x.dtype, o.dtype))
                return type(r)(tuple(_core._out_write(op, o, x, rule)
                                     for o, x in zip(out, r, strict=True)))
            if message is not None and isinstance(out, Tensor) and out.dtype != r.dtype:
                raise RuntimeError(message(r.dtype, out.dtype))
            return _core._out_write(op, out, r, rule)

        return wrapper

    return deco


def _type_name(v) -> str:
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _need_tensor(op: str, arg: str, pos: int, v) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, "
                        f"not {_type_name(v)}")


def _out(op: str, out, result: Tensor) -> Tensor:
    """PyTorch's ``out=`` of the elementwise special functions: the result is written
    into ``out`` (of any dtype it can be cast to), which is returned."""
    if out is None:
        return result
    return _core._out_write(op, out, result, "cast")


def _with_out_arg(doc: str) -> str:
    """``doc`` (a docstring with ``Args:`` and ``Example``) with an ``out`` entry at the
    end of its ``Args:`` section (``ferric.special``'s own functions use it)."""
    head, sep, tail = doc.partition("\nExample")
    if not sep:
        return doc
    return head.rstrip("\n") + "\n    out (Tensor, optional): the output tensor.\n\n" + (
        sep.lstrip("\n") + tail)


# The functions of a family take the same arguments, so their docstrings share one
# ``Args:`` block; each function gives its summary and its example.
_UNARY_ARGS = """
Args:
    input (Tensor): the input tensor.
    out (Tensor, optional): the output tensor.
"""

_POLY_ARGS = """
Args:
    input (Tensor or Number): the points ``x``.
    n (Tensor or Number): the degree.
    out (Tensor, optional): the output tensor.
"""


def _docstring(summary: str, args: str, example: str) -> str:
    return f"{summary}\n{args}\nExample::\n\n{example}"


def _unary(row: str, name: str, summary: str, example: str):
    def fn(input: Tensor, *, out=None) -> Tensor:
        _need_tensor(row, "input", 1, input)
        return _out(row, out, _core._special_unary(row, input))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _docstring(summary, _UNARY_ARGS, example)
    return fn


def _poly(name: str, summary: str, example: str):
    def fn(input, n, *, out=None) -> Tensor:
        return _out("special_" + name, out, _core._special_binary("special_" + name, input, n))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _docstring(summary, _POLY_ARGS, example)
    return fn


airy_ai = _unary(
    "special_airy_ai", "airy_ai",
    """The Airy function ``Ai(x)``, the solution of ``y'' = x y`` that decays as ``x -> +inf``.""",
    """\
    >>> import ferric
    >>> ferric.special.airy_ai(ferric.tensor([-2.0, 0.0, 1.0]))
    tensor([0.2274, 0.3550, 0.1353])
""")

bessel_j0 = _unary(
    "special_bessel_j0", "bessel_j0",
    """The Bessel function of the first kind, order 0.""",
    """\
    >>> import ferric
    >>> ferric.special.bessel_j0(ferric.tensor([0.0, 1.0, 2.5]))
    tensor([ 1.0000,  0.7652, -0.0484])
""")

bessel_j1 = _unary(
    "special_bessel_j1", "bessel_j1",
    """The Bessel function of the first kind, order 1.""",
    """\
    >>> import ferric
    >>> ferric.special.bessel_j1(ferric.tensor([0.0, 1.0, -2.5]))
    tensor([ 0.0000,  0.4401, -0.4971])
""")

bessel_y0 = _unary(
    "special_bessel_y0", "bessel_y0",
    """The Bessel function of the second kind, order 0 (``-inf`` at 0, NaN below).""",
    """\
    >>> import ferric
    >>> ferric.special.bessel_y0(ferric.tensor([0.5, 1.0, 2.5]))
    tensor([-0.4445,  0.0883,  0.4981])
""")

bessel_y1 = _unary(
    "special_bessel_y1", "bessel_y1",
    """The Bessel function of the second kind, order 1 (``-inf`` at 0, NaN below).""",
    """\
    >>> import ferric
    >>> ferric.special.bessel_y1(ferric.tensor([0.5, 1.0, 2.5]))
    tensor([-1.4715, -0.7812,  0.1459])
""")

modified_bessel_i0 = _unary(
    "special_modified_bessel_i0", "modified_bessel_i0",
    """The modified Bessel function of the first kind, order 0.""",
    """\
    >>> import ferric
    >>> ferric.special.modified_bessel_i0(ferric.tensor([0.0, 1.0, -2.0]))
    tensor([1.0000, 1.2661, 2.2796])
""")

modified_bessel_i1 = _unary(
    "special_modified_bessel_i1", "modified_bessel_i1",
    """The modified Bessel function of the first kind, order 1.""",
    """\
    >>> import ferric
    >>> ferric.special.modified_bessel_i1(ferric.tensor([0.0, 1.0, -2.0]))
    tensor([ 0.0000,  0.5652, -1.5906])
""")

modified_bessel_k0 = _unary(
    "special_modified_bessel_k0", "modified_bessel_k0",
    """The modified Bessel function of the second kind, order 0 (``inf`` at 0, NaN below).""",
    """\
    >>> import ferric
    >>> ferric.special.modified_bessel_k0(ferric.tensor([0.5, 1.0, 5.0]))
    tensor([0.9244, 0.4210, 0.0037])
""")

modified_bessel_k1 = _unary(
    "special_modified_bessel_k1", "modified_bessel_k1",
    """The modified Bessel function of the second kind, order 1 (``inf`` at 0, NaN below).""",
    """\
    >>> import ferric
    >>> ferric.special.modified_bessel_k1(ferric.tensor([0.5, 1.0, 5.0]))
    tensor([1.6564, 0.6019, 0.0040])
""")

scaled_modified_bessel_k0 = _unary(
    "special_scaled_modified_bessel_k0", "scaled_modified_bessel_k0",
    """``exp(x) * modified_bessel_k0(x)``, finite where ``K0`` underflows.""",
    """\
    >>> import ferric
    >>> ferric.special.scaled_modified_bessel_k0(ferric.tensor([0.5, 1.0, 800.0]))
    tensor([1.5241, 1.1445, 0.0443])
""")

scaled_modified_bessel_k1 = _unary(
    "special_scaled_modified_bessel_k1", "scaled_modified_bessel_k1",
    """``exp(x) * modified_bessel_k1(x)``, finite where ``K1`` underflows.""",
    """\
    >>> import ferric
    >>> ferric.special.scaled_modified_bessel_k1(ferric.tensor([0.5, 1.0, 800.0]))
    tensor([2.7310, 1.6362, 0.0443])
""")

spherical_bessel_j0 = _unary(
    "special_spherical_bessel_j0", "spherical_bessel_j0",
    """The spherical Bessel function of the first kind, order 0: ``sin(x) / x``.""",
    """\
    >>> import ferric
    >>> ferric.special.spherical_bessel_j0(ferric.tensor([0.0, 1.0, 3.0]))
    tensor([1.0000, 0.8415, 0.0470])
""")

chebyshev_polynomial_t = _poly(
    "chebyshev_polynomial_t",
    """The Chebyshev polynomial of the first kind ``T_n(x)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.chebyshev_polynomial_t(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 1.0000, -0.6875, -0.5625])
""")

chebyshev_polynomial_u = _poly(
    "chebyshev_polynomial_u",
    """The Chebyshev polynomial of the second kind ``U_n(x)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.chebyshev_polynomial_u(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 1.0000, -0.8750,  0.3750])
""")

chebyshev_polynomial_v = _poly(
    "chebyshev_polynomial_v",
    """The Chebyshev polynomial of the third kind ``V_n(x)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.chebyshev_polynomial_v(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 1.0000, -0.1250, -0.8750])
""")

chebyshev_polynomial_w = _poly(
    "chebyshev_polynomial_w",
    """The Chebyshev polynomial of the fourth kind ``W_n(x)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.chebyshev_polynomial_w(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 1.0000, -1.6250,  1.6250])
""")

shifted_chebyshev_polynomial_t = _poly(
    "shifted_chebyshev_polynomial_t",
    """The shifted Chebyshev polynomial of the first kind ``T_n(2x - 1)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.shifted_chebyshev_polynomial_t(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([-26.,   1.,  -1.])
""")

shifted_chebyshev_polynomial_u = _poly(
    "shifted_chebyshev_polynomial_u",
    """The shifted Chebyshev polynomial of the second kind ``U_n(2x - 1)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.shifted_chebyshev_polynomial_u(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([-56.,   1.,  -1.])
""")

shifted_chebyshev_polynomial_v = _poly(
    "shifted_chebyshev_polynomial_v",
    """The shifted Chebyshev polynomial of the third kind ``V_n(2x - 1)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.shifted_chebyshev_polynomial_v(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([-71.,   1.,  -1.])
""")

shifted_chebyshev_polynomial_w = _poly(
    "shifted_chebyshev_polynomial_w",
    """The shifted Chebyshev polynomial of the fourth kind ``W_n(2x - 1)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.shifted_chebyshev_polynomial_w(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([-41.,   1.,  -1.])
""")

hermite_polynomial_h = _poly(
    "hermite_polynomial_h",
    """The physicists' Hermite polynomial ``H_n(x)`` (NaN above degree 512 in float64,
128 in float32, as PyTorch).

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.hermite_polynomial_h(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 5.0000, -2.8750, -5.6250])
""")

hermite_polynomial_he = _poly(
    "hermite_polynomial_he",
    """The probabilists' Hermite polynomial ``He_n(x)`` (NaN above degree 512 in float64, 128 in
float32, as PyTorch).

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.hermite_polynomial_he(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 1.3750, -0.7344, -1.8281])
""")

laguerre_polynomial_l = _poly(
    "laguerre_polynomial_l",
    """The Laguerre polynomial ``L_n(x)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.laguerre_polynomial_l(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 2.8958,  0.3411, -0.4766])
""")

legendre_polynomial_p = _poly(
    "legendre_polynomial_p",
    """The Legendre polynomial ``P_n(x)``.

The degree ``n`` is truncated to an integer; a negative degree gives 0. Either argument
may be a Python number (not both); they broadcast.""",
    """\
    >>> import ferric
    >>> ferric.special.legendre_polynomial_p(ferric.tensor([-0.5, 0.25, 0.75]), 3)
    tensor([ 0.4375, -0.3359, -0.0703])
""")


def gammainc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized lower incomplete gamma function
    ``P(a, x) = 1/Gamma(a) * int_0^x t^(a-1) e^-t dt`` (``ferric.igamma``), with ``input``
    the shape ``a`` and ``other`` the point ``x``. Only ``other`` has a gradient (as in
    PyTorch: backward through ``input`` raises NotImplementedError).

    Args:
        input (Tensor): the shape parameter ``a``.
        other (Tensor): the upper limit ``x``.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.gammainc(ferric.tensor([1.0, 2.0, 3.0]), ferric.tensor([1.0, 2.0, 3.0]))
        tensor([0.6321, 0.5940, 0.5768])
    """
    _need_tensor("special_gammainc", "input", 1, input)
    _need_tensor("special_gammainc", "other", 2, other)
    return _core.igamma(input, other, out=out)


def gammaincc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``
    (``ferric.igammac``). Only ``other`` has a gradient, as in PyTorch.

    Args:
        input (Tensor): the shape parameter ``a``.
        other (Tensor): the lower limit ``x``.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.gammaincc(ferric.tensor([1.0, 2.0, 3.0]), ferric.tensor([1.0, 2.0, 3.0]))
        tensor([0.3679, 0.4060, 0.4232])
    """
    _need_tensor("special_gammaincc", "input", 1, input)
    _need_tensor("special_gammaincc", "other", 2, other)
    return _core.igammac(input, other, out=out)


__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "gammainc",
    "gammaincc",
]
