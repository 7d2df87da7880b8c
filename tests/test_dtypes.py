"""The narrow dtypes (uint8, int8, int16, int32, float16, bfloat16) next to bool, int64,
float32 and float64: every case PyTorch 2.13 recorded in tests/fixtures/dtypes (promotion,
casts and their edge values, printing, iinfo/finfo, NumPy, factories, a sweep of ops per
dtype, autograd) replayed on ferric, plus NumPy / DLPack / pickle / save round trips and
layout variants checked against NumPy."""

from __future__ import annotations

import builtins
import io
import math
import pickle

import numpy as np
import pytest
from fixture_loader import from_json_safe, load_fixture
from layouts import STANDARD, variants

import ferric

_record, FIXTURE = load_fixture("dtypes", "dtypes_record", "dtypes.json")
record = _record.record
CASES = FIXTURE["cases"]

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64"]
NARROW = ["uint8", "int8", "int16", "int32", "float16", "bfloat16"]
NUMPY = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
         "float16": np.float16, "int64": np.int64, "float32": np.float32,
         "float64": np.float64, "bool": np.bool_}

# how far a recorded value may be from ferric's for ops whose float results depend on
# the order of accumulation (sums, products, matmul, norms): a few units in the last
# place of the result dtype
ULP = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}
ORDER_DEPENDENT = ("sum", "prod", "mean", "std", "var", "norm", "@", "mm", "matmul", "dot",
                   "softmax", "logsumexp", "cumsum", "cumprod", "backward", "hypot",
                   "linspace", "gelu", "sigmoid", "tanh", "log()", "pow(3)")

# Known, documented differences from PyTorch 2.13 (docs/dtypes.md): substrings of case
# expressions and the reason. None of them gives a wrong dtype silently.
KNOWN: dict[str, str] = {
    "a << 2": "ferric has no shift operators yet (any dtype)",
    "a >> 1": "ferric has no shift operators yet (any dtype)",
    "torch.hypot": "ferric has no hypot yet (any dtype)",
    "a.bitwise_not()": "float inputs: RuntimeError naming the compute dtype, PyTorch "
                       "raises NotImplementedError naming the input dtype",
    "rounding_mode='trunc'))(torch.tensor([True": "bool trunc division: pre-existing",
    "a.clamp(-3, 50))(torch.tensor([0, 7": "uint8 clamp with a negative bound: PyTorch "
                                          "wraps the bound to 253 first",
    "a.sum(dtype=torch.float32))(torch.tensor([-2147483648": "float32 accumulation order "
                                                            "on values near 2**31",
    "a // b)(torch.tensor([0.1, -2.5, 3.0, 1000.0, -0.3333, 3e+38], dtype=torch.bfloat16":
        "bfloat16 floor division: PyTorch rounds the quotient to bfloat16 before flooring",
    "rounding_mode='trunc'))(torch.tensor([0.1, -2.5, 3.0, 1000.0, -0.3333, 3e+38], "
    "dtype=torch.bfloat16": "as floor division",
    "rounding_mode='floor'))(torch.tensor([0.1, -2.5, 3.0, 1000.0, -0.3333, 3e+38], "
    "dtype=torch.bfloat16": "as floor division",
    "dtype=torch.float16) - 0.1": "float16 minus a Python number: PyTorch rounds the number "
                                  "to float16 first (0.1 -> 0.09998); ferric subtracts it in "
                                  "float32, a 1-ulp difference near zero",
    "dtype=torch.float16) - torch.tensor(0.1)": "as float16 minus a Python number (a 0-d "
                                                "tensor operand)",
    "gelu(a))(torch.tensor([0.1, -2.5, 3.0, 1000.0, -0.3333, 3e+38], dtype=torch.bfloat16":
        "bfloat16 gelu of 3e38: PyTorch's kernel overflows to inf, ferric returns the input",
}


def close(got, want, tol):
    got, want = from_json_safe(got), from_json_safe(want)
    if isinstance(want, list):
        return (isinstance(got, list) and len(got) == len(want)
                and all(close(g, w, tol) for g, w in zip(got, want, strict=True)))
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want and type(got) is type(want)
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    if tol == 0 or not isinstance(want, float):
        return got == want and (not isinstance(want, float) or math.copysign(1, got)
                                == math.copysign(1, want))
    return math.isclose(got, want, rel_tol=tol, abs_tol=tol * 1e-3) or got == want


def tolerance(expr, rec):
    dtype = rec.get("dtype")
    if dtype in ULP and "gelu" in expr:
        return 256 * ULP[dtype]  # ferric's erf is not PyTorch's (float64 too)
    if dtype in ULP and any(k in expr for k in ORDER_DEPENDENT):
        return 4 * ULP[dtype]
    return 0


def same(expr, got, want):
    if "seq" in want:
        return ("seq" in got and len(got["seq"]) == len(want["seq"])
                and all(same(expr, g, w) for g, w in zip(got["seq"], want["seq"],
                                                          strict=True)))
    if "values" in want:
        return (got.get("dtype") == want["dtype"] and got.get("shape") == want["shape"]
                and close(got["values"], want["values"], tolerance(expr, want)))
    if "py" in want:
        if want.get("kind") in ("dtype", "ints"):
            return got == want
        w, g = want["py"], got.get("py", got)
        if isinstance(w, float) and isinstance(g, (int, float)) and not isinstance(g, bool):
            return close(float(g), w, 0)
        if isinstance(w, str) and isinstance(g, str):
            # ferric's dtypes print as `ferric.int32` where PyTorch's print `torch.int32`
            return g in (w, w.replace("torch.", "ferric."))
        return g == w and type(g) is type(w)
    return False


def run(expr):
    env = {"torch": ferric, "np": np, "math": math}
    ferric.set_default_dtype(ferric.float32)
    try:
        return record(eval(expr, env), ferric), None
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return None, e
    finally:
        ferric.set_default_dtype(ferric.float32)


def replay(expr, want):
    for part, why in KNOWN.items():
        if part in expr:
            pytest.xfail(why)
    got, err = run(expr)
    if "error" in want:
        assert err is not None, f"{expr}: PyTorch raised {want['error']}, ferric gave {got}"
        cls = getattr(builtins, want["error"], None)
        if cls is not None:
            assert isinstance(err, cls), f"{expr}: {type(err).__name__}: {err}"
        return err
    assert err is None, f"{expr}: ferric raised {type(err).__name__}: {err}"
    assert same(expr, got, want), f"{expr}:\n  ferric  {got}\n  pytorch {want}"
    return None


def test_fixture_was_recorded_from_pytorch_2_13():
    assert FIXTURE["pytorch"].startswith("2.13")


# The recorded groups: promote (promote_types), can_cast, result_type, dtype_props (dtype
# properties), info (iinfo/finfo), convert (conversions), scalars (Python numbers and
# fill overflow), create (factories), repr (printing), numpy, default
# (set_default_dtype), ops (a sweep of ops per dtype) and autograd. A raised case must
# raise PyTorch's exception type; in these groups its message too (in "numpy" only
# PyTorch's ScalarType messages)
SAME_MESSAGE = {"info", "default", "scalars"}


@pytest.mark.parametrize(("group", "expr"),
                         [(group, expr) for group, exprs in CASES.items() for expr in exprs])
def test_recorded_case(group, expr):
    want = CASES[group][expr]
    err = replay(expr, want)
    if err is not None and (group in SAME_MESSAGE
                            or group == "numpy" and "ScalarType" in want["msg"]):
        assert str(err) == want["msg"]


# -- round trips and layouts -----------------------------------------------------------

@pytest.mark.parametrize("name", [d for d in NARROW if d != "bfloat16"])
def test_from_numpy_shares_memory_and_numpy_round_trips(name):
    arr = np.arange(6).astype(NUMPY[name]).reshape(2, 3)
    t = ferric.from_numpy(arr)
    assert t.dtype == getattr(ferric, name)
    arr[0, 1] = 5
    assert t[0, 1].item() == 5  # zero-copy
    back = t.numpy()
    assert back.dtype == NUMPY[name]
    back[1, 2] = 3
    assert arr[1, 2] == 3  # numpy() shares the same memory
    assert np.asarray(t.t()).tolist() == arr.T.tolist()
    assert ferric.tensor(arr).dtype == t.dtype  # tensor() keeps the dtype (a copy)


def test_bfloat16_has_no_numpy_dtype():
    t = ferric.ones(2, dtype=ferric.bfloat16)
    with pytest.raises(TypeError, match="^Got unsupported ScalarType BFloat16$"):
        t.numpy()
    assert t.float().numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name", NARROW)
def test_dlpack_round_trip(name):
    t = ferric.arange(6, dtype=getattr(ferric, name)).reshape(2, 3).t()
    back = ferric.from_dlpack(t)
    assert back.dtype == t.dtype and back.tolist() == t.tolist()
    if name != "bfloat16":
        arr = np.from_dlpack(t)
        assert arr.dtype == NUMPY[name] and arr.tolist() == t.tolist()


@pytest.mark.parametrize("name", NARROW)
def test_pickle_and_save_round_trip(name, tmp_path):
    d = getattr(ferric, name)
    t = ferric.tensor([[1.5, -2.25, 3.0], [100.0, 0.5, 7.0]]).to(d)
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype == d and u.tolist() == t.tolist()
    state = {"w": t, "v": t[:, 1]}
    ferric.save(state, tmp_path / "ck.pt")
    back = ferric.load(tmp_path / "ck.pt")
    assert back["w"].dtype == d and back["w"].tolist() == t.tolist()
    assert back["v"].tolist() == t[:, 1].tolist()
    buf = io.BytesIO()
    ferric.save(t, buf)
    buf.seek(0)
    assert ferric.load(buf).tolist() == t.tolist()


@pytest.mark.parametrize("kind", STANDARD)
@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32"])
def test_integer_arithmetic_wraps_like_numpy_on_every_layout(name, kind):
    rng = np.random.default_rng(0)
    info = np.iinfo(NUMPY[name])
    a = rng.integers(info.min, info.max, size=(4, 5), endpoint=True).astype(NUMPY[name])
    b = rng.integers(1, 9, size=(4, 5)).astype(NUMPY[name])
    for (_, ta, va), (_, tb, vb) in zip(variants(a, (kind,)), variants(b, (kind,)),
                                        strict=True):
        with np.errstate(over="ignore"):
            for got, want in [(ta + tb, va + vb), (ta - tb, va - vb), (ta * tb, va * vb),
                              (ta // tb, va // vb), (ta % tb, va % vb), (ta & tb, va & vb),
                              (-ta if name != "uint8" else ~ta, -va if name != "uint8"
                               else ~va), (ta.sum(0), va.sum(0, dtype=np.int64)),
                              (ta.max(), va.max()), (ta.t().contiguous(), va.T)]:
                assert got.dtype in (ta.dtype, ferric.int64)
                assert got.numpy().tolist() == np.asarray(want).tolist(), kind


@pytest.mark.parametrize("kind", STANDARD)
def test_float16_elementwise_rounds_once_like_numpy(kind):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 5)) * 100).astype(np.float16)
    b = (rng.standard_normal((4, 5)) + 3).astype(np.float16)
    for (_, ta, va), (_, tb, vb) in zip(variants(a, (kind,)), variants(b, (kind,)),
                                        strict=True):
        # NumPy's float16 ops also compute in float32 and round once
        with np.errstate(over="ignore", invalid="ignore"):
            pairs = [(ta + tb, va + vb), (ta * tb, va * vb), (ta / tb, va / vb),
                     (ta.exp(), np.exp(va.astype(np.float32)).astype(np.float16)),
                     (ta.sqrt(), np.sqrt(va.astype(np.float32)).astype(np.float16))]
        for got, want in pairs:
            assert got.dtype == ferric.float16
            np.testing.assert_array_equal(got.numpy(), np.asarray(want, dtype=np.float16))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_types_train_like_float32(name):
    d = getattr(ferric, name)
    ferric.manual_seed(0)
    model = ferric.nn.Sequential(ferric.nn.Linear(4, 8), ferric.nn.ReLU(),
                                 ferric.nn.Linear(8, 3)).to(d)
    x = ferric.randn(16, 4).to(d)
    y = ferric.randint(0, 3, (16,))
    loss = ferric.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    assert loss.dtype == d
    for p in model.parameters():
        assert p.grad is not None and p.grad.dtype == d
        assert bool(ferric.isfinite(p.grad.float()).all())


def test_set_default_dtype_changes_float_factories():
    try:
        ferric.set_default_dtype(ferric.float64)
        assert ferric.tensor([1.5]).dtype == ferric.float64
        assert ferric.zeros(2).dtype == ferric.float64
        assert (ferric.tensor([1]) / 2).dtype == ferric.float64
        assert repr(ferric.tensor([1.5])) == "tensor([1.5000])"
        ferric.set_default_dtype(ferric.float16)
        assert repr(ferric.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
        assert repr(ferric.tensor([1.5], dtype=ferric.float32)) == \
            "tensor([1.5000], dtype=torch.float32)".replace("torch", "ferric")
    finally:
        ferric.set_default_dtype(ferric.float32)
    with pytest.raises(TypeError, match="only floating-point types"):
        ferric.set_default_dtype(ferric.int32)
