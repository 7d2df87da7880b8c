"""A network whose depth is drawn at random on every forward pass.

Define-by-run autograd records whatever the Python code actually executed, so ordinary
control flow (a ``for`` loop whose length is a fresh random number each call) needs no
special graph construct. The hidden layer is *shared*: using it three times in one pass
means its weights receive three gradient contributions, summed by the engine.

The model learns a cubic polynomial on [-2, 2]. Run ``python examples/dynamic_net.py
--help`` for the options; the defaults need no arguments and finish in a few seconds.

The script uses only PyTorch API: change the ``import ferric as torch`` line to
``import torch`` and it runs unchanged on PyTorch.
"""

import argparse
import math
import random

import ferric as torch

nn = torch.nn


def target(x):
    """The polynomial to learn."""
    return 0.5 * x ** 3 - x ** 2 - 0.5 * x + 1.0


class DynamicNet(nn.Module):
    """input layer -> the shared hidden layer, repeated 0..max_depth times -> output."""

    def __init__(self, hidden, max_depth, rng):
        super().__init__()
        self.input = nn.Linear(1, hidden)
        self.middle = nn.Linear(hidden, hidden)
        self.output = nn.Linear(hidden, 1)
        self.max_depth = max_depth
        self.rng = rng

    def forward(self, x, depth=None):
        if depth is None:
            depth = self.rng.randint(0, self.max_depth)
        h = torch.tanh(self.input(x))
        for _ in range(depth):
            # a residual update keeps every depth close to the same function, so the
            # one set of weights can serve all of them
            h = h + torch.tanh(self.middle(h))
        return self.output(h)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=600, help="optimizer steps (default: 600)")
    p.add_argument("--batch-size", type=int, default=128, help="points per step (default: 128)")
    p.add_argument("--hidden", type=int, default=32, help="hidden width (default: 32)")
    p.add_argument("--max-depth", type=int, default=3,
                   help="the hidden layer is applied 0..max-depth times (default: 3)")
    p.add_argument("--lr", type=float, default=0.01, help="Adam learning rate (default: 0.01)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--log-every", type=int, default=100,
                   help="print the running loss every N steps; 0 = quiet (default: 100)")
    return p.parse_args(argv)


def main(argv=None):
    """Trains the model; returns a dict with the first and final losses and the final
    loss for each depth."""
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    model = DynamicNet(args.hidden, args.max_depth, rng)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.MSELoss()

    # a fixed evaluation grid, to measure every depth on the same points
    x_eval = torch.linspace(-2, 2, 200).unsqueeze(1)
    y_eval = target(x_eval)

    def eval_losses():
        with torch.no_grad():
            return [loss_fn(model(x_eval, depth=d), y_eval).item()
                    for d in range(args.max_depth + 1)]

    first = sum(eval_losses()) / (args.max_depth + 1)
    running, depths_seen = 0.0, set()
    for step in range(1, args.steps + 1):
        x = torch.rand(args.batch_size, 1) * 4 - 2
        depth = rng.randint(0, args.max_depth)
        depths_seen.add(depth)
        loss = loss_fn(model(x, depth=depth), target(x))
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
        if args.log_every and step % args.log_every == 0:
            print(f"step {step:5d}  loss {running / args.log_every:.5f}")
            running = 0.0
    per_depth = eval_losses()
    final = sum(per_depth) / len(per_depth)
    if args.log_every:
        print(f"mean eval loss: {first:.4f} before training, {final:.5f} after")
        print("eval loss by depth: " + ", ".join(
            f"{d}: {v:.5f}" for d, v in enumerate(per_depth)))
    assert math.isfinite(final)
    return {"first_loss": first, "final_loss": final, "per_depth": per_depth,
            "depths_seen": sorted(depths_seen)}


if __name__ == "__main__":
    main()
