"""``ferric.special``: PyTorch's ``torch.special`` namespace.

The special functions are rows of the Rust op table (float64 evaluation, float32 results
rounded once; PyTorch's backward formulas); the rest of the namespace are the aliases
PyTorch keeps here (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ...). Integer and
bool inputs compute in float32, as in PyTorch.

The Bessel-type functions (``bessel_j0``, ``modified_bessel_k1``, ``airy_ai``, ...),
``gammainc``/``gammaincc`` and the orthogonal polynomials (``chebyshev_polynomial_t``,
``hermite_polynomial_h``, ...) live in ``ferric._special_functions``.
"""

from __future__ import annotations

import math

from . import _core
from ._core import Tensor
from ._special_functions import (
    _out,
    _with_out_arg,
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    gammainc,
    gammaincc,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
    spherical_bessel_j0,
)

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln",
    "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
    "xlog1py", "xlogy", "zeta",
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "gammainc",
    "gammaincc", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "spherical_bessel_j0",
]


def _unary(row: str, name: str, doc: str):
    def fn(input: Tensor, *, out=None) -> Tensor:
        return _out(row, out, _core._special_unary(row, input))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _with_out_arg(doc)
    return fn


entr = _unary("special_entr", "entr", """Elementwise entropy ``-x log(x)`` (0 at 0, ``-inf``
below 0).

Args:
    input (Tensor): the input tensor.

Example::

    >>> import ferric
    >>> ferric.special.entr(ferric.tensor([-1.0, 0.0, 0.5, 1.0]))
    tensor([  -inf, 0.0000, 0.3466, -0.0000])
""")

ndtri = _unary("special_ndtri", "ndtri", """The inverse of the standard normal CDF: the
``x`` with ``ndtr(x) == input`` (NaN outside ``[0, 1]``).

Args:
    input (Tensor): probabilities.

Example::

    >>> import ferric
    >>> ferric.special.ndtri(ferric.tensor([0.0, 0.25, 0.5, 0.975, 1.0]))
    tensor([   -inf, -0.6745,  0.0000,  1.9600,     inf])
""")

log_ndtr = _unary("special_log_ndtr", "log_ndtr", """The log of the standard normal CDF,
accurate far into the lower tail.

Args:
    input (Tensor): the input tensor.

Example::

    >>> import ferric
    >>> ferric.special.log_ndtr(ferric.tensor([-40.0, 0.0, 3.0]))
    tensor([-8.0461e+02, -6.9315e-01, -1.3508e-03])
""")

erfcx = _unary("special_erfcx", "erfcx", """The scaled complementary error function
``exp(x**2) * erfc(x)``, finite where ``erfc`` underflows.

Args:
    input (Tensor): the input tensor.

Example::

    >>> import ferric
    >>> ferric.special.erfcx(ferric.tensor([0.0, 1.0, 30.0]))
    tensor([1.0000, 0.4276, 0.0188])
""")

i0e = _unary("special_i0e", "i0e", """The exponentially scaled modified Bessel function of
the first kind, order 0: ``exp(-|x|) * i0(x)``.

Args:
    input (Tensor): the input tensor.

Example::

    >>> import ferric
    >>> ferric.special.i0e(ferric.tensor([0.0, 1.0, 100.0]))
    tensor([1.0000, 0.4658, 0.0399])
""")

i1 = _unary("special_i1", "i1", """The modified Bessel function of the first kind, order 1.

Args:
    input (Tensor): the input tensor.

Example::

    >>> import ferric
    >>> ferric.special.i1(ferric.tensor([0.0, 1.0, -2.0]))
    tensor([ 0.0000,  0.5652, -1.5906])
""")

i1e = _unary("special_i1e", "i1e", """The exponentially scaled modified Bessel function of
the first kind, order 1: ``exp(-|x|) * i1(x)``.

Args:
    input (Tensor): the input tensor.

Example::

    >>> import ferric
    >>> ferric.special.i1e(ferric.tensor([0.0, 1.0, -2.0]))
    tensor([ 0.0000,  0.2079, -0.2153])
""")


def xlogy(input, other, *, out=None) -> Tensor:
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN). Either
    argument may be a Python number.

    Args:
        input (Tensor or Number): the multiplier.
        other (Tensor or Number): the argument of the logarithm.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.xlogy(ferric.tensor([0.0, 2.0, 3.0]), ferric.tensor([0.0, 1.0, 2.0]))
        tensor([0.0000, 0.0000, 2.0794])
        >>> ferric.xlogy(2, ferric.tensor([3.0]))
        tensor([2.1972])
    """
    return _out("xlogy", out, _core._special_binary("xlogy", input, other))


def xlog1py(input, other, *, out=None) -> Tensor:
    """``input * log1p(other)``, 0 where ``input == 0`` (unless ``other`` is NaN). Either
    argument may be a Python number.

    Args:
        input (Tensor or Number): the multiplier.
        other (Tensor or Number): the argument of ``log1p``.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.xlog1py(ferric.tensor([0.0, 2.0]), ferric.tensor([-1.0, 1e-3]))
        tensor([0.0000, 0.0020])
    """
    return _out("special_xlog1py", out, _core._special_binary("special_xlog1py", input, other))


def zeta(input, other, *, out=None) -> Tensor:
    """The Hurwitz zeta function ``sum_k (k + other) ** -input`` (the Riemann zeta function
    at ``other == 1``). Either argument may be a Python number; only ``other`` has a
    gradient (as in PyTorch).

    Args:
        input (Tensor or Number): the exponent ``x``.
        other (Tensor or Number): the offset ``q``.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.zeta(ferric.tensor([2.0, 4.0]), 1.0)
        tensor([1.6449, 1.0823])
    """
    return _out("special_zeta", out, _core._special_binary("special_zeta", input, other))


def ndtr(input: Tensor, *, out=None) -> Tensor:
    """The standard normal CDF, computed as PyTorch does: ``(1 + erf(x / sqrt(2))) / 2``.

    Args:
        input (Tensor): the input tensor.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.ndtr(ferric.tensor([-1.0, 0.0, 2.0]))
        tensor([0.1587, 0.5000, 0.9772])
    """
    return _out("special_ndtr", out, (1 + _core.erf(input * math.sqrt(0.5))) * 0.5)


def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """The ``n``-th derivative of the digamma function (``ferric.polygamma``).

    Args:
        n (int): the order, ``n >= 0``.
        input (Tensor): the input tensor.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.polygamma(1, ferric.tensor([1.0, 0.5]))
        tensor([1.6449, 4.9348])
    """
    return _out("polygamma", out, _core.polygamma(n, input))


def multigammaln(input: Tensor, p: int, *, out=None) -> Tensor:
    """The multivariate log-gamma function of dimension ``p`` (``ferric.mvlgamma``).

    Args:
        input (Tensor): the input tensor.
        p (int): the dimension, ``p >= 1``.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.multigammaln(ferric.tensor([2.5, 3.0]), 2)
        tensor([0.8570, 1.5502])
    """
    return _out("mvlgamma", out, _core.mvlgamma(input, p))


def logit(input: Tensor, eps: float | None = None, *, out=None) -> Tensor:
    """``log(x / (1 - x))``, with ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    Args:
        input (Tensor): the input tensor.
        eps (float, optional): the clamping bound. Default: ``None`` (no clamping).
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.logit(ferric.tensor([0.0, 0.25, 0.5]), eps=1e-6)
        tensor([-13.8155,  -1.0986,   0.0000])
    """
    return _out("logit", out, _core.logit(input, eps))


def expit(input: Tensor, *, out=None) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))`` (``ferric.sigmoid``).

    Args:
        input (Tensor): the input tensor.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.expit(ferric.tensor([0.0, 2.0]))
        tensor([0.5000, 0.8808])
    """
    return _core.sigmoid(input, out=out)


def round(input: Tensor, *, decimals: int = 0, out=None) -> Tensor:
    """``ferric.round``: round half to even, to ``decimals`` places.

    Args:
        input (Tensor): the input tensor.
        decimals (int): the number of decimal places. Default: 0.

    Example::

        >>> import ferric
        >>> ferric.special.round(ferric.tensor([0.5, 1.5, 1.26]), decimals=0)
        tensor([0., 2., 1.])
    """
    return _out("round", out, _core.round(input, decimals=decimals))


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``ferric.softmax`` along ``dim`` (``dtype`` casts the input first).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise along.
        dtype (:class:`ferric.dtype`, optional): cast the input to this dtype first.

    Example::

        >>> import ferric
        >>> ferric.special.softmax(ferric.tensor([0.0, 1.0]), 0)
        tensor([0.2689, 0.7311])
    """
    return _core.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``ferric.log_softmax`` along ``dim`` (``dtype`` casts the input first).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise along.
        dtype (:class:`ferric.dtype`, optional): cast the input to this dtype first.

    Example::

        >>> import ferric
        >>> ferric.special.log_softmax(ferric.tensor([0.0, 1.0]), 0)
        tensor([-1.3133, -0.3133])
    """
    return _core.log_softmax(input, dim, dtype=dtype)


def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """``ferric.logsumexp``: ``log(sum(exp(input)))`` over ``dim``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimension(s) to reduce.
        keepdim (bool): keep the reduced dimensions with size 1. Default: False.

    Example::

        >>> import ferric
        >>> ferric.special.logsumexp(ferric.tensor([0.0, 0.0]), 0)
        tensor(0.6931)
    """
    return _out("logsumexp", out, _core.logsumexp(input, dim, keepdim=keepdim))


# plain aliases of ferric's elementwise functions (PyTorch's spellings in torch.special)
digamma = _core.digamma
psi = _core.digamma


def gammaln(input: Tensor, *, out=None) -> Tensor:
    """The natural logarithm of the absolute value of the gamma function, elementwise
    (:func:`ferric.lgamma` under ``torch.special``'s name).

    Args:
        input (Tensor): the input tensor.
        out (Tensor, optional): the output tensor.

    Example::

        >>> import ferric
        >>> ferric.special.gammaln(ferric.tensor([0.5, 1.0, 4.0]))
        tensor([0.5724, 0.0000, 1.7918])
    """
    return _core.lgamma(input, out=out)


erf = _core.erf
erfc = _core.erfc
erfinv = _core.erfinv
exp2 = _core.exp2
expm1 = _core.expm1
log1p = _core.log1p
i0 = _core.i0
sinc = _core.sinc
