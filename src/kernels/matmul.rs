//! Matrix-multiply kernels on slices + strides: `C = alpha * C + beta * (A @ B)` for a
//! batch of matrices.
//!
//! float32/float64 go through the `gemm` crate, which takes arbitrary row/column strides,
//! so transposed, step-sliced and expanded (stride 0) operands are read in place with no
//! packing copy on our side. It picks its AVX-512 / AVX2+FMA micro-kernel at run time
//! (the `x86-v4` feature compiles the AVX-512 one in; it is only used when the CPU has
//! it). Wide float32 products on an AVX-512 CPU use ferric's own packed kernel instead
//! (`packed`), which is faster there (see its docs and BENCHMARKS.md). int64 uses a simple cache-blocked loop with wrapping arithmetic (PyTorch's
//! integer matmul wraps on overflow too). Tiny products skip `gemm` and use a plain loop,
//! because dispatch overhead dominates there; matrix-vector products have their own
//! kernels (`gemv`), since a GEMM packs operands that a matrix-vector product reads once.
//!
//! Threads: a batch of small products is split across ferric's pool by whole products
//! (each runs serially, no synchronisation inside a product); a single large product is
//! cut into panels of C, one serial `gemm` call per thread (see `Panels`). Code already
//! running on a pool worker (e.g. a convolution that split its batch) never splits again.
//!
//! C may be uninitialised memory (`gemm_batched_uninit`): every path stores each element
//! of C and reads C only when `read_c` is set, which the uninitialised entry refuses.

mod gemv;
#[cfg(target_arch = "x86_64")]
mod packed;
#[cfg(test)]
mod tests;

pub use gemv::dot;

use crate::dtype::Element;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Above this many multiply-adds (`m * n * k`, summed over a batch) a call may use
/// ferric's pool; below it the calling thread does all the work. A 64x64x64 product takes
/// ~5 us on one AVX-512 core, about what a hand-off to the pool costs.
pub const PARALLEL_THRESHOLD: usize = 64 * 64 * 64;

/// Products with at most this many multiply-adds use the plain loop instead of `gemm`.
pub const SMALL_PRODUCT: usize = 512;

/// A batch whose products are each below this many multiply-adds is split across the
/// pool by whole products: `gemm`'s own splitting synchronises its threads after every
/// packed block, which costs more than it gains on products this small.
const BATCH_SPLIT: usize = 256 * 256 * 256;

/// Each task of a batch split gets at least this much work (tiny products are grouped).
const MIN_TASK_WORK: usize = 1 << 16;

/// One matrix operand inside a storage: strides in elements for rows and columns.
/// (The element offset of each matrix in a batch is given separately.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatStrides {
    pub rs: isize,
    pub cs: isize,
}

/// Problem description for a batch of products `C[b] = alpha*C[b] + beta*A[b] @ B[b]`
/// where A is m x k, B is k x n and C is m x n.
#[derive(Clone, Copy, Debug)]
pub struct GemmSpec<T> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: MatStrides,
    pub b: MatStrides,
    pub c: MatStrides,
    /// Scale applied to the existing contents of C (only used when `read_c`).
    pub alpha: T,
    /// Scale applied to the product.
    pub beta: T,
    /// When false C is write-only (its old contents, even NaN, are ignored).
    pub read_c: bool,
}

/// Strides of a matrix from element counts: (row stride, column stride).
pub fn mat(rs: usize, cs: usize) -> MatStrides {
    MatStrides {
        rs: rs as isize,
        cs: cs as isize,
    }
}

/// A `C = A @ B` spec for an (m x k) @ (k x n) product with unit scales and a
/// write-only C (set `read_c` to accumulate into C).
pub fn spec<T: MatElem>(
    (m, n, k): (usize, usize, usize),
    a: MatStrides,
    b: MatStrides,
    c: MatStrides,
) -> GemmSpec<T> {
    GemmSpec {
        m,
        n,
        k,
        a,
        b,
        c,
        alpha: T::one(),
        beta: T::one(),
        read_c: false,
    }
}

/// Element types with a matrix-multiply kernel.
pub trait MatElem: Element {
    fn zero() -> Self;
    fn one() -> Self;
    /// `acc + a * b` (wrapping for integers).
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn add(a: Self, b: Self) -> Self;
    /// Runs one product with the `gemm` crate, split across ferric's pool when `par`.
    /// Returns false if this type has no `gemm` path (the caller then uses the loop).
    ///
    /// # Safety
    /// All pointers plus the strides must stay inside their buffers for the given shape;
    /// `c` must not overlap `a` or `b` and must not have overlapping elements; C must be
    /// initialised when `spec.read_c`.
    unsafe fn gemm_raw(
        spec: &GemmSpec<Self>,
        a: *const Self,
        b: *const Self,
        c: *mut Self,
        par: bool,
    ) -> bool;
}

macro_rules! float_mat_elem {
    ($t:ty) => {
        impl MatElem for $t {
            fn zero() -> Self {
                0.0
            }
            fn one() -> Self {
                1.0
            }
            #[inline(always)]
            fn mul_add(acc: Self, a: Self, b: Self) -> Self {
                acc + a * b
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            unsafe fn gemm_raw(
                s: &GemmSpec<Self>,
                a: *const Self,
                b: *const Self,
                c: *mut Self,
                par: bool,
            ) -> bool {
                // decided for the whole product, so every panel sums in the same order
                let packed = <Self as Packed>::wanted(s);
                // raw pointers are not Send; carry them into the pool as addresses
                let run = |m, n, a: usize, b: usize, c: usize, par: gemm::Parallelism| {
                    // SAFETY: as for `gemm::gemm` below
                    if packed
                        && unsafe {
                            <Self as Packed>::run(
                                s,
                                (m, n),
                                a as *const Self,
                                b as *const Self,
                                c as *mut Self,
                            )
                        }
                    {
                        return;
                    }
                    // SAFETY: the caller's contract on `a`, `b`, `c` (see the trait docs);
                    // a panel (below) is a sub-matrix of the checked operands
                    unsafe {
                        gemm::gemm(
                            m,
                            n,
                            s.k,
                            c as *mut Self,
                            s.c.cs,
                            s.c.rs,
                            s.read_c,
                            a as *const Self,
                            s.a.cs,
                            s.a.rs,
                            b as *const Self,
                            s.b.cs,
                            s.b.rs,
                            s.alpha,
                            s.beta,
                            false,
                            false,
                            false,
                            par,
                        )
                    }
                };
                let (a, b, c) = (a as usize, b as usize, c as usize);
                let threads = if par {
                    crate::threads::num_threads()
                } else {
                    1
                };
                // the packed kernel stops at an interrupt by itself: no extra slices
                let Some(p) = panels(s, threads, !packed) else {
                    run(s.m, s.n, a, b, c, gemm::Parallelism::None);
                    return true;
                };
                let size = std::mem::size_of::<Self>() as isize;
                crate::threads::for_each_part(p.count, |i| {
                    if crate::threads::interrupted() {
                        // the caller discards the result (threads::check_interrupt)
                        return;
                    }
                    let (lo, hi) = p.range(i);
                    let lo_i = lo as isize * size;
                    // panels write disjoint columns (or rows) of C
                    if p.cols {
                        let (b, c) = (
                            b.wrapping_add_signed(lo_i * s.b.cs),
                            c.wrapping_add_signed(lo_i * s.c.cs),
                        );
                        run(s.m, hi - lo, a, b, c, gemm::Parallelism::None);
                    } else {
                        let (a, c) = (
                            a.wrapping_add_signed(lo_i * s.a.rs),
                            c.wrapping_add_signed(lo_i * s.c.rs),
                        );
                        run(hi - lo, s.n, a, b, c, gemm::Parallelism::None);
                    }
                });
                true
            }
        }
    };
}
float_mat_elem!(f32);
float_mat_elem!(f64);

/// ferric's own packed kernel ([`packed`]) where one exists for the type and this CPU,
/// and the shape is one where it beats the `gemm` crate.
trait Packed: Sized {
    fn wanted(_: &GemmSpec<Self>) -> bool {
        false
    }
    /// Runs the `m x n` panel of `s` at `a`, `b`, `c`; false if there is no kernel.
    ///
    /// # Safety
    /// As for [`MatElem::gemm_raw`]; only called when [`Packed::wanted`] said yes.
    unsafe fn run(
        _: &GemmSpec<Self>,
        _: (usize, usize),
        _: *const Self,
        _: *const Self,
        _: *mut Self,
    ) -> bool {
        false
    }
}

impl Packed for f64 {}

#[cfg(target_arch = "x86_64")]
impl Packed for f32 {
    fn wanted(s: &GemmSpec<f32>) -> bool {
        packed::wanted(s)
    }
    unsafe fn run(
        s: &GemmSpec<f32>,
        mn: (usize, usize),
        a: *const f32,
        b: *const f32,
        c: *mut f32,
    ) -> bool {
        // SAFETY: `wanted` checked AVX-512; the rest is the caller's contract
        unsafe { packed::gemm(s, mn, a, b, c.cast()) };
        true
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Packed for f32 {}

impl MatElem for i64 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    #[inline(always)]
    fn mul_add(acc: Self, a: Self, b: Self) -> Self {
        acc.wrapping_add(a.wrapping_mul(b))
    }
    #[inline(always)]
    fn mul(a: Self, b: Self) -> Self {
        a.wrapping_mul(b)
    }
    #[inline(always)]
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    unsafe fn gemm_raw(
        _: &GemmSpec<Self>,
        _: *const Self,
        _: *const Self,
        _: *mut Self,
        _: bool,
    ) -> bool {
        false
    }
}

/// The narrowest panel of C a thread gets when a product is cut into panels.
const MIN_PANEL: usize = 64;

/// The least work (multiply-adds) per panel: ~10 us on one core, about what handing a
/// panel to a sleeping worker costs on a VM (measured: 128^3 gains 1.07x from two
/// threads, 96^3 and 64^3 run 0.8x and 0.4x when split).
const MIN_PANEL_WORK: usize = 1 << 20;

/// The most work (multiply-adds) one uninterruptible piece of a product does: ~10-30 ms
/// on one core. Re-packing the shared operand per piece costs under 1% at this size.
const SLICE_WORK: usize = 1 << 30;

/// A single product cut into `count` panels of C along its columns (`cols`) or rows,
/// each computed serially by `gemm` on its own thread.
///
/// This scales better than `gemm`'s internal split, which synchronises its threads after
/// every packed block (matmul 1024 on two cores: 1.15x the one-thread speed that way,
/// 1.9x with panels). Products too small or too narrow to cut run on one thread.
/// Each thread packs its own copy of the shared operand, which costs O(k * (m or n))
/// against O(m * n * k / threads) arithmetic. `gemm` picks its depth blocking from `k`
/// alone, so every element of C is summed in the same order as on one thread: results
/// do not depend on the thread count.
#[derive(Clone, Copy, Debug)]
struct Panels {
    cols: bool,
    len: usize,
    count: usize,
    /// Panel width, a multiple of 16 so vector tiles stay full.
    step: usize,
}

impl Panels {
    fn range(&self, i: usize) -> (usize, usize) {
        let lo = (i * self.step).min(self.len);
        (lo, ((i + 1) * self.step).min(self.len))
    }
}

/// How to cut a product for `threads` threads, or None when the longer side of C is too
/// short for two panels of [`MIN_PANEL`] or the product too small for two of
/// [`MIN_PANEL_WORK`].
///
/// With `slices`, a product of more than [`SLICE_WORK`] is cut further (into a multiple
/// of `threads` panels, also on one thread), so that it can stop within a fraction of a
/// second when the user interrupts ([`crate::threads::interrupted`]); a kernel that
/// polls for interrupts itself is cut only for the threads.
fn panels<T>(s: &GemmSpec<T>, threads: usize, slices: bool) -> Option<Panels> {
    let cols = s.n >= s.m;
    let len = if cols { s.n } else { s.m };
    let work = s.m.saturating_mul(s.n).saturating_mul(s.k);
    let threads = threads.max(1);
    let slices = if slices { work / SLICE_WORK } else { 0 };
    let want = if slices > threads {
        slices.next_multiple_of(threads)
    } else {
        threads
    };
    let count = want.min(len / MIN_PANEL).min(work / MIN_PANEL_WORK);
    if count < 2 {
        return None;
    }
    let step = len.div_ceil(count).div_ceil(16) * 16;
    Some(Panels {
        cols,
        len,
        count: len.div_ceil(step),
        step,
    })
}

/// One past the largest index a matrix with these strides touches from `offset`
/// (strides are never negative in ferric).
fn extent(offset: usize, rows: usize, cols: usize, s: MatStrides) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(offset);
    }
    let r = (rows - 1).checked_mul(s.rs.max(0) as usize)?;
    let c = (cols - 1).checked_mul(s.cs.max(0) as usize)?;
    offset.checked_add(r)?.checked_add(c)?.checked_add(1)
}

/// Whether a rows x cols matrix with non-negative strides `s` has distinct elements
/// (the smaller stride's whole run fits inside one step of the larger).
fn distinct_elements(rows: usize, cols: usize, s: MatStrides) -> bool {
    let (inner, outer) = if s.rs <= s.cs {
        ((rows, s.rs as usize), (cols, s.cs as usize))
    } else {
        ((cols, s.cs as usize), (rows, s.rs as usize))
    };
    if inner.0 <= 1 {
        return outer.0 <= 1 || outer.1 > 0;
    }
    if outer.0 <= 1 {
        return inner.1 > 0;
    }
    inner.1 > 0 && (inner.0 - 1).saturating_mul(inner.1) < outer.1
}

/// The number of threads this call may use: 1 on a pool worker (the caller has already
/// split its work) or when ferric is set to one thread.
fn pool_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        1
    } else {
        crate::threads::num_threads()
    }
}

/// Runs `C[i] = alpha*C[i] + beta*(A[i] @ B[i])` for each `(a_off, b_off, c_off)` in
/// `offsets`. Returns false (doing nothing) if any matrix would reach outside its slice,
/// strides are negative or C has overlapping elements — the ops layer builds valid
/// layouts, so that is a bug guard, never a panic.
pub fn gemm_batched<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    b: &[T],
    c: &mut [T],
    offsets: &[[usize; 3]],
) -> bool {
    // SAFETY: MaybeUninit<T> has T's layout, and the kernels only ever store initialised
    // values through the cast slice, so `c` stays initialised.
    let c = unsafe { &mut *(c as *mut [T] as *mut [MaybeUninit<T>]) };
    run(spec, a, b, c, offsets)
}

/// `gemm_batched` into uninitialised memory: C must be write-only (`!spec.read_c`,
/// otherwise nothing is done and false returned). On success every element of every
/// listed C matrix has been written, unless the user interrupted meanwhile
/// ([`crate::threads::interrupted`]): then parts may be skipped and the caller must
/// discard C without reading it ([`crate::threads::check_interrupt`]).
pub fn gemm_batched_uninit<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    b: &[T],
    c: &mut [MaybeUninit<T>],
    offsets: &[[usize; 3]],
) -> bool {
    !spec.read_c && run(spec, a, b, c, offsets)
}

fn run<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    b: &[T],
    c: &mut [MaybeUninit<T>],
    offsets: &[[usize; 3]],
) -> bool {
    let work = spec.m.saturating_mul(spec.n).saturating_mul(spec.k.max(1));
    // long products let other Python threads run meanwhile
    crate::threads::unlocked_if_long(work.saturating_mul(offsets.len()), || {
        run_locked(spec, a, b, c, offsets)
    })
}

fn run_locked<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    b: &[T],
    c: &mut [MaybeUninit<T>],
    offsets: &[[usize; 3]],
) -> bool {
    let GemmSpec { m, n, k, .. } = *spec;
    let strides_ok = [spec.a, spec.b, spec.c]
        .iter()
        .all(|s| s.rs >= 0 && s.cs >= 0);
    if !strides_ok || !distinct_elements(m, n, spec.c) {
        return false;
    }
    if m == 0 || n == 0 {
        return true; // nothing is read or written
    }
    for &[ao, bo, co] in offsets {
        let fits =
            |off, rows, cols, s, len: usize| extent(off, rows, cols, s).is_some_and(|e| e <= len);
        // with k == 0 only C is touched
        let inputs_fit =
            k == 0 || (fits(ao, m, k, spec.a, a.len()) && fits(bo, k, n, spec.b, b.len()));
        if !(inputs_fit && fits(co, m, n, spec.c, c.len())) {
            return false;
        }
    }
    let work = m.saturating_mul(n).saturating_mul(k.max(1));
    let total = work.saturating_mul(offsets.len());
    let threads = if total >= PARALLEL_THRESHOLD {
        pool_threads()
    } else {
        1
    };
    if threads > 1 && offsets.len() > 1 && (work < BATCH_SPLIT || offsets.len() >= 2 * threads) {
        if let Some(jobs) = disjoint_regions(spec, c, offsets) {
            let min_len = (MIN_TASK_WORK / work).max(1);
            crate::threads::install(|| {
                jobs.into_par_iter()
                    .with_min_len(min_len)
                    .for_each(|(ao, bo, cm)| product(spec, a, ao, b, bo, cm, 0, false))
            });
            return true;
        }
    }
    let par = threads > 1 && work >= PARALLEL_THRESHOLD;
    for &[ao, bo, co] in offsets {
        if crate::threads::interrupted() {
            break;
        }
        product(spec, a, ao, b, bo, c, co, par);
    }
    true
}

/// A C matrix's own piece of the output buffer, with the A and B offsets of its product.
type Job<'c, T> = (usize, usize, &'c mut [MaybeUninit<T>]);

/// Cuts `c` into one disjoint sub-slice per product (each starting at its matrix), or
/// None if two C matrices share a range of `c` (then the batch runs serially).
fn disjoint_regions<'c, T: MatElem>(
    spec: &GemmSpec<T>,
    c: &'c mut [MaybeUninit<T>],
    offsets: &[[usize; 3]],
) -> Option<Vec<Job<'c, T>>> {
    let span = extent(0, spec.m, spec.n, spec.c)?;
    let mut order = offsets.to_vec();
    order.sort_unstable_by_key(|o| o[2]);
    let mut jobs = Vec::with_capacity(order.len());
    let (mut rest, mut base) = (c, 0usize);
    for [ao, bo, co] in order {
        let (_, tail) = rest.split_at_mut_checked(co.checked_sub(base)?)?;
        let (mine, tail) = tail.split_at_mut_checked(span)?;
        jobs.push((ao, bo, mine));
        rest = tail;
        base = co + span;
    }
    Some(jobs)
}

/// One product into `c` at offset `co` (bounds already checked), split inside the
/// product across the pool when `par`.
#[allow(clippy::too_many_arguments)]
fn product<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    ao: usize,
    b: &[T],
    bo: usize,
    c: &mut [MaybeUninit<T>],
    co: usize,
    par: bool,
) {
    let GemmSpec { m, n, k, .. } = *spec;
    if k == 0 {
        scale_c(spec, c, co);
        return;
    }
    if m * n * k <= SMALL_PRODUCT {
        gemm_small(spec, a, ao, b, bo, c, co);
        return;
    }
    if (m == 1 || n == 1) && gemv::product(spec, a, ao, b, bo, c, co, par) {
        return;
    }
    // SAFETY: extents were checked by `run`; `c` is a distinct mutable slice so it cannot
    // overlap `a` or `b`, and `run` checked that C's elements are distinct; C is only
    // read when `read_c`, which implies it is initialised.
    let done = unsafe {
        T::gemm_raw(
            spec,
            a.as_ptr().add(ao),
            b.as_ptr().add(bo),
            c.as_mut_ptr().add(co).cast::<T>(),
            par,
        )
    };
    if !done {
        gemm_loop(spec, a, ao, b, bo, c, co);
    }
}

/// Stores `alpha*C + beta*prod` (or `beta*prod` when C is write-only) into `slot`.
#[inline(always)]
fn store<T: MatElem>(spec: &GemmSpec<T>, slot: &mut MaybeUninit<T>, prod: T) {
    let v = T::mul(spec.beta, prod);
    let out = if spec.read_c {
        // SAFETY: with `read_c` the caller guarantees C is initialised
        T::add(T::mul(spec.alpha, unsafe { slot.assume_init() }), v)
    } else {
        v
    };
    slot.write(out);
}

/// `C = alpha*C` (or zeros when C is write-only): the k == 0 case.
fn scale_c<T: MatElem>(spec: &GemmSpec<T>, c: &mut [MaybeUninit<T>], co: usize) {
    for i in 0..spec.m {
        for j in 0..spec.n {
            let slot = &mut c[co + i * spec.c.rs as usize + j * spec.c.cs as usize];
            let v = if spec.read_c {
                // SAFETY: with `read_c` the caller guarantees C is initialised
                T::mul(spec.alpha, unsafe { slot.assume_init() })
            } else {
                T::zero()
            };
            slot.write(v);
        }
    }
}

/// Tiny products: one dot product per output element, no scratch buffers (batched
/// small matrices are dominated by per-call overhead, not arithmetic).
fn gemm_small<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    ao: usize,
    b: &[T],
    bo: usize,
    c: &mut [MaybeUninit<T>],
    co: usize,
) {
    let (ars, acs) = (spec.a.rs as usize, spec.a.cs as usize);
    let (brs, bcs) = (spec.b.rs as usize, spec.b.cs as usize);
    let (crs, ccs) = (spec.c.rs as usize, spec.c.cs as usize);
    for i in 0..spec.m {
        for j in 0..spec.n {
            let mut acc = T::zero();
            for p in 0..spec.k {
                acc = T::mul_add(acc, a[ao + i * ars + p * acs], b[bo + p * brs + j * bcs]);
            }
            store(spec, &mut c[co + i * crs + j * ccs], acc);
        }
    }
}

/// Block sizes for the plain loop: a KC x NC panel of B (256 x 512 elements of 8 bytes =
/// 1 MiB) stays in L2 while every row of A streams past it.
const KC: usize = 256;
const NC: usize = 512;

/// The plain i-p-j loop with cache blocking over k and n. B is first packed into a
/// row-major panel when its rows are not unit-stride, so the inner loop is always a
/// contiguous axpy that the compiler vectorises.
fn gemm_loop<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    ao: usize,
    b: &[T],
    bo: usize,
    c: &mut [MaybeUninit<T>],
    co: usize,
) {
    let GemmSpec { m, n, k, .. } = *spec;
    let (ars, acs) = (spec.a.rs as usize, spec.a.cs as usize);
    let (brs, bcs) = (spec.b.rs as usize, spec.b.cs as usize);
    let (crs, ccs) = (spec.c.rs as usize, spec.c.cs as usize);
    let mut acc = vec![T::zero(); n.min(NC)];
    let mut panel: Vec<T> = Vec::new();
    // The product of one column block is accumulated in `prod` (m x nb) and folded into C
    // once at the end, so C is read and scaled exactly once per element.
    let mut prod = vec![T::zero(); m * n.min(NC)];
    for j0 in (0..n).step_by(NC) {
        let nb = NC.min(n - j0);
        prod.iter_mut().for_each(|x| *x = T::zero());
        for p0 in (0..k).step_by(KC) {
            let kb = KC.min(k - p0);
            let packed = bcs != 1;
            if packed {
                panel.clear();
                for p in 0..kb {
                    let row = bo + (p0 + p) * brs + j0 * bcs;
                    panel.extend((0..nb).map(|j| b[row + j * bcs]));
                }
            }
            for i in 0..m {
                let acc = &mut acc[..nb];
                let dst = &mut prod[i * nb..(i + 1) * nb];
                acc.copy_from_slice(dst);
                for p in 0..kb {
                    let aip = a[ao + i * ars + (p0 + p) * acs];
                    let brow = if packed {
                        &panel[p * nb..(p + 1) * nb]
                    } else {
                        let s = bo + (p0 + p) * brs + j0;
                        &b[s..s + nb]
                    };
                    for (x, &y) in acc.iter_mut().zip(brow) {
                        *x = T::mul_add(*x, aip, y);
                    }
                }
                dst.copy_from_slice(acc);
            }
        }
        for i in 0..m {
            for j in 0..nb {
                store(
                    spec,
                    &mut c[co + i * crs + (j0 + j) * ccs],
                    prod[i * nb + j],
                );
            }
        }
    }
}
