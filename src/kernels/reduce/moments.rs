//! Mean and (biased) variance of one row in exactly PyTorch's CPU arithmetic, so layer
//! norm (and what else reads row moments) gives PyTorch's bits.
//!
//! PyTorch computes row moments with a vectorised Welford: the row is read as 256-bit
//! vectors (8 f32 or 4 f64 lanes); chunks of 16 vectors are folded lane-wise, chunk
//! results are merged through a binary-counter stack (pairwise, like a cascade sum),
//! the scalar tail is folded element by element, and the lanes are merged at the end.
//! The rounding of every step matters for bit equality, including which products its
//! compiler fused into FMAs; the choices below were established against PyTorch 2.13's
//! results on this project's fixtures (`tests/test_layer_norm_bits.py`), not guessed:
//!
//! * chunk update: `m1 += d * (1/(j+1))` and `m2 += d * (x - m1)` are fused;
//! * merging two vector partials: `m1 += c * d` is not fused, and `m2` becomes
//!   `fma(d, d * (c * n_a), m2 + m2_b)` with `c = n_b / (n_a + n_b)`;
//! * the scalar tail is not fused; the final per-lane merge fuses `m1 = fma(c, d, m1)`
//!   and `m2 += fma((d * d) * c, n_a, m2_b)`.

use super::fast::FastFloat;
use smallvec::{smallvec, SmallVec};

/// Vectors per Welford chunk (PyTorch's `kChunkSize`).
const CHUNK: usize = 16;
/// The widest lane count any dtype uses (f32 in a 256-bit vector).
const MAX_LANES: usize = 8;

/// Partial moments of `count` vectors, lane by lane.
#[derive(Clone, Copy)]
struct Partial<T> {
    count: usize,
    m1: [T; MAX_LANES],
    m2: [T; MAX_LANES],
}

impl<T: FastFloat> Partial<T> {
    #[inline(always)]
    fn zero() -> Self {
        Partial {
            count: 0,
            m1: [T::ZERO; MAX_LANES],
            m2: [T::ZERO; MAX_LANES],
        }
    }

    /// Folds `b` into `self` (PyTorch's `AddMomentsVec`).
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn absorb(&mut self, b: &Partial<T>) {
        let n = self.count + b.count;
        let c = if n == 0 {
            T::ZERO
        } else {
            T::from_usize(b.count) / T::from_usize(n)
        };
        let cn = c * T::from_usize(self.count);
        for l in 0..T::LANES {
            let d = b.m1[l] - self.m1[l];
            self.m1[l] = self.m1[l] + c * d;
            self.m2[l] = d.mul_add_(d * cn, self.m2[l] + b.m2[l]);
        }
        self.count = n;
    }
}

/// `ceil(log2(m))`, 0 for `m <= 1`.
#[inline(always)]
fn ceil_log2(m: usize) -> usize {
    if m <= 1 {
        0
    } else {
        (usize::BITS - (m - 1).leading_zeros()) as usize
    }
}

/// `(mean, variance)` of `x` (the variance divides by `x.len()`), rounded as PyTorch's
/// `RowwiseMoments` rounds them. An empty row gives NaNs.
// lane-indexed loops mirror the vector lanes they reproduce
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub fn row_moments<T: FastFloat>(x: &[T]) -> (T, T) {
    let lanes = T::LANES;
    let n = x.len() / lanes;
    let chunks = n.div_ceil(CHUNK);
    let depth = ceil_log2(chunks);
    // slot 0 takes every chunk; slot j holds 2^j chunks' worth until it is merged up
    let mut stack: SmallVec<[Partial<T>; 8]> = smallvec![Partial::zero(); depth.max(1)];
    for i in 0..chunks {
        let count = CHUNK.min(n - i * CHUNK);
        let mut p = Partial::<T>::zero();
        p.count = count;
        for j in 0..count {
            let c = T::ONE / T::from_usize(j + 1);
            let v = &x[(i * CHUNK + j) * lanes..][..lanes];
            for l in 0..lanes {
                let d = v[l] - p.m1[l];
                p.m1[l] = d.mul_add_(c, p.m1[l]);
                p.m2[l] = d.mul_add_(v[l] - p.m1[l], p.m2[l]);
            }
        }
        stack[0].absorb(&p);
        let mut mask = i + 1;
        let mut j = 1;
        while j < depth && mask & 1 == 0 {
            let below = stack[j - 1];
            stack[j].absorb(&below);
            stack[j - 1] = Partial::zero();
            mask >>= 1;
            j += 1;
        }
    }
    for j in 1..depth {
        let above = stack[j];
        stack[0].absorb(&above);
    }
    // the elements after the last whole vector, one by one
    let (mut count, mut m1, mut m2) = (0usize, T::ZERO, T::ZERO);
    for &v in &x[n * lanes..] {
        let d = v - m1;
        count += 1;
        m1 = m1 + d / T::from_usize(count);
        m2 = m2 + d * (v - m1);
    }
    // then every lane's partial, each holding `n` elements
    let top = stack[0];
    for l in 0..lanes {
        let total = count + n;
        let c = if total == 0 {
            T::ZERO
        } else {
            T::from_usize(n) / T::from_usize(total)
        };
        let d = top.m1[l] - m1;
        m1 = c.mul_add_(d, m1);
        m2 = m2 + ((d * d) * c).mul_add_(T::from_usize(count), top.m2[l]);
        count = total;
    }
    (m1, m2 / T::from_usize(x.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_pass(x: &[f64]) -> (f64, f64) {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64;
        (m, v)
    }

    #[test]
    fn agrees_with_a_two_pass_reference() {
        // every shape of the algorithm: tail only, one partial chunk, whole chunks,
        // several stack levels, and a tail after them
        for len in [1usize, 3, 4, 7, 8, 9, 64, 65, 127, 128, 129, 1000, 4099] {
            let x: Vec<f64> = (0..len)
                .map(|i| ((i * 7919) % 113) as f64 * 0.37 - 11.0)
                .collect();
            let (m, v) = row_moments(&x);
            let (rm, rv) = two_pass(&x);
            assert!(
                (m - rm).abs() <= 1e-12 * rm.abs().max(1.0),
                "len {len}: {m} {rm}"
            );
            assert!(
                (v - rv).abs() <= 1e-10 * rv.abs().max(1.0),
                "len {len}: {v} {rv}"
            );
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let (mf, vf) = row_moments(&xf);
            assert!(
                (mf as f64 - rm).abs() <= 1e-4 * rm.abs().max(1.0),
                "len {len}"
            );
            assert!(
                (vf as f64 - rv).abs() <= 1e-4 * rv.abs().max(1.0),
                "len {len}"
            );
        }
    }

    #[test]
    fn empty_row_is_nan() {
        let (m, v) = row_moments::<f32>(&[]);
        assert!(m == 0.0 || m.is_nan());
        assert!(v.is_nan());
    }

    #[test]
    fn stack_depth() {
        assert_eq!(
            [0, 1, 2, 3, 4, 5, 8, 9].map(ceil_log2),
            [0, 0, 1, 2, 2, 3, 3, 4]
        );
    }
}
