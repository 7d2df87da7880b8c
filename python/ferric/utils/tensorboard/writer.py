"""``SummaryWriter``: PyTorch's TensorBoard logger, writing standard event files through
the ``tensorboard`` package's protocol buffers and its asynchronous event-file writer."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog, TaggedRunMetadata
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _graph, summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes ``Event`` protocol buffers to a new event file in ``log_dir``.

    The file is named ``events.out.tfevents.<time>.<host>.<pid>.<n><filename_suffix>``;
    events are queued and written by a background thread at most ``flush_secs`` seconds
    later, or when ``max_queue`` are pending, or on :meth:`flush`.

    Args:
        log_dir (str or os.PathLike): directory of the event file (created if missing).
        max_queue (int): pending events that force a write. Default: 10.
        flush_secs (float): seconds between background writes. Default: 120.
        filename_suffix (str): appended to the event file's name. Default: ``""``.

    Example:
        >>> import tempfile
        >>> from ferric.utils.tensorboard import FileWriter
        >>> fw = FileWriter(tempfile.mkdtemp())
        >>> fw.add_summary(summary.scalar("loss", 0.5), global_step=1)
        >>> fw.close()
    """

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None) -> None:
        """Queues ``event``, stamped with ``walltime`` (default: now) and ``step``."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        """Queues a ``Summary`` wrapped in an ``Event``."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None) -> None:
        """Queues a ``(GraphDef, RunMetadata)`` pair as TensorBoard's graph events."""
        graph, stepstats = graph_profile
        self.add_event(Event(graph_def=graph.SerializeToString()), None, walltime)
        trm = TaggedRunMetadata(tag="step1", run_metadata=stepstats.SerializeToString())
        self.add_event(Event(tagged_run_metadata=trm), None, walltime)

    def flush(self) -> None:
        """Writes every queued event to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file."""
        self.event_writer.close()


def _default_log_dir(comment: str) -> str:
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", stamp + "_" + socket.gethostname() + comment)


def _embedding_dir_name(tag: str) -> str:
    # the projector reads sub-directory names literally: escape '%' and '/'
    return tag.replace("%", "%25").replace("/", "%2f")


class SummaryWriter:
    """Writes entries directly to event files in ``log_dir`` to be consumed by TensorBoard.

    The API is ``torch.utils.tensorboard.SummaryWriter``'s; the events are queued and
    written asynchronously, so logging does not slow the training loop down. Requires
    the ``tensorboard`` package (``pip install ferric[tensorboard]``).

    Args:
        log_dir (str or os.PathLike, optional): directory for the event files. Default:
            ``runs/<Mon><DD>_<HH>-<MM>-<SS>_<hostname><comment>``, new for every run.
        comment (str): suffix of the default ``log_dir``; ignored when ``log_dir`` is
            given. Default: ``""``.
        purge_step (int, optional): after a crash at step ``T + X`` and a restart at step
            ``T``, events with a step of ``T`` or more in the earlier files of the same
            ``log_dir`` are hidden by TensorBoard.
        max_queue (int): pending events that force a write to disk. Default: 10.
        flush_secs (float): seconds between writes of pending events. Default: 120.
        filename_suffix (str): suffix of the event files' names. Default: ``""``.

    Example:
        >>> import tempfile
        >>> import ferric
        >>> from ferric.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
        ...     for step in range(3):
        ...         writer.add_scalar("loss", 1.0 / (step + 1), step)
        ...     writer.add_histogram("weights", ferric.randn(100), 0)
        ...     writer.add_text("notes", "first run", 0)
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            log_dir = _default_log_dir(comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = summary.default_bins()

    def _get_file_writer(self) -> FileWriter:
        """The writer of ``log_dir``'s event file; a closed writer is reopened (with a
        new file) by the next ``add_*`` call."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(
                    Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(
                    step=self.purge_step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """Returns the directory where event files are written."""
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None,
                   new_style=False, double_precision=False) -> None:
        """Adds a scalar to the summary.

        Args:
            tag (str): data identifier (the chart's name).
            scalar_value (float, int, 0-d or one-element Tensor or ndarray): value to log.
            global_step (int, optional): step of the value.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
            new_style (bool): write a tensor for the scalars plugin instead of
                ``simple_value`` (faster to load). Default: ``False``.
            double_precision (bool): with ``new_style``, keep float64. Default: ``False``.

        Example:
            >>> import tempfile
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> for i in range(10):
            ...     writer.add_scalar("y=2x", i * 2, i)
            >>> writer.close()
        """
        self._get_file_writer().add_summary(
            summary.scalar(tag, scalar_value, new_style=new_style,
                           double_precision=double_precision), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """Adds several scalars to one chart: each ``tag`` is written by its own writer to
        ``<log_dir>/<main_tag>_<tag>`` (``/`` in ``main_tag`` becomes ``_``), under the
        tag ``main_tag``.

        Args:
            main_tag (str): the chart's name.
            tag_scalar_dict (dict): series name -> value.
            global_step (int, optional): step of the values.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.

        Example:
            >>> import math, tempfile
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> for i in range(5):
            ...     writer.add_scalars("run", {"sin": math.sin(i), "cos": math.cos(i)}, i)
            >>> writer.close()
        """
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(path)
            if writer is None:
                writer = FileWriter(path, self.max_queue, self.flush_secs,
                                    self.filename_suffix)
                self.all_writers[path] = writer
            writer.add_summary(summary.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None) -> None:
        """Adds a whole tensor (values and shape) for TensorBoard's tensor plugin.

        Args:
            tag (str): data identifier.
            tensor (Tensor or ndarray): the values.
            global_step (int, optional): step of the values.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
        """
        self._get_file_writer().add_summary(summary.tensor_proto(tag, tensor), global_step,
                                            walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None) -> None:
        """Adds a histogram of ``values`` to the summary.

        Args:
            tag (str): data identifier.
            values (Tensor or ndarray): values to bucket (any shape, at least one element).
            global_step (int, optional): step of the histogram.
            bins (str, int or sequence): ``'tensorflow'`` (TensorBoard's exponential
                buckets, the default) or anything ``numpy.histogram`` takes as ``bins``
                (``'auto'``, ``'fd'``, a count, the edges).
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
            max_bins (int, optional): merge neighbouring buckets down to at most this many.

        Example:
            >>> import tempfile
            >>> import ferric
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> for i in range(3):
            ...     writer.add_histogram("distribution", ferric.rand(1000) + i, i, bins="auto")
            >>> writer.close()
        """
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(
            summary.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares,  # noqa: A002
                          bucket_limits, bucket_counts, global_step=None,
                          walltime=None) -> None:
        """Adds a histogram from precomputed statistics.

        Args:
            tag (str): data identifier.
            min (float): smallest value.
            max (float): largest value.
            num (int): number of values.
            sum (float): sum of the values.
            sum_squares (float): sum of their squares.
            bucket_limits (sequence): upper edge of each bucket.
            bucket_counts (sequence): number of values in each bucket (as many as
                ``bucket_limits``, else ``ValueError``).
            global_step (int, optional): step of the histogram.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
        """
        self._get_file_writer().add_summary(
            summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits,
                                  bucket_counts), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None,
                  dataformats="CHW") -> None:
        """Adds an image to the summary (encoded as PNG).

        Float images are expected in [0, 1] and multiplied by 255; ``uint8`` arrays are
        taken as they are (ferric has no uint8 dtype: pass a NumPy array); values are
        clipped to [0, 255]. A one-channel or ``HW`` image is shown in grey.

        Args:
            tag (str): data identifier.
            img_tensor (Tensor or ndarray): the image, laid out as ``dataformats``.
            global_step (int, optional): step of the image.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
            dataformats (str): ``'CHW'`` (default), ``'HWC'``, ``'HW'``, ``'WH'``, ...

        Shape:
            img_tensor: :math:`(3, H, W)` by default; :math:`(1, H, W)`, :math:`(H, W)`
            or :math:`(H, W, 3)` with the matching ``dataformats``.

        Example:
            >>> import tempfile
            >>> import ferric
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> ramp = ferric.arange(0.0, 1.0, 0.01).reshape(10, 10)
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> writer.add_image("ramp", ferric.stack([ramp, 1 - ramp, ramp * 0]), 0)
            >>> writer.add_image("ramp_hwc", ferric.stack([ramp] * 3, dim=2), 0,
            ...                  dataformats="HWC")
            >>> writer.close()
        """
        self._get_file_writer().add_summary(
            summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None,
                   dataformats="NCHW") -> None:
        """Adds a batch of images, tiled into one grid of up to 8 per row.

        Args:
            tag (str): data identifier.
            img_tensor (Tensor or ndarray): the images, laid out as ``dataformats``.
            global_step (int, optional): step of the images.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
            dataformats (str): ``'NCHW'`` (default), ``'NHWC'``, or a single-image layout.

        Shape:
            img_tensor: :math:`(N, 3, H, W)` or :math:`(N, 1, H, W)` by default.

        Example:
            >>> import tempfile
            >>> import ferric
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> writer.add_images("batch", ferric.rand(16, 3, 8, 8), 0)
            >>> writer.close()
        """
        self._get_file_writer().add_summary(
            summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None) -> None:
        """Renders a matplotlib figure (or a list of figures, tiled) into an image.

        Args:
            tag (str): data identifier.
            figure (matplotlib.figure.Figure or list of them): what to render.
            global_step (int, optional): step of the image.
            close (bool): close the figure(s) afterwards. Default: ``True``.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.

        Example:
            >>> import tempfile
            >>> import matplotlib
            >>> matplotlib.use("Agg")
            >>> import matplotlib.pyplot as plt
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> fig = plt.figure(figsize=(2, 1))
            >>> _ = plt.plot([0, 1, 4])
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> writer.add_figure("curve", fig, 0)
            >>> writer.close()
        """
        fmt = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, summary.figure_to_image(figure, close), global_step, walltime,
                       dataformats=fmt)

    def add_text(self, tag, text_string, global_step=None, walltime=None) -> None:
        """Adds text (rendered as Markdown by TensorBoard); the tag gets the suffix
        ``/text_summary``.

        Args:
            tag (str): data identifier.
            text_string (str): the text.
            global_step (int, optional): step of the text.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.

        Example:
            >>> import tempfile
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> writer.add_text("lstm", "This is an lstm", 0)
            >>> writer.close()
        """
        self._get_file_writer().add_summary(summary.text(tag, text_string), global_step,
                                            walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None,
                    run_name=None, global_step=None) -> None:
        """Adds a set of hyperparameters and their metrics for TensorBoard's HPARAMS tab.

        They are written to a new run, ``<log_dir>/<run_name>``, with the metrics as
        scalars there.

        Args:
            hparam_dict (dict): hyperparameter name -> value (``bool``, ``str``, ``float``,
                ``int``, a one-element Tensor, or ``None`` to leave it out).
            metric_dict (dict): metric name -> value. Use names not also logged with
                :meth:`add_scalar`, or the hparams tab shows those instead.
            hparam_domain_discrete (dict, optional): name -> list of every value the
                hyperparameter can take.
            run_name (str, optional): the run's directory; default ``str(time.time())``.
            global_step (int, optional): step of the record.

        Example:
            >>> import tempfile
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> with SummaryWriter(tempfile.mkdtemp()) as w:
            ...     for i in range(3):
            ...         w.add_hparams({"lr": 0.1 * i, "bsize": i},
            ...                       {"hparam/accuracy": 10 * i, "hparam/loss": 10 * i})
        """
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w_hp:
            for record in (exp, ssi, sei):
                w_hp.file_writer.add_summary(record, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def add_graph(self, model, input_to_model=None, verbose=False,
                  use_strict_trace=True) -> None:
        """Adds the graph of one run of ``model`` on ``input_to_model``.

        ferric has no tracer: the model is run once (in eval mode, with grad enabled) and
        the graph autograd recorded is drawn, grouped by submodule as PyTorch scopes it
        (``Net/Linear[fc1]``). Operations get PyTorch's node kinds (``aten::linear``,
        ``aten::relu``, ...) and their output shapes; parameters are ``prim::GetAttr``
        nodes, inputs and outputs ``IO Node``\\ s. Operations autograd does not record
        (integer arithmetic, ``argmax``, work on tensors that need no gradient) are not
        drawn.

        Args:
            model (ferric.nn.Module): the model to draw.
            input_to_model (Tensor or tuple of Tensors): its input(s).
            verbose (bool): print the nodes. Default: ``False``.
            use_strict_trace (bool): accepted for PyTorch compatibility; ferric's
                recording has no strict mode.

        Example:
            >>> import tempfile
            >>> import ferric
            >>> from ferric import nn
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
            ...     writer.add_graph(model, ferric.randn(3, 4))
        """
        del use_strict_trace  # recording has no strict mode
        self._get_file_writer().add_graph(_graph.graph(model, input_to_model, verbose))

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None) -> None:
        """Adds a precision-recall curve for TensorBoard's PR CURVES tab.

        Args:
            tag (str): data identifier.
            labels (Tensor or ndarray): the ground truth, 0 or 1 per element.
            predictions (Tensor or ndarray): the probability of 1 per element, in [0, 1].
            global_step (int, optional): step of the curve.
            num_thresholds (int): thresholds of the curve (at most 127). Default: 127.
            weights (float or ndarray, optional): weight of each element.
            walltime (float, optional): seconds since the epoch; default ``time.time()``.

        Example:
            >>> import tempfile
            >>> import ferric
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> labels = ferric.tensor([0, 1, 1, 0, 1])
            >>> predictions = ferric.tensor([0.1, 0.8, 0.6, 0.4, 0.3])
            >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
            ...     writer.add_pr_curve("pr", labels, predictions, 0)
        """
        self._get_file_writer().add_summary(
            summary.pr_curve(tag, labels, predictions, num_thresholds, weights), global_step,
            walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         global_step=None, num_thresholds=127, weights=None,
                         walltime=None) -> None:
        """Adds a precision-recall curve from precomputed counts and rates (one value per
        threshold in each argument).

        Args:
            tag (str): data identifier.
            true_positive_counts (Tensor or ndarray): per threshold.
            false_positive_counts (Tensor or ndarray): per threshold.
            true_negative_counts (Tensor or ndarray): per threshold.
            false_negative_counts (Tensor or ndarray): per threshold.
            precision (Tensor or ndarray): per threshold.
            recall (Tensor or ndarray): per threshold.
            global_step (int, optional): step of the curve.
            num_thresholds (int): thresholds of the curve (at most 127). Default: 127.
            weights: accepted for PyTorch compatibility (unused, as in PyTorch).
            walltime (float, optional): seconds since the epoch; default ``time.time()``.
        """
        del weights  # PyTorch ignores it here too
        self._get_file_writer().add_summary(
            summary.pr_curve_raw(tag, true_positive_counts, false_positive_counts,
                                 true_negative_counts, false_negative_counts, precision,
                                 recall, num_thresholds), global_step, walltime)

    def add_custom_scalars(self, layout) -> None:
        """Lays out scalar charts for TensorBoard's CUSTOM SCALARS tab (call it once per
        writer, before or after logging the scalars).

        Args:
            layout (dict): ``{category: {chart title: ['Multiline', [tags]] or
                ['Margin', [value tag, lower tag, upper tag]]}}``.

        Example:
            >>> import tempfile
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> layout = {"loss": {"both": ["Multiline", ["loss/train", "loss/test"]]}}
            >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
            ...     writer.add_custom_scalars(layout)
        """
        self._get_file_writer().add_summary(summary.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category="default",
                                          title="untitled") -> None:
        """One custom-scalars chart drawing the scalars ``tags`` together."""
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default",
                                       title="untitled") -> None:
        """One custom-scalars chart of a value with a lower and upper margin: ``tags`` is
        ``[value, lower, upper]``."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None,
                      tag="default", metadata_header=None) -> None:
        """Adds an embedding for TensorBoard's projector: ``tensors.tsv`` (and
        ``metadata.tsv``, ``sprite.png``) in ``<log_dir>/<step:05d>/<tag>``, listed in
        ``<log_dir>/projector_config.pbtxt``.

        Args:
            mat (Tensor or ndarray): :math:`(N, D)`, one feature vector per row.
            metadata (list, optional): a label per row (a list per row with
                ``metadata_header``).
            label_img (Tensor or ndarray, optional): :math:`(N, C, H, W)`, an image per row.
            global_step (int, optional): step of the embedding. Default: 0.
            tag (str): the embedding's name. Default: ``'default'``.
            metadata_header (list, optional): column names of multi-column metadata.

        Example:
            >>> import tempfile
            >>> import ferric
            >>> from ferric.utils.tensorboard import SummaryWriter
            >>> writer = SummaryWriter(tempfile.mkdtemp())
            >>> writer.add_embedding(ferric.randn(10, 5), metadata=[str(i) for i in range(10)])
            >>> writer.close()
        """
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        arr = summary.make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = f"{str(global_step).zfill(5)}/{_embedding_dir_name(tag)}"
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. "
                                         "Cannot proceed.")
            # PyTorch's notice, printed as PyTorch prints it
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        if arr.ndim != 2:
            raise AssertionError(
                "add_embedding(): mat should be 2-D (one row per data point), but got shape "
                f"{tuple(arr.shape)}")
        if metadata is not None and arr.shape[0] != len(metadata):
            raise AssertionError(f"add_embedding(): #labels ({len(metadata)}) should equal "
                                 f"#data points ({arr.shape[0]})")
        images = None if label_img is None else summary.make_np(label_img)
        if images is not None and images.shape[0] != arr.shape[0]:
            raise AssertionError(f"add_embedding(): #images ({images.shape[0]}) should "
                                 f"equal #data points ({arr.shape[0]})")
        os.makedirs(save_path, exist_ok=True)
        info = _write_embedding(arr, metadata, metadata_header, images, save_path)
        info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
        info.tensor_path = subdir + "/tensors.tsv"
        if metadata is not None:
            info.metadata_path = subdir + "/metadata.tsv"
        if images is not None:
            info.sprite.image_path = subdir + "/sprite.png"
            info.sprite.single_image_dim.extend([images.shape[3], images.shape[2]])
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([info])
        from google.protobuf import text_format

        with open(os.path.join(logdir, "projector_config.pbtxt"), "w") as f:
            f.write(text_format.MessageToString(self._projector_config))

    def flush(self) -> None:
        """Writes every pending event of every run this writer opened to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flushes and closes the event files; a later ``add_*`` call opens a new one."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _write_embedding(arr, metadata, metadata_header, images, save_path):
    """Writes ``tensors.tsv``, ``metadata.tsv`` and ``sprite.png`` as the projector
    reads them; returns the ``EmbeddingInfo`` to fill in."""
    import numpy as np
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

    with open(os.path.join(save_path, "tensors.tsv"), "w") as f:
        for row in arr:
            f.write("\t".join(str(x.item()) for x in row) + "\n")
    if metadata is not None:
        if metadata_header:
            if len(metadata_header) != len(metadata[0]):
                raise AssertionError(
                    "len of header must be equal to the number of columns in metadata")
            lines = ["\t".join(str(e) for e in row) for row in [metadata_header, *metadata]]
        else:
            lines = [str(x) for x in metadata]
        with open(os.path.join(save_path, "metadata.tsv"), "w") as f:
            f.write("\n".join(lines) + "\n")
    if images is not None:
        # a square sprite sheet: ceil(sqrt(N)) images per row, rows padded with black
        per_row = int(np.ceil(images.shape[0] ** 0.5))
        grid = summary.make_grid(images, ncols=per_row).transpose(1, 2, 0)
        side = grid.shape[1]
        square = np.zeros((side, side, 3))
        square[:grid.shape[0]] = grid
        pixels = (square * 255).clip(0, 255).astype(np.uint8)
        with open(os.path.join(save_path, "sprite.png"), "wb") as f:
            f.write(summary.encode_png(pixels))
    return EmbeddingInfo()
