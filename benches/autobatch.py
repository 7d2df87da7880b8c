"""Per-example code, eager vs ``ferric.autobatch`` vs hand-batched, ferric and PyTorch.

Two workloads, each timed as one training step (forward, backward, SGD step):

- ``tree_lstm``: the ``tree_lstm_batch`` workload of ``../shared/bench/workloads.py``
  (binary Tree-LSTM, d=64, 32 random trees of 5..40 leaves, Linear head and
  cross_entropy at each root), run as written (one tree at a time) in eager ferric, the
  same function inside ``with ferric.autobatch():``, and PyTorch eager.
- ``bilstm``: the BiLSTM tagger of ``examples/bilstm_tagger.py`` written per sentence
  (``LSTMCell`` forward and backward over each sentence, Linear + cross_entropy per
  word; hidden 64) on 32 sentences of 5..60 words, in eager ferric, under
  ``autobatch``, and hand-batched with packed sequences (``nn.LSTM(bidirectional=True)``
  over a ``PackedSequence``); the per-sentence and packed versions also in PyTorch.

Each library runs in its own processes (``--rounds`` of them, alternating libraries);
inside one, the variants take turns call by call, one thread. The table gives the
median time per step over all calls and the ratios of the medians. Usage:

    python benches/autobatch.py [--rounds 3] [--calls 7] [--torch-python /path/to/python]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "bench"


def tree_lstm(T):
    """The shared ``tree_lstm_batch`` step function for the library ``T`` (with the
    state size ``TREE_DIM`` when that is set: ``--tree-dim``)."""
    sys.path.insert(0, str(SHARED))
    import workloads

    if os.environ.get("TREE_DIM"):
        workloads.TREE_DIM = int(os.environ["TREE_DIM"])

    for name, _, _, setup in workloads.WORKLOADS:
        if name == "tree_lstm_batch":
            fn, _ = setup(T)
            return fn
    raise SystemExit("tree_lstm_batch not found in ../shared/bench/workloads.py")


def tagger(T, packed):
    """One training step of ``examples/bilstm_tagger.py``'s model (per-sentence or
    packed) on 32 sentences of 5..60 words, for the library ``T``."""
    sys.path.insert(0, str(ROOT / "examples"))
    # the example does `import ferric as torch`; in the PyTorch process that is PyTorch
    sys.modules.setdefault("ferric", T)
    import bilstm_tagger as ex

    T.manual_seed(0)
    model = (ex.PackedTagger if packed else ex.Tagger)(20, 16, 64, 5)
    opt = T.optim.SGD(model.parameters(), lr=0.05)
    words, labels = ex.make_data(random.Random(5), 32, 20, 5)

    def step():
        loss = model.loss(words, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def variants(T, lib):
    out = {"tree_lstm/eager": tree_lstm(T),
           "bilstm/per_sentence": tagger(T, packed=False),
           "bilstm/packed": tagger(T, packed=True)}
    if lib == "ferric":
        tree = tree_lstm(T)
        tag = tagger(T, packed=False)

        def tree_ab():
            with T.autobatch():
                return tree()

        def tag_ab():
            with T.autobatch():
                return tag()

        out["tree_lstm/autobatch"] = tree_ab
        out["bilstm/autobatch"] = tag_ab
    return out


def run_lib(lib, calls):
    """Times every variant of ``lib`` ``calls`` times, one call of each in turn (so a
    slow spell of a noisy machine hits all of them); JSON of the times to stdout."""
    if lib == "torch":
        import torch as T
    else:
        import ferric as T
    T.set_num_threads(1)
    vs = variants(T, lib)
    for fn in vs.values():     # warm-up
        fn()
        fn()
    res = {k: [] for k in vs}
    for _ in range(calls):
        for k, fn in vs.items():
            res[k].append(timed(fn))
    print(json.dumps(res))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3,
                   help="processes per library, alternating libraries (default: 3)")
    p.add_argument("--calls", type=int, default=7,
                   help="timed calls of each variant per process (default: 7)")
    p.add_argument("--torch-python", default=None,
                   help="a Python with PyTorch installed (default: skip PyTorch)")
    p.add_argument("--tree-dim", type=int, default=None,
                   help="the Tree-LSTM's state size (default: the workload's, 64)")
    p.add_argument("--lib", default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.lib:
        run_lib(a.lib, a.calls)
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", FERRIC_NUM_THREADS="1")
    if a.tree_dim:
        env["TREE_DIM"] = str(a.tree_dim)
    res: dict[str, list[float]] = {}
    libs = [("ferric", sys.executable)]
    if a.torch_python:
        libs.append(("torch", a.torch_python))
    for _ in range(a.rounds):   # alternate the libraries, one round each per pass
        for lib, py in libs:
            out = subprocess.run([py, __file__, "--lib", lib, "--calls", str(a.calls)], env=env,
                                 check=True, capture_output=True, text=True).stdout
            for k, v in json.loads(out).items():
                res.setdefault(f"{lib}:{k}", []).extend(v)
    med = {k: statistics.median(v) for k, v in res.items()}
    print(f"{'variant':34s} {'median ms':>10s}")
    for k, v in sorted(med.items()):
        print(f"{k:34s} {v * 1e3:10.2f}")

    def ratio(a, b):
        if a in med and b in med:
            print(f"{a} / {b}: {med[a] / med[b]:.3f}")

    ratio("ferric:tree_lstm/autobatch", "ferric:tree_lstm/eager")
    ratio("ferric:tree_lstm/autobatch", "torch:tree_lstm/eager")
    ratio("ferric:bilstm/autobatch", "ferric:bilstm/packed")
    ratio("ferric:bilstm/autobatch", "ferric:bilstm/per_sentence")
    ratio("ferric:bilstm/autobatch", "torch:bilstm/per_sentence")
    ratio("ferric:bilstm/autobatch", "torch:bilstm/packed")


if __name__ == "__main__":
    main()
