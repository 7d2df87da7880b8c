//! The orthogonal polynomials of `ferric.special` (`chebyshev_polynomial_t/u/v/w`, their
//! shifted forms, `hermite_polynomial_h/he`, `laguerre_polynomial_l`,
//! `legendre_polynomial_p`), evaluated in the element type itself with PyTorch's
//! algorithm, so results match PyTorch's in both float types, quirks included:
//!
//! * the degree `n` is truncated toward zero; a negative degree gives 0, and NaN, ±inf or
//!   a degree beyond the int64 range count as negative (what PyTorch's float-to-int64
//!   conversion yields on x86);
//! * the three-term recurrence runs `n` steps and stops early once a value is NaN;
//! * the Chebyshev families switch to their trigonometric forms (`cos(n acos x)`, ...)
//!   inside `(-1, 1)` above a small degree, and have closed forms at the end points;
//! * Hermite polynomials above degree 128 (float32) / 512 (float64) are NaN.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The float operations the polynomials use, for `f32` and `f64`.
pub trait PolyFloat:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// PyTorch's degree above which Hermite polynomials are NaN.
    const HERMITE_LIMIT: i64;
    const NAN: Self;
    fn c(v: f64) -> Self;
    /// An int64 converted as C++ converts it (round to nearest).
    fn i(v: i64) -> Self;
    fn degree(self) -> i64;
    fn abs_(self) -> Self;
    fn acos_(self) -> Self;
    fn cos_(self) -> Self;
    fn sin_(self) -> Self;
    fn nan(self) -> bool;
}

macro_rules! poly_float {
    ($t:ty, $limit:expr) => {
        impl PolyFloat for $t {
            const HERMITE_LIMIT: i64 = $limit;
            const NAN: Self = <$t>::NAN;
            #[inline]
            fn c(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn i(v: i64) -> Self {
                v as $t
            }
            #[inline]
            fn degree(self) -> i64 {
                // 2^63: the first value outside the int64 range
                let bound = 2f64.powi(63);
                let v = f64::from(self);
                if v.is_nan() || v >= bound || v < -bound {
                    i64::MIN
                } else {
                    v as i64
                }
            }
            #[inline]
            fn abs_(self) -> Self {
                self.abs()
            }
            #[inline]
            fn acos_(self) -> Self {
                self.acos()
            }
            #[inline]
            fn cos_(self) -> Self {
                self.cos()
            }
            #[inline]
            fn sin_(self) -> Self {
                self.sin()
            }
            #[inline]
            fn nan(self) -> bool {
                self.is_nan()
            }
        }
    };
}
poly_float!(f32, 128);
poly_float!(f64, 512);

/// `n + 1`, `2n + 1` as the element type (PyTorch's integer arithmetic, then conversion).
fn np1<T: PolyFloat>(n: i64) -> T {
    T::i(n.wrapping_add(1))
}
fn n2p1<T: PolyFloat>(n: i64) -> T {
    T::i(n.wrapping_add(n).wrapping_add(1))
}
fn odd(n: i64) -> bool {
    n % 2 != 0
}

/// The Chebyshev recurrence `r = 2y q - p` from `(p, q) = (1, first)` up to degree `n`
/// (`n >= 2`), stopping once `q` is NaN (then the last value computed, or NaN).
fn chebyshev_run<T: PolyFloat>(two_y: T, first: T, n: i64) -> T {
    let (mut p, mut q) = (T::c(1.0), first);
    let mut r = T::NAN;
    let mut k = 2;
    while k <= n && !q.nan() {
        r = two_y * q - p;
        p = q;
        q = r;
        k += 1;
    }
    r
}

/// The first kind, `T_n(x)`.
pub fn chebyshev_t<T: PolyFloat>(x: T, n: T) -> T {
    chebyshev_t_n(x, n.degree())
}

fn chebyshev_t_n<T: PolyFloat>(x: T, n: i64) -> T {
    let one = T::c(1.0);
    if n < 0 {
        return T::c(0.0);
    }
    if x.abs_() == one {
        return if x > T::c(0.0) || !odd(n) { one } else { -one };
    }
    if n > 6 && x.abs_() < one {
        return (T::i(n) * x.acos_()).cos_();
    }
    match n {
        0 => one,
        1 => x,
        _ if x.nan() => x,
        _ => chebyshev_run(x + x, x, n),
    }
}

/// The second kind, `U_n(x)`.
pub fn chebyshev_u<T: PolyFloat>(x: T, n: T) -> T {
    chebyshev_u_n(x, n.degree())
}

fn chebyshev_u_n<T: PolyFloat>(x: T, n: i64) -> T {
    let one = T::c(1.0);
    if n < 0 {
        return T::c(0.0);
    }
    if x.abs_() == one {
        return if x > T::c(0.0) || !odd(n) {
            np1(n)
        } else {
            -np1::<T>(n)
        };
    }
    if n > 8 && x.abs_() < one {
        let t = x.acos_();
        if t.sin_() != T::c(0.0) {
            return (np1::<T>(n) * t).sin_() / t.sin_();
        }
        return np1::<T>(n) * (np1::<T>(n) * t).cos_() / x;
    }
    match n {
        0 => one,
        1 => x + x,
        _ if x.nan() => x,
        _ => chebyshev_run(x + x, x + x, n),
    }
}

/// The third kind, `V_n(x)`.
pub fn chebyshev_v<T: PolyFloat>(x: T, n: T) -> T {
    chebyshev_v_n(x, n.degree())
}

fn chebyshev_v_n<T: PolyFloat>(x: T, n: i64) -> T {
    let (one, half, two) = (T::c(1.0), T::c(0.5), T::c(2.0));
    if n < 0 {
        return T::c(0.0);
    }
    let end = |n: i64| if odd(n) { -n2p1::<T>(n) } else { n2p1(n) };
    if x.abs_() == one {
        return if x > T::c(0.0) { one } else { end(n) };
    }
    if n > 8 && x.abs_() < one {
        let t = x.acos_();
        if (t / two).sin_() != one {
            return ((T::i(n) + half) * t).cos_() / (t / two).cos_();
        }
        return end(n);
    }
    match n {
        0 => one,
        1 => x + x - one,
        _ if x.nan() => x,
        _ => chebyshev_run(x + x, x + x - one, n),
    }
}

/// The fourth kind, `W_n(x)`.
pub fn chebyshev_w<T: PolyFloat>(x: T, n: T) -> T {
    chebyshev_w_n(x, n.degree())
}

fn chebyshev_w_n<T: PolyFloat>(x: T, n: i64) -> T {
    let (one, half, two) = (T::c(1.0), T::c(0.5), T::c(2.0));
    if n < 0 {
        return T::c(0.0);
    }
    let alt = |n: i64| if odd(n) { -one } else { one };
    if x.abs_() == one {
        return if x > T::c(0.0) { n2p1(n) } else { alt(n) };
    }
    if n > 8 && x.abs_() < one {
        let t = x.acos_();
        if (t / two).cos_() != one {
            return ((T::i(n) + half) * t).sin_() / (t / two).sin_();
        }
        return if x > T::c(0.0) { n2p1(n) } else { alt(n) };
    }
    match n {
        0 => one,
        1 => x + x + one,
        _ if x.nan() => x,
        _ => chebyshev_run(x + x, x + x + one, n),
    }
}

/// The shifted polynomials: the kind's polynomial at `2x - 1`, with PyTorch's own end
/// points (`x == 1`, `x == 0`) and trigonometric thresholds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    T,
    U,
    V,
    W,
}

fn shifted<T: PolyFloat>(kind: Kind, x: T, n: T) -> T {
    let n = n.degree();
    let (zero, one, half, two) = (T::c(0.0), T::c(1.0), T::c(0.5), T::c(2.0));
    if n < 0 {
        return zero;
    }
    let sign = |v: T| if odd(n) { -v } else { v };
    if x == one {
        return match kind {
            Kind::T | Kind::V => one,
            Kind::U => np1(n),
            Kind::W => n2p1(n),
        };
    }
    if x == zero {
        return match kind {
            Kind::T | Kind::W => sign(one),
            Kind::U => sign(np1(n)),
            Kind::V => sign(n2p1(n)),
        };
    }
    let y = x + x - one;
    let trig_from = if kind == Kind::W { 4 } else { 6 };
    if n > trig_from && y.abs_() < one {
        let t = y.acos_();
        return match kind {
            Kind::T => (T::i(n) * t).cos_(),
            Kind::U => {
                if t.sin_() != zero {
                    (np1::<T>(n) * t).sin_() / t.sin_()
                } else {
                    np1::<T>(n) * (np1::<T>(n) * t).cos_() / y
                }
            }
            Kind::V => {
                if (t / two).sin_() != one {
                    ((T::i(n) + half) * t).cos_() / (t / two).cos_()
                } else {
                    sign(n2p1(n))
                }
            }
            Kind::W => {
                if (t / two).cos_() != one {
                    ((T::i(n) + half) * t).sin_() / (t / two).sin_()
                } else {
                    sign(one)
                }
            }
        };
    }
    let first = match kind {
        Kind::T => y,
        Kind::U => y + y,
        Kind::V => y + y - one,
        Kind::W => y + y + one,
    };
    match n {
        0 => one,
        1 => first,
        _ if x.nan() => x,
        _ => chebyshev_run(y + y, first, n),
    }
}

/// `T*_n(x) = T_n(2x - 1)`.
pub fn shifted_chebyshev_t<T: PolyFloat>(x: T, n: T) -> T {
    shifted(Kind::T, x, n)
}

/// `U*_n(x) = U_n(2x - 1)`.
pub fn shifted_chebyshev_u<T: PolyFloat>(x: T, n: T) -> T {
    shifted(Kind::U, x, n)
}

/// `V*_n(x) = V_n(2x - 1)`.
pub fn shifted_chebyshev_v<T: PolyFloat>(x: T, n: T) -> T {
    shifted(Kind::V, x, n)
}

/// `W*_n(x) = W_n(2x - 1)`.
pub fn shifted_chebyshev_w<T: PolyFloat>(x: T, n: T) -> T {
    shifted(Kind::W, x, n)
}

/// The physicists' Hermite polynomial `H_n(x)`: `H_{k+1} = 2x H_k - 2k H_{k-1}`.
pub fn hermite_h<T: PolyFloat>(x: T, n: T) -> T {
    let n = n.degree();
    if n < 0 {
        return T::c(0.0);
    }
    match n {
        0 => return T::c(1.0),
        1 => return x + x,
        _ if n > T::HERMITE_LIMIT => return T::NAN,
        _ => {}
    }
    let (mut p, mut q) = (T::c(1.0), x + x);
    let mut r = T::c(0.0);
    let mut k = 2;
    while k < n + n {
        r = (x + x) * q - T::i(k) * p;
        p = q;
        q = r;
        k += 2;
    }
    r
}

/// The probabilists' Hermite polynomial `He_n(x)`: `He_{k+1} = x He_k - k He_{k-1}`.
pub fn hermite_he<T: PolyFloat>(x: T, n: T) -> T {
    let n = n.degree();
    if n < 0 {
        return T::c(0.0);
    }
    match n {
        0 => return T::c(1.0),
        1 => return x,
        _ if n > T::HERMITE_LIMIT => return T::NAN,
        _ => {}
    }
    let (mut p, mut q) = (T::c(1.0), x);
    let mut r = x;
    for k in 1..n {
        r = x * q - T::i(k) * p;
        p = q;
        q = r;
    }
    r
}

/// The Laguerre polynomial `L_n(x)`:
/// `(k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}` (1 at `x == 0`).
pub fn laguerre_l<T: PolyFloat>(x: T, n: T) -> T {
    let n = n.degree();
    let one = T::c(1.0);
    if n < 0 {
        return T::c(0.0);
    }
    if x.abs_() == T::c(0.0) || n == 0 {
        return one;
    }
    if n == 1 || x.nan() {
        return one - x;
    }
    let (mut p, mut q) = (one, one - x);
    let mut r = q;
    let mut k = 1;
    while k < n && !q.nan() {
        r = ((T::i(k + k) + (one - x)) * q - T::i(k) * p) / T::i(k + 1);
        p = q;
        q = r;
        k += 1;
    }
    r
}

/// The Legendre polynomial `P_n(x)`: `(k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}`.
pub fn legendre_p<T: PolyFloat>(x: T, n: T) -> T {
    let n = n.degree();
    let one = T::c(1.0);
    if n < 0 {
        return T::c(0.0);
    }
    if x.abs_() == one {
        return if x > T::c(0.0) || !odd(n) { one } else { -one };
    }
    if n == 0 {
        return one;
    }
    if n == 1 || x.nan() {
        return x;
    }
    let (mut p, mut q) = (one, x);
    let mut r = x;
    let mut k = 1;
    while k < n && !q.nan() {
        r = (T::i(k + k + 1) * x * q - T::i(k) * p) / T::i(k + 1);
        p = q;
        q = r;
        k += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_degrees() {
        // T_3(x) = 4x^3 - 3x, U_2 = 4x^2 - 1, H_3 = 8x^3 - 12x, L_2 = (x^2 - 4x + 2)/2
        let x = 0.3f64;
        assert!((chebyshev_t(x, 3.0) - (4.0 * x * x * x - 3.0 * x)).abs() < 1e-15);
        assert!((chebyshev_u(x, 2.0) - (4.0 * x * x - 1.0)).abs() < 1e-15);
        assert!((hermite_h(x, 3.0) - (8.0 * x * x * x - 12.0 * x)).abs() < 1e-14);
        assert!((laguerre_l(x, 2.0) - (x * x - 4.0 * x + 2.0) / 2.0).abs() < 1e-15);
        assert_eq!(legendre_p(x, f64::NAN), 0.0);
        assert_eq!(chebyshev_t(x, -1.0), 0.0);
        assert!(hermite_he(x, 600.0).is_nan());
    }
}
