"""ferric.onnx.export on bad input: unsupported ops name themselves, data-dependent
control flow warns that one path is recorded, bad arguments raise, and a failed export
leaves the model, its tensors and ferric itself as they were."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
from nn_helpers import Fn

import ferric
import ferric.nn.functional as F
from ferric import nn
from ferric.onnx import TracerWarning, UnsupportedOperatorError
from ferric.onnx.errors import OnnxExporterError

onnx = pytest.importorskip("onnx", reason="ONNX export tests need the onnx package "
                           "(pip install 'ferric[onnx]')")

# PyTorch 2.13's messages, defaults and classes (tests/fixtures/onnx/generate.py)
with open(os.path.join(os.path.dirname(__file__), "fixtures", "onnx", "pytorch_onnx.json")) as f:
    TORCH = json.load(f)


def export(fn, *inputs, **kw):
    model = fn if isinstance(fn, nn.Module) else Fn(fn)
    return ferric.onnx.export(model.eval(), inputs, None, **kw)


def x34():
    return ferric.randn(3, 4, generator=ferric.Generator().manual_seed(0))


UNSUPPORTED = [
    ("sort", lambda x: x.sort(1)[0], "Tensor.sort"),
    ("cumprod", lambda x: ferric.cumprod(x, 1), "ferric.cumprod"),
    ("nonzero", lambda x: x.nonzero(), "Tensor.nonzero"),
    ("setitem", lambda x: _setitem(x), "Tensor.__setitem__"),
    ("bool_mask", lambda x: x[x > 0], "__getitem__ with boolean masks"),
    ("adaptive_uneven", lambda x: F.adaptive_avg_pool1d(x.unsqueeze(0), 3),
     "adaptive_average_pool1d"),
    ("embedding_max_norm", lambda x: F.embedding(ferric.tensor([0, 1]) + x.long()[0, :2],
                                                 ferric.ones(4, 2), max_norm=1.0),
     "embedding(max_norm=...)"),
    ("maxpool_indices", lambda x: F.max_pool1d(x.unsqueeze(0), 2, return_indices=True)[0],
     "max_pool1d(return_indices=True)"),
]


def _setitem(x):
    y = x.clone()
    y[0] = 1.0
    return y


@pytest.mark.parametrize("name,fn,op", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
def test_unsupported_op_is_named(name, fn, op):
    with pytest.raises(UnsupportedOperatorError, match="to ONNX opset version 20 is not "
                       "supported") as info:
        export(fn, x34())
    assert op in str(info.value)
    assert isinstance(info.value, OnnxExporterError) and isinstance(info.value, RuntimeError)


def test_unsupported_op_inside_a_python_function_names_the_caller():
    def helper(x):
        return x.sort(0)[0] * 2

    class Net(nn.Module):
        def forward(self, x):
            return F.glu(helper(x))

    with pytest.raises(UnsupportedOperatorError, match="Tensor.sort"):
        export(Net(), x34())
    # a functional without a handler is recorded op by op; an unsupported op inside it
    # is named together with the functional it was called from
    with pytest.raises(UnsupportedOperatorError,
                       match=r"ferric\._core\.unfold.*called from ferric\.nn\.functional\.unfold"):
        export(lambda x: F.unfold(x, 2), ferric.randn(1, 2, 4, 4))


def test_lstm_projection_and_packed_input_are_refused():
    lstm = nn.LSTM(4, 6, proj_size=3).eval()
    with pytest.raises(UnsupportedOperatorError, match=r"LSTM\(proj_size > 0\)"):
        export(lstm, ferric.randn(5, 2, 4))
    rnn = nn.GRU(4, 3).eval()
    packed = nn.utils.rnn.pack_padded_sequence(ferric.randn(5, 2, 4), [5, 3])
    with pytest.raises(UnsupportedOperatorError, match="PackedSequence"):
        export(lambda d: rnn(nn.utils.rnn.PackedSequence(d, *packed[1:]))[1], packed.data)


CONVERSIONS = [
    ("bool", lambda x: x * 2 if x.sum() > 0 else x * 3, "Python boolean"),
    ("item", lambda x: x * x.max().item(), "Python number"),
    ("float", lambda x: x * float(x[0, 0]), "Python float"),
    ("int", lambda x: x.view(int(x[0, 0].abs() + 3), -1), "Python integer"),
    ("tolist", lambda x: x * len(x.tolist()), "Python list"),
    ("numpy", lambda x: x + float(x.numpy().mean()), "NumPy array"),
]


@pytest.mark.parametrize("name,fn,what", CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_value_conversions_warn_that_one_path_is_recorded(name, fn, what):
    x = ferric.full((3, 4), 0.5)  # the input the fixture's torch.jit.trace runs had
    with pytest.warns(TracerWarning, match=f"Converting a tensor to a {what} might cause the "
                      "trace to be incorrect") as rec:
        export(fn, x)
    msg = str(rec[0].message)
    # PyTorch's text, then ferric's sentence on what the export records
    assert msg.startswith(TORCH["tracer_warnings"][name] + " ")
    assert "records the one path the Python code took" in msg


def test_classes_default_opset_and_messages_match_pytorch():
    assert [c.__name__ for c in UnsupportedOperatorError.__mro__] == \
        TORCH["error_mro"]["UnsupportedOperatorError"]
    assert [c.__name__ for c in TracerWarning.__mro__] == TORCH["error_mro"]["TracerWarning"]
    assert str(UnsupportedOperatorError("aten::sort", 20)) == TORCH["unsupported_message"]
    prog = export(lambda x: x + 1, x34())
    assert prog.model_proto.opset_import[0].version == TORCH["default_opset"]


def test_control_flow_records_the_path_taken():
    ort = pytest.importorskip("onnxruntime")

    def branchy(x):
        if x.sum() > 0:  # data-dependent: only this run's branch is in the graph
            return x * 2
        return x * 3

    pos = ferric.ones(2, 2)
    with pytest.warns(TracerWarning, match="Python boolean"):
        prog = export(branchy, pos)
    sess = ort.InferenceSession(prog.model_proto.SerializeToString(),
                                providers=["CPUExecutionProvider"])
    neg = -np.ones((2, 2), np.float32)
    # the model itself takes the other branch; the export recorded the first one
    assert branchy(ferric.from_numpy(neg))[0, 0].item() == -3
    np.testing.assert_allclose(sess.run(None, {"x": neg})[0], neg * 2) if \
        sess.get_inputs()[0].name == "x" else None
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: neg})[0], neg * 2)


def test_shape_reads_do_not_warn():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        export(lambda x: x.view(x.size(0), -1) * x.shape[1] + x.dim(), x34())


def test_training_mode_warns_like_pytorch():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    with pytest.warns(UserWarning, match="Exporting a model while it is in training mode") \
            as rec:
        prog = ferric.onnx.export(model, (x34(),))
    assert str(rec[0].message) == TORCH["training_warning"]
    assert "Dropout" in [n.op_type for n in prog.model_proto.graph.node]
    onnx.checker.check_model(prog.model_proto, full_check=True)


def test_training_mode_batchnorm_keeps_running_stats():
    bn = nn.BatchNorm1d(4)
    before = bn.running_mean.clone(), bn.running_var.clone(), bn.num_batches_tracked.clone()
    with pytest.warns(UserWarning, match="training mode"):
        ferric.onnx.export(bn, (x34() * 3 + 1,))
    after = bn.running_mean, bn.running_var, bn.num_batches_tracked
    for b, a in zip(before, after, strict=True):
        assert ferric.equal(a, b)


BAD_ARGS = [
    (dict(dynamic_shapes={"x": {0: "b"}}), ValueError, "dynamic_shapes"),
    (dict(opset_version=99), ValueError, "opset_version 99 is newer"),
]


@pytest.mark.parametrize("kw,exc,match", BAD_ARGS, ids=[b[2] for b in BAD_ARGS])
def test_bad_arguments(kw, exc, match):
    with pytest.raises(exc, match=match):
        export(lambda x: x + 1, x34(), **kw)


def test_same_tensor_twice_and_no_tensor_output():
    x = x34()
    with pytest.raises(ValueError, match="the same tensor is passed as two inputs"):
        export(lambda a, b: a + b, x, x)
    with pytest.raises(ValueError, match="returned no tensor"):
        export(lambda a: None, x)


def test_unknown_dynamic_axes_name_warns():
    with pytest.warns(UserWarning, match="Provided key y for dynamic axes is not a valid"):
        export(lambda x: x + 1, x34(), input_names=["x"], dynamic_axes={"y": [0]})


def test_failed_export_leaves_everything_as_it_was(tmp_path):
    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            self.lin(x)
            raise KeyError("boom in forward")

    x = x34()
    path = tmp_path / "bad.onnx"
    with pytest.raises(KeyError, match="boom"):
        ferric.onnx.export(Bad().eval(), (x,), str(path))
    assert not path.exists()
    with pytest.raises(UnsupportedOperatorError):
        ferric.onnx.export(Fn(lambda x: x.sort(0)[0]).eval(), (x,), str(path))
    assert not path.exists()
    # nothing stays patched: ops and shapes behave as before, with no tracing
    y = x + 1
    assert type(x.shape[0]) is int and not ferric.onnx.is_in_onnx_export()
    assert ferric.allclose(y - 1, x) and ferric.nn.functional.relu(-x).min().item() == 0


def test_export_inside_export_is_refused():
    inner = nn.Linear(4, 4).eval()

    def nested(x):
        ferric.onnx.export(inner, (x,))
        return x

    with pytest.raises(RuntimeError, match="another export is running"):
        export(nested, x34())
    assert not ferric.onnx.is_in_onnx_export()
    export(lambda x: x * 2, x34())  # and the next export works


def test_missing_onnx_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'ferric\[onnx\]'"):
        export(lambda x: x + 1, x34())
