"""Writes the API reference pages (``docs/api/_generated/*.rst``) from the package itself.

Each page documents one public module: its classes (with their public methods) and
functions, in the order of the module's ``__all__`` (or alphabetically when it has
none). Called by ``conf.py`` when a Sphinx build starts; ``python docs/api_pages.py``
writes the pages without building.
"""

from __future__ import annotations

import importlib
import inspect
import os
import types

# the documented modules and the one-line description under each page's title (the
# module's name)
MODULES = {
    "ferric": "Tensor creation, math, reductions, random sampling, devices, save/load: the "
        "``torch`` namespace.",
    "ferric.nn": "Layers, containers, losses and ``Parameter``.",
    "ferric.nn.functional": "The layers as functions.",
    "ferric.nn.init": "Parameter initialisation.",
    "ferric.nn.utils": "Gradient clipping, parameter vectors, weight/spectral norm.",
    "ferric.nn.utils.rnn": "Packed and padded sequences.",
    "ferric.linalg": "Linear algebra: decompositions, solvers, norms, inverses (on ``faer``).",
    "ferric.special": "Special functions: error and gamma functions, Bessel and Airy functions, "
        "orthogonal polynomials.",
    "ferric.distributed": "Process groups and collectives over MPI (needs ``mpi4py``).",
    "ferric.distributions": "Probability distributions, ``kl_divergence``.",
    "ferric.distributions.constraints": "Constraints on parameters and supports.",
    "ferric.distributions.transforms": "Transforms for ``TransformedDistribution``.",
    "ferric.optim": "Optimizers.",
    "ferric.optim.lr_scheduler": "Learning-rate schedules.",
    "ferric.autograd": "Gradients, grad modes, custom functions, gradient checks.",
    "ferric.func": "Function transforms: ``grad``, ``vmap``, ``jacrev``, ``hessian``, ``jvp``, "
        "``vjp``, ``functional_call`` (``torch.func``).",
    "ferric.autograd.graph": "The recorded graph's nodes and drawing them.",
    "ferric.autograd.profiler": "The older profiler API (``profile(use_cuda=...)``).",
    "ferric.profiler": "Op-by-op timing: ``profile``, ``record_function``, schedules, Chrome "
        "traces.",
    "ferric.autograd.functional": "Jacobians, Hessians and vector products of a function.",
    "ferric.utils.checkpoint": "Activation checkpointing.",
    "ferric.random": "The CPU generator's seed and state, ``fork_rng``.",
    "ferric.utils.data": "Datasets, samplers and ``DataLoader``.",
    "ferric.utils.tensorboard": "TensorBoard logging (needs the ``tensorboard`` package).",
    "ferric.utils.dlpack": "DLPack exchange.",
    "ferric.utils.hooks": "Removable hook handles.",
    "ferric.nested": "Nested (jagged) tensors.",
    "ferric.amp": "Automatic mixed precision (``autocast``, ``GradScaler``).",
    "ferric.cuda": "CUDA queries, answering as a CPU-only PyTorch build.",
    "ferric.cpu": "CPU device module.",
    "ferric.accelerator": "The current accelerator (none).",
    "ferric.backends": "Backend flags.",
    "ferric.backends.cuda": "CUDA backend flags (no CUDA).",
    "ferric.backends.cudnn": "cuDNN flags (no cuDNN).",
    "ferric.backends.mkl": "MKL query.",
    "ferric.backends.mkldnn": "oneDNN flags.",
    "ferric.backends.mps": "MPS queries (no MPS).",
    "ferric.backends.openmp": "OpenMP query.",
    "ferric.cuda.amp": "The legacy ``torch.cuda.amp`` names.",
    "ferric.cpu.amp": "The legacy ``torch.cpu.amp`` names.",
    "ferric.utils.tensorboard.summary": "The ``Summary`` protocol buffers behind "
        "``SummaryWriter``.",
}


def public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = sorted(n for n in vars(module) if not n.startswith("_"))
    names = list(dict.fromkeys(names))  # once each, in order
    return [n for n in names if not isinstance(getattr(module, n, None), types.ModuleType)]


def home_page(obj) -> str:
    """The page that documents ``obj``: the documented module that is the longest
    prefix of where ``obj`` is defined (``ferric.autograd.grad_mode.no_grad`` ->
    ``ferric.autograd``); names exported by several modules appear once."""
    where = getattr(obj, "__module__", None) or "ferric"
    best = "ferric"
    for name in MODULES:
        if (where == name or where.startswith(name + ".")) and len(name) > len(best):
            best = name
    return best


def _section(module_name: str, name: str, obj, module=None) -> list[str]:
    full = f"{module_name}.{name}"
    real = getattr(obj, "__name__", name)
    if (not inspect.isclass(obj) and callable(obj) and real != name and module is not None
            and getattr(module, real, None) is obj):
        # an alias (``concat`` is ``cat``): the docstring's signature line names the
        # original, so autodoc would not recognise it; point to the original instead
        return [f".. function:: {name}", "", f"   Alias for :func:`{real}`.", ""]
    if inspect.isclass(obj):
        lines = [f".. autoclass:: {full}", "   :members:"]
        if obj.__name__ == "Tensor" or name in ("Module", "Optimizer"):
            lines.append("   :undoc-members:")
        return lines + [""]
    if callable(obj):
        return [f".. autofunction:: {full}", ""]
    return []


def render(module_name: str, description: str) -> str:
    module = importlib.import_module(module_name)
    classes, functions = [], []
    homes = set(MODULES)
    for name in public_names(module):
        obj = getattr(module, name, None)
        if obj is None:
            continue
        home = home_page(obj)
        # documented here unless another page is its home and exports it too
        if home != module_name and home in homes and getattr(
                importlib.import_module(home), name, None) is obj:
            continue
        (classes if inspect.isclass(obj) else functions).append((name, obj))
    out = [module_name, "=" * len(module_name), "", description, "",
           f".. currentmodule:: {module_name}", ""]
    for heading, items in (("Classes", classes), ("Functions", functions)):
        body = [line for name, obj in items
                for line in _section(module_name, name, obj, module)]
        if body:
            out += [heading, "-" * len(heading), "", *body]
    return "\n".join(out).rstrip() + "\n"


def write_pages(api_dir: str) -> list[str]:
    """Writes one page per module into ``<api_dir>/_generated``; returns their names."""
    target = os.path.join(api_dir, "_generated")
    os.makedirs(target, exist_ok=True)
    names = []
    for module_name, description in MODULES.items():
        text = render(module_name, description)
        path = os.path.join(target, module_name + ".rst")
        old = open(path).read() if os.path.exists(path) else None
        if text != old:  # unchanged pages keep their time stamp: no needless rebuild
            with open(path, "w") as f:
                f.write(text)
        names.append(module_name)
    return names


if __name__ == "__main__":
    print("\n".join(write_pages(os.path.join(os.path.dirname(__file__), "api"))))
