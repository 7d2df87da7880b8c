//! Criterion benches for the reduction and softmax kernels: contiguous vs strided
//! layouts, one thread vs all of ferric's pool. Run with `cargo bench --bench reduce`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferric::ops::reduce as r;
use ferric::threads;
use ferric::Tensor;

mod common;
use common::{data, thread_counts};

fn matrix(rows: usize, cols: usize) -> Tensor {
    Tensor::from_vec(data(rows * cols, 7), &[rows, cols]).expect("bench input")
}

fn sums(c: &mut Criterion) {
    let mut g = c.benchmark_group("sum");
    g.sample_size(20);
    let flat = Tensor::from_vec(data(16_000_000, 3), &[16_000_000]).expect("bench input");
    let m = matrix(4096, 4096);
    let mt = m.transpose(0, 1).expect("view");
    let stepped = matrix(4096, 8192).slice(1, 0, 8192, 2).expect("view");
    g.throughput(Throughput::Bytes(4 * 16_000_000));
    for t in thread_counts() {
        threads::set_num_threads(t).expect("threads");
        g.bench_function(BenchmarkId::new("all_16e6", t), |b| {
            b.iter(|| r::sum(black_box(&flat), None, false, None))
        });
    }
    g.throughput(Throughput::Bytes(4 * 4096 * 4096));
    for t in thread_counts() {
        threads::set_num_threads(t).expect("threads");
        for (name, x) in [
            ("contiguous", &m),
            ("transposed", &mt),
            ("stepped", &stepped),
        ] {
            g.bench_function(
                BenchmarkId::new(format!("lastdim_4096x4096_{name}"), t),
                |b| b.iter(|| r::sum(black_box(x), Some(&[-1]), false, None)),
            );
        }
        g.bench_function(BenchmarkId::new("dim0_4096x4096", t), |b| {
            b.iter(|| r::sum(black_box(&m), Some(&[0]), false, None))
        });
        g.bench_function(BenchmarkId::new("all_4096x4096_transposed", t), |b| {
            b.iter(|| r::sum(black_box(&mt), None, false, None))
        });
    }
    g.finish();
}

fn softmaxes(c: &mut Criterion) {
    let mut g = c.benchmark_group("softmax");
    g.sample_size(20);
    let m = matrix(4096, 1024);
    let mt = matrix(1024, 4096).transpose(0, 1).expect("view");
    g.throughput(Throughput::Bytes(2 * 4 * 4096 * 1024));
    for t in thread_counts() {
        threads::set_num_threads(t).expect("threads");
        for log in [false, true] {
            let name = if log { "log_softmax" } else { "softmax" };
            g.bench_function(
                BenchmarkId::new(format!("{name}_lastdim_contiguous"), t),
                |b| b.iter(|| r::softmax(black_box(&m), -1, None, log)),
            );
            g.bench_function(
                BenchmarkId::new(format!("{name}_lastdim_transposed"), t),
                |b| b.iter(|| r::softmax(black_box(&mt), -1, None, log)),
            );
            g.bench_function(
                BenchmarkId::new(format!("{name}_dim0_contiguous"), t),
                |b| b.iter(|| r::softmax(black_box(&m), 0, None, log)),
            );
        }
        let y = r::softmax(&m, -1, None, false).expect("softmax");
        g.bench_function(BenchmarkId::new("softmax_backward_lastdim", t), |b| {
            b.iter(|| r::softmax_backward(black_box(&m), black_box(&y), 1, false))
        });
    }
    g.finish();
}

criterion_group!(benches, sums, softmaxes);
criterion_main!(benches);
