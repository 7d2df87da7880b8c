//! SIMD-friendly building blocks for the hot reductions: a blocked float sum, a
//! NaN-propagating max and a branch-free `exp`, each compiled for AVX-512, AVX2+FMA and
//! the baseline and chosen at run time (`dispatch!`).
//!
//! The loops are plain Rust over arrays of independent accumulators, which LLVM turns
//! into vector code for whichever feature set the enclosing function is compiled with.
//! Floating-point operations are never reassociated or fused by the compiler (Rust has
//! no fast-math), so the three builds give bit-identical results: the accumulation order
//! is fixed by the code, not by the vector width.
//!
//! `exp` here serves the softmax paths that run as plain loops (tiles across lines, the
//! strided fallback, log-softmax's backward); the contiguous rows use the library's
//! vector math (`simd::rows`). It is accurate to ~1 ulp over the whole range, including
//! subnormal results (see the tests).

use super::{Float, Num};
use crate::kernels::num::{lane_total, ACC};
use std::sync::atomic::{AtomicU8, Ordering};

/// The instruction sets a dispatched kernel can be compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Base = 0,
    /// AVX2 + FMA (x86-64-v3).
    V3 = 1,
    /// AVX-512 F/VL/DQ/BW (x86-64-v4).
    V4 = 2,
}

/// The highest level kernels may use (lowered by tests to exercise every build).
static MAX_LEVEL: AtomicU8 = AtomicU8::new(Level::V4 as u8);

/// Caps the instruction set used by the dispatched kernels (for tests and benchmarks).
pub fn set_max_level(l: Level) {
    MAX_LEVEL.store(l as u8, Ordering::Relaxed);
}

/// The best level this CPU supports, capped by [`set_max_level`].
#[inline]
pub fn level() -> Level {
    let cap = MAX_LEVEL.load(Ordering::Relaxed);
    #[cfg(target_arch = "x86_64")]
    {
        if cap >= Level::V4 as u8
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512bw")
        {
            return Level::V4;
        }
        if cap >= Level::V3 as u8
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
        {
            return Level::V3;
        }
    }
    let _ = cap;
    Level::Base
}

/// Defines `fn name<T: Bound>(args) -> R` whose body is compiled three times (AVX-512,
/// AVX2+FMA, baseline); each call runs the best one the CPU supports. The body should
/// call only `#[inline(always)]` helpers so they are compiled with the same features.
macro_rules! simd_dispatch {
    ($(#[$m:meta])* $vis:vis fn $name:ident<$T:ident: $B:path>($($a:ident: $t:ty),* $(,)?)
        $(-> $r:ty)? $body:block) => {
        $(#[$m])*
        $vis fn $name<$T: $B>($($a: $t),*) $(-> $r)? {
            #[inline(always)]
            fn imp<$T: $B>($($a: $t),*) $(-> $r)? $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")]
                unsafe fn v4<$T: $B>($($a: $t),*) $(-> $r)? {
                    imp::<$T>($($a),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn v3<$T: $B>($($a: $t),*) $(-> $r)? {
                    imp::<$T>($($a),*)
                }
                match $crate::kernels::reduce::fast::level() {
                    // SAFETY: `level()` reports V4/V3 only when the CPU has those features.
                    $crate::kernels::reduce::fast::Level::V4 => return unsafe { v4::<$T>($($a),*) },
                    $crate::kernels::reduce::fast::Level::V3 => return unsafe { v3::<$T>($($a),*) },
                    $crate::kernels::reduce::fast::Level::Base => {}
                }
            }
            imp::<$T>($($a),*)
        }
    };
}
pub(crate) use simd_dispatch as dispatch;

/// Float types with a branch-free, vectorisable `exp`.
pub trait FastFloat: Float + Send + Sync + crate::kernels::simd::SimdFloat {
    /// `exp(x)` to ~1 ulp, NaN in -> NaN out, written so loops over it vectorise.
    fn exp_fast(self) -> Self;
    /// The correctly rounded square root (a vector instruction).
    fn sqrt_(self) -> Self;
    /// `self * a + b` rounded once (an FMA instruction where the build has one).
    fn mul_add_(self, a: Self, b: Self) -> Self;
    /// Lanes of a 256-bit vector of this type (PyTorch's AVX2 `Vectorized<T>::size()`).
    const LANES: usize;
}

impl FastFloat for f32 {
    #[inline(always)]
    fn exp_fast(self) -> f32 {
        exp_f32(self)
    }
    #[inline(always)]
    fn sqrt_(self) -> f32 {
        self.sqrt()
    }
    #[inline(always)]
    fn mul_add_(self, a: f32, b: f32) -> f32 {
        self.mul_add(a, b)
    }
    const LANES: usize = 8;
}

impl FastFloat for f64 {
    #[inline(always)]
    fn exp_fast(self) -> f64 {
        exp_f64(self)
    }
    #[inline(always)]
    fn sqrt_(self) -> f64 {
        self.sqrt()
    }
    #[inline(always)]
    fn mul_add_(self, a: f64, b: f64) -> f64 {
        self.mul_add(a, b)
    }
    const LANES: usize = 4;
}

/// `exp` for f32: `x = n ln2 + r` with |r| <= ln2/2 (ln2 split in two so `n ln2` is
/// exact), a degree-7 minimax polynomial for `exp(r)`, and `2^n` applied in two halves
/// so subnormal results and overflow to inf come out right without branches.
#[inline(always)]
fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4; // 355/512: n * LN2_HI is exact for |n| < 2^15
    const LN2_LO: f32 = -2.121_944_4e-4; // ln2 - LN2_HI
    const SHIFTER: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
                                       // outside [-104, 89] the result is 0 or inf; clamping keeps 2^n representable
    let xc = x.clamp(-104.0, 89.0);
    let t = xc * LOG2E + SHIFTER;
    let n = t - SHIFTER;
    let r = (xc - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let e = p * (r * r) + r + 1.0;
    // the low bits of `t` hold n (|n| <= 150), so the exponent is integer arithmetic
    let ni = (t.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32);
    let n1 = ni >> 1;
    let n2 = ni.wrapping_sub(n1);
    let s1 = f32::from_bits((n1.wrapping_add(127) as u32) << 23);
    let s2 = f32::from_bits((n2.wrapping_add(127) as u32) << 23);
    let y = e * s1 * s2;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// `exp` for f64: same reduction as [`exp_f32`] with a degree-13 Taylor polynomial
/// (truncation error < 2e-16 on |r| <= ln2/2).
#[inline(always)]
fn exp_f64(x: f64) -> f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    // ln2 split as in fdlibm: the high part has its low 21 mantissa bits zero
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    const SHIFTER: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
    let xc = x.clamp(-746.0, 710.0);
    let t = xc * LOG2E + SHIFTER;
    let n = t - SHIFTER;
    let r = (xc - n * LN2_HI) - n * LN2_LO;
    // 1/k! for k = 13 down to 2
    const C: [f64; 12] = [
        1.0 / 6_227_020_800.0,
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ];
    let mut p = C[0];
    for &c in &C[1..] {
        p = p * r + c;
    }
    let e = p * (r * r) + r + 1.0;
    let ni = (t.to_bits() as i64).wrapping_sub(SHIFTER.to_bits() as i64);
    let n1 = ni >> 1;
    let n2 = ni.wrapping_sub(n1);
    let s1 = f64::from_bits((n1.wrapping_add(1023) as u64) << 52);
    let s2 = f64::from_bits((n2.wrapping_add(1023) as u64) << 52);
    let y = e * s1 * s2;
    if x.is_nan() {
        x
    } else {
        y
    }
}

/// Elements summed into one block total; block totals are then added pairwise, so the
/// rounding error grows like log(n / BLOCK) beyond a block.
pub const BLOCK: usize = 4096;

/// `sum(map(x))` of at most a few blocks in `ACC` lanes combined in a fixed tree.
#[inline(always)]
pub fn lane_sum<T: Num, U: Copy>(xs: &[U], map: impl Fn(U) -> T) -> T {
    let mut acc = [T::ZERO; ACC];
    let chunks = xs.chunks_exact(ACC);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..ACC {
            acc[k] = acc[k].add(map(c[k]));
        }
    }
    let mut s = lane_total(acc);
    for &x in rest {
        s = s.add(map(x));
    }
    s
}

/// NaN-propagating max of `xs` (`T::LOWEST` for an empty slice).
#[inline(always)]
pub fn lane_max<T: Num>(xs: &[T]) -> T {
    const W: usize = 32;
    let mut acc = [T::LOWEST; W];
    let chunks = xs.chunks_exact(W);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..W {
            acc[k] = super::max_nan(acc[k], c[k]);
        }
    }
    let mut m = acc.iter().fold(T::LOWEST, |m, &v| super::max_nan(m, v));
    for &x in rest {
        m = super::max_nan(m, x);
    }
    m
}

/// Adds up a list of partial sums pairwise (fixed tree for a given length).
pub fn pairwise_total<T: Num>(parts: &[T]) -> T {
    match parts.len() {
        0 => T::ZERO,
        1 => parts[0],
        n => {
            let (a, b) = parts.split_at(n / 2);
            pairwise_total(a).add(pairwise_total(b))
        }
    }
}

dispatch! {
    /// The block totals of `xs` (each `BLOCK` elements, the last one shorter) into
    /// `out`, which must hold `xs.len().div_ceil(BLOCK)` values.
    pub fn block_sums<T: Num>(xs: &[T], out: &mut [T]) {
        for (o, b) in out.iter_mut().zip(xs.chunks(BLOCK)) {
            *o = lane_sum(b, |v| v);
        }
    }
}

/// Blocks per parallel task of [`sum`]: 256k elements, a few hundred microseconds.
const TASK_BLOCKS: usize = 64;

/// The sum of a contiguous float slice: blocks of `BLOCK` elements summed in `ACC` lanes,
/// block totals added pairwise. The blocking depends only on the length, so the result
/// is the same for any thread count; long slices are summed on ferric's pool.
pub fn sum<T: Num + Send + Sync>(xs: &[T]) -> T {
    if xs.len() <= BLOCK {
        let mut one = [T::ZERO];
        block_sums(xs, &mut one);
        return one[0];
    }
    let n_blocks = xs.len().div_ceil(BLOCK);
    let mut parts = vec![T::ZERO; n_blocks];
    if crate::threads::worth_splitting(xs.len()) && n_blocks > TASK_BLOCKS {
        use rayon::prelude::*;
        crate::threads::install(|| {
            parts
                .par_chunks_mut(TASK_BLOCKS)
                .zip(xs.par_chunks(TASK_BLOCKS * BLOCK))
                .for_each(|(p, x)| block_sums(x, p));
        });
    } else {
        block_sums(xs, &mut parts);
    }
    pairwise_total(&parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps32(a: f32, b: f32) -> u32 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn exp_f32_is_within_two_ulps_everywhere() {
        let mut worst = 0;
        let mut x = -110.0f32;
        while x < 90.0 {
            let want = (x as f64).exp() as f32;
            let got = exp_f32(x);
            let u = ulps32(got, want);
            // subnormal results: compare absolutely (ulps of the subnormal grid)
            assert!(u <= 2, "exp({x}) = {got}, want {want}");
            worst = worst.max(u);
            x += 0.0137;
        }
        assert!(worst <= 2);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert!(exp_f32(f32::NAN).is_nan());
    }

    #[test]
    fn exp_f64_is_within_two_ulps_everywhere() {
        let mut x = -750.0f64;
        while x < 712.0 {
            let want = x.exp();
            let got = exp_f64(x);
            let u = (got.to_bits() as i128 - want.to_bits() as i128).unsigned_abs();
            assert!(u <= 2, "exp({x}) = {got:e}, want {want:e}");
            x += 0.0731;
        }
        assert_eq!(exp_f64(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp_f64(f64::INFINITY), f64::INFINITY);
        assert!(exp_f64(f64::NAN).is_nan());
    }

    #[test]
    fn sum_is_accurate_and_the_same_on_every_level() {
        let xs: Vec<f32> = (0..1_000_003)
            .map(|i: u64| ((i * 7919 % 1000) as f32 - 500.0) * 0.001 + 0.1)
            .collect();
        let exact: f64 = xs.iter().map(|&v| v as f64).sum();
        let mut got = Vec::new();
        for l in [Level::V4, Level::V3, Level::Base] {
            set_max_level(l);
            got.push(sum(&xs));
        }
        set_max_level(Level::V4);
        assert!(
            ((got[0] as f64 - exact) / exact).abs() < 1e-6,
            "{got:?} {exact}"
        );
        assert!(
            got.iter().all(|&g| g.to_bits() == got[0].to_bits()),
            "{got:?}"
        );
        assert_eq!(sum::<f64>(&[]), 0.0);
        assert_eq!(sum(&[1.5f64, 2.0]), 3.5);
        assert!(lane_max(&[1.0f32, f32::NAN, 3.0]).is_nan());
        assert_eq!(lane_max::<f32>(&[]), f32::NEG_INFINITY);
    }
}
