"""Convolution, pooling and fold modules (kernels in ferric._core) against direct NumPy
loops; padding modes, output_size, reprs and gradchecks in float64."""

from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import close, f64, module_gradcheck, np_of, rand

import ferric
import ferric.nn.functional as F
from ferric import nn


def np_conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    OH = (x.shape[2] - dilation[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (x.shape[3] - dilation[1] * (KW - 1) - 1) // stride[1] + 1
    out = np.zeros((N, O, OH, OW))
    og = O // groups
    for o in range(O):
        g = o // og
        for i in range(OH):
            for j in range(OW):
                hs, ws = i * stride[0], j * stride[1]
                patch = x[:, g * Cg:(g + 1) * Cg, hs:hs + dilation[0] * (KH - 1) + 1:dilation[0],
                          ws:ws + dilation[1] * (KW - 1) + 1:dilation[1]]
                out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out


def np_conv_transpose2d(x, w, b=None, stride=(1, 1), padding=(0, 0), output_padding=(0, 0)):
    N, C, H, W = x.shape
    _, O, KH, KW = w.shape
    full = np.zeros((N, O, (H - 1) * stride[0] + KH + output_padding[0],
                     (W - 1) * stride[1] + KW + output_padding[1]))
    for i in range(H):
        for j in range(W):
            full[:, :, i * stride[0]:i * stride[0] + KH, j * stride[1]:j * stride[1] + KW] += \
                np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    oh = (H - 1) * stride[0] - 2 * padding[0] + KH + output_padding[0]
    ow = (W - 1) * stride[1] - 2 * padding[1] + KW + output_padding[1]
    out = full[:, :, padding[0]:padding[0] + oh, padding[1]:padding[1] + ow]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


def np_pool2d(x, k, s, reduce):
    N, C, H, W = x.shape
    OH, OW = (H - k) // s + 1, (W - k) // s + 1
    out = np.zeros((N, C, OH, OW))
    for i in range(OH):
        for j in range(OW):
            out[:, :, i, j] = reduce(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def test_conv2d_module():
    ferric.manual_seed(0)
    m = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    m = m.double()
    x = rand((2, 4, 7, 6), 1)
    ref = np_conv2d(x, np_of(m.weight), np_of(m.bias), (2, 1), (1, 0), (1, 2), 2)
    close(m(f64(x)), ref)
    close(m(f64(x[0])), ref[0])  # unbatched input
    small = nn.Conv2d(2, 2, 2).double()
    module_gradcheck(small, f64(rand((1, 2, 3, 3), 2), requires_grad=True))


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_conv2d_padding_modes(mode, np_mode):
    m = nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode).double()
    x = rand((1, 2, 4, 5), 3)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode=np_mode)
    close(m(f64(x)), np_conv2d(xp, np_of(m.weight), np_of(m.bias)))


def test_conv2d_same_padding():
    m = nn.Conv2d(1, 2, (3, 4), padding="same").double()
    x = rand((1, 1, 5, 6), 4)
    y = m(f64(x))
    assert y.shape == (1, 2, 5, 6)
    # 'same' pads (k - 1) total, the extra one on the right/bottom, like PyTorch
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 2)))
    close(y, np_conv2d(xp, np_of(m.weight), np_of(m.bias)))
    assert nn.Conv2d(1, 1, 3, padding="valid")(ferric.zeros(1, 1, 5, 5)).shape == (1, 1, 3, 3)


def test_conv1d_module():
    m = nn.Conv1d(3, 4, 3, stride=2, padding=1).double()
    x = rand((2, 3, 7), 5)
    ref = np_conv2d(x[:, :, None, :], np_of(m.weight)[:, :, None, :], np_of(m.bias),
                    (1, 2), (0, 1))[:, :, 0, :]
    close(m(f64(x)), ref)
    module_gradcheck(nn.Conv1d(1, 2, 2).double(), f64(rand((1, 1, 4), 6), requires_grad=True))


def test_conv_transpose2d_module():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1).double()
    x = rand((1, 2, 3, 4), 7)
    y = m(f64(x))
    assert y.shape == (1, 3, 6, 8)
    close(y, np_conv_transpose2d(x, np_of(m.weight), np_of(m.bias), (2, 2), (1, 1), (1, 1)))
    m2 = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    m2.load_state_dict(m.state_dict())
    close(m2(f64(x), output_size=[6, 8]), np_of(y))  # output_size picks output_padding=1
    with pytest.raises(ValueError, match="requested an output size of"):
        m2(f64(x), output_size=[9, 9])
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         "ConvTranspose2d"):
        nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect")
    module_gradcheck(nn.ConvTranspose2d(1, 1, 2, stride=2).double(),
                     f64(rand((1, 1, 2, 2), 8), requires_grad=True))


def test_pooling_modules():
    x = rand((2, 3, 6, 6), 9)
    close(nn.MaxPool2d(2)(f64(x)), np_pool2d(x, 2, 2, np.max))
    close(nn.AvgPool2d(3, stride=1)(f64(x)), np_pool2d(x, 3, 1, np.mean))
    out, idx = nn.MaxPool2d(2, return_indices=True)(f64(x))
    assert idx.dtype == ferric.int64 and idx.shape == out.shape
    flat = x.reshape(2, 3, 36)
    close(out, np.take_along_axis(flat, np_of(idx).reshape(2, 3, -1), 2).reshape(out.shape))
    close(nn.AdaptiveAvgPool2d(1)(f64(x)), x.mean(axis=(2, 3), keepdims=True))
    close(nn.AdaptiveAvgPool2d((3, 2))(f64(x)), x.reshape(2, 3, 3, 2, 2, 3).mean(axis=(3, 5)))
    module_gradcheck(nn.AvgPool2d(2), f64(rand((1, 1, 4, 4), 10), requires_grad=True))
    module_gradcheck(nn.MaxPool2d(2), f64(rand((1, 1, 4, 4), 11), requires_grad=True))


def test_fold_unfold_modules():
    x = rand((1, 2, 4, 4), 12)
    cols = nn.Unfold(kernel_size=2, stride=2)(f64(x))
    assert cols.shape == (1, 8, 4)
    back = nn.Fold(output_size=(4, 4), kernel_size=2, stride=2)(cols)
    close(back, x)  # non-overlapping blocks: fold inverts unfold
    close(F.unfold(f64(x), 2, stride=2), np_of(cols))


def test_conv_pool_reprs():
    assert repr(nn.Conv2d(16, 33, 3, stride=2)) == \
        "Conv2d(16, 33, kernel_size=(3, 3), stride=(2, 2))"
    assert repr(nn.Conv2d(4, 8, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1),
                          groups=2, bias=False)) == (
        "Conv2d(4, 8, kernel_size=(3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1), "
        "groups=2, bias=False)")
    assert repr(nn.Conv1d(2, 4, 3, padding="same", padding_mode="reflect")) == \
        "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=same, padding_mode=reflect)"
    assert repr(nn.ConvTranspose2d(2, 4, 3, output_padding=1, stride=2)) == \
        "ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"
    assert repr(nn.MaxPool2d(2)) == \
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AdaptiveAvgPool2d((5, None))) == "AdaptiveAvgPool2d(output_size=(5, None))"
    assert repr(nn.Fold(output_size=(4, 5), kernel_size=(2, 2))) == \
        "Fold(output_size=(4, 5), kernel_size=(2, 2), dilation=1, padding=0, stride=1)"
    assert list(nn.Conv2d(1, 2, 3).state_dict()) == ["weight", "bias"]
    assert nn.ConvTranspose2d(4, 6, 3, groups=2).weight.shape == (4, 3, 3, 3)


CONV_ERRORS = [
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 4, 3, groups=0), ValueError, "groups must be a positive integer"),
    (lambda: nn.Conv2d(1, 1, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
    (lambda: nn.Conv2d(1, 1, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(1, 1, 3, padding_mode="mirror"), ValueError,
     "padding_mode must be one of"),
]


@pytest.mark.parametrize("call,exc,msg", CONV_ERRORS, ids=[str(i) for i in range(len(CONV_ERRORS))])
def test_conv_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
