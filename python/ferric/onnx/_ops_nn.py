"""ONNX handlers of ``ferric.nn.functional``: layers, activations, normalization, pooling.

``NN_HANDLERS`` is keyed by the names in ``nn.functional``; the same handlers are also
registered (``ferric._core`` names) in the tensor table, for code that captured a
functional before the export started (``Conv2d._fn``, a layer's ``activation``) and so
reaches the core op directly. Functionals without a handler here (``glu``, ``prelu``,
``normalize``, ``scaled_dot_product_attention``, ``multi_head_attention_forward``, the
losses, ...) are Python compositions: the export records the ops they call.
"""

from __future__ import annotations

import math

import numpy as np

from ._ops_tensor import HANDLERS, _dim, dt
from .errors import UnsupportedOperatorError

NN_HANDLERS: dict = {}


def reg(*names, core=()):
    def deco(fn):
        for n in names:
            NN_HANDLERS[n] = fn
        for n in core:
            HANDLERS[n] = fn
        return fn
    return deco


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# -------------------------------------------------------------------- activations


@reg("relu", "relu_")
def relu(s, out, input, inplace=False):
    return s.g.op("Relu", [s.value(input)])


@reg("leaky_relu", core=("leaky_relu",))
def leaky_relu(s, out, input, negative_slope=0.01, inplace=False):
    return s.g.op("LeakyRelu", [s.value(input)], alpha=float(negative_slope))


@reg("elu", core=("elu",))
def elu(s, out, input, alpha=1.0, inplace=False):
    return s.g.op("Elu", [s.value(input)], alpha=float(alpha))


@reg("selu")
def selu(s, out, input, inplace=False):
    return s.g.op("Selu", [s.value(input)], alpha=1.6732632423543772848170429916717,
                  gamma=1.0507009873554804934193349852946)


@reg("celu")
def celu(s, out, input, alpha=1.0, inplace=False):
    return s.g.op("Celu", [s.value(input, np.float32)], alpha=float(alpha)) \
        if dt(out) == np.float32 else _celu64(s, input, alpha)


def _celu64(s, input, alpha):
    # Celu is float32-only in ONNX: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    g, d = s.g, dt(input)
    x = s.value(input)
    e = g.op("Mul", [g.scalar(alpha, d), g.op("Sub", [g.op("Exp", [
        g.op("Div", [x, g.scalar(alpha, d)])]), g.scalar(1, d)])])
    return g.op("Add", [g.op("Relu", [x]), g.op("Min", [e, g.scalar(0, d)])])


@reg("gelu", core=("gelu",))
def gelu(s, out, input, approximate="none"):
    g, d = s.g, dt(out)
    x = s.value(input)
    if g.opset >= 20:
        return g.op("Gelu", [x], approximate=approximate)
    if approximate == "tanh":
        inner = g.op("Mul", [g.scalar(math.sqrt(2 / math.pi), d), g.op("Add", [
            x, g.op("Mul", [g.scalar(0.044715, d), g.op("Mul", [x, g.op("Mul", [x, x])])])])])
        t = g.op("Tanh", [inner])
    else:
        t = g.op("Erf", [g.op("Div", [x, g.scalar(math.sqrt(2.0), d)])])
    half = g.op("Mul", [x, g.scalar(0.5, d)])
    return g.op("Mul", [half, g.op("Add", [t, g.scalar(1, d)])])


@reg("silu", core=("silu",))
def silu(s, out, input, inplace=False):
    x = s.value(input)
    return s.g.op("Mul", [x, s.g.op("Sigmoid", [x])])


@reg("mish", core=("mish",))
def mish(s, out, input, inplace=False):
    g = s.g
    x = s.value(input)
    return g.op("Mul", [x, g.op("Tanh", [g.op("Softplus", [x])])])


@reg("softplus", core=("softplus",))
def softplus(s, out, input, beta=1.0, threshold=20.0):
    g, d = s.g, dt(out)
    x = s.value(input)
    bx = x if beta == 1 else g.op("Mul", [x, g.scalar(beta, d)])
    sp = g.op("Softplus", [bx])
    if beta != 1:
        sp = g.op("Div", [sp, g.scalar(beta, d)])
    return g.op("Where", [g.op("Greater", [bx, g.scalar(threshold, d)]), x, sp])


@reg("logsigmoid", core=("logsigmoid",))
def logsigmoid(s, out, input):
    g = s.g
    return g.op("Neg", [g.op("Softplus", [g.op("Neg", [s.value(input)])])])


@reg("hardsigmoid")
def hardsigmoid(s, out, input, inplace=False):
    return s.g.op("HardSigmoid", [s.value(input)], alpha=1.0 / 6, beta=0.5)


@reg("hardswish")
def hardswish(s, out, input, inplace=False):
    x = s.value(input)
    if s.g.opset < 14:
        return s.g.op("Mul", [x, s.g.op("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)])
    return s.g.op("HardSwish", [x])


@reg("hardtanh")
def hardtanh(s, out, input, min_val=-1.0, max_val=1.0, inplace=False):
    d = dt(out)
    return s.g.op("Clip", [s.value(input), s.g.scalar(min_val, d), s.g.scalar(max_val, d)])


@reg("relu6")
def relu6(s, out, input, inplace=False):
    return hardtanh(s, out, input, 0.0, 6.0)


@reg("sigmoid")
def sigmoid(s, out, input):
    return s.g.op("Sigmoid", [s.value(input)])


@reg("tanh")
def tanh(s, out, input):
    return s.g.op("Tanh", [s.value(input)])


def _softmax(op_type):
    def handler(s, out, input, dim=None, *args, dtype=None, **kwargs):
        x = s.value(input, dt(out))
        return s.g.op(op_type, [x], axis=_dim(dim, max(input.dim(), 1)))
    return handler


HANDLERS["softmax"] = _softmax("Softmax")
HANDLERS["log_softmax"] = _softmax("LogSoftmax")


@reg("softmax")
def f_softmax(s, out, input, dim=None, _stacklevel=3, dtype=None):
    return HANDLERS["softmax"](s, out, input, _implicit(dim, input))


@reg("log_softmax")
def f_log_softmax(s, out, input, dim=None, _stacklevel=3, dtype=None):
    return HANDLERS["log_softmax"](s, out, input, _implicit(dim, input))


def _implicit(dim, input):
    if dim is not None:
        return dim
    return 0 if input.dim() in (0, 1, 3) else 1


# -------------------------------------------------------------------- dropout


def _dropout_op(s, out, input, p, training):
    g, d = s.g, dt(out)
    x = s.value(input)
    if not training or p == 0:
        return g.op("Identity", [x])
    return g.op("Dropout", [x, g.scalar(p, d), g.scalar(True, np.bool_)], seed=None)


@reg("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
     "dropout3d")
def dropout(s, out, input, p=0.5, training=True, inplace=False):
    if training and p > 0 and s.current != "dropout":
        raise UnsupportedOperatorError(f"ferric.nn.functional.{s.current} in training mode",
                                       s.g.opset, "call model.eval() before export")
    return _dropout_op(s, out, input, p, training)


@reg(core=("_dropout",))
def core_dropout(s, out, input, p, noise_shape):
    return _dropout_op(s, out, input, p, True)


# -------------------------------------------------------------------- embedding, norms


@reg("embedding")
def embedding(s, out, input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if max_norm is not None:
        raise UnsupportedOperatorError("ferric.nn.functional.embedding(max_norm=...)",
                                       s.g.opset, "it renormalizes the weight in place")
    return s.g.op("Gather", [s.value(weight), s.value(input, np.int64)], axis=0)


@reg(core=("_embedding",))
def core_embedding(s, out, weight, input, padding_idx=None, scale_grad_by_freq=False):
    return s.g.op("Gather", [s.value(weight), s.value(input, np.int64)], axis=0)


@reg("layer_norm", core=("_layer_norm",))
def layer_norm(s, out, input, normalized_shape, weight=None, bias=None, eps=1e-5):
    g, d = s.g, dt(out)
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    scale = s.value(weight, d) if weight is not None else g.const(np.ones(ns, d))
    x = s.value(input, d)
    if g.opset >= 17:
        inputs = [x, scale] + ([s.value(bias, d)] if bias is not None else [])
        return g.op("LayerNormalization", inputs, axis=-len(ns), epsilon=float(eps))
    axes = list(range(input.dim() - len(ns), input.dim()))
    diff = g.op("Sub", [x, g.reduce("ReduceMean", x, axes, True)])
    var = g.reduce("ReduceMean", g.op("Mul", [diff, diff]), axes, True)
    y = g.op("Div", [diff, g.op("Sqrt", [g.op("Add", [var, g.scalar(eps, d)])])])
    y = g.op("Mul", [y, scale])
    return y if bias is None else g.op("Add", [y, s.value(bias, d)])


@reg("batch_norm", core=("_batch_norm",))
def batch_norm(s, out, input, running_mean, running_var, weight=None, bias=None,
               training=False, momentum=0.1, eps=1e-5):
    g, d = s.g, dt(out)
    c = input.shape[1]
    scale = s.value(weight, d) if weight is not None else g.const(np.ones(c, d))
    shift = s.value(bias, d) if bias is not None else g.const(np.zeros(c, d))
    x = s.value(input, d)
    if not training and running_mean is not None:
        return g.op("BatchNormalization", [x, scale, shift, s.value(running_mean, d),
                                           s.value(running_var, d)], epsilon=float(eps))
    # batch statistics (training mode, or no running statistics)
    axes = [0] + list(range(2, input.dim()))
    mean = g.reduce("ReduceMean", x, axes, True)
    diff = g.op("Sub", [x, mean])
    var = g.reduce("ReduceMean", g.op("Mul", [diff, diff]), axes, True)
    inv = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [var, g.scalar(eps, d)])])])
    bshape = g.i64([1, c] + [1] * (input.dim() - 2))
    y = g.op("Mul", [diff, inv])
    y = g.op("Mul", [y, g.op("Reshape", [scale, bshape])])
    return g.op("Add", [y, g.op("Reshape", [shift, bshape])])


# -------------------------------------------------------------------- convolution


def _conv_pads(padding, kernel, dilation, n):
    if padding == "valid":
        return [0] * (2 * n)
    if padding == "same":
        total = [dl * (k - 1) for dl, k in zip(dilation, kernel, strict=True)]
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    p = _tuple(padding, n)
    return list(p) + list(p)


def _conv(n):
    def handler(s, out, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        g, d = s.g, dt(out)
        kernel = tuple(weight.shape[2:])
        dil = _tuple(dilation, n)
        inputs = [s.value(input, d), s.value(weight, d)]
        if bias is not None:
            inputs.append(s.value(bias, d))
        return g.op("Conv", inputs, kernel_shape=list(kernel), strides=list(_tuple(stride, n)),
                    pads=_conv_pads(padding, kernel, dil, n), dilations=list(dil),
                    group=int(groups))
    return handler


def _conv_transpose(n):
    def handler(s, out, input, weight, bias=None, stride=1, padding=0, output_padding=0,
                groups=1, dilation=1):
        g, d = s.g, dt(out)
        inputs = [s.value(input, d), s.value(weight, d)]
        if bias is not None:
            inputs.append(s.value(bias, d))
        p = list(_tuple(padding, n))
        return g.op("ConvTranspose", inputs, kernel_shape=list(weight.shape[2:]),
                    strides=list(_tuple(stride, n)), pads=p + p,
                    output_padding=list(_tuple(output_padding, n)),
                    dilations=list(_tuple(dilation, n)), group=int(groups))
    return handler


for _n in (1, 2):
    reg(f"conv{_n}d", core=(f"conv{_n}d",))(_conv(_n))
    reg(f"conv_transpose{_n}d", core=(f"conv_transpose{_n}d",))(_conv_transpose(_n))


@reg("pad", core=("pad",))
def pad(s, out, input, pad, mode="constant", value=None):
    g = s.g
    rank = input.dim()
    pairs = len(pad) // 2
    begins, ends = [0] * rank, [0] * rank
    for i in range(pairs):
        axis = rank - 1 - i
        begins[axis], ends[axis] = int(pad[2 * i]), int(pad[2 * i + 1])
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
                 "circular": "wrap"}[mode]
    if onnx_mode == "wrap" and g.opset < 19:
        raise UnsupportedOperatorError("pad(mode='circular')", g.opset, "needs opset 19")
    inputs = [s.value(input), g.i64(begins + ends)]
    if mode == "constant":
        inputs.append(g.scalar(0 if value is None else value, dt(out)))
    return g.op("Pad", inputs, mode=onnx_mode)


# -------------------------------------------------------------------- pooling


def _pool_attrs(n, kernel_size, stride, padding, ceil_mode):
    k = list(_tuple(kernel_size, n))
    st = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else list(_tuple(stride, n))
    p = list(_tuple(padding, n))
    return dict(kernel_shape=k, strides=st, pads=p + p, ceil_mode=int(bool(ceil_mode)))


def _max_pool(n):
    def handler(s, out, input, kernel_size, stride=None, padding=0, dilation=1,
                ceil_mode=False, return_indices=False):
        if return_indices:
            raise UnsupportedOperatorError(f"max_pool{n}d(return_indices=True)", s.g.opset)
        attrs = _pool_attrs(n, kernel_size, stride, padding, ceil_mode)
        return s.g.op("MaxPool", [s.value(input)], dilations=list(_tuple(dilation, n)),
                      **attrs)
    return handler


def _avg_pool(n):
    def handler(s, out, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
        if divisor_override is not None:
            raise UnsupportedOperatorError(f"avg_pool{n}d(divisor_override=...)", s.g.opset)
        attrs = _pool_attrs(n, kernel_size, stride, padding, ceil_mode)
        return s.g.op("AveragePool", [s.value(input)],
                      count_include_pad=int(bool(count_include_pad)), **attrs)
    return handler


def _adaptive(n, kind):
    def handler(s, out, input, output_size, return_indices=False):
        g = s.g
        if return_indices:
            raise UnsupportedOperatorError(f"adaptive_max_pool{n}d(return_indices=True)",
                                           g.opset)
        spatial = list(input.shape[-n:])
        target = [sp if o is None else o for o, sp in zip(_tuple(output_size, n), spatial,
                                                        strict=True)]
        x = s.value(input)
        if all(t == 1 for t in target):
            return g.op(f"Global{kind}Pool", [x])
        if any(sp % t for sp, t in zip(spatial, target, strict=True)):
            raise UnsupportedOperatorError(
                f"adaptive_{kind.lower()}_pool{n}d", g.opset,
                f"input size {spatial} is not a multiple of output size {target}; ONNX "
                "pools have fixed windows")
        k = [sp // t for sp, t in zip(spatial, target, strict=True)]
        return g.op(f"{kind}Pool", [x], kernel_shape=k, strides=k)
    return handler


for _n in (1, 2):
    reg(f"max_pool{_n}d", core=(f"max_pool{_n}d",))(_max_pool(_n))
    reg(f"avg_pool{_n}d", core=(f"avg_pool{_n}d",))(_avg_pool(_n))
    reg(f"adaptive_avg_pool{_n}d", core=(f"adaptive_avg_pool{_n}d",))(_adaptive(_n, "Average"))
    reg(f"adaptive_max_pool{_n}d", core=(f"adaptive_max_pool{_n}d",))(_adaptive(_n, "Max"))
