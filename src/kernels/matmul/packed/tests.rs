//! The packed kernel against a float64 reference over the shapes that reach every path:
//! edge tiles in both directions, depths across blocks, row-major, transposed, stepped
//! and expanded operands, a strided C, the C update modes, and panel invariance.

use super::*;

fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(7);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// An operand layout: strides for a `rows x cols` matrix in a buffer of `len` floats.
#[derive(Clone, Copy, Debug)]
enum Layout {
    RowMajor,
    Transposed,
    /// every other row and column of a twice-as-large row-major matrix
    Stepped,
    /// one row repeated (row stride 0)
    Expanded,
}

fn layout(l: Layout, rows: usize, cols: usize) -> (MatStrides, usize) {
    let (rs, cs, len) = match l {
        Layout::RowMajor => (cols, 1, rows * cols),
        Layout::Transposed => (1, rows, rows * cols),
        Layout::Stepped => (4 * cols, 2, 4 * rows * cols),
        Layout::Expanded => (0, 1, cols),
    };
    (
        MatStrides {
            rs: rs as isize,
            cs: cs as isize,
        },
        len,
    )
}

fn get(v: &[f32], s: MatStrides, i: usize, j: usize) -> f64 {
    v[i * s.rs as usize + j * s.cs as usize] as f64
}

/// Runs the packed kernel and checks every element of C against a float64 sum.
#[allow(clippy::too_many_arguments)]
fn check(
    m: usize,
    n: usize,
    k: usize,
    la: Layout,
    lb: Layout,
    c_cols: usize,
    mode: (bool, f32, f32),
) {
    let (read_c, alpha, beta) = mode;
    let (sa, alen) = layout(la, m, k);
    let (sb, blen) = layout(lb, k, n);
    let (a, b) = (values(alen, 1), values(blen, 2));
    // C's columns `c_cols` apart (1: row-major)
    let sc = MatStrides {
        rs: (n * c_cols) as isize,
        cs: c_cols as isize,
    };
    let old = values(m * n * c_cols, 3);
    let mut c: Vec<MaybeUninit<f32>> = old.iter().map(|&v| MaybeUninit::new(v)).collect();
    let s = GemmSpec {
        m,
        n,
        k,
        a: sa,
        b: sb,
        c: sc,
        alpha,
        beta,
        read_c,
    };
    // SAFETY: AVX-512 is checked by the caller; the buffers cover the strides above
    unsafe { gemm(&s, (m, n), a.as_ptr(), b.as_ptr(), c.as_mut_ptr()) };
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k).map(|p| get(&a, sa, i, p) * get(&b, sb, p, j)).sum();
            let q = i * sc.rs as usize + j * sc.cs as usize;
            let want = if read_c {
                alpha as f64 * old[q] as f64 + beta as f64 * dot
            } else {
                beta as f64 * dot
            };
            // SAFETY: the kernel wrote every element of the m x n C
            let got = unsafe { c[q].assume_init() } as f64;
            let tol = 1e-5 * (k as f64 + 1.0);
            assert!(
                (got - want).abs() <= tol,
                "{m}x{n}x{k} {la:?} {lb:?} c_cols={c_cols} {mode:?}: C[{i},{j}] = {got}, want {want}"
            );
        }
        // untouched: the gaps of a strided C
        for j in 0..n {
            for g in 1..c_cols {
                let q = i * sc.rs as usize + j * c_cols + g;
                // SAFETY: initialised above and never written by the kernel
                assert_eq!(unsafe { c[q].assume_init() }, old[q]);
            }
        }
    }
}

/// Row-major strides for a matrix of `cols` columns.
fn row_major(cols: usize) -> MatStrides {
    MatStrides {
        rs: cols as isize,
        cs: 1,
    }
}

fn avx512() -> bool {
    is_x86_feature_detected!("avx512f")
}

#[test]
fn shapes_and_layouts_match_a_float64_sum() {
    if !avx512() {
        return;
    }
    let shapes = [
        (1, 1, 1),
        (12, 32, 16),
        (13, 33, 17),
        (11, 31, 15),
        (25, 70, 400),
        (40, 500, 33),
        (3, 600, 5),
    ];
    use Layout::*;
    for &(m, n, k) in &shapes {
        for la in [RowMajor, Transposed, Stepped, Expanded] {
            for lb in [RowMajor, Transposed, Stepped, Expanded] {
                check(m, n, k, la, lb, 1, (false, 0.0, 1.0));
            }
        }
    }
}

#[test]
fn c_update_modes_and_a_strided_c() {
    if !avx512() {
        return;
    }
    use Layout::*;
    for mode in [
        (false, 0.0, 1.0),
        (false, 0.0, -0.5),
        (true, 1.0, 1.0),
        (true, 0.25, 2.0),
        (true, 0.0, 1.0),
    ] {
        for c_cols in [1, 3] {
            // k = 800 spans three depth blocks: later blocks add to the first
            check(26, 70, 800, RowMajor, Transposed, c_cols, mode);
            check(12, 64, 20, Transposed, RowMajor, c_cols, mode);
        }
    }
}

#[test]
fn empty_depth_scales_or_zeroes_c() {
    if !avx512() {
        return;
    }
    check(
        5,
        40,
        0,
        Layout::RowMajor,
        Layout::RowMajor,
        1,
        (true, 0.5, 1.0),
    );
    check(
        5,
        40,
        0,
        Layout::RowMajor,
        Layout::RowMajor,
        1,
        (false, 0.0, 1.0),
    );
}

#[test]
fn write_only_c_ignores_nan_in_its_old_contents() {
    if !avx512() {
        return;
    }
    let (m, n, k) = (13, 40, 9);
    let (a, b) = (values(m * k, 4), values(k * n, 5));
    let mut c = vec![MaybeUninit::new(f32::NAN); m * n];
    let s = super::super::spec::<f32>((m, n, k), row_major(k), row_major(n), row_major(n));
    // SAFETY: checked AVX-512; contiguous buffers of the right sizes
    unsafe { gemm(&s, (m, n), a.as_ptr(), b.as_ptr(), c.as_mut_ptr()) };
    // SAFETY: every element written
    assert!(c.iter().all(|v| unsafe { v.assume_init() }.is_finite()));
}

/// Panels of C computed separately (as threads do) give the same bits as the whole.
#[test]
fn panels_match_the_whole_product_bitwise() {
    if !avx512() {
        return;
    }
    let (m, n, k) = (70, 1100, 500);
    let (a, b) = (values(m * k, 6), values(k * n, 7));
    let s = super::super::spec::<f32>((m, n, k), row_major(k), row_major(n), row_major(n));
    let run = |c: &mut [MaybeUninit<f32>], (i0, i1): (usize, usize), (j0, j1): (usize, usize)| {
        // SAFETY: checked AVX-512; the panel lies inside every buffer
        unsafe {
            gemm(
                &s,
                (i1 - i0, j1 - j0),
                a.as_ptr().add(i0 * k),
                b.as_ptr().add(j0),
                c.as_mut_ptr().add(i0 * n + j0),
            )
        }
    };
    let mut whole = vec![MaybeUninit::new(0.0f32); m * n];
    run(&mut whole, (0, m), (0, n));
    let mut cut = vec![MaybeUninit::new(0.0f32); m * n];
    for (j0, j1) in [(0, 336), (336, 700), (700, n)] {
        for (i0, i1) in [(0, 25), (25, m)] {
            run(&mut cut, (i0, i1), (j0, j1));
        }
    }
    // SAFETY: both fully written
    let bits = |v: &[MaybeUninit<f32>]| {
        v.iter()
            .map(|x| unsafe { x.assume_init() }.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&whole), bits(&cut));
}
