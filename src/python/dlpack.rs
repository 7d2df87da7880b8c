//! DLPack interop: `Tensor.__dlpack__` / `__dlpack_device__` (export) and
//! `_core._from_dlpack` (import), zero-copy both ways.
//!
//! The C structs below are the DLPack ABI (dlpack.h), written out by hand so ferric needs
//! no extra crate. Both the unversioned 0.x ABI (`"dltensor"` capsules, which every
//! consumer understands) and the 1.x `DLManagedTensorVersioned` (`"dltensor_versioned"`,
//! which can carry a read-only flag) are produced and consumed; a consumer asking with
//! `max_version >= (1, 0)` gets the versioned one, as the array-API standard describes.
//!
//! Ownership: an exported capsule owns a boxed context holding an `Arc` of the storage,
//! so the memory outlives the tensor for as long as the consumer needs it. The consumer
//! renames the capsule to `"used_dltensor"` and later calls the deleter; a capsule that
//! is never consumed frees the context in its destructor. On import we do the reverse:
//! the producer's managed tensor becomes the storage's foreign owner, whose `Drop` calls
//! the producer's deleter when the last ferric view goes away.

use crate::dtype::DType;
use crate::layout::Layout;
use crate::python::tensor::{wrap, PyTensor};
use crate::storage::Storage;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyAssertionError, PyBufferError, PyRuntimeError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::ffi::{c_void, CStr};
use std::sync::Arc;

// ---------------------------------------------------------------- the C ABI (dlpack.h)

const KDL_CPU: i32 = 1;
const KDL_INT: u8 = 0;
const KDL_UINT: u8 = 1;
const KDL_FLOAT: u8 = 2;
const KDL_BFLOAT: u8 = 4;
const KDL_COMPLEX: u8 = 5;
const KDL_BOOL: u8 = 6;
/// `DLPACK_FLAG_BITMASK_READ_ONLY` / `..._IS_COPIED` of `DLManagedTensorVersioned.flags`.
const FLAG_READ_ONLY: u64 = 1;
const FLAG_IS_COPIED: u64 = 1 << 1;

const LEGACY_NAME: &CStr = c"dltensor";
const LEGACY_USED: &CStr = c"used_dltensor";
const VERSIONED_NAME: &CStr = c"dltensor_versioned";
const VERSIONED_USED: &CStr = c"used_dltensor_versioned";

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    /// `ndim` sizes.
    shape: *mut i64,
    /// `ndim` strides in elements (not bytes), or NULL for compact row-major.
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

/// The DLPack version ferric's versioned capsules declare.
const DLPACK_MAJOR: u32 = 1;
const DLPACK_MINOR: u32 = 0;

// ---------------------------------------------------------------- export

/// What an exported capsule keeps alive: the storage and the shape/stride arrays the
/// `DLTensor` points into. `M` is the managed-tensor struct (legacy or versioned); it sits
/// in the same box so its address stays fixed until the deleter runs.
struct Exported<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _storage: Arc<Storage>,
}

/// Drops an export context. The storage may own a Python object (the NumPy array behind
/// `from_numpy`); PyO3 defers a decref it cannot prove is made under the GIL until its
/// next GIL acquisition, so when this thread does hold the GIL (capsule destructors,
/// NumPy's deleter) we say so, and the memory is released right away.
fn drop_context<M>(ctx: Box<Exported<M>>) {
    // SAFETY: plain state queries, valid at any time.
    let holds_gil = unsafe { ffi::Py_IsInitialized() != 0 && ffi::PyGILState_Check() == 1 };
    if holds_gil {
        Python::attach(|_| drop(ctx));
    } else {
        drop(ctx);
    }
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if !m.is_null() {
        // SAFETY: `manager_ctx` is the box `export` leaked for this managed tensor, and
        // the DLPack contract calls the deleter exactly once.
        drop_context(unsafe { Box::from_raw((*m).manager_ctx as *mut Exported<DLManagedTensor>) });
    }
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if !m.is_null() {
        // SAFETY: as in `delete_legacy`.
        drop_context(unsafe {
            Box::from_raw((*m).manager_ctx as *mut Exported<DLManagedTensorVersioned>)
        });
    }
}

/// Capsule destructors: a capsule still carrying its original name was never consumed,
/// so the managed tensor is ours to free. A renamed ("used_...") capsule belongs to the
/// consumer, which calls the deleter itself.
unsafe extern "C" fn legacy_capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: `cap` is a live capsule (CPython calls this from its dealloc);
    // PyCapsule_IsValid never sets an exception, so a pending one is left untouched.
    unsafe {
        if ffi::PyCapsule_IsValid(cap, LEGACY_NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, LEGACY_NAME.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

unsafe extern "C" fn versioned_capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: as in `legacy_capsule_destructor`.
    unsafe {
        if ffi::PyCapsule_IsValid(cap, VERSIONED_NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, VERSIONED_NAME.as_ptr())
                as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

fn dl_dtype(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::Bool => (KDL_BOOL, 8),
        DType::U8 => (KDL_UINT, 8),
        DType::I8 => (KDL_INT, 8),
        DType::I16 => (KDL_INT, 16),
        DType::I32 => (KDL_INT, 32),
        DType::I64 => (KDL_INT, 64),
        DType::F16 => (KDL_FLOAT, 16),
        DType::BF16 => (KDL_BFLOAT, 16),
        DType::F32 => (KDL_FLOAT, 32),
        DType::F64 => (KDL_FLOAT, 64),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

/// A `DLTensor` describing `t`; its shape/strides point into `shape`/`strides`, which
/// the caller keeps in the same box as the returned struct.
fn dl_tensor(t: &Tensor, shape: &mut [i64], strides: &mut [i64]) -> DLTensor {
    let item = t.dtype().size_of();
    DLTensor {
        // the view's first element; byte_offset stays 0, as NumPy and PyTorch export
        data: t.storage.as_ptr().wrapping_add(t.layout.offset * item) as *mut c_void,
        device: DLDevice {
            device_type: KDL_CPU,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

/// The two managed-tensor structs, as far as `leak_export` needs to fill them in.
trait Managed {
    fn parts(&mut self) -> (&mut DLTensor, &mut *mut c_void);
}

impl Managed for DLManagedTensor {
    fn parts(&mut self) -> (&mut DLTensor, &mut *mut c_void) {
        (&mut self.dl_tensor, &mut self.manager_ctx)
    }
}

impl Managed for DLManagedTensorVersioned {
    fn parts(&mut self) -> (&mut DLTensor, &mut *mut c_void) {
        (&mut self.dl_tensor, &mut self.manager_ctx)
    }
}

/// Boxes `managed` together with the shape/stride arrays its `DLTensor` points into and
/// the storage it keeps alive, and leaks the box: the managed tensor's `manager_ctx` is
/// the box, which the deleter reclaims. Returns the managed tensor's address.
fn leak_export<M: Managed>(t: &Tensor, managed: M) -> *mut M {
    let mut ctx = Box::new(Exported {
        managed,
        shape: t.shape().iter().map(|&d| d as i64).collect(),
        strides: t.strides().iter().map(|&s| s as i64).collect(),
        _storage: t.storage.clone(),
    });
    // the Vecs' heap buffers stay put when the box moves, so these pointers stay valid
    let Exported {
        managed,
        shape,
        strides,
        ..
    } = &mut *ctx;
    *managed.parts().0 = dl_tensor(t, shape, strides);
    let raw = Box::into_raw(ctx);
    // SAFETY: `raw` is the live box just leaked; only the deleter frees it.
    unsafe {
        *(*raw).managed.parts().1 = raw as *mut c_void;
        std::ptr::addr_of_mut!((*raw).managed)
    }
}

/// Builds a `"dltensor"` or `"dltensor_versioned"` capsule sharing `t`'s memory.
fn export<'py>(
    py: Python<'py>,
    t: &Tensor,
    versioned: bool,
    flags: u64,
) -> PyResult<Bound<'py, PyAny>> {
    // filled in by `leak_export` once the arrays it points into have their final home
    let placeholder = || dl_tensor(t, &mut [], &mut []);
    let (ptr, name, destructor): (*mut c_void, &CStr, ffi::PyCapsule_Destructor) = if versioned {
        let m = leak_export(
            t,
            DLManagedTensorVersioned {
                version: DLPackVersion {
                    major: DLPACK_MAJOR,
                    minor: DLPACK_MINOR,
                },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_versioned),
                flags,
                dl_tensor: placeholder(),
            },
        );
        (
            m as *mut c_void,
            VERSIONED_NAME,
            versioned_capsule_destructor,
        )
    } else {
        let m = leak_export(
            t,
            DLManagedTensor {
                dl_tensor: placeholder(),
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_legacy),
            },
        );
        (m as *mut c_void, LEGACY_NAME, legacy_capsule_destructor)
    };
    // SAFETY: `ptr` is a valid managed tensor and `name` a static C string, as the capsule
    // API requires.
    let cap = unsafe { ffi::PyCapsule_New(ptr, name.as_ptr(), Some(destructor)) };
    if cap.is_null() {
        // the capsule was not created, so nobody else will free the context
        // SAFETY: `ptr` is the managed tensor built above and was not handed out.
        unsafe {
            if versioned {
                delete_versioned(ptr as *mut DLManagedTensorVersioned);
            } else {
                delete_legacy(ptr as *mut DLManagedTensor);
            }
        }
    }
    // SAFETY: `cap` is a new (owned) reference or NULL with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, cap) }
}

/// Reads `(major, minor)` from a `max_version` argument.
fn version_arg(v: &Bound<'_, PyAny>) -> PyResult<(i64, i64)> {
    v.extract::<(i64, i64)>().map_err(|_| {
        PyTypeError::new_err(format!(
            "__dlpack__: max_version must be a tuple (major, minor), got {}",
            crate::python::convert::type_name(v)
        ))
    })
}

#[pymethods]
impl PyTensor {
    /// Exports the tensor as a DLPack capsule sharing its memory (the array-API
    /// `__dlpack__` protocol, as `torch.Tensor.__dlpack__`).
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None, read_only=false))]
    fn __dlpack__<'py>(
        slf: &Bound<'py, Self>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<&Bound<'py, PyAny>>,
        dl_device: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
        read_only: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.borrow();
        if this.requires_grad()? {
            return Err(PyBufferError::new_err(
                "Can't export tensors that require gradient, use tensor.detach()",
            ));
        }
        // CPU memory needs no stream synchronisation: PyTorch accepts None and -1 here
        if let Some(s) = stream {
            if !s.is_none() && s.extract::<i64>().ok() != Some(-1) {
                return Err(PyAssertionError::new_err("stream should be None on cpu."));
            }
        }
        if let Some(d) = dl_device.filter(|d| !d.is_none()) {
            let dev = d.extract::<(i64, i64)>().ok();
            if dev != Some((KDL_CPU as i64, 0)) {
                return Err(PyBufferError::new_err(format!(
                    "__dlpack__: ferric tensors live on the CPU and cannot be exported to device {}",
                    d.repr()?
                )));
            }
        }
        let versioned = match max_version.filter(|v| !v.is_none()) {
            Some(v) => version_arg(v)?.0 >= DLPACK_MAJOR as i64,
            None => false,
        };
        let copied = copy == Some(true);
        let t = if copied {
            this.t.copy_as(this.t.dtype())?
        } else {
            this.t.clone()
        };
        drop(this);
        let readonly = read_only || !t.storage.writable();
        if readonly && !versioned {
            // only versioned capsules can tell the consumer not to write
            return Err(PyBufferError::new_err(
                "Cannot export a read-only tensor as an unversioned DLPack capsule, which \
                 cannot signal read-only memory; pass max_version=(1, 0)",
            ));
        }
        let flags =
            if readonly { FLAG_READ_ONLY } else { 0 } | if copied { FLAG_IS_COPIED } else { 0 };
        export(py, &t, versioned, flags)
    }

    /// `(device_type, device_id)`: always `(1, 0)`, DLPack's `kDLCPU`.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (KDL_CPU, 0)
    }
}

// ---------------------------------------------------------------- import

/// The producer's managed tensor, owned by a ferric storage once the capsule is
/// consumed; dropping it calls the producer's deleter, which releases the memory.
struct ForeignDLPack {
    managed: *mut c_void,
    versioned: bool,
}

// SAFETY: DLPack deleters may be called from any thread (NumPy's takes the GIL itself,
// PyTorch's only drops a reference count); the pointer is used for nothing else.
unsafe impl Send for ForeignDLPack {}
unsafe impl Sync for ForeignDLPack {}

impl Drop for ForeignDLPack {
    fn drop(&mut self) {
        // SAFETY: `managed` came from a consumed capsule of the matching kind, and this is
        // the single owner, so the deleter runs exactly once.
        unsafe {
            if self.versioned {
                let m = self.managed as *mut DLManagedTensorVersioned;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            } else {
                let m = self.managed as *mut DLManagedTensor;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            }
        }
    }
}

fn dtype_name(t: DLDataType) -> String {
    let kind = match t.code {
        KDL_INT => "int",
        KDL_UINT => "uint",
        KDL_FLOAT => "float",
        KDL_BFLOAT => "bfloat",
        KDL_COMPLEX => "complex",
        KDL_BOOL => "bool",
        _ => return format!("(type code {}, {} bits)", t.code, t.bits),
    };
    if t.lanes == 1 {
        format!("{kind}{}", t.bits)
    } else {
        format!("{kind}{}x{}", t.bits, t.lanes)
    }
}

fn from_dl_dtype(t: DLDataType) -> PyResult<DType> {
    match (t.code, t.bits, t.lanes) {
        (KDL_FLOAT, 16, 1) => Ok(DType::F16),
        (KDL_BFLOAT, 16, 1) => Ok(DType::BF16),
        (KDL_FLOAT, 32, 1) => Ok(DType::F32),
        (KDL_FLOAT, 64, 1) => Ok(DType::F64),
        (KDL_UINT, 8, 1) => Ok(DType::U8),
        (KDL_INT, 8, 1) => Ok(DType::I8),
        (KDL_INT, 16, 1) => Ok(DType::I16),
        (KDL_INT, 32, 1) => Ok(DType::I32),
        (KDL_INT, 64, 1) => Ok(DType::I64),
        (KDL_BOOL, 8, 1) => Ok(DType::Bool),
        _ => Err(PyTypeError::new_err(format!(
            "from_dlpack: unsupported DLPack dtype {}; ferric supports float16, bfloat16, \
             float32, float64, uint8, int8, int16, int32, int64 and bool",
            dtype_name(t)
        ))),
    }
}

/// A validated description of a foreign `DLTensor`: everything needed to wrap it.
struct Described {
    dtype: DType,
    base: *mut u8,
    layout: Layout,
    /// Elements the storage must span (the view's largest reachable index + 1).
    len: usize,
}

/// Checks device, dtype, shape and strides of `dl` without taking ownership of it, so a
/// failure leaves the capsule to its producer.
///
/// # Safety
/// `dl` must be a valid `DLTensor` (its shape/strides arrays hold `ndim` entries).
unsafe fn describe(dl: &DLTensor) -> PyResult<Described> {
    if dl.device.device_type != KDL_CPU {
        return Err(PyRuntimeError::new_err(format!(
            "from_dlpack: ferric only supports CPU memory, but the DLPack tensor is on \
             device type {} (device id {})",
            dl.device.device_type, dl.device.device_id
        )));
    }
    let dtype = from_dl_dtype(dl.dtype)?;
    let ndim = usize::try_from(dl.ndim)
        .map_err(|_| PyRuntimeError::new_err(format!("from_dlpack: invalid ndim {}", dl.ndim)))?;
    let bad = |what: &str, v: &[i64]| {
        PyRuntimeError::new_err(format!("from_dlpack: invalid {what} {v:?}"))
    };
    let raw_shape: &[i64] = if ndim == 0 {
        &[]
    } else if dl.shape.is_null() {
        return Err(PyRuntimeError::new_err("from_dlpack: NULL shape"));
    } else {
        // SAFETY: the DLTensor contract: `shape` holds `ndim` entries.
        unsafe { std::slice::from_raw_parts(dl.shape, ndim) }
    };
    let shape: Vec<usize> = raw_shape
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<_, _>>()
        .map_err(|_| bad("shape", raw_shape))?;
    let numel = crate::shape::checked_numel("from_dlpack", &shape)?;
    let strides: Vec<isize> = if dl.strides.is_null() || ndim == 0 {
        crate::shape::contiguous_strides(&shape).to_vec()
    } else {
        // SAFETY: as for `shape`.
        let raw = unsafe { std::slice::from_raw_parts(dl.strides, ndim) };
        if raw.iter().any(|&s| s < 0) {
            return Err(PyRuntimeError::new_err(format!(
                "from_dlpack: tensors with negative strides are not supported (strides \
                 {raw:?}); make a copy first"
            )));
        }
        raw.iter()
            .map(|&s| isize::try_from(s))
            .collect::<Result<_, _>>()
            .map_err(|_| bad("strides", raw))?
    };
    // the highest element index reachable, with overflow checks (shapes are untrusted)
    let mut len: usize = if numel == 0 { 0 } else { 1 };
    if numel > 0 {
        for (&d, &s) in shape.iter().zip(&strides) {
            len = (d - 1)
                .checked_mul(s as usize)
                .and_then(|x| x.checked_add(len))
                .ok_or_else(|| {
                    bad(
                        "strides",
                        &strides.iter().map(|&s| s as i64).collect::<Vec<_>>(),
                    )
                })?;
        }
    }
    if len
        .checked_mul(dtype.size_of())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(bad("shape", raw_shape));
    }
    let offset = usize::try_from(dl.byte_offset).map_err(|_| bad("byte_offset", &[]))?;
    Ok(Described {
        dtype,
        base: (dl.data as *mut u8).wrapping_add(offset),
        layout: Layout {
            shape: shape.as_slice().into(),
            strides: strides.as_slice().into(),
            offset: 0,
        },
        len,
    })
}

/// Wraps validated foreign memory. Misaligned data (legal in DLPack, but ferric's kernels
/// read typed slices) is copied into a fresh aligned buffer, after which the producer's
/// memory is released at once.
fn wrap_described(d: Described, writable: bool, owner: ForeignDLPack) -> PyResult<Tensor> {
    let item = d.dtype.size_of();
    let storage = if d.len == 0 || (d.base as usize).is_multiple_of(item) {
        // SAFETY: `describe` checked that the view spans `len` elements from `base`,
        // which the producer keeps alive until `owner`'s deleter runs.
        unsafe { Storage::from_external(d.base, d.len, d.dtype, writable, Box::new(owner)) }
    } else {
        let s = Storage::zeros("from_dlpack", d.dtype, d.len)?;
        // SAFETY: both buffers span `len * item` bytes and do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(d.base, s.as_ptr(), d.len * item) };
        drop(owner);
        s
    };
    Ok(Tensor {
        storage: Arc::new(storage),
        layout: d.layout,
    })
}

const CONSUMED: &str = "from_dlpack received an invalid capsule. Note that DLTensor capsules \
                        can be consumed only once, so you might have already constructed a \
                        tensor from it once.";

/// Consumes a DLPack capsule (either ABI) into a tensor sharing its memory.
fn consume(cap: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let p = cap.as_ptr();
    // SAFETY: the capsule API is called on a live object; IsValid also checks the type.
    unsafe {
        if ffi::PyCapsule_IsValid(p, VERSIONED_NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, VERSIONED_NAME.as_ptr())
                as *mut DLManagedTensorVersioned;
            if m.is_null() {
                return Err(PyErr::fetch(cap.py()));
            }
            if (*m).version.major > DLPACK_MAJOR {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: the producer uses DLPack {}.{}, newer than the {}.x ferric \
                     understands",
                    (*m).version.major,
                    (*m).version.minor,
                    DLPACK_MAJOR
                )));
            }
            let d = describe(&(*m).dl_tensor)?;
            let writable = (*m).flags & FLAG_READ_ONLY == 0;
            if ffi::PyCapsule_SetName(p, VERSIONED_USED.as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            let owner = ForeignDLPack {
                managed: m as *mut c_void,
                versioned: true,
            };
            return wrap_described(d, writable, owner);
        }
        if ffi::PyCapsule_IsValid(p, LEGACY_NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, LEGACY_NAME.as_ptr()) as *mut DLManagedTensor;
            if m.is_null() {
                return Err(PyErr::fetch(cap.py()));
            }
            let d = describe(&(*m).dl_tensor)?;
            if ffi::PyCapsule_SetName(p, LEGACY_USED.as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            let owner = ForeignDLPack {
                managed: m as *mut c_void,
                versioned: false,
            };
            return wrap_described(d, true, owner);
        }
    }
    Err(PyRuntimeError::new_err(CONSUMED))
}

fn is_capsule(obj: &Bound<'_, PyAny>) -> bool {
    // SAFETY: a type check on a live object.
    unsafe { ffi::PyCapsule_CheckExact(obj.as_ptr()) == 1 }
}

/// `ferric.from_dlpack(ext)`: a tensor sharing the memory of any object implementing
/// `__dlpack__` (NumPy arrays, PyTorch tensors, ...) or of a DLPack capsule.
#[pyfunction]
fn _from_dlpack(py: Python<'_>, ext: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
    if is_capsule(ext) {
        return wrap(py, consume(ext)?);
    }
    if !ext.hasattr("__dlpack__")? {
        // RuntimeError, as PyTorch (which treats such an object as a bad capsule)
        return Err(PyRuntimeError::new_err(format!(
            "from_dlpack: expected an object implementing __dlpack__ (or a DLPack capsule), \
             got {}",
            crate::python::convert::type_name(ext)
        )));
    }
    // refuse non-CPU producers before asking them for a capsule
    if ext.hasattr("__dlpack_device__")? {
        let (dev, id): (i64, i64) = ext.call_method0("__dlpack_device__")?.extract()?;
        if dev != KDL_CPU as i64 {
            return Err(PyRuntimeError::new_err(format!(
                "from_dlpack: ferric only supports CPU memory, but the object is on device \
                 type {dev} (device id {id})"
            )));
        }
    }
    // Ask for the versioned ABI (it can flag read-only memory); producers predating the
    // `max_version` keyword raise TypeError, as PyTorch's from_dlpack also assumes.
    let kw = PyDict::new(py);
    kw.set_item(
        "max_version",
        PyTuple::new(py, [DLPACK_MAJOR, DLPACK_MINOR])?,
    )?;
    let cap = match ext.call_method("__dlpack__", (), Some(&kw)) {
        Ok(c) => c,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => ext.call_method0("__dlpack__")?,
        Err(e) => return Err(e),
    };
    if !is_capsule(&cap) {
        return Err(PyTypeError::new_err(format!(
            "from_dlpack: __dlpack__ returned {}, not a DLPack capsule",
            crate::python::convert::type_name(&cap)
        )));
    }
    wrap(py, consume(&cap)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_from_dlpack, m)?)
}
