//! Criterion benches for the matrix products: square float32 `matmul` 64..1024, a
//! transposed operand (`a @ b.T`, read in place), a batch of small products, matrix-vector
//! products and the fused `linear`, each on one thread and on all of ferric's threads.
//!
//! `fma_peak` measures the core's float32 FMA throughput, the ceiling the GEMM rows are
//! quoted against.
//!
//! Run: `cargo bench --bench matmul` (add `-- square` etc. to filter). Throughput is
//! reported in multiply-adds ("elements") per second; GFLOP/s = 2 x that.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferric::Tensor;

mod common;
use common::thread_counts;

/// Deterministic values in [-1, 1) (the benches need no real randomness).
fn tensor(shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    let v: Vec<f32> = (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect();
    Tensor::from_vec(v, shape).expect("bench tensor")
}

/// One thread, then every thread the machine offers.
fn square(c: &mut Criterion) {
    let mut g = c.benchmark_group("square");
    for &n in &[64usize, 128, 256, 512, 1024] {
        let (a, b) = (tensor(&[n, n], 1), tensor(&[n, n], 2));
        g.throughput(Throughput::Elements((n * n * n) as u64));
        if n >= 512 {
            g.sample_size(10);
        }
        for t in thread_counts() {
            ferric::threads::set_num_threads(t).expect("threads");
            g.bench_with_input(BenchmarkId::new(format!("{t}t"), n), &n, |bch, _| {
                bch.iter(|| black_box(a.matmul(&b).expect("matmul")))
            });
        }
    }
    g.finish();
}

fn transposed(c: &mut Criterion) {
    let mut g = c.benchmark_group("rhs_transposed");
    g.sample_size(10);
    let n = 1024;
    let (a, b) = (tensor(&[n, n], 3), tensor(&[n, n], 4));
    let bt = b.t().expect("t");
    g.throughput(Throughput::Elements((n * n * n) as u64));
    for t in thread_counts() {
        ferric::threads::set_num_threads(t).expect("threads");
        g.bench_function(format!("{t}t/1024"), |bch| {
            bch.iter(|| black_box(a.matmul(&bt).expect("matmul")))
        });
    }
    g.finish();
}

fn batched(c: &mut Criterion) {
    let mut g = c.benchmark_group("batched");
    for &(bs, n) in &[(64usize, 128usize), (512, 32)] {
        let (a, b) = (tensor(&[bs, n, n], 5), tensor(&[bs, n, n], 6));
        g.throughput(Throughput::Elements((bs * n * n * n) as u64));
        for t in thread_counts() {
            ferric::threads::set_num_threads(t).expect("threads");
            g.bench_function(format!("{t}t/{bs}x{n}x{n}"), |bch| {
                bch.iter(|| black_box(a.matmul(&b).expect("matmul")))
            });
        }
    }
    g.finish();
}

fn matrix_vector(c: &mut Criterion) {
    let mut g = c.benchmark_group("mv");
    for &n in &[1024usize, 4096] {
        let (a, v) = (tensor(&[n, n], 7), tensor(&[n], 8));
        let at = a.t().expect("t");
        g.throughput(Throughput::Elements((n * n) as u64));
        for t in thread_counts() {
            ferric::threads::set_num_threads(t).expect("threads");
            g.bench_function(format!("{t}t/rows/{n}"), |bch| {
                bch.iter(|| black_box(a.mv(&v).expect("mv")))
            });
            g.bench_function(format!("{t}t/cols/{n}"), |bch| {
                bch.iter(|| black_box(at.mv(&v).expect("mv")))
            });
        }
    }
    g.finish();
}

fn linear(c: &mut Criterion) {
    let mut g = c.benchmark_group("linear");
    // an MLP layer: (batch, in) @ (out, in).T + bias, and the same with 3-D input
    let (x, w, b) = (
        tensor(&[256, 512], 9),
        tensor(&[1024, 512], 10),
        tensor(&[1024], 11),
    );
    let x3 = tensor(&[8, 32, 512], 12);
    g.throughput(Throughput::Elements((256 * 512 * 1024) as u64));
    for t in thread_counts() {
        ferric::threads::set_num_threads(t).expect("threads");
        g.bench_function(format!("{t}t/2d"), |bch| {
            bch.iter(|| black_box(x.linear(&w, Some(&b)).expect("linear")))
        });
        g.bench_function(format!("{t}t/3d"), |bch| {
            bch.iter(|| black_box(x3.linear(&w, Some(&b)).expect("linear")))
        });
    }
    g.finish();
}

/// The machine's float32 FMA peak on one core, the yardstick for the GEMM figures: 24
/// independent chains of 16-lane fused multiply-adds (enough to cover the FMA latency on
/// both ports), nothing else. Throughput is in multiply-adds; GFLOP/s = 2 x that.
#[cfg(target_arch = "x86_64")]
fn fma_peak(c: &mut Criterion) {
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    fn chains(rounds: usize, x: f32) -> f32 {
        let mut acc = [_mm512_set1_ps(0.5); 24];
        let (m, a) = (_mm512_set1_ps(x), _mm512_set1_ps(1e-7));
        for _ in 0..rounds {
            for v in acc.iter_mut() {
                *v = _mm512_fmadd_ps(*v, m, a);
            }
        }
        let s = acc
            .iter()
            .fold(_mm512_setzero_ps(), |s, v| _mm512_add_ps(s, *v));
        _mm512_reduce_add_ps(s)
    }

    if !is_x86_feature_detected!("avx512f") {
        return;
    }
    let rounds = 100_000;
    let mut g = c.benchmark_group("fma_peak");
    g.throughput(Throughput::Elements((rounds * 24 * 16) as u64));
    g.bench_function("avx512_1t", |bch| {
        // SAFETY: AVX-512F was detected above
        bch.iter(|| black_box(unsafe { chains(black_box(rounds), black_box(0.999_999)) }))
    });
    g.finish();
}

#[cfg(not(target_arch = "x86_64"))]
fn fma_peak(_: &mut Criterion) {}

criterion_group!(
    benches,
    square,
    transposed,
    batched,
    matrix_vector,
    linear,
    fma_peak
);
criterion_main!(benches);
