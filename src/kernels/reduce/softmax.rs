//! Softmax and log-softmax along one dim, forward and backward.
//!
//! The common case, the last dim of a contiguous tensor, runs row by row in the vector
//! kernel of `simd::rows` (max; exp and sum; scale) with the library's vector `exp`,
//! rows split across ferric's pool. Any other layout goes line by line
//! (`scan::for_each_line`): the last dim of a transposed tensor gathers 32 lines at a
//! time into the rows of a scratch and runs the same row kernel on them; lines whose
//! neighbours are adjacent in memory on both sides (softmax over a non-innermost dim)
//! are processed as tiles with unit-stride inner loops and the branch-free scalar `exp`
//! of [`super::fast`] (within an ulp or two of the vector one, not bit-identical).
//!
//! Rows are independent, so results never depend on the thread count.

use super::fast::{dispatch, lane_sum, FastFloat};
use super::max_nan;
use super::scan::{for_each_line, Lines};
use crate::kernels::simd;
use crate::shape::contiguous_strides;
use rayon::prelude::*;

#[inline(always)]
fn at(base: usize, k: usize, step: isize) -> usize {
    base + k * step as usize
}

/// Softmax of consecutive contiguous rows of length `n` (the vector kernel of
/// `simd::rows`; the lengths always agree here, so it always runs).
fn rows<T: FastFloat>(src: &[T], out: &mut [T], n: usize, log: bool) {
    let done = simd::softmax_rows(src, out, n, log);
    debug_assert!(done);
}

/// One contiguous row of the backward: `gi = y (g - sum(g y))` for softmax output `y`,
/// `gi = g - exp(y) sum(g)` for log-softmax output `y`.
#[inline(always)]
fn row_backward<T: FastFloat>(g: &[T], y: &[T], gi: &mut [T], log: bool) {
    if log {
        let s = lane_sum(g, |v| v);
        for ((o, &gv), &yv) in gi.iter_mut().zip(g).zip(y) {
            *o = gv - yv.exp_fast() * s;
        }
    } else {
        let mut acc = [T::ZERO; 16];
        let (gc, yc) = (g.chunks_exact(16), y.chunks_exact(16));
        let (gr, yr) = (gc.remainder(), yc.remainder());
        for (a, b) in gc.zip(yc) {
            for k in 0..16 {
                acc[k] = acc[k] + a[k] * b[k];
            }
        }
        let mut s = acc.iter().fold(T::ZERO, |s, &v| s + v);
        for (&a, &b) in gr.iter().zip(yr) {
            s = s + a * b;
        }
        for ((o, &gv), &yv) in gi.iter_mut().zip(g).zip(y) {
            *o = yv * (gv - s);
        }
    }
}

dispatch! {
    fn rows_backward<T: FastFloat>(g: &[T], y: &[T], gi: &mut [T], n: usize, log: bool) {
        for ((a, b), o) in g.chunks_exact(n).zip(y.chunks_exact(n)).zip(gi.chunks_exact_mut(n)) {
            row_backward(a, b, o, log);
        }
    }
}

/// Rows per parallel task: at least ~64k elements so a hand-off pays for itself.
fn rows_per_task(n: usize) -> usize {
    (crate::threads::MIN_PARALLEL_WORK / n.max(1)).max(1)
}

/// Softmax (or log-softmax) along `dim` of a strided view into the contiguous `out`.
pub fn softmax<T: FastFloat>(
    src: &[T],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    dim: usize,
    out: &mut [T],
    log: bool,
) {
    // long softmaxes let other Python threads run meanwhile
    crate::threads::unlocked_if_long(out.len(), || {
        softmax_locked(src, shape, strides, offset, dim, out, log)
    })
}

#[allow(clippy::too_many_arguments)]
fn softmax_locked<T: FastFloat>(
    src: &[T],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    dim: usize,
    out: &mut [T],
    log: bool,
) {
    let n = shape.get(dim).copied().unwrap_or(1);
    let total = out.len();
    if n == 0 || total == 0 {
        return;
    }
    let last_contiguous = dim + 1 == shape.len()
        && contiguous_strides(shape).as_slice() == strides
        && offset + total <= src.len();
    if last_contiguous {
        let src = &src[offset..offset + total];
        if crate::threads::worth_splitting(total) {
            let chunk = rows_per_task(n) * n;
            crate::threads::install(|| {
                src.par_chunks(chunk)
                    .zip(out.par_chunks_mut(chunk))
                    .for_each(|(x, o)| rows(x, o, n, log));
            });
        } else {
            rows(src, out, n, log);
        }
        return;
    }
    let (mut mx, mut sm): (Vec<T>, Vec<T>) = Default::default();
    let (mut scratch, mut lines): (Vec<T>, Vec<T>) = Default::default();
    for_each_line(shape, strides, offset, dim, |l| match l {
        Lines::One {
            src: si,
            src_step,
            dst,
            dst_step,
        } => {
            if src_step == 1 && dst_step == 1 {
                return rows(&src[si..si + n], &mut out[dst..dst + n], n, log);
            }
            let x = |k: usize| src[at(si, k, src_step)];
            let m = (0..n).fold(T::LOWEST, |m, k| max_nan(m, x(k)));
            let mut s = T::ZERO;
            for k in 0..n {
                let e = (x(k) - m).exp_fast();
                out[at(dst, k, dst_step)] = e;
                s = s + e;
            }
            let (ls, inv) = (s.ln(), T::ONE / s);
            for k in 0..n {
                let o = &mut out[at(dst, k, dst_step)];
                *o = if log { (x(k) - m) - ls } else { *o * inv };
            }
        }
        Lines::Tile {
            src: si,
            src_step,
            src_next,
            dst,
            dst_step,
            dst_next,
            width,
        } => {
            if src_next == 1 && dst_next != 1 {
                // adjacent input lines, output lines apart (softmax over the last dim
                // of a transposed tensor): a few lines at a time are gathered into the
                // rows of a scratch (reading whole cache lines across the lines), then
                // the row kernel runs on each, straight into the output when the
                // output line is contiguous
                const NARROW: usize = 32;
                // scratch rows padded so they do not all fall in the same L1 sets (a
                // row of 1024 float32 is exactly 4 KiB)
                let ld = n + 16;
                let wmax = NARROW.min(width);
                // every slot read is written first; sized once
                scratch.resize(ld * wmax, T::ZERO);
                for c0 in (0..width).step_by(NARROW) {
                    let w = NARROW.min(width - c0);
                    for k in 0..n {
                        let b = at(si + c0, k, src_step);
                        for (c, &v) in src[b..b + w].iter().enumerate() {
                            scratch[c * ld + k] = v;
                        }
                    }
                    for c in 0..w {
                        let line = &scratch[c * ld..c * ld + n];
                        let o = at(dst, c0 + c, dst_next);
                        if dst_step == 1 {
                            rows(line, &mut out[o..o + n], n, log);
                        } else {
                            lines.resize(n, T::ZERO);
                            rows(line, &mut lines, n, log);
                            for (k, &v) in lines.iter().enumerate() {
                                out[at(o, k, dst_step)] = v;
                            }
                        }
                    }
                }
                return;
            }
            let g = TileGeom {
                n,
                width,
                src: (si, src_step, src_next),
                dst: (dst, dst_step, dst_next),
            };
            tile(src, out, &g, &mut mx, &mut sm, log);
        }
    });
}

/// A tile of `width` adjacent lines of length `n`: (base, step along the line, step to
/// the next line) for the source and the destination.
struct TileGeom {
    n: usize,
    width: usize,
    src: (usize, isize, isize),
    dst: (usize, isize, isize),
}

dispatch! {
    /// Softmax over the lines of a tile, one row of the tile (k fixed) at a time so the
    /// inner loops run across lines (unit stride when the lines are adjacent).
    fn tile<T: FastFloat>(
        src: &[T],
        out: &mut [T],
        g: &TileGeom,
        mx: &mut Vec<T>,
        sm: &mut Vec<T>,
        log: bool,
    ) {
        let (si, ss, sn) = g.src;
        let (di, ds, dn) = g.dst;
        let w = g.width;
        mx.clear();
        mx.resize(w, T::LOWEST);
        sm.clear();
        sm.resize(w, T::ZERO);
        let unit = sn == 1 && dn == 1;
        for k in 0..g.n {
            let b = at(si, k, ss);
            if unit {
                for (m, &x) in mx.iter_mut().zip(&src[b..b + w]) {
                    *m = max_nan(*m, x);
                }
            } else {
                for (c, m) in mx.iter_mut().enumerate() {
                    *m = max_nan(*m, src[at(b, c, sn)]);
                }
            }
        }
        for k in 0..g.n {
            let (b, o) = (at(si, k, ss), at(di, k, ds));
            if unit {
                let (xs, os) = (&src[b..b + w], &mut out[o..o + w]);
                for (((e, &x), &m), s) in os.iter_mut().zip(xs).zip(mx.iter()).zip(sm.iter_mut()) {
                    *e = (x - m).exp_fast();
                    *s = *s + *e;
                }
            } else {
                for c in 0..w {
                    let e = (src[at(b, c, sn)] - mx[c]).exp_fast();
                    out[at(o, c, dn)] = e;
                    sm[c] = sm[c] + e;
                }
            }
        }
        for s in sm.iter_mut() {
            *s = if log { s.ln() } else { T::ONE / *s };
        }
        for k in 0..g.n {
            let (b, o) = (at(si, k, ss), at(di, k, ds));
            for c in 0..w {
                let p = at(o, c, dn);
                out[p] = if log {
                    (src[at(b, c, sn)] - mx[c]) - sm[c]
                } else {
                    out[p] * sm[c]
                };
            }
        }
    }
}

/// The gradient of softmax (or log-softmax) along `dim` given the incoming gradient `g`
/// and the forward output `y`, both dense (contiguous from offset 0) with `shape`.
pub fn softmax_backward<T: FastFloat>(
    g: &[T],
    y: &[T],
    shape: &[usize],
    dim: usize,
    gi: &mut [T],
    log: bool,
) {
    let n = shape.get(dim).copied().unwrap_or(1);
    let total = gi.len();
    if n == 0 || total == 0 {
        return;
    }
    if dim + 1 >= shape.len() {
        if crate::threads::worth_splitting(total) {
            let chunk = rows_per_task(n) * n;
            crate::threads::install(|| {
                g.par_chunks(chunk)
                    .zip(y.par_chunks(chunk))
                    .zip(gi.par_chunks_mut(chunk))
                    .for_each(|((a, b), o)| rows_backward(a, b, o, n, log));
            });
        } else {
            rows_backward(g, y, gi, n, log);
        }
        return;
    }
    let strides = contiguous_strides(shape);
    let mut line = |base: usize, step: isize| {
        let p = |k: usize| at(base, k, step);
        let mut s = T::ZERO;
        for k in 0..n {
            s = s + if log { g[p(k)] } else { g[p(k)] * y[p(k)] };
        }
        for k in 0..n {
            gi[p(k)] = if log {
                g[p(k)] - y[p(k)].exp_fast() * s
            } else {
                y[p(k)] * (g[p(k)] - s)
            };
        }
    };
    for_each_line(shape, &strides, 0, dim, |l| match l {
        Lines::One { src, src_step, .. } => line(src, src_step),
        Lines::Tile {
            src,
            src_step,
            src_next,
            width,
            ..
        } => (0..width).for_each(|c| line(src + c * src_next as usize, src_step)),
    });
}

#[cfg(test)]
mod tests {
    use super::super::fast::{set_max_level, Level};
    use super::*;

    fn reference(line: &[f64]) -> Vec<f64> {
        let m = line.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = line.iter().map(|v| (v - m).exp()).sum();
        line.iter().map(|v| (v - m).exp() / s).collect()
    }

    #[test]
    fn softmax_rows_and_columns_on_every_level() {
        // 240 elements: the step-sliced case reads up to offset 5 * 40 + 19 * 2
        let src: Vec<f64> = (0..240)
            .map(|i| ((i * 37 % 11) as f64 - 5.0) * 0.7)
            .collect();
        let cases: [([usize; 2], [isize; 2]); 3] =
            [([6, 20], [20, 1]), ([6, 20], [1, 6]), ([6, 20], [40, 2])];
        for lvl in [Level::V4, Level::V3, Level::Base] {
            set_max_level(lvl);
            for (shape, strides) in cases {
                for dim in 0..2 {
                    let (mut sm, mut lsm) = (vec![0.0; 120], vec![0.0; 120]);
                    softmax(&src, &shape, &strides, 0, dim, &mut sm, false);
                    softmax(&src, &shape, &strides, 0, dim, &mut lsm, true);
                    let x =
                        |i: usize, j: usize| src[i * strides[0] as usize + j * strides[1] as usize];
                    for i in 0..shape[0] {
                        for j in 0..shape[1] {
                            let (line, pos): (Vec<f64>, usize) = if dim == 0 {
                                ((0..shape[0]).map(|k| x(k, j)).collect(), i)
                            } else {
                                ((0..shape[1]).map(|k| x(i, k)).collect(), j)
                            };
                            let want = reference(&line)[pos];
                            let o = i * shape[1] + j;
                            assert!((sm[o] - want).abs() < 1e-14, "{lvl:?} {shape:?} {dim}");
                            assert!((lsm[o] - want.ln()).abs() < 1e-13);
                        }
                    }
                    // backward against the formula on the same lines
                    let g: Vec<f64> = (0..120).map(|i| (i % 7) as f64 - 3.0).collect();
                    for log in [false, true] {
                        let y = if log { &lsm } else { &sm };
                        let mut gi = vec![0.0; 120];
                        softmax_backward(&g, y, &shape, dim, &mut gi, log);
                        for i in 0..shape[0] {
                            for j in 0..shape[1] {
                                let idx: Vec<usize> = if dim == 0 {
                                    (0..shape[0]).map(|k| k * shape[1] + j).collect()
                                } else {
                                    (0..shape[1]).map(|k| i * shape[1] + k).collect()
                                };
                                let o = i * shape[1] + j;
                                let want = if log {
                                    let s: f64 = idx.iter().map(|&p| g[p]).sum();
                                    g[o] - sm[o] * s
                                } else {
                                    let s: f64 = idx.iter().map(|&p| g[p] * sm[p]).sum();
                                    sm[o] * (g[o] - s)
                                };
                                assert!((gi[o] - want).abs() < 1e-12, "{log} {dim}");
                            }
                        }
                    }
                }
            }
        }
        set_max_level(Level::V4);
    }

    #[test]
    fn softmax_extremes() {
        let mut out = [0.0f32; 3];
        softmax(
            &[1000.0f32, 1000.0, f32::NEG_INFINITY],
            &[3],
            &[1],
            0,
            0,
            &mut out,
            false,
        );
        assert_eq!(out, [0.5, 0.5, 0.0]);
        softmax(&[1.0f32, f32::NAN, 2.0], &[3], &[1], 0, 0, &mut out, true);
        assert!(out.iter().all(|v| v.is_nan()));
        // a long row (more than one block of lanes) sums to one
        let xs: Vec<f32> = (0..5000).map(|i| (i % 13) as f32 * 0.3).collect();
        let mut o = vec![0.0f32; 5000];
        softmax(&xs, &[5000], &[1], 0, 0, &mut o, false);
        let s: f64 = o.iter().map(|&v| v as f64).sum();
        assert!((s - 1.0).abs() < 1e-5, "{s}");
    }
}
