use super::*;
use std::cmp::Ordering;

/// PyTorch's value order, written plainly: NaN above everything, -0.0 == 0.0.
fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Reference: the rows of a strided view, each a Vec of (value, position).
fn ref_rows(
    src: &[f64],
    shape: &[usize],
    strides: &[isize],
    off: usize,
    dim: usize,
) -> Vec<Vec<f64>> {
    let n = shape.get(dim).copied().unwrap_or(1);
    let kept: Vec<usize> = (0..shape.len()).filter(|&d| d != dim).collect();
    let count: usize = if n == 0 {
        0
    } else {
        kept.iter().map(|&d| shape[d]).product()
    };
    (0..count)
        .map(|r| {
            let mut rem = r;
            let mut base = off;
            for &d in kept.iter().rev() {
                base += (rem % shape[d]) * strides[d] as usize;
                rem /= shape[d];
            }
            let step = strides.get(dim).copied().unwrap_or(0) as usize;
            (0..n).map(|j| src[base + j * step]).collect()
        })
        .collect()
}

/// A stable sort of (value, position) by value: the order every op here follows.
fn ref_sorted(row: &[f64], descending: bool) -> Vec<(f64, usize)> {
    let mut v: Vec<(f64, usize)> = row.iter().copied().zip(0..).collect();
    v.sort_by(|a, b| {
        let o = cmp_f64(a.0, b.0);
        if descending {
            o.reverse()
        } else {
            o
        }
    });
    v
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}

fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match (x >> 33) % 11 {
                0 => f64::NAN,
                1 => -0.0,
                2 => 0.0,
                3 => f64::INFINITY,
                4 => f64::NEG_INFINITY,
                v => ((x >> 40) % 5) as f64 - 2.0 + v as f64 * 0.0,
            }
        })
        .collect()
}

/// (shape, strides, offset) of views over a 60-element buffer: contiguous, transposed,
/// stepped, expanded (stride 0), zero-size, 0-d.
fn layouts() -> Vec<(Vec<usize>, Vec<isize>, usize)> {
    vec![
        (vec![3, 20], vec![20, 1], 0),
        (vec![20, 3], vec![1, 20], 0),
        (vec![4, 5, 3], vec![15, 3, 1], 0),
        (vec![2, 10], vec![30, 3], 1),
        (vec![4, 7], vec![0, 2], 2),
        (vec![7, 4], vec![2, 0], 2),
        (vec![0, 5], vec![5, 1], 0),
        (vec![5, 0], vec![1, 1], 0),
        (vec![], vec![], 7),
        (vec![300], vec![0], 5),
        (vec![60], vec![1], 0),
    ]
}

fn for_cases(mut f: impl FnMut(&[f64], &Rows, Vec<Vec<f64>>)) {
    let src = data(60, 3);
    for (shape, strides, off) in layouts() {
        for dim in 0..shape.len().max(1) {
            let rows = Rows::new(&shape, &strides, off, dim);
            let want = ref_rows(&src, &shape, &strides, off, dim);
            assert_eq!(rows.count(), want.len(), "{shape:?} dim {dim}");
            f(&src, &rows, want);
        }
    }
}

#[test]
fn keys_follow_pytorch_order() {
    let v = [
        f64::NEG_INFINITY,
        -2.5,
        -0.0,
        0.0,
        1e-300,
        3.0,
        f64::INFINITY,
        f64::NAN,
        -f64::NAN,
    ];
    for a in v {
        for b in v {
            assert_eq!(a.key().cmp(&b.key()), cmp_f64(a, b), "{a} vs {b}");
            let (x, y) = (a as f32, b as f32);
            assert_eq!(
                x.key().cmp(&y.key()),
                cmp_f64(x as f64, y as f64),
                "{x} vs {y}"
            );
        }
    }
    assert!(
        i64::MIN.key() < (-1i64).key() && (-1i64).key() < 0i64.key() && 0i64.key() < i64::MAX.key()
    );
    assert!(false.key() < true.key());
}

#[test]
fn sort_matches_stable_reference_on_layouts() {
    for desc in [false, true] {
        for_cases(|src, rows, want| {
            let len = rows.count() * rows.n;
            let (mut v, mut i) = (vec![0.0; len], vec![0i64; len]);
            sort(src, rows, desc, true, &mut v, &mut i);
            let (mut uv, mut ui) = (vec![0.0; len], vec![0i64; len]);
            sort(src, rows, desc, false, &mut uv, &mut ui);
            for (r, row) in want.iter().enumerate() {
                for (j, &(x, p)) in ref_sorted(row, desc).iter().enumerate() {
                    let o = r * rows.n + j;
                    assert!(same(v[o], x) && same(uv[o], x));
                    assert_eq!(i[o], p as i64);
                    assert!(same(row[ui[o] as usize], x));
                }
            }
        });
    }
}

#[test]
fn topk_is_a_prefix_of_the_stable_sort() {
    for largest in [true, false] {
        for_cases(|src, rows, want| {
            for k in [0, 1, 2, rows.n / 2, rows.n] {
                if k > rows.n {
                    continue;
                }
                let len = rows.count() * k;
                let (mut v, mut i) = (vec![0.0; len], vec![0i64; len]);
                topk(src, rows, k, largest, true, &mut v, &mut i);
                for (r, row) in want.iter().enumerate() {
                    let mut seen = vec![false; rows.n];
                    for (j, &(x, _)) in ref_sorted(row, largest).iter().take(k).enumerate() {
                        let p = i[r * k + j] as usize;
                        assert!(same(v[r * k + j], x) && same(row[p], x) && !seen[p]);
                        seen[p] = true;
                    }
                }
            }
        });
    }
}

#[test]
fn heap_topk_on_long_rows() {
    // long enough for the partial-sort (heap) path, with many ties and NaNs; strided too
    let src = data(10000, 9);
    for (rows, stride) in [
        (Rows::new(&[5000], &[1], 0, 0), 1),
        (Rows::new(&[5000], &[2], 1, 0), 2),
    ] {
        let row: Vec<f64> = (0..5000).map(|j| src[1 % stride + j * stride]).collect();
        let row = if stride == 1 {
            src[..5000].to_vec()
        } else {
            row
        };
        for k in [1, 5, 50, 78, 200] {
            for largest in [true, false] {
                let (mut v, mut i) = (vec![0.0; k], vec![0i64; k]);
                topk(&src, &rows, k, largest, true, &mut v, &mut i);
                for (j, &(x, _)) in ref_sorted(&row, largest).iter().take(k).enumerate() {
                    assert!(same(v[j], x) && same(row[i[j] as usize], x), "k {k} at {j}");
                }
            }
        }
    }
}

#[test]
fn select_picks_rank_median_and_mode() {
    for_cases(|src, rows, want| {
        let c = rows.count();
        let run = |pick| {
            let (mut v, mut i) = (vec![0.0; c], vec![0i64; c]);
            select(src, rows, pick, &mut v, &mut i);
            (v, i)
        };
        for k in [0, rows.n / 2, rows.n.saturating_sub(1)] {
            if k >= rows.n {
                continue;
            }
            // the value of rank k; among ties, PyTorch's pick (checked below)
            let (v, i) = run(Pick::Kth(k));
            for (r, row) in want.iter().enumerate() {
                let (x, _) = ref_sorted(row, false)[k];
                assert!(same(v[r], x) && same(row[i[r] as usize], x));
            }
        }
        let (v, i) = run(Pick::Median);
        for (r, row) in want.iter().enumerate() {
            let (x, p) = match row.iter().position(|x| x.is_nan()) {
                Some(p) => (f64::NAN, p),
                None => ref_sorted(row, false)[(row.len() - 1) / 2],
            };
            assert!(same(v[r], x) && i[r] == p as i64);
        }
        let (v, i) = run(Pick::NanMedian);
        for (r, row) in want.iter().enumerate() {
            let m = row.iter().filter(|x| !x.is_nan()).count();
            let (x, p) = if m == 0 {
                (f64::NAN, 0)
            } else {
                ref_sorted(row, false)[(m - 1) / 2]
            };
            assert!(same(v[r], x) && i[r] == p as i64);
        }
        let (v, i) = run(Pick::Mode);
        for (r, row) in want.iter().enumerate() {
            // most frequent (smallest on a tie), last position
            let s = ref_sorted(row, false);
            let mut best: Option<(usize, f64, usize)> = None;
            for &(x, _) in &s {
                let cnt = s.iter().filter(|q| cmp_f64(q.0, x).is_eq()).count();
                let last = s
                    .iter()
                    .filter(|q| cmp_f64(q.0, x).is_eq())
                    .map(|q| q.1)
                    .max()
                    .unwrap();
                if best.is_none_or(|b| cnt > b.0) {
                    best = Some((cnt, x, last));
                }
            }
            let (_, x, _) = best.unwrap();
            assert!(same(v[r], x) && same(row[i[r] as usize], x));
        }
    });
}

#[test]
fn parallel_rows_match_one_thread() {
    // many rows: the split across the pool must give the same bytes as one thread
    let src = data(64 * 3000, 5);
    let rows = Rows::new(&[64, 3000], &[3000, 1], 0, 1);
    let (mut v, mut i) = (vec![0.0; 64 * 3000], vec![0i64; 64 * 3000]);
    sort(&src, &rows, true, true, &mut v, &mut i);
    let (mut tv, mut ti) = (vec![0.0; 64 * 7], vec![0i64; 64 * 7]);
    topk(&src, &rows, 7, true, true, &mut tv, &mut ti);
    for r in 0..64 {
        let want = ref_sorted(&src[r * 3000..(r + 1) * 3000], true);
        for (j, &(x, p)) in want.iter().enumerate() {
            assert!(same(v[r * 3000 + j], x) && i[r * 3000 + j] == p as i64);
            if j < 7 {
                assert!(same(tv[r * 7 + j], x) && same(src[r * 3000 + ti[r * 7 + j] as usize], x));
            }
        }
    }
}

#[test]
fn integer_and_bool_rows() {
    let src: Vec<i64> = vec![3, -1, 3, i64::MIN, 0, i64::MAX, -1];
    let rows = Rows::new(&[7], &[1], 0, 0);
    let (mut v, mut i) = (vec![0i64; 7], vec![0i64; 7]);
    sort(&src, &rows, false, true, &mut v, &mut i);
    assert_eq!(v, vec![i64::MIN, -1, -1, 0, 3, 3, i64::MAX]);
    assert_eq!(i, vec![3, 1, 6, 4, 0, 2, 5]);
    let b = [true, false, true, false];
    let rows = Rows::new(&[4], &[1], 0, 0);
    let (mut v, mut i) = (vec![false; 4], vec![0i64; 4]);
    sort(&b, &rows, true, true, &mut v, &mut i);
    assert_eq!((v, i), (vec![true, true, false, false], vec![0, 2, 1, 3]));
    let (mut v, mut i) = (vec![0i64; 1], vec![0i64; 1]);
    select(
        &[5i64, 1, 1, 5, 2],
        &Rows::new(&[5], &[1], 0, 0),
        Pick::Mode,
        &mut v,
        &mut i,
    );
    assert_eq!((v[0], i[0]), (1, 2));
}

#[test]
fn kth_ties_follow_pytorch() {
    // torch.kthvalue(torch.tensor([1., 2, 2, 1, 2, 1, 3, 3]), k).indices, k = 1..8
    let src = [1.0f32, 2.0, 2.0, 1.0, 2.0, 1.0, 3.0, 3.0];
    let rows = Rows::new(&[8], &[1], 0, 0);
    let got: Vec<i64> = (0..8)
        .map(|k| {
            let (mut v, mut i) = ([0.0f32], [0i64]);
            select(&src, &rows, Pick::Kth(k), &mut v, &mut i);
            i[0]
        })
        .collect();
    assert_eq!(got, vec![5, 3, 0, 2, 1, 4, 6, 7]);
}

/// Indices PyTorch 2.13 returns for ties (torch.topk / torch.sort / torch.mode).
#[test]
fn tie_indices_follow_pytorch() {
    let t = [1.0f32, 2.0, 2.0, 1.0, 2.0, 1.0, 3.0, 3.0];
    let rows = Rows::new(&[8], &[1], 0, 0);
    let top = |k: usize, largest: bool| {
        let (mut v, mut i) = (vec![0.0f32; k], vec![0i64; k]);
        topk(&t, &rows, k, largest, true, &mut v, &mut i);
        i
    };
    assert_eq!(top(4, true), vec![7, 6, 4, 1]);
    assert_eq!(top(8, true), vec![7, 6, 4, 1, 2, 5, 3, 0]);
    assert_eq!(top(3, false), vec![5, 3, 0]);
    assert_eq!(top(6, false), vec![0, 5, 3, 1, 2, 4]);
    let nan = [3.0f32, 1.0, f32::NAN, 2.0, 1.0, f32::NAN, 3.0, 0.0];
    let (mut v, mut i) = (vec![0.0f32; 4], vec![0i64; 4]);
    topk(&nan, &rows, 4, true, true, &mut v, &mut i);
    assert_eq!(i, vec![5, 2, 0, 6]);
    // 200 elements, k = 3: the partial-sort (heap) path
    let y: Vec<f32> = (0..200).map(|i| ((i * 5) % 4) as f32).collect();
    let rows = Rows::new(&[200], &[1], 0, 0);
    let (mut v, mut i) = (vec![0.0f32; 3], vec![0i64; 3]);
    topk(&y, &rows, 3, true, true, &mut v, &mut i);
    assert_eq!(i, vec![11, 3, 7]);
    topk(&y, &rows, 3, false, true, &mut v, &mut i);
    assert_eq!(i, vec![8, 4, 0]);
    // an unstable sort of 20 elements (introsort, not insertion sort)
    let s: Vec<f32> = (0..20).map(|i| (((7 * i) % 20) % 3) as f32).collect();
    let rows = Rows::new(&[20], &[1], 0, 0);
    let (mut v, mut i) = (vec![0.0f32; 20], vec![0i64; 20]);
    sort(&s, &rows, false, false, &mut v, &mut i);
    let want = [
        18, 16, 5, 14, 7, 9, 0, 10, 19, 17, 12, 8, 3, 1, 11, 13, 6, 15, 4, 2,
    ];
    assert_eq!(i, want);
    sort(&s, &rows, true, false, &mut v, &mut i);
    let want = [
        2, 4, 15, 6, 13, 11, 10, 19, 17, 12, 8, 3, 1, 0, 9, 7, 14, 5, 16, 18,
    ];
    assert_eq!(i, want);
    let m: Vec<f32> = (0..30).map(|i| ((i * 7) % 5) as f32).collect();
    let (mut v, mut i) = ([0.0f32], [0i64]);
    select(
        &m,
        &Rows::new(&[30], &[1], 0, 0),
        Pick::Mode,
        &mut v,
        &mut i,
    );
    assert_eq!((v[0], i[0]), (0.0, 15));
}
