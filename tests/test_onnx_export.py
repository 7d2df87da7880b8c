"""ferric.onnx.export: every covered layer and op, exported and run in onnxruntime, gives
ferric's outputs (float32 tolerance); the graphs pass ``onnx.checker``; dynamic axes
work for other sizes. Errors and warnings are in ``test_onnx_errors.py``."""

from __future__ import annotations

import numpy as np
import pytest

import ferric
import ferric.nn.functional as F
from ferric import nn

onnx = pytest.importorskip("onnx", reason="ONNX export tests need the onnx package "
                           "(pip install 'ferric[onnx]')")
ort = pytest.importorskip("onnxruntime", reason="ONNX export tests run the models in "
                          "onnxruntime (pip install 'ferric[onnx]')")


class Fn(nn.Module):
    """A module whose forward is ``fn`` (for ops that are not layers)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def run_ort(proto, inputs):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: np.asarray(x.numpy()) for i, x in zip(sess.get_inputs(), inputs,
                                                           strict=True)}
    return sess.run(None, feeds)


def flat(obj):
    if isinstance(obj, ferric.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for x in obj for t in flat(x)]
    return []


def check(model, inputs, *, rtol=1e-4, atol=2e-5, **kw):
    """Exports ``model`` on ``inputs``, checks the model and compares onnxruntime's
    outputs with ferric's; returns the ModelProto."""
    if isinstance(model, nn.Module):
        model.eval()
    prog = ferric.onnx.export(model, tuple(inputs), None, **kw)
    proto = prog.model_proto
    onnx.checker.check_model(proto, full_check=True)
    with ferric.no_grad():
        want = flat(model(*inputs))
    got = run_ort(proto, inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w.numpy(), rtol=rtol, atol=atol)
    return proto


def r(*shape, seed=0):
    g = ferric.Generator().manual_seed(seed)
    return ferric.randn(*shape, generator=g)


def _bn(cls, c):
    m = cls(c)
    with ferric.no_grad():  # running statistics that are not 0/1, so they matter
        m.running_mean.copy_(r(c, seed=5) * 0.3)
        m.running_var.copy_(r(c, seed=6).abs() + 0.5)
        m.weight.copy_(r(c, seed=7))
        m.bias.copy_(r(c, seed=8))
    return m


LAYERS = [
    ("linear", lambda: nn.Linear(6, 4), [(3, 6)]),
    ("linear_3d", lambda: nn.Linear(6, 4), [(2, 3, 6)]),
    ("linear_nobias", lambda: nn.Linear(6, 4, bias=False), [(2, 3, 6)]),
    ("bilinear", lambda: nn.Bilinear(3, 4, 2), [(5, 3), (5, 4)]),
    ("conv1d", lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1), [(2, 3, 9)]),
    ("conv1d_dilation_groups", lambda: nn.Conv1d(4, 6, 3, dilation=2, groups=2), [(2, 4, 11)]),
    ("conv2d", lambda: nn.Conv2d(2, 5, 3, padding=1), [(2, 2, 7, 6)]),
    ("conv2d_same", lambda: nn.Conv2d(2, 3, (2, 4), padding="same", bias=False),
     [(1, 2, 6, 7)]),
    ("conv2d_stride", lambda: nn.Conv2d(3, 4, 3, stride=(2, 1), padding=(0, 2)),
     [(2, 3, 8, 5)]),
    ("conv2d_reflect", lambda: nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"),
     [(1, 2, 5, 5)]),
    ("conv_transpose2d", lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1,
                                                    output_padding=1), [(1, 3, 4, 4)]),
    ("conv_transpose1d", lambda: nn.ConvTranspose1d(3, 2, 4, stride=2), [(2, 3, 5)]),
    ("maxpool1d", lambda: nn.MaxPool1d(3, stride=2, padding=1), [(2, 3, 10)]),
    ("maxpool2d", lambda: nn.MaxPool2d(2), [(2, 3, 8, 6)]),
    ("maxpool2d_pad", lambda: nn.MaxPool2d(3, stride=2, padding=1), [(1, 2, 7, 7)]),
    ("maxpool2d_dilation", lambda: nn.MaxPool2d(2, dilation=2), [(1, 2, 7, 7)]),
    ("avgpool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1), [(2, 3, 10)]),
    ("avgpool2d", lambda: nn.AvgPool2d(2), [(2, 3, 8, 6)]),
    ("avgpool2d_nopad_count", lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False),
     [(1, 2, 7, 7)]),
    ("adaptive_avg_global", lambda: nn.AdaptiveAvgPool2d(1), [(2, 3, 5, 7)]),
    ("adaptive_avg_2x2", lambda: nn.AdaptiveAvgPool2d((2, 3)), [(2, 3, 4, 6)]),
    ("adaptive_avg1d", lambda: nn.AdaptiveAvgPool1d(4), [(2, 3, 8)]),
    ("adaptive_max2d", lambda: nn.AdaptiveMaxPool2d((1, 1)), [(2, 3, 5, 5)]),
    ("adaptive_max1d", lambda: nn.AdaptiveMaxPool1d(2), [(2, 3, 6)]),
    ("batchnorm1d", lambda: _bn(nn.BatchNorm1d, 4), [(5, 4)]),
    ("batchnorm1d_3d", lambda: _bn(nn.BatchNorm1d, 4), [(5, 4, 3)]),
    ("batchnorm2d", lambda: _bn(nn.BatchNorm2d, 3), [(2, 3, 4, 4)]),
    ("batchnorm_no_stats", lambda: nn.BatchNorm2d(3, track_running_stats=False),
     [(4, 3, 2, 2)]),
    ("layernorm", lambda: nn.LayerNorm(6), [(2, 3, 6)]),
    ("layernorm_2d_noaffine", lambda: nn.LayerNorm((3, 6), elementwise_affine=False),
     [(2, 3, 6)]),
    ("groupnorm", lambda: nn.GroupNorm(2, 4), [(2, 4, 3, 3)]),
    ("rmsnorm", lambda: nn.RMSNorm(6), [(2, 3, 6)]),
    ("instancenorm", lambda: nn.InstanceNorm2d(3), [(2, 3, 4, 4)]),
    ("dropout_eval", lambda: nn.Dropout(0.5), [(3, 4)]),
    ("dropout2d_eval", lambda: nn.Dropout2d(0.5), [(2, 3, 4, 4)]),
    ("flatten", lambda: nn.Flatten(), [(2, 3, 4, 5)]),
    ("flatten_mid", lambda: nn.Flatten(1, 2), [(2, 3, 4, 5)]),
    ("unflatten", lambda: nn.Unflatten(1, (2, 6)), [(3, 12)]),
    ("identity", lambda: nn.Identity(), [(3, 4)]),
    ("zeropad2d", lambda: nn.ZeroPad2d((1, 2, 0, 1)), [(1, 2, 3, 3)]),
    ("reflectpad1d", lambda: nn.ReflectionPad1d(2), [(1, 2, 5)]),
    ("replicationpad2d", lambda: nn.ReplicationPad2d(1), [(1, 2, 3, 3)]),
    ("constantpad1d", lambda: nn.ConstantPad1d((2, 1), 0.5), [(1, 2, 3)]),
]

ACTIVATIONS = [
    nn.ReLU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.Tanh(), nn.Sigmoid(),
    nn.Softmax(dim=1), nn.Softmax(dim=-1), nn.LogSoftmax(dim=1), nn.Softmin(dim=1),
    nn.LeakyReLU(0.2), nn.ELU(0.7), nn.SELU(), nn.CELU(1.3), nn.SiLU(), nn.Mish(),
    nn.Softplus(), nn.Softplus(beta=2.0, threshold=3.0), nn.Hardtanh(-0.5, 0.7), nn.ReLU6(),
    nn.Hardsigmoid(), nn.Hardswish(), nn.Softsign(), nn.LogSigmoid(), nn.Tanhshrink(),
    nn.Threshold(0.1, -2.0), nn.Hardshrink(0.4), nn.Softshrink(0.3), nn.GLU(),
    nn.PReLU(), nn.PReLU(4),
]


@pytest.mark.parametrize("name,make,shapes", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_onnxruntime(name, make, shapes):
    ferric.manual_seed(0)
    check(make(), [r(*s, seed=i) * 2 for i, s in enumerate(shapes)])


@pytest.mark.parametrize("act", ACTIVATIONS, ids=[repr(a) for a in ACTIVATIONS])
def test_activation_matches_onnxruntime(act):
    x = r(3, 4, 6) * 3
    check(act, [x])


def test_activation_float64():
    x = r(3, 4).double()
    # (onnxruntime has no float64 Erf or Softplus kernels, so GELU and Softplus are left out)
    for act in (nn.Tanh(), nn.CELU(0.5), nn.Sigmoid(), nn.LayerNorm(4).double(),
                nn.Linear(4, 2).double()):
        check(act, [x], rtol=1e-10, atol=1e-10)


def test_embedding():
    ferric.manual_seed(0)
    emb = nn.Embedding(10, 4, padding_idx=0)
    idx = ferric.tensor([[1, 2, 0], [9, 3, 3]])
    check(emb, [idx])
    bag = Fn(lambda i: F.embedding(i, emb.weight).sum(1))
    check(bag, [idx])
