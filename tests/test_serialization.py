"""ferric.save / ferric.load in the safetensors format (``.safetensors`` paths and
ferric.serialization.save_safetensors; the PyTorch checkpoint format, ferric.save's default
for other targets, is tested in tests/test_checkpoints.py): safetensors files that other
safetensors readers understand
(checked here with the package's NumPy API; checked against safetensors.torch by hand),
faithful round trips of nested objects, the pickle fallback and its weights_only guard,
and clear errors for corrupt or truncated files."""

from __future__ import annotations

import io
import json
import math
import pathlib
import pickle
import struct
from collections import OrderedDict

import numpy as np
import pytest

import ferric

safetensors_numpy = pytest.importorskip("safetensors.numpy")


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    ferric.serialization.save_safetensors(obj, buf)
    buf.seek(0)
    return ferric.load(buf, **load_kw)


def same_tensor(a, b):
    return (isinstance(b, ferric.Tensor) and a.dtype == b.dtype and a.shape == b.shape
            and a.tolist() == b.tolist())


TENSORS = [
    ferric.arange(6.0).reshape(2, 3),
    ferric.tensor([1.5, -2.25], dtype=ferric.float64),
    ferric.tensor([[1, -2], [3, 4]]),
    ferric.tensor([True, False, True]),
    ferric.tensor(3.5),
    ferric.tensor(7),
    ferric.zeros(0, 3),
    ferric.arange(12.0).reshape(3, 4).t(),  # transposed view
    ferric.arange(10)[::3],  # step-sliced view
    ferric.tensor([1.0]).expand(4),  # stride 0
]


@pytest.mark.parametrize("t", TENSORS, ids=lambda t: f"{t.dtype}-{tuple(t.shape)}")
def test_tensor_round_trip(t):
    out = roundtrip({"t": t})["t"]
    assert same_tensor(t, out) and out.is_contiguous()


def test_state_dict_is_a_plain_safetensors_file(tmp_path):
    sd = OrderedDict([("layer.weight", ferric.arange(6.0).reshape(2, 3)),
                      ("layer.bias", ferric.tensor([0.5, -0.5])),
                      ("bn.num_batches_tracked", ferric.tensor(4)),
                      ("mask", ferric.tensor([True, False]))])
    path = tmp_path / "model.safetensors"
    ferric.save(sd, path)
    # readable by the safetensors package itself, under the state dict's own keys
    arrays = safetensors_numpy.load_file(str(path))
    assert set(arrays) == set(sd)
    np.testing.assert_array_equal(arrays["layer.weight"], np.arange(6.0).reshape(2, 3))
    assert arrays["bn.num_batches_tracked"].dtype == np.int64
    assert arrays["bn.num_batches_tracked"].shape == ()
    assert arrays["mask"].dtype == np.bool_
    # and back into ferric with type, order and values intact
    loaded = ferric.load(path)
    assert type(loaded) is OrderedDict and list(loaded) == list(sd)
    assert all(same_tensor(sd[k], loaded[k]) for k in sd)


def test_file_from_the_safetensors_numpy_api(tmp_path):
    path = tmp_path / "np.safetensors"
    safetensors_numpy.save_file({
        "f32": np.arange(4, dtype=np.float32).reshape(2, 2),
        "f64": np.array([0.1, 0.2]),
        "i64": np.array([1, 2, 3], dtype=np.int64),
        "f16": np.array([0.5, 1.5], dtype=np.float16),
        "i32": np.array([-7, 8], dtype=np.int32),
        "u8": np.array([0, 255], dtype=np.uint8),
        "b": np.array([True]),
    }, str(path))
    out = ferric.load(str(path))
    assert type(out) is dict
    assert out["f32"].tolist() == [[0.0, 1.0], [2.0, 3.0]] and out["f32"].dtype == ferric.float32
    assert out["f64"].dtype == ferric.float64 and out["i64"].tolist() == [1, 2, 3]
    # every dtype loads as itself
    assert out["f16"].dtype == ferric.float16 and out["f16"].tolist() == [0.5, 1.5]
    assert out["i32"].dtype == ferric.int32 and out["i32"].tolist() == [-7, 8]
    assert out["u8"].dtype == ferric.uint8 and out["u8"].tolist() == [0, 255]
    assert out["b"].tolist() == [True]
    out["f32"].add_(1)  # loaded tensors own writable memory
    assert out["f32"].tolist() == [[1.0, 2.0], [3.0, 4.0]]


def raw_safetensors(entries, metadata=None) -> bytes:
    """A safetensors file assembled by hand: entries are (name, dtype, shape, bytes)."""
    header, blobs, offset = {}, [], 0
    for name, dtype, shape, data in entries:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + b"".join(blobs)


def test_bfloat16_loads_as_bfloat16():
    # 1.0, -2.5 and 3.140625 are exact in bfloat16: the top 16 bits of their float32
    values = np.array([1.0, -2.5, 3.140625], dtype=np.float32)
    bf16 = (values.view(np.uint32) >> 16).astype("<u2").tobytes()
    out = ferric.load(io.BytesIO(raw_safetensors([("w", "BF16", [3], bf16)])))
    assert out["w"].dtype == ferric.bfloat16 and out["w"].tolist() == [1.0, -2.5, 3.140625]


def test_optimizer_state_dict_round_trip():
    w = ferric.tensor([1.0, 2.0], requires_grad=True)
    opt = ferric.optim.Adam([w], lr=0.1, amsgrad=True)
    w.grad = ferric.tensor([0.5, -1.0])
    opt.step()
    sd = opt.state_dict()
    out = roundtrip(sd)
    assert out["param_groups"] == sd["param_groups"]
    assert list(out["state"]) == [0]
    for k, v in sd["state"][0].items():
        assert same_tensor(v, out["state"][0][k])
    assert out["param_groups"][0]["betas"] == (0.9, 0.999)  # tuples stay tuples


def test_nested_python_values_round_trip():
    shared = ferric.ones(2)
    obj = {
        "ints": [1, -2, 2**62], "floats": [0.1, 1.0, math.inf, -math.inf],
        "flags": (True, False, None), "text": "héllo", 3: "int key", (1, 2): "tuple key",
        "nested": {"deep": [{"t": shared}, shared]}, "od": OrderedDict(b=1, a=2),
        "dtype": ferric.float64, "size": ferric.zeros(2, 3).shape, "set": {1, 2},
        "bytes": b"\x00\xff", "empty": {}, "nothing": [],
    }
    out = roundtrip(obj)
    assert out["ints"] == obj["ints"] and type(out["ints"][0]) is int
    assert out["floats"] == obj["floats"] and type(out["floats"][1]) is float
    assert out["flags"] == (True, False, None)
    for key in ("text", 3, (1, 2), "dtype", "set", "bytes", "empty", "nothing"):
        assert out[key] == obj[key]
    assert type(out["od"]) is OrderedDict and list(out["od"]) == ["b", "a"]
    assert out["size"] == (2, 3) and type(out["size"]).__name__ == "Size"
    a, b = out["nested"]["deep"][0]["t"], out["nested"]["deep"][1]
    assert a is b and same_tensor(shared, a)  # one tensor stays one object
    nan = roundtrip([math.nan])[0]
    assert math.isnan(nan)


def test_requires_grad_survives():
    p = ferric.tensor([1.0, 2.0], requires_grad=True)
    out = roundtrip({"p": p, "x": [p.detach()]})
    assert out["p"].requires_grad and not out["x"][0].requires_grad


def test_empty_objects_and_scalars():
    assert roundtrip({}) == {}
    assert roundtrip(5) == 5
    assert roundtrip(None) is None


class Custom:
    def __init__(self):
        self.weights = ferric.arange(3.0)
        self.name = "net"


def test_pickle_fallback_needs_weights_only_false():
    buf = io.BytesIO()
    ferric.serialization.save_safetensors({"model": Custom()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ferric.load(buf)
    buf.seek(0)
    out = ferric.load(buf, weights_only=False)["model"]
    assert isinstance(out, Custom) and out.name == "net"
    assert out.weights.tolist() == [0.0, 1.0, 2.0]
    # the tensors are still ordinary safetensors entries
    buf.seek(0)
    assert list(safetensors_numpy.load(buf.read()).values())[0].tolist() == [0.0, 1.0, 2.0]


def test_paths_and_file_objects(tmp_path):
    obj = {"a": ferric.ones(3)}
    for target in (str(tmp_path / "s.safetensors"), tmp_path / "p.safetensors"):
        ferric.save(obj, target)
        assert same_tensor(obj["a"], ferric.load(target)["a"])
    with open(tmp_path / "f.safetensors", "wb") as f:
        ferric.save(obj, f)
    with open(tmp_path / "f.safetensors", "rb") as f:
        assert same_tensor(obj["a"], ferric.load(f)["a"])


def test_map_location():
    seen = []

    def hook(t, loc):
        seen.append(loc)
        return t * 2

    assert roundtrip({"a": ferric.ones(1)}, map_location="cpu")["a"].tolist() == [1.0]
    assert roundtrip({"a": ferric.ones(1)}, map_location=hook)["a"].tolist() == [2.0]
    assert seen == ["cpu"]
    # PyTorch's message for a device this (CPU-only) build does not have
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        roundtrip({"a": ferric.ones(1)}, map_location="cuda:0")


GOOD = None


def good_bytes() -> bytes:
    buf = io.BytesIO()
    ferric.serialization.save_safetensors({"w": ferric.arange(64.0), "step": 3}, buf)
    return buf.getvalue()


CORRUPT = [
    ("empty", lambda b: b""),
    ("short", lambda b: b[:5]),
    ("header-cut", lambda b: b[:40]),
    ("data-cut", lambda b: b[:-16]),
    ("huge-header-length", lambda b: struct.pack("<Q", 2**60) + b[8:]),
    ("not-json", lambda b: struct.pack("<Q", 8) + b"{nonsens"),
    ("json-list", lambda b: struct.pack("<Q", 8) + b"[1,2,3] "),
    ("bad-offsets", lambda b: raw_safetensors([("w", "F32", [4], b"\x00" * 8)])),
    ("bad-dtype", lambda b: raw_safetensors([("w", "Q99", [1], b"\x00" * 4)])),
    ("zip", lambda b: b"PK\x03\x04" + b"\x00" * 60),
    ("garbage", lambda b: bytes(range(256)) * 3),
    ("bad-structure", lambda b: raw_safetensors(
        [], metadata={"ferric.structure": '{"$": "tensor", "k": "missing"}'})),
    ("bad-structure-json", lambda b: raw_safetensors([], metadata={"ferric.structure": "{"})),
]


@pytest.mark.parametrize("name,mangle", CORRUPT, ids=[c[0] for c in CORRUPT])
def test_corrupt_or_truncated_files_raise_clearly(tmp_path, name, mangle):
    path = tmp_path / f"{name}.safetensors"
    path.write_bytes(mangle(good_bytes()))
    with pytest.raises(RuntimeError, match=f"{name}.safetensors"):
        ferric.load(path)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        ferric.load(pathlib.Path("/nonexistent/dir/x.safetensors"))


@pytest.mark.parametrize("module", ["ferric.serialization", "ferric.serialization._safetensors",
                                    "ferric.serialization._globals"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("node,frag", [
    # a "tensor class" that is a function reachable through a ferric module
    ({"$": "tensor", "k": "t", "cls": "ferric.serialization:os.system"},
     "is not a Tensor subclass"),
    ({"$": "tensor", "k": "t", "cls": "ferric:zeros"}, "is not a Tensor subclass"),
    ({"$": "tensor", "k": "t", "cls": "ferric:nope.nothing"}, "is not a Tensor subclass"),
    # a "dtype" that is any other attribute of the extension
    ({"$": "dtype", "v": "zeros"}, "unknown dtype"),
], ids=["function via module", "factory", "missing", "dtype"])
def test_hostile_structure_metadata_builds_nothing(tmp_path, node, frag):
    import json

    path = tmp_path / "hostile.safetensors"
    safetensors_numpy.save_file(
        {"t": np.zeros(2, np.float32)}, str(path),
        metadata={"ferric.structure": json.dumps(node), "format": "pt", "ferric.version": "1"})
    for weights_only in (True, False):
        with pytest.raises(Exception, match=frag) as err:
            ferric.load(path, weights_only=weights_only)
        assert isinstance(err.value, (RuntimeError, pickle.UnpicklingError))
