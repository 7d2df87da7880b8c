//! The vector stage of PyTorch's row moments (`RowwiseMoments`) on 256-bit vectors.
//!
//! The row is read as whole 256-bit vectors (8 f32 or 4 f64 lanes); runs of 16 vectors
//! are folded lane-wise with Welford's update, and the run results are merged through a
//! binary-counter stack (pairwise). What remains, the scalar tail and the merge of the
//! lanes, is scalar code in `kernels::reduce::moments`, which also holds a scalar copy of
//! this stage for CPUs without AVX2+FMA. Both give the same bits: every step is the same
//! IEEE operation in the same order, and the two fused steps are FMAs in both.
//!
//! The lane count is PyTorch's (its AVX2 `Vectorized<T>`), not the widest this CPU has,
//! so on AVX-512 machines the AVX2 instructions still run here.

use super::vector::Vf;
use super::SimdFloat;
use smallvec::{smallvec, SmallVec};

/// Vectors per Welford run (PyTorch's `kChunkSize`).
pub const CHUNK: usize = 16;

/// Lane-wise partial moments of `count` vectors.
#[derive(Clone, Copy)]
struct Part<V> {
    count: usize,
    m1: V,
    m2: V,
}

/// Folds `b` into `a` (PyTorch's `AddMomentsVec`): `m1 += c * d` unfused, `m2` as
/// `fma(d, d * (c * n_a), m2 + m2_b)` with `c = n_b / (n_a + n_b)`.
#[inline(always)]
fn absorb<V: Vf>(z: V, a: &mut Part<V>, b: &Part<V>)
where
    V::E: SimdFloat,
{
    let n = a.count + b.count;
    let c = if n == 0 {
        z
    } else {
        // a quotient of two splats is the scalar quotient in every lane
        z.splat(V::E::from_usize(b.count)) / z.splat(V::E::from_usize(n))
    };
    let cn = c * z.splat(V::E::from_usize(a.count));
    let d = b.m1 - a.m1;
    a.m1 = a.m1 + c * d;
    a.m2 = d.mul_add(d * cn, a.m2 + b.m2);
    a.count = n;
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

/// A row cut into runs of vectors, and how two runs' partial moments merge: the vector
/// kernel below and its scalar copy in `kernels::reduce::moments` each implement it
/// (with `#[inline(always)]` methods, so the vector code stays inside the
/// `#[target_feature]` entry point; a closure would not inherit its features).
pub trait Runs {
    type Part: Copy;
    /// The partial of no elements.
    fn zero(&self) -> Self::Part;
    /// The partial of run `i` (16 vectors, fewer for the last).
    fn run(&self, i: usize) -> Self::Part;
    /// Merges `b` into `a`.
    fn absorb(&self, a: &mut Self::Part, b: &Self::Part);
}

/// Folds runs `0 .. runs` of `r` into one partial as PyTorch merges them: a
/// binary-counter stack where slot 0 takes every run and slot j holds 2^j runs' worth
/// until it is merged up (pairwise, like a cascade sum), then the slots top-down into
/// slot 0.
#[inline(always)]
pub fn pairwise<R: Runs>(r: &R, runs: usize) -> R::Part {
    let depth = ceil_log2(runs);
    let zero = r.zero();
    let mut stack: SmallVec<[R::Part; 8]> = smallvec![zero; depth.max(1)];
    for i in 0..runs {
        let p = r.run(i);
        r.absorb(&mut stack[0], &p);
        let mut mask = i + 1;
        let mut j = 1;
        while j < depth && mask & 1 == 0 {
            let below = stack[j - 1];
            r.absorb(&mut stack[j], &below);
            stack[j - 1] = zero;
            mask >>= 1;
            j += 1;
        }
    }
    for j in 1..depth {
        let above = stack[j];
        r.absorb(&mut stack[0], &above);
    }
    stack[0]
}

/// The whole vectors of a row, read with the vectors `z` proves.
struct VecRuns<V: Vf> {
    z: V,
    p: *const V::E,
    /// Whole vectors in the row.
    n: usize,
}

impl<V: Vf> Runs for VecRuns<V>
where
    V::E: SimdFloat,
{
    type Part = Part<V>;

    #[inline(always)]
    fn zero(&self) -> Part<V> {
        Part {
            count: 0,
            m1: self.z,
            m2: self.z,
        }
    }

    #[inline(always)]
    fn run(&self, i: usize) -> Part<V> {
        let (z, lanes) = (self.z, V::LANES);
        let one = z.splat(V::E::from_usize(1));
        let count = CHUNK.min(self.n - i * CHUNK);
        let mut r = Part {
            count,
            ..self.zero()
        };
        for j in 0..count {
            let c = one / z.splat(V::E::from_usize(j + 1));
            // SAFETY: (i * CHUNK + j + 1) * lanes <= n * lanes, inside the row `fold`
            // was given.
            let v = unsafe { z.load(self.p.add((i * CHUNK + j) * lanes)) };
            let d = v - r.m1;
            r.m1 = d.mul_add(c, r.m1);
            r.m2 = d.mul_add(v - r.m1, r.m2);
        }
        r
    }

    #[inline(always)]
    fn absorb(&self, a: &mut Part<V>, b: &Part<V>) {
        absorb(self.z, a, b)
    }
}

/// Each lane's mean and sum of squared deviations over the whole vectors of `x` (a
/// ragged end is left to the caller), stored to `m1` and `m2`.
///
/// # Safety
/// `z` proves the vector instructions; `m1` and `m2` hold at least `V::LANES` elements.
#[inline(always)]
unsafe fn fold<V: Vf>(z: V, x: &[V::E], m1: &mut [V::E], m2: &mut [V::E])
where
    V::E: SimdFloat,
{
    let n = x.len() / V::LANES;
    let runs = VecRuns {
        z,
        p: x.as_ptr(),
        n,
    };
    let top = pairwise(&runs, n.div_ceil(CHUNK));
    // SAFETY: the caller gives room for LANES elements in each.
    unsafe {
        top.m1.store(m1.as_mut_ptr());
        top.m2.store(m2.as_mut_ptr());
    }
}

/// The AVX2+FMA entry points (8 f32 / 4 f64 lanes).
#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use super::super::vector::Simd;
    use super::super::x86::Avx2;

    /// # Safety
    /// The CPU supports AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn lanes_f32(x: &[f32], m1: &mut [f32; 8], m2: &mut [f32; 8]) {
        // SAFETY: forwarded from the caller; the arrays hold 8 lanes.
        unsafe { super::fold(Avx2::new().zero_f32(), x, m1, m2) }
    }

    /// # Safety
    /// The CPU supports AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn lanes_f64(x: &[f64], m1: &mut [f64; 8], m2: &mut [f64; 8]) {
        // SAFETY: as above; 4 of the 8 slots are written.
        unsafe { super::fold(Avx2::new().zero_f64(), x, m1, m2) }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stack_depth() {
        assert_eq!(
            [0, 1, 2, 3, 4, 5, 8, 9].map(super::ceil_log2),
            [0, 0, 1, 2, 2, 3, 3, 4]
        );
    }
}
