//! Criterion benches for 2-D convolution: forward, input gradient and weight gradient
//! of the ResNet-like case (32 x 64 x 56 x 56, 3x3, padding 1, 64 filters) and of a
//! LeNet-like first layer (64 x 1 x 28 x 28, 5x5, 6 filters), on one thread and on all.
//!
//! Run: `cargo bench --bench conv`. Throughput is in multiply-adds per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ferric::ops::conv::{plan, ConvArgs, Padding};
use ferric::Tensor;

mod common;
use common::thread_counts;

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

/// (name, input shape, weight shape, padding)
const CASES: &[(&str, [usize; 4], [usize; 4], i64)] = &[
    ("resnet_32x64x56x56_k3", [32, 64, 56, 56], [64, 64, 3, 3], 1),
    ("lenet_64x1x28x28_k5", [64, 1, 28, 28], [6, 1, 5, 5], 0),
];

fn conv2d(c: &mut Criterion) {
    let mut g = c.benchmark_group("conv2d");
    g.sample_size(10);
    for &(name, xs, ws, pad) in CASES {
        let (x, w, b) = (tensor(&xs, 1), tensor(&ws, 2), tensor(&ws[..1], 3));
        let args = ConvArgs {
            stride: vec![1],
            padding: Padding::Explicit(vec![pad]),
            dilation: vec![1],
            groups: 1,
            output_padding: vec![0],
        };
        let geom = plan("conv2d", 2, false, &x, &w, Some(&b), &args).expect("plan");
        let y = geom.conv(&x, &w, Some(&b)).expect("conv");
        let gy = tensor(y.shape(), 4);
        let (oh, ow) = (y.shape()[2], y.shape()[3]);
        let macs = xs[0] * ws[0] * oh * ow * ws[1] * ws[2] * ws[3];
        g.throughput(Throughput::Elements(macs as u64));
        for t in thread_counts() {
            ferric::threads::set_num_threads(t).expect("threads");
            g.bench_function(format!("{name}/forward/{t}t"), |bch| {
                bch.iter(|| black_box(geom.conv(&x, &w, Some(&b)).expect("conv")))
            });
            g.bench_function(format!("{name}/input_grad/{t}t"), |bch| {
                bch.iter(|| black_box(geom.conv_transpose(&gy, &w, None).expect("grad")))
            });
            g.bench_function(format!("{name}/weight_grad/{t}t"), |bch| {
                bch.iter(|| black_box(geom.weight_grad(&x, &gy).expect("grad")))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, conv2d);
criterion_main!(benches);
