"""The ``Summary`` protocol buffers behind :class:`SummaryWriter`'s ``add_*`` methods.

Each function turns ferric tensors, NumPy arrays or Python numbers into one of
TensorBoard's messages (``tensorboard.compat.proto``), with PyTorch's rules: histograms
bucketed by ``numpy.histogram`` and trimmed to the occupied range, images converted to
HWC and scaled by 255 unless they are ``uint8``, text as a one-element string tensor
for the text plugin, hyperparameters as the three hparams-plugin summaries.
Images are PNG-encoded here (zlib), so no imaging library is needed.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ... import _core

__all__ = [
    "make_np", "scalar", "histogram", "histogram_raw", "default_bins", "image",
    "convert_to_HWC", "make_grid", "encode_png", "text", "hparams", "tensor_proto",
    "figure_to_image", "pr_curve", "pr_curve_raw", "compute_curve", "custom_scalars",
]


def make_np(x) -> np.ndarray:
    """``x`` as a NumPy array: a ferric tensor is detached (no copy), a NumPy array is
    returned as it is and a Python or NumPy scalar becomes a 1-element array.

    Example:
        >>> import ferric
        >>> from ferric.utils.tensorboard.summary import make_np
        >>> make_np(ferric.tensor([1.0, 2.0], requires_grad=True))
        array([1., 2.], dtype=float32)
        >>> make_np(3)
        array([3])
    """
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, _core.Tensor):
        return x.detach().numpy()
    # PyTorch's type for this case
    raise NotImplementedError(
        f"Got {type(x)}, but numpy array or ferric tensor are expected.")


def scalar(name, value, new_style=False, double_precision=False) -> Summary:
    """A summary holding one scalar (``simple_value``, or a 0-d float tensor for the
    scalars plugin with ``new_style=True``; float64 with ``double_precision=True``)."""
    arr = make_np(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(
            f"add_scalar(): the value should contain one element (0 dimensions), but got "
            f"{arr.size} elements in {arr.ndim} dimensions (shape {tuple(arr.shape)})")
    number = float(arr)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    if double_precision:
        proto = TensorProto(double_val=[number], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[number], dtype="DT_FLOAT")
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=meta)])


def default_bins() -> list[float]:
    """TensorBoard's ``'tensorflow'`` bucket edges: ``+-1e-12 * 1.1**k`` up to 1e20 and 0,
    the edges PyTorch's ``SummaryWriter`` uses by default."""
    v, positive = 1e-12, []
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return [-x for x in reversed(positive)] + [0.0] + positive


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits,  # noqa: A002
                  bucket_counts) -> Summary:
    """A histogram summary from precomputed statistics and buckets."""
    if len(bucket_limits) != len(bucket_counts):
        raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=list(bucket_limits), bucket=list(bucket_counts))
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None) -> Summary:
    """A histogram summary of ``values`` (any shape) bucketed by ``numpy.histogram``."""
    arr = make_np(values).astype(float).reshape(-1)
    if arr.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(arr, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge groups of `step` neighbouring buckets (the last group padded with zeros)
        step = len(counts) // max_bins
        pad = -len(counts) % step
        counts = np.pad(counts, (0, pad)).reshape(-1, step).sum(axis=-1)
        limits = np.concatenate([limits[:-1:step], limits[-1:]])
    # keep the buckets from the first to the last occupied one; TensorBoard reads only
    # right edges, so one more bucket on the left (an empty one if needed) carries the
    # left edge of the first occupied bucket
    occupied = np.flatnonzero(counts)
    if occupied.size == 0:
        raise ValueError(
            f"add_histogram(): none of the {arr.size} values falls inside the bins (are they "
            "all NaN or beyond the bin edges?)")
    start, end = int(occupied[0]), int(occupied[-1]) + 1
    if start > 0:
        counts = counts[start - 1:end]
    else:
        counts = np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    hist = HistogramProto(min=arr.min(), max=arr.max(), num=len(arr), sum=arr.sum(),
                          sum_squares=arr.dot(arr), bucket_limit=limits.tolist(),
                          bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """Tiles an (N, 1 or 3, H, W) batch into one (3, H * rows, W * cols) image, up to
    ``ncols`` images per row (empty cells are 0)."""
    if images.ndim == 4 and images.shape[1] == 1:
        images = np.concatenate([images] * 3, axis=1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError(
            "add_images(): expected images with 1 or 3 channels (N, C, H, W), but got shape "
            f"{tuple(images.shape)}")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols) if n else 0
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(arr: np.ndarray, dataformats: str) -> np.ndarray:  # noqa: N802
    """An image array laid out as ``dataformats`` (``NCHW``, ``NHWC``, ``CHW``, ``HWC``,
    ``HW``, ``WH``, ...) as (H, W, C) with 3 channels (or 4 for RGBA ``HWC`` input); a
    4-d batch is tiled into a grid first."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or set(fmt) - set("NCHW"):
        raise AssertionError(
            f"add_image(): dataformats must use each of N, C, H, W at most once, but got "
            f"{dataformats!r}")
    if arr.ndim != len(fmt):
        raise AssertionError(
            f"add_image(): the image has {arr.ndim} dimensions (shape {tuple(arr.shape)}) "
            f"but dataformats {dataformats!r} names {len(fmt)}")
    if len(fmt) == 4:
        grid = make_grid(arr.transpose([fmt.index(c) for c in "NCHW"]))
        return grid.transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = arr.transpose([fmt.index(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        hw = arr.transpose([fmt.index(c) for c in "HW"])
        return np.stack([hw] * 3, axis=2)
    raise AssertionError(f"add_image(): unsupported dataformats {dataformats!r}")


def encode_png(hwc: np.ndarray) -> bytes:
    """PNG bytes of an (H, W, C) ``uint8`` image with 1 (grey), 2 (grey + alpha),
    3 (RGB) or 4 (RGBA) channels."""
    height, width, channels = hwc.shape
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    # every scanline starts with filter type 0 (none)
    rows = np.ascontiguousarray(hwc, dtype=np.uint8).reshape(height, width * channels)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def image(tag, img, dataformats="NCHW") -> Summary:
    """An image summary: ``img`` is converted to HWC (a batch is tiled into a grid),
    ``uint8`` values are taken as they are and any other dtype is multiplied by 255
    (floats are expected in [0, 1]), then clipped to [0, 255]."""
    arr = convert_to_HWC(make_np(img), dataformats)
    scale = 1 if arr.dtype == np.uint8 else 255
    pixels = (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    height, width, channels = pixels.shape
    encoded = Summary.Image(height=height, width=width, colorspace=channels,
                            encoded_image_string=encode_png(pixels))
    return Summary(value=[Summary.Value(tag=tag, image=encoded)])


def figure_to_image(figures, close=True) -> np.ndarray:
    """Renders a matplotlib figure to a (3, H, W) ``uint8`` array, or a list of figures
    to (N, 3, H, W); ``close=True`` closes the figures afterwards."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        if close:
            plt.close(figure)
        return np.moveaxis(rgba[:, :, :3], 2, 0).copy()

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def text(tag, text_string) -> Summary:
    """A text-plugin summary (tag ``<tag>/text_summary``) holding one string."""
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                        tensor=proto)])


_TENSOR_FIELDS = {
    np.dtype(np.float32): ("DT_FLOAT", "float_val"),
    np.dtype(np.float64): ("DT_DOUBLE", "double_val"),
    np.dtype(np.int64): ("DT_INT64", "int64_val"),
    np.dtype(np.int32): ("DT_INT32", "int_val"),
    np.dtype(np.bool_): ("DT_BOOL", "bool_val"),
    np.dtype(np.uint8): ("DT_UINT8", "uint32_val"),
}


def tensor_proto(tag, tensor) -> Summary:
    """A tensor-plugin summary holding the whole tensor (values and shape)."""
    arr = make_np(tensor)
    if arr.nbytes >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if arr.dtype not in _TENSOR_FIELDS:
        raise ValueError(f"{tag} has unsupported tensor dtype {arr.dtype}")
    dtype, field = _TENSOR_FIELDS[arr.dtype]
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in arr.shape])
    proto = TensorProto(dtype=dtype, tensor_shape=shape, **{field: arr.reshape(-1).tolist()})
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def compute_curve(labels, predictions, num_thresholds=127, weights=None) -> np.ndarray:
    """The (6, num_thresholds) precision-recall table of TensorBoard's pr_curves plugin:
    true/false positive and negative counts, precision and recall at thresholds
    ``i / (num_thresholds - 1)``."""
    tiny = 1e-7  # TensorBoard's minimum count: no division by zero
    weights = 1.0 if weights is None else weights
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(np.int32)
    labels = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_buckets, _ = np.histogram(buckets, bins=num_thresholds, range=span,
                                 weights=labels * weights)
    fp_buckets, _ = np.histogram(buckets, bins=num_thresholds, range=span,
                                 weights=(1.0 - labels) * weights)
    # counts at or above each threshold: reverse cumulative sums
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(tiny, tp + fp)
    recall = tp / np.maximum(tiny, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def _pr_summary(tag, data, num_thresholds) -> Summary:
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="pr_curves",
        content=PrCurvePluginData(version=0, num_thresholds=num_thresholds)
        .SerializeToString()))
    shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in data.shape[:2]])
    proto = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(),
                        tensor_shape=shape)
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None) -> Summary:
    """A precision-recall curve summary from binary ``labels`` and ``predictions`` in
    [0, 1] (at most 127 thresholds, as in PyTorch)."""
    num_thresholds = min(num_thresholds, 127)
    data = compute_curve(make_np(labels), make_np(predictions), num_thresholds, weights)
    return _pr_summary(tag, data, num_thresholds)


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127) -> Summary:
    """A precision-recall curve summary from precomputed counts and rates."""
    num_thresholds = min(num_thresholds, 127)
    data = np.stack([make_np(a) if isinstance(a, _core.Tensor) else np.asarray(a)
                     for a in (tp, fp, tn, fn, precision, recall)])
    return _pr_summary(tag, data, num_thresholds)


def custom_scalars(layout) -> Summary:
    """The custom-scalars plugin's layout: ``{category: {chart: ['Multiline', tags] or
    ['Margin', [value, lower, upper]]}}``."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        protos = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError(
                        f"add_custom_scalars(): a Margin chart takes 3 tags (value, lower, "
                        f"upper), but {title!r} has {len(tags)}")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                               upper=tags[2])
                protos.append(layout_pb2.Chart(
                    title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                protos.append(layout_pb2.Chart(
                    title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=protos))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    proto = TensorProto(dtype="DT_STRING",
                        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
                        tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=proto,
                                        metadata=meta)])


def _plugin_summary(tag, content) -> Summary:
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name=PLUGIN_NAME, content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The hparams plugin's three summaries (experiment, session start with the
    hyperparameter values, session end), as PyTorch writes them."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.api_pb2 import (
        DataType,
        Experiment,
        HParamInfo,
        MetricInfo,
        MetricName,
        Status,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError(
            "parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (k not in hparam_dict or not isinstance(v, list)
                or not all(isinstance(d, type(hparam_dict[k])) for d in v)):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of "
                            f"same type as hparam_dict[{k}].")
    start = SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # PyTorch tests int/float first, so a bool is logged as a number (True -> 1.0)
        if isinstance(v, (int, float)):
            field, dtype = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            field, dtype = "string_value", "DATA_TYPE_STRING"
        elif isinstance(v, _core.Tensor):
            v, field, dtype = make_np(v).reshape(-1)[0].item(), "number_value", \
                "DATA_TYPE_FLOAT64"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        domain = None
        if k in domains:
            domain = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: d}) for d in domains[k]])
        infos.append(HParamInfo(name=k, type=DataType.Value(dtype), domain_discrete=domain))
    experiment = Experiment(hparam_infos=infos,
                            metric_infos=[MetricInfo(name=MetricName(tag=k))
                                          for k in metric_dict])
    end = SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))
    return (_plugin_summary(metadata.EXPERIMENT_TAG, {"experiment": experiment}),
            _plugin_summary(metadata.SESSION_START_INFO_TAG, {"session_start_info": start}),
            _plugin_summary(metadata.SESSION_END_INFO_TAG, {"session_end_info": end}))
