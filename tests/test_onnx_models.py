"""ferric.onnx.export on whole models (the digits CNN of examples/train_digits.py, a small
LSTM classifier, a transformer encoder), dynamic axes, the file options and opsets."""

from __future__ import annotations

import importlib.util
import io
import os

import numpy as np
import pytest

import ferric
from ferric import nn

onnx = pytest.importorskip("onnx", reason="ONNX export tests need the onnx package "
                           "(pip install 'ferric[onnx]')")
ort = pytest.importorskip("onnxruntime", reason="ONNX export tests run the models in "
                          "onnxruntime (pip install 'ferric[onnx]')")

EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "train_digits.py")


def digits_cnn():
    spec = importlib.util.spec_from_file_location("train_digits_for_onnx", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.DigitsCNN()


def session(source):
    data = source.SerializeToString() if hasattr(source, "SerializeToString") else source
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def run(sess, *inputs):
    feeds = {i.name: x.numpy() for i, x in zip(sess.get_inputs(), inputs, strict=True)}
    return sess.run(None, feeds)


def r(*shape, seed=0):
    return ferric.randn(*shape, generator=ferric.Generator().manual_seed(seed))


class LSTMClassifier(nn.Module):
    """Embedding -> 2-layer LSTM -> last step -> Linear: a typical small sequence model."""

    def __init__(self, vocab=20, dim=8, hidden=12, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, tokens):
        out, (h, c) = self.lstm(self.emb(tokens))
        return self.head(out[:, -1]).log_softmax(-1), h[-1]


class TinyTransformer(nn.Module):
    def __init__(self, d=16, heads=4, classes=5):
        super().__init__()
        self.proj = nn.Linear(6, d)
        layer = nn.TransformerEncoderLayer(d, heads, 32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.out = nn.Linear(d, classes)

    def forward(self, x):
        h = self.encoder(self.proj(x))
        return self.out(h.mean(1))


def _trained_digits():
    ferric.manual_seed(0)
    model = digits_cnn()
    opt = ferric.optim.SGD(model.parameters(), lr=0.1)
    x, y = r(16, 1, 8, 8), ferric.randint(0, 10, (16,), generator=ferric.Generator())
    for _ in range(3):  # moves the BatchNorm running statistics away from 0/1
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


MODELS = [
    ("digits_cnn", _trained_digits, lambda b, s: r(b, 1, 8, 8, seed=s)),
    ("lstm_classifier", lambda: LSTMClassifier().eval(),
     lambda b, s: ferric.randint(0, 20, (b, 7), generator=ferric.Generator().manual_seed(s))),
    ("transformer", lambda: TinyTransformer().eval(), lambda b, s: r(b, 5, 6, seed=s)),
]


@pytest.mark.parametrize("name,make,data", MODELS, ids=[m[0] for m in MODELS])
def test_model_with_dynamic_batch(tmp_path, name, make, data):
    model = make()
    path = tmp_path / f"{name}.onnx"
    out_names = ["y", "h"] if name == "lstm_classifier" else ["y"]
    ferric.onnx.export(model, (data(4, 0),), str(path), input_names=["x"],
                       output_names=out_names,
                       dynamic_axes={"x": {0: "batch"}, **{n: {0: "batch"} for n in out_names}})
    onnx.checker.check_model(str(path), full_check=True)
    proto = onnx.load(str(path))
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    for o in proto.graph.output:
        assert o.type.tensor_type.shape.dim[0].dim_param == "batch"
    sess = session(str(path))
    for batch, seed in ((4, 0), (1, 1), (9, 2)):  # the traced batch size and two others
        x = data(batch, seed)
        with ferric.no_grad():
            want = model(x)
        want = want if isinstance(want, tuple) else (want,)
        got = run(sess, x)
        for g, w in zip(got, want, strict=True):
            assert g.shape == tuple(w.shape)
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=2e-5)


def test_static_export_has_static_shapes():
    model = digits_cnn().eval()
    prog = ferric.onnx.export(model, (r(2, 1, 8, 8),))
    g = prog.model_proto.graph
    assert [d.dim_value for d in g.input[0].type.tensor_type.shape.dim] == [2, 1, 8, 8]
    assert [d.dim_value for d in g.output[0].type.tensor_type.shape.dim] == [2, 10]
    assert g.input[0].name == "x" and g.output[0].name == "output_0"
    # parameters and buffers keep their state_dict names
    inits = {i.name for i in g.initializer}
    assert {"features.0.weight", "features.1.running_mean", "head.4.bias"} <= inits
    ops = [n.op_type for n in g.node]
    assert ops.count("Conv") == 2 and ops.count("BatchNormalization") == 2
    assert "MaxPool" in ops and ops.count("Gemm") == 2


def test_dynamic_axes_list_form_and_reshape_by_size():
    class Net(nn.Module):
        def forward(self, x):
            return x.view(x.size(0), -1).sum(1)

    prog = ferric.onnx.export(Net(), (r(3, 2, 4),), input_names=["x"], output_names=["s"],
                              dynamic_axes={"x": [0, 1], "s": [0]})
    g = prog.model_proto.graph
    assert [d.dim_param for d in g.input[0].type.tensor_type.shape.dim[:2]] == [
        "x_dynamic_axes_1", "x_dynamic_axes_2"]
    assert g.output[0].type.tensor_type.shape.dim[0].dim_param == "s_dynamic_axes_1"
    sess = session(prog.model_proto)
    x = r(5, 3, 4)
    np.testing.assert_allclose(run(sess, x)[0], x.view(5, -1).sum(1).numpy(), rtol=1e-5)


def test_without_dynamic_axes_sizes_are_constants():
    class Net(nn.Module):
        def forward(self, x):
            return x.view(x.size(0), -1)

    prog = ferric.onnx.export(Net(), (r(3, 2, 4),))
    assert "Shape" not in [n.op_type for n in prog.model_proto.graph.node]


def test_save_options(tmp_path):
    model = nn.Sequential(nn.Linear(4, 64), nn.Tanh()).eval()  # > 1 KiB of weights
    x = r(2, 4)
    want = model(x).detach().numpy()
    # default: weights in <f>.data beside the model, as PyTorch 2.13 writes them
    path = tmp_path / "m.onnx"
    ferric.onnx.export(model, (x,), path)
    assert (tmp_path / "m.onnx.data").exists()
    np.testing.assert_allclose(run(session(str(path)), x)[0], want, rtol=1e-5, atol=1e-6)
    # one self-contained file
    single = tmp_path / "single.onnx"
    ferric.onnx.export(model, (x,), str(single), external_data=False)
    assert not (tmp_path / "single.onnx.data").exists()
    np.testing.assert_allclose(run(session(single.read_bytes()), x)[0], want, rtol=1e-5, atol=1e-6)
    # a file object (BytesIO warns as in PyTorch)
    buf = io.BytesIO()
    with pytest.warns(DeprecationWarning, match="BytesIO"):
        ferric.onnx.export(model, (x,), buf)
    np.testing.assert_allclose(run(session(buf.getvalue()), x)[0], want, rtol=1e-5, atol=1e-6)
    # export_params=False leaves the weights out; keep_initializers_as_inputs lists them
    bare = tmp_path / "bare.onnx"
    ferric.onnx.export(model, (x,), str(bare), export_params=False, external_data=False)
    assert len(onnx.load(str(bare)).graph.initializer) == 0
    inputs = tmp_path / "inputs.onnx"
    ferric.onnx.export(model, (x,), str(inputs), keep_initializers_as_inputs=True,
                       external_data=False)
    names = [i.name for i in onnx.load(str(inputs)).graph.input]
    assert names == ["input", "0.weight", "0.bias"]


def test_kwargs_and_input_names():
    class Net(nn.Module):
        def forward(self, a, b, scale=1.0):
            return a * scale + b

    a, b = r(2, 3), r(2, 3, seed=1)
    prog = ferric.onnx.export(Net(), (a,), kwargs={"b": b, "scale": 2.0})
    assert [i.name for i in prog.model_proto.graph.input] == ["a", "b"]
    np.testing.assert_allclose(run(session(prog.model_proto), a, b)[0], (a * 2 + b).numpy(),
                               rtol=1e-6)
    # a plain function exports too; its parameter names name the inputs
    prog = ferric.onnx.export(lambda u, v: u @ v.t(), (a, b))
    assert [i.name for i in prog.model_proto.graph.input] == ["u", "v"]
    np.testing.assert_allclose(prog(a, b)[0].numpy(), (a @ b.t()).numpy(), rtol=1e-5,
                               atol=1e-6)
    # the deprecated arguments of older scripts are accepted
    prog = ferric.onnx.export(Net(), (a, b, {"scale": 3.0}), input_names=["first"],
                              training=ferric.onnx.TrainingMode.EVAL, do_constant_folding=True,
                              operator_export_type=ferric.onnx.OperatorExportTypes.ONNX,
                              dynamo=False)
    assert [i.name for i in prog.model_proto.graph.input] == ["first", "b"]
    np.testing.assert_allclose(prog(a, b)[0].numpy(), (a * 3 + b).numpy(), rtol=1e-6)


@pytest.mark.parametrize("opset", [13, 14, 16, 17, 18, 20, 21])
def test_opset_versions(opset):
    model = _trained_digits()
    prog = ferric.onnx.export(model, (r(2, 1, 8, 8),), opset_version=opset)
    proto = prog.model_proto
    assert proto.opset_import[0].version == opset
    onnx.checker.check_model(proto, full_check=True)
    x = r(3, 1, 8, 8, seed=1)
    with pytest.raises(Exception, match="dimensions"):  # static shapes: batch 3 does not fit
        run(session(proto), x)
    x = r(2, 1, 8, 8, seed=1)
    np.testing.assert_allclose(run(session(proto), x)[0], model(x).detach().numpy(),
                               rtol=1e-4, atol=2e-5)


def test_opset_below_13_is_converted_or_kept_at_13(caplog):
    # onnx's version converter has no Relu adapter below 13: the model stays at 13 with a
    # logged warning, as PyTorch keeps its base opset when the conversion fails
    with caplog.at_level("WARNING", logger="ferric.onnx"):
        prog = ferric.onnx.export(nn.ReLU(), (r(2, 3),), opset_version=11)
    assert "requested opset_version 11 is a lower version" in caplog.text
    assert "conversion to opset 11 failed" in caplog.text
    assert prog.model_proto.opset_import[0].version == 13
    onnx.checker.check_model(prog.model_proto, full_check=True)


def test_model_state_is_unchanged():
    model = TinyTransformer().eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    x = r(2, 5, 6)
    want = model(x)
    ferric.onnx.export(model, (x,))
    for k, v in model.state_dict().items():
        assert ferric.equal(v, before[k])
    assert ferric.equal(model(x), want)
    assert not model.training
    # nothing of the export stays patched
    assert ferric.Tensor.__add__ is vars(ferric.Tensor)["__add__"]
    assert type(x.shape[0]) is int and ferric.nn.functional.linear.__name__ == "linear"


# ---------------------------------------------------------------- script-style models


class LeNet(nn.Module):
    """The classic tutorial network, written with functionals and ``view(-1, ...)``."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5), nn.Conv2d(6, 16, 5)
        self.fc1, self.fc2 = nn.Linear(16 * 4 * 4, 32), nn.Linear(32, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
        x = nn.functional.max_pool2d(nn.functional.relu(self.conv2(x)), (2, 2))
        x = nn.functional.relu(self.fc1(x.view(-1, 16 * 4 * 4)))
        return nn.functional.log_softmax(self.fc2(x), dim=1)


class Residual(nn.Module):
    """A ResNet basic block: in-place ``out += identity`` and ``ReLU(inplace=True)``."""

    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.b2(self.c2(self.relu(self.b1(self.c1(x)))))
        out += identity
        return self.relu(out)


class ResNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.blocks = nn.Sequential(Residual(8), Residual(8))
        self.pool, self.fc = nn.AdaptiveAvgPool2d((1, 1)), nn.Linear(8, 4)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        b, c, h, w = x.size()
        return self.fc(ferric.flatten(self.pool(x), 1).reshape(b, c))


class CausalLM(nn.Module):
    """Embedding + a sinusoidal table sliced by the traced sequence length + a causal
    transformer encoder: sizes read from the input must stay symbolic."""

    def __init__(self, vocab=30, d=16, maxlen=40):
        super().__init__()
        pos = ferric.arange(maxlen, dtype=ferric.float32).unsqueeze(1)
        div = ferric.exp(ferric.arange(0, d, 2).float() * (-np.log(10000.0) / d))
        self.register_buffer("pe", ferric.cat([ferric.sin(pos * div), ferric.cos(pos * div)],
                                              1))
        self.emb = nn.Embedding(vocab, d)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 2, 32, batch_first=True),
                                         1, enable_nested_tensor=False)
        self.fc = nn.Linear(d, vocab)

    def forward(self, tok):
        x = self.emb(tok) * self.emb.embedding_dim ** 0.5 + self.pe[: tok.size(1)]
        mask = nn.Transformer.generate_square_subsequent_mask(tok.size(1))
        return self.fc(self.enc(x, mask=mask, is_causal=True)[:, -1, :])


class CharLM(nn.Module):
    """examples/char_lm.py's model: the LSTM state is an input and an output."""

    def __init__(self, vocab=40, hidden=24):
        super().__init__()
        self.embed = nn.Embedding(vocab, 8)
        self.lstm = nn.LSTM(8, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


class TinyViT(nn.Module):
    """Patches, a class token expanded to the traced batch size, learned positions,
    a pre-norm GELU encoder: ``expand(x.size(0), -1, -1)`` and ``new_zeros``."""

    def __init__(self, d=16):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, stride=4)
        self.cls = nn.Parameter(r(1, 1, d, seed=3))
        self.pos = nn.Parameter(r(1, 17, d, seed=4))
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(
            d, 4, 32, batch_first=True, activation="gelu", norm_first=True), 2,
            enable_nested_tensor=False)
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, 5)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = ferric.cat([self.cls.expand(x.size(0), -1, -1), x], dim=1) + self.pos
        x = self.enc(x)
        return self.head(self.norm(x[:, 0])) + x.new_zeros(x.size(0), 5)


def _tokens(b, t, seed, vocab=30):
    return ferric.randint(0, vocab, (b, t), generator=ferric.Generator().manual_seed(seed))


SCRIPT_MODELS = [
    ("lenet", LeNet, lambda b, t, s: (r(b, 1, 28, 28, seed=s),), {"x": {0: "b"}}),
    ("resnetish", ResNetish, lambda b, t, s: (r(b, 3, 16, 16, seed=s),), {"x": {0: "b"}}),
    ("vit", TinyViT, lambda b, t, s: (r(b, 3, 16, 16, seed=s),), {"x": {0: "b"}}),
    ("causal_lm", CausalLM, lambda b, t, s: (_tokens(b, t, s),), {"tok": {0: "b", 1: "t"}}),
    ("char_lm_state", CharLM,
     lambda b, t, s: (_tokens(b, t, s, 40), (r(2, b, 24, seed=s), r(2, b, 24, seed=s + 1))),
     {"x": {0: "b", 1: "t"}, "state_0": {1: "b"}, "state_1": {1: "b"}}),
]


@pytest.mark.parametrize("name,make,data,axes", SCRIPT_MODELS,
                         ids=[m[0] for m in SCRIPT_MODELS])
def test_script_style_models_with_dynamic_axes(name, make, data, axes):
    ferric.manual_seed(0)
    model = make().eval()
    prog = ferric.onnx.export(model, data(2, 7, 0), dynamic_axes=axes)
    onnx.checker.check_model(prog.model_proto, full_check=True)
    sess = session(prog.model_proto)
    for b, t, seed in ((2, 7, 0), (3, 9, 1), (1, 4, 2)):
        inputs = data(b, t, seed)
        with ferric.no_grad():
            want = model(*inputs)
        flat_in = [x for x in inputs if isinstance(x, ferric.Tensor)] + [
            y for x in inputs if isinstance(x, tuple) for y in x]
        got = run(sess, *flat_in)
        flat_want = [w for w in (want if isinstance(want, tuple) else (want,))
                     if isinstance(w, ferric.Tensor)] + [
            y for w in (want if isinstance(want, tuple) else ()) if isinstance(w, tuple)
            for y in w]
        assert len(got) == len(flat_want)
        for g, w in zip(got, flat_want, strict=True):
            assert g.shape == tuple(w.shape)
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=2e-5)
