"""Transforms for ``TransformedDistribution``, as ``torch.distributions.transforms``:
``Transform`` and the elementwise bijections (``_transforms``), compositions and
``SoftmaxTransform`` (``_transforms_compose``)."""

from __future__ import annotations

from ._transforms import (
    AbsTransform,
    AffineTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
    Transform,
)
from ._transforms_compose import (
    ComposeTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StickBreakingTransform,
    identity_transform,
)

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform"]
