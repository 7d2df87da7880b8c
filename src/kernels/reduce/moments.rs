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
//!
//! The vector stage (runs of whole vectors and their pairwise merge) runs as AVX2 code
//! in `kernels::simd::welford` where the CPU has it; the scalar copy here serves other
//! CPUs and `FERRIC_SIMD=scalar`, with the same bits (a test checks both on one row).

use super::fast::FastFloat;
use crate::kernels::simd::{
    welford::{pairwise, Runs, CHUNK},
    Level,
};

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

/// A row's whole vectors, folded in scalar code that rounds as the vector code does
/// (for CPUs without AVX2+FMA).
struct ScalarRuns<'a, T>(&'a [T]);

impl<T: FastFloat> Runs for ScalarRuns<'_, T> {
    type Part = Partial<T>;

    #[inline(always)]
    fn zero(&self) -> Partial<T> {
        Partial::zero()
    }

    // lane-indexed loops mirror the vector lanes they reproduce
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn run(&self, i: usize) -> Partial<T> {
        let (x, lanes) = (self.0, T::LANES);
        let count = CHUNK.min(x.len() / lanes - i * CHUNK);
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
        p
    }

    #[inline(always)]
    fn absorb(&self, a: &mut Partial<T>, b: &Partial<T>) {
        a.absorb(b)
    }
}

/// Each lane's partial moments over the whole vectors of `x`, in scalar code.
#[inline(always)]
fn lanes_scalar<T: FastFloat>(x: &[T]) -> Partial<T> {
    pairwise(&ScalarRuns(x), (x.len() / T::LANES).div_ceil(CHUNK))
}

/// Each lane's partial moments over the whole vectors of `x`: the AVX2 kernel where
/// `level` (the CPU's, capped by `FERRIC_SIMD`) allows it, else the scalar copy; the
/// same bits either way.
#[inline(always)]
fn lane_partials<T: FastFloat>(x: &[T], level: Level) -> Partial<T> {
    let n = x.len() / T::LANES;
    let mut p = Partial::<T>::zero();
    if T::welford_lanes_at(level, &x[..n * T::LANES], &mut p.m1, &mut p.m2) {
        p.count = n;
        p
    } else {
        lanes_scalar(x)
    }
}

/// `(mean, variance)` of `x` (the variance divides by `x.len()`), rounded as PyTorch's
/// `RowwiseMoments` rounds them. An empty row gives NaNs.
// lane-indexed loops mirror the vector lanes they reproduce
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub fn row_moments<T: FastFloat>(x: &[T], level: Level) -> (T, T) {
    let lanes = T::LANES;
    let n = x.len() / lanes;
    let top = lane_partials(x, level);
    // the elements after the last whole vector, one by one
    let (mut count, mut m1, mut m2) = (0usize, T::ZERO, T::ZERO);
    for &v in &x[n * lanes..] {
        let d = v - m1;
        count += 1;
        m1 = m1 + d / T::from_usize(count);
        m2 = m2 + d * (v - m1);
    }
    // then every lane's partial, each holding `n` elements
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
    use crate::kernels::simd;

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
            let (m, v) = row_moments(&x, simd::active());
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
            let (mf, vf) = row_moments(&xf, simd::active());
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

    /// The AVX2 kernel and the scalar copy agree on every lane (`{:?}` prints the
    /// shortest round-trip form, so equal strings are equal bits for non-NaN values).
    fn vector_stage_matches_scalar<T: FastFloat + std::fmt::Debug>(x: &[T]) {
        let n = x.len() / T::LANES;
        let mut v = Partial::<T>::zero();
        for level in [simd::Level::Avx2, simd::Level::Avx512] {
            if !T::welford_lanes_at(level, &x[..n * T::LANES], &mut v.m1, &mut v.m2) {
                continue;
            }
            let s = lanes_scalar(x);
            for l in 0..T::LANES {
                assert_eq!(format!("{:?}", v.m1[l]), format!("{:?}", s.m1[l]), "m1 {l}");
                assert_eq!(format!("{:?}", v.m2[l]), format!("{:?}", s.m2[l]), "m2 {l}");
            }
        }
    }

    #[test]
    fn vector_and_scalar_stages_agree() {
        for len in [0usize, 7, 8, 9, 64, 127, 128, 129, 256, 1000, 4099, 40000] {
            let x: Vec<f64> = (0..len)
                .map(|i| ((i as f64 * 0.618_033_988_7).fract() - 0.3) * (1.0 + (i % 7) as f64))
                .collect();
            vector_stage_matches_scalar(&x);
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            vector_stage_matches_scalar(&xf);
        }
    }

    #[test]
    fn empty_row_is_nan() {
        let (m, v) = row_moments::<f32>(&[], simd::active());
        assert!(m == 0.0 || m.is_nan());
        assert!(v.is_nan());
    }
}
