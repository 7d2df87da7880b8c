"""Helpers for the tests/test_vs_torch*.py files (not a test module itself).

Those tests build the same thing in ferric and in PyTorch from identical weights and
inputs and compare the numbers. Builders take the library as their argument
(``lambda lib: lib.nn.Linear(3, 4)``) so one expression makes both twins; values cross
between the libraries through NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import ferric

torch = pytest.importorskip("torch")

# (rtol, atol) per dtype: float64 must agree to rounding, float32 to a few ulps of the
# accumulated result
TOL = {"float64": (1e-10, 1e-12), "float32": (2e-5, 2e-6)}
DTYPES = ("float64", "float32")


def np_of(x):
    """A NumPy copy of a ferric or torch tensor (or the value itself)."""
    if isinstance(x, ferric.Tensor):
        return x.detach().numpy().copy()
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy().copy()
    return np.asarray(x)


def dtype_of(lib, name):
    return getattr(lib, name)


def as_lib(lib, value, dtype=None, requires_grad=False):
    """``value`` (NumPy array, ferric or torch tensor) as a tensor of ``lib``; float
    arrays take ``dtype`` when given."""
    arr = np_of(value)
    if dtype is not None and arr.dtype.kind == "f":
        arr = arr.astype(dtype)
    # copy(order="C"), not ascontiguousarray, which turns 0-d arrays into 1-d ones
    arr = arr.copy(order="C")
    t = torch.from_numpy(arr) if lib is torch else ferric.tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def both(value, dtype=None, requires_grad=False):
    """``(ferric_tensor, torch_tensor)`` holding the same numbers."""
    return (as_lib(ferric, value, dtype, requires_grad),
            as_lib(torch, value, dtype, requires_grad))


def assert_close(actual, expected, dtype="float64", rtol=None, atol=None, what=""):
    """Compares nested tuples/lists of tensors (``None`` must match ``None``)."""
    if expected is None or actual is None:
        assert actual is None and expected is None, f"{what}: {actual!r} vs {expected!r}"
        return
    if isinstance(expected, tuple | list):
        assert isinstance(actual, tuple | list) and len(actual) == len(expected), what
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_close(a, e, dtype, rtol, atol, f"{what}[{i}]")
        return
    r, a = TOL[dtype]
    a_np, e_np = np_of(actual), np_of(expected)
    assert a_np.shape == e_np.shape, f"{what}: shape {a_np.shape} vs {e_np.shape}"
    if e_np.dtype.kind in "biu":
        np.testing.assert_array_equal(a_np, e_np, err_msg=what)
    else:
        np.testing.assert_allclose(a_np, e_np, rtol=rtol if rtol is not None else r,
                                   atol=atol if atol is not None else a, err_msg=what)


def assert_same_dtype(f, t, what=""):
    assert str(f.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (
        f"{what}: dtype {f.dtype} vs {t.dtype}")


def sync_module(fm, tm):
    """Copies every parameter and buffer of torch module ``tm`` into ferric ``fm`` (same
    names, same dtypes)."""
    sd = {k: as_lib(ferric, v) for k, v in tm.state_dict().items()}
    fm.load_state_dict(sd)


def twins(make, seed=0):
    """``(ferric_module, torch_module)`` built by ``make(lib)`` after seeding both
    generators with ``seed``; the ferric one then gets torch's exact weights."""
    ferric.manual_seed(seed)
    fm = make(ferric)
    torch.manual_seed(seed)
    tm = make(torch)
    sync_module(fm, tm)
    return fm, tm


def tensors_in(x):
    """The tensors in a (nested) output, in order."""
    if isinstance(x, ferric.Tensor | torch.Tensor):
        return [x]
    if isinstance(x, tuple | list):
        return [t for item in x for t in tensors_in(item)]
    return []


def backward_both(fout, tout, seed=1):
    """Back-propagates the same random cotangent through both outputs."""
    rng = np.random.default_rng(seed)
    f_list = [t for t in tensors_in(fout) if t.requires_grad]
    t_list = [t for t in tensors_in(tout) if t.requires_grad]
    assert len(f_list) == len(t_list)
    f_loss, t_loss = None, None
    for f, t in zip(f_list, t_list, strict=True):
        g = rng.standard_normal(tuple(t.shape))
        fg = as_lib(ferric, g, np_of(t).dtype)
        tg = as_lib(torch, g, np_of(t).dtype)
        f_term = (f * fg).sum()
        t_term = (t * tg).sum()
        f_loss = f_term if f_loss is None else f_loss + f_term
        t_loss = t_term if t_loss is None else t_loss + t_term
    if t_loss is not None:
        f_loss.backward()
        t_loss.backward()


def torch_repr_as_ferric(text):
    return text.replace("torch.", "ferric.")


def raises_like(f_call, t_call, fragment=None):
    """Both calls raise; the same exception type; ferric's message contains
    ``fragment`` (or torch's whole message when ``fragment`` is None)."""
    with pytest.raises(Exception) as t_info:
        t_call()
    t_type = type(t_info.value)
    with pytest.raises(Exception) as f_info:
        f_call()
    f_type = type(f_info.value)
    # torch raises subclasses of the builtin types (e.g. torch.OutOfMemoryError); compare
    # the builtin base ferric is expected to raise
    t_base = next(c for c in t_type.__mro__ if c.__module__ == "builtins")
    assert issubclass(f_type, t_base), (
        f"ferric raised {f_type.__name__}({f_info.value}), torch {t_type.__name__}"
        f"({t_info.value})")
    t_msg = str(t_info.value)
    f_msg = str(f_info.value)
    if fragment is None:
        assert f_msg == t_msg, f"messages differ:\nferric: {f_msg}\ntorch:  {t_msg}"
    else:
        assert fragment in t_msg, f"bad test: {fragment!r} not in torch's {t_msg!r}"
        assert fragment in f_msg, f"ferric's message {f_msg!r} lacks {fragment!r}"


@dataclass
class Case:
    """One module configuration to compare (see ``run_case``)."""

    id: str
    make: object  # lib -> module
    # rng -> list of NumPy arrays, or tuples of them (an LSTM's (h0, c0)); float arrays
    # become differentiable inputs, integer/bool arrays plain tensors
    inputs: object
    train: bool = True
    grad: bool = True  # compare gradients
    # (lib, module, inputs) -> output; default module(*inputs)
    call: object = None
    # float32 forward tolerance override (rtol, atol) for long reductions
    tol32: tuple | None = None
    # reason for a strict xfail of the float64 comparison (e.g. a PyTorch kernel that
    # rounds a constant to float32 even for double inputs)
    xfail64: str | None = None
    # reason for a strict xfail of the numeric comparisons of this case
    xfail: str | None = None


def _convert(lib, a, dtype, grad, layout):
    if isinstance(a, tuple | list):
        return type(a)(_convert(lib, x, dtype, grad, layout) for x in a)
    if a is None:
        return None
    is_float = a.dtype.kind == "f"
    grad = is_float and grad
    a = a.astype(dtype) if is_float else a
    if layout == "permuted" and a.ndim >= 2:
        # a non-contiguous view with the same values: a transposed contiguous copy
        perm = tuple(reversed(range(a.ndim)))
        t = as_lib(lib, a.transpose(perm)).permute(*perm)
        return t.requires_grad_(True) if grad else t
    return as_lib(lib, a, requires_grad=grad)


def run_case(case, dtype, seed=0, layout="contiguous"):
    """Builds the twins in ``dtype``, runs forward; returns
    ``(fm, tm, f_inputs, t_inputs, f_out, t_out)``."""
    fm, tm = twins(case.make, seed)
    fm.to(getattr(ferric, dtype))
    tm.to(getattr(torch, dtype))
    fm.train(case.train)
    tm.train(case.train)
    arrays = case.inputs(np.random.default_rng(seed + 100))
    f_in = [_convert(ferric, a, dtype, case.grad, layout) for a in arrays]
    t_in = [_convert(torch, a, dtype, case.grad, layout) for a in arrays]
    if case.call is None:
        return fm, tm, f_in, t_in, fm(*f_in), tm(*t_in)
    return fm, tm, f_in, t_in, case.call(ferric, fm, f_in), case.call(torch, tm, t_in)


def check_case(case, dtype, layout="contiguous"):
    """Forward outputs (values and dtypes), state after forward, input gradients and
    parameter gradients all match."""
    fm, tm, f_in, t_in, fout, tout = run_case(case, dtype, layout=layout)
    tol = {} if dtype == "float64" or case.tol32 is None else dict(
        rtol=case.tol32[0], atol=case.tol32[1])
    assert_close(fout, tout, dtype, what="output", **tol)
    for f, t in zip(tensors_in(fout), tensors_in(tout), strict=True):
        assert_same_dtype(f, t, "output")
    # buffers (running stats, num_batches_tracked) and renormed embedding rows
    for (fk, fv), (tk, tv) in zip(fm.state_dict().items(), tm.state_dict().items(),
                                  strict=True):
        assert fk == tk
        assert_close(fv, tv, dtype, what=f"state {fk} after forward")
    if not case.grad:
        return
    backward_both(fout, tout)
    for i, (f, t) in enumerate(zip(tensors_in(f_in), tensors_in(t_in), strict=True)):
        if t.requires_grad:
            assert_close(f.grad, t.grad, dtype, what=f"input {i} grad")
    fp = dict(fm.named_parameters())
    for name, tp in tm.named_parameters():
        assert_close(fp[name].grad, tp.grad, dtype, what=f"{name}.grad")


def _marks(case, dtype=None):
    """The xfail marks of ``case`` for a numeric comparison in ``dtype`` (none for the
    init/structure tests, ``dtype=None``)."""
    if dtype is None:
        return []
    if case.xfail:
        return [pytest.mark.xfail(strict=True, reason=case.xfail)]
    if case.xfail64 and dtype == "float64":
        return [pytest.mark.xfail(strict=True, reason=case.xfail64)]
    return []


def with_dtypes(cases):
    """``(case, dtype)`` params for every dtype, with the cases' xfail marks."""
    return [pytest.param(c, d, id=f"{c.id}-{d}", marks=_marks(c, d))
            for c in cases for d in DTYPES]


def with_marks(cases, numeric=True):
    """``case`` params with the cases' xfail marks for float64 comparisons (no marks
    when not ``numeric``)."""
    return [pytest.param(c, id=c.id, marks=_marks(c, "float64" if numeric else None))
            for c in cases]


def check_default_init(make, seed):
    """Same seed, same draws in the same order: the default initialisation equals
    PyTorch's exactly, and the generator is left in the same state."""
    ferric.manual_seed(seed)
    fm = make(ferric)
    torch.manual_seed(seed)
    tm = make(torch)
    fsd, tsd = fm.state_dict(), tm.state_dict()
    assert list(fsd) == list(tsd)
    for k, tv in tsd.items():
        fv = fsd[k]
        assert tuple(fv.shape) == tuple(tv.shape), k
        assert_same_dtype(fv, tv, k)
        np.testing.assert_array_equal(np_of(fv), np_of(tv), err_msg=k)
    assert ferric.rand(4).tolist() == torch.rand(4).tolist(), "generator states differ"


def check_structure(make):
    """state_dict keys, named_parameters/buffers/modules order, module types, repr and
    train/eval flags match."""
    fm, tm = twins(make)
    assert list(fm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in fm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in fm.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in fm.named_modules()] == [n for n, _ in tm.named_modules()]
    assert ([type(m).__name__ for m in fm.modules()]
            == [type(m).__name__ for m in tm.modules()])
    assert ([p.requires_grad for p in fm.parameters()]
            == [p.requires_grad for p in tm.parameters()])
    assert repr(fm) == repr(tm).replace("torch.", "ferric.")
    assert fm.training == tm.training
    fm.eval()
    tm.eval()
    assert [m.training for m in fm.modules()] == [m.training for m in tm.modules()]
