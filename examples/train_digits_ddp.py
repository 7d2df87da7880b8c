"""The digits trainer (``train_digits.py``) data-parallel over MPI processes.

Every process holds a replica of the model and trains on its own share of each epoch
(``DistributedSampler``); ``DistributedDataParallel`` averages the gradients during
``backward()``, and the BatchNorm layers become ``SyncBatchNorm``, so N processes with
``--batch-size B`` (B/N each) train as one process with batch B would. Only rank 0
prints and writes the checkpoint.

    python -m ferric.distributed.run --nproc-per-node 2 examples/train_digits_ddp.py
    mpiexec -n 2 python examples/train_digits_ddp.py          # the same, by hand

(as root in a container add ``--allow-run-as-root`` to the first, or set
``OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`` for the second; on a
machine with fewer cores than processes Open MPI needs ``--oversubscribe``.)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from train_digits import DigitsCNN, load_digits_tensors  # noqa: E402

import ferric as torch  # noqa: E402
import ferric.distributed as dist  # noqa: E402
import ferric.nn.functional as F  # noqa: E402
from ferric import nn  # noqa: E402
from ferric.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from ferric.utils.data import DataLoader, Subset, TensorDataset  # noqa: E402
from ferric.utils.data.distributed import DistributedSampler  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Train the digits CNN data-parallel on MPI processes.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--epochs", type=int, default=12, help="passes over the training set")
    p.add_argument("--batch-size", type=int, default=32,
                   help="global mini-batch size (split evenly over the processes)")
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (Adam, OneCycle)")
    p.add_argument("--seed", type=int, default=0, help="seed for the split, init and shuffling")
    p.add_argument("--out-dir", default="runs/digits_ddp", help="where rank 0 saves the model")
    p.add_argument("--threads", type=int, default=None,
                   help="ferric kernel threads per process (default: FERRIC_NUM_THREADS)")
    p.add_argument("--test-fraction", type=float, default=0.2,
                   help="share of the 1797 images held out for testing")
    p.add_argument("--no-sync-bn", action="store_true",
                   help="keep per-process BatchNorm statistics (no SyncBatchNorm)")
    return p.parse_args(argv)


def evaluate(model, dataset, rank, world):
    """Loss and accuracy over ``dataset``: each rank takes every world-th sample, the
    sums are all-reduced so every rank gets the totals."""
    model.eval()
    mine = Subset(dataset, list(range(rank, len(dataset), world)))
    totals = torch.zeros(3, dtype=torch.float64)  # loss sum, correct, count
    with torch.no_grad():
        for xb, yb in DataLoader(mine, batch_size=256):
            logits = model(xb)
            totals += torch.tensor([F.cross_entropy(logits, yb, reduction="sum").item(),
                                    (logits.argmax(dim=1) == yb).sum().item(), len(yb)],
                                   dtype=torch.float64)
    dist.all_reduce(totals)
    loss, correct, count = totals.tolist()
    return loss / count, correct / count


def main(argv=None):
    args = parse_args(argv)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        raise SystemExit(f"--batch-size {args.batch_size} must divide by the {world} processes")
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    (x_train, y_train), (x_test, y_test) = load_digits_tensors(args.test_fraction, args.seed)
    train_set = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(train_set, seed=args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size // world, sampler=sampler)

    model: nn.Module = DigitsCNN()
    if not args.no_sync_bn:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model)  # copies rank 0's initial weights to every rank
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader))

    if rank == 0:
        print(f"ferric {torch.__version__}: {world} processes x {torch.get_num_threads()} "
              f"thread(s), global batch {args.batch_size}, {len(x_train)} training / "
              f"{len(x_test)} test images")
    history: dict[str, list[float]] = {"train_loss": [], "test_loss": [], "test_acc": []}
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        sampler.set_epoch(epoch)  # a new order each epoch, the same on every rank
        running = torch.zeros(2, dtype=torch.float64)
        for xb, yb in train_loader:
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()  # gradients averaged over the processes here
            optimizer.step()
            scheduler.step()
            running += torch.tensor([loss.item() * len(yb), len(yb)], dtype=torch.float64)
        dist.all_reduce(running)
        test_loss, test_acc = evaluate(model, TensorDataset(x_test, y_test), rank, world)
        history["train_loss"].append(running[0].item() / running[1].item())
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        if rank == 0:
            print(f"epoch {epoch:2d}: train loss {history['train_loss'][-1]:.4f} | "
                  f"test loss {test_loss:.4f} acc {100 * test_acc:.2f}%", flush=True)
    elapsed = time.perf_counter() - start

    if rank == 0:  # one writer: the replicas are identical
        os.makedirs(args.out_dir, exist_ok=True)
        path = os.path.join(args.out_dir, "digits_cnn.safetensors")
        torch.save(model.module.state_dict(), path)  # .module: keys without "module."
        print(f"test accuracy: {100 * history['test_acc'][-1]:.2f}% ({elapsed:.1f} s of "
              f"training on {world} processes); saved {path}")
    dist.barrier()  # nobody leaves before the checkpoint is written
    dist.destroy_process_group()
    return history


if __name__ == "__main__":
    main()
