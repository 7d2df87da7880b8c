//! Criterion benches for the fused nn kernels (cross entropy's nll, layer norm, batch
//! norm, embedding), forward and backward, one thread vs all. `cargo bench --bench nn`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use ferric::ops::nn::embed::{embedding_backward, embedding_forward};
use ferric::ops::nn::loss::{nll_backward, nll_forward, nll_plan};
use ferric::ops::nn::norm::{
    batch_norm_backward, batch_norm_forward, layer_norm_backward, layer_norm_forward,
};
use ferric::ops::nn::Reduction;
use ferric::ops::reduce as r;
use ferric::threads;
use ferric::{DType, Tensor};

mod common;
use common::{data, thread_counts};

fn tensor(shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_vec(data(n, seed), shape).expect("bench input")
}

fn cross_entropy(c: &mut Criterion) {
    let mut g = c.benchmark_group("cross_entropy");
    g.sample_size(20);
    for (n, k) in [(128usize, 10usize), (4096, 1000)] {
        let x = tensor(&[n, k], 1);
        let t = Tensor::from_vec((0..n as i64).map(|i| i * 7 % k as i64).collect(), &[n])
            .expect("target");
        let plan = nll_plan(&x, &t, None).expect("plan");
        let one = Tensor::from_vec(vec![1.0f32], &[]).expect("grad");
        for th in thread_counts() {
            threads::set_num_threads(th).expect("threads");
            // forward: log_softmax then nll; backward: nll then log_softmax
            g.bench_function(BenchmarkId::new(format!("fwd_bwd_{n}x{k}"), th), |b| {
                b.iter(|| {
                    let lp = r::softmax(black_box(&x), 1, None, true).expect("lsm");
                    let (l, tw) =
                        nll_forward(&lp, &t, None, &plan, Reduction::Mean, -100).expect("nll");
                    let gl = nll_backward(
                        &one,
                        &t,
                        None,
                        &plan,
                        Reduction::Mean,
                        -100,
                        tw,
                        &[n, k],
                        DType::F32,
                    )
                    .expect("nll bwd");
                    let gx = r::softmax_backward(&gl, &lp, 1, true).expect("lsm bwd");
                    (l, gx)
                })
            });
        }
    }
    g.finish();
}

fn norms(c: &mut Criterion) {
    let mut g = c.benchmark_group("norm");
    g.sample_size(20);
    let (m, k) = (4096usize, 1024usize);
    let x = tensor(&[m, k], 2);
    let w = tensor(&[k], 3);
    let gy = tensor(&[m, k], 4);
    let xb = tensor(&[32, 64, 28, 28], 5);
    let gb = tensor(&[32, 64, 28, 28], 6);
    for th in thread_counts() {
        threads::set_num_threads(th).expect("threads");
        g.bench_function(BenchmarkId::new("layer_norm_fwd_4096x1024", th), |b| {
            b.iter(|| layer_norm_forward(black_box(&x), m, k, Some(&w), Some(&w), 1e-5))
        });
        let (_, mean, rstd) = layer_norm_forward(&x, m, k, Some(&w), None, 1e-5).expect("ln");
        g.bench_function(BenchmarkId::new("layer_norm_bwd_4096x1024", th), |b| {
            b.iter(|| layer_norm_backward(&gy, &x, &mean, &rstd, Some(&w), k, [true; 3]))
        });
        let rm = Tensor::zeros("bench", &[64], DType::F32).expect("rm");
        let rv = Tensor::zeros("bench", &[64], DType::F32).expect("rv");
        g.bench_function(
            BenchmarkId::new("batch_norm_train_fwd_32x64x28x28", th),
            |b| {
                b.iter(|| {
                    batch_norm_forward(
                        black_box(&xb),
                        None,
                        None,
                        Some((&rm, &rv)),
                        true,
                        0.1,
                        1e-5,
                    )
                })
            },
        );
        let (_, saved) = batch_norm_forward(&xb, None, None, None, true, 0.1, 1e-5).expect("bn");
        g.bench_function(
            BenchmarkId::new("batch_norm_train_bwd_32x64x28x28", th),
            |b| b.iter(|| batch_norm_backward(&gb, &xb, None, &saved, true, [true; 3])),
        );
    }
    g.finish();
}

fn embedding(c: &mut Criterion) {
    let mut g = c.benchmark_group("embedding");
    g.sample_size(20);
    let w = tensor(&[30_000, 256], 7);
    let idx =
        Tensor::from_vec((0..8192i64).map(|i| i * 7919 % 30_000).collect(), &[8192]).expect("idx");
    let gy = tensor(&[8192, 256], 8);
    g.bench_function("fwd_8192x256", |b| {
        b.iter(|| embedding_forward(black_box(&w), &idx))
    });
    g.bench_function("bwd_8192x256", |b| {
        b.iter(|| embedding_backward(black_box(&gy), &idx, 30_000, None, false))
    });
    g.finish();
}

criterion_group!(benches, cross_entropy, norms, embedding);
criterion_main!(benches);
