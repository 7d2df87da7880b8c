//! Criterion benches for elementwise unary and binary ops (float32) at 1e3, 1e5 and 1e7
//! elements, one thread vs all of ferric's pool, plus strided (transposed) inputs and
//! copies into a new layout.
//! Run with `cargo bench --bench elementwise`.
//!
//! The benches call the public `ops` entry points, not the kernels, so they measure what
//! a Python call pays below the binding: output allocation, layout dispatch, the kernel.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferric::memory_order::Order;
use ferric::ops::binary::{binary, binary_, BinaryOp, Operand};
use ferric::ops::unary::{unary, UnaryOp};
use ferric::{threads, DType, Scalar, Tensor};
use std::time::Duration;

mod common;
use common::{data, thread_counts};

fn vector(n: usize, seed: u64) -> Tensor {
    Tensor::from_vec(data(n, seed), &[n]).expect("bench input")
}

const SIZES: [usize; 3] = [1_000, 100_000, 10_000_000];

fn unary_ops(c: &mut Criterion) {
    let mut g = c.benchmark_group("unary_f32");
    for n in SIZES {
        let x = vector(n, 3);
        g.throughput(Throughput::Elements(n as u64));
        for t in thread_counts() {
            threads::set_num_threads(t).expect("threads");
            for (name, op) in [
                ("exp", UnaryOp::Exp),
                ("tanh", UnaryOp::Tanh),
                ("relu", UnaryOp::Relu),
            ] {
                g.bench_function(BenchmarkId::new(format!("{name}_{n}"), t), |b| {
                    b.iter(|| unary(op, black_box(&x)))
                });
            }
        }
    }
    // a transposed view: every run has stride 2500
    threads::set_num_threads(1).expect("threads");
    let m = Tensor::from_vec(data(10_000_000, 5), &[2500, 4000]).expect("bench input");
    let mt = m.transpose(0, 1).expect("view");
    g.throughput(Throughput::Elements(10_000_000));
    g.bench_function(BenchmarkId::new("exp_10000000_transposed", 1), |b| {
        b.iter(|| unary(UnaryOp::Exp, black_box(&mt)))
    });
    g.finish();
}

fn binary_ops(c: &mut Criterion) {
    let mut g = c.benchmark_group("binary_f32");
    for n in SIZES {
        let a = vector(n, 7);
        let bv = vector(n, 11);
        g.throughput(Throughput::Elements(n as u64));
        for t in thread_counts() {
            threads::set_num_threads(t).expect("threads");
            g.bench_function(BenchmarkId::new(format!("add_{n}"), t), |b| {
                b.iter(|| binary(BinaryOp::Add, Operand::T(black_box(&a)), Operand::T(&bv)))
            });
            g.bench_function(BenchmarkId::new(format!("mul_scalar_{n}"), t), |b| {
                b.iter(|| {
                    binary(
                        BinaryOp::Mul,
                        Operand::T(black_box(&a)),
                        Operand::S(Scalar::Float(1.5)),
                    )
                })
            });
            let d = vector(n, 13);
            g.bench_function(BenchmarkId::new(format!("add_inplace_{n}"), t), |b| {
                b.iter(|| binary_(BinaryOp::Add, black_box(&d), Operand::T(&bv)))
            });
        }
    }
    threads::set_num_threads(1).expect("threads");
    let m = Tensor::from_vec(data(10_000_000, 5), &[2500, 4000]).expect("bench input");
    let mt = m.transpose(0, 1).expect("view");
    let other = Tensor::from_vec(data(10_000_000, 9), &[4000, 2500]).expect("bench input");
    g.throughput(Throughput::Elements(10_000_000));
    g.bench_function(BenchmarkId::new("add_10000000_transposed", 1), |b| {
        b.iter(|| {
            binary(
                BinaryOp::Add,
                Operand::T(black_box(&mt)),
                Operand::T(&other),
            )
        })
    });
    g.finish();
}

/// Copies into a fresh layout (one thread): a contiguous clone, the contiguous copy of a
/// transposed matrix, and NCHW <-> channels-last conversions (the tiled transpose path).
fn copies(c: &mut Criterion) {
    let mut g = c.benchmark_group("copy_f32");
    threads::set_num_threads(1).expect("threads");
    let m = Tensor::from_vec(data(10_000_000, 5), &[2500, 4000]).expect("bench input");
    let mt = m.transpose(0, 1).expect("view");
    g.throughput(Throughput::Bytes(2 * 4 * 10_000_000));
    g.bench_function(BenchmarkId::new("clone_10000000", 1), |b| {
        b.iter(|| black_box(&m).copy_as(DType::F32))
    });
    g.bench_function(
        BenchmarkId::new("contiguous_of_transposed_10000000", 1),
        |b| b.iter(|| black_box(&mt).contiguous()),
    );
    let shape = [32, 64, 56, 56];
    let n: usize = shape.iter().product();
    let x = Tensor::from_vec(data(n, 7), &shape).expect("bench input");
    let cl = Order::channels_last(&shape);
    let xcl = x.copy_in(&cl, DType::F32).expect("channels last");
    g.throughput(Throughput::Bytes(2 * 4 * n as u64));
    g.bench_function(BenchmarkId::new("to_channels_last_32x64x56x56", 1), |b| {
        b.iter(|| black_box(&x).copy_in(&cl, DType::F32))
    });
    g.bench_function(BenchmarkId::new("from_channels_last_32x64x56x56", 1), |b| {
        b.iter(|| black_box(&xcl).contiguous())
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(15)
        .warm_up_time(Duration::from_millis(700))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = unary_ops, binary_ops, copies
}
criterion_main!(benches);
