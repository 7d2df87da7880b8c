"""Ragged batch as a nested tensor vs the padded-and-masked equivalent.

Workload (forward + backward): ``Linear(D, D) -> GELU -> self-attention (per item /
masked) -> mean-pool over each sequence -> sum``, on ``B`` sequences whose lengths are
drawn from a skewed distribution (lognormal, median 60, clipped to 5..500), as real
text or event batches are. The padded version runs on ``(B, max_len, D)`` with a key
mask for attention and a masked mean; the nested version runs on the packed
``(sum of lengths, D)`` buffer and attends per item.

Each variant runs in its own process so its peak RSS is its own. Reported: median
wall and CPU time per step (CPU time is the steadier figure on a shared machine), the
peak RSS growth over the process state once the inputs exist, and the element
counts of the per-token activations and of the attention scores. The script also checks
that both variants give the same pooled output and weight gradient.

Usage:  python benches/nested_vs_padded.py [--batch 32] [--dim 64] [--repeat 7]
                                           [--threads 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def lengths_for(batch, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    raw = rng.lognormal(mean=np.log(60.0), sigma=0.9, size=batch)
    return [int(n) for n in np.clip(np.round(raw), 5, 500)]


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def setup(args):
    import numpy as np

    import ferric

    lengths = lengths_for(args.batch, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    items = [rng.standard_normal((n, args.dim)).astype(np.float32) for n in lengths]
    w = ferric.tensor(rng.standard_normal((args.dim, args.dim)).astype(np.float32) * 0.1,
                      requires_grad=True)
    b = ferric.zeros(args.dim, requires_grad=True)
    return lengths, items, w, b


def step_nested(items, w, b):
    import ferric
    import ferric.nn.functional as F

    x = ferric.nested.nested_tensor([ferric.from_numpy(a) for a in items])
    h = F.gelu(F.linear(x, w, b))
    a = F.scaled_dot_product_attention(h, h, h)
    pooled = a.mean(dim=1)
    pooled.sum().backward()
    return pooled


def step_padded(items, w, b):
    import numpy as np

    import ferric
    import ferric.nn.functional as F

    lengths = [len(a) for a in items]
    width = max(lengths)
    buf = np.zeros((len(items), width, items[0].shape[1]), dtype=np.float32)
    for i, a in enumerate(items):
        buf[i, :len(a)] = a
    x = ferric.from_numpy(buf)
    n = ferric.tensor(lengths)
    mask = ferric.arange(width).unsqueeze(0) < n.unsqueeze(1)          # (B, L) valid
    h = F.gelu(F.linear(x, w, b))
    a = F.scaled_dot_product_attention(h, h, h, attn_mask=mask.unsqueeze(1))
    pooled = (a * mask.unsqueeze(-1)).sum(1) / n.unsqueeze(1)
    pooled.sum().backward()
    return pooled


def run_variant(args):
    import ferric

    ferric.set_num_threads(args.threads)
    lengths, items, w, b = setup(args)
    step = step_nested if args.variant == "nested" else step_padded
    base = rss_bytes()                    # after the inputs exist, before any step
    pooled = step(items, w, b)            # warm-up (and the result for the check)
    grad = w.grad.detach().numpy().copy()
    walls, cpus = [], []
    for _ in range(args.repeat):
        w.grad = b.grad = None
        t0, c0 = time.perf_counter(), time.process_time()
        step(items, w, b)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({
        "wall_ms": statistics.median(walls) * 1e3, "cpu_ms": statistics.median(cpus) * 1e3,
        "peak_growth_mb": max(peak - base, 0) / 2**20,
        "pooled": pooled.detach().numpy().tolist(), "grad": grad.tolist(),
    }))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variant", choices=["nested", "padded"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.variant:
        run_variant(args)
        return
    import numpy as np

    lengths = lengths_for(args.batch, args.seed)
    total, width = sum(lengths), max(lengths)
    print(f"B={args.batch} D={args.dim} threads={args.threads}: lengths min "
          f"{min(lengths)}, median {int(np.median(lengths))}, max {width}, total {total} "
          f"tokens (padding fills {1 - total / (args.batch * width):.0%} of the padded batch)")
    results = {}
    for variant in ("nested", "padded"):
        cmd = [sys.executable, __file__, "--variant", variant] + [
            f"--{k}={getattr(args, k)}" for k in ("batch", "dim", "repeat", "threads", "seed")]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results[variant] = json.loads(out.strip().splitlines()[-1])
    nst, pad = results["nested"], results["padded"]
    np.testing.assert_allclose(nst["pooled"], pad["pooled"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nst["grad"], pad["grad"], rtol=1e-3, atol=1e-4)
    counts = {
        "nested": (total * args.dim, sum(n * n for n in lengths)),
        "padded": (args.batch * width * args.dim, args.batch * width * width),
    }
    print(f"{'variant':8s} {'wall ms':>9s} {'cpu ms':>9s} {'peak RSS +MB':>13s} "
          f"{'token elems':>12s} {'score elems':>12s}")
    for v in ("nested", "padded"):
        r = results[v]
        tok, sc = counts[v]
        print(f"{v:8s} {r['wall_ms']:9.1f} {r['cpu_ms']:9.1f} {r['peak_growth_mb']:13.1f} "
              f"{tok:12d} {sc:12d}")
    print(f"padded / nested: {pad['cpu_ms'] / nst['cpu_ms']:.2f}x CPU time, "
          f"{counts['padded'][1] / counts['nested'][1]:.1f}x attention scores, "
          f"{counts['padded'][0] / counts['nested'][0]:.2f}x token activations; "
          "outputs and gradients match")


if __name__ == "__main__":
    main()
