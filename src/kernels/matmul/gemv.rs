//! Matrix-vector products (`mv`, a vector times a matrix, `m == 1` or `n == 1` GEMMs)
//! and the strided dot product.
//!
//! A GEMM packs its operands into cache-sized panels because each element is reused many
//! times; in a matrix-vector product each matrix element is used once, so the fastest
//! thing is to stream the matrix exactly once in its storage order:
//! - rows contiguous: one dot product per row, four rows at a time (the vector is loaded
//!   once per four rows), with the vector copied to a contiguous buffer if strided;
//! - columns contiguous: `y += x[p] * column_p`, four columns at a time, over row blocks
//!   that stay in L1.
//!
//! Other layouts (both strides non-unit) go back to the GEMM path, which packs.
//! The loops are written so that the compiler vectorises them; `pulp` compiles them once
//! per instruction set (AVX-512, AVX2+FMA, baseline) and picks one at run time.

use super::{store, GemmSpec, MatElem, MatStrides, PARALLEL_THRESHOLD};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Accumulator lanes per dot product: one AVX-512 register of f32 (two of f64).
const LANES: usize = 16;

/// Rows per block in the column-contiguous kernel (the block of `y` stays in L1).
const ROW_BLOCK: usize = 1024;

/// Rows per parallel task (each task streams `rows x k` of the matrix).
const MIN_TASK_ROWS: usize = 64;

/// A matrix-vector problem `y = M @ x` read from one operand of a GEMM.
struct Mv<'a, T> {
    mat: &'a [T],
    /// offset of M[0, 0], row and column strides of M
    off: usize,
    rs: usize,
    cs: usize,
    rows: usize,
    k: usize,
}

/// Runs a GEMM with `m == 1` or `n == 1` as a matrix-vector product. Returns false
/// (doing nothing) for layouts these kernels do not cover. Bounds were checked by the
/// caller.
#[allow(clippy::too_many_arguments)]
pub(super) fn product<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    ao: usize,
    b: &[T],
    bo: usize,
    c: &mut [MaybeUninit<T>],
    co: usize,
    par: bool,
) -> bool {
    let us = |s: MatStrides| (s.rs as usize, s.cs as usize);
    let (ars, acs) = us(spec.a);
    let (brs, bcs) = us(spec.b);
    let (crs, ccs) = us(spec.c);
    // n == 1: y = A @ b[:, 0]; m == 1: y = B^T @ a[0, :] (a row vector times B)
    let (mv, x, xo, xs, ys) = if spec.n == 1 {
        let mv = Mv {
            mat: a,
            off: ao,
            rs: ars,
            cs: acs,
            rows: spec.m,
            k: spec.k,
        };
        (mv, b, bo, brs, crs)
    } else {
        let mv = Mv {
            mat: b,
            off: bo,
            rs: bcs,
            cs: brs,
            rows: spec.n,
            k: spec.k,
        };
        (mv, a, ao, acs, ccs)
    };
    if mv.cs != 1 && mv.rs != 1 {
        return false;
    }
    let mut y = vec![T::zero(); mv.rows];
    let par = par && mv.rows.saturating_mul(mv.k) >= 4 * PARALLEL_THRESHOLD;
    if mv.cs == 1 {
        // pack a strided vector once; every row reads all of it
        let packed: Vec<T>;
        let xv = if xs == 1 {
            &x[xo..xo + mv.k]
        } else {
            packed = (0..mv.k).map(|p| x[xo + p * xs]).collect();
            &packed
        };
        run_rows(&mv, &mut y, par, |r0, ys| dot_rows(&mv, xv, r0, ys));
    } else {
        run_rows(&mv, &mut y, par, |r0, ys| axpy_cols(&mv, x, xo, xs, r0, ys));
    }
    for (i, &v) in y.iter().enumerate() {
        store(spec, &mut c[co + i * ys], v);
    }
    true
}

/// Fills `y` (one entry per row of M) by `f(first_row, chunk)`, on the pool when `par`.
fn run_rows<T: MatElem>(
    mv: &Mv<'_, T>,
    y: &mut [T],
    par: bool,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    if !par {
        pulp::Arch::new().dispatch(|| f(0, y));
        return;
    }
    let threads = crate::threads::num_threads().max(1);
    let chunk = mv.rows.div_ceil(4 * threads).max(MIN_TASK_ROWS);
    crate::threads::install(|| {
        y.par_chunks_mut(chunk).enumerate().for_each(|(i, ys)| {
            pulp::Arch::new().dispatch(|| f(i * chunk, ys));
        })
    });
}

/// `y[i] = M[r0 + i, :] . x` for a row-contiguous M, four rows at a time.
#[inline(always)]
fn dot_rows<T: MatElem>(mv: &Mv<'_, T>, x: &[T], r0: usize, y: &mut [T]) {
    let k = mv.k;
    let row = |i: usize| {
        let s = mv.off + (r0 + i) * mv.rs;
        mv.mat.get(s..s + k).unwrap_or(&[])
    };
    let mut quads = y.chunks_exact_mut(4);
    let mut i = 0;
    for q in &mut quads {
        let d = dot4([row(i), row(i + 1), row(i + 2), row(i + 3)], x);
        q.copy_from_slice(&d);
        i += 4;
    }
    for v in quads.into_remainder() {
        *v = dot_contig(row(i), x);
        i += 1;
    }
}

/// Four dot products against the same `x`, each in `LANES` independent partial sums.
#[inline(always)]
fn dot4<T: MatElem>(r: [&[T]; 4], x: &[T]) -> [T; 4] {
    let mut acc = [[T::zero(); LANES]; 4];
    let chunks = x
        .chunks_exact(LANES)
        .zip(r[0].chunks_exact(LANES))
        .zip(r[1].chunks_exact(LANES))
        .zip(r[2].chunks_exact(LANES))
        .zip(r[3].chunks_exact(LANES));
    for ((((xc, c0), c1), c2), c3) in chunks {
        for l in 0..LANES {
            acc[0][l] = T::mul_add(acc[0][l], c0[l], xc[l]);
            acc[1][l] = T::mul_add(acc[1][l], c1[l], xc[l]);
            acc[2][l] = T::mul_add(acc[2][l], c2[l], xc[l]);
            acc[3][l] = T::mul_add(acc[3][l], c3[l], xc[l]);
        }
    }
    let full = x.len() / LANES * LANES;
    let mut out = [T::zero(); 4];
    for (o, (lanes, row)) in out.iter_mut().zip(acc.iter().zip(r)) {
        let mut s = reduce_lanes(lanes);
        for (&a, &b) in row.iter().zip(x).skip(full) {
            s = T::mul_add(s, a, b);
        }
        *o = s;
    }
    out
}

/// Pairwise sum of the lanes (a fixed order, so results do not depend on threads).
#[inline(always)]
fn reduce_lanes<T: MatElem>(lanes: &[T; LANES]) -> T {
    let mut v = *lanes;
    let mut w = LANES / 2;
    while w > 0 {
        for l in 0..w {
            v[l] = T::add(v[l], v[l + w]);
        }
        w /= 2;
    }
    v[0]
}

/// One contiguous dot product in `LANES` partial sums.
#[inline(always)]
fn dot_contig<T: MatElem>(a: &[T], b: &[T]) -> T {
    let mut acc = [T::zero(); LANES];
    for (ca, cb) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
        for l in 0..LANES {
            acc[l] = T::mul_add(acc[l], ca[l], cb[l]);
        }
    }
    let full = a.len().min(b.len()) / LANES * LANES;
    let mut s = reduce_lanes(&acc);
    for (&x, &y) in a.iter().zip(b).skip(full) {
        s = T::mul_add(s, x, y);
    }
    s
}

/// `y[i] = sum_p M[r0 + i, p] * x[p]` for a column-contiguous M: `y += x[p] * column`,
/// four columns per pass over a block of `y`.
#[inline(always)]
fn axpy_cols<T: MatElem>(mv: &Mv<'_, T>, x: &[T], xo: usize, xs: usize, r0: usize, y: &mut [T]) {
    let k = mv.k;
    let xv = |p: usize| x[xo + p * xs];
    let mut b0 = 0;
    for yb in y.chunks_mut(ROW_BLOCK) {
        let len = yb.len();
        let col = |p: usize| {
            let s = mv.off + (r0 + b0) + p * mv.cs;
            mv.mat.get(s..s + len).unwrap_or(&[])
        };
        let mut p = 0;
        while p + 4 <= k {
            let (x0, x1, x2, x3) = (xv(p), xv(p + 1), xv(p + 2), xv(p + 3));
            let cols = col(p)
                .iter()
                .zip(col(p + 1))
                .zip(col(p + 2))
                .zip(col(p + 3));
            for (yv, (((&a0, &a1), &a2), &a3)) in yb.iter_mut().zip(cols) {
                *yv = T::mul_add(
                    T::mul_add(T::mul_add(T::mul_add(*yv, a0, x0), a1, x1), a2, x2),
                    a3,
                    x3,
                );
            }
            p += 4;
        }
        while p < k {
            let xp = xv(p);
            for (yv, &a) in yb.iter_mut().zip(col(p)) {
                *yv = T::mul_add(*yv, a, xp);
            }
            p += 1;
        }
        b0 += len;
    }
}

/// Strided dot product `sum_i x[i] * y[i]` over `n` elements (bounds checked by the
/// caller), accumulated in `LANES` partial sums like a BLAS `dot`.
pub fn dot<T: MatElem>(
    x: &[T],
    xo: usize,
    xs: usize,
    y: &[T],
    yo: usize,
    ys: usize,
    n: usize,
) -> T {
    if xs == 1 && ys == 1 {
        let (xv, yv) = (&x[xo..xo + n], &y[yo..yo + n]);
        return pulp::Arch::new().dispatch(|| dot_contig(xv, yv));
    }
    let mut lanes = [T::zero(); LANES];
    let full = n / LANES * LANES;
    for i in (0..full).step_by(LANES) {
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane = T::mul_add(*lane, x[xo + (i + l) * xs], y[yo + (i + l) * ys]);
        }
    }
    let mut s = reduce_lanes(&lanes);
    for i in full..n {
        s = T::mul_add(s, x[xo + i * xs], y[yo + i * ys]);
    }
    s
}
