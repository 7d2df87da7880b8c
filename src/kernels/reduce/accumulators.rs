//! Accumulators with their own state: first extreme and its position (argmax,
//! max(dim)), moments (var/std) and log-sum-exp.

use super::{is_nan, lanes, max_nan, pairwise, Num, Reducer};
use crate::dtype::Element;
use std::marker::PhantomData;

/// Value and position of the first maximum (`MAX`) or minimum; a NaN beats every number
/// and the first NaN wins, as in PyTorch's argmax/max(dim).
pub struct ArgBest<T, const MAX: bool>(PhantomData<T>);

impl<T, const MAX: bool> Default for ArgBest<T, MAX> {
    fn default() -> Self {
        ArgBest(PhantomData)
    }
}

impl<T: Num, const MAX: bool> ArgBest<T, MAX> {
    #[inline(always)]
    fn better(x: T, best: T) -> bool {
        (if MAX { x > best } else { x < best }) || (is_nan(x) && !is_nan(best))
    }
}

impl<T: Num, const MAX: bool> Reducer<T> for ArgBest<T, MAX> {
    type Acc = (T, usize);
    const ORDERED: bool = true;
    #[inline(always)]
    fn init(&self) -> (T, usize) {
        // Starting from the identity at position 0 gives the right answer when the
        // first element equals the identity (e.g. all -inf -> index 0).
        (if MAX { T::LOWEST } else { T::HIGHEST }, 0)
    }
    #[inline(always)]
    fn step(&self, acc: (T, usize), x: T, i: usize) -> (T, usize) {
        if Self::better(x, acc.0) {
            (x, i)
        } else {
            acc
        }
    }
    #[inline(always)]
    fn merge(&self, a: (T, usize), b: (T, usize)) -> (T, usize) {
        if Self::better(b.0, a.0) {
            b
        } else {
            a
        }
    }
}

/// Count, mean and sum of squared deviations (computed in f64).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    pub n: f64,
    pub mean: f64,
    pub m2: f64,
}

impl Moments {
    /// Variance with `correction` (Bessel's for 1); the divisor is clamped at 0 like
    /// PyTorch, so too few elements give inf or nan.
    pub fn var(&self, correction: f64) -> f64 {
        self.m2 / (self.n - correction).max(0.0)
    }
}

/// Variance accumulator: Welford updates element by element, an exact two-pass on
/// contiguous runs, Chan's formula to merge.
pub struct Welford;

impl<S: Element> Reducer<S> for Welford {
    type Acc = Moments;
    fn init(&self) -> Moments {
        Moments::default()
    }
    #[inline(always)]
    fn step(&self, a: Moments, x: S, _i: usize) -> Moments {
        let x = x.to_f64();
        let n = a.n + 1.0;
        let d = x - a.mean;
        let mean = a.mean + d / n;
        Moments {
            n,
            mean,
            m2: a.m2 + d * (x - mean),
        }
    }
    fn merge(&self, a: Moments, b: Moments) -> Moments {
        if a.n == 0.0 {
            return b;
        }
        if b.n == 0.0 {
            return a;
        }
        let n = a.n + b.n;
        let d = b.mean - a.mean;
        Moments {
            n,
            mean: a.mean + d * (b.n / n),
            m2: a.m2 + b.m2 + d * d * (a.n * b.n / n),
        }
    }
    fn run(&self, acc: Moments, xs: &[S], _i0: usize) -> Moments {
        if xs.is_empty() {
            return acc;
        }
        let add = |a: f64, b: f64| a + b;
        let n = xs.len() as f64;
        let mean = pairwise(xs, 0.0, &|x: S| x.to_f64(), &add) / n;
        let m2 = pairwise(
            xs,
            0.0,
            &|x: S| {
                let d = x.to_f64() - mean;
                d * d
            },
            &add,
        );
        <Self as Reducer<S>>::merge(self, acc, Moments { n, mean, m2 })
    }
}

/// Online log-sum-exp in f64: `(running max m, sum of exp(x - m))`. Infinite maxima and
/// NaNs are handled explicitly so `[-inf, -inf]` gives -inf, any +inf gives +inf and any
/// NaN gives NaN, as PyTorch's max-shifted formula does.
pub struct LogSumExp;

impl LogSumExp {
    pub fn finish(acc: (f64, f64)) -> f64 {
        if acc.1.is_nan() {
            f64::NAN
        } else {
            acc.0 + acc.1.ln()
        }
    }
}

impl<S: Element> Reducer<S> for LogSumExp {
    type Acc = (f64, f64);
    fn init(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, 0.0)
    }
    #[inline(always)]
    fn step(&self, (m, s): (f64, f64), x: S, _i: usize) -> (f64, f64) {
        let x = x.to_f64();
        if x.is_nan() {
            (m, f64::NAN)
        } else if x > m {
            (x, s * (m - x).exp() + 1.0)
        } else if x == f64::NEG_INFINITY || m == f64::INFINITY {
            (m, s)
        } else {
            (m, s + (x - m).exp())
        }
    }
    /// Contiguous runs: max first, then a branch-free sum of exp(x - max).
    fn run(&self, acc: (f64, f64), xs: &[S], _i0: usize) -> (f64, f64) {
        let m = lanes(xs, f64::NEG_INFINITY, &|v: S| v.to_f64(), &max_nan);
        let part = if m.is_nan() {
            (m, f64::NAN)
        } else if m.is_infinite() {
            // all -inf: contributes nothing; any +inf: the result is +inf
            (m, if m > 0.0 { 1.0 } else { 0.0 })
        } else {
            let s = pairwise(xs, 0.0, &|v: S| (v.to_f64() - m).exp(), &|a, b| a + b);
            (m, s)
        };
        <Self as Reducer<S>>::merge(self, acc, part)
    }
    fn merge(&self, a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        let m = a.0.max(b.0);
        if a.1.is_nan() || b.1.is_nan() {
            (m, f64::NAN)
        } else if m == f64::NEG_INFINITY {
            a
        } else if m == f64::INFINITY {
            (m, 1.0)
        } else {
            (m, a.1 * (a.0 - m).exp() + b.1 * (b.0 - m).exp())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::reduce::reduce;

    /// Deterministic values in -50..50.
    fn data(n: usize) -> Vec<i64> {
        (0..n as i64).map(|i| (i * 7919 % 100) - 50).collect()
    }

    #[test]
    fn welford_two_pass_and_merge_agree() {
        let xs: Vec<f64> = data(1000).iter().map(|&v| v as f64 * 0.37 + 1e4).collect();
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let m2: f64 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
        // contiguous (two-pass run), strided (Welford steps) and vertical (merges)
        let mut got = Vec::new();
        reduce(&Welford, &xs, &[1000], &[1], 0, &[true], |_, a, _| {
            got.push(a)
        });
        reduce(&Welford, &xs, &[500], &[2], 0, &[true], |_, a, _| {
            got.push(a)
        });
        reduce(
            &Welford,
            &xs,
            &[250, 4],
            &[4, 1],
            0,
            &[true, false],
            |_, a, _| got.push(a),
        );
        assert!((got[0].m2 - m2).abs() / m2 < 1e-12);
        assert!((got[0].mean - mean).abs() < 1e-9);
        let half: Vec<f64> = xs.iter().step_by(2).copied().collect();
        let hm = half.iter().sum::<f64>() / 500.0;
        let hm2: f64 = half.iter().map(|x| (x - hm) * (x - hm)).sum();
        assert!((got[1].m2 - hm2).abs() / hm2 < 1e-10);
        let col: Vec<f64> = xs.iter().step_by(4).copied().collect();
        let cm = col.iter().sum::<f64>() / 250.0;
        let cm2: f64 = col.iter().map(|x| (x - cm) * (x - cm)).sum();
        assert!((got[2].m2 - cm2).abs() / cm2 < 1e-10);
        let m = |n, m2| Moments { n, mean: 2.0, m2 };
        assert!(m(1.0, 0.0).var(1.0).is_nan());
        assert_eq!(m(2.0, 1.0).var(3.0), f64::INFINITY);
    }

    #[test]
    fn logsumexp_handles_infinities() {
        let lse = |xs: &[f64]| {
            let mut v = 0.0;
            reduce(&LogSumExp, xs, &[xs.len()], &[1], 0, &[true], |_, a, _| {
                v = LogSumExp::finish(a)
            });
            v
        };
        let inf = f64::INFINITY;
        assert!((lse(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
        assert!(
            (lse(&[-1.0, 0.5, 2.0]) - ((-1f64).exp() + 0.5f64.exp() + 2f64.exp()).ln()).abs()
                < 1e-12
        );
        assert_eq!(lse(&[-inf, -inf]), -inf);
        assert_eq!(lse(&[]), -inf);
        assert_eq!(lse(&[1.0, inf, inf]), inf);
        assert_eq!(lse(&[inf, -inf]), inf);
        assert!(lse(&[inf, f64::NAN, 1.0]).is_nan());
    }
}
