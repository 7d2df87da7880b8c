//! Vectorised float32 transcendental functions, generic over the backend.
//!
//! Each function is branch-free (both sides of a range split are computed and the lanes
//! selected), so it runs unchanged on 1, 4, 8 or 16 lanes. Accuracy targets (proved by
//! the sweeps in `tests.rs` against float64 references): within 4 ULP everywhere, which
//! the derivations below keep well inside (typically <= 2 ULP):
//!
//! * `exp`: Cody-Waite reduction `x = n ln2 + r`, |r| <= ln2/2, with ln2 split so that
//!   `n * LN2_HI` is exact; `e^r` by its Taylor series to degree 7 (truncation error
//!   |r|^8/8! < 5.3e-9, far below half an ULP); the result is scaled by `2^n` as two
//!   exact factors `2^a * 2^b` so that outputs in the subnormal range are rounded once
//!   and `n = 128` (just below overflow) needs no special case.
//! * `log`: `x = m 2^e` with m in [sqrt(1/2), sqrt(2)); with `f = m - 1` and
//!   `s = f / (2 + f)`, `log(1 + f) = 2 atanh(s) = f - s (f - R(s^2))`, where R is the
//!   atanh series (|s| <= 0.1716, so terms to s^9 leave < 2e-9 relative error). The
//!   leading term `f` is exact, so rounding only touches the small correction.
//! * `tanh`: an odd minimax polynomial on |x| < 0.625 (fitted for this crate, max
//!   relative error 4.4e-9), else `1 - 2 / (e^{2|x|} + 1)`, where cancellation costs at
//!   most a factor 0.8 in relative error at the switch point.
//! * `sigmoid`: `1 / (1 + e)` for x >= 0 and `e / (1 + e)` for x < 0 with
//!   `e = exp(-|x|)`: no cancellation and no overflow on either side.
//!
//! erf and both GELU forms are evaluated through the float64 kernels (`math64.rs`) and
//! rounded once to float32: their large-|x| tails need an argument `x^2` exact beyond
//! float32 precision, which float64 gives for free.

use super::vector::{Vf, Vu};

/// ln 2 split: `LN2_HI` has 16 significant bits so `n * LN2_HI` is exact for |n| < 256.
const LN2_HI: f32 = f32::from_bits(0x3f31_7200); // 0.693145751953125
const LN2_LO: f32 = f32::from_bits(0x35bf_be8e); // 1.4286068e-6
const LOG2E: f32 = std::f32::consts::LOG2_E;
/// 1.5 * 2^23: adding it to a float holding a small integer leaves that integer in the
/// low mantissa bits (how `pow2` builds `2^n` without a float-to-int conversion).
const MAGIC: f32 = 12_582_912.0;

/// `c[0] + x*(c[1] + x*(c[2] + ...))` with fused multiply-adds.
#[inline(always)]
pub fn horner<V: Vf>(x: V, c: &[V::E]) -> V {
    let mut it = c.iter().rev();
    let mut acc = x.splat(it.next().copied().unwrap_or_default());
    for &k in it {
        acc = acc.mul_add(x, x.splat(k));
    }
    acc
}

/// `2^n` for lanes holding integers in [-126, 127].
#[inline(always)]
fn pow2<V: Vf<E = f32>>(n: V) -> V
where
    V::U: Vu<E = u32>,
{
    let b = (n + n.splat(MAGIC)).to_bits();
    V::from_bits((b + b.splat(127)).shl_mant())
}

/// `p * 2^n` for integer lanes n in [-252, 254]: two exact power-of-two factors, so the
/// only rounding is the final one (into the subnormal range, to 0 or to infinity). A
/// backend with a scaling instruction does the same in one step, with the same bits.
#[inline(always)]
fn scale<V: Vf<E = f32>>(p: V, n: V) -> V
where
    V::U: Vu<E = u32>,
{
    if let Some(y) = p.scale_native(n) {
        return y;
    }
    let a = (n * n.splat(0.5)).round();
    p * pow2(a) * pow2(n - a)
}

/// `1/k!` for k = 0..=7.
const EXP_TAYLOR: [f32; 8] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
];

/// `e^x = p * 2^n` before scaling: (p, n). Clamping x to [-121, 89] keeps n in
/// [-175, 128], inside `scale`'s reach even with the 2^24 bias `silu` adds; below -104
/// the result rounds to 0 and above 88.73 it overflows, as it should.
#[inline(always)]
fn exp_parts<V: Vf<E = f32>>(x: V) -> (V, V)
where
    V::U: Vu<E = u32>,
{
    let k = |c: f32| x.splat(c);
    let xc = x.max(k(-121.0)).min(k(89.0));
    let n = (xc * k(LOG2E)).round();
    let r = n.mul_add(k(-LN2_HI), xc);
    let r = n.mul_add(k(-LN2_LO), r);
    (horner(r, &EXP_TAYLOR), n)
}

#[inline(always)]
pub fn exp<V: Vf<E = f32>>(x: V) -> V
where
    V::U: Vu<E = u32>,
{
    let (p, n) = exp_parts(x);
    V::select(x.is_nan(), x, scale(p, n))
}

/// atanh series coefficients `2/(2k+1)` for k = 1..=4 (the `R(z)` of the module docs).
const LOG_SERIES: [f32; 4] = [2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0];

#[inline(always)]
pub fn log<V: Vf<E = f32>>(x: V) -> V
where
    V::U: Vu<E = u32>,
{
    let k = |c: f32| x.splat(c);
    // subnormals: scale into the normal range first and correct the exponent
    let tiny = x.lt(k(f32::MIN_POSITIVE));
    let xs = V::select(tiny, x * k(8_388_608.0), x);
    let bits = xs.to_bits();
    // the biased exponent as a float: its bits OR-ed into 2^23's mantissa, minus 2^23
    let ebits = bits.shr_mant() | bits.splat(0x4b00_0000);
    let e = V::from_bits(ebits) - k(8_388_608.0 + 127.0);
    let m = V::from_bits((bits & bits.splat(0x007f_ffff)) | bits.splat(0x3f80_0000));
    let big = m.gt(k(std::f32::consts::SQRT_2));
    let m = V::select(big, m * k(0.5), m);
    let e = e + V::select(big, k(1.0), k(0.0)) - V::select(tiny, k(23.0), k(0.0));
    let f = m - k(1.0);
    let s = f / (f + k(2.0));
    let z = s * s;
    let r = z * horner(z, &LOG_SERIES);
    let l = (-s).mul_add(f - r, f);
    let y = e.mul_add(k(LN2_HI), e.mul_add(k(LN2_LO), l));
    // log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays NaN
    let y = V::select(x.eq(k(0.0)), k(f32::NEG_INFINITY), y);
    let y = V::select(x.lt(k(0.0)), k(f32::NAN), y);
    let y = V::select(x.eq(k(f32::INFINITY)), x, y);
    V::select(x.is_nan(), x, y)
}

/// tanh(x) = x + x^3 P(x^2) on |x| < 0.625: coefficients of P, fitted for this crate
/// by iteratively reweighted least squares (Lawson) against a 40-digit tanh;
/// max relative error of the polynomial 4.4e-9.
const TANH_P: [f32; 5] = [
    -0.333_332_8,
    0.133_314_42,
    -0.053_739_715,
    0.020_639_09,
    -0.005_704_989,
];

#[inline(always)]
pub fn tanh<V: Vf<E = f32>>(x: V) -> V
where
    V::U: Vu<E = u32>,
{
    let k = |c: f32| x.splat(c);
    let a = x.abs();
    let z = a * a;
    let small = (a * z).mul_add(horner(z, &TANH_P), a);
    // tanh(9.1) rounds to 1 in float32; the clamp keeps e^{2a} finite
    let e = exp(a.min(k(9.5)) * k(2.0));
    let large = k(1.0) - k(2.0) / (e + k(1.0));
    let y = V::select(a.lt(k(0.625)), small, large);
    let sign = x.to_bits() & x.to_bits().splat(0x8000_0000);
    let y = V::from_bits(y.to_bits() | sign);
    V::select(x.is_nan(), x, y)
}

/// The numerator and denominator of the logistic function (see module docs).
#[inline(always)]
fn logistic_parts<V: Vf<E = f32>>(x: V) -> (V, V)
where
    V::U: Vu<E = u32>,
{
    let k = |c: f32| x.splat(c);
    let e = exp(-x.abs());
    (V::select(x.ge(k(0.0)), k(1.0), e), k(1.0) + e)
}

#[inline(always)]
pub fn sigmoid<V: Vf<E = f32>>(x: V) -> V
where
    V::U: Vu<E = u32>,
{
    let (n, d) = logistic_parts(x);
    n / d
}

/// `x * sigmoid(x)` (SiLU / swish). For x < -87, e^x is subnormal (few significant
/// bits) while x e^x is not yet, so the negative side computes with `e^x 2^24` and
/// scales back at the end (exact, or one rounding into the subnormal range).
#[inline(always)]
pub fn silu<V: Vf<E = f32>>(x: V) -> V
where
    V::U: Vu<E = u32>,
{
    let k = |c: f32| x.splat(c);
    let (p, n) = exp_parts(-x.abs());
    let d = k(1.0) + scale(p, n);
    let pos = x.ge(k(0.0));
    let num = V::select(pos, k(1.0), scale(p, n + k(24.0)));
    let y = x * (num / d);
    let y = V::select(pos, y, y * k(1.0 / 16_777_216.0));
    V::select(x.is_nan(), x, y)
}
