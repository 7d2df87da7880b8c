//! Stride-1 convolutions on "wide" rows: no im2col gather.
//!
//! With stride 1, output position `(oh, ow)` and tap `(ki, kj)` read the zero-padded
//! input at `(oh + ki*dh, ow + kj*dw)`. Lay the padded input out as planes `P` of width
//! `wp = out_w + (kw-1)*dw` and compute the output on the same width ("wide" rows whose
//! last `wp - out_w` columns are junk, dropped when the result is copied out): then tap
//! `t` reads `P` at the constant offset `off[t] = ki*dh*wp + kj*dw`, so
//!
//! * with many channels per group, each tap is one GEMM whose B operand is `P` itself
//!   read at `off[t]` ("shifted" GEMMs accumulating into C);
//! * with few channels, the im2col matrix is materialised, but every row is one
//!   contiguous copy of `P` (`P[c][off[t]..]`) instead of a per-output-row gather, and a
//!   single GEMM with `k = C/g * kh * kw` follows.
//!
//! Consecutive images' planes follow each other, so small images are batched into one
//! GEMM; large ones are split into row tiles. The same machinery runs the transposed
//! convolution (a stride-1 convolution of the gradient with the flipped, transposed
//! kernel) and the weight gradient (`gw += gy_wide @ P_shifted^T`, junk columns of
//! `gy_wide` zeroed).

use super::{ConvDims, Image};
use crate::kernels::matmul::{gemm_batched, mat, spec, GemmSpec, MatElem};

/// Bytes of the per-tile working set (the larger of the materialised im2col block and C):
/// the materialised block is rebuilt per tile and wants L2; shifted GEMMs only keep C and
/// do best with whole large images (measured on 56x56 and 14x14 images).
const TILE_BYTES: usize = 256 * 1024;
const SHIFTED_TILE_BYTES: usize = 1024 * 1024;

/// Channels per group from which the taps are shifted GEMMs instead of one GEMM over a
/// materialised im2col matrix.
const SHIFT_CHANNELS: usize = 32;

/// A stride-1 convolution from an input image (`cin` channels of `hin x win`) to an output
/// image (`cout` channels of `hout x wout`). Pads may be negative (cropping), which the
/// transposed convolution of a heavily padded forward convolution needs.
#[derive(Clone, Copy, Debug)]
pub struct S1 {
    pub n: usize,
    pub cin: usize,
    pub cout: usize,
    pub groups: usize,
    pub hin: usize,
    pub win: usize,
    pub hout: usize,
    pub wout: usize,
    pub kh: usize,
    pub kw: usize,
    pub dh: usize,
    pub dw: usize,
    pub ph: isize,
    pub pw: isize,
}

impl S1 {
    /// The forward convolution of `d`, when it has stride 1 and more than one tap.
    pub fn forward_of(d: &ConvDims) -> Option<S1> {
        let (h, w) = (&d.h, &d.w);
        let ok = h.stride == 1 && w.stride == 1 && h.kernel * w.kernel > 1;
        ok.then_some(S1 {
            n: d.n,
            cin: d.c,
            cout: d.oc,
            groups: d.groups,
            hin: h.input,
            win: w.input,
            hout: h.output,
            wout: w.output,
            kh: h.kernel,
            kw: w.kernel,
            dh: h.dilation,
            dw: w.dilation,
            ph: h.pad as isize,
            pw: w.pad as isize,
        })
    }

    /// The input gradient (transposed convolution) of `d` as a stride-1 convolution of the
    /// output gradient with the flipped kernel.
    pub fn transpose_of(d: &ConvDims) -> Option<S1> {
        let f = S1::forward_of(d)?;
        Some(S1 {
            cin: d.oc,
            cout: d.c,
            hin: f.hout,
            win: f.wout,
            hout: f.hin,
            wout: f.win,
            ph: ((f.kh - 1) * f.dh) as isize - f.ph,
            pw: ((f.kw - 1) * f.dw) as isize - f.pw,
            ..f
        })
    }

    fn taps(&self) -> usize {
        self.kh * self.kw
    }
    fn cin_g(&self) -> usize {
        self.cin / self.groups
    }
    fn cout_g(&self) -> usize {
        self.cout / self.groups
    }
    /// Rows of the materialised im2col matrix (or the inner dim of each shifted GEMM).
    fn k(&self) -> usize {
        self.cin_g() * self.taps()
    }
    fn shifted(&self) -> bool {
        self.cin_g() >= SHIFT_CHANNELS
    }
}

/// Buffer geometry for one call.
struct Plan {
    wp: usize,
    plane: usize,
    /// Junk columns of the last wide row read this far past the last plane.
    slack: usize,
    /// Images per batch and output rows per tile (all rows when `nb > 1`).
    nb: usize,
    rows: usize,
    offs: Vec<usize>,
}

impl Plan {
    fn new<T>(s: &S1) -> Plan {
        let hp = s.hout + (s.kh - 1) * s.dh;
        let wp = s.wout + (s.kw - 1) * s.dw;
        let plane = hp * wp;
        let rows_k = if s.shifted() { 0 } else { s.k() };
        let per_col = (rows_k.max(s.cout_g()).max(s.cin_g()) * std::mem::size_of::<T>()).max(1);
        let budget = if s.shifted() {
            SHIFTED_TILE_BYTES
        } else {
            TILE_BYTES
        };
        let cap = (budget / per_col).max(wp);
        let (nb, rows) = if s.hout * wp <= cap {
            (
                (1 + (cap - s.hout * wp) / plane.max(1)).min(s.n).max(1),
                s.hout,
            )
        } else {
            (1, (cap / wp).clamp(1, s.hout))
        };
        let offs = (0..s.taps())
            .map(|t| (t / s.kw) * s.dh * wp + (t % s.kw) * s.dw)
            .collect();
        Plan {
            wp,
            plane,
            slack: (s.kw - 1) * s.dw,
            nb,
            rows,
            offs,
        }
    }

    /// Elements per channel of the padded planes of `nbl` images.
    fn pstride(&self, nbl: usize) -> usize {
        nbl * self.plane + self.slack
    }

    /// Wide columns of a tile of `rr` rows over `nbl` images.
    fn cols(&self, nbl: usize, rr: usize) -> usize {
        (nbl - 1) * self.plane + rr * self.wp
    }
}

/// Copies channels `c0..c0+cg` of images `n0..n0+nbl` into `p` as zero-padded planes,
/// channel-major (`p[c][n][r][q] = x[n][c][r - ph][q - pw]`).
fn pad_planes<T: MatElem>(
    x: &[T],
    xi: &Image,
    s: &S1,
    pl: &Plan,
    (n0, nbl, c0): (usize, usize, usize),
    p: &mut [T],
) {
    let [_, _, sh, sw] = xi.strides;
    let (wp, hp) = (pl.wp, pl.plane / pl.wp.max(1));
    let ps = pl.pstride(nbl);
    // columns q of a padded row hold input column q - pw
    let q0 = s.pw.clamp(0, wp as isize) as usize;
    let q1 = (s.pw + s.win as isize).clamp(q0 as isize, wp as isize) as usize;
    for c in 0..s.cin_g() {
        let chan = &mut p[c * ps..(c + 1) * ps];
        chan[nbl * pl.plane..].fill(T::zero());
        for nl in 0..nbl {
            let base = xi.at(n0 + nl, c0 + c);
            for r in 0..hp {
                let at = nl * pl.plane + r * wp;
                let row = &mut chan[at..at + wp];
                let ih = r as isize - s.ph;
                if ih < 0 || ih >= s.hin as isize {
                    row.fill(T::zero());
                    continue;
                }
                row[..q0].fill(T::zero());
                row[q1..].fill(T::zero());
                if q0 == q1 {
                    continue;
                }
                let src = base + ih as usize * sh + (q0 as isize - s.pw) as usize * sw;
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
}

/// Materialises the im2col block of a tile: row `(c, t)` is `P[c][col0 + off[t]..]`.
fn materialise<T: MatElem>(
    s: &S1,
    pl: &Plan,
    p: &[T],
    ps: usize,
    (col0, cols): (usize, usize),
    dst: &mut [T],
) {
    let taps = s.taps();
    for c in 0..s.cin_g() {
        for (t, &off) in pl.offs.iter().enumerate() {
            let src = c * ps + col0 + off;
            let r = c * taps + t;
            dst[r * cols..(r + 1) * cols].copy_from_slice(&p[src..src + cols]);
        }
    }
}

fn gspec<T: MatElem>(
    mnk: (usize, usize, usize),
    a: (usize, usize),
    b: (usize, usize),
    c: (usize, usize),
    read_c: bool,
) -> GemmSpec<T> {
    GemmSpec {
        read_c,
        ..spec(mnk, mat(a.0, a.1), mat(b.0, b.1), mat(c.0, c.1))
    }
}

/// `out = conv(x, wm) (+ bias)` for a stride-1 geometry. `wm` is the weight as a
/// contiguous (cout, cin/g, kh, kw) array from `w_off`; `out` is contiguous
/// (n, cout, hout, wout) and fully written.
#[allow(clippy::too_many_arguments)]
pub fn forward<T: MatElem>(
    s: &S1,
    x: &[T],
    xi: &Image,
    wm: &[T],
    w_off: usize,
    bias: Option<&[T]>,
    out: &mut [T],
) -> bool {
    let pl = Plan::new::<T>(s);
    let (cg, og, k, taps) = (s.cin_g(), s.cout_g(), s.k(), s.taps());
    let widest = pl.cols(pl.nb, pl.rows);
    let mut p = vec![T::zero(); cg * pl.pstride(pl.nb)];
    let mut cbuf = vec![T::zero(); og * widest];
    let mut bbuf = if s.shifted() {
        Vec::new()
    } else {
        vec![T::zero(); k * widest]
    };
    let ohw = s.hout * s.wout;
    let mut ok = true;
    for n0 in (0..s.n).step_by(pl.nb) {
        let nbl = pl.nb.min(s.n - n0);
        let ps = pl.pstride(nbl);
        for g in 0..s.groups {
            pad_planes(x, xi, s, &pl, (n0, nbl, g * cg), &mut p);
            let w_at = w_off + g * og * k;
            for r0 in (0..s.hout).step_by(pl.rows) {
                let rr = pl.rows.min(s.hout - r0);
                let (col0, cols) = (r0 * pl.wp, pl.cols(nbl, rr));
                let c = &mut cbuf[..og * cols];
                if s.shifted() {
                    for (t, &off) in pl.offs.iter().enumerate() {
                        let sp = gspec::<T>((og, cols, cg), (k, taps), (ps, 1), (cols, 1), t > 0);
                        ok &= gemm_batched(&sp, wm, &p, c, &[[w_at + t, col0 + off, 0]]);
                    }
                } else {
                    let b = &mut bbuf[..k * cols];
                    materialise(s, &pl, &p, ps, (col0, cols), b);
                    let sp = gspec::<T>((og, cols, k), (k, 1), (cols, 1), (cols, 1), false);
                    ok &= gemm_batched(&sp, wm, b, c, &[[w_at, 0, 0]]);
                }
                for (o, row) in c.chunks(cols).enumerate() {
                    let bv = bias.map_or(T::zero(), |b| b[g * og + o]);
                    for nl in 0..nbl {
                        let plane_at = ((n0 + nl) * s.cout + g * og + o) * ohw;
                        for r in 0..rr {
                            let dst = plane_at + (r0 + r) * s.wout;
                            let src = nl * pl.plane + r * pl.wp;
                            let seg = &row[src..src + s.wout];
                            for (e, &v) in out[dst..dst + s.wout].iter_mut().zip(seg) {
                                *e = T::add(v, bv);
                            }
                        }
                    }
                }
            }
        }
    }
    ok
}

/// The weight (cout, cin/g, kh, kw) of the stride-1 convolution that computes the input
/// gradient: `wt[g][c][o][taps-1-t] = w[g*og + o][c][t]` (transposed, flipped).
pub fn transposed_weight<T: MatElem>(w: &[T], w_off: usize, fwd: &S1) -> Vec<T> {
    let (cg, og, taps) = (fwd.cin_g(), fwd.cout_g(), fwd.taps());
    let mut wt = vec![T::zero(); fwd.cin * og * taps];
    for g in 0..fwd.groups {
        for o in 0..og {
            for c in 0..cg {
                let src = w_off + ((g * og + o) * cg + c) * taps;
                let dst = ((g * cg + c) * og + o) * taps;
                for t in 0..taps {
                    wt[dst + taps - 1 - t] = w[src + t];
                }
            }
        }
    }
    wt
}

/// The weight gradient `gw += sum_n gy[n] (x) P(x[n])` of a stride-1 convolution `s`:
/// `x` as in [`forward`], `gy` (n, cout, hout, wout) read through `gyi`, `gw` contiguous
/// (cout, cin/g, kh, kw), zeroed by the caller.
pub fn weight_grad<T: MatElem>(
    s: &S1,
    x: &[T],
    xi: &Image,
    gy: &[T],
    gyi: &Image,
    gw: &mut [T],
) -> bool {
    let pl = Plan::new::<T>(s);
    let (cg, og, k, taps) = (s.cin_g(), s.cout_g(), s.k(), s.taps());
    let widest = pl.cols(pl.nb, pl.rows);
    let mut p = vec![T::zero(); cg * pl.pstride(pl.nb)];
    let mut gbuf = vec![T::zero(); og * widest];
    let mut bbuf = if s.shifted() {
        Vec::new()
    } else {
        vec![T::zero(); k * widest]
    };
    let [_, _, gsh, gsw] = gyi.strides;
    let mut ok = true;
    for n0 in (0..s.n).step_by(pl.nb) {
        let nbl = pl.nb.min(s.n - n0);
        let ps = pl.pstride(nbl);
        for g in 0..s.groups {
            pad_planes(x, xi, s, &pl, (n0, nbl, g * cg), &mut p);
            let gw_at = g * og * k;
            for r0 in (0..s.hout).step_by(pl.rows) {
                let rr = pl.rows.min(s.hout - r0);
                let (col0, cols) = (r0 * pl.wp, pl.cols(nbl, rr));
                // gy on wide rows, zero in the junk columns so they contribute nothing
                let gw_rows = &mut gbuf[..og * cols];
                gw_rows.fill(T::zero());
                for (o, row) in gw_rows.chunks_mut(cols).enumerate() {
                    for nl in 0..nbl {
                        let base = gyi.at(n0 + nl, g * og + o);
                        for r in 0..rr {
                            let src = base + (r0 + r) * gsh;
                            let dst = &mut row[nl * pl.plane + r * pl.wp..][..s.wout];
                            if gsw == 1 {
                                dst.copy_from_slice(&gy[src..src + s.wout]);
                            } else {
                                for (i, e) in dst.iter_mut().enumerate() {
                                    *e = gy[src + i * gsw];
                                }
                            }
                        }
                    }
                }
                let a = &gbuf[..og * cols];
                if s.shifted() {
                    for (t, &off) in pl.offs.iter().enumerate() {
                        let sp = gspec::<T>((og, cg, cols), (cols, 1), (1, ps), (k, taps), true);
                        ok &= gemm_batched(&sp, a, &p, gw, &[[0, col0 + off, gw_at + t]]);
                    }
                } else {
                    let b = &mut bbuf[..k * cols];
                    materialise(s, &pl, &p, ps, (col0, cols), b);
                    let sp = gspec::<T>((og, k, cols), (cols, 1), (1, cols), (k, 1), true);
                    ok &= gemm_batched(&sp, a, b, gw, &[[0, 0, gw_at]]);
                }
            }
        }
    }
    ok
}
