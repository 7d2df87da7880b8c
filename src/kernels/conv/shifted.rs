//! Stride-1 convolutions without im2col ("shifted GEMMs").
//!
//! With stride 1, output position `(oh, ow)` and tap `(ki, kj)` read padded-input
//! position `(oh + ki*dh, ow + kj*dw)`. Laying the zero-padded input out as planes of
//! width `wp = ow + (kw-1)*dw` and computing the output on the same width ("wide" rows
//! whose last `wp - ow` columns are junk), every tap becomes one GEMM whose B operand
//! is the padded planes read at a constant offset: `C += W[:, :, ki, kj] @ P[shift]`.
//! The padded copy is one pass over the input, against the kh*kw-fold copy im2col
//! makes; the junk columns cost `(kw-1)*dw / ow` extra work and are dropped when the
//! rows are copied out. Output rows are processed in tiles that keep C in L2.

use super::{ConvDims, Image};
use crate::kernels::matmul::{gemm_batched, GemmSpec, MatElem, MatStrides};

/// Bytes of the wide output tile (C) accumulated over all taps.
const C_TILE_BYTES: usize = 1024 * 1024;

/// Whether the shifted path applies and pays off: stride 1, and enough channels per
/// group that each per-tap GEMM has a useful inner dimension.
pub fn applies(d: &ConvDims) -> bool {
    let cg = d.c / d.groups;
    d.h.stride == 1 && d.w.stride == 1 && cg >= 16 && d.h.kernel * d.w.kernel > 1
}

/// Copies channels `c0..c0+cg` of image `n` into `p` as zero-padded planes of `hp x wp`.
#[allow(clippy::too_many_arguments)]
fn pad_planes<T: MatElem>(
    x: &[T],
    xi: &Image,
    n: usize,
    c0: usize,
    cg: usize,
    d: &ConvDims,
    (hp, wp): (usize, usize),
    p: &mut [T],
) {
    let (h, w) = (&d.h, &d.w);
    let [_, _, sh, sw] = xi.strides;
    // columns q of a padded row hold input column q - pad
    let q0 = w.pad.min(wp);
    let q1 = (w.pad + w.input).min(wp).max(q0);
    for c in 0..cg {
        let base = xi.at(n, c0 + c);
        for r in 0..hp {
            let row = &mut p[(c * hp + r) * wp..(c * hp + r + 1) * wp];
            let ih = r as isize - h.pad as isize;
            if ih < 0 || ih >= h.input as isize {
                row.fill(T::zero());
                continue;
            }
            row[..q0].fill(T::zero());
            row[q1..].fill(T::zero());
            let src = base + ih as usize * sh + (q0 - w.pad) * sw;
            let mid = &mut row[q0..q1];
            if sw == 1 {
                mid.copy_from_slice(&x[src..src + (q1 - q0)]);
            } else {
                for (i, o) in mid.iter_mut().enumerate() {
                    *o = x[src + i * sw];
                }
            }
        }
    }
}

/// `y = conv(x, w) (+ bias)` for stride-1 geometries (see [`applies`]); same contract
/// as [`super::conv_forward`].
pub fn conv_forward<T: MatElem>(
    d: &ConvDims,
    x: &[T],
    xi: &Image,
    w: &[T],
    w_off: usize,
    bias: Option<&[T]>,
    out: &mut [T],
) -> bool {
    let (h, wa) = (&d.h, &d.w);
    let (cg, ocg, k) = (d.c / d.groups, d.oc / d.groups, d.k());
    let (oh, ow) = (h.output, wa.output);
    let taps = h.kernel * wa.kernel;
    let hp = oh + (h.kernel - 1) * h.dilation;
    let wp = ow + (wa.kernel - 1) * wa.dilation;
    let plane = hp * wp;
    // junk columns of the last wide row read up to this far past the last plane
    let slack = (wa.kernel - 1) * wa.dilation;
    let mut p = vec![T::zero(); cg * plane + slack];
    let rows = (C_TILE_BYTES / (ocg * wp * std::mem::size_of::<T>()).max(1)).clamp(1, oh);
    let mut cbuf = vec![T::zero(); ocg * rows * wp];
    let mut ok = true;
    for n in 0..d.n {
        for g in 0..d.groups {
            pad_planes(x, xi, n, g * cg, cg, d, (hp, wp), &mut p);
            for r0 in (0..oh).step_by(rows) {
                let rr = rows.min(oh - r0);
                let nn = rr * wp;
                let c = &mut cbuf[..ocg * nn];
                if let Some(b) = bias {
                    for (o, row) in c.chunks_mut(nn).enumerate() {
                        row.fill(b[g * ocg + o]);
                    }
                }
                for t in 0..taps {
                    let (ki, kj) = (t / wa.kernel, t % wa.kernel);
                    let spec = GemmSpec {
                        m: ocg,
                        n: nn,
                        k: cg,
                        a: MatStrides {
                            rs: k as isize,
                            cs: taps as isize,
                        },
                        b: MatStrides {
                            rs: plane as isize,
                            cs: 1,
                        },
                        c: MatStrides {
                            rs: nn as isize,
                            cs: 1,
                        },
                        alpha: T::one(),
                        beta: T::one(),
                        read_c: bias.is_some() || t > 0,
                    };
                    let a_at = w_off + g * ocg * k + t;
                    let b_at = (r0 + ki * h.dilation) * wp + kj * wa.dilation;
                    ok &= gemm_batched(&spec, w, &p, c, &[[a_at, b_at, 0]]);
                }
                for (o, src) in c.chunks(nn).enumerate() {
                    let plane_at = (n * d.oc + g * ocg + o) * oh * ow;
                    for r in 0..rr {
                        let dst = plane_at + (r0 + r) * ow;
                        out[dst..dst + ow].copy_from_slice(&src[r * wp..r * wp + ow]);
                    }
                }
            }
        }
    }
    ok
}
