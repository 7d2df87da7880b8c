"""``ferric.utils.tensorboard.SummaryWriter`` writes what PyTorch's writes.

The cases of ``tests/fixtures/tensorboard/tensorboard_cases.py`` are logged with ferric's
writer, the
event files read back with tensorboard's event-file reader, and compared with what
PyTorch 2.13's writer wrote for the same inputs (``pytorch_events.json``, made by
``generate.py`` there): scalar values and steps, histogram buckets, decoded image pixels
and sizes, text, hparams plugin data and the model graphs' ops, scopes and shapes.
"""

from __future__ import annotations

import json
import math
import os
import sys

import numpy as np
import pytest
from nn_helpers import Square

import ferric

pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
pytest.importorskip("PIL", reason="decoding the logged PNGs needs pillow")

from ferric.utils.tensorboard import SummaryWriter  # noqa: E402
from ferric.utils.tensorboard._graph import node_op  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "tensorboard")
sys.path.insert(0, HERE)

import tensorboard_cases as cases  # noqa: E402

with open(os.path.join(HERE, "pytorch_events.json")) as f:
    TORCH = json.load(f)


@pytest.fixture(scope="module")
def ferric_runs(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("tb")
    cases.write_cases(ferric, SummaryWriter, str(logdir))
    return cases.read_logdir(str(logdir))


def test_fixture_is_from_pytorch_2_13():
    assert TORCH["torch_version"].startswith("2.13")


def test_same_runs_and_tags(ferric_runs):
    assert sorted(ferric_runs) == sorted(TORCH["runs"])
    for run, kinds in TORCH["runs"].items():
        for kind, tags in kinds.items():
            if kind in ("graph", "run_metadata"):
                assert kind in ferric_runs[run], (run, kind)
            else:
                assert sorted(ferric_runs[run][kind]) == sorted(tags), (run, kind)


def _scalar_cases():
    out = []
    for run, kinds in TORCH["runs"].items():
        for tag, records in kinds.get("scalar", {}).items():
            out.append((run, tag, records))
    return out


@pytest.mark.parametrize("run,tag,expected", _scalar_cases(),
                         ids=[f"{r}:{t}" for r, t, _ in _scalar_cases()])
def test_scalars(ferric_runs, run, tag, expected):
    got = ferric_runs[run]["scalar"][tag]
    assert [r["step"] for r in got] == [r["step"] for r in expected]
    assert [r["value"] for r in got] == [r["value"] for r in expected]


HISTOGRAMS = sorted(TORCH["runs"]["."]["histogram"])


@pytest.mark.parametrize("tag", HISTOGRAMS)
def test_histograms(ferric_runs, tag):
    (want,) = TORCH["runs"]["."]["histogram"][tag]
    (got,) = ferric_runs["."]["histogram"][tag]
    assert got["step"] == want["step"]
    assert got["bucket"] == want["bucket"]
    np.testing.assert_allclose(got["bucket_limit"], want["bucket_limit"], rtol=1e-12)
    assert got["num"] == want["num"]
    for key in ("min", "max", "sum", "sum_squares"):
        assert math.isclose(got[key], want[key], rel_tol=1e-12, abs_tol=1e-12), key


IMAGES = sorted(TORCH["runs"]["."]["image"])


@pytest.mark.parametrize("tag", IMAGES)
def test_images(ferric_runs, tag):
    (want,) = TORCH["runs"]["."]["image"][tag]
    (got,) = ferric_runs["."]["image"][tag]
    for key in ("step", "height", "width", "colorspace"):
        assert got[key] == want[key], key
    assert got["pixels"] == want["pixels"]


def test_image_sizes_follow_dataformats(ferric_runs):
    images = ferric_runs["."]["image"]
    # (3, 5, 7) CHW -> 5 x 7; (4, 9) WH -> 9 x 4; 10 images of 4 x 5 -> 2 rows of 8
    assert (images["image/chw_float"][0]["height"], images["image/chw_float"][0]["width"]) \
        == (5, 7)
    assert (images["image/wh_float64"][0]["height"], images["image/wh_float64"][0]["width"]) \
        == (9, 4)
    batch = images["image/batch_nchw"][0]
    assert (batch["height"], batch["width"], batch["colorspace"]) == (8, 40, 3)
    assert images["image/rgba_hwc"][0]["colorspace"] == 4


TENSORS = sorted(TORCH["runs"]["."]["tensor"])


@pytest.mark.parametrize("tag", TENSORS)
def test_text_and_tensors(ferric_runs, tag):
    assert ferric_runs["."]["tensor"][tag] == TORCH["runs"]["."]["tensor"][tag]


def test_text_round_trips(ferric_runs):
    (rec,) = ferric_runs["."]["tensor"]["text/plain/text_summary"]
    assert rec["plugin"] == "text" and rec["step"] == 4
    assert rec["string_val"] == ["hello **TensorBoard** \u00e9"]


@pytest.mark.parametrize("run", ["hp0", "hp1"])
def test_hparams(ferric_runs, run):
    assert ferric_runs[run]["hparams"] == TORCH["runs"][run]["hparams"]
    start = ferric_runs[run]["hparams"]["_hparams_/session_start_info"][0]["content"]
    assert start["sessionStartInfo"]["hparams"]["optim"] in ("adam", "sgd")


def _graph_summary(nodes, levels):
    """The ops in order as (scope, op, output shape, producers) and the IO nodes'
    shapes. A producer is the index of the producing op, ``"in"`` for an input or the
    parameter's attribute name; PyTorch names parameters ``<scope>/<attribute>/<value>``
    (``levels=2``), ferric ``<scope>/<attribute>`` (``levels=1``). Constants (PyTorch's
    ``prim::Constant`` / ``prim::ListConstruct`` arguments) are left out."""
    by_name = {n["name"]: n for n in nodes}
    ops = [n for n in nodes if n["op"].startswith("aten::")]
    index = {n["name"]: i for i, n in enumerate(ops)}

    def producer(name):
        node = by_name[name]
        if node["op"] == "IO Node":
            return "in"
        if node["op"] == "prim::GetAttr":
            return name.rsplit("/", levels)[1]
        return index.get(name)

    summary_ops = []
    for n in ops:
        producers = [producer(i) for i in n["input"]]
        summary_ops.append((n["name"].rsplit("/", 1)[0], n["op"], n["shape"],
                            [p for p in producers if p is not None]))
    io = sorted((n["name"].split("/")[0], n["shape"]) for n in nodes if n["op"] == "IO Node")
    return summary_ops, io


def _params(nodes, levels):
    """(scope, attribute) of the parameter nodes: PyTorch names them
    ``<scope>/<attribute>/<value name>`` (``levels=2``), ferric ``<scope>/<attribute>``."""
    return sorted(tuple(n["name"].rsplit("/", levels)[:2]) for n in nodes
                  if n["op"] == "prim::GetAttr")


@pytest.mark.parametrize("model", ["mlp", "cnn", "residual"])
def test_graph_matches_pytorch_trace(ferric_runs, model):
    want = TORCH["runs"]["graph_" + model]
    got = ferric_runs["graph_" + model]
    assert got["run_metadata"] == want["run_metadata"] == ["step1"]
    want_ops, want_io = _graph_summary(want["graph"], 2)
    got_ops, got_io = _graph_summary(got["graph"], 1)
    assert got_ops == want_ops
    assert _params(got["graph"], 1) == _params(want["graph"], 2)
    assert got_io == want_io


def test_graph_leaves_the_model_as_it_was(tmp_path):
    model = ferric.nn.Sequential(ferric.nn.Linear(3, 2), ferric.nn.Dropout(0.5))
    model.train()
    x = ferric.randn(4, 3)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_graph(model, x)
    assert model.training
    assert not x.requires_grad and x.grad_fn is None
    assert all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())


def test_graph_of_integer_input_and_tuple_output(tmp_path):
    class Tagger(ferric.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = ferric.nn.Embedding(10, 4)
            self.head = ferric.nn.Linear(4, 2)

        def forward(self, tokens):
            h = self.emb(tokens)
            return self.head(h), h.sum()

    with SummaryWriter(str(tmp_path)) as w:
        w.add_graph(Tagger(), ferric.tensor([[1, 2, 3]]))
    nodes = cases.read_logdir(str(tmp_path))["."]["graph"]
    by_name = {n["name"]: n for n in nodes}
    assert by_name["input/tokens"]["shape"] == [[1, 3]]
    assert [n["op"] for n in nodes if n["op"].startswith("aten::")] == [
        "aten::embedding", "aten::linear", "aten::sum"]
    assert by_name["output/output.1"]["shape"] == [[1, 3, 2]]
    assert by_name["output/output.2"]["shape"] == [[]]
    assert by_name["output/output.1"]["input"] == ["Tagger/Linear[head]/linear"]


@pytest.mark.parametrize("name,op", [
    ("AddmmBackward0", "aten::addmm"), ("LogSoftmaxBackward0", "aten::log_softmax"),
    ("MaxPool2DWithIndicesBackward0", "aten::max_pool2d"), ("TBackward0", "aten::t"),
    ("NativeLayerNormBackward0", "aten::layer_norm"), ("SumBackward1", "aten::sum"),
    ("AdaptiveAvgPool2DBackward0", "aten::adaptive_avg_pool2d"),
    ("MyFunctionBackward", "prim::PythonOp"), ("CopySlices", "prim::PythonOp"),
])
def test_node_op_names(name, op):
    assert node_op(name) == op


ERRORS = sorted(TORCH["errors"].items())


@pytest.mark.parametrize("case,exc", ERRORS, ids=[c for c, _ in ERRORS])
def test_bad_input_raises_pytorchs_exception(tmp_path, case, exc):
    w = SummaryWriter(str(tmp_path))
    try:
        with pytest.raises(Exception) as info:
            cases.error_cases(ferric)[case](w)
        assert type(info.value).__name__ == exc
    finally:
        w.close()


def test_default_log_dir_and_comment(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    try:
        head, tail = os.path.split(w.get_logdir())
        assert head == "runs"
        assert tail.endswith("_" + socket.gethostname() + "_lr0.1")
        assert os.path.isdir(w.get_logdir())
        assert any(f.startswith("events.out.tfevents.") for f in os.listdir(w.log_dir))
    finally:
        w.close()


def test_filename_suffix_purge_step_and_reopen(tmp_path):
    w = SummaryWriter(str(tmp_path), purge_step=5, filename_suffix=".ferric")
    w.add_scalar("x", 1.0, 5)
    w.close()
    w.add_scalar("x", 2.0, 6)  # a closed writer opens a new file
    w.close()
    files = sorted(f for f in os.listdir(tmp_path) if f.startswith("events"))
    assert len(files) == 2 and all(f.endswith(".ferric") for f in files)
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto.event_pb2 import Event, SessionLog

    events = []
    for f in files:
        events += [Event.FromString(r) for r in RawEventFileLoader(str(tmp_path / f)).Load()]
    starts = [e for e in events if e.HasField("session_log")]
    assert len(starts) == 1 and starts[0].step == 5
    assert starts[0].session_log.status == SessionLog.START
    assert sorted(v.simple_value for e in events for v in e.summary.value) == [1.0, 2.0]


def test_flush_writes_without_closing(tmp_path):
    w = SummaryWriter(str(tmp_path), flush_secs=3600, max_queue=1000)
    try:
        w.add_scalar("loss", 0.25, 1)
        w.flush()
        runs = cases.read_logdir(str(tmp_path))
        assert runs["."]["scalar"]["loss"] == [{"step": 1, "value": 0.25}]
    finally:
        w.close()


def test_add_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = []
    for i in range(2):
        fig = plt.figure(figsize=(2, 1.5), dpi=50)
        plt.plot([0, i + 1])
        figs.append(fig)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_figure("one", figs[0], 0, close=False)
        w.add_figure("two", figs, 1)
    images = cases.read_logdir(str(tmp_path))["."]["image"]
    assert (images["one"][0]["height"], images["one"][0]["width"]) == (75, 100)
    assert (images["two"][0]["height"], images["two"][0]["width"]) == (75, 200)
    assert not plt.fignum_exists(figs[1].number)


def test_add_embedding(tmp_path):
    mat = ferric.arange(12.0).reshape(4, 3)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_embedding(mat, metadata=["a", "b", "c", "d"], label_img=ferric.rand(4, 3, 2, 2),
                        global_step=3, tag="feat/x")
    sub = tmp_path / "00003" / "feat%2fx"
    rows = (sub / "tensors.tsv").read_text().splitlines()
    assert [list(map(float, r.split("\t"))) for r in rows] == mat.tolist()
    assert (sub / "metadata.tsv").read_text() == "a\nb\nc\nd\n"
    assert (sub / "sprite.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "feat/x:00003"' in config
    assert 'tensor_path: "00003/feat%2fx/tensors.tsv"' in config


def test_graph_under_no_grad_and_of_a_custom_function(tmp_path):
    class Net(ferric.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = ferric.nn.Linear(2, 2)

        def forward(self, x):
            return Square.apply(self.fc(x)).mean()

    with ferric.no_grad(), SummaryWriter(str(tmp_path)) as w:
        w.add_graph(Net(), [ferric.randn(3, 2)])
        assert not ferric.is_grad_enabled()  # the grad mode is restored
    nodes = cases.read_logdir(str(tmp_path))["."]["graph"]
    assert [n["op"] for n in nodes if n["op"] not in ("IO Node", "prim::GetAttr")] == [
        "aten::linear", "prim::PythonOp", "aten::mean"]
    assert ferric.is_grad_enabled()


def test_graph_under_inference_mode(tmp_path):
    model = ferric.nn.Sequential(ferric.nn.Linear(2, 3), ferric.nn.Sigmoid())
    with ferric.inference_mode(), SummaryWriter(str(tmp_path)) as w:
        w.add_graph(model, ferric.randn(4, 2))
        assert ferric.is_inference_mode_enabled() and not ferric.is_grad_enabled()
    nodes = cases.read_logdir(str(tmp_path))["."]["graph"]
    assert [n["op"] for n in nodes if n["op"].startswith("aten::")] == [
        "aten::linear", "aten::sigmoid"]


def test_graph_rejects_bad_input(tmp_path):
    with SummaryWriter(str(tmp_path)) as w, pytest.raises(TypeError, match="input_to_model"):
        w.add_graph(ferric.nn.Linear(2, 2), {"x": ferric.randn(1, 2)})


def test_add_embedding_twice_at_one_step_warns_and_lists_both(tmp_path, capsys):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_embedding(ferric.ones(2, 2))
        w.add_embedding(ferric.zeros(2, 2))
        w.add_embedding(ferric.zeros(2, 2), tag="other")
    assert "Embedding dir exists" in capsys.readouterr().out
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert config.count("embeddings {") == 3
    assert (tmp_path / "00000" / "default" / "tensors.tsv").read_text() == "0.0\t0.0\n" * 2


def test_walltime_and_steps_are_stored(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("a", 1.0, global_step=np.int64(7), walltime=1234.5)
        w.add_scalar("a", 2.0)  # no step: stored as 0
    acc = EventAccumulator(str(tmp_path)).Reload()
    events = acc.Scalars("a")
    assert [(e.step, e.value) for e in events] == [(7, 1.0), (0, 2.0)]
    assert events[0].wall_time == 1234.5


def test_the_guide_runs(tmp_path, monkeypatch, capsys):
    # docs/tensorboard.md's Python examples, in order, in a scratch directory
    import re

    guide = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "tensorboard.md")
    with open(guide) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/tensorboard.md", "exec"), namespace)
    assert [p.name for p in (tmp_path / "runs").iterdir()]
    assert capsys.readouterr().out.startswith("[(0, ")


def test_custom_scalars_layout(ferric_runs):
    got = ferric_runs["."]["custom_scalars"]
    assert got == TORCH["runs"]["."]["custom_scalars"]
    layout = got["custom_scalars__config__"][0]["layout"]
    assert [c["title"] for c in layout["category"]] == ["loss", "other"]


def test_pr_curves_match_pytorch(ferric_runs):
    tensors = ferric_runs["."]["tensor"]
    for tag in ("pr/plain", "pr/few", "pr/raw"):
        (rec,) = tensors[tag]
        assert rec["plugin"] == "pr_curves"
        assert rec == TORCH["runs"]["."]["tensor"][tag][0]
    assert tensors["pr/few"][0]["shape"] == [6, 9]
