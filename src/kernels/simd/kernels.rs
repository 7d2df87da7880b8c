//! Slice kernels written once over the `Vf` vocabulary and instantiated per backend
//! inside `#[target_feature]` entry points.
//!
//! Every loop processes whole vectors and finishes a ragged tail by copying it into a
//! lane-sized stack buffer and running the *same* vector code on it, so an element's
//! result never depends on where it sits in the slice: the same input gives the same
//! output bits whatever the chunking (the thread-count independence relies on this).

use super::math32;
use super::math64;
use super::vector::{load_tail, store_tail, Lanes, Simd, Vf, Vu, MAX_LANES};
use super::{Binary, Unary};

/// One operand of a binary kernel: a run of elements or one value for every lane.
pub trait Src<V: Vf>: Copy {
    /// # Safety
    /// For a pointer source, `i .. i + LANES` must be readable.
    unsafe fn at(self, z: V, i: usize) -> V;
    /// Copies elements `i .. i + n` (n < LANES) into `buf`.
    ///
    /// # Safety
    /// For a pointer source, `i .. i + n` must be readable.
    unsafe fn tail(self, i: usize, n: usize, buf: &mut [V::E; MAX_LANES]);
}

#[derive(Clone, Copy)]
pub struct Ptr<E>(pub *const E);
#[derive(Clone, Copy)]
pub struct Splat<E>(pub E);

impl<V: Vf> Src<V> for Ptr<V::E> {
    #[inline(always)]
    unsafe fn at(self, z: V, i: usize) -> V {
        // SAFETY: forwarded from the caller.
        unsafe { z.load(self.0.add(i)) }
    }
    #[inline(always)]
    unsafe fn tail(self, i: usize, n: usize, buf: &mut [V::E; MAX_LANES]) {
        // SAFETY: forwarded from the caller; `buf` holds at least n elements.
        unsafe { std::ptr::copy_nonoverlapping(self.0.add(i), buf.as_mut_ptr(), n) }
    }
}

impl<V: Vf> Src<V> for Splat<V::E> {
    #[inline(always)]
    unsafe fn at(self, z: V, _i: usize) -> V {
        z.splat(self.0)
    }
    #[inline(always)]
    unsafe fn tail(self, _i: usize, n: usize, buf: &mut [V::E; MAX_LANES]) {
        buf[..n].fill(self.0);
    }
}

/// `dst[i] = f(a[i], b[i])` for `n` elements. `dst` may be the same pointer as a
/// pointer operand (in-place ops): each vector is loaded before it is stored.
///
/// # Safety
/// Pointer operands must be readable and `dst` writable for `n` elements.
#[inline(always)]
pub unsafe fn map2<V: Vf>(
    z: V,
    a: impl Src<V>,
    b: impl Src<V>,
    dst: *mut V::E,
    n: usize,
    f: impl Fn(V, V) -> V,
) {
    let l = V::LANES;
    let mut i = 0;
    // SAFETY (whole body): every access stays below n, as the caller guarantees.
    unsafe {
        // four independent vectors per iteration hide instruction latency
        while i + 4 * l <= n {
            let r0 = f(a.at(z, i), b.at(z, i));
            let r1 = f(a.at(z, i + l), b.at(z, i + l));
            let r2 = f(a.at(z, i + 2 * l), b.at(z, i + 2 * l));
            let r3 = f(a.at(z, i + 3 * l), b.at(z, i + 3 * l));
            r0.store(dst.add(i));
            r1.store(dst.add(i + l));
            r2.store(dst.add(i + 2 * l));
            r3.store(dst.add(i + 3 * l));
            i += 4 * l;
        }
        while i + l <= n {
            f(a.at(z, i), b.at(z, i)).store(dst.add(i));
            i += l;
        }
        if i < n {
            let rest = n - i;
            let mut ba = [V::E::default(); MAX_LANES];
            let mut bb = [V::E::default(); MAX_LANES];
            a.tail(i, rest, &mut ba);
            b.tail(i, rest, &mut bb);
            f(z.load(ba.as_ptr()), z.load(bb.as_ptr())).store(ba.as_mut_ptr());
            std::ptr::copy_nonoverlapping(ba.as_ptr(), dst.add(i), rest);
        }
    }
}

/// Declares zero-sized `Lanes` implementors: `Name<V: bounds> |x| body`.
macro_rules! lanes {
    ($($name:ident <$v:ident: $b:path $(, $u:ty)?> |$x:ident| $body:expr;)*) => {$(
        pub struct $name;
        impl<$v: $b> Lanes<$v> for $name $(where $v::U: Vu<E = $u>)? {
            #[inline(always)]
            fn apply($x: $v) -> $v {
                $body
            }
        }
    )*};
}

lanes! {
    Neg<V: Vf> |x| -x;
    Abs<V: Vf> |x| x.abs();
    Sqrt<V: Vf> |x| x.sqrt();
    Rsqrt<V: Vf> |x| x.splat(1.0f32.into()) / x.sqrt();
    Square<V: Vf> |x| x * x;
    Reciprocal<V: Vf> |x| x.splat(1.0f32.into()) / x;
    // PyTorch's relu: negatives become +0; NaN and -0 pass through
    Relu<V: Vf> |x| {
        let zero = x.splat(0.0f32.into());
        V::select(x.lt(zero), zero, x)
    };
    Exp32<V: Vf32, u32> |x| math32::exp(x);
    Log32<V: Vf32, u32> |x| math32::log(x);
    Tanh32<V: Vf32, u32> |x| math32::tanh(x);
    Sigmoid32<V: Vf32, u32> |x| math32::sigmoid(x);
    Silu32<V: Vf32, u32> |x| math32::silu(x);
    Exp64<V: Vf64, u64> |x| math64::exp(x);
    Log64<V: Vf64, u64> |x| math64::log(x);
    Sigmoid64<V: Vf64, u64> |x| math64::sigmoid(x);
    Silu64<V: Vf64, u64> |x| math64::silu(x);
    ErfFor32<V: Vf64, u64> |x| math64::erf_for_f32(x);
    GeluFor32<V: Vf64, u64> |x| math64::gelu_for_f32(x);
    GeluTanhFor32<V: Vf64, u64> |x| math64::gelu_tanh_for_f32(x);
}

/// `Vf` with float32 / float64 lanes (a path for the `lanes!` bounds).
pub trait Vf32: Vf<E = f32> {}
impl<V: Vf<E = f32>> Vf32 for V {}
pub trait Vf64: Vf<E = f64> {}
impl<V: Vf<E = f64>> Vf64 for V {}

/// `dst[i] = F(src[i])` for `n` elements; `src` may equal `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for `n` elements.
#[inline(always)]
pub unsafe fn map1<V: Vf, F: Lanes<V>>(z: V, src: *const V::E, dst: *mut V::E, n: usize) {
    let l = V::LANES;
    let mut i = 0;
    // SAFETY (whole body): every access stays below n, as the caller guarantees; each
    // group of vectors is loaded before it is stored, so src == dst is fine.
    unsafe {
        while i + 4 * l <= n {
            let r0 = F::apply(z.load(src.add(i)));
            let r1 = F::apply(z.load(src.add(i + l)));
            let r2 = F::apply(z.load(src.add(i + 2 * l)));
            let r3 = F::apply(z.load(src.add(i + 3 * l)));
            r0.store(dst.add(i));
            r1.store(dst.add(i + l));
            r2.store(dst.add(i + 2 * l));
            r3.store(dst.add(i + 3 * l));
            i += 4 * l;
        }
        while i + l <= n {
            F::apply(z.load(src.add(i))).store(dst.add(i));
            i += l;
        }
        if i < n {
            // the same vector code on a padded copy: the tail's results match the body's
            store_tail(F::apply(load_tail(z, src, i, n)), dst, i, n);
        }
    }
}

/// float32 in, float64 math, float32 out: blocks are widened into a stack buffer.
///
/// # Safety
/// As for `map1`.
#[inline(always)]
unsafe fn map1_via_f64<V: Vf<E = f64>, F: Lanes<V>>(
    z: V,
    src: *const f32,
    dst: *mut f32,
    n: usize,
) {
    const BLOCK: usize = 256;
    let mut buf = [0.0f64; BLOCK];
    let mut i = 0;
    while i < n {
        let m = BLOCK.min(n - i);
        // SAFETY: i + m <= n.
        unsafe {
            for (j, b) in buf[..m].iter_mut().enumerate() {
                *b = *src.add(i + j) as f64;
            }
            map1::<V, F>(z, buf.as_ptr(), buf.as_mut_ptr(), m);
            for (j, b) in buf[..m].iter().enumerate() {
                *dst.add(i + j) = *b as f32;
            }
        }
        i += m;
    }
}

/// Elementwise ops valid for either precision; false when `op` is not one of them.
///
/// # Safety
/// As for `map1`.
#[inline(always)]
unsafe fn unary_common<V: Vf>(z: V, op: Unary, src: *const V::E, dst: *mut V::E, n: usize) -> bool {
    // SAFETY (all arms): forwarded from the caller.
    unsafe {
        match op {
            Unary::Neg => map1::<V, Neg>(z, src, dst, n),
            Unary::Abs => map1::<V, Abs>(z, src, dst, n),
            Unary::Sqrt => map1::<V, Sqrt>(z, src, dst, n),
            Unary::Rsqrt => map1::<V, Rsqrt>(z, src, dst, n),
            Unary::Square => map1::<V, Square>(z, src, dst, n),
            Unary::Reciprocal => map1::<V, Reciprocal>(z, src, dst, n),
            Unary::Relu => map1::<V, Relu>(z, src, dst, n),
            _ => return false,
        }
    }
    true
}

/// The float32 unary kernel for backend `s`; false when `op` has no vector version.
///
/// # Safety
/// `src` readable and `dst` writable for `n` elements (they may be equal).
#[inline(always)]
pub unsafe fn unary_f32<S: Simd>(
    s: S,
    op: Unary,
    src: *const f32,
    dst: *mut f32,
    n: usize,
) -> bool {
    let z = s.zero_f32();
    let z64 = s.zero_f64();
    // SAFETY (all arms): forwarded from the caller.
    unsafe {
        match op {
            Unary::Exp => map1::<_, Exp32>(z, src, dst, n),
            Unary::Log => map1::<_, Log32>(z, src, dst, n),
            Unary::Tanh => map1::<_, Tanh32>(z, src, dst, n),
            Unary::Sigmoid => map1::<_, Sigmoid32>(z, src, dst, n),
            Unary::Silu => map1::<_, Silu32>(z, src, dst, n),
            Unary::Erf => map1_via_f64::<_, ErfFor32>(z64, src, dst, n),
            Unary::Gelu => map1_via_f64::<_, GeluFor32>(z64, src, dst, n),
            Unary::GeluTanh => map1_via_f64::<_, GeluTanhFor32>(z64, src, dst, n),
            _ => return unary_common(z, op, src, dst, n),
        }
    }
    true
}

/// The float64 unary kernel for backend `s`; false when `op` has no vector version.
///
/// # Safety
/// As for `unary_f32`.
#[inline(always)]
pub unsafe fn unary_f64<S: Simd>(
    s: S,
    op: Unary,
    src: *const f64,
    dst: *mut f64,
    n: usize,
) -> bool {
    let z = s.zero_f64();
    // SAFETY (all arms): forwarded from the caller.
    unsafe {
        match op {
            Unary::Exp => map1::<_, Exp64>(z, src, dst, n),
            Unary::Log => map1::<_, Log64>(z, src, dst, n),
            Unary::Sigmoid => map1::<_, Sigmoid64>(z, src, dst, n),
            Unary::Silu => map1::<_, Silu64>(z, src, dst, n),
            _ => return unary_common(z, op, src, dst, n),
        }
    }
    true
}

/// Softmax (`log`: log-softmax) of `rows` contiguous float32 rows of length `n`, for
/// backend `s`.
///
/// # Safety
/// `src` readable and `dst` writable for `rows * n` elements, not overlapping.
#[inline(always)]
pub unsafe fn softmax_rows_f32<S: Simd>(
    s: S,
    src: *const f32,
    dst: *mut f32,
    rows: usize,
    n: usize,
    log: bool,
) {
    // SAFETY: forwarded from the caller.
    unsafe { super::rows::softmax_rows::<_, Exp32>(s.zero_f32(), src, dst, rows, n, log) }
}

/// [`softmax_rows_f32`] for float64.
///
/// # Safety
/// As for `softmax_rows_f32`.
#[inline(always)]
pub unsafe fn softmax_rows_f64<S: Simd>(
    s: S,
    src: *const f64,
    dst: *mut f64,
    rows: usize,
    n: usize,
    log: bool,
) {
    // SAFETY: forwarded from the caller.
    unsafe { super::rows::softmax_rows::<_, Exp64>(s.zero_f64(), src, dst, rows, n, log) }
}

/// Runs `f` with the operands' pointer/splat combination resolved at compile time.
macro_rules! binary_body {
    ($z:expr, $op:expr, $a:expr, $b:expr, $dst:expr, $n:expr) => {{
        let (z, a, b, dst, n) = ($z, $a, $b, $dst, $n);
        match $op {
            Binary::Add => map2(z, a, b, dst, n, |x, y| x + y),
            Binary::Sub => map2(z, a, b, dst, n, |x, y| x - y),
            Binary::Mul => map2(z, a, b, dst, n, |x, y| x * y),
            Binary::Div => map2(z, a, b, dst, n, |x, y| x / y),
        }
    }};
}

/// Where a binary operand comes from.
#[derive(Clone, Copy)]
pub enum Operand<E> {
    Ptr(*const E),
    Splat(E),
}

macro_rules! binary_kernel {
    ($name:ident, $e:ty, $zero:ident) => {
        /// `dst = a op b` for backend `s` (`dst` may equal a pointer operand).
        ///
        /// # Safety
        /// Pointer operands readable and `dst` writable for `n` elements.
        #[inline(always)]
        pub unsafe fn $name<S: Simd>(
            s: S,
            op: Binary,
            a: Operand<$e>,
            b: Operand<$e>,
            dst: *mut $e,
            n: usize,
        ) {
            let z = s.$zero();
            // SAFETY (all arms): forwarded from the caller.
            unsafe {
                match (a, b) {
                    (Operand::Ptr(a), Operand::Ptr(b)) => {
                        binary_body!(z, op, Ptr(a), Ptr(b), dst, n)
                    }
                    (Operand::Ptr(a), Operand::Splat(b)) => {
                        binary_body!(z, op, Ptr(a), Splat(b), dst, n)
                    }
                    (Operand::Splat(a), Operand::Ptr(b)) => {
                        binary_body!(z, op, Splat(a), Ptr(b), dst, n)
                    }
                    (Operand::Splat(a), Operand::Splat(b)) => {
                        binary_body!(z, op, Splat(a), Splat(b), dst, n)
                    }
                }
            }
        }
    };
}
binary_kernel!(binary_f32, f32, zero_f32);
binary_kernel!(binary_f64, f64, zero_f64);

/// Declares one backend's `#[target_feature]` entry points. Everything generic above is
/// `#[inline(always)]`, so it is compiled inside these functions with their features.
macro_rules! entry_points {
    ($modname:ident, $token:path, $features:literal) => {
        pub mod $modname {
            use super::super::{Binary, Unary};
            use super::Operand;

            /// # Safety
            /// The CPU must support the backend; pointers as for `kernels::unary_f32`.
            #[target_feature(enable = $features)]
            pub unsafe fn unary_f32(op: Unary, src: *const f32, dst: *mut f32, n: usize) -> bool {
                // SAFETY: the caller checked the CPU; pointers forwarded.
                unsafe { super::unary_f32(<$token>::new(), op, src, dst, n) }
            }
            /// # Safety
            /// As for `unary_f32`.
            #[target_feature(enable = $features)]
            pub unsafe fn unary_f64(op: Unary, src: *const f64, dst: *mut f64, n: usize) -> bool {
                // SAFETY: as above.
                unsafe { super::unary_f64(<$token>::new(), op, src, dst, n) }
            }
            /// # Safety
            /// As for `kernels::softmax_rows_f32`, and the CPU must support the backend.
            #[target_feature(enable = $features)]
            pub unsafe fn softmax_rows_f32(
                src: *const f32,
                dst: *mut f32,
                rows: usize,
                n: usize,
                log: bool,
            ) {
                // SAFETY: as above.
                unsafe { super::softmax_rows_f32(<$token>::new(), src, dst, rows, n, log) }
            }
            /// # Safety
            /// As for `softmax_rows_f32`.
            #[target_feature(enable = $features)]
            pub unsafe fn softmax_rows_f64(
                src: *const f64,
                dst: *mut f64,
                rows: usize,
                n: usize,
                log: bool,
            ) {
                // SAFETY: as above.
                unsafe { super::softmax_rows_f64(<$token>::new(), src, dst, rows, n, log) }
            }
            /// # Safety
            /// As for `unary_f32`.
            #[target_feature(enable = $features)]
            pub unsafe fn binary_f32(
                op: Binary,
                a: Operand<f32>,
                b: Operand<f32>,
                dst: *mut f32,
                n: usize,
            ) {
                // SAFETY: as above.
                unsafe { super::binary_f32(<$token>::new(), op, a, b, dst, n) }
            }
            /// # Safety
            /// As for `unary_f32`.
            #[target_feature(enable = $features)]
            pub unsafe fn binary_f64(
                op: Binary,
                a: Operand<f64>,
                b: Operand<f64>,
                dst: *mut f64,
                n: usize,
            ) {
                // SAFETY: as above.
                unsafe { super::binary_f64(<$token>::new(), op, a, b, dst, n) }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
entry_points!(avx2, super::super::x86::Avx2, "avx2,fma");
#[cfg(target_arch = "x86_64")]
entry_points!(avx512, super::super::x86::Avx512, "avx512f,avx2,fma");
#[cfg(target_arch = "aarch64")]
entry_points!(neon, super::super::neon::Neon, "neon");
