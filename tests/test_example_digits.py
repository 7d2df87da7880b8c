"""The README's main job: examples/train_digits.py reaches its accuracy bar with its
defaults, writes a loadable .safetensors model and a PNG plot, and documents its options."""

import importlib.util
import os
import subprocess
import sys

import pytest

import ferric

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")

SCRIPT = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "train_digits.py")


def _load_example():
    spec = importlib.util.spec_from_file_location("train_digits", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_defaults_reach_97_percent_and_save_outputs(tmp_path):
    before = ferric.get_num_threads()
    mod = _load_example()
    try:
        history = mod.main(["--no-progress", "--out-dir", str(tmp_path)])
    finally:
        ferric.set_num_threads(before)
    assert history["test_acc"][-1] >= 0.97
    assert history["train_loss"][-1] < history["train_loss"][0]

    weights = tmp_path / "digits_cnn.safetensors"
    plot = tmp_path / "digits_training.png"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the file is plain safetensors and loads back into a fresh model with equal outputs
    state = ferric.load(str(weights))
    model = mod.DigitsCNN()
    model.load_state_dict(state)
    assert set(state) == set(model.state_dict())
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    raw = safetensors_numpy.load_file(str(weights))
    assert raw["head.4.weight"].shape == (10, 128)


def test_help_lists_the_options():
    out = subprocess.run([sys.executable, SCRIPT, "--help"], capture_output=True, text=True,
                         check=True).stdout
    for option in ("--epochs", "--batch-size", "--lr", "--seed", "--out-dir", "--threads",
                   "--export-onnx"):
        assert option in out


def test_output_is_compact_when_not_a_terminal(tmp_path):
    # stdout and stderr are pipes here, as in a log: no per-batch progress bar lines,
    # just the header, one line per epoch and the summary
    pytest.importorskip("tqdm")
    run = subprocess.run([sys.executable, SCRIPT, "--epochs", "2", "--out-dir", str(tmp_path)],
                         capture_output=True, text=True, check=True)
    assert "\r" not in run.stderr and "it/s" not in run.stderr, run.stderr[-500:]
    lines = run.stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines if ln.startswith("epoch")] == ["epoch  1",
                                                                            "epoch  2"]
    assert len(lines) == 5, lines


def test_export_onnx_option(tmp_path, capsys):
    onnx = pytest.importorskip("onnx", reason="--export-onnx needs the onnx package")
    ort = pytest.importorskip("onnxruntime", reason="the exported model runs in onnxruntime")
    before = ferric.get_num_threads()
    mod = _load_example()
    path = tmp_path / "digits.onnx"
    try:
        mod.main(["--no-progress", "--epochs", "1", "--out-dir", str(tmp_path),
                  "--export-onnx", str(path)])
    finally:
        ferric.set_num_threads(before)
    out = capsys.readouterr().out
    assert f"exported {path}" in out
    assert "onnxruntime: 100.00% of test predictions equal ferric's" in out
    onnx.checker.check_model(str(path), full_check=True)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (image,) = sess.get_inputs()
    assert image.name == "image" and image.shape == ["batch", 1, 8, 8]
    assert sess.run(None, {"image": ferric.zeros(5, 1, 8, 8).numpy()})[0].shape == (5, 10)
