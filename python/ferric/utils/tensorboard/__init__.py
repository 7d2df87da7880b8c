"""TensorBoard logging (``torch.utils.tensorboard``): :class:`SummaryWriter` writes
scalars, histograms, images, figures, text, hyperparameters, model graphs and
embeddings to standard event files that ``tensorboard --logdir runs`` shows.

Needs the ``tensorboard`` package (``pip install "ferric[tensorboard]"``); importing this
module without it raises ``ImportError``, as in PyTorch. Images are PNG-encoded without
an imaging library; :meth:`SummaryWriter.add_figure` needs matplotlib.
"""

try:
    import tensorboard
except ImportError as e:  # the optional dependency is missing
    raise ImportError(
        "TensorBoard logging requires the 'tensorboard' package: pip install tensorboard "
        "(or pip install \"ferric[tensorboard]\")") from e


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


if _version_tuple(getattr(tensorboard, "__version__", "0")) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
