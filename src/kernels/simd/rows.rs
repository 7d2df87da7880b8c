//! Softmax and log-softmax of contiguous rows over the `Vf` vocabulary, with the
//! library's vector `exp` (`math32`/`math64`).
//!
//! Per row: the max (NaN lanes skipped: a NaN still turns the sum, hence the whole row,
//! into NaN, which is PyTorch's result), then `e = exp(x - max)` stored and summed, then
//! one scaling pass (`e / sum`, or `x - max - ln(sum)` for log-softmax). The row is
//! read from memory once; the later passes find it in L1 for rows of up to a few
//! thousand elements.
//!
//! The sum runs in `ACC` = 64 lanes whatever the vector width, added in a fixed tree,
//! then the ragged tail in order: every backend adds in the same order, so a row's
//! result does not depend on the backend's vector width (only on its `exp`, whose
//! fused multiply-adds the scalar fallback lacks; see `mod.rs`).

use super::vector::{load_tail, store_tail, Lanes, Vf, MAX_LANES};
use crate::kernels::num::{lane_total, Float, Num, ACC};

/// The max of a row, NaN lanes skipped (`-inf` for an all-NaN or empty row).
///
/// # Safety
/// `x` readable for `n` elements.
#[inline(always)]
unsafe fn row_max<V: Vf>(z: V, x: *const V::E, n: usize) -> V::E
where
    V::E: Float,
{
    let l = V::LANES;
    let low = z.splat(V::E::LOWEST);
    let mut acc = [low; 4];
    let mut i = 0;
    // the comparison is false for NaN, so a NaN never replaces the running max
    // SAFETY (whole body): every access stays below n.
    unsafe {
        while i + 4 * l <= n {
            for (k, a) in acc.iter_mut().enumerate() {
                let v = z.load(x.add(i + k * l));
                *a = V::select(v.gt(*a), v, *a);
            }
            i += 4 * l;
        }
        while i + l <= n {
            let v = z.load(x.add(i));
            acc[0] = V::select(v.gt(acc[0]), v, acc[0]);
            i += l;
        }
        let mut lanes = [V::E::LOWEST; 4 * MAX_LANES];
        for (k, a) in acc.iter().enumerate() {
            a.store(lanes.as_mut_ptr().add(k * l));
        }
        let gt = |a: V::E, b: V::E| a.partial_cmp(&b) == Some(std::cmp::Ordering::Greater);
        let mut m = V::E::LOWEST;
        for &v in lanes[..4 * l]
            .iter()
            .chain(std::slice::from_raw_parts(x.add(i), n - i))
        {
            if gt(v, m) {
                m = v;
            }
        }
        m
    }
}

/// Asks for the cache line holding `p` ahead of its use (a hint: never faults).
#[inline(always)]
fn prefetch<E>(p: *const E) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint with no architectural effect, valid for any address;
    // SSE is part of the x86-64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The `ACC`-lane sum of `exp(x - m)` over the whole chunks of a row (`STORE`: also
/// writes each exponential to `o`), returning the lane totals and where the chunks end.
/// `next` is the following row, prefetched as this one is processed: the max pass,
/// which must wait for memory, then finds it in cache.
///
/// The exponential is called as `Exp::apply` in straight-line code, never through a
/// closure, so it is inlined into the `#[target_feature]` entry point (see `Lanes`).
///
/// # Safety
/// `x` readable and `o` writable for `n` elements; `next` any address.
#[inline(always)]
unsafe fn exp_chunks<V: Vf, Exp: Lanes<V>, const STORE: bool>(
    z: V,
    x: *const V::E,
    o: *mut V::E,
    next: *const V::E,
    n: usize,
    mv: V,
) -> ([V::E; ACC], usize)
where
    V::E: Float,
{
    let l = V::LANES;
    let per = ACC / l;
    // ACC lanes in `per` vectors; the array is sized for the narrowest backend
    let mut acc = [z; ACC];
    let mut i = 0;
    // SAFETY: every access stays below n; prefetches are hints.
    unsafe {
        while i + ACC <= n {
            let line = 64 / std::mem::size_of::<V::E>();
            for c in (0..ACC).step_by(line) {
                prefetch(next.wrapping_add(i + c));
            }
            for (k, a) in acc[..per].iter_mut().enumerate() {
                let v = Exp::apply(z.load(x.add(i + k * l)) - mv);
                if STORE {
                    v.store(o.add(i + k * l));
                }
                *a = *a + v;
            }
            i += ACC;
        }
        let mut lanes = [V::E::ZERO; ACC];
        for (k, a) in acc[..per].iter().enumerate() {
            a.store(lanes.as_mut_ptr().add(k * l));
        }
        (lanes, i)
    }
}

/// Softmax (`log`: log-softmax) of `rows` consecutive rows of length `n`.
///
/// # Safety
/// `src` readable and `dst` writable for `rows * n` elements; they must not overlap.
#[inline(always)]
pub unsafe fn softmax_rows<V: Vf, Exp: Lanes<V>>(
    z: V,
    src: *const V::E,
    dst: *mut V::E,
    rows: usize,
    n: usize,
    log: bool,
) where
    V::E: Float,
{
    let l = V::LANES;
    for r in 0..rows {
        // SAFETY (whole body): row r covers r * n .. (r + 1) * n, inside both buffers,
        // and every access below stays inside the row (the prefetch address may not).
        unsafe {
            let (x, o) = (src.add(r * n), dst.add(r * n));
            let next = x.wrapping_add(n);
            let m = row_max(z, x, n);
            let mv = z.splat(m);
            let (lanes, body) = if log {
                exp_chunks::<V, Exp, false>(z, x, o, next, n, mv)
            } else {
                exp_chunks::<V, Exp, true>(z, x, o, next, n, mv)
            };
            // the ragged end: exponentials by the same vector code, added in order
            // (into a small buffer: log-softmax writes its output only at the end)
            let mut s = lane_total(lanes);
            let mut ends = [V::E::ZERO; ACC + MAX_LANES];
            let mut i = body;
            while i < n {
                let v = if i + l <= n {
                    z.load(x.add(i))
                } else {
                    load_tail(z, x, i, n)
                };
                Exp::apply(v - mv).store(ends.as_mut_ptr().add(i - body));
                i += l;
            }
            for &v in &ends[..n - body] {
                s = s + v;
            }
            if !log {
                std::ptr::copy_nonoverlapping(ends.as_ptr(), o.add(body), n - body);
            }
            let mut i = 0;
            if log {
                // (x - max) - ln(sum): the difference x - max is exact near the max
                let ls = z.splat(s.ln());
                while i + 4 * l <= n {
                    for k in 0..4 {
                        let p = i + k * l;
                        ((z.load(x.add(p)) - mv) - ls).store(o.add(p));
                    }
                    i += 4 * l;
                }
                while i + l <= n {
                    ((z.load(x.add(i)) - mv) - ls).store(o.add(i));
                    i += l;
                }
                if i < n {
                    store_tail((load_tail(z, x, i, n) - mv) - ls, o, i, n);
                }
            } else {
                let inv = z.splat(V::E::ONE / s);
                while i + 4 * l <= n {
                    for k in 0..4 {
                        let p = i + k * l;
                        (z.load(o.add(p)) * inv).store(o.add(p));
                    }
                    i += 4 * l;
                }
                while i + l <= n {
                    (z.load(o.add(i)) * inv).store(o.add(i));
                    i += l;
                }
                if i < n {
                    store_tail(load_tail(z, o, i, n) * inv, o, i, n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{supported, Level, SimdFloat};

    /// Softmax (or log-softmax) of one row in float64, the reference. `round` rounds
    /// the differences `x - max` to the kernel's precision, as the kernel must (for
    /// float32 that rounding alone moves `exp(x - max)` by up to |x - max| * 2^-24).
    fn reference(x: &[f64], log: bool, round: fn(f64) -> f64) -> Vec<f64> {
        let m = x
            .iter()
            .cloned()
            .filter(|v| !v.is_nan())
            .fold(f64::NEG_INFINITY, f64::max);
        let d: Vec<f64> = x.iter().map(|v| round(v - m)).collect();
        let s: f64 = d.iter().map(|v| v.exp()).sum();
        d.iter()
            .map(|v| if log { v - s.ln() } else { v.exp() / s })
            .collect()
    }

    /// Rows of every length around the vector and accumulator widths, with a wide
    /// spread of values (subnormal exponentials included).
    fn rows(n: usize, count: usize) -> Vec<f64> {
        (0..n * count)
            .map(|i| {
                ((i * 7919 % 1013) as f64 / 1013.0 - 0.5) * if i % 3 == 0 { 240.0 } else { 6.0 }
            })
            .collect()
    }

    #[test]
    fn rows_match_float64_at_every_level_and_length() {
        for n in [1, 2, 7, 15, 16, 17, 63, 64, 65, 100, 129, 1000, 1031] {
            let x64 = rows(n, 3);
            let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
            for log in [false, true] {
                let mut first: Option<Vec<u32>> = None;
                for &level in supported() {
                    let mut o32 = vec![0f32; x32.len()];
                    let mut o64 = vec![0f64; x64.len()];
                    assert!(f32::softmax_rows_at(level, &x32, &mut o32, n, log));
                    assert!(f64::softmax_rows_at(level, &x64, &mut o64, n, log));
                    for r in 0..3 {
                        let line: Vec<f64> =
                            x32[r * n..(r + 1) * n].iter().map(|&v| v as f64).collect();
                        let want = reference(&line, log, |v| v as f32 as f64);
                        let want64 = reference(&x64[r * n..(r + 1) * n], log, |v| v);
                        for k in 0..n {
                            let (g, w) = (o32[r * n + k] as f64, want[k]);
                            // relative for softmax (tiny values included), absolute
                            // against the row's scale for log-softmax
                            let tol = if log {
                                2e-6 * w.abs().max(1.0)
                            } else {
                                8e-7 * w + 1e-44
                            };
                            assert!(
                                (g - w).abs() <= tol,
                                "{level:?} n={n} log={log}: {g} vs {w}"
                            );
                            let (g, w) = (o64[r * n + k], want64[k]);
                            let tol = if log {
                                1e-14 * w.abs().max(1.0)
                            } else {
                                4e-15 * w + 1e-300
                            };
                            assert!((g - w).abs() <= tol, "{level:?} f64 n={n}: {g} vs {w}");
                        }
                    }
                    // the SIMD levels share their exp and their order of addition
                    if level != Level::Scalar {
                        let b: Vec<u32> = o32.iter().map(|v| v.to_bits()).collect();
                        match &first {
                            None => first = Some(b),
                            Some(p) => assert_eq!(p, &b, "{level:?} n={n} differs"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rows_edge_values() {
        let inf = f32::INFINITY;
        for &level in supported() {
            let run = |x: &[f32], log: bool| {
                let mut o = vec![0f32; x.len()];
                assert!(f32::softmax_rows_at(level, x, &mut o, x.len(), log));
                o
            };
            assert_eq!(run(&[1000.0, 1000.0, -inf], false), [0.5, 0.5, 0.0]);
            assert_eq!(run(&[3.0], false), [1.0]);
            assert_eq!(run(&[3.0], true), [0.0]);
            // a NaN anywhere makes the whole row NaN, as in PyTorch
            let mut x = vec![0.5f32; 70];
            x[66] = f32::NAN;
            assert!(run(&x, false).iter().all(|v| v.is_nan()), "{level:?}");
            assert!(run(&x, true).iter().all(|v| v.is_nan()), "{level:?}");
            // an all -inf row has no defined maximum: NaN, as in PyTorch
            assert!(run(&[-inf; 20], false).iter().all(|v| v.is_nan()));
            // a huge spread: the small entries underflow to subnormals or zero
            let o = run(&[0.0, -90.0, -103.0, -200.0], false);
            assert_eq!(o[0], 1.0);
            assert!(
                o[1] > 0.0 && o[1] < f32::MIN_POSITIVE && o[3] == 0.0,
                "{o:?}"
            );
            assert!((run(&[0.0, -90.0], true)[1] + 90.0).abs() < 1e-5);
        }
    }

    #[test]
    fn mismatched_lengths_write_nothing() {
        let mut o = [7.0f32; 5];
        assert!(!super::super::softmax_rows(&[1.0f32; 6], &mut o, 3, false));
        assert!(!f32::softmax_rows_at(
            Level::Scalar,
            &[1.0; 5],
            &mut o,
            2,
            false
        ));
        assert!(!f32::softmax_rows_at(
            Level::Scalar,
            &[1.0; 5],
            &mut o,
            0,
            false
        ));
        assert_eq!(o, [7.0; 5]);
    }
}
