//! Batch parallelism for the convolution and pooling kernels.
//!
//! Above a work threshold the batch is split into one contiguous range of images per
//! worker of ferric's pool (`crate::threads`); each range runs the serial kernel on its own slice
//! of the output (an image view is just an offset, so sub-batches need no copies). The
//! weight gradient sums per-range partial gradients. Splitting whole images keeps every
//! GEMM as large as in the serial kernel: handing the small per-image GEMMs of a
//! convolution to GEMM's own threading costs more in synchronisation than it gains.

use super::{
    conv_forward_serial, conv_input_grad_serial, conv_weight_grad_serial, ConvDims, Image,
};
use crate::kernels::matmul::MatElem;
use rayon::prelude::*;

/// Below about this many multiply-adds a call stays on the calling thread.
const PAR_WORK: usize = 1 << 22;

/// The image ranges to run in parallel for a batch of `n` with `work` multiply-adds (one
/// range, the whole batch, when not worth splitting).
pub(super) fn batch_parts(n: usize, work: usize) -> Vec<(usize, usize)> {
    let threads = crate::threads::current_threads();
    if threads <= 1 || n < 2 || work < PAR_WORK {
        return vec![(0, n)];
    }
    let parts = threads.min(n);
    (0..parts)
        .map(|i| (i * n / parts, (i + 1) * n / parts))
        .collect()
}

/// Splits `buf` into the consecutive chunks of `parts` (`per` elements per image).
pub(super) fn split_parts<'a, T>(
    mut buf: &'a mut [T],
    parts: &[(usize, usize)],
    per: usize,
) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(parts.len());
    for &(a, b) in parts {
        let (head, rest) = buf.split_at_mut(((b - a) * per).min(buf.len()));
        out.push(head);
        buf = rest;
    }
    out
}

/// The same images starting at image `n0`.
pub(super) fn from_image(img: &Image, n0: usize) -> Image {
    Image {
        offset: img.offset + n0 * img.strides[0],
        ..*img
    }
}

/// Runs `f(part, chunk)` for every part in parallel; true if every call returned true.
fn run_parts<T: Send>(
    parts: &[(usize, usize)],
    chunks: Vec<&mut [T]>,
    f: impl Fn((usize, usize), &mut [T]) -> bool + Sync,
) -> bool {
    crate::threads::install(|| {
        parts
            .par_iter()
            .zip(chunks)
            .map(|(&p, c)| f(p, c))
            .reduce(|| true, |a, b| a && b)
    })
}

/// The sub-problem of images `n0..n1`.
fn sub(d: &ConvDims, (n0, n1): (usize, usize)) -> ConvDims {
    ConvDims { n: n1 - n0, ..*d }
}

fn macs(d: &ConvDims) -> usize {
    d.n.saturating_mul(d.oc)
        .saturating_mul(d.l())
        .saturating_mul(d.k())
}

/// `y = conv(x, w) (+ bias)`: `x` strided (N, C, H, W), `w` contiguous (OC, C/g, kh, kw)
/// from `w_off`, `out` contiguous (N, OC, oh, ow) and freshly allocated. Returns false
/// if an operand does not fit its slice (a bug guard, never a panic).
pub fn conv_forward<T: MatElem>(
    d: &ConvDims,
    x: &[T],
    xi: &Image,
    w: &[T],
    w_off: usize,
    bias: Option<&[T]>,
    out: &mut [T],
) -> bool {
    let parts = batch_parts(d.n, macs(d));
    if parts.len() == 1 {
        return conv_forward_serial(d, x, xi, w, w_off, bias, out);
    }
    let chunks = split_parts(out, &parts, d.oc * d.l());
    run_parts(&parts, chunks, |p, o| {
        conv_forward_serial(&sub(d, p), x, &from_image(xi, p.0), w, w_off, bias, o)
    })
}

/// The input gradient of a convolution, which is also the transposed convolution:
/// `gx = col2im(W^T @ gy) (+ bias)`. `gy` is (N, OC, oh, ow) whose two spatial dims
/// merge into one stride `gy_l`; `w` is contiguous (OC, C/g, kh, kw); `gx` is contiguous
/// (N, C, H, W), freshly zeroed. `bias` has C elements.
#[allow(clippy::too_many_arguments)]
pub fn conv_input_grad<T: MatElem>(
    d: &ConvDims,
    gy: &[T],
    gyi: &Image,
    gy_l: usize,
    w: &[T],
    w_off: usize,
    bias: Option<&[T]>,
    gx: &mut [T],
) -> bool {
    let parts = batch_parts(d.n, macs(d));
    if parts.len() == 1 {
        return conv_input_grad_serial(d, gy, gyi, gy_l, w, w_off, bias, gx);
    }
    let chunks = split_parts(gx, &parts, d.c * d.h.input * d.w.input);
    run_parts(&parts, chunks, |p, o| {
        let gyi = from_image(gyi, p.0);
        conv_input_grad_serial(&sub(d, p), gy, &gyi, gy_l, w, w_off, bias, o)
    })
}

/// The weight gradient `gw[g] = sum_n gy[n, g] @ im2col(x[n, g])^T` into `gw`
/// (contiguous (OC, C/g, kh, kw), freshly zeroed). `gy` as in [`conv_input_grad`].
/// In parallel, each range accumulates its own partial gradient; they are summed here.
#[allow(clippy::too_many_arguments)]
pub fn conv_weight_grad<T: MatElem>(
    d: &ConvDims,
    x: &[T],
    xi: &Image,
    gy: &[T],
    gyi: &Image,
    gy_l: usize,
    gw: &mut [T],
) -> bool {
    let parts = batch_parts(d.n, macs(d));
    if parts.len() == 1 {
        return conv_weight_grad_serial(d, x, xi, gy, gyi, gy_l, gw);
    }
    let len = gw.len();
    let partial = |p: (usize, usize)| -> Option<Vec<T>> {
        let mut buf = vec![T::zero(); len];
        let (xi, gyi) = (from_image(xi, p.0), from_image(gyi, p.0));
        conv_weight_grad_serial(&sub(d, p), x, &xi, gy, &gyi, gy_l, &mut buf).then_some(buf)
    };
    let sums: Option<Vec<Vec<T>>> =
        crate::threads::install(|| parts.par_iter().map(|&p| partial(p)).collect());
    let Some(sums) = sums else {
        return false;
    };
    for s in sums {
        for (g, v) in gw.iter_mut().zip(s) {
            *g = T::add(*g, v);
        }
    }
    true
}
