"""DLPack interop (``torch.utils.dlpack``): exchange tensors with NumPy, PyTorch, JAX, ...
without copying.

``from_dlpack(x)`` accepts any object implementing ``__dlpack__`` (NumPy >= 1.23 arrays,
PyTorch tensors, ...) or a raw DLPack capsule; ferric tensors implement ``__dlpack__``
and ``__dlpack_device__`` themselves, so ``numpy.from_dlpack(t)`` and
``torch.from_dlpack(t)`` share ferric's memory too. Only CPU memory and ferric's dtypes
(float32, float64, int64, bool) can be imported.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    r"""Converts a tensor from an external library into a ``ferric.Tensor``.

    The result shares memory with ``ext_tensor`` (writes through either are visible in
    both) unless ``copy=True``. The producer's memory stays alive as long as any ferric
    view of it does.

    Args:
        ext_tensor (object with ``__dlpack__`` or a DLPack capsule): the tensor or DLPack
            capsule to convert. A capsule can be consumed only once.
        device (str, optional): must be ``None`` or ``"cpu"`` (the only device ferric has).
        copy (bool, optional): ``True`` returns a copy; ``None`` or ``False`` share memory.

    Raises:
        RuntimeError: for memory on another device, a consumed capsule, or an object that
            is neither a DLPack producer nor a capsule.
        TypeError: for a dtype ferric does not have (e.g. int32, float16).
        BufferError: when the producer refuses to export (e.g. a ferric tensor that
            requires grad).

    Example::

        >>> import numpy as np
        >>> import ferric
        >>> a = np.arange(4.0)
        >>> t = ferric.from_dlpack(a)
        >>> t
        tensor([0., 1., 2., 3.], dtype=ferric.float64)
        >>> t[0] = 10.0          # shared memory: the NumPy array sees the write
        >>> a
        array([10.,  1.,  2.,  3.])
        >>> np.from_dlpack(ferric.ones(2, 2))   # and the other way round
        array([[1., 1.],
               [1., 1.]], dtype=float32)
    """
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"from_dlpack: ferric only supports the 'cpu' device, got '{device}'")
    t = _core._from_dlpack(ext_tensor)
    return t.clone() if copy else t


def to_dlpack(tensor: Tensor) -> Any:
    r"""Returns a DLPack capsule (unversioned ABI) sharing ``tensor``'s memory.

    A legacy interface: the capsule can only be passed to a ``from_dlpack`` function, and
    only once. Prefer ``from_dlpack(tensor)`` on the consumer's side, which calls
    ``tensor.__dlpack__()`` itself.

    Example::

        >>> import ferric
        >>> from ferric.utils.dlpack import from_dlpack, to_dlpack
        >>> capsule = to_dlpack(ferric.tensor([1, 2, 3]))
        >>> from_dlpack(capsule)
        tensor([1, 2, 3])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()
