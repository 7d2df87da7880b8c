//! Element arithmetic the kernels share: the `Num` / `Float` traits the reductions, scans
//! and vector softmax rows are written over, and the fixed-order lane total that makes a
//! float sum independent of the vector width. It depends on no other kernel module, so
//! `reduce` (built on `simd`) and `simd` can both use it without importing each other.

use crate::dtype::Element;

/// Arithmetic the reductions need, for every element type (bool adds as `or`).
pub trait Num: Element {
    const ZERO: Self;
    const ONE: Self;
    /// The identity of `max` (-inf for floats).
    const LOWEST: Self;
    /// The identity of `min` (+inf for floats).
    const HIGHEST: Self;
    const FLOAT: bool;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

/// Float math for the ops that only exist for floating types.
pub trait Float:
    Num
    + std::ops::Add<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const NAN: Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn abs(self) -> Self;
    fn powf(self, p: Self) -> Self;
}

/// `Num` for one type: (zero, one, lowest, highest, is float, add, mul).
macro_rules! num {
    ($t:ty, $z:expr, $o:expr, $lo:expr, $hi:expr, $fl:expr, $add:expr, $mul:expr) => {
        impl Num for $t {
            const ZERO: Self = $z;
            const ONE: Self = $o;
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
            const FLOAT: bool = $fl;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                $add(self, o)
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                $mul(self, o)
            }
        }
    };
}
num! { f32, 0.0, 1.0, f32::NEG_INFINITY, f32::INFINITY, true, |a, b| a + b, |a, b| a * b }
num! { f64, 0.0, 1.0, f64::NEG_INFINITY, f64::INFINITY, true, |a, b| a + b, |a, b| a * b }
// integer reductions wrap on overflow, like PyTorch
num! { i64, 0, 1, i64::MIN, i64::MAX, false, i64::wrapping_add, i64::wrapping_mul }
num! { bool, false, true, false, true, false, |a, b| a | b, |a, b| a & b }

macro_rules! float {
    ($t:ty) => {
        impl Float for $t {
            const NAN: Self = <$t>::NAN;
            #[inline(always)]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn powf(self, p: Self) -> Self {
                <$t>::powf(self, p)
            }
        }
    };
}
float!(f32);
float!(f64);

/// Independent accumulators of the float kernels: enough to cover add latency with
/// 512-bit vectors (4 registers of f32), and they fit the 16 registers of SSE2/AVX2.
pub const ACC: usize = 64;

/// `ACC` lanes added in a fixed tree: the float sums (`reduce::fast::lane_sum`) and the
/// vector softmax rows (`simd::rows`) share it, so both add in the same order.
#[inline(always)]
pub fn lane_total<T: Num>(mut acc: [T; ACC]) -> T {
    let mut w = ACC;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            acc[k] = acc[k].add(acc[k + w]);
        }
    }
    acc[0]
}
