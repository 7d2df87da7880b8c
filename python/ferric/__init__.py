"""ferric: tensors and a define-by-run autograd with a PyTorch-compatible API.

The tensor type and its kernels are implemented in Rust (``ferric._core``); this package
adds the Python-level conveniences. ``import ferric as torch`` is meant to work for the
parts ferric implements.
"""

from __future__ import annotations

import builtins as _builtins
from typing import TYPE_CHECKING

from . import _core
from ._core import Tensor, dtype
from ._dtype_info import finfo, iinfo
from ._size import Size
from ._tensor_str import get_printoptions, set_printoptions, tensor_repr

__version__ = "0.1.0"

_core._install_hooks(Size, tensor_repr)

# Every public name of the extension (functions, dtypes) is part of the namespace.
if TYPE_CHECKING:
    # the loop below is invisible to type checkers; _core.pyi lists the same names
    from ._core import *  # noqa: F403
for _name in dir(_core):
    if not _name.startswith("_"):
        globals()[_name] = getattr(_core, _name)
del _name

# linear algebra: the ferric.linalg namespace and PyTorch's top-level aliases
from . import (
    autograd,  # noqa: E402
    linalg,  # noqa: E402
)
from ._composite_ops import (  # noqa: E402
    addbmm,
    addcdiv,
    addcmul,
    addmv,
    addr,
    bincount,
    histc,
    lerp,
    logcumsumexp,
    nanquantile,
    quantile,
)
from ._extra_ops import (  # noqa: E402
    bartlett_window,
    blackman_window,
    chain_matmul,
    conj,
    conj_physical,
    conj_physical_,
    empty_strided,
    float_power,
    frexp,
    hamming_window,
    hann_window,
    index_copy,
    inner,
    is_conj,
    is_neg,
    kaiser_window,
    narrow_copy,
    range,
    renorm,
    resolve_conj,
    resolve_neg,
    signbit,
    triangular_solve,
)
from ._functions import (  # noqa: E402
    adaptive_max_pool1d,
    allclose,
    broadcast_shapes,
    broadcast_tensors,
    equal,
    get_default_dtype,
    is_floating_point,
    is_tensor,
    isclose,
    set_default_dtype,
)
from ._linalg_aliases import (  # noqa: E402
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    det,
    inverse,
    logdet,
    matrix_exp,
    matrix_power,
    pinverse,
)
from ._linalg_aliases import qr_ as qr  # noqa: E402
from ._linalg_aliases import slogdet_ as slogdet  # noqa: E402
from ._linalg_aliases import svd_ as svd  # noqa: E402
from ._lu import lu_deprecated as lu  # noqa: E402
from ._lu import lu_solve_deprecated as lu_solve  # noqa: E402
from ._lu import lu_unpack  # noqa: E402
from ._shape_ops import (  # noqa: E402
    block_diag,
    cartesian_prod,
    cdist,
    combinations,
    cross,
    diff,
    kron,
    meshgrid,
    pdist,
    rot90,
    take_along_dim,
    tensor_split,
    tensordot,
    trace,
    tril_indices,
    triu_indices,
)
from .autograd.grad_mode import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = [n for n in globals() if not n.startswith("_") and n not in ("annotations",)]
_ = _builtins

# optimizers, data loading and serialization (pure Python, built on the core)
from . import distributed, nn, optim, utils  # noqa: E402
from .serialization import load, save  # noqa: E402

__all__ += ["distributed", "load", "nn", "optim", "save", "utils"]

# ragged batches without padding (torch.nested, jagged layout)
from . import nested  # noqa: E402
from .nested import jagged  # noqa: E402

__all__ += ["jagged", "nested"]

# ONNX export (torch.onnx.export); the onnx package itself is imported on first use
from . import onnx, profiler  # noqa: E402

__all__ += ["onnx"]

# torch.distributions (docs/distributions.md) and the composable function transforms
# (torch.func: grad, vmap, jacrev, functional_call, ...)
from . import distributions, func  # noqa: E402
from .func import vmap  # noqa: E402

__all__ += ["func", "vmap"]

# interop and introspection: DLPack import (export is `Tensor.__dlpack__`), and the build
# summary for bug reports. Pickling hooks live in `_pickle` (imported by the extension).
from ._config import show_config  # noqa: E402
from ._config import warn_about_environment as _warn_about_environment  # noqa: E402
from .utils.dlpack import from_dlpack  # noqa: E402

__all__ += ["from_dlpack", "show_config"]

# devices and the "first lines of a PyTorch script": ferric.device, CUDA/backends/amp
# modules answering as a CPU-only PyTorch build does, legacy constructors, compile
from . import (  # noqa: E402
    _tensor_methods,  # noqa: E402
    accelerator,
    amp,
    backends,
    cpu,
    cuda,
)
from ._autobatch import autobatch  # noqa: E402  (automatic batching, docs/autobatch.md)
from ._compile import compile  # noqa: E402
from ._device import device, get_default_device, set_default_device  # noqa: E402
from ._tensor_types import (  # noqa: E402
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .amp.autocast_mode import (  # noqa: E402
    autocast,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
    set_autocast_enabled,
)

_tensor_methods.install()

# torch.special, and the composed ops' Tensor methods (t.kron(u), t.quantile(q), ...)
from . import _op_methods, special  # noqa: E402
from .special import xlogy  # noqa: E402  (accepts a Python number first, as torch.xlogy)

_op_methods.install()
__all__ += ["special"]

# script boilerplate and the names PyTorch scripts reach for (docs/extra_ops.md):
# constants and flags, shape/array helpers, torch.X spellings of functional ops, the
# top-level in-place forms, ferric.random, autograd.functional, utils.checkpoint
from . import _extra_flags, _extra_methods, _extra_more, _extra_nn, _extra_shape, random  # noqa: E402, I001

for _mod in (_extra_flags, _extra_shape, _extra_nn, _extra_more):
    for _name in dir(_mod):
        # never shadows a name the extension already exports (a Rust row may gain its
        # module-level in-place function later)
        if not _name.startswith("_") and _name not in ("annotations", "math", "warnings",
                                                      "Tensor", "F") \
                and _name not in globals():
            _obj = getattr(_mod, _name)
            if not isinstance(_obj, type(_core)):
                globals()[_name] = _obj
                __all__.append(_name)
del _mod, _name, _obj
_extra_methods.install()
__all__ += ["random"]

# FERRIC_SIMD / FERRIC_NUM_THREADS values the kernels cannot use are ignored: say so once
_warn_about_environment()

# `sys.modules["torch"] = ferric`: `import torch.nn` then gives ferric.nn, not a copy
from . import _aliasing  # noqa: E402

_aliasing.install()

__all__ += [
    "BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
    "autobatch",
    "HalfTensor", "IntTensor", "LongTensor", "ShortTensor", "accelerator", "amp", "autocast",
    "backends", "compile", "cpu", "cuda", "device", "get_autocast_dtype", "get_default_device",
    "is_autocast_available", "is_autocast_enabled", "set_autocast_enabled",
    "set_default_device",
]
