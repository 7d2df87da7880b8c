"""examples/train_digits_ddp.py on 2 MPI processes: one epoch learns, rank 0 alone
writes a checkpoint that loads into the plain model (keys without ``module.``)."""

from __future__ import annotations

import os
import sys

import pytest
from mpi_harness import needs_mpi, run

import ferric

pytest.importorskip("sklearn")

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples")
SCRIPT = os.path.join(EXAMPLES, "train_digits_ddp.py")


@needs_mpi
def test_one_epoch_on_two_processes(tmp_path):
    proc = run([SCRIPT, "--epochs", "1", "--out-dir", str(tmp_path)], timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert sum(line.startswith("epoch  1:") for line in lines) == 1  # rank 0 logs alone
    acc = float(lines[-1].split("test accuracy: ")[1].split("%")[0])
    assert acc > 80.0, proc.stdout
    state = ferric.load(str(tmp_path / "digits_cnn.safetensors"))
    sys.path.insert(0, EXAMPLES)
    try:
        from train_digits import DigitsCNN
    finally:
        sys.path.pop(0)
    model = DigitsCNN()
    model.load_state_dict(state)
    assert not any(k.startswith("module.") for k in state)
