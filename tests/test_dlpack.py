"""DLPack interop: zero-copy round trips with NumPy (both directions, every dtype and
layout), lifetimes (the producer's memory outlives its consumers), read-only memory, the
capsule protocol (consume once, renaming, never-consumed capsules) and clear errors for
what ferric cannot import. PyTorch round trips run when torch is installed."""

from __future__ import annotations

import ctypes
import gc
import weakref

import numpy as np
import pytest

import ferric
from ferric.utils.dlpack import from_dlpack, to_dlpack

DTYPES = ["float32", "float64", "int64", "bool"]


def _np(dtype, shape):
    n = int(np.prod(shape))
    return (np.arange(n) % 7 - 3).astype(dtype).reshape(shape)


# Layouts of a ferric tensor to export, as functions of a fresh contiguous base.
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "step-sliced": lambda t: t[::2, 1::2],
    "offset row": lambda t: t[1],
    "expanded": lambda t: t[:1].expand(3, t.shape[1]),
    "zero-size": lambda t: t[:0],
    "0-d": lambda t: t[1, 2],
}


def _fresh(dtype):
    return ferric.from_numpy(_np(dtype, (4, 6)).copy())


def _ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_export_to_numpy_is_zero_copy(dtype, layout):
    t = LAYOUTS[layout](_fresh(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype) and a.shape == tuple(t.shape)
    np.testing.assert_array_equal(a, t.numpy())
    if t.numel() > 0:
        assert _ptr(a) == t.data_ptr()
        # strides in elements on our side, bytes on NumPy's
        assert a.strides == tuple(s * a.itemsize for s in t.stride())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "step-sliced", "zero-size",
                                    "0-d", "broadcast"])
def test_import_from_numpy_is_zero_copy(dtype, layout):
    base = _np(dtype, (4, 6))
    a = {"contiguous": base, "transposed": base.T, "step-sliced": base[::2, 1::2],
         "zero-size": base[:0], "0-d": base[1, 2, ...],
         "broadcast": np.broadcast_to(base[:1], (3, 6))}[layout]
    t = ferric.from_dlpack(a)
    assert t.dtype == getattr(ferric, dtype) and tuple(t.shape) == a.shape
    np.testing.assert_array_equal(t.numpy(), a)
    if a.size > 0:
        assert t.data_ptr() == _ptr(a)
        assert t.stride() == tuple(s // a.itemsize for s in a.strides)


def test_writes_are_shared_both_ways():
    a = np.zeros((2, 3), np.float32)
    t = ferric.from_dlpack(a)
    t[0, 1] = 5.0
    assert a[0, 1] == 5.0
    a[1, 2] = -2.0
    assert t[1, 2].item() == -2.0

    u = ferric.zeros(2, 3, dtype=ferric.int64)
    b = np.from_dlpack(u)
    b[1, 0] = 7
    assert u[1, 0].item() == 7
    u.add_(1)
    assert b.tolist() == [[1, 1, 1], [8, 1, 1]]


def test_round_trip_keeps_identity_of_memory():
    t = ferric.arange(10.0)[2:8:2]
    back = ferric.from_dlpack(np.from_dlpack(t))
    assert back.data_ptr() == t.data_ptr() and back.stride() == t.stride()
    assert back.tolist() == [2.0, 4.0, 6.0]
    # ferric -> ferric through the protocol shares memory too
    assert ferric.from_dlpack(t).data_ptr() == t.data_ptr()


def test_exported_memory_outlives_the_tensor():
    t = ferric.arange(1000.0)
    a = np.from_dlpack(t)
    del t
    gc.collect()
    ferric.ones(1000)  # reuse the allocator; `a` must still see its own data
    assert a[999] == 999.0 and a.sum() == 999 * 1000 / 2


def test_imported_memory_outlives_the_producer_and_is_released_after():
    a = np.arange(6.0)
    ref = weakref.ref(a)
    t = ferric.from_dlpack(a)
    del a
    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert ref() is not None  # the producer array is kept alive by the tensor
    v = t[2:]
    del t
    gc.collect()
    assert v.tolist() == [2.0, 3.0, 4.0, 5.0]  # views keep it alive too
    del v
    gc.collect()
    assert ref() is None  # the deleter ran: NumPy's array is released


def test_readonly_numpy_array_imports_read_only():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = ferric.from_dlpack(a)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1)
    assert a.tolist() == [0.0, 1.0, 2.0]
    # and it stays read-only when exported again
    assert not np.from_dlpack(t).flags.writeable


def test_readonly_tensor_refuses_the_unversioned_capsule():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = ferric.from_dlpack(a)
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()
    assert "versioned" in repr(t.__dlpack__(max_version=(1, 0)))


def test_capsule_names_and_single_consumption():
    t = ferric.tensor([1, 2, 3])
    cap = t.__dlpack__()
    assert 'capsule object "dltensor"' in repr(cap)
    assert ferric.from_dlpack(cap).tolist() == [1, 2, 3]
    assert '"used_dltensor"' in repr(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        ferric.from_dlpack(cap)
    vcap = t.__dlpack__(max_version=(1, 0))
    assert '"dltensor_versioned"' in repr(vcap)
    assert ferric.from_dlpack(vcap).tolist() == [1, 2, 3]
    assert '"used_dltensor_versioned"' in repr(vcap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        ferric.from_dlpack(vcap)
    # an older max_version gets the unversioned ABI
    assert '"dltensor"' in repr(t.__dlpack__(max_version=(0, 8)))


def test_unconsumed_capsules_free_their_context():
    # The capsule holds the storage alive; dropping it unconsumed must release it (the
    # capsule destructor runs the deleter). Observed through a NumPy-owned storage.
    a = np.arange(4.0)
    ref = weakref.ref(a)
    t = ferric.from_numpy(a)
    del a
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    del t
    gc.collect()
    assert ref() is not None
    del caps
    gc.collect()
    assert ref() is None


def test_to_dlpack_and_from_dlpack_functions():
    t = ferric.tensor([[1.5, 2.5]])
    assert from_dlpack(to_dlpack(t)).tolist() == [[1.5, 2.5]]
    assert ferric.from_dlpack is from_dlpack
    a = np.ones(2)
    c = ferric.from_dlpack(a, copy=True)
    c.add_(1)
    assert a.tolist() == [1.0, 1.0]
    assert ferric.from_dlpack(a, device="cpu").tolist() == [1.0, 1.0]


def test_dlpack_device_and_export_options():
    t = ferric.ones(2)
    assert t.__dlpack_device__() == (1, 0)
    for ok in [None, -1]:
        assert ferric.from_dlpack(t.__dlpack__(stream=ok)).tolist() == [1.0, 1.0]
    assert ferric.from_dlpack(t.__dlpack__(dl_device=(1, 0))).tolist() == [1.0, 1.0]
    copied = ferric.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    copied.add_(1)
    assert t.tolist() == [1.0, 1.0] and copied.tolist() == [2.0, 2.0]
    ro = ferric.from_dlpack(t.__dlpack__(max_version=(1, 0), read_only=True))
    with pytest.raises(RuntimeError, match="read-only"):
        ro.add_(1)


# (call, exception type, message fragment): what ferric refuses, and with which error.
class _FakeCuda:
    def __dlpack__(self, **kw):
        raise AssertionError("must not be asked for a capsule")

    def __dlpack_device__(self):
        return (2, 0)


class _NotACapsule:
    def __dlpack__(self, **kw):
        return 42

    def __dlpack_device__(self):
        return (1, 0)


ERRORS = [
    ("uint16", lambda: ferric.from_dlpack(np.zeros(3, np.uint16)), TypeError,
     "unsupported DLPack dtype uint16"),
    ("uint32", lambda: ferric.from_dlpack(np.zeros(3, np.uint32)), TypeError,
     "unsupported DLPack dtype uint32"),
    ("complex", lambda: ferric.from_dlpack(np.zeros(3, np.complex64)), TypeError,
     "unsupported DLPack dtype"),
    ("complex64", lambda: ferric.from_dlpack(np.zeros(3, np.complex64)), TypeError,
     "unsupported DLPack dtype complex64"),
    ("cuda device", lambda: ferric.from_dlpack(_FakeCuda()), RuntimeError,
     "only supports CPU memory"),
    ("device kwarg", lambda: ferric.from_dlpack(np.ones(1), device="cuda"), RuntimeError,
     "only supports the 'cpu' device"),
    ("not a producer", lambda: ferric.from_dlpack([1, 2]), RuntimeError,
     "expected an object implementing __dlpack__"),
    ("bad producer", lambda: ferric.from_dlpack(_NotACapsule()), TypeError,
     "not a DLPack capsule"),
    ("requires grad", lambda: ferric.ones(2, requires_grad=True).__dlpack__(), BufferError,
     "Can't export tensors that require gradient, use tensor.detach()"),
    ("numpy of requires grad", lambda: np.from_dlpack(ferric.ones(2, requires_grad=True)),
     BufferError, "require gradient"),
    ("stream", lambda: ferric.ones(2).__dlpack__(stream=1), AssertionError,
     "stream should be None on cpu."),
    ("dl_device", lambda: ferric.ones(2).__dlpack__(dl_device=(2, 0)), BufferError,
     "cannot be exported to device"),
    ("max_version type", lambda: ferric.ones(2).__dlpack__(max_version=1), TypeError,
     "max_version must be a tuple"),
    ("to_dlpack(list)", lambda: to_dlpack([1.0]), TypeError, "must be Tensor"),
]


@pytest.mark.parametrize("call,exc,msg", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_refused_import_leaves_the_capsule_usable():
    # a failed import must not rename (consume) the capsule
    a = np.zeros(3, np.uint16)
    cap = a.__dlpack__()
    with pytest.raises(TypeError):
        ferric.from_dlpack(cap)
    assert '"dltensor"' in repr(cap)
    assert np.from_dlpack(_Holder(cap)).tolist() == [0, 0, 0]


class _Holder:
    """Hands a ready-made capsule to NumPy's from_dlpack."""

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **kw):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def test_misaligned_producer_memory_is_copied():
    # DLPack allows any byte offset; ferric's kernels need aligned elements, so such
    # memory is copied (the values must still be right).
    raw = np.zeros(8 * 4 + 1, np.uint8)
    a = np.ndarray((4,), dtype=np.float64, buffer=raw.data, offset=1)
    a[:] = [1.0, 2.0, 3.0, 4.0]
    assert _ptr(a) % 8 != 0
    t = ferric.from_dlpack(a)
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert t.data_ptr() % 8 == 0


def test_pointer_helper_is_consistent():
    # guards the helper the zero-copy assertions rely on
    a = np.arange(3.0)
    assert _ptr(a) == ctypes.addressof(ctypes.c_double.from_buffer(a))


def test_torch_round_trip_is_zero_copy():
    torch = pytest.importorskip("torch")
    t = ferric.arange(6.0).reshape(2, 3).t()
    pt = torch.from_dlpack(t)
    assert pt.data_ptr() == t.data_ptr() and pt.stride() == t.stride()
    pt[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    back = ferric.from_dlpack(torch.arange(4, dtype=torch.int64))
    assert back.tolist() == [0, 1, 2, 3] and back.dtype == ferric.int64
    with pytest.raises(TypeError, match="unsupported DLPack dtype"):
        ferric.from_dlpack(torch.zeros(2, dtype=torch.complex64))
