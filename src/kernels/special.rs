//! Scalar special functions in float64 (gamma family, inverse error functions, Bessel
//! functions of order 0 and 1, the Hurwitz zeta function). The op table's rows call them
//! for both float types; float32 results are these values rounded once, so they are at
//! least as accurate as a float32 evaluation.
//!
//! Methods: recurrences up to an argument where an asymptotic series converges to
//! machine precision (digamma, trigamma, zeta: Euler-Maclaurin), power series below and
//! asymptotic expansions above a crossover (Bessel functions), and Halley/Newton steps
//! on `erf`/`erfc` for the inverses, which then inherit libm's accuracy.

use std::f64::consts::{FRAC_1_SQRT_2, PI, SQRT_2};

/// `B_2k / (2k)!`, k = 1.., the Euler-Maclaurin coefficients (B: Bernoulli numbers).
const EM: [f64; 13] = [
    0.083_333_333_333_333_33,
    -0.001_388_888_888_888_889,
    3.306_878_306_878_307e-5,
    -8.267_195_767_195_768e-7,
    2.087_675_698_786_81e-8,
    -5.284_190_138_687_493e-10,
    1.338_253_653_068_467_9e-11,
    -3.389_680_296_322_582_7e-13,
    8.586_062_056_277_845e-15,
    -2.174_868_698_558_062e-16,
    5.509_002_828_360_229_5e-18,
    -1.395_446_468_581_252_2e-19,
    3.534_707_039_629_467e-21,
];

/// `B_2k / 2k`, k = 1..7: digamma's asymptotic series.
const DIGAMMA_ASYM: [f64; 7] = [
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
];

/// `B_2k`, k = 1..7: trigamma's asymptotic series.
const BERNOULLI: [f64; 7] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
];

/// `log Gamma(|x|)` (PyTorch's `lgamma`: +inf at the poles).
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// The argument reduced for the reflection formulas: `x - round(x)` is exact and lies
/// in [-1/2, 1/2], where `tan(pi r)` and `sin(pi r)` are well conditioned; both
/// `tan(pi x)` and `sin(pi x)^2` have period 1.
fn frac(x: f64) -> f64 {
    x - x.round()
}

/// `psi(x) = d/dx log Gamma(x)`: ±inf at ±0 (as PyTorch and SciPy), NaN at the negative
/// integers, reflection below 0, the recurrence up to 10, then the asymptotic series.
pub fn digamma(x: f64) -> f64 {
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    let mut acc = 0.0;
    let mut x = x;
    if x < 0.0 {
        if x == x.trunc() {
            return f64::NAN;
        }
        // psi(x) = psi(1 - x) - pi / tan(pi x)
        acc = -PI / (PI * frac(x)).tan();
        x = 1.0 - x;
    }
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let mut poly = 0.0;
    for c in DIGAMMA_ASYM.iter().rev() {
        poly = poly * z + c;
    }
    acc + x.ln() - 0.5 / x - poly * z
}

/// `psi'(x)`: reflection below 1/2, the recurrence up to 10, the asymptotic series.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let (mut x, mut acc, mut sign) = (x, 0.0, 1.0);
    if x < 0.5 {
        // psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
        let s = (PI * frac(x)).sin();
        acc = -(PI * PI) / (s * s);
        sign = -1.0;
        x = 1.0 - x;
    }
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let mut poly = 0.0;
    for b in BERNOULLI.iter().rev() {
        poly = poly * z + b;
    }
    // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
    acc += 1.0 / x + 0.5 * z + poly * z / x;
    sign * acc
}

/// The Hurwitz zeta function `zeta(s, q) = sum_k (k + q)^-s` (PyTorch's `special.zeta`
/// with its domain rules): terms summed directly until `k + q >= 9`, then the
/// Euler-Maclaurin tail.
pub fn zeta(s: f64, q: f64) -> f64 {
    if s == 1.0 {
        return f64::INFINITY;
    }
    if s < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if s != s.floor() {
            return f64::NAN;
        }
    }
    let eps = f64::EPSILON;
    let mut sum = q.powf(-s);
    let mut a = q;
    let mut term = sum;
    let mut n = 0;
    while n < 9 || a <= 9.0 {
        n += 1;
        a += 1.0;
        term = a.powf(-s);
        sum += term;
        if term.abs() < eps * sum.abs() {
            return sum;
        }
    }
    // tail from a: a^(1-s)/(s-1) - a^-s/2 (the last term was counted once already)
    // + sum_k B_2k/(2k)! s(s+1)...(s+2k-2) a^(-s-2k+1)
    sum += term * a / (s - 1.0) - 0.5 * term;
    let mut rising = 1.0; // s (s+1) ... (s + 2k - 2)
    let mut pw = term; // a^(-s - 2k + 1)
    let mut k = 0.0;
    for c in EM {
        rising *= s + k;
        pw /= a;
        let t = c * rising * pw;
        sum += t;
        if (t / sum).abs() < eps {
            break;
        }
        k += 1.0;
        rising *= s + k;
        pw /= a;
        k += 1.0;
    }
    sum
}

/// `polygamma(n, x)`: digamma, trigamma, then `(-1)^(n+1) n! zeta(n + 1, x)`.
pub fn polygamma(n: u32, x: f64) -> f64 {
    match n {
        0 => digamma(x),
        1 => trigamma(x),
        _ => {
            let fact: f64 = (1..=n).map(f64::from).product();
            let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
            sign * fact * zeta(f64::from(n) + 1.0, x)
        }
    }
}

/// `sum_{i<p} lgamma(x - i/2) + p(p-1)/4 log(pi)`.
pub fn mvlgamma(x: f64, p: u32) -> f64 {
    let mut acc = f64::from(p) * (f64::from(p) - 1.0) / 4.0 * PI.ln();
    for i in 0..p {
        acc += lgamma(x - f64::from(i) / 2.0);
    }
    acc
}

/// `erfc^-1(q)` for `0 < q <= 1`: a rational start (Abramowitz & Stegun 26.2.23, error
/// below 5e-4) refined by Halley steps on `erfc(y) - q`, cubically convergent.
fn erfcinv_tail(q: f64) -> f64 {
    let p = 0.5 * q;
    let t = (-2.0 * p.ln()).sqrt();
    let num = 2.515_517 + t * (0.802_853 + t * 0.010_328);
    let den = 1.0 + t * (1.432_788 + t * (0.189_269 + t * 0.001_308));
    let mut y = (t - num / den) * FRAC_1_SQRT_2;
    let dscale = -2.0 / PI.sqrt();
    for _ in 0..4 {
        let f = libm::erfc(y) - q;
        let d = dscale * (-y * y).exp();
        if d == 0.0 {
            break;
        }
        let step = f / d;
        y -= step / (1.0 + y * step);
    }
    y
}

/// `erf^-1(x)`: NaN outside [-1, 1], ±inf at ±1; Newton steps on `erf` for |x| <= 1/2
/// (from the Maclaurin series), the `erfc` inverse of `1 - |x|` (exact) above.
pub fn erfinv(x: f64) -> f64 {
    let ax = x.abs();
    if x.is_nan() || ax > 1.0 {
        return f64::NAN;
    }
    if ax == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    if ax > 0.5 {
        return erfcinv_tail(1.0 - ax).copysign(x);
    }
    if x == 0.0 {
        return x;
    }
    let c = PI.sqrt() / 2.0;
    let u = c * x;
    let u2 = u * u;
    // erfinv(x) = u + u^3/3 + 7u^5/30 + 127u^7/630 + ..., u = sqrt(pi)/2 x
    let mut y = u * (1.0 + u2 * (1.0 / 3.0 + u2 * (7.0 / 30.0 + u2 * (127.0 / 630.0))));
    for _ in 0..3 {
        let f = libm::erf(y) - x;
        y -= f * c * (y * y).exp();
    }
    y
}

/// `Phi^-1(p)`, the standard normal quantile: `sqrt(2) erf^-1(2p - 1)` near the centre,
/// the `erfc` inverse in the tails (where `2p` and `2(1 - p)` are exact).
pub fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p < 0.25 {
        -SQRT_2 * erfcinv_tail(2.0 * p)
    } else if p > 0.75 {
        SQRT_2 * erfcinv_tail(2.0 * (1.0 - p))
    } else {
        SQRT_2 * erfinv(2.0 * p - 1.0)
    }
}

/// `exp(x^2)` with the rounding error of `x * x` carried (`x^2 = hi + lo` exactly).
fn exp_x2(x: f64) -> f64 {
    let hi = x * x;
    if hi > 710.0 {
        return f64::INFINITY;
    }
    let lo = x.mul_add(x, -hi);
    hi.exp() * (1.0 + lo)
}

/// The scaled complementary error function `exp(x^2) erfc(x)`: the product where both
/// factors are representable, the asymptotic series `1/(x sqrt(pi)) sum (-1)^k
/// (2k-1)!! / (2x^2)^k` for large x.
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 12.0 {
        return exp_x2(x) * libm::erfc(x);
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let z = 1.0 / (2.0 * x * x);
    let (mut sum, mut term) = (1.0, 1.0);
    for k in 1..30 {
        term *= -f64::from(2 * k - 1) * z;
        sum += term;
        if term.abs() < f64::EPSILON * 0.25 {
            break;
        }
    }
    sum / (x * PI.sqrt())
}

/// `log Phi(x)`: `log(erfcx(-x/sqrt 2) / 2) - x^2/2` in the lower tail, where `Phi`
/// underflows; `log1p(-erfc(x/sqrt 2)/2)` elsewhere.
pub fn log_ndtr(x: f64) -> f64 {
    let t = x * FRAC_1_SQRT_2;
    if x < -1.0 {
        (erfcx(-t) / 2.0).ln() - t * t
    } else {
        (-libm::erfc(t) / 2.0).ln_1p()
    }
}

/// `-x log x` (0 at 0, -inf below 0).
pub fn entr(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x > 0.0 {
        -x * x.ln()
    } else if x == 0.0 {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// `sin(pi x) / (pi x)`, 1 at 0 (the product rounded first, as PyTorch and NumPy).
pub fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    let px = PI * x;
    px.sin() / px
}

/// Below this, the Bessel functions sum their power series; above, their asymptotic
/// expansions (whose smallest term, about `exp(-2x)`, is then below machine precision).
const BESSEL_SPLIT: f64 = 25.0;

/// `I_nu(x) / (exp(x) / sqrt(2 pi x))` for `x >= BESSEL_SPLIT`, `mu = 4 nu^2`:
/// `sum_k prod_{j<=k} ((2j-1)^2 - mu) / (8 j x)`.
fn bessel_asym(mu: f64, x: f64) -> f64 {
    let (mut sum, mut term) = (1.0, 1.0);
    for k in 1..60 {
        let j = f64::from(2 * k - 1);
        let next = term * (j * j - mu) / (8.0 * f64::from(k) * x);
        if next.abs() >= term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() < f64::EPSILON * 0.25 * sum.abs() {
            break;
        }
    }
    sum
}

/// The power series of `I_nu(x)` for nu = 0, 1 (x >= 0): `(x/2)^nu sum_k (x^2/4)^k /
/// (k! (k+nu)!)`, all terms positive.
fn bessel_series(nu: u32, x: f64) -> f64 {
    let t = x * x / 4.0;
    let first = if nu == 0 { 1.0 } else { x / 2.0 };
    let (mut sum, mut term) = (first, first);
    let mut k = 1.0;
    loop {
        term *= t / (k * (k + f64::from(nu)));
        sum += term;
        if term <= f64::EPSILON * 0.25 * sum {
            return sum;
        }
        k += 1.0;
    }
}

/// `I_nu(|x|)` scaled by `exp(-|x|)` or not; NaN and the infinities as PyTorch.
fn bessel(nu: u32, x: f64, scaled: bool) -> f64 {
    let ax = x.abs();
    if x.is_nan() {
        return x;
    }
    let v = if ax == f64::INFINITY {
        // PyTorch's NaN for the unscaled functions (its exp(x)/sqrt(x) is inf/inf)
        if scaled {
            0.0
        } else {
            f64::NAN
        }
    } else if ax < BESSEL_SPLIT {
        let s = bessel_series(nu, ax);
        if scaled {
            s * (-ax).exp()
        } else {
            s
        }
    } else {
        let a = bessel_asym(4.0 * f64::from(nu * nu), ax) / (2.0 * PI * ax).sqrt();
        if scaled {
            a
        } else {
            // exp(x) split in two halves so values up to the largest double survive
            let h = (0.5 * ax).exp();
            a * h * h
        }
    };
    if nu == 1 {
        v.copysign(x)
    } else {
        v
    }
}

/// The modified Bessel function of the first kind, order 0.
pub fn i0(x: f64) -> f64 {
    bessel(0, x, false)
}

/// `exp(-|x|) I_0(x)`.
pub fn i0e(x: f64) -> f64 {
    bessel(0, x, true)
}

/// The modified Bessel function of the first kind, order 1 (odd).
pub fn i1(x: f64) -> f64 {
    bessel(1, x, false)
}

/// `exp(-|x|) I_1(x)`.
pub fn i1e(x: f64) -> f64 {
    bessel(1, x, true)
}

/// `x log(y)`, 0 where `x == 0` unless `y` is NaN (PyTorch's `xlogy`).
pub fn xlogy(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        y
    } else if x == 0.0 {
        0.0
    } else {
        x * y.ln()
    }
}

/// `x log1p(y)`, 0 where `x == 0` unless `y` is NaN (PyTorch's `special.xlog1py`).
pub fn xlog1py(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        y
    } else if x == 0.0 {
        0.0
    } else {
        x * y.ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!(close(digamma(1.0), -euler, 1e-15));
        assert!(close(trigamma(1.0), PI * PI / 6.0, 1e-15));
        // zeta(2, 1) = pi^2/6, zeta(4, 1) = pi^4/90
        assert!(close(zeta(2.0, 1.0), PI * PI / 6.0, 1e-15));
        assert!(close(zeta(4.0, 1.0), PI.powi(4) / 90.0, 1e-15));
        assert!(close(erfinv(libm::erf(0.3)), 0.3, 1e-15));
        assert!(close(erfinv(libm::erf(2.5)), 2.5, 1e-14));
        assert!(close(ndtri(0.5 * libm::erfc(5.0)), -5.0 * SQRT_2, 1e-14));
        assert!(close(i0(1.0), 1.266_065_877_752_008_4, 1e-15));
        assert!(close(i1(1.0), 0.565_159_103_992_485, 1e-15));
        assert!(close(i0e(30.0) * (30.0f64).exp(), i0(30.0), 1e-14));
        assert!(close(
            erfcx(13.0),
            libm::erfc(13.0) * (169.0f64).exp(),
            1e-12
        ));
        assert!(digamma(-2.0).is_nan() && digamma(0.0) == f64::NEG_INFINITY);
        assert!(erfinv(1.5).is_nan() && erfinv(-1.0) == f64::NEG_INFINITY);
    }
}
