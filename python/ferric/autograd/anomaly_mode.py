"""Anomaly detection: record where each op was created, and fail on NaN gradients."""

from __future__ import annotations

import traceback

from .. import _core


def _forward_trace() -> str:
    # drop the innermost frame (this function)
    return "".join(traceback.format_stack()[:-1])


class detect_anomaly:
    """Context manager that enables anomaly detection: a backward that produces NaN raises
    a RuntimeError naming the op and showing the traceback of the forward call that
    created it.

    Example:
        >>> import ferric
        >>> with ferric.autograd.detect_anomaly():
        ...     x = ferric.tensor([0.0], requires_grad=True)
        ...     y = x.sqrt() * 0.0
        ...     try:
        ...         y.sum().backward()
        ...     except RuntimeError as e:
        ...         print(str(e).splitlines()[0])
        Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = _core.is_anomaly_enabled()
        _core._set_anomaly_enabled(self.check_nan, _forward_trace)
        return self

    def __exit__(self, *exc):
        _core._set_anomaly_enabled(self.prev, None)
        return False


class set_detect_anomaly:
    """Turns anomaly detection on or off (immediately, or for a ``with`` block)."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = _core.is_anomaly_enabled()
        _core._set_anomaly_enabled(bool(mode) and check_nan, _forward_trace)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _core._set_anomaly_enabled(self.prev, None)
        return False


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (inside ``detect_anomaly`` or after
    ``set_detect_anomaly(True)``).
    """
    return _core.is_anomaly_enabled()
