"""Known crash and silent-wrong-answer inputs, one table row each.

Every row is ``(id, call(m), expectation)`` where ``m`` is the tensor module (ferric here;
``tests/fixtures/safety/gen_torch_outcomes.py`` runs the same calls with PyTorch 2.13 and
records what it does in ``torch_outcomes.json``, which ``test_rows_agree_with_pytorch``
compares with this table, so a row cannot drift from PyTorch's behaviour unnoticed).

Expectations:

* ``Raises(type, fragment)`` -- PyTorch's exception type (always) and a fragment of its
  message (a fragment, because ferric may prefix the op name or word the tail differently);
* ``Value(v)`` -- the call returns ``v`` (a tensor is compared through ``tolist()``);
* ``Either(Raises(...), Value(...))`` -- PyTorch raises only because of an overflow in its
  own size arithmetic; the mathematically right answer (NumPy's) is equally acceptable.

Whatever a row expects, a ``PanicException`` (pyo3's, a ``BaseException``), a crash or a
result that is neither the error nor the value fails it.  The crash rows therefore kill
pytest on a broken build; run ``python -m pytest -p no:cacheprovider -x`` one row at a time
(``-k``) to find them, or use the fuzz suite's subprocess note in test_safety_fuzz.py.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from test_autograd_view_rebase import base_scaled_after_view

import ferric

FIXTURE = Path(__file__).parent / "fixtures" / "safety" / "torch_outcomes.json"


@dataclass(frozen=True)
class Raises:
    exc: type | tuple[type, ...]
    fragment: str | None = None


@dataclass(frozen=True)
class Value:
    value: object


@dataclass(frozen=True)
class Either:
    raises: Raises
    value: Value


R, V, T, I, O = RuntimeError, ValueError, TypeError, IndexError, OverflowError
ALLOC = "you tried to allocate"
PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory"
INTERNAL = "more than one element of the written-to tensor refers to a single memory location"
NUMPY_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy()"
BYTE_ORDER = "byte order"
MEAN_DTYPE = "mean(): could not infer output dtype"


# ---- multi-statement calls -------------------------------------------------------------
def _nested(m, depth):
    lst = [1.0]
    for _ in range(depth):
        lst = [lst]
    return m.tensor(lst)


def _self_ref_tail(m):
    lst = [1.0]
    lst.append(lst)
    return m.tensor(lst)


def _self_ref_only(m):
    lst = []
    lst.append(lst)
    return m.tensor(lst)


def _self_ref_inner(m):
    # PyTorch 2.13 segfaults on this one (recorded as "crash" in the fixture)
    lst = [[1.0]]
    lst[0].append(lst)
    return m.tensor(lst)


def _inplace(m, stmt):
    x = m.arange(9.0).reshape(3, 3) if "t()" in stmt else m.arange(5.0)
    if stmt == "x[1:] = x[:-1]":
        x[1:] = x[:-1]
    else:
        eval(stmt, {"x": x})
    return x


def _disjoint_halves(m):
    x = m.arange(6.0)
    x[:3] = x[3:]
    return x


def _expanded(m, method, *args):
    x = m.zeros(1, 3)
    getattr(x.expand(3, 3), method)(*args)
    return x


def _out(m, factory, args, out_size=2, **kw):
    o = m.empty(out_size)
    r = getattr(m, factory)(*args, out=o, **kw)
    return o.tolist(), r is o


def _out_strided(m):
    o = m.empty(3)
    m.ones(2, out=o[::2])
    return o[::2].tolist()


def _base_inplace_view_grad(m):
    a = m.ones(3, requires_grad=True)
    x = a * 1
    v = x[1:]
    v.mul_(3)
    x.sum().backward()
    return a.grad


def _np_grad(m, how):
    t = m.ones(3, requires_grad=True)
    return t.numpy() if how == "numpy" else np.asarray(t)


def _misaligned(kind, dtype=np.float64):
    if kind == "offset":
        a = np.ndarray((3,), dtype, buffer=bytearray(40), offset=1)
    else:  # strides that are not a multiple of the item size
        a = np.ndarray((3,), dtype, buffer=bytearray(40), strides=(12,))
    a[:] = [1, 2, 3]
    return a


def _setitem(m, t, key, value):
    t[key] = value
    return t


def _zero_size_huge(m):
    t = m.zeros(0, 2**62, 2**62)
    # if it is allowed at all it must stay usable: reductions, views and copies of it
    return (tuple(t.shape), t.sum().item(), tuple(t[:, 1:].shape), t.reshape(-1).numel())


BE = np.arange(3, dtype=">f8")
BE_I = np.arange(3, dtype=">i8")

ROWS = [
    # -- allocation failure: PyTorch raises RuntimeError (torch.OutOfMemoryError is one)
    ("arange 1e13", lambda m: m.arange(0, 1e13), Raises(R, ALLOC)),
    ("linspace 10**13", lambda m: m.linspace(0, 1, 10**13), Raises(R, ALLOC)),
    ("empty 10**13", lambda m: m.empty(10**13), Raises(R, ALLOC)),
    ("ones 10**7 x 10**7", lambda m: m.ones(10**7, 10**7), Raises(R, ALLOC)),
    ("Linear 10**7", lambda m: m.nn.Linear(10**7, 10**7), Raises(R, ALLOC)),
    # -- sizes whose arithmetic overflows int64
    ("linspace 2**62", lambda m: m.linspace(0, 1, 2**62), Raises(R, "overflow")),
    ("narrow 2**63-1", lambda m: m.arange(5.0).narrow(0, 1, 2**63 - 1),
     Raises(R, "exceeds dimension size (5)")),
    ("split sizes sum wraps", lambda m: m.arange(5.0).split([2**62] * 4 + [5]),
     Either(Raises(R, "split_sizes to sum exactly to 5"),
            Value([[0.0, 1.0, 2.0, 3.0, 4.0], [], [], [], [0.0, 1.0, 2.0, 3.0, 4.0]]))),
    ("chunk 2**63-1", lambda m: m.arange(5.0).chunk(2**63 - 1),
     Either(Raises(R, "split_size"), Value([[0.0], [1.0], [2.0], [3.0], [4.0]]))),
    ("zeros 0 x 2**62 x 2**62", _zero_size_huge,
     Either(Raises(R, "overflow"), Value(((0, 2**62, 2**62), 0.0, (0, 2**62 - 1, 2**62), 0)))),
    ("roll -2**63", lambda m: m.roll(m.arange(5.0), -(2**63)),
     Either(Raises(R), Value([3.0, 4.0, 0.0, 1.0, 2.0]))),
    ("slice step 2**63-2", lambda m: m.arange(5.0)[1 :: 2**63 - 2],
     Either(Raises(R, "overflow"), Value([1.0]))),
    ("slice step 2**63-1 then sum", lambda m: m.arange(5.0)[:: 2**63 - 1].sum(),
     Either(Raises(R, "overflow"), Value(0.0))),
    ("avg_pool2d stride 2**62",
     lambda m: m.nn.functional.avg_pool2d(m.arange(16.0).reshape(1, 1, 4, 4), 2, stride=2**62),
     Either(Raises(R, "overflow"), Value([[[[2.5]]]]))),
    # found by the fuzz suite
    ("unflatten 0-d", lambda m: m.zeros(()).unflatten(0, (1, 3)),
     Raises(R, "Dimension specified as 0")),
    ("unflatten 0-d dim -1", lambda m: m.zeros(()).unflatten(-1, (1,)),
     Raises(R, "Dimension specified as 0")),
    ("fold kernel 2**62", lambda m: m.nn.functional.fold(m.rand(2, 5, 4), (5, -6), 2**62),
     Raises(R, "overflow")),
    ("fold kernel 2**62 valid size",
     lambda m: m.nn.functional.fold(m.rand(2, 4, 4), (2, 5), 2**62), Raises(R, "overflow")),
    ("arange step nan", lambda m: m.arange(0, 0, float("nan")), Raises(R, "step")),
    ("roll 0-d with dim", lambda m: m.roll(m.tensor(3.0), 2, 0),
     Raises(I, "Dimension specified as 0 but tensor has no dimensions")),
    ("chunk 2**63-2 of zero-size", lambda m: m.zeros(0, 2).chunk(2**63 - 2), Raises(R)),
    # -- pathological nested lists
    ("list nested 100000 deep", lambda m: _nested(m, 100_000), Raises(V, "too many dimensions")),
    ("list nested 1000 deep", lambda m: _nested(m, 1000), Raises(V, "too many dimensions")),
    ("list that is its own only element", _self_ref_only, Raises(V, "too many dimensions")),
    ("list containing itself after a number", _self_ref_tail, Raises(T)),
    ("list containing itself one level down", _self_ref_inner, Raises((T, V))),
    ("number then list", lambda m: m.tensor([1.0, [1.0]]), Raises(T, "must be real number")),
    # -- overlapping in-place writes (PyTorch's partial-overlap check)
    ("add_ shifted self", lambda m: _inplace(m, "x[1:].add_(x[:-1])"), Raises(R, PARTIAL)),
    ("add_ shifted self other way", lambda m: _inplace(m, "x[:-1].add_(x[1:])"),
     Raises(R, PARTIAL)),
    ("setitem shifted self", lambda m: _inplace(m, "x[1:] = x[:-1]"), Raises(R, PARTIAL)),
    ("copy_ shifted self", lambda m: _inplace(m, "x[:3].copy_(x[2:])"), Raises(R, PARTIAL)),
    ("copy_ own transpose", lambda m: _inplace(m, "x.copy_(x.t())"), Raises(R, PARTIAL)),
    ("transpose copy_ self", lambda m: _inplace(m, "x.t().copy_(x)"), Raises(R, PARTIAL)),
    ("add_ self (full overlap is fine)", lambda m: _inplace(m, "x.add_(x)"),
     Value([0.0, 2.0, 4.0, 6.0, 8.0])),
    ("copy_ self (full overlap is fine)", lambda m: _inplace(m, "x.copy_(x)"),
     Value([0.0, 1.0, 2.0, 3.0, 4.0])),
    ("setitem disjoint halves", _disjoint_halves, Value([3.0, 4.0, 5.0, 3.0, 4.0, 5.0])),
    # -- writes through stride 0 (PyTorch's internal-overlap check) and the ones it allows
    ("expand add_", lambda m: _expanded(m, "add_", 1), Raises(R, INTERNAL)),
    ("expand mul_", lambda m: _expanded(m, "mul_", 2), Raises(R, INTERNAL)),
    ("expand copy_", lambda m: _expanded(m, "copy_", m.ones(3, 3)), Raises(R, INTERNAL)),
    ("expand sin_", lambda m: _expanded(m, "sin_"), Raises(R, INTERNAL)),
    ("expand clamp_", lambda m: _expanded(m, "clamp_", 1, 2), Raises(R, INTERNAL)),
    ("expand fill_ allowed", lambda m: _expanded(m, "fill_", 1), Value([[1.0, 1.0, 1.0]])),
    ("expand zero_ allowed", lambda m: _expanded(m, "zero_"), Value([[0.0, 0.0, 0.0]])),
    ("expand index_fill_ allowed",
     lambda m: _expanded(m, "index_fill_", 0, m.tensor([0]), 1.0), Value([[1.0, 1.0, 1.0]])),
    ("expand masked_fill_ allowed",
     lambda m: _expanded(m, "masked_fill_", m.ones(3, 3, dtype=m.bool), 1.0),
     Value([[1.0, 1.0, 1.0]])),
    # -- out= writes into the given tensor and returns it
    ("zeros out=", lambda m: _out(m, "zeros", (2,)), Value(([0.0, 0.0], True))),
    ("ones out=", lambda m: _out(m, "ones", (2,)), Value(([1.0, 1.0], True))),
    ("full out=", lambda m: _out(m, "full", ((2,), 3.0)), Value(([3.0, 3.0], True))),
    ("arange out=", lambda m: _out(m, "arange", (3,), 3), Value(([0.0, 1.0, 2.0], True))),
    ("linspace out=", lambda m: _out(m, "linspace", (0, 1, 3), 3), Value(([0.0, 0.5, 1.0], True))),
    ("zeros out= resizes", lambda m: _out(m, "zeros", (2,), 5), Value(([0.0, 0.0], True))),
    ("ones out= strided view", _out_strided, Value([1.0, 1.0])),
    ("zeros out=5", lambda m: m.zeros(2, out=5), Raises(T, "out")),
    ("ones out=5", lambda m: m.ones(2, out=5), Raises(T, "out")),
    ("arange out=5", lambda m: m.arange(3, out=5), Raises(T)),
    ("arange out=str", lambda m: m.arange(3, out="x"), Raises(T)),
    # -- autograd through views after an in-place op
    ("grad of view after base mul_", base_scaled_after_view, Value([2.0, 2.0, 0.0])),
    ("grad of base after view mul_", lambda m: _base_inplace_view_grad(m),
     Value([1.0, 3.0, 3.0])),
    # -- numpy() of a tensor that requires grad
    ("numpy() requires grad", lambda m: _np_grad(m, "numpy"), Raises(R, NUMPY_GRAD)),
    ("np.asarray requires grad", lambda m: _np_grad(m, "asarray"), Raises(R, NUMPY_GRAD)),
    ("numpy(force=True) requires grad", lambda m: m.ones(3, requires_grad=True).numpy(force=True),
     Value([1.0, 1.0, 1.0])),
    # -- unusual NumPy arrays: right values (copied) or PyTorch's ValueError, never garbage
    ("tensor big-endian f8", lambda m: m.tensor(BE),
     Either(Raises(V, BYTE_ORDER), Value([0.0, 1.0, 2.0]))),
    ("as_tensor big-endian f8", lambda m: m.as_tensor(BE),
     Either(Raises(V, BYTE_ORDER), Value([0.0, 1.0, 2.0]))),
    ("from_numpy big-endian f8", lambda m: m.from_numpy(BE),
     Either(Raises(V, BYTE_ORDER), Value([0.0, 1.0, 2.0]))),
    ("tensor big-endian i8", lambda m: m.tensor(BE_I),
     Either(Raises(V, BYTE_ORDER), Value([0, 1, 2]))),
    ("from_numpy big-endian i8", lambda m: m.from_numpy(BE_I),
     Either(Raises(V, BYTE_ORDER), Value([0, 1, 2]))),
    ("tensor big-endian strided",
     lambda m: m.tensor(np.arange(6, dtype=">f8").reshape(2, 3)[:, ::2]),
     Either(Raises(V, BYTE_ORDER), Value([[0.0, 2.0], [3.0, 5.0]]))),
    ("tensor offset 1", lambda m: m.tensor(_misaligned("offset")), Value([1.0, 2.0, 3.0])),
    ("as_tensor offset 1", lambda m: m.as_tensor(_misaligned("offset")), Value([1.0, 2.0, 3.0])),
    ("from_numpy offset 1", lambda m: m.from_numpy(_misaligned("offset")), Value([1.0, 2.0, 3.0])),
    ("from_numpy offset 1 f4", lambda m: m.from_numpy(_misaligned("offset", np.float32)),
     Value([1.0, 2.0, 3.0])),
    ("as_tensor offset 1 i8", lambda m: m.as_tensor(_misaligned("offset", np.int64)),
     Value([1, 2, 3])),
    ("tensor stride 12", lambda m: m.tensor(_misaligned("stride")),
     Either(Raises(V, "strides"), Value([1.0, 2.0, 3.0]))),
    ("as_tensor stride 12", lambda m: m.as_tensor(_misaligned("stride")),
     Either(Raises(V, "strides"), Value([1.0, 2.0, 3.0]))),
    ("from_numpy stride 12", lambda m: m.from_numpy(_misaligned("stride")),
     Either(Raises(V, "strides"), Value([1.0, 2.0, 3.0]))),
    ("from_numpy stride 12 sum", lambda m: m.from_numpy(_misaligned("stride")).sum(),
     Either(Raises(V, "strides"), Value(6.0))),
    ("tensor stride 12 i8", lambda m: m.tensor(_misaligned("stride", np.int64)),
     Either(Raises(V, "strides"), Value([1, 2, 3]))),
    # -- integers outside int64
    ("tensor [2**63]", lambda m: m.tensor([2**63]), Raises(V, "Overflow")),
    ("tensor [-2**63-1]", lambda m: m.tensor([-(2**63) - 1]), Raises(V, "Overflow")),
    ("tensor [2**64]", lambda m: m.tensor([2**64]), Raises(V, "Overflow")),
    ("tensor 2**63 scalar", lambda m: m.tensor(2**63), Raises(V, "Overflow")),
    ("tensor [2**63-1]", lambda m: m.tensor([2**63 - 1]), Value([2**63 - 1])),
    ("tensor [1.0, 2**63] is float", lambda m: m.tensor([1.0, 2**63]), Value([1.0, 2.0**63])),
    ("full 2**63", lambda m: m.full((2,), 2**63), Raises(R, "without overflow")),
    ("full 2**63-1", lambda m: m.full((2,), 2**63 - 1), Value([2**63 - 1, 2**63 - 1])),
    ("full -2**63-1", lambda m: m.full((2,), -(2**63) - 1), Raises(O)),
    ("full 2**64", lambda m: m.full((2,), 2**64), Raises(O)),
    ("fill_ 2**63", lambda m: m.ones(2, dtype=m.int64).fill_(2**63),
     Raises(R, "without overflow")),
    ("setitem 2**63", lambda m: _setitem(m, m.zeros(2, dtype=m.int64), 0, 2**63),
     Raises(V, "Overflow")),
    ("randint 2**63", lambda m: m.randint(2**63, (2,)), Raises(V, "Overflow")),
    ("randint 0, 2**63", lambda m: m.randint(0, 2**63, (2,)), Raises(V, "Overflow")),
    ("randint -2**63-1, 0", lambda m: m.randint(-(2**63) - 1, 0, (2,)), Raises(V, "Overflow")),
    # -- misc bad input
    ("cat []", lambda m: m.cat([]), Raises(V, "expected a non-empty list of Tensors")),
    ("getitem str", lambda m: m.arange(5.0)["a"], Raises(T)),
    ("getitem None, str", lambda m: m.arange(5.0)[None, "a"], Raises(T)),
    ("setitem str", lambda m: _setitem(m, m.arange(5.0), "a", 1), Raises(T)),
    ("getitem list with str", lambda m: m.arange(5.0)[[0, "a"]],
     Raises(I, "too many indices")),
    ("getitem dict", lambda m: m.arange(5.0)[{1: 2}], Raises(I, "only integers, slices")),
    ("gather index 5", lambda m: m.gather(m.arange(5.0), 0, m.tensor([5])),
     Raises(R, "index 5 is out of bounds for dimension 0 with size 5")),
    ("gather index -1", lambda m: m.gather(m.arange(5.0), 0, m.tensor([-1])),
     Raises(R, "index -1 is out of bounds")),
    ("gather index 2**62", lambda m: m.gather(m.arange(5.0), 0, m.tensor([2**62])),
     Raises(R, "out of bounds")),
    ("gather dim 1 index 3", lambda m: m.arange(6.0).reshape(2, 3).gather(1, m.tensor([[3]])),
     Raises(R, "index 3 is out of bounds for dimension 1 with size 3")),
    ("scatter index 7", lambda m: m.arange(5.0).scatter(0, m.tensor([7]), m.tensor([1.0])),
     Raises(R, "index 7 is out of bounds")),
    ("scatter_ index -6", lambda m: m.arange(5.0).scatter_(0, m.tensor([-6]), 1.0),
     Raises(R, "index -6 is out of bounds")),
    ("scatter_add index 5",
     lambda m: m.arange(5.0).scatter_add(0, m.tensor([5]), m.tensor([1.0])),
     Raises(R, "index 5 is out of bounds")),
    ("index_select index 5", lambda m: m.arange(5.0).index_select(0, m.tensor([5])),
     Raises(I, "index out of range in self")),
    ("take index 5", lambda m: m.arange(5.0).take(m.tensor([5])),
     Raises(I, "tried to access index 5")),
    ("tensor-index 5", lambda m: m.arange(5.0)[m.tensor([5])], Raises(I, "index 5 is out of")),
    ("index_put_ index 5",
     lambda m: m.arange(5.0).index_put_((m.tensor([5]),), m.tensor(1.0), accumulate=True),
     Raises(I, "index 5 is out of bounds")),
    ("neg bool", lambda m: -m.tensor([True]), Raises(R, "on a bool tensor is not supported")),
    ("neg() bool", lambda m: m.neg(m.tensor([True])), Raises(R, "on a bool tensor")),
    ("bool - bool", lambda m: m.tensor([True]) - m.tensor([False]),
     Raises(R, "with two bool tensors is not supported")),
    ("bool - True", lambda m: m.tensor([True]) - True, Raises(R, "with two bool tensors")),
    ("True - bool", lambda m: True - m.tensor([True]), Raises(R, "with two bool tensors")),
    ("bool sub_", lambda m: m.tensor([True]).sub_(m.tensor([True])),
     Raises(R, "with two bool tensors")),
    ("bool - long", lambda m: m.tensor([True]) - m.tensor([1]),
     Raises(R, "with a bool tensor is not supported")),
    ("mean long", lambda m: m.tensor([1, 2]).mean(), Raises(R, MEAN_DTYPE)),
    ("mean(0) long", lambda m: m.tensor([1, 2]).mean(0), Raises(R, MEAN_DTYPE)),
    ("mean bool", lambda m: m.mean(m.tensor([True, False])), Raises(R, MEAN_DTYPE)),
    # -- NumPy-style keyword aliases PyTorch accepts
    ("sum axis=", lambda m: m.ones(2, 3).sum(axis=0), Value([2.0, 2.0, 2.0])),
    ("torch.sum axis=", lambda m: m.sum(m.ones(2, 3), axis=1), Value([3.0, 3.0])),
    ("mean axis=", lambda m: m.ones(2, 3).mean(axis=0), Value([1.0, 1.0, 1.0])),
    ("amax axis=", lambda m: m.ones(2, 3).amax(axis=0), Value([1.0, 1.0, 1.0])),
    ("cat axis=", lambda m: m.cat([m.ones(1), m.ones(2)], axis=0), Value([1.0, 1.0, 1.0])),
    ("concat axis=", lambda m: m.concat([m.ones(1), m.ones(2)], axis=0), Value([1.0, 1.0, 1.0])),
    ("stack axis=", lambda m: m.stack([m.ones(1), m.ones(1)], axis=0), Value([[1.0], [1.0]])),
    ("sum axis= and dim=", lambda m: m.ones(2, 3).sum(axis=0, dim=0), Raises(T)),
]


def _plain(x):
    """Tensors (and tuples/lists of them) as nested Python lists, for comparison."""
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if hasattr(x, "tolist") and not isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x


def _same(got, want):
    if isinstance(want, (list, tuple)):
        return (isinstance(got, (list, tuple)) and len(got) == len(want)
                and all(_same(g, w) for g, w in zip(got, want, strict=True)))
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-6)
    return type(got) is type(want) and got == want


def _check_raised(err, expect: Raises):
    name = type(err).__name__
    assert name != "PanicException", f"Rust panic: {err}"
    assert isinstance(err, expect.exc), (
        f"raised {type(err).__module__}.{name}: {err}, PyTorch raises {expect.exc}")
    if expect.fragment is not None:
        assert expect.fragment in str(err), f"message {str(err)!r} lacks {expect.fragment!r}"


# Known deviations, each a strict xfail: a fix shows up as XPASS and its entry goes.
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize(("call", "expect"), [
    pytest.param(c, e, id=i, marks=[pytest.mark.xfail(strict=True, reason=KNOWN[i])]
                 if i in KNOWN else []) for i, c, e in ROWS])
def test_row(call, expect):
    raises = expect.raises if isinstance(expect, Either) else expect
    value = expect.value if isinstance(expect, Either) else expect
    try:
        got = call(ferric)
        got = _plain(got)
    except BaseException as err:  # noqa: BLE001 -- PanicException derives from BaseException
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        if not isinstance(raises, Raises):
            pytest.fail(f"raised {type(err).__module__}.{type(err).__name__}: {err}, "
                        f"PyTorch returns {value.value!r}")
        _check_raised(err, raises)
        return
    if not isinstance(value, Value):
        pytest.fail(f"returned {str(got)[:200]}, PyTorch raises {raises.exc}({raises.fragment!r})")
    assert _same(got, value.value), f"returned {str(got)[:200]}, expected {value.value!r}"


def test_ids_unique():
    ids = [r[0] for r in ROWS]
    assert len(ids) == len(set(ids))


def _type_names(exc):
    return {e.__name__ for e in (exc if isinstance(exc, tuple) else (exc,))}


def test_rows_agree_with_pytorch():
    """The table's expectation is what PyTorch 2.13 did (fixture written by the generator)."""
    recorded = json.loads(FIXTURE.read_text())
    assert set(recorded) == {r[0] for r in ROWS}, "regenerate the fixture (gen_torch_outcomes.py)"
    bad = []
    for rid, _, expect in ROWS:
        rec = recorded[rid]
        if rec["outcome"] == "crash":
            continue  # PyTorch itself has no answer; the row documents the chosen one
        raises = expect.raises if isinstance(expect, Either) else expect
        value = expect.value if isinstance(expect, Either) else expect
        if rec["outcome"] == "raises":
            ok = isinstance(raises, Raises) and rec["type"] in _type_names(raises.exc) and (
                raises.fragment is None or raises.fragment in rec["message"])
        else:
            ok = isinstance(value, Value) and _same(_tuples_to_lists(rec["value"]),
                                                    _tuples_to_lists(value.value))
        if not ok:
            bad.append((rid, rec))
    assert not bad, bad


def _tuples_to_lists(x):
    if isinstance(x, (list, tuple)):
        return [_tuples_to_lists(v) for v in x]
    return x
