use super::*;
use std::mem::MaybeUninit;

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
    let sa = if a_t { mat(1, m) } else { mat(k, 1) };
    let sb = if b_t { mat(1, k) } else { mat(n, 1) };
    let c0 = data(m * n, 3);
    let what = format!("m={m} n={n} k={k} a_t={a_t} b_t={b_t}");
    check_f64_and_i64((m, n, k), sa, sb, read_c, (&a, &b, &c0), [3, 5, 0], &what);
}

/// `C = 0.5 C + 2 A @ B` (or `2 A @ B`) against the naive loop, then the same in int64
/// (wrapping, with alpha 3) against the naive f64 result cast to int64.
fn check_f64_and_i64(
    mnk: (usize, usize, usize),
    sa: MatStrides,
    sb: MatStrides,
    read_c: bool,
    (a, b, c0): (&[f64], &[f64], &[f64]),
    off: [usize; 3],
    what: &str,
) {
    let sc = mat(mnk.1, 1);
    let spec = GemmSpec {
        alpha: 0.5,
        beta: 2.0,
        read_c,
        ..spec(mnk, sa, sb, sc)
    };
    let want = reference(&spec, a, b, c0, off);
    let mut got = c0.to_vec();
    assert!(gemm_batched(&spec, a, b, &mut got, &[off]));
    assert_eq!(got, want, "{what}");
    let ai: Vec<i64> = a.iter().map(|&x| x as i64).collect();
    let bi: Vec<i64> = b.iter().map(|&x| x as i64).collect();
    let ispec = GemmSpec {
        alpha: 3,
        beta: 2,
        read_c,
        ..super::spec(mnk, sa, sb, sc)
    };
    let mut gi: Vec<i64> = c0.iter().map(|&x| x as i64).collect();
    assert!(gemm_batched(&ispec, &ai, &bi, &mut gi, &[off]));
    let fspec = GemmSpec { alpha: 3.0, ..spec };
    let wi: Vec<i64> = reference(&fspec, a, b, c0, off)
        .iter()
        .map(|&x| x as i64)
        .collect();
    assert_eq!(gi, wi, "{what} (int64)");
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
        alpha: 2.0f32,
        read_c: true,
        ..spec((2, 2, 0), mat(0, 1), mat(2, 1), mat(2, 1))
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
fn broadcast_operand_with_zero_mat() {
    // A is a single row expanded to 4 rows (row stride 0)
    let a = [1.0f64, 2.0, 3.0];
    let b: Vec<f64> = (0..6).map(|x| x as f64).collect(); // 3x2
    let spec = GemmSpec {
        alpha: 0.0,
        ..spec((4, 2, 3), mat(0, 1), mat(2, 1), mat(2, 1))
    };
    let mut c = vec![0.0; 8];
    assert!(gemm_batched(&spec, &a, &b, &mut c, &[[0, 0, 0]]));
    assert_eq!(c, [16.0, 22.0].repeat(4));
}

#[test]
fn out_of_bounds_is_refused() {
    let spec = GemmSpec {
        alpha: 0.0f64,
        ..spec((2, 2, 2), mat(2, 1), mat(2, 1), mat(2, 1))
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

/// Naive reference for any m, n, k and strides (f64).
fn reference(spec: &GemmSpec<f64>, a: &[f64], b: &[f64], c0: &[f64], off: [usize; 3]) -> Vec<f64> {
    let mut c = c0.to_vec();
    naive(spec, a, b, &mut c, off);
    c
}

#[test]
fn matrix_vector_paths_match_naive() {
    // (m, n, k, a strides, b strides): row- and column-contiguous matrices, strided and
    // contiguous vectors, and a layout with no unit stride (back to the GEMM path)
    let cases: &[(usize, usize, usize, MatStrides, MatStrides)] = &[
        (19, 1, 37, mat(37, 1), mat(1, 1)),
        (19, 1, 37, mat(37, 1), mat(3, 1)),
        (19, 1, 37, mat(1, 19), mat(1, 1)),
        (19, 1, 37, mat(1, 19), mat(2, 1)),
        (19, 1, 37, mat(74, 2), mat(1, 1)),
        (1, 23, 41, mat(41, 1), mat(23, 1)),
        (1, 23, 41, mat(41, 2), mat(1, 41)),
        (1, 23, 41, mat(0, 1), mat(1, 41)),
        (1, 2100, 300, mat(300, 1), mat(1, 300)),
        (2100, 1, 300, mat(1, 2100), mat(1, 1)),
        (4, 1, 200, mat(200, 1), mat(1, 1)),
    ];
    for &(m, n, k, sa, sb) in cases {
        for read_c in [false, true] {
            let a = data(m * k * 2 + 5, 7);
            let b = data(k * n * 3 + 5, 8);
            let c0 = data(m * n, 9);
            let what = format!("m={m} n={n} k={k} {sa:?} {sb:?}");
            check_f64_and_i64((m, n, k), sa, sb, read_c, (&a, &b, &c0), [1, 2, 0], &what);
        }
    }
}

/// Runs `spec` over `nb` products into a NaN-filled "uninitialised" buffer.
fn batch_uninit(spec: &GemmSpec<f64>, nb: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let (m, n, k) = (spec.m, spec.n, spec.k);
    let offs: Vec<[usize; 3]> = (0..nb).map(|i| [i * m * k, i * k * n, i * m * n]).collect();
    let mut c = vec![MaybeUninit::new(f64::NAN); nb * m * n];
    assert!(gemm_batched_uninit(spec, a, b, &mut c, &offs));
    c.iter().map(|v| unsafe { v.assume_init() }).collect()
}

#[test]
fn batches_are_thread_count_independent_and_fully_written() {
    let before = crate::threads::num_threads();
    // tiny (loop), matrix-vector, small GEMM and int-free GEMM sizes
    for &(m, n, k, nb) in &[
        (3, 4, 5, 3000),
        (64, 1, 64, 100),
        (48, 40, 33, 60),
        (130, 70, 90, 3),
    ] {
        let a = data(nb * m * k, 1);
        let b = data(nb * k * n, 2);
        let spec = GemmSpec {
            m,
            n,
            k,
            a: mat(k, 1),
            b: mat(n, 1),
            c: mat(n, 1),
            alpha: 0.0,
            beta: 1.0,
            read_c: false,
        };
        crate::threads::set_num_threads(1).unwrap();
        let serial = batch_uninit(&spec, nb, &a, &b);
        crate::threads::set_num_threads(2).unwrap();
        let par = batch_uninit(&spec, nb, &a, &b);
        crate::threads::set_num_threads(before).unwrap();
        assert!(serial.iter().all(|v| !v.is_nan()), "unwritten elements");
        assert_eq!(serial, par, "m={m} n={n} k={k} nb={nb}");
        let want: Vec<f64> = (0..nb)
            .flat_map(|i| reference(&spec, &a, &b, &vec![0.0; m * n], [i * m * k, i * k * n, 0]))
            .collect();
        assert_eq!(serial, want);
    }
}

#[test]
fn uninit_refuses_read_c_and_writes_zeros_for_empty_inner_dim() {
    let mut spec = GemmSpec {
        m: 2,
        n: 3,
        k: 0,
        a: mat(0, 1),
        b: mat(3, 1),
        c: mat(3, 1),
        alpha: 1.0f64,
        beta: 1.0,
        read_c: true,
    };
    let mut c = vec![MaybeUninit::new(f64::NAN); 6];
    assert!(!gemm_batched_uninit(&spec, &[], &[], &mut c, &[[0, 0, 0]]));
    spec.read_c = false;
    assert!(gemm_batched_uninit(&spec, &[], &[], &mut c, &[[0, 0, 0]]));
    assert!(c.iter().all(|v| unsafe { v.assume_init() } == 0.0));
}

#[test]
fn overlapping_or_aliased_outputs_are_refused_or_serial() {
    // C with a zero row stride has overlapping elements: refused, never a race
    let spec = GemmSpec {
        m: 2,
        n: 2,
        k: 2,
        a: mat(2, 1),
        b: mat(2, 1),
        c: mat(0, 1),
        alpha: 0.0f64,
        beta: 1.0,
        read_c: false,
    };
    assert!(!gemm_batched(
        &spec,
        &[1.0; 4],
        &[1.0; 4],
        &mut [0.0; 4],
        &[[0, 0, 0]]
    ));
    assert!(distinct_elements(1, 3, mat(0, 1)));
    assert!(distinct_elements(3, 1, mat(1, 0)));
    assert!(!distinct_elements(3, 1, mat(0, 1)));
    assert!(distinct_elements(2, 3, mat(3, 1)));
    assert!(distinct_elements(2, 3, mat(1, 2)));
    assert!(!distinct_elements(2, 3, mat(2, 1)));
    // two batch entries writing the same C: runs serially (same values either way)
    let before = crate::threads::num_threads();
    crate::threads::set_num_threads(2).unwrap();
    let (m, k) = (80, 80);
    let a = data(m * k, 3);
    let spec = GemmSpec {
        m,
        n: m,
        k,
        a: mat(k, 1),
        b: mat(m, 1),
        c: mat(m, 1),
        alpha: 0.0,
        beta: 1.0,
        read_c: false,
    };
    let mut c = vec![0.0; m * m];
    let ok = gemm_batched(&spec, &a, &a, &mut c, &[[0, 0, 0]; 8]);
    crate::threads::set_num_threads(before).unwrap();
    assert!(ok);
    assert_eq!(c, reference(&spec, &a, &a, &vec![0.0; m * m], [0, 0, 0]));
}

#[test]
fn single_products_cut_into_panels_match_one_thread_bitwise() {
    let before = crate::threads::num_threads();
    // (m, n, k, threads, A transposed, B transposed, read_c): panels along the columns
    // (n >= m) and along the rows, 2 and 3 threads (uneven last panel), transposed
    // operands, and C read back with alpha
    for &(m, n, k, threads, a_t, b_t, read_c) in &[
        (150, 400, 40, 2, false, false, false),
        (300, 200, 40, 2, true, false, true),
        (300, 260, 48, 3, false, true, false),
        (100, 710, 50, 3, true, true, true),
    ] {
        let a = data(m * k, 3);
        let b = data(k * n, 4);
        let c0 = data(m * n, 5);
        let spec = GemmSpec {
            m,
            n,
            k,
            a: if a_t { mat(1, m) } else { mat(k, 1) },
            b: if b_t { mat(1, k) } else { mat(n, 1) },
            c: mat(n, 1),
            alpha: 0.5,
            beta: 1.5,
            read_c,
        };
        let run_with = |t| {
            crate::threads::set_num_threads(t).unwrap();
            let mut c = c0.clone();
            assert!(gemm_batched(&spec, &a, &b, &mut c, &[[0, 0, 0]]));
            c
        };
        let serial = run_with(1);
        let par = run_with(threads);
        crate::threads::set_num_threads(before).unwrap();
        assert!(panels(&spec, threads, true).is_some_and(|p| p.count == threads));
        assert_eq!(serial, par, "m={m} n={n} k={k} threads={threads}");
        let want = reference(&spec, &a, &b, &c0, [0, 0, 0]);
        for (x, y) in serial.iter().zip(&want) {
            assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{x} vs {y}");
        }
    }
}
