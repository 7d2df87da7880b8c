"""Train a small CNN on scikit-learn's bundled 8x8 handwritten digits with ferric.

The script is written against the PyTorch API (``import ferric as torch``): the model,
the data pipeline, the optimizer and the scheduler are the ones a PyTorch user would
write. The dataset ships with scikit-learn, so nothing is downloaded.

Outputs (in ``--out-dir``): the trained weights as ``digits_cnn.safetensors`` (loadable
with ``ferric.load`` or ``safetensors.torch.load_file``) and ``digits_training.png``
with the loss and accuracy curves. ``--export-onnx PATH`` also writes the trained model
as ONNX (``torch.onnx.export``, with a dynamic batch axis; needs the ``onnx`` package)
and, when onnxruntime is installed, checks that it classifies the test set as ferric does.

    python examples/train_digits.py            # defaults: 12 epochs, about 10-20 s
    python examples/train_digits.py --export-onnx runs/digits/digits_cnn.onnx
    python examples/train_digits.py --help
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import ferric as torch
import ferric.nn.functional as F
from ferric import nn
from ferric.utils.data import DataLoader, TensorDataset


class DigitsCNN(nn.Module):
    """Two 3x3 convolutions and a max-pool over the 8x8 image, then a small MLP head."""

    def __init__(self, channels: int = 32, hidden: int = 128, dropout: float = 0.25):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels // 2, kernel_size=3, padding=1),
            nn.BatchNorm2d(channels // 2),
            nn.ReLU(),
            nn.Conv2d(channels // 2, channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
            nn.MaxPool2d(2),  # 8x8 -> 4x4
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(channels * 4 * 4, hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, 10),
        )

    def forward(self, x):
        return self.head(self.features(x))


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Train a small CNN on scikit-learn's 8x8 digits with ferric.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--epochs", type=int, default=12, help="passes over the training set")
    p.add_argument("--batch-size", type=int, default=32, help="training mini-batch size")
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (Adam, OneCycle)")
    p.add_argument("--seed", type=int, default=0, help="seed for the split, init and shuffling")
    p.add_argument("--out-dir", default="runs/digits", help="where the model and plot go")
    p.add_argument("--threads", type=int, default=None,
                   help="ferric kernel threads (default: FERRIC_NUM_THREADS or all cores)")
    p.add_argument("--test-fraction", type=float, default=0.2,
                   help="share of the 1797 images held out for testing")
    p.add_argument("--no-progress", action="store_true",
                   help="hide the tqdm progress bars (they are shown only when stderr is a "
                        "terminal, so logs and pipes get one line per epoch)")
    p.add_argument("--export-onnx", metavar="PATH", default=None,
                   help="also export the trained model to this ONNX file")
    return p.parse_args(argv)


def load_digits_tensors(test_fraction: float, seed: int):
    """The digits as (N, 1, 8, 8) float32 in [0, 1] and int64 labels, split by class so
    both parts have every digit in proportion."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    test_idx: list[int] = []
    for c in range(10):
        idx = np.flatnonzero(y == c)
        rng.shuffle(idx)
        test_idx.extend(idx[: round(len(idx) * test_fraction)])
    test_mask = np.zeros(len(y), dtype=bool)
    test_mask[test_idx] = True
    train = (torch.from_numpy(x[~test_mask]), torch.from_numpy(y[~test_mask]))
    test = (torch.from_numpy(x[test_mask]), torch.from_numpy(y[test_mask]))
    return train, test


def evaluate(model, loader):
    """Mean loss and accuracy over a loader, without building a graph."""
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            total_loss += F.cross_entropy(logits, yb, reduction="sum").item()
            correct += (logits.argmax(dim=1) == yb).sum().item()
            count += len(yb)
    return total_loss / count, correct / count


def save_plot(history, path):
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    epochs = range(1, len(history["train_loss"]) + 1)
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, history["train_loss"], label="train")
    ax_loss.plot(epochs, history["test_loss"], label="test")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    ax_loss.legend()
    ax_acc.plot(epochs, [100 * a for a in history["train_acc"]], label="train")
    ax_acc.plot(epochs, [100 * a for a in history["test_acc"]], label="test")
    ax_acc.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy")
    ax_acc.legend()
    fig.suptitle("ferric: small CNN on scikit-learn digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    args = parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    (x_train, y_train), (x_test, y_test) = load_digits_tensors(args.test_fraction, args.seed)
    g = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size,
                              shuffle=True, generator=g)
    train_eval_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=256)
    test_loader = DataLoader(TensorDataset(x_test, y_test), batch_size=256)

    model = DigitsCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader))

    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is a nicety, not a requirement
        tqdm = None
    # a progress bar redraws itself per batch: in a log file or a pipe that is one line
    # per batch, so it is drawn only on an interactive terminal
    show_progress = tqdm is not None and not args.no_progress and sys.stderr.isatty()

    print(f"ferric {torch.__version__}: {len(x_train)} training / {len(x_test)} test "
          f"images, {sum(p.numel() for p in model.parameters())} parameters, "
          f"{torch.get_num_threads()} thread(s)")
    history = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        batches = train_loader
        if show_progress:
            # disable=None is tqdm's own "only on a terminal" switch; the isatty test above
            # keeps the per-batch bar out of logs even with another tqdm default
            batches = tqdm(train_loader, desc=f"epoch {epoch:2d}/{args.epochs}", leave=False,
                           disable=None)
        for xb, yb in batches:
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            if batches is not train_loader:
                batches.set_postfix(loss=f"{loss.item():.4f}")
        train_loss, train_acc = evaluate(model, train_eval_loader)
        test_loss, test_acc = evaluate(model, test_loader)
        for key, value in zip(history, (train_loss, train_acc, test_loss, test_acc), strict=True):
            history[key].append(value)
        print(f"epoch {epoch:2d}: train loss {train_loss:.4f} acc {100 * train_acc:.2f}% | "
              f"test loss {test_loss:.4f} acc {100 * test_acc:.2f}%")
    elapsed = time.perf_counter() - start

    os.makedirs(args.out_dir, exist_ok=True)
    model_path = os.path.join(args.out_dir, "digits_cnn.safetensors")
    torch.save(model.state_dict(), model_path)
    plot_path = os.path.join(args.out_dir, "digits_training.png")
    save_plot(history, plot_path)
    print(f"test accuracy: {100 * history['test_acc'][-1]:.2f}% "
          f"({elapsed:.1f} s of training)")
    print(f"saved {model_path} and {plot_path}")
    if args.export_onnx:
        export_onnx(model, x_test, args.export_onnx)
    return history


def export_onnx(model, x_test, path):
    """Writes ``model`` to ONNX with a dynamic batch axis; if onnxruntime is installed,
    runs the test set through it and compares the predictions with ferric's."""
    model.eval()
    torch.onnx.export(model, (x_test[:1],), path, input_names=["image"],
                      output_names=["logits"], external_data=False,
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    print(f"exported {path}")
    try:
        import onnxruntime
    except ImportError:
        return
    sess = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    (logits,) = sess.run(None, {"image": x_test.numpy()})
    with torch.no_grad():
        ours = model(x_test).numpy()
    same = float((logits.argmax(1) == ours.argmax(1)).mean())
    print(f"onnxruntime: {100 * same:.2f}% of test predictions equal ferric's "
          f"(max |logit difference| {float(np.abs(logits - ours).max()):.2e})")


if __name__ == "__main__":
    main()
