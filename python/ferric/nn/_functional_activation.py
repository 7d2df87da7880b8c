"""The activation functions of ``ferric.nn.functional`` (``relu`` ... ``softmax``),
re-exported there. The ``@_nested_hook.routed`` ones accept ``ferric.nested`` tensors."""

from __future__ import annotations

import warnings

from .. import _core
from ..autograd.grad_mode import no_grad
from . import _nested_hook


def _inplace(input, fn):
    """``inplace=True`` for activations without an in-place kernel: ``fn`` (the
    out-of-place form) runs and its result is copied into ``input``, which is returned.
    When autograd records, ``fn`` runs on a clone, so the nodes it saves do not see the
    overwrite, and ``copy_`` rebases ``input``'s history (gradients flow through ``fn``
    to the old value, as PyTorch's in-place kernels give); a leaf that requires grad
    raises PyTorch's error before anything is written."""
    if input.requires_grad and _core.is_grad_enabled():
        if input.is_leaf:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation.")
        return input.copy_(fn(input.clone()))
    with no_grad():
        return input.copy_(fn(input))


@_nested_hook.routed
def relu(input, inplace=False):
    """``max(0, x)`` elementwise.

    Args:
        input (Tensor): the input tensor.
        inplace (bool): write the result into ``input``. Default: False.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.relu(ferric.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """
    return input.relu_() if inplace else _core.relu(input)


@_nested_hook.routed
def relu_(input):
    r"""In-place :func:`relu`: writes :math:`\max(0, x)` into ``input`` and returns it.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.relu_(x)
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
        >>> x
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
    """
    return input.relu_()


@_nested_hook.routed
def leaky_relu(input, negative_slope=0.01, inplace=False):
    r"""Applies LeakyReLU: :math:`x` if :math:`x \ge 0`, else :math:`\text{negative\_slope} \cdot x`
    element-wise.

    Args:
        input (Tensor): the input.
        negative_slope (float): slope for negative inputs. Default: 0.01.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.leaky_relu(x, 0.1)
        tensor([-0.2000, -0.0500,  0.0000,  0.5000,  2.0000])
    """
    if inplace:
        return _inplace(input, lambda x: _core.leaky_relu(x, negative_slope))
    return _core.leaky_relu(input, negative_slope)


@_nested_hook.routed
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Applies HardTanh: ``x`` clamped to ``[min_val, max_val]`` element-wise.

    Args:
        input (Tensor): the input.
        min_val (float): lower bound. Default: -1.0.
        max_val (float): upper bound. Default: 1.0.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardtanh(x)
        tensor([-1.0000, -0.5000,  0.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


@_nested_hook.routed
def relu6(input, inplace=False):
    r"""Applies ReLU6: :math:`\min(\max(0, x), 6)` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.relu6(x)
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


@_nested_hook.routed
def elu(input, alpha=1.0, inplace=False):
    r"""Applies ELU: :math:`x` if :math:`x > 0`, else :math:`\alpha (e^x - 1)` element-wise.

    Args:
        input (Tensor): the input.
        alpha (float): the :math:`\alpha` value. Default: 1.0.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.elu(x)
        tensor([-0.8647, -0.3935,  0.0000,  0.5000,  2.0000])
    """
    if inplace:
        return _inplace(input, lambda x: _core.elu(x, alpha))
    return _core.elu(input, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_nested_hook.routed
def selu(input, inplace=False):
    r"""Applies SELU: :math:`\text{scale} \cdot \text{elu}(x, \alpha)` with PyTorch's constants
    (:math:`\alpha \approx 1.6733`, :math:`\text{scale} \approx 1.0507`) element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.selu(x)
        tensor([-1.5202, -0.6918,  0.0000,  0.5254,  2.1014])
    """
    if inplace:
        return _inplace(input, lambda x: _core.elu(x, _SELU_ALPHA) * _SELU_SCALE)
    return _core.elu(input, _SELU_ALPHA) * _SELU_SCALE


@_nested_hook.routed
def celu(input, alpha=1.0, inplace=False):
    r"""Applies CELU: :math:`\max(0, x) + \min(0, \alpha (e^{x/\alpha} - 1))` element-wise.

    Args:
        input (Tensor): the input.
        alpha (float): the :math:`\alpha` value. Default: 1.0.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.celu(x)
        tensor([-0.8647, -0.3935,  0.0000,  0.5000,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    if inplace:
        return _inplace(input, lambda x: _core.elu(x / alpha, 1.0) * alpha)
    return _core.elu(input / alpha, 1.0) * alpha


@_nested_hook.routed
def gelu(input, approximate="none"):
    """GELU; ``approximate='tanh'`` uses the tanh approximation.

    Args:
        input (Tensor): the input tensor.
        approximate (str): ``'none'`` (exact, with erf) or ``'tanh'``. Default: ``'none'``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.gelu(ferric.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.0000,  0.8413])
        >>> F.gelu(ferric.tensor([-1.0, 0.0, 1.0]), approximate='tanh')
        tensor([-0.1588,  0.0000,  0.8412])
    """
    return _core.gelu(input, approximate)


@_nested_hook.routed
def silu(input, inplace=False):
    r"""Applies SiLU (swish): :math:`x \sigma(x)` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.silu(x)
        tensor([-0.2384, -0.1888,  0.0000,  0.3112,  1.7616])
    """
    if inplace:
        return _inplace(input, _core.silu)
    return _core.silu(input)


@_nested_hook.routed
def mish(input, inplace=False):
    r"""Applies Mish: :math:`x \tanh(\text{softplus}(x))` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.mish(x)
        tensor([-0.2525, -0.2207,  0.0000,  0.3752,  1.9440])
    """
    if inplace:
        return _inplace(input, _core.mish)
    return _core.mish(input)


@_nested_hook.routed
def hardsigmoid(input, inplace=False):
    r"""Applies Hardsigmoid: :math:`\text{relu6}(x + 3) / 6` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardsigmoid(x)
        tensor([0.1667, 0.4167, 0.5000, 0.5833, 0.8333])
    """
    if inplace:
        return _inplace(input, lambda x: (x + 3.0).clamp(0.0, 6.0) / 6.0)
    return (input + 3.0).clamp(0.0, 6.0) / 6.0


@_nested_hook.routed
def hardswish(input, inplace=False):
    r"""Applies Hardswish: :math:`x \cdot \text{relu6}(x + 3) / 6` element-wise.

    Args:
        input (Tensor): the input.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardswish(x)
        tensor([-0.3333, -0.2083,  0.0000,  0.2917,  1.6667])
    """
    if inplace:
        return _inplace(input, lambda x: x * (x + 3.0).clamp(0.0, 6.0) / 6.0)
    return input * (input + 3.0).clamp(0.0, 6.0) / 6.0


@_nested_hook.routed
def softplus(input, beta=1.0, threshold=20.0):
    r"""Applies Softplus: :math:`\frac{1}{\beta} \log(1 + e^{\beta x})`, linear where :math:`\beta x
    > \text{threshold}` element-wise.

    Args:
        input (Tensor): the input.
        beta (float): the :math:`\beta` value. Default: 1.0.
        threshold (float): above it the function is linear. Default: 20.0.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.softplus(x)
        tensor([0.1269, 0.4741, 0.6931, 0.9741, 2.1269])
    """
    return _core.softplus(input, beta, threshold)


@_nested_hook.routed
def logsigmoid(input):
    r"""Applies :math:`\log \sigma(x) = -\text{softplus}(-x)` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.logsigmoid(x)
        tensor([-2.1269, -0.9741, -0.6931, -0.4741, -0.1269])
    """
    return _core.logsigmoid(input)


@_nested_hook.routed
def sigmoid(input):
    """Applies the logistic sigmoid :math:`1 / (1 + e^{-x})` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.sigmoid(x)
        tensor([0.1192, 0.3775, 0.5000, 0.6225, 0.8808])
    """
    return input.sigmoid()


@_nested_hook.routed
def tanh(input):
    """Applies the hyperbolic tangent element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.tanh(x)
        tensor([-0.9640, -0.4621,  0.0000,  0.4621,  0.9640])
    """
    return input.tanh()


@_nested_hook.routed
def softsign(input):
    """Applies :math:`x / (1 + |x|)` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.softsign(x)
        tensor([-0.6667, -0.3333,  0.0000,  0.3333,  0.6667])
    """
    return input / (input.abs() + 1)


@_nested_hook.routed
def tanhshrink(input):
    r"""Applies :math:`x - \tanh(x)` element-wise.

    Args:
        input (Tensor): the input.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.tanhshrink(x)
        tensor([-1.0360, -0.0379,  0.0000,  0.0379,  1.0360])
    """
    return input - input.tanh()


@_nested_hook.routed
def hardshrink(input, lambd=0.5):
    r"""Applies hard shrinkage: :math:`x` where :math:`|x| > \lambda`, else 0 element-wise.

    Args:
        input (Tensor): the input.
        lambd (float): the :math:`\lambda` value. Default: 0.5.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.hardshrink(x)
        tensor([-2.,  0.,  0.,  0.,  2.])
    """
    return _core.where(input.abs() > lambd, input, 0.0)


@_nested_hook.routed
def softshrink(input, lambd=0.5):
    r"""Applies soft shrinkage: :math:`x - \lambda` above :math:`\lambda`, :math:`x + \lambda` below
    :math:`-\lambda`, else 0 element-wise.

    Args:
        input (Tensor): the input.
        lambd (float): the :math:`\lambda` value. Default: 0.5.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.softshrink(x)
        tensor([-1.5000,  0.0000,  0.0000,  0.0000,  1.5000])
    """
    if lambd < 0:
        raise RuntimeError(
            f"lambda must be greater or equal to 0, but found to be {lambd}."
        )
    return _core.where(input > lambd, input - lambd,
                       _core.where(input < -lambd, input + lambd, 0.0))


@_nested_hook.routed
def threshold(input, threshold, value, inplace=False):
    r"""Applies a threshold: :math:`x` where :math:`x > \text{threshold}`, else ``value``
    element-wise.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): the replacement below it.
        inplace (bool): write the result into ``input``. Default: ``False``.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> F.threshold(x, 0.1, 20.0)
        tensor([20.0000, 20.0000, 20.0000,  0.5000,  2.0000])
    """
    if inplace:
        return _inplace(input, lambda x: _core.where(x > threshold, x, value))
    return _core.where(input > threshold, input, value)


def glu(input, dim=-1):
    r"""Gated linear unit: splits ``input`` in halves :math:`a, b` along ``dim`` and returns
    :math:`a \otimes \sigma(b)`.

    Args:
        input (Tensor): the input. Its size along ``dim`` must be even.
        dim (int): the dimension to split. Default: -1.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.glu(ferric.tensor([[1.0, 2.0, 0.0, 0.0]]))
        tensor([[0.5000, 1.0000]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def prelu(input, weight):
    """``max(0, x) + weight * min(0, x)``; ``weight`` has 1 or ``C`` (= dim 1) entries.

    Args:
        input (Tensor): the input tensor.
        weight (Tensor): the slope(s) for negative inputs: 1 or ``C`` entries.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.prelu(ferric.tensor([-2.0, 3.0]), ferric.tensor([0.25]))
        tensor([-0.5000,  3.0000])
    """
    input, weight = _core._autocast_args("lower", input, weight)
    if weight.numel() != 1:
        if input.dim() == 0 or weight.numel() != input.shape[min(1, input.dim() - 1)]:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = "
                f"{input.shape[1] if input.dim() > 1 else 1}."
            )
        if input.dim() >= 2:
            weight = weight.reshape([input.shape[1]] + [1] * (input.dim() - 2))
    else:
        weight = weight.reshape(())
    return _core.where(input >= 0, input, weight * input)


def _softmax_dim(name, ndim):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise along. Default: None.
        _stacklevel (int): the warning stack level (PyTorch's internal argument). Default: 3.
        dtype (:class:`ferric.dtype`, optional): cast the input to this dtype first.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.softmax(ferric.tensor([0.0, 1.0, 2.0]), dim=0)
        tensor([0.0900, 0.2447, 0.6652])
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise along. Default: None.
        _stacklevel (int): the warning stack level (PyTorch's internal argument). Default: 3.
        dtype (:class:`ferric.dtype`, optional): cast the input to this dtype first.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.log_softmax(ferric.tensor([0.0, 1.0, 2.0]), dim=0)
        tensor([-2.4076, -1.4076, -0.4076])
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return input.log_softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    r"""Softmin along ``dim``: :math:`\text{softmax}(-x)`; the values along ``dim`` sum to 1.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise over.
        dtype (ferric.dtype, optional): cast ``input`` to it first.

    Example:
        >>> import ferric
        >>> import ferric.nn.functional as F
        >>> F.softmin(ferric.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([0.6652, 0.2447, 0.0900])
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return (-input).softmax(dim, dtype=dtype)
