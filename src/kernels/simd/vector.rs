//! The small vector vocabulary the math and slice kernels are written in.
//!
//! Each backend (scalar, AVX2+FMA, AVX-512, NEON) provides a float vector type per
//! precision implementing [`Vf`], a lane-mask type and an unsigned-integer vector of the
//! same width ([`Vu`]) for bit manipulation; `load_tail`/`store_tail` run a ragged end
//! through the same vector code, and [`Lanes`] names a per-vector function so that it
//! is inlined. Kernels are generic over these traits and marked `#[inline(always)]`;
//! each backend instantiates them inside one `#[target_feature]` function (see
//! `kernels.rs`), so every intrinsic ends up inlined into code compiled for that
//! instruction set, while the crate itself stays compiled for the baseline CPU.
//!
//! Soundness: the SIMD vector and mask types have private fields, and the only root
//! constructor is a backend token that is handed out after run-time feature detection
//! (`Simd::zero_f32` etc.). Every other constructor takes an existing value, so holding a
//! vector proves the CPU supports its instructions.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

/// A vector of `LANES` floats of type `E`.
pub trait Vf:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The lane type (`f32` or `f64`).
    type E: Copy + Default + From<f32>;
    /// One bit or lane per element: the result of comparisons.
    type M: Copy + BitAnd<Output = Self::M> + BitOr<Output = Self::M> + Not<Output = Self::M>;
    /// Unsigned integers of the lane width, for reading and building float bit patterns.
    type U: Vu;
    const LANES: usize;

    /// All lanes set to `v` (the receiver only proves the instruction set is present).
    fn splat(self, v: Self::E) -> Self;
    /// Loads `LANES` elements.
    ///
    /// # Safety
    /// `p` must be valid for reading `LANES` elements (no alignment needed).
    unsafe fn load(self, p: *const Self::E) -> Self;
    /// Stores `LANES` elements.
    ///
    /// # Safety
    /// `p` must be valid for writing `LANES` elements (no alignment needed).
    unsafe fn store(self, p: *mut Self::E);

    /// `self * b + c`, fused (one rounding) on every SIMD backend; the scalar fallback
    /// rounds twice (baseline x86-64 has no FMA instruction and a software fma is slow).
    fn mul_add(self, b: Self, c: Self) -> Self;
    /// Lane-wise minimum; the result for NaN lanes is backend-specific, so callers fix
    /// NaN lanes up explicitly.
    fn min(self, b: Self) -> Self;
    /// Lane-wise maximum; NaN lanes as for `min`.
    fn max(self, b: Self) -> Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    /// Rounds to the nearest integer, ties to even.
    fn round(self) -> Self;

    fn lt(self, b: Self) -> Self::M;
    fn gt(self, b: Self) -> Self::M;
    fn ge(self, b: Self) -> Self::M;
    fn eq(self, b: Self) -> Self::M;
    /// Lanes holding NaN.
    fn is_nan(self) -> Self::M;
    /// `m ? t : f` per lane.
    fn select(m: Self::M, t: Self, f: Self) -> Self;

    fn to_bits(self) -> Self::U;
    fn from_bits(u: Self::U) -> Self;

    /// `self * 2^n` for integer-valued lanes `n`, rounded once (into the subnormal
    /// range, to 0 or to infinity), when the backend has one instruction for it
    /// (AVX-512's `vscalef`); None otherwise, and the caller builds the power of two
    /// from exponent bits. Both give the same bits.
    #[inline(always)]
    fn scale_native(self, n: Self) -> Option<Self> {
        let _ = n;
        None
    }
}

/// Unsigned integer lanes as wide as the float lanes (`u32` for `f32`, `u64` for `f64`).
pub trait Vu:
    Copy + Add<Output = Self> + Sub<Output = Self> + BitAnd<Output = Self> + BitOr<Output = Self>
{
    type E: Copy;
    fn splat(self, v: Self::E) -> Self;
    /// Shifts left by the float's mantissa width (23 or 52): moves an exponent value
    /// into the exponent field.
    fn shl_mant(self) -> Self;
    /// Logical shift right by the mantissa width: the biased exponent (and sign).
    fn shr_mant(self) -> Self;
}

/// A backend: a zero-sized proof that its instruction set is available.
pub trait Simd: Copy + Send + Sync + 'static {
    type F32: Vf<E = f32, U = Self::U32>;
    type F64: Vf<E = f64, U = Self::U64>;
    type U32: Vu<E = u32>;
    type U64: Vu<E = u64>;
    fn zero_f32(self) -> Self::F32;
    fn zero_f64(self) -> Self::F64;
}

/// The widest vector has 16 lanes (AVX-512 f32).
pub const MAX_LANES: usize = 16;

/// The elements `i .. n` of `x` (fewer than a vector's worth) as a vector padded with
/// zeros, so a ragged end goes through the same vector code as the rest: an element's
/// result never depends on where it sits.
///
/// # Safety
/// `x + i .. x + n` readable, `n - i < LANES`.
#[inline(always)]
pub unsafe fn load_tail<V: Vf>(z: V, x: *const V::E, i: usize, n: usize) -> V {
    let mut b = [V::E::default(); MAX_LANES];
    // SAFETY: forwarded from the caller; `b` holds LANES <= MAX_LANES elements.
    unsafe {
        std::ptr::copy_nonoverlapping(x.add(i), b.as_mut_ptr(), n - i);
        z.load(b.as_ptr())
    }
}

/// Stores the first `n - i` lanes of `v` at `o + i`.
///
/// # Safety
/// `o + i .. o + n` writable, `n - i < LANES`.
#[inline(always)]
pub unsafe fn store_tail<V: Vf>(v: V, o: *mut V::E, i: usize, n: usize) {
    let mut b = [V::E::default(); MAX_LANES];
    // SAFETY: as for `load_tail`.
    unsafe {
        v.store(b.as_mut_ptr());
        std::ptr::copy_nonoverlapping(b.as_ptr(), o.add(i), n - i);
    }
}

/// A per-vector function, called statically (`F::apply`) so its `#[inline(always)]` is
/// honoured. A closure or a function item passed as `impl Fn` is called through a shim
/// that is compiled outside the `#[target_feature]` entry point; LLVM declines to inline
/// a body as large as `exp`, and every intrinsic in it then becomes an out-of-line call
/// (the vector exp ran 3x slower than scalar libm that way).
pub trait Lanes<V: Vf> {
    fn apply(x: V) -> V;
}

/// Implements the arithmetic operator traits for a SIMD wrapper type from intrinsics.
/// `$add` etc. are paths of `unsafe fn(T, T) -> T` intrinsics; the short form gives
/// only `Add`/`Sub` (integer lanes).
macro_rules! vec_ops {
    ($t:ident, $add:path, $sub:path, $mul:path, $div:path) => {
        vec_ops!($t, $add, $sub);
        impl std::ops::Mul for $t {
            type Output = $t;
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                // SAFETY: as for `add`.
                $t(unsafe { $mul(self.0, b.0) })
            }
        }
        impl std::ops::Div for $t {
            type Output = $t;
            #[inline(always)]
            fn div(self, b: $t) -> $t {
                // SAFETY: as for `add`.
                $t(unsafe { $div(self.0, b.0) })
            }
        }
    };
    ($t:ident, $add:path, $sub:path) => {
        impl std::ops::Add for $t {
            type Output = $t;
            #[inline(always)]
            fn add(self, b: $t) -> $t {
                // SAFETY: a value of this type exists only when its instruction set was
                // detected (module docs of `vector.rs`).
                $t(unsafe { $add(self.0, b.0) })
            }
        }
        impl std::ops::Sub for $t {
            type Output = $t;
            #[inline(always)]
            fn sub(self, b: $t) -> $t {
                // SAFETY: as for `add`.
                $t(unsafe { $sub(self.0, b.0) })
            }
        }
    };
}
pub(crate) use vec_ops;

/// Implements `BitAnd`/`BitOr` (and `Not` via `$not`) for a wrapper from intrinsics.
macro_rules! bit_ops {
    ($t:ident, $and:path, $or:path) => {
        impl std::ops::BitAnd for $t {
            type Output = $t;
            #[inline(always)]
            fn bitand(self, b: $t) -> $t {
                // SAFETY: as for `vec_ops`.
                $t(unsafe { $and(self.0, b.0) })
            }
        }
        impl std::ops::BitOr for $t {
            type Output = $t;
            #[inline(always)]
            fn bitor(self, b: $t) -> $t {
                // SAFETY: as for `vec_ops`.
                $t(unsafe { $or(self.0, b.0) })
            }
        }
    };
}
pub(crate) use bit_ops;
