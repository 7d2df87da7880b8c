//! aarch64 backend: NEON (Advanced SIMD), 4 x f32 / 2 x f64 with fused multiply-add.
//! NEON is part of the aarch64 baseline, but the token is still only handed out after
//! `is_aarch64_feature_detected!("neon")` so the same rules hold as on x86.

use super::vector::{bit_ops, vec_ops, Simd, Vf, Vu};
use std::arch::aarch64::*;

/// Token for NEON; constructed only after detection (`mod.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Neon(());

impl Neon {
    /// # Safety
    /// The CPU must support NEON.
    pub unsafe fn new() -> Neon {
        Neon(())
    }
}

macro_rules! neon_uvec {
    ($name:ident, $raw:ty, $e:ty, $add:ident, $sub:ident, $and:ident, $or:ident, $dup:ident,
     $shl:ident, $shr:ident, $mant:literal) => {
        #[derive(Clone, Copy)]
        pub struct $name($raw);
        vec_ops!($name, $add, $sub);
        bit_ops!($name, $and, $or);
        impl Vu for $name {
            type E = $e;
            #[inline(always)]
            fn splat(self, v: $e) -> $name {
                // SAFETY: holding `self` proves the instruction set (vector.rs docs).
                $name(unsafe { $dup(v) })
            }
            #[inline(always)]
            fn shl_mant(self) -> $name {
                // SAFETY: as for `splat`.
                $name(unsafe { $shl::<$mant>(self.0) })
            }
            #[inline(always)]
            fn shr_mant(self) -> $name {
                // SAFETY: as for `splat`.
                $name(unsafe { $shr::<$mant>(self.0) })
            }
        }
    };
}

neon_uvec!(
    NU32,
    uint32x4_t,
    u32,
    vaddq_u32,
    vsubq_u32,
    vandq_u32,
    vorrq_u32,
    vdupq_n_u32,
    vshlq_n_u32,
    vshrq_n_u32,
    23
);
neon_uvec!(
    NU64,
    uint64x2_t,
    u64,
    vaddq_u64,
    vsubq_u64,
    vandq_u64,
    vorrq_u64,
    vdupq_n_u64,
    vshlq_n_u64,
    vshrq_n_u64,
    52
);

macro_rules! neon_float {
    ($name:ident, $mask:ident, $raw:ty, $mraw:ty, $e:ty, $u:ident, $ue:ty, $lanes:literal,
     $add:ident, $sub:ident, $mul:ident, $div:ident, $fma:ident, $min:ident, $max:ident,
     $abs:ident, $neg:ident, $sqrt:ident, $rnd:ident, $lt:ident, $gt:ident, $ge:ident,
     $eq:ident, $bsl:ident, $dup:ident, $ld:ident, $st:ident, $tobits:ident, $frombits:ident,
     $mand:ident, $mor:ident, $mxor:ident, $mdup:ident) => {
        #[derive(Clone, Copy)]
        pub struct $name($raw);
        /// Lane mask: all ones or all zeros per lane; only comparisons create one.
        #[derive(Clone, Copy)]
        pub struct $mask($mraw);
        vec_ops!($name, $add, $sub, $mul, $div);
        bit_ops!($mask, $mand, $mor);
        impl std::ops::Not for $mask {
            type Output = $mask;
            #[inline(always)]
            fn not(self) -> $mask {
                // SAFETY: holding `self` proves the instruction set (vector.rs docs).
                unsafe { $mask($mxor(self.0, $mdup(<$ue>::MAX))) }
            }
        }
        impl std::ops::Neg for $name {
            type Output = $name;
            #[inline(always)]
            fn neg(self) -> $name {
                // SAFETY: as for `Not`.
                unsafe { $name($neg(self.0)) }
            }
        }
        impl Vf for $name {
            type E = $e;
            type M = $mask;
            type U = $u;
            const LANES: usize = $lanes;
            // SAFETY (every method): holding `self` proves the instruction set.
            #[inline(always)]
            fn splat(self, v: $e) -> $name {
                unsafe { $name($dup(v)) }
            }
            #[inline(always)]
            unsafe fn load(self, p: *const $e) -> $name {
                unsafe { $name($ld(p)) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $e) {
                unsafe { $st(p, self.0) }
            }
            #[inline(always)]
            fn mul_add(self, b: $name, c: $name) -> $name {
                // vfmaq(c, a, b) = c + a * b with one rounding
                unsafe { $name($fma(c.0, self.0, b.0)) }
            }
            #[inline(always)]
            fn min(self, b: $name) -> $name {
                unsafe { $name($min(self.0, b.0)) }
            }
            #[inline(always)]
            fn max(self, b: $name) -> $name {
                unsafe { $name($max(self.0, b.0)) }
            }
            #[inline(always)]
            fn abs(self) -> $name {
                unsafe { $name($abs(self.0)) }
            }
            #[inline(always)]
            fn sqrt(self) -> $name {
                unsafe { $name($sqrt(self.0)) }
            }
            #[inline(always)]
            fn round(self) -> $name {
                unsafe { $name($rnd(self.0)) }
            }
            #[inline(always)]
            fn lt(self, b: $name) -> $mask {
                unsafe { $mask($lt(self.0, b.0)) }
            }
            #[inline(always)]
            fn gt(self, b: $name) -> $mask {
                unsafe { $mask($gt(self.0, b.0)) }
            }
            #[inline(always)]
            fn ge(self, b: $name) -> $mask {
                unsafe { $mask($ge(self.0, b.0)) }
            }
            #[inline(always)]
            fn eq(self, b: $name) -> $mask {
                unsafe { $mask($eq(self.0, b.0)) }
            }
            #[inline(always)]
            fn is_nan(self) -> $mask {
                !self.eq(self)
            }
            #[inline(always)]
            fn select(m: $mask, t: $name, f: $name) -> $name {
                unsafe { $name($bsl(m.0, t.0, f.0)) }
            }
            #[inline(always)]
            fn to_bits(self) -> $u {
                unsafe { $u($tobits(self.0)) }
            }
            #[inline(always)]
            fn from_bits(u: $u) -> $name {
                unsafe { $name($frombits(u.0)) }
            }
        }
    };
}

neon_float!(
    NF32,
    NM32,
    float32x4_t,
    uint32x4_t,
    f32,
    NU32,
    u32,
    4,
    vaddq_f32,
    vsubq_f32,
    vmulq_f32,
    vdivq_f32,
    vfmaq_f32,
    vminq_f32,
    vmaxq_f32,
    vabsq_f32,
    vnegq_f32,
    vsqrtq_f32,
    vrndnq_f32,
    vcltq_f32,
    vcgtq_f32,
    vcgeq_f32,
    vceqq_f32,
    vbslq_f32,
    vdupq_n_f32,
    vld1q_f32,
    vst1q_f32,
    vreinterpretq_u32_f32,
    vreinterpretq_f32_u32,
    vandq_u32,
    vorrq_u32,
    veorq_u32,
    vdupq_n_u32
);
neon_float!(
    NF64,
    NM64,
    float64x2_t,
    uint64x2_t,
    f64,
    NU64,
    u64,
    2,
    vaddq_f64,
    vsubq_f64,
    vmulq_f64,
    vdivq_f64,
    vfmaq_f64,
    vminq_f64,
    vmaxq_f64,
    vabsq_f64,
    vnegq_f64,
    vsqrtq_f64,
    vrndnq_f64,
    vcltq_f64,
    vcgtq_f64,
    vcgeq_f64,
    vceqq_f64,
    vbslq_f64,
    vdupq_n_f64,
    vld1q_f64,
    vst1q_f64,
    vreinterpretq_u64_f64,
    vreinterpretq_f64_u64,
    vandq_u64,
    vorrq_u64,
    veorq_u64,
    vdupq_n_u64
);

impl Simd for Neon {
    type F32 = NF32;
    type F64 = NF64;
    type U32 = NU32;
    type U64 = NU64;
    #[inline(always)]
    fn zero_f32(self) -> NF32 {
        // SAFETY: the token exists only when NEON was detected.
        NF32(unsafe { vdupq_n_f32(0.0) })
    }
    #[inline(always)]
    fn zero_f64(self) -> NF64 {
        // SAFETY: as above.
        NF64(unsafe { vdupq_n_f64(0.0) })
    }
}
