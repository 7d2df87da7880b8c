//! Slice kernels written once over the `Vf` vocabulary and instantiated per backend
//! inside `#[target_feature]` entry points.
//!
//! Every loop processes whole vectors and finishes a ragged tail by copying it into a
//! lane-sized stack buffer and running the *same* vector code on it, so an element's
//! result never depends on where it sits in the slice: the same input gives the same
//! output bits whatever the chunking (the thread-count independence relies on this).

use super::math32;
use super::math64;
use super::vector::{Simd, Vf};
use super::{Binary, Unary};

/// The widest vector has 16 lanes (AVX-512 f32).
const MAX_LANES: usize = 16;

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

/// `dst[i] = f(src[i])` for `n` elements; `src` may equal `dst`.
///
/// Written out rather than as `map2` with a closure `|x, _| f(x)`: such a closure is
/// compiled outside the `#[target_feature]` entry point, LLVM declines to inline a body
/// as large as `exp`, and every intrinsic in it then becomes an out-of-line call (the
/// vector exp ran 3x slower than scalar libm that way). `f` itself is a `#[inline(always)]`
/// function or a small closure, inlined here.
///
/// # Safety
/// `src` readable and `dst` writable for `n` elements.
#[inline(always)]
pub unsafe fn map1<V: Vf>(z: V, src: *const V::E, dst: *mut V::E, n: usize, f: impl Fn(V) -> V) {
    let l = V::LANES;
    let mut i = 0;
    // SAFETY (whole body): every access stays below n, as the caller guarantees; each
    // group of vectors is loaded before it is stored, so src == dst is fine.
    unsafe {
        while i + 4 * l <= n {
            let r0 = f(z.load(src.add(i)));
            let r1 = f(z.load(src.add(i + l)));
            let r2 = f(z.load(src.add(i + 2 * l)));
            let r3 = f(z.load(src.add(i + 3 * l)));
            r0.store(dst.add(i));
            r1.store(dst.add(i + l));
            r2.store(dst.add(i + 2 * l));
            r3.store(dst.add(i + 3 * l));
            i += 4 * l;
        }
        while i + l <= n {
            f(z.load(src.add(i))).store(dst.add(i));
            i += l;
        }
        if i < n {
            // the same vector code on a padded copy: the tail's results match the body's
            let rest = n - i;
            let mut b = [V::E::default(); MAX_LANES];
            std::ptr::copy_nonoverlapping(src.add(i), b.as_mut_ptr(), rest);
            f(z.load(b.as_ptr())).store(b.as_mut_ptr());
            std::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(i), rest);
        }
    }
}

/// float32 in, float64 math, float32 out: blocks are widened into a stack buffer.
///
/// # Safety
/// As for `map1`.
#[inline(always)]
unsafe fn map1_via_f64<V: Vf<E = f64>>(
    z: V,
    src: *const f32,
    dst: *mut f32,
    n: usize,
    f: impl Fn(V) -> V,
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
            map1(z, buf.as_ptr(), buf.as_mut_ptr(), m, &f);
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
    let one = z.splat(1.0f32.into());
    let zero = z.splat(0.0f32.into());
    // SAFETY (all arms): forwarded from the caller.
    unsafe {
        match op {
            Unary::Neg => map1(z, src, dst, n, |x: V| -x),
            Unary::Abs => map1(z, src, dst, n, |x: V| x.abs()),
            Unary::Sqrt => map1(z, src, dst, n, |x: V| x.sqrt()),
            Unary::Rsqrt => map1(z, src, dst, n, |x: V| one / x.sqrt()),
            Unary::Square => map1(z, src, dst, n, |x: V| x * x),
            Unary::Reciprocal => map1(z, src, dst, n, |x: V| one / x),
            // PyTorch's relu: negatives become +0; NaN and -0 pass through
            Unary::Relu => map1(z, src, dst, n, |x: V| V::select(x.lt(zero), zero, x)),
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
            Unary::Exp => map1(z, src, dst, n, math32::exp),
            Unary::Log => map1(z, src, dst, n, math32::log),
            Unary::Tanh => map1(z, src, dst, n, math32::tanh),
            Unary::Sigmoid => map1(z, src, dst, n, math32::sigmoid),
            Unary::Silu => map1(z, src, dst, n, math32::silu),
            Unary::Erf => map1_via_f64(z64, src, dst, n, math64::erf_for_f32),
            Unary::Gelu => map1_via_f64(z64, src, dst, n, math64::gelu_for_f32),
            Unary::GeluTanh => map1_via_f64(z64, src, dst, n, math64::gelu_tanh_for_f32),
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
            Unary::Exp => map1(z, src, dst, n, math64::exp),
            Unary::Log => map1(z, src, dst, n, math64::log),
            Unary::Sigmoid => map1(z, src, dst, n, math64::sigmoid),
            Unary::Silu => map1(z, src, dst, n, math64::silu),
            _ => return unary_common(z, op, src, dst, n),
        }
    }
    true
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
