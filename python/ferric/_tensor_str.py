"""PyTorch-compatible tensor printing (``repr(t)``), following ``torch/_tensor_str.py``."""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass

from . import _core


@dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set options for printing, like ``torch.set_printoptions``.

    Args:
        precision (int, optional): digits after the decimal point. Default: 4.
        threshold (int, optional): the element count above which arrays are summarised.
            Default: 1000.
        edgeitems (int, optional): items shown at each end of a summarised dimension.
            Default: 3.
        linewidth (int, optional): characters per line. Default: 80.
        profile (str, optional): ``'default'``, ``'short'`` or ``'full'``, setting the
            above together.
        sci_mode (bool, optional): force scientific notation on (True) or off (False);
            None chooses per tensor.

    Example:
        >>> import ferric
        >>> ferric.set_printoptions(precision=2)
        >>> ferric.tensor([1.23456, 2.0])
        tensor([1.23, 2.00])
        >>> ferric.set_printoptions(profile='default')
    """
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
        PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options (``precision``, ``threshold``, ``edgeitems``, ``linewidth``,
    ``sci_mode``) as a dict; :func:`set_printoptions` changes them.

    Example:
        >>> import ferric
        >>> ferric.get_printoptions()["precision"]
        4
    """
    return dict(vars(PRINT_OPTS))


def _flat_values(t, summarize):
    """The values that determine the column width (only the shown ones when summarising)."""
    if t.dim() == 0:
        return [t.item()]
    if not summarize:
        return t.reshape(-1).tolist()
    e = PRINT_OPTS.edgeitems
    if t.dim() == 1:
        if t.size(0) > 2 * e:
            return t[:e].tolist() + t[-e:].tolist()
        return t.tolist()
    if t.size(0) > 2 * e:
        rows = [t[i] for i in range(e)] + [t[i] for i in range(t.size(0) - e, t.size(0))]
    else:
        rows = list(t)
    out = []
    for r in rows:
        out.extend(_flat_values(r, summarize))
    return out


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = [v for v in values if math.isfinite(v)]
        nonzero = [v for v in finite if v != 0]
        if not nonzero:
            # only zeros / nan / inf: int mode, width 1 (like PyTorch)
            return
        p = PRINT_OPTS.precision
        lo, hi = min(abs(v) for v in nonzero), max(abs(v) for v in nonzero)
        self.int_mode = all(v == math.ceil(v) for v in nonzero)
        # like PyTorch, the column width comes from the nonzero finite values only
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        for v in nonzero:
            if self.sci_mode:
                w = len(f"{v:.{p}e}")
            elif self.int_mode:
                w = len(f"{v:.0f}") + 1
            else:
                w = len(f"{v:.{p}f}")
            self.max_width = max(self.max_width, w)

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                s = f"{value:.{p}e}"
            elif self.int_mode:
                s = f"{value:.0f}"
                if math.isfinite(value):
                    s += "."
            else:
                s = f"{value:.{p}f}"
            s = _fix_nonfinite(s)
        else:
            s = str(value)
        return (self.max_width - len(s)) * " " + s


def _fix_nonfinite(s):
    return s.replace("inf", "inf").replace("nan", "nan")


def _vector_str(t, indent, summarize, fmt):
    element_length = fmt.width() + 2
    per_line = builtins.max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    e = PRINT_OPTS.edgeitems
    if summarize and t.size(0) > 2 * e:
        data = ([fmt.format(v) for v in t[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in t[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in t.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(t, indent, summarize, fmt):
    dim = t.dim()
    if dim == 0:
        return fmt.format(t.item())
    if dim == 1:
        return _vector_str(t, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    n = t.size(0)
    if summarize and n > 2 * e:
        slices = ([_tensor_str(t[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                  + [_tensor_str(t[i], indent + 1, summarize, fmt) for i in range(n - e, n)])
    else:
        slices = [_tensor_str(t[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(tensor_str, suffixes, indent):
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t):
    """``repr`` of a tensor, matching PyTorch's layout and number formatting.

    Args:
        t (Tensor): the tensor to print.

    Example:
        >>> import ferric
        >>> print(ferric.tensor_repr(ferric.tensor([1.5, 2.0])))
        tensor([1.5000, 2.0000])
    """
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    name = t.dtype.__repr__().split(".")[-1]
    default = _core._get_default_dtype().__repr__().split(".")[-1]
    floating = t.dtype.is_floating_point
    if t.numel() == 0:
        if t.dim() != 1:
            suffixes.append("size=" + str(tuple(t.shape)))
        # an empty tensor has no values to show its dtype, so it is always printed
        # unless it is the default float dtype
        if name != default:
            suffixes.append("dtype=" + repr(t.dtype))
        body = "[]"
    else:
        summarize = t.numel() > PRINT_OPTS.threshold
        fmt = _Formatter(_flat_values(t, summarize), floating)
        body = _tensor_str(t, indent, summarize, fmt)
        if name not in (default, "int64", "bool"):
            suffixes.append("dtype=" + repr(t.dtype))
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
