//! The portable fallback: one lane, plain Rust arithmetic. Used on CPUs without AVX2+FMA
//! (or NEON) and as the reference the SIMD backends are tested against.

use super::vector::{Simd, Vf, Vu};

#[derive(Clone, Copy, Debug, Default)]
pub struct Scalar;

/// Wrapping `u32` lanes (bit patterns; overflow is intended, never a panic).
#[derive(Clone, Copy, Debug)]
pub struct W32(pub u32);
/// Wrapping `u64` lanes.
#[derive(Clone, Copy, Debug)]
pub struct W64(pub u64);

macro_rules! wrapping {
    ($w:ident, $e:ty, $mant:expr) => {
        impl std::ops::Add for $w {
            type Output = $w;
            #[inline(always)]
            fn add(self, b: $w) -> $w {
                $w(self.0.wrapping_add(b.0))
            }
        }
        impl std::ops::Sub for $w {
            type Output = $w;
            #[inline(always)]
            fn sub(self, b: $w) -> $w {
                $w(self.0.wrapping_sub(b.0))
            }
        }
        impl std::ops::BitAnd for $w {
            type Output = $w;
            #[inline(always)]
            fn bitand(self, b: $w) -> $w {
                $w(self.0 & b.0)
            }
        }
        impl std::ops::BitOr for $w {
            type Output = $w;
            #[inline(always)]
            fn bitor(self, b: $w) -> $w {
                $w(self.0 | b.0)
            }
        }
        impl Vu for $w {
            type E = $e;
            #[inline(always)]
            fn splat(self, v: $e) -> $w {
                $w(v)
            }
            #[inline(always)]
            fn shl_mant(self) -> $w {
                $w(self.0 << $mant)
            }
            #[inline(always)]
            fn shr_mant(self) -> $w {
                $w(self.0 >> $mant)
            }
        }
    };
}
wrapping!(W32, u32, 23);
wrapping!(W64, u64, 52);

macro_rules! scalar_float {
    ($t:ty, $w:ident) => {
        impl Vf for $t {
            type E = $t;
            type M = bool;
            type U = $w;
            const LANES: usize = 1;
            #[inline(always)]
            fn splat(self, v: $t) -> $t {
                v
            }
            #[inline(always)]
            unsafe fn load(self, p: *const $t) -> $t {
                // SAFETY: the caller guarantees `p` is readable.
                unsafe { p.read_unaligned() }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: the caller guarantees `p` is writable.
                unsafe { p.write_unaligned(self) }
            }
            #[inline(always)]
            fn mul_add(self, b: $t, c: $t) -> $t {
                self * b + c
            }
            #[inline(always)]
            fn min(self, b: $t) -> $t {
                <$t>::min(self, b)
            }
            #[inline(always)]
            fn max(self, b: $t) -> $t {
                <$t>::max(self, b)
            }
            #[inline(always)]
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn round(self) -> $t {
                self.round_ties_even()
            }
            #[inline(always)]
            fn lt(self, b: $t) -> bool {
                self < b
            }
            #[inline(always)]
            fn gt(self, b: $t) -> bool {
                self > b
            }
            #[inline(always)]
            fn ge(self, b: $t) -> bool {
                self >= b
            }
            #[inline(always)]
            fn eq(self, b: $t) -> bool {
                self == b
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn select(m: bool, t: $t, f: $t) -> $t {
                if m {
                    t
                } else {
                    f
                }
            }
            #[inline(always)]
            fn to_bits(self) -> $w {
                $w(<$t>::to_bits(self))
            }
            #[inline(always)]
            fn from_bits(u: $w) -> $t {
                <$t>::from_bits(u.0)
            }
        }
    };
}
scalar_float!(f32, W32);
scalar_float!(f64, W64);

impl Simd for Scalar {
    type F32 = f32;
    type F64 = f64;
    type U32 = W32;
    type U64 = W64;
    #[inline(always)]
    fn zero_f32(self) -> f32 {
        0.0
    }
    #[inline(always)]
    fn zero_f64(self) -> f64 {
        0.0
    }
}
