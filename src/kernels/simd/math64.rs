//! Vectorised float64 functions, generic over the backend.
//!
//! Full float64 accuracy (<= 4 ULP, tested against double-double references):
//! * `exp`: as the float32 version (Cody-Waite with a 42-bit `LN2_HI`, two-factor
//!   scaling) with the Taylor series to degree 13 (truncation < 4.3e-18 relative).
//! * `log`: as the float32 version with the atanh series to s^21 (< 8e-19 relative).
//! * `sigmoid`, `silu`: the same cancellation-free forms as float32.
//!
//! Float32-grade helpers (relative error ~1e-11, rounded to float32 by the caller):
//! `erf_for_f32`, `gelu_for_f32`, `gelu_tanh_for_f32`. Computing these in float64 makes
//! `x^2` (whose rounding error is multiplied by x^2 ~ 100 in `exp(-x^2)`) and GELU's
//! tanh argument exact enough that float32 results are within 1 ULP.

use super::math32::horner;
use super::vector::{Vf, Vu};

/// ln 2 split: `LN2_HI` has 42 significant bits so `n * LN2_HI` is exact for |n| < 2048.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fefa_3800);
const LN2_LO: f64 = f64::from_bits(0x3d2e_f357_93c7_6730);
const LOG2E: f64 = std::f64::consts::LOG2_E;
/// 1.5 * 2^52 (see `math32::MAGIC`).
const MAGIC: f64 = 6_755_399_441_055_744.0;
const TWO52: f64 = 4_503_599_627_370_496.0;

/// `2^n` for lanes holding integers in [-1022, 1023].
#[inline(always)]
fn pow2<V: Vf<E = f64>>(n: V) -> V
where
    V::U: Vu<E = u64>,
{
    let b = (n + n.splat(MAGIC)).to_bits();
    V::from_bits((b + b.splat(1023)).shl_mant())
}

/// `p * 2^n` for integer lanes n in [-2044, 2046] (see `math32::scale`).
#[inline(always)]
fn scale<V: Vf<E = f64>>(p: V, n: V) -> V
where
    V::U: Vu<E = u64>,
{
    if let Some(y) = p.scale_native(n) {
        return y;
    }
    let a = (n * n.splat(0.5)).round();
    p * pow2(a) * pow2(n - a)
}

/// `1/k!` for k = 0..=13.
const EXP_TAYLOR: [f64; 14] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `e^x = p * 2^n` before scaling: (p, n); x is clamped to [-784, 710] so that n stays
/// in [-1132, 1025], inside `scale`'s reach even with `silu`'s 2^54 bias.
#[inline(always)]
fn exp_parts<V: Vf<E = f64>>(x: V) -> (V, V)
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let xc = x.max(k(-784.0)).min(k(710.0));
    let n = (xc * k(LOG2E)).round();
    let r = n.mul_add(k(-LN2_HI), xc);
    let r = n.mul_add(k(-LN2_LO), r);
    (horner(r, &EXP_TAYLOR), n)
}

#[inline(always)]
pub fn exp<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let (p, n) = exp_parts(x);
    V::select(x.is_nan(), x, scale(p, n))
}

/// atanh series coefficients `2/(2k+1)` for k = 1..=10.
const LOG_SERIES: [f64; 10] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
];

#[inline(always)]
pub fn log<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let tiny = x.lt(k(f64::MIN_POSITIVE));
    let xs = V::select(tiny, x * k(TWO52), x);
    let bits = xs.to_bits();
    let ebits = bits.shr_mant() | bits.splat(0x4330_0000_0000_0000);
    let e = V::from_bits(ebits) - k(TWO52 + 1023.0);
    let m = V::from_bits(
        (bits & bits.splat(0x000f_ffff_ffff_ffff)) | bits.splat(0x3ff0_0000_0000_0000),
    );
    let big = m.gt(k(std::f64::consts::SQRT_2));
    let m = V::select(big, m * k(0.5), m);
    let e = e + V::select(big, k(1.0), k(0.0)) - V::select(tiny, k(52.0), k(0.0));
    let f = m - k(1.0);
    let s = f / (f + k(2.0));
    let z = s * s;
    let r = z * horner(z, &LOG_SERIES);
    let l = (-s).mul_add(f - r, f);
    let y = e.mul_add(k(LN2_HI), e.mul_add(k(LN2_LO), l));
    let y = V::select(x.eq(k(0.0)), k(f64::NEG_INFINITY), y);
    let y = V::select(x.lt(k(0.0)), k(f64::NAN), y);
    let y = V::select(x.eq(k(f64::INFINITY)), x, y);
    V::select(x.is_nan(), x, y)
}

#[inline(always)]
fn logistic_parts<V: Vf<E = f64>>(x: V) -> (V, V)
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let e = exp(-x.abs());
    (V::select(x.ge(k(0.0)), k(1.0), e), k(1.0) + e)
}

#[inline(always)]
pub fn sigmoid<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let (n, d) = logistic_parts(x);
    n / d
}

/// `x * sigmoid(x)`, with the negative side biased by 2^54 as in `math32::silu`.
#[inline(always)]
pub fn silu<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let (p, n) = exp_parts(-x.abs());
    let d = k(1.0) + scale(p, n);
    let pos = x.ge(k(0.0));
    let num = V::select(pos, k(1.0), scale(p, n + k(54.0)));
    let y = x * (num / d);
    let y = V::select(pos, y, y * k(1.0 / 18_014_398_509_481_984.0));
    V::select(x.is_nan(), x, y)
}

/// `erfc(t) e^{t^2}` as a polynomial in `u = 1 / (1 + t/2)` on t in [0, 10.5], fitted
/// for this crate (Lawson's reweighted least squares against 30-digit mpmath values):
/// max relative error 1.1e-11. The variable u maps [0, inf) onto (0, 1], where the
/// function is smooth, unlike in t.
const ERFCX_U: [f64; 15] = [
    -1.685_594_481_540_132_3e-7,
    0.282_100_947_292_284,
    0.281_995_308_079_442_95,
    0.247_767_094_822_029_02,
    0.170_712_324_896_767_88,
    0.105_590_829_210_908_72,
    -0.056_520_269_494_307_385,
    -0.008_123_612_404_293_261,
    0.078_128_320_729_471_39,
    -0.613_731_183_940_266_7,
    1.218_355_731_424_035_6,
    -1.188_710_684_442_504_6,
    0.653_868_165_016_372_1,
    -0.197_004_510_073_661_9,
    0.025_571_707_453_971_564,
];

/// `erfc(t)` for t >= 0 given `t2 = t*t`: `e^{-t^2}` times the fitted `erfcx`.
#[inline(always)]
fn erfc_pos<V: Vf<E = f64>>(t: V, t2: V) -> V
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| t.splat(c);
    // beyond 10.5 the result is below 1e-49, far under float32's range: clamping the
    // polynomial's argument only keeps it inside its fitted interval
    let u = k(1.0) / t.min(k(10.5)).mul_add(k(0.5), k(1.0));
    exp(-t2) * horner(u, &ERFCX_U)
}

/// erf's Taylor series `2/sqrt(pi) sum (-1)^k x^{2k+1} / (k! (2k+1))`, k = 0..=9:
/// on |x| < 0.6 the truncation error is below 2e-11 relative.
const ERF_TAYLOR: [f64; 10] = [
    std::f64::consts::FRAC_2_SQRT_PI,
    -0.376_126_389_031_837_54,
    0.112_837_916_709_551_26,
    -0.026_866_170_645_131_252,
    0.005_223_977_625_442_188,
    -8.548_327_023_450_853e-4,
    1.205_533_298_178_966_4e-4,
    -1.492_565_035_840_625e-5,
    1.646_211_436_588_924_8e-6,
    -1.636_584_469_123_492_4e-7,
];

/// erf with ~1e-11 relative accuracy (for float32 results).
#[inline(always)]
pub fn erf_for_f32<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let a = x.abs();
    let z = a * a;
    let small = a * horner(z, &ERF_TAYLOR);
    let large = k(1.0) - erfc_pos(a, z);
    let y = V::select(a.lt(k(0.6)), small, large);
    let sign = x.to_bits() & x.to_bits().splat(0x8000_0000_0000_0000);
    let y = V::from_bits(y.to_bits() | sign);
    V::select(x.is_nan(), x, y)
}

/// `x Phi(x) = x erfc(-x/sqrt 2) / 2`: for x < 0 directly (no cancellation), for
/// x >= 0 as `x - |x| erfc(x/sqrt 2) / 2`. +inf gives inf and -inf NaN, as PyTorch's
/// float64 kernel does.
#[inline(always)]
pub fn gelu_for_f32<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let a = x.abs();
    let t = a * k(std::f64::consts::FRAC_1_SQRT_2);
    let h = k(0.5) * x * erfc_pos(t, k(0.5) * (a * a));
    let y = V::select(x.gt(k(0.0)), x - h, h);
    let y = V::select(x.eq(k(f64::INFINITY)), x, y);
    let y = V::select(x.eq(k(f64::NEG_INFINITY)), k(f64::NAN), y);
    V::select(x.is_nan(), x, y)
}

/// `0.5 x (1 + tanh(y))` with `y = sqrt(2/pi) (x + 0.044715 x^3)`, written as
/// `x sigmoid(2y)` so that neither sign cancels.
#[inline(always)]
pub fn gelu_tanh_for_f32<V: Vf<E = f64>>(x: V) -> V
where
    V::U: Vu<E = u64>,
{
    let k = |c: f64| x.splat(c);
    let c = 2.0 * (2.0 / std::f64::consts::PI).sqrt();
    let z = x * (x * x).mul_add(k(c * 0.044715), k(c));
    let y = x * sigmoid(z);
    let y = V::select(x.eq(k(f64::INFINITY)), x, y);
    V::select(x.eq(k(f64::NEG_INFINITY)), k(f64::NAN), y)
}
