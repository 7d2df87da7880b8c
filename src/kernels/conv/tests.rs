//! The GEMM-based convolution products against a direct 7-loop reference, and the
//! adjoint identities `<A(x,w), y> = <x, B(y,w)> = <w, C(x,y)>` they must satisfy.

use super::*;

fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) % 19) as f64 - 9.0
        })
        .collect()
}

fn axis(input: usize, kernel: usize, stride: usize, pad: usize, dilation: usize) -> Axis {
    let span = dilation * (kernel - 1) + 1;
    Axis {
        input,
        output: (input + 2 * pad - span) / stride + 1,
        kernel,
        stride,
        pad,
        dilation,
    }
}

/// Direct convolution over contiguous x (n, c, h, w) and w (oc, c/g, kh, kw).
fn reference(d: &ConvDims, x: &[f64], w: &[f64]) -> Vec<f64> {
    let (h, wa) = (d.h, d.w);
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    let mut out = vec![0.0; d.n * d.oc * d.l()];
    for n in 0..d.n {
        for o in 0..d.oc {
            let g = o / ocg;
            for oh in 0..h.output {
                for ow in 0..wa.output {
                    let mut s = 0.0;
                    for ci in 0..cg {
                        let c = g * cg + ci;
                        for ki in 0..h.kernel {
                            for kj in 0..wa.kernel {
                                let (ih, iw) = (h.at(oh, ki), wa.at(ow, kj));
                                if ih < 0
                                    || iw < 0
                                    || ih >= h.input as isize
                                    || iw >= wa.input as isize
                                {
                                    continue;
                                }
                                let xv = x[((n * d.c + c) * h.input + ih as usize) * wa.input
                                    + iw as usize];
                                let wv = w[((o * cg + ci) * h.kernel + ki) * wa.kernel + kj];
                                s += xv * wv;
                            }
                        }
                    }
                    out[((n * d.oc + o) * h.output + oh) * wa.output + ow] = s;
                }
            }
        }
    }
    out
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn check(d: ConvDims) {
    let xn = d.n * d.c * d.h.input * d.w.input;
    let wn = d.oc * d.k();
    let yn = d.n * d.oc * d.l();
    let (x, w, y) = (data(xn, 1), data(wn, 2), data(yn, 3));
    let xi = Image::contiguous(d.c, d.h.input, d.w.input);
    let yi = Image::contiguous(d.oc, d.h.output, d.w.output);

    let mut a = vec![0.0; yn];
    assert!(conv_forward(&d, &x, &xi, &w, 0, None, &mut a));
    assert_eq!(a, reference(&d, &x, &w), "{d:?}");

    let mut b = vec![0.0; xn];
    assert!(conv_input_grad(&d, &y, &yi, 1, &w, 0, None, &mut b));
    let mut c = vec![0.0; wn];
    assert!(conv_weight_grad(&d, &x, &xi, &y, &yi, 1, &mut c));
    let lhs = dot(&a, &y);
    assert_eq!(lhs, dot(&x, &b), "B is not the adjoint of A: {d:?}");
    assert_eq!(lhs, dot(&w, &c), "C is not the adjoint of A: {d:?}");
}

#[test]
fn products_match_reference_and_are_adjoint() {
    let base = ConvDims {
        n: 2,
        c: 4,
        oc: 6,
        groups: 1,
        h: axis(7, 3, 1, 1, 1),
        w: axis(6, 3, 1, 1, 1),
    };
    check(base);
    check(ConvDims { groups: 2, ..base });
    check(ConvDims {
        c: 4,
        oc: 4,
        groups: 4,
        ..base
    });
    check(ConvDims {
        h: axis(9, 3, 2, 1, 2),
        w: axis(8, 2, 3, 0, 1),
        ..base
    });
    // 1x1 kernels take the direct (no im2col) path, with and without stride
    check(ConvDims {
        h: axis(5, 1, 1, 0, 1),
        w: axis(4, 1, 1, 0, 1),
        ..base
    });
    check(ConvDims {
        h: axis(5, 1, 2, 0, 1),
        w: axis(7, 1, 3, 0, 1),
        ..base
    });
    // 1-d: unit height
    check(ConvDims {
        h: axis(1, 1, 1, 0, 1),
        w: axis(11, 4, 2, 2, 1),
        ..base
    });
}

#[test]
fn tiles_split_long_rows() {
    // enough output positions for several im2col tiles
    let d = ConvDims {
        n: 1,
        c: 3,
        oc: 2,
        groups: 1,
        h: axis(40, 3, 1, 1, 1),
        w: axis(300, 3, 1, 1, 1),
    };
    let (t, _) = tiles::<f64>(d.n, d.k(), d.l());
    assert!(t.len() > 1 && !t[0].multi());
    check(d);
}

#[test]
fn small_images_are_batched() {
    let d = ConvDims {
        n: 7,
        c: 3,
        oc: 4,
        groups: 1,
        h: axis(5, 3, 1, 1, 1),
        w: axis(4, 2, 2, 1, 1),
    };
    let (t, _) = tiles::<f64>(d.n, d.k(), d.l());
    assert!(t[0].multi());
    check(d);
    check(ConvDims {
        groups: 3,
        oc: 6,
        ..d
    });
}

#[test]
fn valid_ranges() {
    let a = axis(5, 3, 2, 1, 1); // outputs 0..3
    assert_eq!(a.output, 3);
    assert_eq!(a.valid(0), (1, 3)); // o=0 reads -1
    assert_eq!(a.valid(2), (0, 2)); // o=2 reads 5
}

#[test]
fn wide_paths_match_reference() {
    let base = ConvDims {
        n: 2,
        c: 64,
        oc: 6,
        groups: 1,
        h: axis(7, 3, 1, 1, 1),
        w: axis(6, 3, 1, 1, 1),
    };
    // shifted GEMMs (64 channels per group) and materialised rows (fewer)
    for c in [64, 5] {
        let d = ConvDims { c, ..base };
        check(d);
        check(ConvDims {
            n: 3,
            groups: 2,
            c: 2 * c,
            h: axis(8, 2, 1, 0, 2),
            w: axis(9, 3, 1, 2, 2),
            ..d
        });
        // pad beyond the kernel's reach: the transposed geometry crops
        check(ConvDims {
            h: axis(4, 2, 1, 3, 1),
            w: axis(5, 3, 1, 4, 1),
            ..d
        });
        // row tiles within one large image
        check(ConvDims {
            n: 1,
            h: axis(40, 3, 1, 1, 1),
            w: axis(300, 3, 1, 1, 1),
            ..d
        });
    }
}

#[test]
fn max_pool_nan_and_ties_follow_pytorch() {
    use super::pool::{max_pool2d, Planes};
    // one 2x4 plane, 2x2 windows: [1, 3 | 3, 1] ties -> first; [nan, 5 | 7, nan] -> last NaN
    let x = [1.0f64, 3.0, f64::NAN, 5.0, 3.0, 1.0, 7.0, f64::NAN];
    let (h, w) = (axis(2, 2, 2, 0, 1), axis(4, 2, 2, 0, 1));
    let (mut out, mut idx) = ([0.0; 2], [0i64; 2]);
    let img = Image::contiguous(1, 2, 4);
    max_pool2d(&x, &img, Planes { n: 1, c: 1 }, &h, &w, &mut out, &mut idx);
    assert_eq!(out[0], 3.0);
    assert!(out[1].is_nan());
    assert_eq!(idx, [1, 7]);
}

#[test]
fn batch_parallel_paths_match() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    pool.install(|| {
        // above the parallel work threshold: image ranges on 3 workers, for the wide
        // (stride 1) and the im2col (stride 2) kernels
        let d = ConvDims {
            n: 7,
            c: 16,
            oc: 16,
            groups: 1,
            h: axis(20, 3, 1, 1, 1),
            w: axis(20, 3, 1, 1, 1),
        };
        assert!(super::par::batch_parts(d.n, 1 << 30).len() == 3);
        check(d);
        check(ConvDims {
            n: 9,
            h: axis(40, 3, 2, 1, 1),
            w: axis(40, 3, 2, 1, 1),
            ..d
        });
        // pools split the same way
        use super::pool::{max_pool2d, Planes};
        let (n, c, hw) = (64, 16, 64);
        let x = data(n * c * hw * hw, 9);
        let (h, w) = (axis(hw, 2, 2, 0, 1), axis(hw, 2, 2, 0, 1));
        let img = Image::contiguous(c, hw, hw);
        let l = h.output * w.output;
        let (mut out, mut idx) = (vec![0.0; n * c * l], vec![0i64; n * c * l]);
        max_pool2d(&x, &img, Planes { n, c }, &h, &w, &mut out, &mut idx);
        for (j, (&o, &i)) in out.iter().zip(&idx).enumerate() {
            let plane = j / l;
            assert_eq!(o, x[plane * hw * hw + i as usize]);
        }
    });
}
