"""Writes ``docs/compat.md``: the share of PyTorch's public names that ferric has.

For each namespace below (top-level ``torch``, ``Tensor`` methods and operators, ``nn``,
``nn.functional``, ``optim``, ``linalg``, ...), the public names of PyTorch's module are
listed and each is looked up in ferric's counterpart; the page shows the share found and
every missing name. Names that belong to areas ferric leaves out on purpose (sparse
layouts, quantization, non-CPU backends, exotic dtypes) are counted apart, so the share
"of the rest" measures what is left to do.

The PyTorch side is stored in ``docs/compat.json`` next to the page, so the page can be
refreshed against a newer ferric without PyTorch, and the tests check, without PyTorch,
that every name the page says ferric has exists (``tests/test_compat_doc.py``).

Usage (from the repository root)::

    # PyTorch installed (any environment that also has NumPy): walk PyTorch and ferric
    PYTHONPATH=python /root/torch-venv/bin/python tools/compat.py
    # no PyTorch: re-check ferric against the PyTorch names stored in docs/compat.json
    python tools/compat.py --refresh
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "compat.md"
DATA = ROOT / "docs" / "compat.json"

# (label, PyTorch object, ferric object, which names): "module" = the module's public
# names, "methods" = a class's public attributes, "operators" = the dunder methods a
# class defines itself (arithmetic, comparisons, indexing, NumPy/DLPack protocols).
NAMESPACES = [
    ("torch", "torch", "ferric", "module"),
    ("Tensor", "torch.Tensor", "ferric.Tensor", "methods"),
    ("Tensor operators", "torch.Tensor", "ferric.Tensor", "operators"),
    ("nn", "torch.nn", "ferric.nn", "module"),
    ("nn.functional", "torch.nn.functional", "ferric.nn.functional", "module"),
    ("nn.init", "torch.nn.init", "ferric.nn.init", "module"),
    ("nn.utils", "torch.nn.utils", "ferric.nn.utils", "module"),
    ("nn.utils.rnn", "torch.nn.utils.rnn", "ferric.nn.utils.rnn", "module"),
    ("optim", "torch.optim", "ferric.optim", "module"),
    ("optim.lr_scheduler", "torch.optim.lr_scheduler", "ferric.optim.lr_scheduler", "module"),
    ("autograd", "torch.autograd", "ferric.autograd", "module"),
    ("autograd.functional", "torch.autograd.functional", "ferric.autograd.functional",
     "module"),
    ("utils.data", "torch.utils.data", "ferric.utils.data", "module"),
    ("utils.checkpoint", "torch.utils.checkpoint", "ferric.utils.checkpoint", "module"),
    ("linalg", "torch.linalg", "ferric.linalg", "module"),
    ("special", "torch.special", "ferric.special", "module"),
    ("fft", "torch.fft", "ferric.fft", "module"),
    ("distributions", "torch.distributions", "ferric.distributions", "module"),
    ("func", "torch.func", "ferric.func", "module"),
    ("random", "torch.random", "ferric.random", "module"),
    ("nested", "torch.nested", "ferric.nested", "module"),
    ("amp", "torch.amp", "ferric.amp", "module"),
    ("cuda", "torch.cuda", "ferric.cuda", "module"),
    ("serialization", "torch.serialization", "ferric.serialization", "module"),
    ("testing", "torch.testing", "ferric.testing", "module"),
]

# Names in the walked namespaces that belong to areas ferric leaves out on purpose (the
# same areas as DELIBERATELY_ABSENT below). Not applied to the `cuda` namespace, where
# every name is about the GPU and ferric answers as a CPU-only PyTorch build does.
ABSENT_BY_DESIGN = [
    ("sparse layouts", re.compile(r"sparse|(^|_)(coo|csr|csc|bsr|bsc)(_|$)", re.I)),
    ("quantization", re.compile(
        r"quantiz|(^|_)q_|^q(int|uint|scheme)|^quint|^qint|per_tensor|per_channel|fake_quant"
        r"|fbgemm|^Q[A-Z]\w*Storage$", re.I)),
    ("non-CPU backends", re.compile(r"cuda|cudnn|miopen|mkldnn|vulkan|(^|_)mps|xpu|(^|_)hip"
                                    r"|nccl|cudagraph", re.I)),
    ("float8, float4 and sub-byte dtypes", re.compile(
        r"^(float8_\w+|float4_\w+|u?int[1-7]|bits\w*)$")),
]

# Areas PyTorch has and this page does not walk, with the reason.
DELIBERATELY_ABSENT = [
    ("GPUs and other accelerators", "`torch.cuda` kernels, `torch.mps`, `torch.xpu`, "
     "`torch.backends.*` kernels",
     "ferric runs on the CPU only; `ferric.cuda`, `ferric.backends` and "
     "`ferric.accelerator` give a CPU-only PyTorch build's answers (see the README)"),
    ("Sparse tensors", "`torch.sparse`, sparse layouts and constructors",
     "dense strided tensors only"),
    ("Quantization", "`torch.ao`, `torch.quantization`, quantized dtypes and ops",
     "not planned"),
    ("Graph compilers and tracing", "`torch.jit`, `torch.fx`, `torch.export`, "
     "`torch.compiler`, `torch._dynamo`, `torch._inductor`",
     "ferric is eager by design; `ferric.compile(model)` returns the model running eagerly "
     "(as `torch.compile(backend=\"eager\")`)"),
    ("Exotic dtypes", "float8, float4, sub-byte integers and bit types",
     "GPU-oriented storage formats"),
    ("Model hub and packaging", "`torch.hub`, `torch.package`",
     "downloads and archives of PyTorch code; out of scope"),
]

# Public attributes that are build facts or internals, not API.
NOT_API = {
    "torch": {"TYPE_CHECKING", "USE_GLOBAL_DEPS", "USE_RTLD_GLOBAL_WITH_LIBTORCH",
              "PRIVATE_OPS", "LoggerBase", "classproperty", "get_file_path",
              "prepare_multiprocessing_environment", "compiled_with_cxx11_abi",
              # removed in PyTorch 2: kept only to raise an error pointing to torch.linalg
              "eig", "lstsq", "matrix_rank", "solve", "symeig"},
    # helpers nn.functional and utils.rnn define or import for their own use
    "torch.nn.functional": {"assert_int_or_pair", "has_torch_function",
                            "has_torch_function_unary", "has_torch_function_variadic"},
    "torch.nn.utils.rnn": {"PackedSequence_", "bind"},
}

# Dunders every class has or that only wire the class into Python or PyTorch internals.
NOT_OPERATORS = {"__module__", "__doc__", "__dict__", "__weakref__", "__annotations__",
                 "__new__", "__slots__", "__torch_dispatch__", "__dlpack_c_exchange_api__",
                 "__cuda_array_interface__"}


def resolve(path):
    """The object at a dotted ``path`` (``"torch.nn.functional"``, ``"torch.Tensor"``),
    importing modules as needed; None when it does not exist."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return None
            obj = getattr(obj, attr)
        return obj
    return None


def _is_api_value(torch, obj):
    """True for what a public namespace offers: functions, classes, dtypes, layouts,
    memory formats and float constants (``pi``, ``inf``); not modules, typing helpers
    imported from the standard library, strings or flags."""
    if isinstance(obj, types.ModuleType):
        return False
    if isinstance(obj, (torch.dtype, torch.layout, torch.memory_format)):
        return True
    if isinstance(obj, float):
        return True
    if not callable(obj):
        return False
    module = getattr(obj, "__module__", None)
    return not isinstance(module, str) or module.split(".")[0] == "torch"


# PyTorch-internal helpers that modules without ``__all__`` import for their own use
HELPER_MODULES = {"torch._jit_internal", "torch.overrides"}


def _is_reexport(torch, path, module, name, obj):
    """True when ``name`` in the submodule at ``path`` only re-exports something defined
    elsewhere (``Tensor`` in ``torch.special``, ``Optimizer`` in ``optim.lr_scheduler``,
    typing and internal helpers). With ``__all__``: a name outside it, unless defined in
    the module itself or its C counterpart (``torch.fft.hfft2`` lives in
    ``torch._C._fft``). Without (``nn.functional``, whose functions are mostly
    ``torch.conv2d`` and friends): only PyTorch's internal helpers."""
    home = getattr(obj, "__module__", None)
    if isinstance(obj, float) or not isinstance(home, str):
        home = None
    exported = getattr(module, "__all__", None)
    if exported is None:
        return home in HELPER_MODULES
    if name in exported:
        return False
    if getattr(torch, name, None) is obj:
        return True
    own = (path, "torch._C._" + path.rsplit(".", 1)[-1])
    return home is not None and not any(home == p or home.startswith(p + ".") for p in own)


def _is_torchscript_binding(obj):
    # TorchScript's C++ classes (ScriptModule, Graph, AliasDb, ...) re-exported at the top
    # level are pybind11 types; they belong to torch.jit (see DELIBERATELY_ABSENT)
    return isinstance(obj, type) and type(obj).__name__ == "pybind11_type"


def torch_names(torch, kind, path):
    """The public names of PyTorch's object at ``path`` of the given kind, sorted."""
    obj = resolve(path)
    if kind == "methods":
        names = {n for n in dir(obj) if not n.startswith("_")}
    elif kind == "operators":
        names = set()
        for cls in obj.__mro__:
            if cls is object:
                continue
            names |= {n for n in vars(cls) if n.startswith("__") and n.endswith("__")}
        names -= NOT_OPERATORS
    else:
        names = set()
        for n in dir(obj):
            value = getattr(obj, n)
            if n.startswith("_") or not _is_api_value(torch, value):
                continue
            if path == "torch" and _is_torchscript_binding(value):
                continue
            if path != "torch" and _is_reexport(torch, path, obj, n, value):
                continue
            names.add(n)
        names -= NOT_API.get(path, set())
    return sorted(names)


def ferric_has(path, kind, names):
    """The subset of ``names`` that ferric's object at ``path`` has (an operator counts
    only when the class defines it, not when it inherits ``object``'s)."""
    obj = resolve(path)
    if obj is None:
        return []
    if kind == "operators":
        own = set()
        for cls in obj.__mro__:
            if cls is not object:
                own |= set(vars(cls))
        return [n for n in names if n in own]
    return [n for n in names if hasattr(obj, n)]


def absent_by_design(label, name):
    """The deliberately absent area ``name`` belongs to, or None."""
    if label == "cuda":
        return None
    for area, pattern in ABSENT_BY_DESIGN:
        if pattern.search(name):
            return area
    return None


def collect():
    """Walks PyTorch (must be importable) and ferric; returns the data of the page."""
    import torch

    import ferric

    spaces = []
    for label, tpath, fpath, kind in NAMESPACES:
        names = torch_names(torch, kind, tpath)
        spaces.append({"label": label, "torch": tpath, "ferric": fpath, "kind": kind,
                       "names": names, "ferric_exists": resolve(fpath) is not None,
                       "present": ferric_has(fpath, kind, names)})
    return {"torch_version": torch.__version__.split("+")[0],
            "ferric_version": ferric.__version__, "namespaces": spaces}


def refresh(data):
    """``data`` with ferric's side recomputed (PyTorch's names as stored)."""
    import ferric

    out = dict(data, ferric_version=ferric.__version__)
    out["namespaces"] = [dict(ns, ferric_exists=resolve(ns["ferric"]) is not None,
                              present=ferric_has(ns["ferric"], ns["kind"], ns["names"]))
                         for ns in data["namespaces"]]
    return out


def _codes(names):
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def _pct(part, whole):
    return f"{100 * part / whole:.0f}%" if whole else "-"


def render(data):
    """The Markdown page for ``data`` (pure: the test re-renders the committed data)."""
    lines = [
        "# PyTorch API coverage",
        "",
        f"<!-- generated by tools/compat.py from PyTorch {data['torch_version']} and "
        f"ferric {data['ferric_version']}; do not edit by hand -->",
        "",
        f"Which of PyTorch {data['torch_version']}'s public names ferric "
        f"{data['ferric_version']} has, per namespace. A name counts as present when "
        "ferric's counterpart has an attribute of that name (the tests check each one "
        "exists; behaviour is covered by the test suite, not by this page). Names of areas "
        "ferric leaves out on purpose ([below](#deliberately-absent)) are counted apart: "
        "\"of the rest\" is the share among the other names.",
        "",
        "Regenerate with `PYTHONPATH=python python tools/compat.py` in an environment "
        "with PyTorch, or `python tools/compat.py --refresh` without it (re-checks ferric "
        "against the PyTorch names stored in `docs/compat.json`).",
        "",
        "## Summary",
        "",
        "| namespace | PyTorch names | ferric has | share | absent by design | "
        "share of the rest |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    totals = [0, 0, 0, 0]
    details = []
    for ns in data["namespaces"]:
        present = set(ns["present"])
        missing = [n for n in ns["names"] if n not in present]
        by_design = {n: absent_by_design(ns["label"], n) for n in missing}
        todo = [n for n in missing if by_design[n] is None]
        designed = [n for n in missing if by_design[n] is not None]
        total, have = len(ns["names"]), len(present)
        rest = total - len(designed)
        for i, v in enumerate((total, have, len(designed), rest)):
            totals[i] += v
        lines.append(f"| [`{ns['label']}`](#{_anchor(ns['label'])}) | {total} | {have} | "
                     f"{_pct(have, total)} | {len(designed)} | {_pct(have, rest)} |")
        details += [f"### {ns['label']}", "",
                    f"`{ns['torch']}` against `{ns['ferric']}`"
                    + ("" if ns["ferric_exists"] else " (ferric has no such module)")
                    + f": {have} of {total}.", "",
                    f"Missing ({len(todo)}): {_codes(todo)}", ""]
        if designed:
            details += [f"Absent by design ({len(designed)}): {_codes(designed)}", ""]
    total, have, designed, rest = totals
    lines += [f"| **all** | {total} | {have} | {_pct(have, total)} | {designed} | "
              f"{_pct(have, rest)} |", ""]
    lines += ["## Deliberately absent", "",
              "Areas of PyTorch that ferric leaves out on purpose (the README links "
              "here). The names of these areas inside the namespaces above (recognised by "
              "their spelling: " + ", ".join(area for area, _ in ABSENT_BY_DESIGN)
              + ") are counted under \"absent by design\"; TorchScript's classes that "
              "PyTorch re-exports at the top level (`ScriptModule`, `Graph`, ...) are not "
              "counted at all.", "",
              "| area | PyTorch | why |", "| --- | --- | --- |"]
    lines += [f"| {area} | {what} | {why} |" for area, what, why in DELIBERATELY_ABSENT]
    lines += ["", "## Missing names, per namespace", ""] + details
    return "\n".join(lines).rstrip("\n") + "\n"


def _anchor(label):
    # GitHub's (and MyST's) heading slug: keeps letters, digits, '_', '-'; spaces -> '-'
    return re.sub(r"[^a-z0-9_ -]", "", label.lower()).replace(" ", "-")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--refresh", action="store_true",
                   help="re-check ferric against docs/compat.json without PyTorch")
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT / "python"))
    if args.refresh:
        data = refresh(json.loads(DATA.read_text()))
    else:
        data = collect()
    DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    DOC.write_text(render(data))
    print(f"wrote {DOC.relative_to(ROOT)} and {DATA.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
