"""PyTorch checkpoints both ways: ferric.load of files torch.save wrote (zip and legacy
formats, recorded with PyTorch 2.13 in tests/fixtures/checkpoints/), ferric.save's files
as PyTorch read them (recorded there too, and checked live when torch is importable),
storage sharing, map_location, mmap, weights-only refusals with PyTorch's messages, and
hostile files."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import pickle
import struct
import sys
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import KINDS, variants

import ferric
from ferric.serialization import _dtypes, _writer

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "checkpoints")
sys.path.insert(0, HERE)
import write_ferric  # noqa: E402

with open(os.path.join(HERE, "expected.json")) as _fh:
    EXPECTED = json.load(_fh)
with open(os.path.join(HERE, "ferric_read_by_torch.json")) as _fh:
    READ_BY_TORCH = json.load(_fh)


def fixture(name: str) -> str:
    return os.path.join(HERE, name)


def shares(a, b) -> bool:
    """Whether two tensors are views of one storage (their storages start together)."""
    def start(t):
        return t.data_ptr() - t.storage_offset() * t.element_size()
    return start(a) == start(b)


def check_described(t, d: dict, dtype=None) -> None:
    """``t`` has the values, shape, strides and offset PyTorch recorded."""
    assert list(t.shape) == d["shape"]
    assert t.tolist() == d["values"]
    assert t.dtype == (dtype or getattr(ferric, d["dtype"]))
    if t.numel():
        assert [s for s, n in zip(t.stride(), d["shape"], strict=True) if n > 1] == \
            [s for s, n in zip(d["stride"], d["shape"], strict=True) if n > 1]


def check_groups(tensors: dict, described: dict, skip=()) -> None:
    """Tensors PyTorch had on one storage share memory in ferric; others do not."""
    keys = [k for k in tensors if tensors[k].numel() and k not in skip]
    for a in keys:
        for b in keys:
            same = described[a]["storage"] == described[b]["storage"]
            assert shares(tensors[a], tensors[b]) == same, (a, b)


# ------------------------------------------------------------------ files from PyTorch


@pytest.mark.parametrize("name", ["torch_state_dict.pt", "torch_state_dict_legacy.pt"])
def test_pytorch_state_dict_gives_pytorch_outputs(name):
    sd = ferric.load(fixture(name))
    assert type(sd) is OrderedDict and list(sd) == list(EXPECTED["model"]["state"])
    for k, d in EXPECTED["model"]["state"].items():
        check_described(sd[k], d)
    assert sd["1.num_batches_tracked"].dtype == ferric.int64
    m = write_ferric.model()
    m.load_state_dict(sd)
    m.eval()
    out = m(write_ferric.model_input()).detach().numpy()
    np.testing.assert_allclose(out, EXPECTED["model"]["output"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["torch_views.pt", "torch_views_legacy.pt"])
def test_views_of_one_storage_stay_views(name):
    out = ferric.load(fixture(name))
    views = EXPECTED["views"]
    assert list(out) == list(views)
    for k, d in views.items():
        check_described(out[k], d)
        if out[k].numel():
            assert out[k].storage_offset() == d["offset"]
    check_groups(out, views)
    # one ferric storage: a write through one view shows in the others and bumps the
    # version counter they share (the overlapping unfold windows share memory only)
    before = {k: t._version for k, t in out.items()}
    out["base"][1, 2] = 100.0
    assert out["row"][2].item() == 100.0 and out["col"][1].item() == 100.0
    assert out["t"][2, 1].item() == 100.0 and out["unfold"][3, 1].item() == 100.0
    for k in ("t", "row", "col", "block", "step", "rows03", "last", "flat", "expand"):
        assert out[k]._version > before[k], k
    assert out["z"]._version == before["z"]


def test_nested_containers_and_values():
    out = ferric.load(fixture("torch_nested.pt"))
    check_described(out["list"][0], EXPECTED["nested_tensors"]["list0"])
    assert out["list"][1:] == [1, 2.5, "s", None, True]
    assert type(out["tuple"]) is tuple and out["tuple"][0].tolist() == 7
    assert out["tuple"][1] == (1, 2)
    assert type(out["od"]) is OrderedDict and list(out["od"]) == ["b", "a"]
    assert out["od"]["b"].dtype == ferric.float64 and out["od"]["a"] == 2
    assert type(out["size"]) is ferric.Size and out["size"] == (2, 3)
    assert out["dtype"] is ferric.float64 and out["device"] == ferric.device("cpu")
    deep = out["deep"]["a"]["b"]
    assert deep[0].dtype == ferric.bool and deep[0].tolist() == [[False] * 2] * 2
    assert deep[1] == {"c": -3}
    assert out["set"] == {1, 2} and out["bytes"] == b"\x00\xff"
    assert out["int"] == 2**40 and out["neg"] == -1.25e-3
    p = out["param"]
    assert isinstance(p, ferric.nn.Parameter) and p.requires_grad
    check_described(p.detach(), EXPECTED["nested_tensors"]["param"])


def test_training_checkpoint_resumes_as_in_pytorch():
    """model + Adam state saved by PyTorch mid-training: one more ferric step gives the
    weights one more PyTorch step gave."""
    ckpt = ferric.load(fixture("torch_training.pt"))
    assert ckpt["epoch"] == 2 and list(ckpt["optimizer"]["state"]) == [0, 1]
    assert ckpt["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    m = ferric.nn.Linear(3, 2)
    m.load_state_dict(ckpt["model"])
    opt = ferric.optim.Adam(m.parameters(), lr=0.1)
    opt.load_state_dict(ckpt["optimizer"])
    opt.zero_grad()
    m(ferric.linspace(-1.0, 1.0, 12).reshape(4, 3)).square().sum().backward()
    opt.step()
    for k, v in m.state_dict().items():
        np.testing.assert_allclose(v.numpy(), EXPECTED["resumed_after_one_step"][k],
                                   rtol=1e-6, atol=1e-7)


def test_dtypes_ferric_lacks_load_widened_exactly():
    out = ferric.load(fixture("torch_dtypes.pt"))
    for k, d in EXPECTED["dtypes"].items():
        row = _dtypes.BY_NAME[d["dtype"]]
        want = row.ferric_dtype() or getattr(ferric, row.widen)
        assert out[k].dtype == want, k
        assert out[k].tolist() == d["values"], k
    out["f16"].add_(1)  # widened storages are ordinary writable tensors
    assert out["f16"].tolist()[0] == 1.5


def test_complex_storage_is_refused_clearly():
    with pytest.raises(RuntimeError, match=r"dtype torch\.complex64, which ferric does not"):
        ferric.load(fixture("torch_complex.pt"))


def ferric_message(torch_message: str) -> str:
    return torch_message.replace("torch.serialization.", "ferric.serialization.")


@pytest.mark.parametrize("key,call", [
    ("unsafe", lambda: ferric.load(fixture("torch_unsafe.pt"))),
    ("cuda", lambda: ferric.load(fixture("torch_cuda.pt"))),
    ("pickle_module", lambda: ferric.load(fixture("torch_unsafe.pt"), pickle_module=pickle,
                                          weights_only=True)),
    ("mmap_buffer", lambda: ferric.load(io.BytesIO(open(fixture("torch_cuda.pt"), "rb").read()),
                                        mmap=True)),
    ("whole_model", lambda: ferric.load(fixture("torch_whole_model.pt"))),
    ("save_missing_dir", lambda: ferric.save({}, "/nonexistent-dir/x.pt")),
])
def test_errors_match_pytorch(key, call):
    want = EXPECTED["errors"][key]
    with pytest.raises(Exception) as err:
        call()
    assert type(err.value).__name__ == want["type"]
    assert str(err.value) == ferric_message(want["message"])


def test_whole_pickled_module_loads_with_weights_only_false():
    # torch.nn classes in the pickle resolve to the ferric.nn classes of the same path
    m = ferric.load(fixture("torch_whole_model.pt"), weights_only=False)
    assert type(m) is ferric.nn.Sequential and not m.training
    assert type(m[1]) is ferric.nn.BatchNorm2d
    out = m(write_ferric.model_input()).detach().numpy()
    np.testing.assert_allclose(out, EXPECTED["model"]["output"], rtol=1e-5, atol=1e-6)


def test_pickle_load_args_warn_under_weights_only():
    with pytest.warns(UserWarning, match="pickle_load_args only works if"):
        ferric.load(fixture("torch_cuda.pt"), map_location="cpu", encoding="latin1")


def test_weights_only_false_and_safe_globals_load_other_classes():
    import fractions

    out = ferric.load(fixture("torch_unsafe.pt"), weights_only=False)
    assert out["frac"] == fractions.Fraction(1, 3) and out["w"].tolist() == [1.0, 1.0]
    with ferric.serialization.safe_globals([fractions.Fraction]):
        assert ferric.load(fixture("torch_unsafe.pt"))["frac"] == fractions.Fraction(1, 3)
    with pytest.raises(pickle.UnpicklingError):
        ferric.load(fixture("torch_unsafe.pt"))


@pytest.mark.parametrize("map_location", [
    "cpu", b"cpu", ferric.device("cpu"), {"cuda:0": "cpu"}, {"cuda:0": ferric.device("cpu")},
    lambda storage, loc: storage,
], ids=["str", "bytes", "device", "dict", "dict-device", "callable"])
def test_map_location_brings_cuda_storages_to_cpu(map_location):
    out = ferric.load(fixture("torch_cuda.pt"), map_location=map_location)
    assert out["w"].tolist() == EXPECTED["cuda_mapped"]


def test_map_location_callable_gets_storage_and_location():
    seen = []

    def double(storage, location):
        seen.append((storage.dim(), location))
        return storage * 2

    assert ferric.load(fixture("torch_cuda.pt"), map_location=double)["w"].tolist() == \
        [2.0, 4.0]
    assert seen == [(1, "cuda:0")]
    # None from the callable: the default placement, which has no CUDA here
    with pytest.raises(RuntimeError, match="on a CUDA device"):
        ferric.load(fixture("torch_cuda.pt"), map_location=lambda s, loc: None)
    with pytest.raises(RuntimeError, match="it must return the storage"):
        ferric.load(fixture("torch_cuda.pt"), map_location=lambda s, loc: "nonsense")


def test_mmap_maps_the_file_copy_on_write(tmp_path):
    path = tmp_path / "views.pt"
    path.write_bytes(open(fixture("torch_views.pt"), "rb").read())
    before = path.read_bytes()
    out = ferric.load(path, mmap=True)
    assert out["row"].tolist() == EXPECTED["views"]["row"]["values"]
    base = out["base"].detach().numpy()
    assert not base.flags.owndata and shares(out["base"], out["t"])
    out["base"].add_(1)  # private pages: the file keeps its bytes
    assert out["row"].tolist()[0] == 6.0 and path.read_bytes() == before
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved"):
        ferric.load(fixture("torch_views_legacy.pt"), mmap=True)


# ------------------------------------------------------------------ files from ferric


def test_ferric_writes_the_files_pytorch_read():
    """The committed ferric_*.pt files (read by PyTorch in ferric_read_by_torch.json) are
    what ferric writes today, record for record."""
    for name, data in write_ferric.files().items():
        committed = open(fixture(name), "rb").read()
        if name.endswith("legacy.pt"):
            assert data == committed, name
            continue
        with zipfile.ZipFile(io.BytesIO(data)) as a, \
                zipfile.ZipFile(io.BytesIO(committed)) as b:
            assert a.namelist() == b.namelist(), name
            for rec in a.namelist():
                assert a.read(rec) == b.read(rec), (name, rec)


@pytest.mark.parametrize("name", ["ferric_state_dict.pt", "ferric_state_dict_legacy.pt"])
def test_pytorch_reads_ferric_state_dict_with_ferric_outputs(name):
    m = write_ferric.trained_model()
    ours = m(write_ferric.model_input()).detach().numpy()
    got = READ_BY_TORCH[name]
    np.testing.assert_allclose(got["output"], ours, rtol=1e-5, atol=1e-6)
    sd = m.state_dict()
    assert list(got["state"]) == list(sd)
    for k, d in got["state"].items():
        assert d["values"] == sd[k].tolist() and d["dtype"] == repr(sd[k].dtype)[7:]


@pytest.mark.parametrize("name", ["ferric_views.pt", "ferric_views_legacy.pt"])
def test_pytorch_reads_ferric_views_as_views(name):
    views = write_ferric.views()
    got = READ_BY_TORCH[name]
    groups = {"base": ("base", "t", "row", "col", "step", "expand"), "z": ("z", "zperm", "zsel")}
    for k, t in views.items():
        d = got[k]
        assert d["values"] == t.tolist() and d["shape"] == list(t.shape)
        if t.numel():
            assert d["stride"] == list(t.stride()) and d["offset"] == t.storage_offset()
        owner = next((g for g, members in groups.items() if k in members), k)
        assert d["storage"] == owner, k


def test_pytorch_reads_ferric_nested_objects():
    got = READ_BY_TORCH["ferric_nested.pt"]
    assert got["types"]["size"] == "torch.Size" and got["types"]["od"] == \
        "collections.OrderedDict"
    assert got["types"]["param"] == "torch.nn.parameter.Parameter"
    assert got["param_requires_grad"] is True
    assert got["plain"] == {"int": 2**40, "neg": -1.25e-3, "dtype": "torch.float64",
                            "size": [2, 3], "device": "cpu"}
    assert got["list0"]["values"] == [1.5, 2.5]


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="PyTorch is not installed (its reading of ferric's files is "
                           "recorded in fixtures/checkpoints/ferric_read_by_torch.json)")
def test_live_pytorch_round_trip(tmp_path):
    import torch

    for kw in ({}, {"_use_new_zipfile_serialization": False}):
        path = tmp_path / "x.pt"
        ferric.save(write_ferric.views(), path, **kw)
        got = torch.load(path)
        for k, t in write_ferric.views().items():
            assert got[k].tolist() == t.tolist()
        assert got["row"].untyped_storage().data_ptr() == got["t"].untyped_storage().data_ptr()
        torch.save({k: torch.tensor(v.tolist()) for k, v in got.items()}, path, **kw)
        back = ferric.load(path)
        assert all(back[k].tolist() == t.tolist() for k, t in write_ferric.views().items())


# ------------------------------------------------------------------ ferric round trips


def roundtrip(obj, **kw):
    buf = io.BytesIO()
    ferric.save(obj, buf, **kw)
    buf.seek(0)
    return ferric.load(buf)


FORMATS = [{}, {"_use_new_zipfile_serialization": False}]
ARRAYS = [np.arange(12.0).reshape(3, 4), np.arange(24).reshape(2, 3, 4) - 7,
          np.array([[True, False, True], [False, False, True]]), np.array([1.5, -2.25])]
DTYPES = [ferric.float32, ferric.float64, ferric.int64, ferric.bool]


@pytest.mark.parametrize("fmt", FORMATS, ids=["zip", "legacy"])
@pytest.mark.parametrize("dtype", DTYPES, ids=repr)
def test_round_trip_every_layout(fmt, dtype):
    for arr in ARRAYS:
        for kind, t, values in variants(arr, KINDS, dtype):
            out = roundtrip({"t": t, "same": t}, **fmt)
            assert out["t"].dtype == dtype and list(out["t"].shape) == list(values.shape)
            np.testing.assert_array_equal(out["t"].numpy(), values.astype(out["t"].numpy().dtype))
            assert out["same"] is out["t"]  # one object stays one object
            if t.numel():
                assert out["t"].stride() == t.stride(), kind


@pytest.mark.parametrize("fmt", FORMATS, ids=["zip", "legacy"])
def test_round_trip_keeps_views_shared(fmt):
    out = roundtrip(write_ferric.views(), **fmt)
    assert shares(out["base"], out["step"]) and shares(out["z"], out["zperm"])
    assert not shares(out["base"], out["z"])
    out["base"][0, 1] = -1.0
    assert out["t"][1, 0].item() == -1.0 and out["step"][0, 0].item() == -1.0


def test_save_writes_only_the_range_views_use():
    big = ferric.arange(1000.0)
    buf = io.BytesIO()
    ferric.save({"a": big[10:12], "b": big[20]}, buf)
    with zipfile.ZipFile(buf) as zf:
        assert zf.getinfo("archive/data/0").file_size == 11 * 4
    buf.seek(0)
    out = ferric.load(buf)
    assert out["a"].tolist() == [10.0, 11.0] and out["b"].item() == 20.0
    assert out["a"].storage_offset() == 0 and out["b"].storage_offset() == 10


def test_archive_layout(tmp_path):
    path = tmp_path / "model.pt"
    ferric.save({"w": ferric.ones(3)}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names == ["model/data.pkl", "model/byteorder", "model/data/0", "model/version"]
        assert zf.read("model/byteorder") == b"little"
        header = zf.getinfo("model/data/0").header_offset
        raw = path.read_bytes()
        n, m = struct.unpack("<HH", raw[header + 26:header + 30])
        assert (header + 30 + n + m) % 64 == 0  # storages start 64-byte aligned
    ferric.save({"w": ferric.ones(3)}, path, _disable_byteorder_record=True)
    with zipfile.ZipFile(path) as zf:
        assert "model/byteorder" not in zf.namelist()


def test_requires_grad_and_parameters_round_trip():
    p = ferric.nn.Parameter(ferric.tensor([1.0, 2.0]))
    q = ferric.nn.Parameter(ferric.tensor([3.0]), requires_grad=False)
    out = roundtrip({"p": p, "q": q, "g": ferric.ones(2, requires_grad=True), "d": p.detach()})
    assert isinstance(out["p"], ferric.nn.Parameter) and out["p"].requires_grad
    assert isinstance(out["q"], ferric.nn.Parameter) and not out["q"].requires_grad
    assert out["g"].requires_grad and not out["d"].requires_grad


def test_safetensors_rule(tmp_path):
    # a .safetensors path is written and read as safetensors; other targets as torch.save
    ferric.save({"w": ferric.ones(2)}, tmp_path / "m.safetensors")
    assert (tmp_path / "m.safetensors").read_bytes()[:2] != b"PK"
    ferric.save({"w": ferric.ones(2)}, tmp_path / "m.pt")
    assert (tmp_path / "m.pt").read_bytes()[:4] == b"PK\x03\x04"
    for name in ("m.safetensors", "m.pt"):
        assert ferric.load(tmp_path / name)["w"].tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ hostile files


class _Rebuild:
    """A pickled _rebuild_tensor_v2 call with arguments of the test's choosing."""

    def __init__(self, numel, offset, size, stride, key="0"):
        self.args = (_writer.StorageRef(key, _dtypes.BY_NAME["float32"], numel), offset,
                     size, stride, False, OrderedDict())

    def __reduce__(self):
        return (_writer.Global("torch._utils", "_rebuild_tensor_v2"), self.args)


def archive(data_pkl: bytes, storages: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", data_pkl)
        for key, data in storages.items():
            zf.writestr(f"archive/data/{key}", data)
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


def pickled(obj) -> bytes:
    buf = io.BytesIO()
    _writer.TorchPickler(buf, 2, {}, legacy=False).dump(obj)
    return buf.getvalue()


class _Canary:
    def __init__(self, path, func="builtins.exec"):
        self.path, self.func = path, func

    def __reduce__(self):
        module, name = self.func.rsplit(".", 1)
        return (_writer.Global(module, name), (f"open({str(self.path)!r}, 'w').write('ran')",))


def good_file() -> bytes:
    buf = io.BytesIO()
    ferric.save({"w": ferric.arange(16.0), "v": ferric.arange(4)}, buf)
    return buf.getvalue()


def test_view_beyond_its_storage_is_refused():
    data = archive(pickled({"t": _Rebuild(4, 2, (4,), (1,))}), {"0": b"\x00" * 16})
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[4\], strides \[1\], storage "
                                           r"offset 2.*out of bounds for storage of size 16"):
        ferric.load(io.BytesIO(data))
    data = archive(pickled({"t": _Rebuild(4, 0, (2, 2), (-1, 1))}), {"0": b"\x00" * 16})
    with pytest.raises(RuntimeError, match="setStorage"):
        ferric.load(io.BytesIO(data))


def test_storage_record_shorter_than_its_storage():
    data = archive(pickled({"t": _Rebuild(8, 0, (8,), (1,))}), {"0": b"\x00" * 16})
    with pytest.raises(RuntimeError, match="holds 16 bytes but the checkpoint needs 32"):
        ferric.load(io.BytesIO(data))
    data = archive(pickled({"t": _Rebuild(4, 0, (4,), (1,), key="7")}), {"0": b"\x00" * 16})
    with pytest.raises(RuntimeError, match="has no record 'archive/data/7'"):
        ferric.load(io.BytesIO(data))


@pytest.mark.parametrize("func", ["builtins.exec", "builtins.eval", "os.system",
                                  "subprocess.check_output", "ferric.zeros",
                                  "torch._utils.nonexistent", "__builtin__.getattr"])
def test_globals_outside_the_allowlist_never_run(tmp_path, func):
    canary = tmp_path / "canary"
    data = archive(pickled({"x": _Canary(canary, func)}), {})
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ferric.load(io.BytesIO(data))
    assert not canary.exists()


def test_weights_only_false_runs_what_the_pickle_says(tmp_path):
    canary = tmp_path / "canary"
    data = archive(pickled({"x": _Canary(canary)}), {})
    ferric.load(io.BytesIO(data), weights_only=False)  # as PyTorch: trusted files only
    assert canary.read_text() == "ran"


CUTS = [0, 4, 30, 100, -22, -60, -200]


@pytest.mark.parametrize("cut", CUTS)
def test_truncated_zip_raises_clearly(tmp_path, cut):
    data = good_file()
    path = tmp_path / "cut.pt"
    path.write_bytes(data[:cut] if cut > 0 else data[:len(data) + cut] if cut else b"")
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        ferric.load(path)


@pytest.mark.parametrize("cut", [10, 40, 200, -10, -70])
def test_truncated_legacy_raises_clearly(cut):
    buf = io.BytesIO()
    ferric.save({"w": ferric.arange(16.0)}, buf, _use_new_zipfile_serialization=False)
    data = buf.getvalue()
    data = data[:cut] if cut > 0 else data[:len(data) + cut]
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        ferric.load(io.BytesIO(data))


def test_garbage_data_pkl_raises_unpickling_error():
    for junk in (b"", b"\x80\x02", b"\x80\x02}q\x00(X\x01\x00\x00\x00a", b"\xff" * 50,
                 b"\x80\x02h\x07."):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            ferric.load(io.BytesIO(archive(junk, {})))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_mutated_files_load_or_raise_clearly(data):
    raw = bytearray(good_file())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    try:
        ferric.load(io.BytesIO(bytes(raw)))
    except (RuntimeError, pickle.UnpicklingError, ValueError):
        pass


def test_build_cannot_rewire_ferric_helpers():
    # BUILD on the storage object a persistent id returns: refused, not applied
    ref = _writer.StorageRef("0", _dtypes.BY_NAME["float32"], 4)
    buf = io.BytesIO()
    p = _writer.TorchPickler(buf, 2, {}, legacy=False)
    p.write(pickle.PROTO + b"\x02")
    p.save(ref)  # written as its persistent id
    p.save({"ctx": None})
    p.write(pickle.BUILD + pickle.STOP)
    with pytest.raises(pickle.UnpicklingError, match="Can only build"):
        ferric.load(io.BytesIO(archive(buf.getvalue(), {"0": b"\x00" * 16})))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_view_of_any_window_matches_numpy(data):
    """Any in-bounds (offset, size, stride) on a storage gives NumPy's as_strided values."""
    from ferric.serialization import _views

    ndim = data.draw(st.integers(0, 4))
    size = data.draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    stride = data.draw(st.lists(st.integers(0, 9), min_size=ndim, max_size=ndim))
    need = _views.extent(size, stride)
    numel = need + data.draw(st.integers(0, 12))
    offset = data.draw(st.integers(0, numel - need))
    storage = np.arange(numel, dtype=np.float32)
    t = _views.view_of(ferric.from_numpy(storage.copy()), _dtypes.BY_NAME["float32"], offset,
                       size, stride)
    want = np.lib.stride_tricks.as_strided(storage[offset:], shape=size,
                                           strides=[4 * s for s in stride])
    assert list(t.shape) == size
    np.testing.assert_array_equal(t.numpy(), want)


@pytest.mark.parametrize("kind", KINDS)
def test_every_test_layout_loads_as_a_real_view(kind):
    """The layouts of tests/layouts.py, and slices of them, rebuilt on their storage, are
    views of it (one version counter), not NumPy-shared copies."""
    from layouts import layout

    from ferric.serialization import _views

    for arr in ARRAYS:
        lay = layout(arr, kind)
        base = ferric.from_numpy(np.ascontiguousarray(lay.base, dtype=np.float64).ravel())
        full = lay.view(base.view(lay.base.shape))
        for t in (full, full[..., 1:], full[:1]) if full.dim() else (full,):
            if not t.numel():
                continue
            v = _views.view_of(base, _dtypes.BY_NAME["float64"], t.storage_offset(),
                               list(t.shape), list(t.stride()))
            assert v.tolist() == t.tolist()
            assert all(a == b for a, b, n in zip(v.stride(), t.stride(), t.shape, strict=True)
                       if n > 1)
            before = v._version
            base.add_(0)
            assert v._version > before, (kind, t.shape, t.stride())


def test_get_unsafe_globals_in_checkpoint():
    unsafe = ferric.serialization.get_unsafe_globals_in_checkpoint
    assert unsafe(fixture("torch_unsafe.pt")) == ["fractions.Fraction"]
    assert unsafe(fixture("torch_state_dict.pt")) == []
    whole = unsafe(fixture("torch_whole_model.pt"))
    assert "torch.nn.modules.container.Sequential" in whole
    assert "torch.nn.modules.batchnorm.BatchNorm2d" in whole
    import fractions

    with ferric.serialization.safe_globals([fractions.Fraction]):
        assert unsafe(fixture("torch_unsafe.pt")) == []
    with pytest.raises(ValueError, match="Expected input to be a checkpoint"):
        unsafe(fixture("torch_views_legacy.pt"))


def test_legacy_storage_larger_than_the_file_is_refused():
    buf = io.BytesIO()
    for head in (_writer.MAGIC_NUMBER, _writer.PROTOCOL_VERSION, {}):
        pickle.dump(head, buf, protocol=2)
    p = _writer.TorchPickler(buf, 2, {}, legacy=True)
    p.dump({"t": _Rebuild(2**50, 0, (4,), (1,))})
    with pytest.raises(RuntimeError, match="names storages larger than the file"):
        ferric.load(io.BytesIO(buf.getvalue()))


def test_corrupted_storage_bytes_fail_the_crc_check():
    raw = bytearray(good_file())
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as zf:
        h = zf.getinfo("archive/data/0").header_offset
    n, m = struct.unpack("<HH", raw[h + 26:h + 30])
    raw[h + 30 + n + m + 5] ^= 0xFF
    with pytest.raises(RuntimeError, match="Bad CRC-32 for file 'archive/data/0'"):
        ferric.load(io.BytesIO(bytes(raw)))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int32", "int16", "int8", "uint8"])
def test_narrow_dtypes_round_trip_with_shared_views(dtype):
    """Every dtype ferric has saves and loads as itself, views still sharing a storage
    (bfloat16, which NumPy lacks, goes through its float32 widening both ways)."""
    dt = getattr(ferric, dtype)
    x = (ferric.arange(6) * 1.5 - 2).to(dt)
    buf = io.BytesIO()
    ferric.save({"x": x, "v": x[1:4]}, buf)
    buf.seek(0)
    got = ferric.load(buf)
    assert got["x"].dtype == dt and got["v"].dtype == dt
    assert got["x"].tolist() == x.tolist() and got["v"].tolist() == x[1:4].tolist()
    got["x"][1] = 7
    assert got["v"][0].item() == 7
