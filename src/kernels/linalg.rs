//! Dense linear algebra on batches of row-major matrices, through `faer`.
//!
//! Every kernel takes `batch` matrices stored one after another (row-major, contiguous)
//! and writes fresh row-major outputs. The decompositions themselves are faer's (LU with
//! partial pivoting, Cholesky, Householder QR, SVD, the symmetric eigensolver, triangular
//! solves); this file only moves data in and out and reports per-matrix `info` codes the
//! way LAPACK does (0 = success), which the op layer turns into PyTorch's errors.
//!
//! faer runs sequentially (`Par::Seq`) inside each matrix: the batch is what gets split
//! across ferric's pool, and one large matrix runs on the calling thread with the host's
//! lock released.

use crate::threads;
use faer::linalg::solvers::{DenseSolveCore, SolveCore};
use faer::linalg::triangular_solve as tri;
use faer::{Mat, MatRef, Par, Side};
use rayon::prelude::*;

/// The float types the decompositions run in (PyTorch's linalg is float-only).
pub trait Real: faer::traits::RealField + Copy + Default + Send + Sync + 'static {
    fn to_f64(self) -> f64;
    fn of_f64(v: f64) -> Self;
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn of_f64(v: f64) -> Self {
        v as f32
    }
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn of_f64(v: f64) -> Self {
        v
    }
}

/// An `m x n` faer matrix holding the row-major matrix `a`.
fn load<T: Real>(a: &[T], m: usize, n: usize) -> Mat<T> {
    Mat::from_fn(m, n, |i, j| a[i * n + j])
}

/// Writes `x` row-major into `out` (of `x.nrows() * x.ncols()` elements).
fn store<T: Real>(x: MatRef<'_, T>, out: &mut [T]) {
    let n = x.ncols();
    for i in 0..x.nrows() {
        for j in 0..n {
            out[i * n + j] = x[(i, j)];
        }
    }
}

fn all_finite<T: Real>(a: &[T]) -> bool {
    a.iter().all(|v| v.to_f64().is_finite())
}

/// Runs `f(b, outs_b)` for every matrix `b < batch`, where `outs_b[i]` is matrix `b`'s
/// chunk (`outs[i].1` elements) of output buffer `i`; `f` returns the matrix's info code,
/// stored in `info[b]`. `work` is a rough count of flops per matrix: batches worth it are
/// split over ferric's pool, and long work runs with the host's lock released.
fn batched<T: Real>(
    batch: usize,
    work: usize,
    outs: Vec<(&mut [T], usize)>,
    info: &mut [i32],
    f: impl Fn(usize, &mut [&mut [T]]) -> i32 + Sync + Send,
) {
    let mut per: Vec<Vec<&mut [T]>> = (0..batch).map(|_| Vec::with_capacity(outs.len())).collect();
    for (buf, len) in outs {
        if len == 0 {
            for p in per.iter_mut() {
                p.push(&mut []);
            }
        } else {
            for (p, chunk) in per.iter_mut().zip(buf.chunks_mut(len)) {
                p.push(chunk);
            }
        }
    }
    let total = work.saturating_mul(batch);
    if batch > 1 && threads::worth_splitting(total) {
        threads::install(|| {
            per.into_par_iter()
                .zip(info.par_iter_mut())
                .enumerate()
                .for_each(|(b, (mut o, inf))| *inf = f(b, &mut o));
        });
    } else {
        threads::unlocked_if_long(total, || {
            for (b, (mut o, inf)) in per.into_iter().zip(info.iter_mut()).enumerate() {
                *inf = f(b, &mut o);
            }
        });
    }
}

/// LAPACK's `getrf` info: 1 + the first zero pivot of `U`, or 0.
fn zero_pivot<T: Real>(u: MatRef<'_, T>) -> i32 {
    (0..u.nrows())
        .find(|&i| u[(i, i)].to_f64() == 0.0)
        .map_or(0, |i| i as i32 + 1)
}

/// The sign of a permutation given as its forward array.
fn perm_sign(fwd: &[usize]) -> f64 {
    let mut seen = vec![false; fwd.len()];
    let mut sign = 1.0;
    for start in 0..fwd.len() {
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = fwd[i];
            len += 1;
        }
        if len % 2 == 0 {
            sign = -sign;
        }
    }
    sign
}

/// What [`det`] writes per matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetOut {
    /// `det` into the first output.
    Det,
    /// `(sign, log|det|)` into the two outputs.
    SignLog,
}

/// Determinants of `batch` `n x n` matrices from an LU factorization with partial
/// pivoting (as LAPACK's `getrf` + the product of `U`'s diagonal).
pub fn det<T: Real>(a: &[T], n: usize, batch: usize, mode: DetOut, o1: &mut [T], o2: &mut [T]) {
    let mut info = vec![0; batch];
    let outs = match mode {
        DetOut::Det => vec![(o1, 1)],
        DetOut::SignLog => vec![(o1, 1), (o2, 1)],
    };
    batched(batch, n * n * n, outs, &mut info, |b, o| {
        if n == 0 {
            // the empty product: det 1, log|det| 0
            o[0][0] = T::of_f64(1.0);
            if let Some(l) = o.get_mut(1) {
                l[0] = T::default();
            }
            return 0;
        }
        let m = load(&a[b * n * n..(b + 1) * n * n], n, n);
        let lu = m.partial_piv_lu();
        let (fwd, _) = lu.P().arrays();
        let sign = perm_sign(fwd);
        let u = lu.U();
        match mode {
            DetOut::Det => {
                let mut d = sign;
                for i in 0..n {
                    d *= u[(i, i)].to_f64();
                }
                o[0][0] = T::of_f64(d);
            }
            DetOut::SignLog => {
                let (mut s, mut l) = (sign, 0.0f64);
                for i in 0..n {
                    let v = u[(i, i)].to_f64();
                    if v < 0.0 {
                        s = -s;
                    }
                    l += v.abs().ln();
                }
                if l == f64::NEG_INFINITY {
                    s = 0.0;
                }
                if l.is_nan() {
                    s = f64::NAN;
                }
                o[0][0] = T::of_f64(s);
                o[1][0] = T::of_f64(l);
            }
        }
        0
    });
}

/// Inverses of `batch` `n x n` matrices; `info[b]` is `getrf`'s (1 + the first zero
/// pivot), and then the matrix's result is what the factorization gives (inf/nan).
pub fn inv<T: Real>(a: &[T], n: usize, batch: usize, out: &mut [T], info: &mut [i32]) {
    if n == 0 {
        return;
    }
    batched(batch, n * n * n, vec![(out, n * n)], info, |b, o| {
        let lu = load(&a[b * n * n..(b + 1) * n * n], n, n).partial_piv_lu();
        store(lu.inverse().as_ref(), o[0]);
        zero_pivot(lu.U())
    });
}

/// Solves `A_b X_b = B_b` for `batch` pairs (`A` is `n x n`, `B` is `n x k`).
pub fn solve<T: Real>(
    a: &[T],
    bm: &[T],
    (n, k, batch): (usize, usize, usize),
    out: &mut [T],
    info: &mut [i32],
) {
    if n == 0 || k == 0 {
        return;
    }
    batched(batch, n * n * (n + k), vec![(out, n * k)], info, |b, o| {
        let lu = load(&a[b * n * n..(b + 1) * n * n], n, n).partial_piv_lu();
        let code = zero_pivot(lu.U());
        let mut x = load(&bm[b * n * k..(b + 1) * n * k], n, k);
        if code == 0 {
            lu.solve_in_place_with_conj(faer::Conj::No, x.as_mut());
        } else {
            x.fill(T::of_f64(f64::NAN));
        }
        store(x.as_ref(), o[0]);
        code
    });
}

/// Cholesky factors of `batch` `n x n` matrices, read from their lower (or, with
/// `upper`, upper) triangle; writes `L` (or `U = L^T`) with zeros in the other triangle.
/// `info[b]` is `potrf`'s: the order of the first leading minor that is not positive
/// definite (the output is then zeros past that point).
pub fn cholesky<T: Real>(
    a: &[T],
    n: usize,
    batch: usize,
    upper: bool,
    out: &mut [T],
    info: &mut [i32],
) {
    if n == 0 {
        return;
    }
    batched(batch, n * n * n, vec![(out, n * n)], info, |b, o| {
        let src = &a[b * n * n..(b + 1) * n * n];
        // the lower triangle of A (or of A^T when reading the upper one)
        let m = Mat::from_fn(n, n, |i, j| {
            let (r, c) = if upper { (j, i) } else { (i, j) };
            if j <= i {
                src[r * n + c]
            } else {
                T::default()
            }
        });
        match m.llt(Side::Lower) {
            Ok(llt) => {
                let l = llt.L();
                // a NaN pivot fails as in LAPACK's potrf (`ajj <= 0 || isnan(ajj)`)
                if let Some(i) = (0..n).find(|&i| l[(i, i)].to_f64().is_nan()) {
                    o[0].fill(T::default());
                    return i as i32 + 1;
                }
                for i in 0..n {
                    for j in 0..n {
                        o[0][i * n + j] = if upper { l[(j, i)] } else { l[(i, j)] };
                    }
                }
                0
            }
            Err(faer::linalg::solvers::LltError::NonPositivePivot { index }) => {
                o[0].fill(T::default());
                index as i32 + 1
            }
        }
    });
}

/// Householder QR of `batch` `m x n` matrices. With `q` given, writes `Q` (`m x m` when
/// `complete`, else `m x k`, k = min(m, n)); `r` gets `R` (`m x n` when complete, else
/// `k x n`).
pub fn qr<T: Real>(
    a: &[T],
    (m, n, batch): (usize, usize, usize),
    complete: bool,
    q: Option<&mut [T]>,
    r: &mut [T],
) {
    let k = m.min(n);
    let (qc, rr) = if complete { (m, m) } else { (k, k) };
    let want_q = q.is_some();
    let mut outs = vec![(r, rr * n)];
    if let Some(q) = q {
        outs.push((q, m * qc));
    }
    let mut info = vec![0; batch];
    batched(batch, m * n * k, outs, &mut info, |b, o| {
        if k == 0 {
            // R is all zeros; a complete Q is the identity
            if let Some(q) = o.get_mut(1) {
                for i in 0..m.min(qc) {
                    q[i * qc + i] = T::of_f64(1.0);
                }
            }
            return 0;
        }
        let qr = load(&a[b * m * n..(b + 1) * m * n], m, n).qr();
        let rf = if complete { qr.R() } else { qr.thin_R() };
        store(rf, o[0]);
        if want_q {
            let qm = if complete {
                qr.compute_Q()
            } else {
                qr.compute_thin_Q()
            };
            store(qm.as_ref(), o[1]);
        }
        0
    });
}

/// `info` for a decomposition whose input held inf or NaN (PyTorch checks before LAPACK).
pub const NON_FINITE: i32 = -1;

/// SVD of `batch` `m x n` matrices: `s` gets the k = min(m, n) singular values in
/// decreasing order; with `uv` given, `U` (`m x m` when `full`, else `m x k`) and `Vh`
/// (`n x n` when `full`, else `k x n`). `info[b]` is [`NON_FINITE`] for inputs holding
/// inf/NaN, 1 when the iteration did not converge.
pub fn svd<T: Real>(
    a: &[T],
    (m, n, batch): (usize, usize, usize),
    full: bool,
    s: &mut [T],
    uv: Option<(&mut [T], &mut [T])>,
    info: &mut [i32],
) {
    let k = m.min(n);
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    let vectors = uv.is_some();
    let mut outs = vec![(s, k)];
    if let Some((u, vh)) = uv {
        outs.push((u, m * uc));
        outs.push((vh, vr * n));
    }
    batched(batch, m * n * k * 4, outs, info, |b, o| {
        if k == 0 {
            // no singular values; full U and Vh are identities
            for (buf, side) in o.iter_mut().skip(1).zip([m, n]) {
                if buf.len() == side * side {
                    for i in 0..side {
                        buf[i * side + i] = T::of_f64(1.0);
                    }
                }
            }
            return 0;
        }
        let src = &a[b * m * n..(b + 1) * m * n];
        if !all_finite(src) {
            o.iter_mut().for_each(|x| x.fill(T::of_f64(f64::NAN)));
            return NON_FINITE;
        }
        let x = load(src, m, n);
        if !vectors {
            return match x.singular_values() {
                Ok(v) => {
                    o[0].copy_from_slice(&v);
                    0
                }
                Err(_) => 1,
            };
        }
        let d = if full { x.svd() } else { x.thin_svd() };
        let Ok(d) = d else {
            return 1;
        };
        let sv = d.S().column_vector();
        for i in 0..k {
            o[0][i] = sv[i];
        }
        store(d.U(), o[1]);
        store(d.V().transpose(), o[2]);
        0
    });
}

/// Eigendecomposition of `batch` symmetric `n x n` matrices read from their lower (or
/// upper) triangle: eigenvalues ascending into `w`, eigenvectors as columns into `v`
/// when given. `info[b]` is 1 for inputs holding inf/NaN or when the iteration did not
/// converge.
pub fn eigh<T: Real>(
    a: &[T],
    n: usize,
    batch: usize,
    upper: bool,
    w: &mut [T],
    v: Option<&mut [T]>,
    info: &mut [i32],
) {
    let vectors = v.is_some();
    let mut outs = vec![(w, n)];
    if let Some(v) = v {
        outs.push((v, n * n));
    }
    let side = if upper { Side::Upper } else { Side::Lower };
    if n == 0 {
        return;
    }
    batched(batch, n * n * n * 4, outs, info, |b, o| {
        let src = &a[b * n * n..(b + 1) * n * n];
        // only the triangle that is read must be finite, as for LAPACK's syevd
        let finite = (0..n).all(|i| {
            (0..n)
                .all(|j| (if upper { j < i } else { j > i }) || src[i * n + j].to_f64().is_finite())
        });
        if !finite {
            o.iter_mut().for_each(|x| x.fill(T::of_f64(f64::NAN)));
            return 1;
        }
        let x = load(src, n, n);
        if !vectors {
            return match x.self_adjoint_eigenvalues(side) {
                Ok(vals) => {
                    o[0].copy_from_slice(&vals);
                    0
                }
                Err(_) => 1,
            };
        }
        let Ok(e) = x.self_adjoint_eigen(side) else {
            return 1;
        };
        let sv = e.S().column_vector();
        for i in 0..n {
            o[0][i] = sv[i];
        }
        store(e.U(), o[1]);
        0
    });
}

/// The flags of a triangular solve.
#[derive(Clone, Copy, Debug)]
pub struct Triangular {
    pub upper: bool,
    pub left: bool,
    pub unit: bool,
}

/// Solves `A X = B` (`left`) or `X A = B` with triangular `A` (`n x n`, only its
/// `upper`/lower triangle read, its diagonal taken as ones when `unit`) for `batch`
/// pairs; `B` and `X` are `n x k` (left) or `k x n`. A zero on the diagonal gives inf/nan,
/// as in LAPACK's `trtrs` without the check.
pub fn solve_triangular<T: Real>(
    a: &[T],
    bm: &[T],
    (n, k, batch): (usize, usize, usize),
    t: Triangular,
    out: &mut [T],
) {
    if n == 0 || k == 0 {
        return;
    }
    let mut info = vec![0; batch];
    batched(batch, n * n * k, vec![(out, n * k)], &mut info, |b, o| {
        let am = load(&a[b * n * n..(b + 1) * n * n], n, n);
        let src = &bm[b * n * k..(b + 1) * n * k];
        // X A = B  <=>  A^T X^T = B^T: solve with the transposed (other) triangle
        let (lhs, upper) = if t.left {
            (am.as_ref(), t.upper)
        } else {
            (am.as_ref().transpose(), !t.upper)
        };
        let mut x = if t.left {
            load(src, n, k)
        } else {
            Mat::from_fn(n, k, |i, j| src[j * n + i])
        };
        match (upper, t.unit) {
            (true, false) => tri::solve_upper_triangular_in_place(lhs, x.as_mut(), Par::Seq),
            (true, true) => tri::solve_unit_upper_triangular_in_place(lhs, x.as_mut(), Par::Seq),
            (false, false) => tri::solve_lower_triangular_in_place(lhs, x.as_mut(), Par::Seq),
            (false, true) => tri::solve_unit_lower_triangular_in_place(lhs, x.as_mut(), Par::Seq),
        }
        if t.left {
            store(x.as_ref(), o[0]);
        } else {
            for i in 0..n {
                for j in 0..k {
                    o[0][j * n + i] = x[(i, j)];
                }
            }
        }
        0
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn det_and_slogdet_of_a_permuted_matrix() {
        let a = [0.0f64, 2.0, 3.0, 0.0];
        let (mut d, mut none) = ([0.0; 1], [0.0; 1]);
        det(&a, 2, 1, DetOut::Det, &mut d, &mut none);
        assert!((d[0] + 6.0).abs() < 1e-12);
        let (mut s, mut l) = ([0.0; 1], [0.0; 1]);
        det(&a, 2, 1, DetOut::SignLog, &mut s, &mut l);
        assert_eq!(s[0], -1.0);
        assert!((l[0] - 6f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn inverse_reports_the_first_zero_pivot() {
        let a = [1.0f64, 2.0, 2.0, 4.0];
        let mut out = [0.0; 4];
        let mut info = [0; 1];
        inv(&a, 2, 1, &mut out, &mut info);
        assert_eq!(info[0], 2);
    }

    #[test]
    fn cholesky_of_an_spd_matrix_and_a_failing_one() {
        let a = [4.0f64, 2.0, 2.0, 3.0, 1.0, 2.0, 2.0, 1.0];
        let mut out = [0.0; 8];
        let mut info = [0; 2];
        cholesky(&a, 2, 2, false, &mut out, &mut info);
        assert_eq!(info, [0, 2]);
        assert!((out[0] - 2.0).abs() < 1e-12 && (out[2] - 1.0).abs() < 1e-12);
        assert_eq!(out[1], 0.0);
    }

    #[test]
    fn triangular_solve_right_side() {
        // X A = B with A upper [[2, 1], [0, 4]], B = [[2, 5]] -> X = [[1, 1]]
        let a = [2.0f64, 1.0, 0.0, 4.0];
        let bm = [2.0, 5.0];
        let mut out = [0.0; 2];
        let t = Triangular {
            upper: true,
            left: false,
            unit: false,
        };
        solve_triangular(&a, &bm, (2, 1, 1), t, &mut out);
        assert!((out[0] - 1.0).abs() < 1e-12 && (out[1] - 1.0).abs() < 1e-12);
    }
}
