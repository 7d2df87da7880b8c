//! Convolution kernels on slices + strides: im2col / col2im and the three GEMM-based
//! convolution products (forward, input gradient = transposed convolution, weight
//! gradient). Pooling kernels live in `pool`.
//!
//! Every image operand is described by an offset and (N, C, H, W) strides, so inputs
//! are read in place whatever their layout. The im2col matrix is never built for a
//! whole image: output positions are processed in column tiles whose im2col block
//! stays in L2 while the GEMM consumes it (the tile *is* GEMM's packed B panel).
//!
//! Geometry convention (one [`Axis`] per spatial dim): output position `o` with kernel
//! tap `k` reads input position `o * stride + k * dilation - pad`; positions outside
//! `0..input` are zero padding. The three products use the same geometry, which makes
//! them exact adjoints of each other whatever the sizes.

pub mod pool;
mod shifted;

use crate::kernels::matmul::{gemm_batched, GemmSpec, MatElem, MatStrides};

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

fn tile_len<T>(k: usize, l: usize) -> usize {
    let per_col = (k * std::mem::size_of::<T>()).max(1);
    (TILE_BYTES / per_col).clamp(16, l.max(16)).min(l)
}

/// Writes columns `j0..j0+len` of the im2col matrix of `channels` channels of image `n`
/// (starting at channel `c0`) into `dst`, row-major with `channels * kh * kw` rows of
/// `len`. Rows are ordered (channel, kernel row, kernel column), like PyTorch's weight.
#[allow(clippy::too_many_arguments)]
pub fn im2col<T: MatElem>(
    src: &[T],
    img: &Image,
    n: usize,
    c0: usize,
    channels: usize,
    h: &Axis,
    w: &Axis,
    j0: usize,
    len: usize,
    dst: &mut [T],
) {
    let ow_n = w.output;
    let [_, _, sh, sw] = img.strides;
    let mut row = 0;
    for c in c0..c0 + channels {
        let base = img.at(n, c);
        for ki in 0..h.kernel {
            for kj in 0..w.kernel {
                let out = &mut dst[row * len..(row + 1) * len];
                row += 1;
                let (wlo, whi) = w.valid(kj);
                let (mut j, mut pos) = (j0, 0);
                while pos < len {
                    let (oh, ow0) = (j / ow_n, j % ow_n);
                    let cnt = (ow_n - ow0).min(len - pos);
                    let seg = &mut out[pos..pos + cnt];
                    pos += cnt;
                    j += cnt;
                    let ih = h.at(oh, ki);
                    if ih < 0 || ih >= h.input as isize {
                        seg.fill(T::zero());
                        continue;
                    }
                    let a = wlo.clamp(ow0, ow0 + cnt);
                    let b = whi.clamp(a, ow0 + cnt);
                    seg[..a - ow0].fill(T::zero());
                    seg[b - ow0..].fill(T::zero());
                    if a == b {
                        continue;
                    }
                    let rowp = base + ih as usize * sh;
                    let first = rowp + w.at(a, kj) as usize * sw;
                    let step = w.stride * sw;
                    let mid = &mut seg[a - ow0..b - ow0];
                    if step == 1 {
                        mid.copy_from_slice(&src[first..first + (b - a)]);
                    } else {
                        for (i, o) in mid.iter_mut().enumerate() {
                            *o = src[first + i * step];
                        }
                    }
                }
            }
        }
    }
}

/// The adjoint of [`im2col`]: adds columns `j0..j0+len` of `cols` into the image at
/// `dst` (strides `img`; distinct elements).
#[allow(clippy::too_many_arguments)]
pub fn col2im<T: MatElem>(
    cols: &[T],
    img: &Image,
    n: usize,
    c0: usize,
    channels: usize,
    h: &Axis,
    w: &Axis,
    j0: usize,
    len: usize,
    dst: &mut [T],
) {
    let ow_n = w.output;
    let [_, _, sh, sw] = img.strides;
    let mut row = 0;
    for c in c0..c0 + channels {
        let base = img.at(n, c);
        for ki in 0..h.kernel {
            for kj in 0..w.kernel {
                let src = &cols[row * len..(row + 1) * len];
                row += 1;
                let (wlo, whi) = w.valid(kj);
                let (mut j, mut pos) = (j0, 0);
                while pos < len {
                    let (oh, ow0) = (j / ow_n, j % ow_n);
                    let cnt = (ow_n - ow0).min(len - pos);
                    let seg = &src[pos..pos + cnt];
                    pos += cnt;
                    j += cnt;
                    let ih = h.at(oh, ki);
                    if ih < 0 || ih >= h.input as isize {
                        continue;
                    }
                    let a = wlo.clamp(ow0, ow0 + cnt);
                    let b = whi.clamp(a, ow0 + cnt);
                    if a == b {
                        continue;
                    }
                    let first = base + ih as usize * sh + w.at(a, kj) as usize * sw;
                    let step = w.stride * sw;
                    let mid = &seg[a - ow0..b - ow0];
                    if step == 1 {
                        for (o, &v) in dst[first..first + (b - a)].iter_mut().zip(mid) {
                            *o = T::add(*o, v);
                        }
                    } else {
                        for (i, &v) in mid.iter().enumerate() {
                            let p = first + i * step;
                            dst[p] = T::add(dst[p], v);
                        }
                    }
                }
            }
        }
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

fn mat(rs: usize, cs: usize) -> MatStrides {
    MatStrides {
        rs: rs as isize,
        cs: cs as isize,
    }
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
    let (k, l) = (d.k(), d.l());
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    if l > 0 && ocg > 0 && d.n > 0 && shifted::applies(d) {
        return shifted::conv_forward(d, x, xi, w, w_off, bias, out);
    }
    if let Some(b) = bias {
        fill_bias(out, b, l);
    }
    if l == 0 || ocg == 0 {
        return true;
    }
    let direct = d.direct(xi);
    let tl = tile_len::<T>(k, l);
    let mut buf = if direct.is_some() {
        Vec::new()
    } else {
        vec![T::zero(); k * tl]
    };
    let mut ok = true;
    for n in 0..d.n {
        for g in 0..d.groups {
            let c_off = n * d.oc * l + g * ocg * l;
            let w_at = w_off + g * ocg * k;
            if let Some(step) = direct {
                let spec = spec::<T>(ocg, l, k, mat(k, 1), mat(xi.strides[1], 0), l);
                let spec = GemmSpec {
                    b: MatStrides {
                        rs: xi.strides[1] as isize,
                        cs: step,
                    },
                    read_c: bias.is_some(),
                    ..spec
                };
                ok &= gemm_batched(&spec, w, x, out, &[[w_at, xi.at(n, g * cg), c_off]]);
                continue;
            }
            for j0 in (0..l).step_by(tl) {
                let len = tl.min(l - j0);
                let cols = &mut buf[..k * len];
                im2col(x, xi, n, g * cg, cg, &d.h, &d.w, j0, len, cols);
                let mut spec = spec::<T>(ocg, len, k, mat(k, 1), mat(len, 1), l);
                spec.read_c = bias.is_some();
                ok &= gemm_batched(&spec, w, cols, out, &[[w_at, 0, c_off + j0]]);
            }
        }
    }
    ok
}

/// A `C = A @ B` spec (C row stride `c_rs`, unit column stride, write-only C).
fn spec<T: MatElem>(
    m: usize,
    n: usize,
    k: usize,
    a: MatStrides,
    b: MatStrides,
    c_rs: usize,
) -> GemmSpec<T> {
    GemmSpec {
        m,
        n,
        k,
        a,
        b,
        c: mat(c_rs, 1),
        alpha: T::one(),
        beta: T::one(),
        read_c: false,
    }
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
    let (k, l) = (d.k(), d.l());
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    let hw = d.h.input * d.w.input;
    if let Some(b) = bias {
        fill_bias(gx, b, hw);
    }
    if l == 0 || cg == 0 || hw == 0 {
        return true;
    }
    let gxi = Image::contiguous(d.c, d.h.input, d.w.input);
    let direct = d.direct(&gxi);
    let tl = tile_len::<T>(k, l);
    let mut buf = if direct.is_some() {
        Vec::new()
    } else {
        vec![T::zero(); k * tl]
    };
    let mut ok = true;
    for n in 0..d.n {
        for g in 0..d.groups {
            let w_at = w_off + g * ocg * k;
            let gy_at = gyi.at(n, g * ocg);
            // W_g^T is (k x ocg): row stride 1, column stride k
            let wt = mat(1, k);
            let gym = mat(gyi.strides[1], gy_l);
            if ocg == 0 {
                continue;
            }
            if let Some(step) = direct {
                let spec = GemmSpec {
                    c: MatStrides {
                        rs: gxi.strides[1] as isize,
                        cs: step,
                    },
                    read_c: bias.is_some(),
                    ..spec::<T>(k, l, ocg, wt, gym, 0)
                };
                ok &= gemm_batched(&spec, w, gy, gx, &[[w_at, gy_at, gxi.at(n, g * cg)]]);
                continue;
            }
            for j0 in (0..l).step_by(tl) {
                let len = tl.min(l - j0);
                let cols = &mut buf[..k * len];
                let spec = spec::<T>(k, len, ocg, wt, gym, len);
                ok &= gemm_batched(&spec, w, gy, cols, &[[w_at, gy_at + j0 * gy_l, 0]]);
                col2im(cols, &gxi, n, g * cg, cg, &d.h, &d.w, j0, len, gx);
            }
        }
    }
    ok
}

/// The weight gradient `gw[g] = sum_n gy[n, g] @ im2col(x[n, g])^T` into `gw`
/// (contiguous (OC, C/g, kh, kw), freshly zeroed). `gy` as in [`conv_input_grad`].
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
    let (k, l) = (d.k(), d.l());
    let (cg, ocg) = (d.c / d.groups, d.oc / d.groups);
    if l == 0 || k == 0 || ocg == 0 {
        return true;
    }
    let direct = d.direct(xi);
    let tl = tile_len::<T>(k, l);
    let mut buf = if direct.is_some() {
        Vec::new()
    } else {
        vec![T::zero(); k * tl]
    };
    let mut ok = true;
    for n in 0..d.n {
        for g in 0..d.groups {
            let gw_at = g * ocg * k;
            let gy_at = gyi.at(n, g * ocg);
            let gym = mat(gyi.strides[1], gy_l);
            if let Some(step) = direct {
                // B = x[n, g]^T: (l x k) with row stride `step`, column stride C-stride
                let spec = GemmSpec {
                    b: MatStrides {
                        rs: step,
                        cs: xi.strides[1] as isize,
                    },
                    read_c: true,
                    ..spec::<T>(ocg, k, l, gym, mat(0, 0), k)
                };
                ok &= gemm_batched(&spec, gy, x, gw, &[[gy_at, xi.at(n, g * cg), gw_at]]);
                continue;
            }
            for j0 in (0..l).step_by(tl) {
                let len = tl.min(l - j0);
                let cols = &mut buf[..k * len];
                im2col(x, xi, n, g * cg, cg, &d.h, &d.w, j0, len, cols);
                let spec = GemmSpec {
                    read_c: true,
                    ..spec::<T>(ocg, k, len, gym, mat(1, len), k)
                };
                ok &= gemm_batched(&spec, gy, cols, gw, &[[gy_at + j0 * gy_l, 0, gw_at]]);
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests;
