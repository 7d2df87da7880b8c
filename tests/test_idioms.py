"""The first lines of PyTorch scripts, compared with what PyTorch 2.13 (CPU-only) does.

Every row of ``fixtures/idioms/rows.py`` runs here with ``torch`` bound to ferric and must
give PyTorch's recorded outcome (``fixtures/idioms/pytorch_idioms.json``, written by
``fixtures/idioms/generate.py``): the same value, the same warnings, or the same
exception type and message.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import ferric
from ferric import _device

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "idioms")
sys.path.insert(0, HERE)
from rows import ROWS, run_row  # noqa: E402

with open(os.path.join(HERE, "pytorch_idioms.json")) as _f:
    FIXTURE = json.load(_f)

# Rows where ferric deliberately differs from PyTorch, with the reason; kept short.
DIFFERS = {
    # PyTorch's message dumps its C++ TensorOptions; ferric raises the same type with a
    # message in the same form (checked in test_typed_constructor_mismatch)
    "float_tensor_from_long": "message",
    # argument-parser messages list every overload; ferric names the bad argument only
    "float_tensor_scalar": "message",
    # Tensor(Size) is the Rust constructor's call (it reads a Size as data today)
    "tensor_ctor_size_obj": "skip",
}

# Rows that need the Rust bindings to route `device=` / `Tensor.to` / `Tensor.device`
# through ferric._device (the lead's pending change); until then they are expected to fail.
NEEDS_RUST = {
    "zeros_cuda", "zeros_cuda0", "zeros_cuda_obj", "zeros_ordinal", "zeros_xpu", "zeros_tpu",
    "zeros_bad_index", "zeros_hpu", "tensor_cuda", "ones_cuda", "randn_cuda", "arange_cuda",
    "to_cuda", "to_cuda_kw", "to_cuda_dtype", "to_cuda_obj", "to_ordinal", "to_mps",
    "to_ipu", "to_xla", "to_xpu", "to_tpu", "tensor_device", "tensor_device_eq",
    "tensor_device_type", "device_context", "zeros_cpu1",
}
RUST_LANDED = isinstance(ferric.zeros(1).device, _device.device)


def _params():
    for row_id, code in ROWS:
        marks = []
        if DIFFERS.get(row_id) == "skip":
            marks.append(pytest.mark.skip(reason="deliberate difference, see DIFFERS"))
        elif row_id in NEEDS_RUST and not RUST_LANDED:
            marks.append(pytest.mark.xfail(reason="needs the Rust device routing",
                                           strict=False))
        yield pytest.param(row_id, code, id=row_id, marks=marks)


@pytest.mark.parametrize("row_id, code", list(_params()))
def test_row_matches_pytorch(row_id, code):
    want = FIXTURE["rows"][row_id]
    got = run_row(ferric, code)
    if "raises" in want:
        assert got.get("raises") == want["raises"], got
        if DIFFERS.get(row_id) != "message":
            assert got["message"] == want["message"]
    else:
        assert "raises" not in got, got
        assert got["ok"] == want["ok"]
        assert got["warnings"] == want["warnings"]


def test_fixture_covers_every_row():
    assert sorted(FIXTURE["rows"]) == sorted(r for r, _ in ROWS)
    assert FIXTURE["pytorch"].startswith("PyTorch 2.13.0")


CUDA = ("AssertionError", "Torch not compiled with CUDA enabled")


@pytest.mark.parametrize("obj, want", [
    (None, None),
    ("cpu", None),
    ("cpu:0", None),
    ("cpu:1", None),
    (ferric.device("cpu"), None),
    (ferric.device("cpu", 0), None),
    ("cuda", CUDA),
    ("cuda:1", CUDA),
    (ferric.device("cuda"), CUDA),
    (0, CUDA),
    ("xpu", ("AssertionError", "Torch not compiled with XPU enabled")),
    ("mps", ("RuntimeError", "PyTorch is not linked with support for mps devices")),
    ("xla", ("RuntimeError", "PyTorch is not linked with support for xla devices")),
    ("hpu", ("ModuleNotFoundError", "No module named 'torch.hpu'")),
    ("meta", ("RuntimeError", "ferric has no 'meta' device: tensors live on the CPU only")),
    ("cuda:x", ("RuntimeError", "Invalid device string: 'cuda:x'")),
    ("cpu:-1", ("RuntimeError", "Invalid device string: 'cpu:-1'")),
    ("tpu", ("RuntimeError", FIXTURE["rows"]["device_tpu"]["message"])),
    (1.5, ("TypeError", "argument 'device' must be torch.device, not float")),
    ([0], ("TypeError", "argument 'device' must be torch.device, not list")),
])
def test_check_device(obj, want):
    """The function the bindings call for every device argument (directly, so it is
    checked before the Rust side routes through it)."""
    if want is None:
        assert _device._check_device(obj) is None
        return
    with pytest.raises(BaseException) as info:
        _device._check_device(obj)
    assert (type(info.value).__name__, str(info.value)) == want


def test_typed_constructor_mismatch():
    with pytest.raises(TypeError, match=r"^expected TensorOptions\(dtype=float, .*"
                                        r"\(got TensorOptions\(dtype=long int, "):
        ferric.FloatTensor(ferric.tensor([1, 2]))


@pytest.mark.parametrize("call, dtype", [
    (lambda: ferric.IntTensor([1]), "int32"),
    (lambda: ferric.HalfTensor(2), "float16"),
    (lambda: ferric.ByteTensor([1]), "uint8"),
    (lambda: ferric.ones(2).int(), "int32"),
    (lambda: ferric.ones(2).half(), "float16"),
    (lambda: ferric.ones(2).type("torch.IntTensor"), "int32"),
])
def test_narrow_dtype_names_build_their_dtype(call, dtype):
    assert call().dtype == getattr(ferric, dtype)


class Marked(ferric.nn.Parameter):
    """A tensor subclass from outside ferric: weights-only loads refuse it by default."""


def test_safe_globals_allow_weights_only_subclass(tmp_path):
    path = tmp_path / "m.safetensors"
    ferric.save({"p": Marked(ferric.ones(2))}, path)
    ferric.serialization.clear_safe_globals()
    with pytest.raises(Exception, match="Weights only load failed"):
        ferric.load(path)
    with ferric.serialization.safe_globals([Marked]):
        assert type(ferric.load(path)["p"]) is Marked
    assert ferric.serialization.get_safe_globals() == []


# ------------------------------------------------------------- ndarray subclasses


def test_from_numpy_of_a_memmap_shares_its_memory(tmp_path):
    m = np.memmap(tmp_path / "x.bin", dtype=np.float32, mode="w+", shape=(2, 3))
    m[:] = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ferric.from_numpy(m)
    assert t.shape == (2, 3) and t.dtype == ferric.float32
    t[0, 1] = 7.0
    assert m[0, 1] == 7.0  # zero-copy, as torch.from_numpy
    assert ferric.tensor(m).tolist() == [[0.0, 7.0, 2.0], [3.0, 4.0, 5.0]]


def test_ndarray_subclasses_are_arrays_everywhere():
    class Sub(np.ndarray):
        pass

    a = np.array([1.0, 2.0, 3.0]).view(Sub)
    assert ferric.from_numpy(a).tolist() == [1.0, 2.0, 3.0]
    assert (ferric.ones(3, dtype=ferric.float64) + a).tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        ferric.from_numpy([1.0, 2.0])


_ALIAS_SCRIPT = r"""
import sys
import ferric
sys.modules["torch"] = ferric
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim.lr_scheduler as sched
from torch.utils.data import DataLoader
assert nn is ferric.nn and F is ferric.nn.functional, (nn, F)
assert sched is ferric.optim.lr_scheduler and DataLoader is ferric.utils.data.DataLoader
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
    def forward(self, x):
        return self.fc(x)
compiled = torch.compile(Net())
assert isinstance(compiled, ferric.nn.Module), type(compiled)
assert list(compiled.state_dict()) == ["_orig_mod.fc.weight", "_orig_mod.fc.bias"]
try:
    import torch.no_such_module
except ModuleNotFoundError as e:
    assert e.name == "torch.no_such_module", e.name
else:
    raise AssertionError("imported a module that does not exist")
print("ok")
"""


def test_sys_modules_alias_imports_ferrics_own_submodules(tmp_path):
    # `sys.modules["torch"] = ferric` is how many run an unmodified PyTorch script on
    # ferric; `import torch.nn` must then be ferric.nn itself, not a second copy of it
    # (whose Module class would fail every isinstance check against ferric's)
    import subprocess

    script = tmp_path / "alias.py"
    script.write_text(_ALIAS_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
