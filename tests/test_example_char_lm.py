"""examples/char_lm.py, the tutorial-style character-level language model, runs unchanged
on ferric and prints PyTorch's numbers.

The fixture holds what the same script printed on PyTorch 2.13 (its first line is the
command that recorded it). Losses agree to float32 rounding, not bit for bit: PyTorch's
CPU ``nn.LSTM`` runs through oneDNN, and its ``sigmoid``/``tanh``/``log_softmax``
kernels round differently from ferric's in the last bit (both within 2 ulp); matrix
products, ``linear`` and ``cross_entropy`` of equal inputs are bit-identical. Over the
60 steps the printed losses stay within 1e-6 of PyTorch's, and the sampled text (drawn
with ``topk`` + ``multinomial`` from the reloaded checkpoint) is the same.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
SCRIPT = os.path.join(ROOT, "examples", "char_lm.py")
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "char_lm",
                       "pytorch_steps60.txt")
ARGS = ["--steps", "60", "--log-every", "10"]

LOSS = re.compile(r"^(step +\d+ +train loss|validation loss|restored checkpoint: validation "
                  r"loss) ([0-9.]+)$")


def _parse(text):
    """``(losses, other_lines)``: the printed losses by label, and every other line but
    the timing (and the library name), which must match exactly."""
    losses, lines = {}, []
    for line in text.splitlines():
        if line.startswith("#") or line.startswith("trained "):
            continue
        m = LOSS.match(line)
        if m:
            losses[m.group(1)] = float(m.group(2))
        else:
            lines.append(line.replace("library: torch", "library: <lib>")
                         .replace("library: ferric", "library: <lib>"))
    return losses, lines


@pytest.fixture(scope="module")
def ferric_output():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, "python"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, SCRIPT, *ARGS], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", out.stderr  # no warnings either
    return out.stdout


def test_fixture_was_recorded_with_these_arguments():
    with open(FIXTURE) as f:
        first = f.readline()
    assert first.startswith("# recorded with: ")
    assert f"examples/char_lm.py --lib torch {' '.join(ARGS)} " in first


def test_prints_pytorchs_losses_and_sample(ferric_output):
    with open(FIXTURE) as f:
        want_losses, want_lines = _parse(f.read())
    got_losses, got_lines = _parse(ferric_output)
    assert "library: ferric, device: cpu" in ferric_output
    assert got_lines == want_lines  # sizes, parameter count, the sampled text
    assert list(got_losses) == list(want_losses)
    assert len(want_losses) == 9  # steps 1, 10, ..., 60 and the two validation losses
    for label, want in want_losses.items():
        assert got_losses[label] == pytest.approx(want, abs=2e-6), label
    # training did something: the loss fell well below its start
    assert got_losses["step   60  train loss"] < 0.8 * got_losses["step    1  train loss"]
    # the checkpoint round trip restores the same model
    assert got_losses["restored checkpoint: validation loss"] == \
        got_losses["validation loss"]
