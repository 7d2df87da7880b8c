"""Activation modules and ``MultiheadAttention`` (where PyTorch keeps it)."""

from __future__ import annotations

from ... import _core
from .. import _nested_hook, init
from .. import functional as F
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = [
    "CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "LeakyReLU", "LogSigmoid", "LogSoftmax", "Mish", "MultiheadAttention", "PReLU", "ReLU",
    "ReLU6", "SELU", "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin", "Softplus",
    "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold",
]


class _Inplace(Module):
    """Base of activations whose only option is ``inplace``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    r"""``max(0, x)``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.ReLU()(ferric.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class SiLU(_Inplace):
    r"""``x * sigmoid(x)``.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.SiLU()(ferric.tensor([-1.0, 0.0, 2.0]))
        tensor([-0.2689,  0.0000,  1.7616])
    """

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    r"""``x * tanh(softplus(x))``."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Hardsigmoid(_Inplace):
    r"""Applies :math:`\text{relu6}(x + 3) / 6` element-wise
    (:func:`ferric.nn.functional.hardsigmoid`).

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.Hardsigmoid()(x)
        tensor([0.1667, 0.4167, 0.5000, 0.5833, 0.8333])
    """
    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(_Inplace):
    r"""Applies :math:`x \cdot \text{relu6}(x + 3) / 6` element-wise
    (:func:`ferric.nn.functional.hardswish`).

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.Hardswish()(x)
        tensor([-0.3333, -0.2083,  0.0000,  0.2917,  1.6667])
    """
    def forward(self, input):
        return F.hardswish(input, self.inplace)


class SELU(_Inplace):
    r"""Applies SELU, :math:`\text{scale} \cdot \text{elu}(x, \alpha)` with PyTorch's constants
    element-wise (:func:`ferric.nn.functional.selu`).

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.SELU()(x)
        tensor([-1.5202, -0.6918,  0.0000,  0.5254,  2.1014])
    """
    def forward(self, input):
        return F.selu(input, self.inplace)


class Threshold(Module):
    r"""``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class Hardtanh(Module):
    r"""``clamp(x, min_val, max_val)``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    r"""Applies :math:`\min(\max(0, x), 6)` element-wise (:func:`ferric.nn.functional.relu6`).

    Args:
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.ReLU6()(x)
        tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000])
    """
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    r"""``1 / (1 + exp(-x))``, elementwise.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.Sigmoid()(ferric.tensor([0.0, 2.0]))
        tensor([0.5000, 0.8808])
    """

    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    r"""Hyperbolic tangent, elementwise.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.Tanh()(ferric.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7616])
    """

    def forward(self, input):
        return input.tanh()


class LogSigmoid(Module):
    r"""Applies :math:`\log \sigma(x)` element-wise (:func:`ferric.nn.functional.logsigmoid`).

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.LogSigmoid()(x)
        tensor([-2.1269, -0.9741, -0.6931, -0.4741, -0.1269])
    """
    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """Applies :math:`x / (1 + |x|)` element-wise (:func:`ferric.nn.functional.softsign`).

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.Softsign()(x)
        tensor([-0.6667, -0.3333,  0.0000,  0.3333,  0.6667])
    """
    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    r"""Applies :math:`x - \tanh(x)` element-wise (:func:`ferric.nn.functional.tanhshrink`).

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.Tanhshrink()(x)
        tensor([-1.0360, -0.0379,  0.0000,  0.0379,  1.0360])
    """
    def forward(self, input):
        return F.tanhshrink(input)


class ELU(Module):
    r"""``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class CELU(ELU):
    r"""Applies CELU, :math:`\max(0, x) + \min(0, \alpha (e^{x/\alpha} - 1))` element-wise
    (:func:`ferric.nn.functional.celu`).

    Args:
        alpha (float): the :math:`\alpha` value. Default: 1.0.
        inplace (bool): operate in place. Default: ``False``.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.CELU()(x)
        tensor([-0.8647, -0.3935,  0.0000,  0.5000,  2.0000])
    """
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    r"""Gaussian error linear unit (``approximate='tanh'`` for the tanh form).

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.GELU()(ferric.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.0000,  0.8413])
        >>> nn.GELU(approximate="tanh")
        GELU(approximate='tanh')
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class LeakyReLU(Module):
    r"""``x`` for ``x >= 0``, ``negative_slope * x`` otherwise.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.LeakyReLU(0.1)(ferric.tensor([-2.0, 3.0]))
        tensor([-0.2000,  3.0000])
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class Softplus(Module):
    r"""``log(1 + exp(beta x)) / beta`` (linear above ``threshold``).

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.Softplus()(ferric.tensor([0.0, 30.0]))
        tensor([ 0.6931, 30.0000])
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class _Shrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(_Shrink):
    r"""Applies hard shrinkage (:math:`x` where :math:`|x| > \lambda`, else 0) element-wise
    (:func:`ferric.nn.functional.hardshrink`).

    Args:
        lambd (float): the :math:`\lambda` value. Default: 0.5.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.Hardshrink()(x)
        tensor([-2.,  0.,  0.,  0.,  2.])
    """
    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    r"""Applies soft shrinkage (towards 0 by :math:`\lambda`, 0 inside :math:`[-\lambda, \lambda]`)
    element-wise (:func:`ferric.nn.functional.softshrink`).

    Args:
        lambd (float): the :math:`\lambda` value. Default: 0.5.

    Shape:
        Input: :math:`(*)`, any shape.
        Output: :math:`(*)`, the same shape.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> x = ferric.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
        >>> nn.Softshrink()(x)
        tensor([-1.5000,  0.0000,  0.0000,  0.0000,  1.5000])
    """
    def forward(self, input):
        return F.softshrink(input, self.lambd)


class GLU(Module):
    r"""``a * sigmoid(b)`` with ``a, b`` the halves of the input along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class _DimSoftmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_DimSoftmax):
    r"""Softmax along ``dim``.

    Example:
        >>> from ferric import nn
        >>> nn.Softmax(dim=1)
        Softmax(dim=1)
    """

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimSoftmax):
    r"""``log(softmax(x))`` along ``dim``, computed stably.

    Example::

        >>> import ferric
        >>> from ferric import nn
        >>> nn.LogSoftmax(dim=1)(ferric.tensor([[0.0, 0.0]]))
        tensor([[-0.6931, -0.6931]])
    """

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_DimSoftmax):
    r"""Softmin over ``dim``: :math:`\text{softmax}(-x)` (:func:`ferric.nn.functional.softmin`).

    Args:
        dim (int): the dimension whose entries sum to 1.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> nn.Softmin(dim=0)(ferric.tensor([1.0, 2.0, 3.0]))
        tensor([0.6652, 0.2447, 0.0900])
    """
    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channel dim of ``(N, C, H, W)`` / ``(C, H, W)`` inputs."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)


class PReLU(Module):
    r"""``max(0, x) + a * min(0, x)`` with a learnable ``a`` (one or per channel)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_core.empty(num_parameters, dtype=dtype or _core.float32))
        self.reset_parameters()

    def reset_parameters(self):
        """Sets every slope to ``init`` (0.25 by default)."""
        init_fn = init.constant_
        init_fn(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    r"""Multi-head attention (``nn.MultiheadAttention``).

    Inputs are ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched
    ``(L, E)``. Returns ``(output, weights)``; the weights are averaged over heads unless
    ``average_attn_weights=False``, and ``None`` when ``need_weights=False``. A bool
    ``key_padding_mask``/``attn_mask`` marks positions to ignore with True; float masks
    are added to the scores.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                "embed_dim and num_heads must be greater than 0, got "
                f"embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        super().__init__()
        dt = dtype or _core.float32
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_core.empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = Parameter(_core.empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(_core.empty(embed_dim, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_core.empty(3 * embed_dim, embed_dim, dtype=dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_core.empty(3 * embed_dim, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        # constructed (and so initialised) before _reset_parameters, as in PyTorch, which
        # fixes the order of the random draws
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_core.empty(1, 1, embed_dim, dtype=dt))
            self.bias_v = Parameter(_core.empty(1, 1, embed_dim, dtype=dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if _nested_hook.is_nested(query):  # ferric.nested: per-item attention, no padding
            return _nested_hook.call("MultiheadAttention.forward", self, query, key, value,
                                     key_padding_mask, need_weights, attn_mask,
                                     average_attn_weights, is_causal)
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight if separate else None,
            k_proj_weight=self.k_proj_weight if separate else None,
            v_proj_weight=self.v_proj_weight if separate else None,
            average_attn_weights=average_attn_weights, is_causal=is_causal,
        )
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


class RReLU(Module):
    r"""Randomized leaky ReLU: negative inputs are scaled by a slope drawn from
    ``U(lower, upper)`` per element in training, by ``(lower + upper) / 2`` in eval.
    Seeded runs draw PyTorch's slopes.

    Args:
        lower (float): lower bound of the slope. Default: ``1/8``.
        upper (float): upper bound of the slope. Default: ``1/3``.
        inplace (bool): operate in place. Default: ``False``.

    Example:
        >>> import ferric
        >>> from ferric import nn
        >>> m = nn.RReLU(0.1, 0.3).eval()
        >>> m(ferric.tensor([-1.0, 1.0]))
        tensor([-0.2000,  1.0000])
    """

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"


__all__ += ["RReLU"]
