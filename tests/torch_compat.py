"""Helpers for the tests/test_vs_torch*.py files (not a test module itself).

Those tests build the same thing in ferric and in PyTorch from identical weights and
inputs and compare the numbers. Builders take the library as their argument
(``lambda lib: lib.nn.Linear(3, 4)``) so one expression makes both twins; values cross
between the libraries through NumPy.
"""

from __future__ import annotations

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
