"""Exceptions and warnings of ``ferric.onnx`` (``torch.onnx.errors``)."""

from __future__ import annotations

__all__ = ["OnnxExporterError", "OnnxExporterWarning", "TracerWarning",
           "UnsupportedOperatorError"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class TracerWarning(Warning):
    """A tensor's value became a Python value during export (``torch.jit.TracerWarning``):
    the exported graph holds the one path the Python code took for the example inputs."""


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter. This is the base class for all exporter errors."""


class UnsupportedOperatorError(OnnxExporterError):
    """Raised when an operator is unsupported by the exporter."""

    def __init__(self, name: str, version: int, detail: str = "") -> None:
        msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        super().__init__(msg + (f": {detail}" if detail else ""))
        self.name = name
