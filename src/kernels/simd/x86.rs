//! x86-64 backends: AVX2+FMA (256-bit) and AVX-512F (512-bit).
//!
//! Every method is a thin `#[inline(always)]` wrapper over one intrinsic; the code only
//! becomes AVX code once inlined into a `#[target_feature]` entry point (`kernels.rs`).

use super::vector::{bit_ops, vec_ops, Simd, Vf, Vu};
use std::arch::x86_64::*;

/// Declares a wrapper over an unsigned-integer vector with its `Vu` impl.
macro_rules! uvec {
    ($name:ident, $raw:ty, $e:ty, $ie:ty, $add:ident, $sub:ident, $and:ident, $or:ident,
     $set1:ident, $shl:ident, $shr:ident, $mant:literal) => {
        #[derive(Clone, Copy)]
        pub struct $name($raw);
        vec_ops!($name, $add, $sub);
        bit_ops!($name, $and, $or);
        impl Vu for $name {
            type E = $e;
            #[inline(always)]
            fn splat(self, v: $e) -> $name {
                // SAFETY: holding `self` proves the instruction set (vector.rs docs).
                $name(unsafe { $set1(v as $ie) })
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

// ---------------------------------------------------------------- AVX2 + FMA (8 x f32)

/// Token for AVX2+FMA; constructed only after detection (`mod.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

impl Avx2 {
    /// # Safety
    /// The CPU must support AVX2 and FMA.
    pub unsafe fn new() -> Avx2 {
        Avx2(())
    }
}

uvec!(
    A2U32,
    __m256i,
    u32,
    i32,
    _mm256_add_epi32,
    _mm256_sub_epi32,
    _mm256_and_si256,
    _mm256_or_si256,
    _mm256_set1_epi32,
    _mm256_slli_epi32,
    _mm256_srli_epi32,
    23
);
uvec!(
    A2U64,
    __m256i,
    u64,
    i64,
    _mm256_add_epi64,
    _mm256_sub_epi64,
    _mm256_and_si256,
    _mm256_or_si256,
    _mm256_set1_epi64x,
    _mm256_slli_epi64,
    _mm256_srli_epi64,
    52
);

/// Declares an AVX2 float vector and its mask (an all-ones/all-zeros lane vector).
macro_rules! avx2_float {
    ($name:ident, $mask:ident, $raw:ty, $e:ty, $u:ident, $lanes:literal,
     $add:ident, $sub:ident, $mul:ident, $div:ident, $and:ident, $or:ident, $xor:ident,
     $andnot:ident, $fmadd:ident, $min:ident, $max:ident, $sqrt:ident, $round:ident, $cmp:ident,
     $blendv:ident, $set1:ident, $loadu:ident, $storeu:ident, $tobits:ident, $frombits:ident) => {
        #[derive(Clone, Copy)]
        pub struct $name($raw);
        #[derive(Clone, Copy)]
        pub struct $mask($raw);
        vec_ops!($name, $add, $sub, $mul, $div);
        bit_ops!($mask, $and, $or);
        impl std::ops::Not for $mask {
            type Output = $mask;
            #[inline(always)]
            fn not(self) -> $mask {
                // SAFETY: holding `self` proves the instruction set (vector.rs docs).
                unsafe { $mask($xor(self.0, $cmp::<_CMP_EQ_UQ>(self.0, self.0))) }
            }
        }
        impl std::ops::Neg for $name {
            type Output = $name;
            #[inline(always)]
            fn neg(self) -> $name {
                // SAFETY: as for `Not`.
                unsafe { $name($xor(self.0, $set1(-0.0))) }
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
                unsafe { $name($set1(v)) }
            }
            #[inline(always)]
            unsafe fn load(self, p: *const $e) -> $name {
                unsafe { $name($loadu(p)) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $e) {
                unsafe { $storeu(p, self.0) }
            }
            #[inline(always)]
            fn mul_add(self, b: $name, c: $name) -> $name {
                unsafe { $name($fmadd(self.0, b.0, c.0)) }
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
                unsafe { $name($andnot($set1(-0.0), self.0)) }
            }
            #[inline(always)]
            fn sqrt(self) -> $name {
                unsafe { $name($sqrt(self.0)) }
            }
            #[inline(always)]
            fn round(self) -> $name {
                unsafe { $name($round::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self.0)) }
            }
            #[inline(always)]
            fn lt(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_LT_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn gt(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_GT_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn ge(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_GE_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn eq(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_EQ_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn is_nan(self) -> $mask {
                unsafe { $mask($cmp::<_CMP_UNORD_Q>(self.0, self.0)) }
            }
            #[inline(always)]
            fn select(m: $mask, t: $name, f: $name) -> $name {
                unsafe { $name($blendv(f.0, t.0, m.0)) }
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

avx2_float!(
    A2F32,
    A2M32,
    __m256,
    f32,
    A2U32,
    8,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_mul_ps,
    _mm256_div_ps,
    _mm256_and_ps,
    _mm256_or_ps,
    _mm256_xor_ps,
    _mm256_andnot_ps,
    _mm256_fmadd_ps,
    _mm256_min_ps,
    _mm256_max_ps,
    _mm256_sqrt_ps,
    _mm256_round_ps,
    _mm256_cmp_ps,
    _mm256_blendv_ps,
    _mm256_set1_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_castps_si256,
    _mm256_castsi256_ps
);
avx2_float!(
    A2F64,
    A2M64,
    __m256d,
    f64,
    A2U64,
    4,
    _mm256_add_pd,
    _mm256_sub_pd,
    _mm256_mul_pd,
    _mm256_div_pd,
    _mm256_and_pd,
    _mm256_or_pd,
    _mm256_xor_pd,
    _mm256_andnot_pd,
    _mm256_fmadd_pd,
    _mm256_min_pd,
    _mm256_max_pd,
    _mm256_sqrt_pd,
    _mm256_round_pd,
    _mm256_cmp_pd,
    _mm256_blendv_pd,
    _mm256_set1_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_castpd_si256,
    _mm256_castsi256_pd
);

impl Simd for Avx2 {
    type F32 = A2F32;
    type F64 = A2F64;
    type U32 = A2U32;
    type U64 = A2U64;
    #[inline(always)]
    fn zero_f32(self) -> A2F32 {
        // SAFETY: the token exists only when AVX2+FMA were detected.
        A2F32(unsafe { _mm256_setzero_ps() })
    }
    #[inline(always)]
    fn zero_f64(self) -> A2F64 {
        // SAFETY: as above.
        A2F64(unsafe { _mm256_setzero_pd() })
    }
}

// ---------------------------------------------------------------- AVX-512F (16 x f32)

/// Token for AVX-512F (with AVX2+FMA); constructed only after detection (`mod.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Avx512(());

impl Avx512 {
    /// # Safety
    /// The CPU must support AVX-512F, AVX2 and FMA.
    pub unsafe fn new() -> Avx512 {
        Avx512(())
    }
}

uvec!(
    A5U32,
    __m512i,
    u32,
    i32,
    _mm512_add_epi32,
    _mm512_sub_epi32,
    _mm512_and_si512,
    _mm512_or_si512,
    _mm512_set1_epi32,
    _mm512_slli_epi32,
    _mm512_srli_epi32,
    23
);
uvec!(
    A5U64,
    __m512i,
    u64,
    i64,
    _mm512_add_epi64,
    _mm512_sub_epi64,
    _mm512_and_si512,
    _mm512_or_si512,
    _mm512_set1_epi64,
    _mm512_slli_epi64,
    _mm512_srli_epi64,
    52
);

/// Declares an AVX-512 float vector; masks are the `k` registers (one bit per lane).
macro_rules! avx512_float {
    ($name:ident, $mask:ident, $kraw:ty, $raw:ty, $e:ty, $u:ident, $lanes:literal,
     $add:ident, $sub:ident, $mul:ident, $div:ident, $fmadd:ident, $min:ident, $max:ident,
     $abs:ident, $sqrt:ident, $round:ident, $cmp:ident, $blend:ident, $set1:ident, $loadu:ident,
     $storeu:ident, $tobits:ident, $frombits:ident, $scalef:ident, $signbit:expr) => {
        #[derive(Clone, Copy)]
        pub struct $name($raw);
        /// Lane mask; only comparisons create one.
        #[derive(Clone, Copy)]
        pub struct $mask($kraw);
        vec_ops!($name, $add, $sub, $mul, $div);
        impl std::ops::BitAnd for $mask {
            type Output = $mask;
            #[inline(always)]
            fn bitand(self, b: $mask) -> $mask {
                $mask(self.0 & b.0)
            }
        }
        impl std::ops::BitOr for $mask {
            type Output = $mask;
            #[inline(always)]
            fn bitor(self, b: $mask) -> $mask {
                $mask(self.0 | b.0)
            }
        }
        impl std::ops::Not for $mask {
            type Output = $mask;
            #[inline(always)]
            fn not(self) -> $mask {
                $mask(!self.0)
            }
        }
        impl std::ops::Neg for $name {
            type Output = $name;
            #[inline(always)]
            fn neg(self) -> $name {
                let sign = self.to_bits().splat($signbit);
                $name::from_bits($u(
                    // SAFETY: holding `self` proves the instruction set (vector.rs docs).
                    unsafe { _mm512_xor_si512(self.to_bits().0, sign.0) },
                ))
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
                unsafe { $name($set1(v)) }
            }
            #[inline(always)]
            unsafe fn load(self, p: *const $e) -> $name {
                unsafe { $name($loadu(p)) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $e) {
                unsafe { $storeu(p, self.0) }
            }
            #[inline(always)]
            fn mul_add(self, b: $name, c: $name) -> $name {
                unsafe { $name($fmadd(self.0, b.0, c.0)) }
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
                unsafe { $name($round::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(self.0)) }
            }
            #[inline(always)]
            fn lt(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_LT_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn gt(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_GT_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn ge(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_GE_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn eq(self, b: $name) -> $mask {
                unsafe { $mask($cmp::<_CMP_EQ_OQ>(self.0, b.0)) }
            }
            #[inline(always)]
            fn is_nan(self) -> $mask {
                unsafe { $mask($cmp::<_CMP_UNORD_Q>(self.0, self.0)) }
            }
            #[inline(always)]
            fn select(m: $mask, t: $name, f: $name) -> $name {
                unsafe { $name($blend(m.0, f.0, t.0)) }
            }
            #[inline(always)]
            fn to_bits(self) -> $u {
                unsafe { $u($tobits(self.0)) }
            }
            #[inline(always)]
            fn from_bits(u: $u) -> $name {
                unsafe { $name($frombits(u.0)) }
            }
            #[inline(always)]
            fn scale_native(self, n: $name) -> Option<$name> {
                // vscalef: self * 2^floor(n) with one rounding (MXCSR's nearest-even;
                // ferric never sets flush-to-zero)
                Some(unsafe { $name($scalef(self.0, n.0)) })
            }
        }
    };
}

avx512_float!(
    A5F32,
    A5M32,
    __mmask16,
    __m512,
    f32,
    A5U32,
    16,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_mul_ps,
    _mm512_div_ps,
    _mm512_fmadd_ps,
    _mm512_min_ps,
    _mm512_max_ps,
    _mm512_abs_ps,
    _mm512_sqrt_ps,
    _mm512_roundscale_ps,
    _mm512_cmp_ps_mask,
    _mm512_mask_blend_ps,
    _mm512_set1_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_castps_si512,
    _mm512_castsi512_ps,
    _mm512_scalef_ps,
    0x8000_0000u32
);
avx512_float!(
    A5F64,
    A5M64,
    __mmask8,
    __m512d,
    f64,
    A5U64,
    8,
    _mm512_add_pd,
    _mm512_sub_pd,
    _mm512_mul_pd,
    _mm512_div_pd,
    _mm512_fmadd_pd,
    _mm512_min_pd,
    _mm512_max_pd,
    _mm512_abs_pd,
    _mm512_sqrt_pd,
    _mm512_roundscale_pd,
    _mm512_cmp_pd_mask,
    _mm512_mask_blend_pd,
    _mm512_set1_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_castpd_si512,
    _mm512_castsi512_pd,
    _mm512_scalef_pd,
    0x8000_0000_0000_0000u64
);

impl Simd for Avx512 {
    type F32 = A5F32;
    type F64 = A5F64;
    type U32 = A5U32;
    type U64 = A5U64;
    #[inline(always)]
    fn zero_f32(self) -> A5F32 {
        // SAFETY: the token exists only when AVX-512F was detected.
        A5F32(unsafe { _mm512_setzero_ps() })
    }
    #[inline(always)]
    fn zero_f64(self) -> A5F64 {
        // SAFETY: as above.
        A5F64(unsafe { _mm512_setzero_pd() })
    }
}
