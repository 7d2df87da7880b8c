//! Matrix-multiply kernels on slices + strides: `C = alpha * C + beta * (A @ B)` for a
//! batch of matrices.
//!
//! float32/float64 go through the `gemm` crate, which takes arbitrary row/column strides,
//! so transposed, step-sliced and expanded (stride 0) operands are read in place with no
//! packing copy on our side. int64 uses a simple cache-blocked loop with wrapping
//! arithmetic (PyTorch's integer matmul wraps on overflow too). Tiny products skip `gemm`
//! and use the same plain loop, because dispatch overhead dominates there.

use crate::dtype::Element;

/// Above this many multiply-adds (`m * n * k`) one product is split across threads with
/// `gemm`'s rayon parallelism; below it the calling thread does all the work.
/// Tuned roughly: a 64x64x64 product takes ~20 us single-threaded.
pub const PARALLEL_THRESHOLD: usize = 64 * 64 * 64;

/// Products with at most this many multiply-adds use the plain loop instead of `gemm`.
pub const SMALL_PRODUCT: usize = 512;

/// One matrix operand inside a storage: strides in elements for rows and columns.
/// (The element offset of each matrix in a batch is given separately.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatStrides {
    pub rs: isize,
    pub cs: isize,
}

/// Problem description for a batch of products `C[b] = alpha*C[b] + beta*A[b] @ B[b]`
/// where A is m x k, B is k x n and C is m x n.
#[derive(Clone, Copy, Debug)]
pub struct GemmSpec<T> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: MatStrides,
    pub b: MatStrides,
    pub c: MatStrides,
    /// Scale applied to the existing contents of C (only used when `read_c`).
    pub alpha: T,
    /// Scale applied to the product.
    pub beta: T,
    /// When false C is write-only (its old contents, even NaN, are ignored).
    pub read_c: bool,
}

/// Element types with a matrix-multiply kernel.
pub trait MatElem: Element {
    fn zero() -> Self;
    fn one() -> Self;
    /// `acc + a * b` (wrapping for integers).
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn add(a: Self, b: Self) -> Self;
    /// Runs one product with the `gemm` crate. Returns false if this type has no
    /// `gemm` path (the caller then uses the plain loop).
    ///
    /// # Safety
    /// All pointers plus the strides must stay inside their buffers for the given shape;
    /// `c` must not overlap `a` or `b` and must not have overlapping elements.
    unsafe fn gemm_raw(spec: &GemmSpec<Self>, a: *const Self, b: *const Self, c: *mut Self)
        -> bool;
}

/// Whether one product is big enough to split across ferric's pool.
fn parallel(m: usize, n: usize, k: usize) -> bool {
    m.saturating_mul(n).saturating_mul(k) >= PARALLEL_THRESHOLD && crate::threads::num_threads() > 1
}

macro_rules! float_mat_elem {
    ($t:ty) => {
        impl MatElem for $t {
            fn zero() -> Self {
                0.0
            }
            fn one() -> Self {
                1.0
            }
            #[inline(always)]
            fn mul_add(acc: Self, a: Self, b: Self) -> Self {
                acc + a * b
            }
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            unsafe fn gemm_raw(
                s: &GemmSpec<Self>,
                a: *const Self,
                b: *const Self,
                c: *mut Self,
            ) -> bool {
                let run = |a: usize, b: usize, c: usize, par: gemm::Parallelism| {
                    // SAFETY: the caller's contract on `a`, `b`, `c` (see the trait docs)
                    unsafe {
                        gemm::gemm(
                            s.m,
                            s.n,
                            s.k,
                            c as *mut Self,
                            s.c.cs,
                            s.c.rs,
                            s.read_c,
                            a as *const Self,
                            s.a.cs,
                            s.a.rs,
                            b as *const Self,
                            s.b.cs,
                            s.b.rs,
                            s.alpha,
                            s.beta,
                            false,
                            false,
                            false,
                            par,
                        )
                    }
                };
                let (a, b, c) = (a as usize, b as usize, c as usize);
                if parallel(s.m, s.n, s.k) {
                    // inside ferric's pool, `Rayon(0)` means "all of its workers"
                    crate::threads::install(|| run(a, b, c, gemm::Parallelism::Rayon(0)));
                } else {
                    run(a, b, c, gemm::Parallelism::None);
                }
                true
            }
        }
    };
}
float_mat_elem!(f32);
float_mat_elem!(f64);

impl MatElem for i64 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    #[inline(always)]
    fn mul_add(acc: Self, a: Self, b: Self) -> Self {
        acc.wrapping_add(a.wrapping_mul(b))
    }
    fn mul(a: Self, b: Self) -> Self {
        a.wrapping_mul(b)
    }
    fn add(a: Self, b: Self) -> Self {
        a.wrapping_add(b)
    }
    unsafe fn gemm_raw(_: &GemmSpec<Self>, _: *const Self, _: *const Self, _: *mut Self) -> bool {
        false
    }
}

/// One past the largest index a matrix with these strides touches from `offset`
/// (strides are never negative in ferric).
fn extent(offset: usize, rows: usize, cols: usize, s: MatStrides) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(offset);
    }
    let r = (rows - 1).checked_mul(s.rs.max(0) as usize)?;
    let c = (cols - 1).checked_mul(s.cs.max(0) as usize)?;
    offset.checked_add(r)?.checked_add(c)?.checked_add(1)
}

/// Runs `C[i] = alpha*C[i] + beta*(A[i] @ B[i])` for each `(a_off, b_off, c_off)` in
/// `offsets`. Returns false (doing nothing) if any matrix would reach outside its slice
/// or strides are negative — the ops layer builds valid layouts, so that is a bug guard,
/// never a panic.
pub fn gemm_batched<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    b: &[T],
    c: &mut [T],
    offsets: &[[usize; 3]],
) -> bool {
    let GemmSpec { m, n, k, .. } = *spec;
    let strides_ok = [spec.a, spec.b, spec.c]
        .iter()
        .all(|s| s.rs >= 0 && s.cs >= 0);
    if !strides_ok {
        return false;
    }
    if m == 0 || n == 0 {
        return true; // nothing is read or written
    }
    for &[ao, bo, co] in offsets {
        let fits =
            |off, rows, cols, s, len: usize| extent(off, rows, cols, s).is_some_and(|e| e <= len);
        // with k == 0 only C is touched
        let inputs_fit =
            k == 0 || (fits(ao, m, k, spec.a, a.len()) && fits(bo, k, n, spec.b, b.len()));
        if !(inputs_fit && fits(co, m, n, spec.c, c.len())) {
            return false;
        }
    }
    let small = m * n * k <= SMALL_PRODUCT;
    for &[ao, bo, co] in offsets {
        if k == 0 {
            scale_c(spec, c, co);
            continue;
        }
        // SAFETY: extents were checked above; `c` is a distinct mutable slice so it cannot
        // overlap `a` or `b`; the ops layer allocates C fresh with distinct elements.
        let done = !small
            && unsafe {
                T::gemm_raw(
                    spec,
                    a.as_ptr().add(ao),
                    b.as_ptr().add(bo),
                    c.as_mut_ptr().add(co),
                )
            };
        if done {
            continue;
        }
        if small {
            gemm_small(spec, a, ao, b, bo, c, co);
        } else {
            gemm_loop(spec, a, ao, b, bo, c, co);
        }
    }
    true
}

/// `C = alpha*C` (or zeros when C is write-only): the k == 0 case.
fn scale_c<T: MatElem>(spec: &GemmSpec<T>, c: &mut [T], co: usize) {
    for i in 0..spec.m {
        for j in 0..spec.n {
            let p = co + i * spec.c.rs as usize + j * spec.c.cs as usize;
            c[p] = if spec.read_c {
                T::mul(spec.alpha, c[p])
            } else {
                T::zero()
            };
        }
    }
}

/// Tiny products: one dot product per output element, no scratch buffers (batched
/// small matrices are dominated by per-call overhead, not arithmetic).
fn gemm_small<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    ao: usize,
    b: &[T],
    bo: usize,
    c: &mut [T],
    co: usize,
) {
    let (ars, acs) = (spec.a.rs as usize, spec.a.cs as usize);
    let (brs, bcs) = (spec.b.rs as usize, spec.b.cs as usize);
    let (crs, ccs) = (spec.c.rs as usize, spec.c.cs as usize);
    for i in 0..spec.m {
        for j in 0..spec.n {
            let mut acc = T::zero();
            for p in 0..spec.k {
                acc = T::mul_add(acc, a[ao + i * ars + p * acs], b[bo + p * brs + j * bcs]);
            }
            let q = co + i * crs + j * ccs;
            let v = T::mul(spec.beta, acc);
            c[q] = if spec.read_c {
                T::add(T::mul(spec.alpha, c[q]), v)
            } else {
                v
            };
        }
    }
}

/// Block sizes for the plain loop: a KC x NC panel of B (256 x 512 elements of 8 bytes =
/// 1 MiB) stays in L2 while every row of A streams past it.
const KC: usize = 256;
const NC: usize = 512;

/// The plain i-p-j loop with cache blocking over k and n. B is first packed into a
/// row-major panel when its rows are not unit-stride, so the inner loop is always a
/// contiguous axpy that the compiler vectorises.
fn gemm_loop<T: MatElem>(
    spec: &GemmSpec<T>,
    a: &[T],
    ao: usize,
    b: &[T],
    bo: usize,
    c: &mut [T],
    co: usize,
) {
    let GemmSpec { m, n, k, .. } = *spec;
    let (ars, acs) = (spec.a.rs as usize, spec.a.cs as usize);
    let (brs, bcs) = (spec.b.rs as usize, spec.b.cs as usize);
    let (crs, ccs) = (spec.c.rs as usize, spec.c.cs as usize);
    let mut acc = vec![T::zero(); n.min(NC)];
    let mut panel: Vec<T> = Vec::new();
    // The product of one column block is accumulated in `prod` (m x nb) and folded into C
    // once at the end, so C is read and scaled exactly once per element.
    let mut prod = vec![T::zero(); m * n.min(NC)];
    for j0 in (0..n).step_by(NC) {
        let nb = NC.min(n - j0);
        prod.iter_mut().for_each(|x| *x = T::zero());
        for p0 in (0..k).step_by(KC) {
            let kb = KC.min(k - p0);
            let packed = bcs != 1;
            if packed {
                panel.clear();
                for p in 0..kb {
                    let row = bo + (p0 + p) * brs + j0 * bcs;
                    panel.extend((0..nb).map(|j| b[row + j * bcs]));
                }
            }
            for i in 0..m {
                let acc = &mut acc[..nb];
                let dst = &mut prod[i * nb..(i + 1) * nb];
                acc.copy_from_slice(dst);
                for p in 0..kb {
                    let aip = a[ao + i * ars + (p0 + p) * acs];
                    let brow = if packed {
                        &panel[p * nb..(p + 1) * nb]
                    } else {
                        let s = bo + (p0 + p) * brs + j0;
                        &b[s..s + nb]
                    };
                    for (x, &y) in acc.iter_mut().zip(brow) {
                        *x = T::mul_add(*x, aip, y);
                    }
                }
                dst.copy_from_slice(acc);
            }
        }
        for i in 0..m {
            for j in 0..nb {
                let q = co + i * crs + (j0 + j) * ccs;
                let v = T::mul(spec.beta, prod[i * nb + j]);
                c[q] = if spec.read_c {
                    T::add(T::mul(spec.alpha, c[q]), v)
                } else {
                    v
                };
            }
        }
    }
}

/// Strided dot product `sum_i x[i] * y[i]`, accumulated in eight lanes (like a BLAS
/// `dot`) so the compiler can vectorise the unit-stride case.
pub fn dot<T: MatElem>(
    x: &[T],
    xo: usize,
    xs: usize,
    y: &[T],
    yo: usize,
    ys: usize,
    n: usize,
) -> T {
    let mut lanes = [T::zero(); 8];
    let full = n / 8 * 8;
    if xs == 1 && ys == 1 {
        let (xv, yv) = (&x[xo..xo + n], &y[yo..yo + n]);
        for (cx, cy) in xv[..full].chunks_exact(8).zip(yv[..full].chunks_exact(8)) {
            for l in 0..8 {
                lanes[l] = T::mul_add(lanes[l], cx[l], cy[l]);
            }
        }
    } else {
        for i in (0..full).step_by(8) {
            for (l, lane) in lanes.iter_mut().enumerate() {
                *lane = T::mul_add(*lane, x[xo + (i + l) * xs], y[yo + (i + l) * ys]);
            }
        }
    }
    let mut s = T::zero();
    for i in full..n {
        s = T::mul_add(s, x[xo + i * xs], y[yo + i * ys]);
    }
    let pair = |a: T, b: T| T::add(a, b);
    let l = lanes;
    let tail = pair(
        pair(pair(l[0], l[4]), pair(l[2], l[6])),
        pair(pair(l[1], l[5]), pair(l[3], l[7])),
    );
    T::add(tail, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Naive reference: C = alpha*C + beta*A@B with the same strides.
    #[allow(clippy::too_many_arguments)]
    fn naive(spec: &GemmSpec<f64>, a: &[f64], b: &[f64], c: &mut [f64], off: [usize; 3]) {
        for i in 0..spec.m {
            for j in 0..spec.n {
                let mut s = 0.0;
                for p in 0..spec.k {
                    s += a[off[0] + i * spec.a.rs as usize + p * spec.a.cs as usize]
                        * b[off[1] + p * spec.b.rs as usize + j * spec.b.cs as usize];
                }
                let q = off[2] + i * spec.c.rs as usize + j * spec.c.cs as usize;
                c[q] = if spec.read_c {
                    spec.alpha * c[q] + spec.beta * s
                } else {
                    spec.beta * s
                };
            }
        }
    }

    fn data(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 17) as f64 - 8.0
            })
            .collect()
    }

    fn check(m: usize, n: usize, k: usize, a_t: bool, b_t: bool, read_c: bool) {
        let a = data(m * k + 3, 1);
        let b = data(k * n + 5, 2);
        // A stored row-major (k cols) or as the transpose of a row-major k x m matrix.
        let sa = if a_t {
            MatStrides {
                rs: 1,
                cs: m as isize,
            }
        } else {
            MatStrides {
                rs: k as isize,
                cs: 1,
            }
        };
        let sb = if b_t {
            MatStrides {
                rs: 1,
                cs: k as isize,
            }
        } else {
            MatStrides {
                rs: n as isize,
                cs: 1,
            }
        };
        let sc = MatStrides {
            rs: n as isize,
            cs: 1,
        };
        let spec = GemmSpec {
            m,
            n,
            k,
            a: sa,
            b: sb,
            c: sc,
            alpha: 0.5,
            beta: 2.0,
            read_c,
        };
        let c0 = data(m * n, 3);
        let mut want = c0.clone();
        naive(&spec, &a, &b, &mut want, [3, 5, 0]);
        let mut got = c0.clone();
        assert!(gemm_batched(&spec, &a, &b, &mut got, &[[3, 5, 0]]));
        assert_eq!(got, want, "m={m} n={n} k={k} a_t={a_t} b_t={b_t}");
        // int64 through the blocked loop
        let ai: Vec<i64> = a.iter().map(|&x| x as i64).collect();
        let bi: Vec<i64> = b.iter().map(|&x| x as i64).collect();
        let ispec = GemmSpec {
            m,
            n,
            k,
            a: sa,
            b: sb,
            c: sc,
            alpha: 3,
            beta: 2,
            read_c,
        };
        let mut gi: Vec<i64> = c0.iter().map(|&x| x as i64).collect();
        assert!(gemm_batched(&ispec, &ai, &bi, &mut gi, &[[3, 5, 0]]));
        let mut wi = c0.clone();
        let fspec = GemmSpec { alpha: 3.0, ..spec };
        naive(&fspec, &a, &b, &mut wi, [3, 5, 0]);
        let wi: Vec<i64> = wi.iter().map(|&x| x as i64).collect();
        assert_eq!(gi, wi);
    }

    #[test]
    fn matches_naive_for_all_layouts() {
        for &(m, n, k) in &[
            (1, 1, 1),
            (3, 4, 5),
            (17, 9, 33),
            (70, 65, 300),
            (2, 600, 3),
        ] {
            for a_t in [false, true] {
                for b_t in [false, true] {
                    for read_c in [false, true] {
                        check(m, n, k, a_t, b_t, read_c);
                    }
                }
            }
        }
    }

    #[test]
    fn zero_inner_dim_gives_zeros_or_scaled_c() {
        let spec = GemmSpec {
            m: 2,
            n: 2,
            k: 0,
            a: MatStrides { rs: 0, cs: 1 },
            b: MatStrides { rs: 2, cs: 1 },
            c: MatStrides { rs: 2, cs: 1 },
            alpha: 2.0f32,
            beta: 1.0,
            read_c: true,
        };
        let mut c = vec![1.0f32; 4];
        assert!(gemm_batched(&spec, &[], &[], &mut c, &[[0, 0, 0]]));
        assert_eq!(c, vec![2.0; 4]);
        let spec = GemmSpec {
            read_c: false,
            ..spec
        };
        let mut c = vec![f32::NAN; 4];
        assert!(gemm_batched(&spec, &[], &[], &mut c, &[[0, 0, 0]]));
        assert_eq!(c, vec![0.0; 4]);
    }

    #[test]
    fn broadcast_operand_with_zero_strides() {
        // A is a single row expanded to 4 rows (row stride 0)
        let a = [1.0f64, 2.0, 3.0];
        let b: Vec<f64> = (0..6).map(|x| x as f64).collect(); // 3x2
        let spec = GemmSpec {
            m: 4,
            n: 2,
            k: 3,
            a: MatStrides { rs: 0, cs: 1 },
            b: MatStrides { rs: 2, cs: 1 },
            c: MatStrides { rs: 2, cs: 1 },
            alpha: 0.0,
            beta: 1.0,
            read_c: false,
        };
        let mut c = vec![0.0; 8];
        assert!(gemm_batched(&spec, &a, &b, &mut c, &[[0, 0, 0]]));
        assert_eq!(c, [16.0, 22.0].repeat(4));
    }

    #[test]
    fn out_of_bounds_is_refused() {
        let spec = GemmSpec {
            m: 2,
            n: 2,
            k: 2,
            a: MatStrides { rs: 2, cs: 1 },
            b: MatStrides { rs: 2, cs: 1 },
            c: MatStrides { rs: 2, cs: 1 },
            alpha: 0.0f64,
            beta: 1.0,
            read_c: false,
        };
        let mut c = vec![0.0; 4];
        assert!(!gemm_batched(
            &spec,
            &[0.0; 3],
            &[0.0; 4],
            &mut c,
            &[[0, 0, 0]]
        ));
    }

    #[test]
    fn dot_matches_sum() {
        let x: Vec<f64> = (0..37).map(|v| v as f64).collect();
        let y: Vec<f64> = (0..74).map(|v| (v % 5) as f64).collect();
        let want: f64 = (0..37).map(|i| x[i] * y[2 * i]).sum();
        assert_eq!(dot(&x, 0, 1, &y, 0, 2, 37), want);
        let xi: Vec<i64> = (0..20).collect();
        assert_eq!(
            dot(&xi, 0, 1, &xi, 0, 1, 20),
            (0..20).map(|v| v * v).sum::<i64>()
        );
    }
}
