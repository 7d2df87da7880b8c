//! Typed element buffers shared by all views of a tensor.
//!
//! A `Storage` is either a buffer ferric allocated or memory owned by someone else (a
//! NumPy array, kept alive by `owner`). It is shared through `Arc` so views are cheap and a
//! buffer can be freed from any thread. Mutation goes through raw pointers: all tensor
//! ops run while holding the GIL (or on data the op itself owns), and in-place ops copy
//! an input first when it shares storage with the output, so no two live slices alias
//! mutably. That invariant is what the `unsafe` accessors below rely on.
//!
//! Large buffers and page faults. A fresh multi-megabyte buffer costs a page fault per
//! 4 KiB page when first written, plus the kernel zeroing each page: for `c = a + b` on
//! 1.6e7 floats that is more work than the addition itself. Two measures:
//! * a small cache of recently freed large buffers (>= 1 MiB, at most 16 of them and
//!   256 MiB in total by default; `FERRIC_BUFFER_CACHE_MB` sets the total, 0 disables
//!   it). Outputs that are fully overwritten take one of the same dtype and nearly the
//!   same length ([`try_output_vec`]), so a loop that allocates the same shapes reuses
//!   mapped memory. The oldest entries are freed first when the budget is exceeded;
//!   [`release_cached_buffers`] frees them all.
//! * on Linux, fresh large allocations are advised `MADV_HUGEPAGE`, so the first touch
//!   faults in 2 MiB pages (512x fewer faults) where transparent huge pages are enabled
//!   (`FERRIC_HUGEPAGES=0` turns this off).
//!
//! Measured with `cargo bench --bench elementwise` (relu / add on 1e7 f32, one thread):
//! 28.7 / 32.6 ms with neither, 14.6 / 15.2 ms with huge pages, 8.4 / 11.1 ms with both.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

enum Owner {
    Bool(#[allow(dead_code)] Vec<bool>),
    U8(#[allow(dead_code)] Vec<u8>),
    I8(#[allow(dead_code)] Vec<i8>),
    I16(#[allow(dead_code)] Vec<i16>),
    I32(#[allow(dead_code)] Vec<i32>),
    I64(#[allow(dead_code)] Vec<i64>),
    F16(#[allow(dead_code)] Vec<half::f16>),
    BF16(#[allow(dead_code)] Vec<half::bf16>),
    F32(#[allow(dead_code)] Vec<f32>),
    F64(#[allow(dead_code)] Vec<f64>),
    /// Foreign memory (e.g. a NumPy array object) that must outlive the storage.
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

thread_local! {
    /// `inference_mode` on this thread (PyTorch's InferenceMode). Kept here, not with the
    /// autograd modes, because memory allocated under it is marked (see
    /// [`Storage::is_inference`]).
    static INFERENCE_MODE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether `inference_mode` is on for this thread.
pub fn inference_mode() -> bool {
    INFERENCE_MODE.with(|m| m.get())
}

/// Turns `inference_mode` on or off for this thread (the grad mode is separate).
pub fn set_inference_mode(on: bool) {
    INFERENCE_MODE.with(|m| m.set(on));
}

pub struct Storage {
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    writable: bool,
    /// Allocated under `inference_mode`: tensors on it are PyTorch's inference tensors,
    /// which may not be written in place (nor made to require grad) outside that mode.
    inference: bool,
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
        advise_huge_pages(p as *mut u8, layout.size());
        Ok(Vec::from_raw_parts(p, n, n))
    }
}

/// Allocates `n` elements whose values are unspecified (but valid `T`s): for outputs a
/// kernel overwrites completely. Large requests reuse a cached buffer when one fits
/// (no page faults, no zeroing); otherwise this is [`try_zeroed_vec`].
pub fn try_output_vec<T: Element>(op: &str, n: usize) -> Result<Vec<T>> {
    if n.saturating_mul(std::mem::size_of::<T>()) >= MIN_CACHED_BYTES {
        if let Some(v) = take_cached::<T>(n) {
            return Ok(v);
        }
    }
    try_zeroed_vec(op, n)
}

/// `n` elements computed by `f(i)`, allocated fallibly: the way to build a buffer whose
/// length comes from the user (`arange`, `linspace`), where `collect()` would abort the
/// process on an impossible request instead of raising.
pub fn try_vec_from_fn<T: Element>(
    op: &str,
    n: usize,
    mut f: impl FnMut(usize) -> T,
) -> Result<Vec<T>> {
    let mut v = try_output_vec::<T>(op, n)?;
    for (i, x) in v.iter_mut().enumerate() {
        *x = f(i);
    }
    Ok(v)
}

/// Tells Linux to back a fresh large allocation with transparent huge pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(p: *mut u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    const PAGE: usize = 4096;
    if bytes < 2 * HUGE || !huge_pages_enabled() {
        return;
    }
    // madvise wants page-aligned bounds; advise only whole pages inside the buffer
    let start = (p as usize).next_multiple_of(PAGE);
    let end = (p as usize + bytes) & !(PAGE - 1);
    if end > start {
        // SAFETY: [start, end) lies inside the live allocation; MADV_HUGEPAGE only
        // changes how the kernel backs those pages, never their contents. The result
        // is ignored: without THP support the advice is simply not taken.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// `FERRIC_HUGEPAGES=0` turns the advice off (read once).
#[cfg(target_os = "linux")]
fn huge_pages_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERRIC_HUGEPAGES").map_or(true, |v| v.trim() != "0"))
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_p: *mut u8, _bytes: usize) {}

/// Buffers smaller than this go straight back to the system allocator, which recycles
/// small blocks well on its own.
const MIN_CACHED_BYTES: usize = 1 << 20;
/// Bounds the linear search and the number of retained mappings.
const MAX_CACHED_BUFFERS: usize = 16;

struct BufferCache {
    /// Oldest first.
    entries: VecDeque<Owner>,
    bytes: usize,
}

fn cache() -> &'static Mutex<BufferCache> {
    static CACHE: OnceLock<Mutex<BufferCache>> = OnceLock::new();
    CACHE.get_or_init(|| {
        Mutex::new(BufferCache {
            entries: VecDeque::new(),
            bytes: 0,
        })
    })
}

fn lock_cache() -> std::sync::MutexGuard<'static, BufferCache> {
    // the cache holds plain buffers; a panic elsewhere cannot leave it inconsistent
    cache().lock().unwrap_or_else(|e| e.into_inner())
}

/// The cache's total budget in bytes (`FERRIC_BUFFER_CACHE_MB`, default 256 MiB).
fn cache_budget() -> usize {
    static BUDGET: OnceLock<usize> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        std::env::var("FERRIC_BUFFER_CACHE_MB")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(256)
            .saturating_mul(1 << 20)
    })
}

impl Owner {
    /// (bytes allocated, initialised length) of an owned vector; None for foreign memory.
    fn extent(&self) -> Option<(usize, usize)> {
        let d = self.dtype()?;
        Some(match self {
            Owner::Bool(v) => (v.capacity(), v.len()),
            Owner::U8(v) => (v.capacity(), v.len()),
            Owner::I8(v) => (v.capacity(), v.len()),
            Owner::I16(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::I32(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::I64(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::F16(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::BF16(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::F32(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::F64(v) => (v.capacity() * d.size_of(), v.len()),
            Owner::External(_) => return None,
        })
    }

    fn dtype(&self) -> Option<DType> {
        Some(match self {
            Owner::Bool(_) => DType::Bool,
            Owner::U8(_) => DType::U8,
            Owner::I8(_) => DType::I8,
            Owner::I16(_) => DType::I16,
            Owner::I32(_) => DType::I32,
            Owner::I64(_) => DType::I64,
            Owner::F16(_) => DType::F16,
            Owner::BF16(_) => DType::BF16,
            Owner::F32(_) => DType::F32,
            Owner::F64(_) => DType::F64,
            Owner::External(_) => return None,
        })
    }

    /// The vector back as `Vec<T>` when `T` is its element type.
    fn into_vec<T: Element>(self) -> Option<Vec<T>> {
        // SAFETY of the casts: T::DTYPE identifies T exactly, and each arm only runs
        // when the vector's element type is that dtype's type.
        macro_rules! back {
            ($($var:ident: $t:ty),*) => {
                match (self, T::DTYPE) {
                    $((Owner::$var(v), DType::$var) => {
                        Some(unsafe { std::mem::transmute::<Vec<$t>, Vec<T>>(v) })
                    })*
                    _ => None,
                }
            };
        }
        back!(Bool: bool, U8: u8, I8: i8, I16: i16, I32: i32, I64: i64, F16: half::f16,
            BF16: half::bf16, F32: f32, F64: f64)
    }
}

/// A cached buffer of `T` with between n and n + n/8 initialised elements, truncated to n.
fn take_cached<T: Element>(n: usize) -> Option<Vec<T>> {
    let mut c = lock_cache();
    let fits = |o: &Owner| {
        o.dtype() == Some(T::DTYPE)
            && o.extent()
                .is_some_and(|(_, len)| len >= n && len - n <= n / 8)
    };
    let i = c.entries.iter().rposition(fits)?;
    let owner = c.entries.remove(i)?;
    c.bytes -= owner.extent().map_or(0, |(b, _)| b);
    drop(c);
    let mut v = owner.into_vec::<T>()?;
    v.truncate(n);
    Some(v)
}

/// Keeps a large freed buffer for reuse, evicting the oldest beyond the budget.
fn recycle(owner: Owner) {
    let Some((bytes, _)) = owner.extent() else {
        return;
    };
    let budget = cache_budget();
    if bytes < MIN_CACHED_BYTES || bytes > budget {
        return;
    }
    let mut evicted = Vec::new();
    {
        let mut c = lock_cache();
        c.entries.push_back(owner);
        c.bytes += bytes;
        while c.bytes > budget || c.entries.len() > MAX_CACHED_BUFFERS {
            let Some(old) = c.entries.pop_front() else {
                break;
            };
            c.bytes -= old.extent().map_or(0, |(b, _)| b);
            evicted.push(old);
        }
    }
    // unmapping tens of megabytes takes a while: do it outside the lock
    drop(evicted);
}

/// Frees every cached buffer (bytes held by the cache drop to zero).
pub fn release_cached_buffers() {
    let entries = {
        let mut c = lock_cache();
        c.bytes = 0;
        std::mem::take(&mut c.entries)
    };
    drop(entries);
}

/// Bytes currently held by the buffer cache.
pub fn cached_bytes() -> usize {
    lock_cache().bytes
}

/// PyTorch's error for a buffer of `n` elements of `T` that cannot be allocated (an
/// `OutOfMemoryError` in Python: both a RuntimeError, as PyTorch raises, and a
/// MemoryError).
pub fn too_big<T>(op: &str, n: usize) -> Error {
    Error::memory(
        op,
        format!(
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate {} bytes.",
            (n as u128) * std::mem::size_of::<T>() as u128
        ),
    )
}

impl Drop for Storage {
    fn drop(&mut self) {
        // hand large ferric-owned buffers to the cache instead of the allocator
        let owner = std::mem::replace(&mut self._owner, Owner::Bool(Vec::new()));
        recycle(owner);
    }
}

impl Storage {
    pub fn from_vec<T: Element>(mut v: Vec<T>) -> Storage {
        let ptr = v.as_mut_ptr() as *mut u8;
        let len = v.len();
        // SAFETY of the casts below: T::DTYPE identifies T exactly.
        macro_rules! own {
            ($($var:ident: $t:ty),*) => {
                match T::DTYPE {
                    $(DType::$var => {
                        Owner::$var(unsafe { std::mem::transmute::<Vec<T>, Vec<$t>>(v) })
                    })*
                }
            };
        }
        let owner = own!(Bool: bool, U8: u8, I8: i8, I16: i16, I32: i32, I64: i64,
            F16: half::f16, BF16: half::bf16, F32: f32, F64: f64);
        Storage {
            ptr,
            len,
            dtype: T::DTYPE,
            writable: true,
            inference: inference_mode(),
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
            inference: false,
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
    /// Memory owned by someone else (wrapped by [`Storage::from_external`], e.g. a NumPy
    /// array), which its owner may read and write behind ferric's back.
    pub fn is_foreign(&self) -> bool {
        matches!(self._owner, Owner::External(_))
    }
    /// Allocated under `inference_mode` (an inference tensor's memory).
    pub fn is_inference(&self) -> bool {
        self.inference
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
    /// Carries a version over to fresh memory that replaces a tensor's storage (an
    /// `out=` tensor resized beyond its storage keeps counting from its old version).
    pub fn set_version(&self, v: u64) {
        self.version.store(v, Ordering::Relaxed);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_are_reused_and_bounded() {
        // a dtype/size no other test allocates, so concurrent tests cannot take it
        let n = (3 << 20) / 8 + 17;
        let v = try_output_vec::<i64>("test", n).unwrap();
        let p = v.as_ptr();
        drop(Storage::from_vec(v));
        let w = try_output_vec::<i64>("test", n - 5).unwrap();
        assert_eq!(w.len(), n - 5);
        assert_eq!(w.as_ptr(), p, "the freed buffer is handed out again");
        // a different dtype never gets it
        drop(Storage::from_vec(w));
        let f = try_output_vec::<f64>("test", n).unwrap();
        assert_ne!(f.as_ptr() as usize, p as usize);
        // far smaller requests do not pin a big buffer either
        let small = try_output_vec::<i64>("test", n / 2).unwrap();
        assert_ne!(small.as_ptr(), p);
        assert!(cached_bytes() <= cache_budget());
        release_cached_buffers();
        // zeroed allocations stay zero
        let z = try_zeroed_vec::<f32>("test", 1 << 20).unwrap();
        assert!(z.iter().all(|&x| x == 0.0));
    }
}
