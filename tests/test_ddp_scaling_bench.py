"""benches/ddp_scaling.py runs end to end on a tiny model (1 and 2 processes) and
reports every figure it promises."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from mpi_harness import environment, needs_mpi

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "benches",
                     "ddp_scaling.py")


@needs_mpi
def test_tiny_run_reports_throughput_and_overlap(tmp_path):
    out = tmp_path / "rows.json"
    proc = subprocess.run(
        [sys.executable, BENCH, "--procs", "1,2", "--oversubscribe", "--rounds", "1",
         "--steps", "2", "--warmup", "1", "--batch", "8", "--hidden", "16",
         "--width-in", "8", "--json", str(out)],
        capture_output=True, text=True, timeout=300, env=environment())
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {(r["lib"], r["procs"]): r for r in json.loads(out.read_text())}
    assert set(rows) == {("ferric", 1), ("ferric", 2)}
    assert rows[("ferric", 1)]["speedup"] == 1.0
    two = rows[("ferric", 2)]
    for key in ("step_s", "compute_s", "allreduce_s", "samples_per_s", "speedup"):
        assert two[key] > 0, key
    assert 0.0 <= two["hidden_share"] <= 1.0
    assert "samples/s" in proc.stdout
