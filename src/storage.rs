//! Typed element buffers shared by all views of a tensor.
//!
//! A `Storage` is either a buffer ferric allocated or memory owned by someone else (a
//! NumPy array, kept alive by `owner`). It is shared through `Arc` so views are cheap and a
//! buffer can be freed from any thread. Mutation goes through raw pointers: all tensor
//! ops run while holding the GIL (or on data the op itself owns), and in-place ops copy
//! an input first when it shares storage with the output, so no two live slices alias
//! mutably. That invariant is what the `unsafe` accessors below rely on.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};

enum Owner {
    Bool(#[allow(dead_code)] Vec<bool>),
    I64(#[allow(dead_code)] Vec<i64>),
    F32(#[allow(dead_code)] Vec<f32>),
    F64(#[allow(dead_code)] Vec<f64>),
    /// Foreign memory (e.g. a NumPy array object) that must outlive the storage.
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

pub struct Storage {
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    writable: bool,
    _owner: Owner,
    /// Bumped by every in-place write through any view; autograd compares it with the
    /// version a saved tensor was recorded at.
    version: AtomicU64,
}

// SAFETY: the buffer is plain data owned by `_owner`; access discipline is described in
// the module docs (serialised by the GIL, no aliasing mutable slices).
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

/// Allocates `n` zeroed elements, turning allocation failure into `MemoryError` instead
/// of aborting. Zero bytes are a valid value of every `Element` type.
pub fn try_zeroed_vec<T: Element>(op: &str, n: usize) -> Result<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| too_big::<T>(op, n))?;
    // SAFETY: layout has non-zero size; the pointer is checked for null; all-zero bytes
    // are a valid T; the Vec takes ownership with the same layout it would allocate with.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            return Err(too_big::<T>(op, n));
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}

fn too_big<T>(op: &str, n: usize) -> Error {
    Error::memory(
        op,
        format!(
            "DefaultCPUAllocator: not enough memory: you tried to allocate {} bytes.",
            (n as u128) * std::mem::size_of::<T>() as u128
        ),
    )
}

impl Storage {
    pub fn from_vec<T: Element>(mut v: Vec<T>) -> Storage {
        let ptr = v.as_mut_ptr() as *mut u8;
        let len = v.len();
        // SAFETY of the casts below: T::DTYPE identifies T exactly.
        let owner = match T::DTYPE {
            DType::Bool => Owner::Bool(unsafe { std::mem::transmute::<Vec<T>, Vec<bool>>(v) }),
            DType::I64 => Owner::I64(unsafe { std::mem::transmute::<Vec<T>, Vec<i64>>(v) }),
            DType::F32 => Owner::F32(unsafe { std::mem::transmute::<Vec<T>, Vec<f32>>(v) }),
            DType::F64 => Owner::F64(unsafe { std::mem::transmute::<Vec<T>, Vec<f64>>(v) }),
        };
        Storage {
            ptr,
            len,
            dtype: T::DTYPE,
            writable: true,
            _owner: owner,
            version: AtomicU64::new(0),
        }
    }

    pub fn zeros(op: &str, dtype: DType, n: usize) -> Result<Storage> {
        crate::with_dtype!(dtype, T, Ok(Storage::from_vec(try_zeroed_vec::<T>(op, n)?)))
    }

    /// Wraps foreign memory.
    ///
    /// # Safety
    /// `ptr` must point to `len` valid, aligned elements of `dtype` that stay alive and
    /// are not freed while `owner` lives.
    pub unsafe fn from_external(
        ptr: *mut u8,
        len: usize,
        dtype: DType,
        writable: bool,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Storage {
        Storage {
            ptr,
            len,
            dtype,
            writable,
            _owner: Owner::External(owner),
            version: AtomicU64::new(0),
        }
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn writable(&self) -> bool {
        self.writable
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Relaxed)
    }
    pub fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::Relaxed);
    }

    /// The elements as a slice.
    ///
    /// # Safety
    /// `T` must be this storage's element type and no mutable slice of it may be live.
    pub unsafe fn slice<T: Element>(&self) -> &[T] {
        debug_assert_eq!(T::DTYPE, self.dtype);
        if self.len == 0 {
            return &[];
        }
        std::slice::from_raw_parts(self.ptr as *const T, self.len)
    }

    /// The elements as a mutable slice.
    ///
    /// # Safety
    /// `T` must be this storage's element type and no other slice of it may be live.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut<T: Element>(&self) -> &mut [T] {
        debug_assert_eq!(T::DTYPE, self.dtype);
        if self.len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut(self.ptr as *mut T, self.len)
    }
}
