//! Element functions of the binary table's newer rows (`ops::binary_table`): the ones
//! longer than a closure. Each follows PyTorch's CPU kernel for the edge cases (NaN,
//! signed zeros, infinities, shift counts out of range) rather than a textbook formula.

/// The float element functions, written once for `f32` and `f64`.
pub trait Pointwise: Copy {
    /// `log(exp(a) + exp(b))`: `max + log1p(exp(-|a - b|))`; two equal infinities give
    /// that infinity (the formula would give NaN).
    fn logaddexp(a: Self, b: Self) -> Self;
    /// `log2(2^a + 2^b)`, the same way in base 2.
    fn logaddexp2(a: Self, b: Self) -> Self;
    /// The larger of `a` and `b`, the other where one is NaN; a tie keeps `a`.
    fn fmax(a: Self, b: Self) -> Self;
    /// The smaller of `a` and `b`, the other where one is NaN; a tie keeps `a`.
    fn fmin(a: Self, b: Self) -> Self;
    /// 0 where `a < 0` or NaN, `b` where `a == 0`, 1 where `a > 0`.
    fn heaviside(a: Self, b: Self) -> Self;
    /// The next representable value after `a` in the direction of `b` (C `nextafter`).
    fn nextafter(a: Self, b: Self) -> Self;
}

macro_rules! pointwise_float {
    ($t:ty) => {
        impl Pointwise for $t {
            fn logaddexp(a: $t, b: $t) -> $t {
                if a.is_infinite() && a == b {
                    return a;
                }
                let m = if a < b { b } else { a };
                m + (-(a - b).abs()).exp().ln_1p()
            }
            fn logaddexp2(a: $t, b: $t) -> $t {
                if a.is_infinite() && a == b {
                    return a;
                }
                let m = if a < b { b } else { a };
                m + (-(a - b).abs()).exp2().ln_1p() * (1.0 / std::f64::consts::LN_2) as $t
            }
            fn fmax(a: $t, b: $t) -> $t {
                if a.is_nan() || b > a {
                    b
                } else {
                    a
                }
            }
            fn fmin(a: $t, b: $t) -> $t {
                if a.is_nan() || b < a {
                    b
                } else {
                    a
                }
            }
            fn heaviside(a: $t, b: $t) -> $t {
                if a == 0.0 {
                    b
                } else if a > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            fn nextafter(a: $t, b: $t) -> $t {
                if a.is_nan() || b.is_nan() {
                    return a + b;
                }
                if a == b {
                    return b;
                }
                if a == 0.0 {
                    // the smallest subnormal, with the sign of the direction
                    return <$t>::from_bits(1).copysign(b - a);
                }
                let bits = a.to_bits();
                // away from zero increases the magnitude bits, towards zero decreases them
                let up = (b > a) == (a > 0.0);
                <$t>::from_bits(if up { bits + 1 } else { bits - 1 })
            }
        }
    };
}

pointwise_float!(f32);
pointwise_float!(f64);

/// Greatest common divisor, non-negative (Euclid on the magnitudes; gcd(0, 0) = 0).
/// Narrower integer dtypes compute in i64 and wrap back, as PyTorch's kernels wrap.
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.wrapping_abs(), b.wrapping_abs());
    while a != 0 {
        let c = a;
        a = b.wrapping_rem(a);
        b = c;
    }
    b
}

/// Least common multiple, non-negative; 0 when either operand is 0.
pub fn lcm(a: i64, b: i64) -> i64 {
    let g = gcd(a, b);
    if g == 0 {
        0
    } else {
        (a.wrapping_div(g)).wrapping_mul(b).wrapping_abs()
    }
}

/// `a << b`; a negative count or one of at least 64 bits gives 0. Narrower dtypes
/// compute here and wrap back, which gives PyTorch's 0 for counts at least their width.
pub fn shl(a: i64, b: i64) -> i64 {
    if !(0..64).contains(&b) {
        0
    } else {
        ((a as u64) << b) as i64
    }
}

/// Arithmetic `a >> b`; a negative count or one of at least 64 bits gives the sign fill.
pub fn shr(a: i64, b: i64) -> i64 {
    if !(0..64).contains(&b) {
        a >> 63
    } else {
        a >> b
    }
}
