//! Convolution kernels on slices + strides: im2col / col2im and the three GEMM-based
//! convolution products (forward, input gradient = transposed convolution, weight
//! gradient). Pooling kernels live in `pool`.
//!
//! Every image operand is described by an offset and (N, C, H, W) strides, so inputs
//! are read in place whatever their layout. Three strategies, picked per geometry:
//!
//! * 1x1 kernels whose output positions map onto the input with one stride: the input
//!   *is* the im2col matrix, one GEMM per image and group reads it in place;
//! * stride 1 (most convolutions): `wide`, which needs no per-position gather at all;
//! * anything else: im2col in column tiles whose block stays in L2 while the GEMM
//!   consumes it; small images are batched several to a tile so GEMMs stay large.
//!
//! Geometry convention (one [`Axis`] per spatial dim): output position `o` with kernel
//! tap `k` reads input position `o * stride + k * dilation - pad`; positions outside
//! `0..input` are zero padding. The three products use the same geometry, which makes
//! them exact adjoints of each other whatever the sizes.

mod par;
pub mod pool;
mod wide;

pub use par::{conv_forward, conv_input_grad, conv_weight_grad};

use crate::kernels::matmul::{gemm_batched, mat, spec, MatElem};

/// One spatial dim of a sliding window (see the module docs for the convention).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis {
    pub input: usize,
    pub output: usize,
    pub kernel: usize,
    pub stride: usize,
    pub pad: usize,
    pub dilation: usize,
}

impl Axis {
    /// The output positions `lo..hi` whose tap `k` lands inside the input.
    #[inline]
    pub fn valid(&self, k: usize) -> (usize, usize) {
        let kd = k * self.dilation;
        let lo = if kd >= self.pad {
            0
        } else {
            (self.pad - kd).div_ceil(self.stride)
        };
        let hi = if self.input + self.pad > kd {
            (self.input + self.pad - kd).div_ceil(self.stride)
        } else {
            0
        };
        let lo = lo.min(self.output);
        (lo, hi.clamp(lo, self.output))
    }

    /// Input position read by output `o` and tap `k` (may be out of range).
    #[inline]
    fn at(&self, o: usize, k: usize) -> isize {
        (o * self.stride + k * self.dilation) as isize - self.pad as isize
    }
}

/// A batch of images in a storage: element offset and (N, C, H, W) strides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    pub offset: usize,
    pub strides: [usize; 4],
}

impl Image {
    pub fn contiguous(c: usize, h: usize, w: usize) -> Image {
        Image {
            offset: 0,
            strides: [c * h * w, h * w, w, 1],
        }
    }
    #[inline]
    fn at(&self, n: usize, c: usize) -> usize {
        self.offset + n * self.strides[0] + c * self.strides[1]
    }
}

/// Sizes of one convolution: batch, channels on the x side (`c`) and on the y side
/// (`oc`), groups, and the geometry of the two spatial dims (1-d convolutions use a
/// height axis of size 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvDims {
    pub n: usize,
    pub c: usize,
    pub oc: usize,
    pub groups: usize,
    pub h: Axis,
    pub w: Axis,
}

impl ConvDims {
    /// Rows of one group's im2col matrix (`c / groups * kh * kw`).
    pub fn k(&self) -> usize {
        self.c / self.groups * self.h.kernel * self.w.kernel
    }
    /// Output positions per image (`oh * ow`).
    pub fn l(&self) -> usize {
        self.h.output * self.w.output
    }
    /// A 1x1 window that maps output positions onto input positions with one uniform
    /// stride: the im2col matrix is then a strided view of the input itself.
    fn direct(&self, img: &Image) -> Option<isize> {
        let (h, w) = (&self.h, &self.w);
        if h.kernel != 1 || w.kernel != 1 || h.pad != 0 || w.pad != 0 {
            return None;
        }
        let (sh, sw) = (
            (h.stride * img.strides[2]) as isize,
            (w.stride * img.strides[3]) as isize,
        );
        let fits = (h.output - 1) * h.stride < h.input && (w.output - 1) * w.stride < w.input;
        if !fits {
            return None;
        }
        if w.output == 1 {
            Some(sh)
        } else if h.output == 1 || sh == sw * w.output as isize {
            Some(sw)
        } else {
            None
        }
    }
}

/// About this many bytes of im2col columns are built per tile (fits L2 with room for
/// GEMM's packed A panel).
const TILE_BYTES: usize = 512 * 1024;

/// A block of im2col columns: columns `j0..j0+len` of image `n`, stored in a matrix
/// whose rows are `ld` elements apart, starting at column `at`.
#[derive(Clone, Copy, Debug)]
pub struct Cols {
    pub n: usize,
    pub j0: usize,
    pub len: usize,
    pub ld: usize,
    pub at: usize,
}

impl Cols {
    /// All `l` columns of image `n` in a matrix of exactly that width.
    pub fn image(n: usize, l: usize) -> Cols {
        Cols {
            n,
            j0: 0,
            len: l,
            ld: l,
            at: 0,
        }
    }
}

/// Calls `f(row, segment start in the row, output row oh, first output column ow0,
/// count)` for the runs of columns of `b` that lie in one output row.
#[inline]
fn runs(b: &Cols, ow_n: usize, mut f: impl FnMut(usize, usize, usize, usize)) {
    let (mut j, mut pos) = (b.j0, 0);
    while pos < b.len {
        let (oh, ow0) = (j / ow_n, j % ow_n);
        let cnt = (ow_n - ow0).min(b.len - pos);
        f(pos, oh, ow0, cnt);
        pos += cnt;
        j += cnt;
    }
}

/// Writes the im2col columns `b` of `channels` channels (from `c0`) of an image into
/// `dst`: rows ordered (channel, kernel row, kernel column) like PyTorch's weight, zero
/// where a tap falls in the padding.
#[allow(clippy::too_many_arguments)]
pub fn im2col<T: MatElem>(
    src: &[T],
    img: &Image,
    c0: usize,
    channels: usize,
    h: &Axis,
    w: &Axis,
    b: &Cols,
    dst: &mut [T],
) {
    let [_, _, sh, sw] = img.strides;
    let step = w.stride * sw;
    let mut row = 0;
    for c in c0..c0 + channels {
        let base = img.at(b.n, c);
        for ki in 0..h.kernel {
            for kj in 0..w.kernel {
                let out = &mut dst[row * b.ld + b.at..row * b.ld + b.at + b.len];
                row += 1;
                let (wlo, whi) = w.valid(kj);
                runs(b, w.output, |pos, oh, ow0, cnt| {
                    let seg = &mut out[pos..pos + cnt];
                    let ih = h.at(oh, ki);
                    if ih < 0 || ih >= h.input as isize {
                        seg.fill(T::zero());
                        return;
                    }
                    let lo = wlo.clamp(ow0, ow0 + cnt);
                    let hi = whi.clamp(lo, ow0 + cnt);
                    seg[..lo - ow0].fill(T::zero());
                    seg[hi - ow0..].fill(T::zero());
                    if lo == hi {
                        return;
                    }
                    let first = base + ih as usize * sh + w.at(lo, kj) as usize * sw;
                    let mid = &mut seg[lo - ow0..hi - ow0];
                    if step == 1 {
                        mid.copy_from_slice(&src[first..first + (hi - lo)]);
                    } else {
                        for (i, o) in mid.iter_mut().enumerate() {
                            *o = src[first + i * step];
                        }
                    }
                });
            }
        }
    }
}

/// The adjoint of [`im2col`]: adds the columns `b` of `cols` into the image at `dst`
/// (strides `img`; distinct elements).
#[allow(clippy::too_many_arguments)]
pub fn col2im<T: MatElem>(
    cols: &[T],
    img: &Image,
    c0: usize,
    channels: usize,
    h: &Axis,
    w: &Axis,
    b: &Cols,
    dst: &mut [T],
) {
    let [_, _, sh, sw] = img.strides;
    let step = w.stride * sw;
    let mut row = 0;
    for c in c0..c0 + channels {
        let base = img.at(b.n, c);
        for ki in 0..h.kernel {
            for kj in 0..w.kernel {
                let src = &cols[row * b.ld + b.at..row * b.ld + b.at + b.len];
                row += 1;
                let (wlo, whi) = w.valid(kj);
                runs(b, w.output, |pos, oh, ow0, cnt| {
                    let ih = h.at(oh, ki);
                    if ih < 0 || ih >= h.input as isize {
                        return;
                    }
                    let lo = wlo.clamp(ow0, ow0 + cnt);
                    let hi = whi.clamp(lo, ow0 + cnt);
                    if lo == hi {
                        return;
                    }
                    let first = base + ih as usize * sh + w.at(lo, kj) as usize * sw;
                    let mid = &src[pos + lo - ow0..pos + hi - ow0];
                    if step == 1 {
                        for (o, &v) in dst[first..first + (hi - lo)].iter_mut().zip(mid) {
                            *o = T::add(*o, v);
                        }
                    } else {
                        for (i, &v) in mid.iter().enumerate() {
                            let p = first + i * step;
                            dst[p] = T::add(dst[p], v);
                        }
                    }
                });
            }
        }
    }
}

/// A block of output positions handled by one GEMM: images `n0..n1` and, in each,
/// columns `j0..j0+len`. Small images are batched (whole images per tile) so a GEMM has
/// enough columns to run at speed; large ones are split into column ranges.
#[derive(Clone, Copy, Debug)]
struct Tile {
    n0: usize,
    n1: usize,
    j0: usize,
    len: usize,
}

impl Tile {
    fn width(&self) -> usize {
        (self.n1 - self.n0) * self.len
    }
    fn multi(&self) -> bool {
        self.n1 - self.n0 > 1
    }
    /// The im2col block of image `n` inside this tile's column matrix.
    fn cols(&self, n: usize) -> Cols {
        Cols {
            n,
            j0: self.j0,
            len: self.len,
            ld: self.width(),
            at: (n - self.n0) * self.len,
        }
    }
}

/// The tiles covering `n` images of `l` output positions, for im2col matrices of `k`
/// rows; also returns the largest tile width (for the buffers).
fn tiles<T>(n: usize, k: usize, l: usize) -> (Vec<Tile>, usize) {
    let per_col = (k * std::mem::size_of::<T>()).max(1);
    let cap = (TILE_BYTES / per_col).max(16);
    let mut out = Vec::new();
    if l <= cap {
        let per = (cap / l.max(1)).max(1);
        for n0 in (0..n).step_by(per) {
            out.push(Tile {
                n0,
                n1: (n0 + per).min(n),
                j0: 0,
                len: l,
            });
        }
    } else {
        for i in 0..n {
            for j0 in (0..l).step_by(cap) {
                out.push(Tile {
                    n0: i,
                    n1: i + 1,
                    j0,
                    len: cap.min(l - j0),
                });
            }
        }
    }
    let widest = out.iter().map(Tile::width).max().unwrap_or(0);
    (out, widest)
}

/// Copies the (channels x columns) block of `y` (N, OC, L with one spatial stride
/// `y_l`) for a multi-image tile into `dst` (rows of the tile's width).
fn gather_rows<T: MatElem>(
    y: &[T],
    yi: &Image,
    y_l: usize,
    (o0, rows): (usize, usize),
    t: &Tile,
    dst: &mut [T],
) {
    let wd = t.width();
    for n in t.n0..t.n1 {
        let at = (n - t.n0) * t.len;
        for r in 0..rows {
            let src = yi.at(n, o0 + r) + t.j0 * y_l;
            let out = &mut dst[r * wd + at..r * wd + at + t.len];
            if y_l == 1 {
                out.copy_from_slice(&y[src..src + t.len]);
            } else {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = y[src + i * y_l];
                }
            }
        }
    }
}

/// `y = conv(x, w) (+ bias)`: `x` strided (N, C, H, W), `w` contiguous (OC, C/g, kh, kw)
/// from `w_off`, `out` contiguous (N, OC, oh, ow) and freshly allocated. Returns false
/// if an operand does not fit its slice (a bug guard, never a panic).
pub(super) fn conv_forward_serial<T: MatElem>(
    d: &ConvDims,
    x: &[T],
    xi: &Image,
    w: &[T],
    w_off: usize,
    bias: Option<&[T]>,
    out: &mut [T],
) -> bool {
    let (k, l) = (d.k(), d.l());
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    if l == 0 || ocg == 0 || d.n == 0 {
        if let Some(b) = bias {
            fill_bias(out, b, l);
        }
        return true;
    }
    if let Some(s1) = wide::S1::forward_of(d) {
        return wide::forward(&s1, x, xi, w, w_off, bias, out);
    }
    if let Some(b) = bias {
        fill_bias(out, b, l);
    }
    let wa = mat(k, 1);
    if let Some(step) = d.direct(xi) {
        let mut ok = true;
        for n in 0..d.n {
            for g in 0..d.groups {
                let mut s = spec::<T>((ocg, l, k), wa, mat(xi.strides[1], 0), mat(l, 1));
                s.b.cs = step;
                s.read_c = bias.is_some();
                let offs = [
                    w_off + g * ocg * k,
                    xi.at(n, g * cg),
                    (n * d.oc + g * ocg) * l,
                ];
                ok &= gemm_batched(&s, w, x, out, &[offs]);
            }
        }
        return ok;
    }
    let (tiles, widest) = tiles::<T>(d.n, k, l);
    let mut buf = vec![T::zero(); k * widest];
    let mut cbuf = if tiles.iter().any(Tile::multi) {
        vec![T::zero(); ocg * widest]
    } else {
        Vec::new()
    };
    let mut ok = true;
    for t in &tiles {
        let wd = t.width();
        for g in 0..d.groups {
            let cols = &mut buf[..k * wd];
            for n in t.n0..t.n1 {
                im2col(x, xi, g * cg, cg, &d.h, &d.w, &t.cols(n), cols);
            }
            let w_at = w_off + g * ocg * k;
            if !t.multi() {
                let mut s = spec::<T>((ocg, wd, k), wa, mat(wd, 1), mat(l, 1));
                s.read_c = bias.is_some();
                let c_at = (t.n0 * d.oc + g * ocg) * l + t.j0;
                ok &= gemm_batched(&s, w, cols, out, &[[w_at, 0, c_at]]);
                continue;
            }
            let c = &mut cbuf[..ocg * wd];
            let s = spec::<T>((ocg, wd, k), wa, mat(wd, 1), mat(wd, 1));
            ok &= gemm_batched(&s, w, cols, c, &[[w_at, 0, 0]]);
            // scatter the images' blocks to their planes (bias already in `out`)
            for (o, row) in c.chunks(wd).enumerate() {
                for n in t.n0..t.n1 {
                    let dst = (n * d.oc + g * ocg + o) * l;
                    let src = &row[(n - t.n0) * l..(n - t.n0 + 1) * l];
                    for (e, &v) in out[dst..dst + l].iter_mut().zip(src) {
                        *e = T::add(*e, v);
                    }
                }
            }
        }
    }
    ok
}

/// Sums a contiguous (N, C, L) array over N and L into `out` (C elements): the bias
/// gradient. Each plane is summed in eight lanes so the loop vectorises.
pub fn channel_sum<T: MatElem>(x: &[T], (n, c, l): (usize, usize, usize), out: &mut [T]) {
    out.fill(T::zero());
    if l == 0 {
        return;
    }
    for (i, plane) in x[..n * c * l].chunks(l).enumerate() {
        let mut lanes = [T::zero(); 8];
        let mut chunks = plane.chunks_exact(8);
        for ch in &mut chunks {
            for (a, &v) in lanes.iter_mut().zip(ch) {
                *a = T::add(*a, v);
            }
        }
        let mut s = chunks
            .remainder()
            .iter()
            .fold(T::zero(), |a, &v| T::add(a, v));
        for v in lanes {
            s = T::add(s, v);
        }
        out[i % c] = T::add(out[i % c], s);
    }
}

/// Fills every output channel plane of `out` (contiguous (N, OC, L)) with its bias.
fn fill_bias<T: MatElem>(out: &mut [T], bias: &[T], l: usize) {
    if l == 0 {
        return;
    }
    for (plane, &b) in out.chunks_mut(l).zip(bias.iter().cycle()) {
        plane.fill(b);
    }
}

/// The input gradient of a convolution, which is also the transposed convolution:
/// `gx = col2im(W^T @ gy) (+ bias)`. `gy` is (N, OC, oh, ow) whose two spatial dims
/// merge into one stride `gy_l`; `w` is contiguous (OC, C/g, kh, kw); `gx` is contiguous
/// (N, C, H, W), freshly zeroed. `bias` has C elements.
#[allow(clippy::too_many_arguments)]
pub(super) fn conv_input_grad_serial<T: MatElem>(
    d: &ConvDims,
    gy: &[T],
    gyi: &Image,
    gy_l: usize,
    w: &[T],
    w_off: usize,
    bias: Option<&[T]>,
    gx: &mut [T],
) -> bool {
    let (k, l) = (d.k(), d.l());
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    let hw = d.h.input * d.w.input;
    if l > 0 && cg > 0 && hw > 0 && ocg > 0 && d.n > 0 {
        if let (Some(fwd), Some(s1)) = (wide::S1::forward_of(d), wide::S1::transpose_of(d)) {
            let wt = wide::transposed_weight(w, w_off, &fwd);
            return wide::forward(&s1, gy, gyi, &wt, 0, bias, gx);
        }
    }
    if let Some(b) = bias {
        fill_bias(gx, b, hw);
    }
    if l == 0 || cg == 0 || hw == 0 || ocg == 0 || d.n == 0 {
        return true;
    }
    let gxi = Image::contiguous(d.c, d.h.input, d.w.input);
    // W_g^T is (k x ocg): row stride 1, column stride k
    let wt = mat(1, k);
    if let Some(step) = d.direct(&gxi) {
        let mut ok = true;
        for n in 0..d.n {
            for g in 0..d.groups {
                let mut s = spec::<T>((k, l, ocg), wt, mat(gyi.strides[1], gy_l), mat(hw, 0));
                s.c.cs = step;
                s.read_c = bias.is_some();
                let offs = [w_off + g * ocg * k, gyi.at(n, g * ocg), gxi.at(n, g * cg)];
                ok &= gemm_batched(&s, w, gy, gx, &[offs]);
            }
        }
        return ok;
    }
    let (tiles, widest) = tiles::<T>(d.n, k, l);
    let mut buf = vec![T::zero(); k * widest];
    let mut gbuf = if tiles.iter().any(Tile::multi) {
        vec![T::zero(); ocg * widest]
    } else {
        Vec::new()
    };
    let mut ok = true;
    for t in &tiles {
        let wd = t.width();
        for g in 0..d.groups {
            let cols = &mut buf[..k * wd];
            let w_at = w_off + g * ocg * k;
            if t.multi() {
                let gb = &mut gbuf[..ocg * wd];
                gather_rows(gy, gyi, gy_l, (g * ocg, ocg), t, gb);
                let s = spec::<T>((k, wd, ocg), wt, mat(wd, 1), mat(wd, 1));
                ok &= gemm_batched(&s, w, gb, cols, &[[w_at, 0, 0]]);
            } else {
                let s = spec::<T>((k, wd, ocg), wt, mat(gyi.strides[1], gy_l), mat(wd, 1));
                let gy_at = gyi.at(t.n0, g * ocg) + t.j0 * gy_l;
                ok &= gemm_batched(&s, w, gy, cols, &[[w_at, gy_at, 0]]);
            }
            for n in t.n0..t.n1 {
                col2im(cols, &gxi, g * cg, cg, &d.h, &d.w, &t.cols(n), gx);
            }
        }
    }
    ok
}

/// The weight gradient `gw[g] = sum_n gy[n, g] @ im2col(x[n, g])^T` into `gw`
/// (contiguous (OC, C/g, kh, kw), freshly zeroed). `gy` as in [`conv_input_grad`].
#[allow(clippy::too_many_arguments)]
pub(super) fn conv_weight_grad_serial<T: MatElem>(
    d: &ConvDims,
    x: &[T],
    xi: &Image,
    gy: &[T],
    gyi: &Image,
    gy_l: usize,
    gw: &mut [T],
) -> bool {
    let (k, l) = (d.k(), d.l());
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    if l == 0 || k == 0 || ocg == 0 || d.n == 0 {
        return true;
    }
    if let Some(s1) = wide::S1::forward_of(d) {
        return wide::weight_grad(&s1, x, xi, gy, gyi, gw);
    }
    let gym = mat(gyi.strides[1], gy_l);
    if let Some(step) = d.direct(xi) {
        let mut ok = true;
        for n in 0..d.n {
            for g in 0..d.groups {
                // B = x[n, g]^T: (l x k) with row stride `step`, column stride C-stride
                let mut s = spec::<T>((ocg, k, l), gym, mat(0, xi.strides[1]), mat(k, 1));
                s.b.rs = step;
                s.read_c = true;
                let offs = [gyi.at(n, g * ocg), xi.at(n, g * cg), g * ocg * k];
                ok &= gemm_batched(&s, gy, x, gw, &[offs]);
            }
        }
        return ok;
    }
    let (tiles, widest) = tiles::<T>(d.n, k, l);
    let mut buf = vec![T::zero(); k * widest];
    let mut gbuf = if tiles.iter().any(Tile::multi) {
        vec![T::zero(); ocg * widest]
    } else {
        Vec::new()
    };
    let mut ok = true;
    for t in &tiles {
        let wd = t.width();
        for g in 0..d.groups {
            let cols = &mut buf[..k * wd];
            for n in t.n0..t.n1 {
                im2col(x, xi, g * cg, cg, &d.h, &d.w, &t.cols(n), cols);
            }
            let mut s = spec::<T>((ocg, k, wd), gym, mat(1, wd), mat(k, 1));
            s.read_c = true;
            let gw_at = g * ocg * k;
            if t.multi() {
                let gb = &mut gbuf[..ocg * wd];
                gather_rows(gy, gyi, gy_l, (g * ocg, ocg), t, gb);
                s.a = mat(wd, 1);
                ok &= gemm_batched(&s, gb, cols, gw, &[[0, 0, gw_at]]);
            } else {
                let gy_at = gyi.at(t.n0, g * ocg) + t.j0 * gy_l;
                ok &= gemm_batched(&s, gy, cols, gw, &[[gy_at, 0, gw_at]]);
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests;
