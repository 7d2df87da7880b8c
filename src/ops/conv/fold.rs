//! `unfold` (im2col) and `fold` (col2im), the adjoint pair behind `nn.Unfold` /
//! `nn.Fold`, with PyTorch's checks and messages.

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::conv::{self as kern, Axis, Cols, Image};
use crate::ops::compute;
use crate::tensor::Tensor;

fn rt(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", msg)
}

/// The sliding-block geometry of an unfold/fold: `h`/`w` map block positions (the
/// `output` side) onto image positions (the `input` side).
#[derive(Clone, Copy, Debug)]
pub struct FoldGeom {
    pub h: Axis,
    pub w: Axis,
    /// Channels of the image.
    pub c: usize,
    /// Batch size, or None for unbatched tensors.
    pub n: Option<usize>,
}

impl FoldGeom {
    /// Shape of the image side: (N, C, H, W) or (C, H, W).
    pub fn image_shape(&self) -> Vec<usize> {
        self.with_batch(&[self.c, self.h.input, self.w.input])
    }
    /// Shape of the columns side: (N, C*kh*kw, L) or (C*kh*kw, L).
    pub fn cols_shape(&self) -> Vec<usize> {
        self.with_batch(&[
            self.c * self.h.kernel * self.w.kernel,
            self.h.output * self.w.output,
        ])
    }
    fn with_batch(&self, s: &[usize]) -> Vec<usize> {
        let mut v: Vec<usize> = self.n.into_iter().collect();
        v.extend_from_slice(s);
        v
    }
    fn batch(&self) -> usize {
        self.n.unwrap_or(1)
    }
}

/// Two values from a `_pair`-style argument, or PyTorch's size message.
fn two(what: &str, v: &[i64]) -> Result<[i64; 2]> {
    match v.len() {
        1 => Ok([v[0], v[0]]),
        2 => Ok([v[0], v[1]]),
        n => Err(rt(format!(
            "It is expected {what} equals to 2, but got size {n}"
        ))),
    }
}

struct Params {
    k: [i64; 2],
    d: [i64; 2],
    p: [i64; 2],
    s: [i64; 2],
}

fn params(kernel: &[i64], dilation: &[i64], padding: &[i64], stride: &[i64]) -> Result<Params> {
    Ok(Params {
        k: two("kernel_size", kernel)?,
        d: two("dilation", dilation)?,
        p: two("padding", padding)?,
        s: two("stride", stride)?,
    })
}

impl Params {
    fn check(&self, fold: bool) -> Result<()> {
        let (k, d, p, s) = (self.k, self.d, self.p, self.s);
        let kernel = || {
            (k[0] <= 0 || k[1] <= 0).then(|| {
                format!(
                    "kernel size should be greater than zero, but got kernel_height: {} \
                     kernel_width: {}",
                    k[0], k[1]
                )
            })
        };
        let dil = || {
            (d[0] <= 0 || d[1] <= 0).then(|| {
                format!(
                    "dilation should be greater than zero, but got dilation_height: {} \
                     dilation_width: {}",
                    d[0], d[1]
                )
            })
        };
        let pad = || {
            (p[0] < 0 || p[1] < 0).then(|| {
                format!(
                    "padding should be non-negative, but got pad_height: {} pad_width: {}",
                    p[0], p[1]
                )
            })
        };
        let stride = || {
            (s[0] <= 0 || s[1] <= 0).then(|| {
                format!(
                    "stride should be greater than zero, but got stride_height: {} stride_width: {}",
                    s[0], s[1]
                )
            })
        };
        // fold and unfold check in different orders
        let order = if fold {
            [kernel(), stride(), dil(), pad()]
        } else {
            [kernel(), dil(), pad(), stride()]
        };
        match order.into_iter().flatten().next() {
            Some(m) => Err(rt(m)),
            None => Ok(()),
        }
    }

    /// Number of sliding blocks along dim `i` of an image of size `size` (floor division).
    fn blocks(&self, i: usize, size: i64) -> i64 {
        let num = size as i128 + 2 * self.p[i] as i128
            - (self.d[i] as i128 * (self.k[i] as i128 - 1) + 1);
        (num.div_euclid(self.s[i] as i128) + 1).clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    fn axis(&self, i: usize, input: usize, output: usize) -> Axis {
        Axis {
            input,
            output,
            kernel: self.k[i] as usize,
            stride: self.s[i] as usize,
            pad: self.p[i] as usize,
            dilation: self.d[i] as usize,
        }
    }

    fn describe(&self) -> String {
        let (k, d, p) = (self.k, self.d, self.p);
        format!(
            "kernel_size=({}, {}), dilation=({}, {}), padding=({}, {})",
            k[0], k[1], d[0], d[1], p[0], p[1]
        )
    }
}

/// Validates an `unfold` call.
pub fn plan_unfold(
    x: &Tensor,
    kernel: &[i64],
    dilation: &[i64],
    padding: &[i64],
    stride: &[i64],
) -> Result<FoldGeom> {
    let pr = params(kernel, dilation, padding, stride)?;
    pr.check(false)?;
    let xs = x.shape();
    let nd = xs.len();
    if nd < 3 {
        return Err(Error::index(
            "",
            format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got {})",
                -(nd.max(1) as i64),
                nd.max(1) as i64 - 1,
                if nd < 2 { 1 } else { 2 }
            ),
        ));
    }
    let ok = (nd == 3 && !xs.contains(&0)) || (nd == 4 && !xs[1..].contains(&0));
    if !ok {
        return Err(rt(format!(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero \
             dimensions for input, but got: {}",
            fmt_shape(xs)
        )));
    }
    let (h, w) = (xs[nd - 2], xs[nd - 1]);
    let (bh, bw) = (pr.blocks(0, h as i64), pr.blocks(1, w as i64));
    if bh < 1 || bw < 1 {
        return Err(rt(format!(
            "Given input with spatial size ({h}, {w}), {}, calculated shape of the array of \
             sliding blocks as ({bh}, {bw}), but its components must be at least one.",
            pr.describe()
        )));
    }
    Ok(FoldGeom {
        h: pr.axis(0, h, bh as usize),
        w: pr.axis(1, w, bw as usize),
        c: xs[nd - 3],
        n: (nd == 4).then(|| xs[0]),
    })
}

/// Validates a `fold` call.
pub fn plan_fold(
    x: &Tensor,
    output_size: &[i64],
    kernel: &[i64],
    dilation: &[i64],
    padding: &[i64],
    stride: &[i64],
) -> Result<FoldGeom> {
    let out = two("output_size", output_size)?;
    let pr = params(kernel, dilation, padding, stride)?;
    pr.check(true)?;
    let xs = x.shape();
    let nd = xs.len();
    let ok = (nd == 2 && !xs.contains(&0)) || (nd == 3 && !xs[1..].contains(&0));
    if !ok {
        return Err(rt(format!(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and \
             non-zero dimensions for input, but got: {}",
            fmt_shape(xs)
        )));
    }
    let planes = xs[nd - 2];
    let kk = pr.k[0].checked_mul(pr.k[1]).ok_or_else(|| {
        rt(format!(
            "Given kernel_width = {} and kernel_height = {} the product of kernel_width and \
             kernel_height overflowed.",
            pr.k[1], pr.k[0]
        ))
    })? as usize;
    if !planes.is_multiple_of(kk) {
        return Err(rt(format!(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, \
             but got input.size(1)={planes} and kernel_size=({}, {}).",
            pr.k[0], pr.k[1]
        )));
    }
    let length = xs[nd - 1] as i128;
    let (bh, bw) = (pr.blocks(0, out[0]), pr.blocks(1, out[1]));
    let full = format!(
        "Given output_size=({}, {}), {}, stride=({}, {})",
        out[0],
        out[1],
        pr.describe(),
        pr.s[0],
        pr.s[1]
    );
    if length != bh as i128 * bw as i128 {
        return Err(rt(format!(
            "{full}, expected size of input's dimension 2 to match the calculated number of \
             sliding blocks {bh} * {bw} = {}, but got input.size(2)={length}.",
            bh as i128 * bw as i128
        )));
    }
    if bh < 1 || bw < 1 {
        return Err(rt(format!(
            "{full}, calculated shape of the array of sliding blocks as ({bh}, {bw}), which is too \
             small (non-positive)"
        )));
    }
    if out[0] < 1 || out[1] < 1 {
        return Err(rt(format!(
            "Expected output spatial size to be positive, but got: output_size=({}, {}).",
            out[0], out[1]
        )));
    }
    Ok(FoldGeom {
        h: pr.axis(0, out[0] as usize, bh as usize),
        w: pr.axis(1, out[1] as usize, bw as usize),
        c: planes / kk,
        n: (nd == 3).then(|| xs[0]),
    })
}

fn float_only(kernel: &str, d: DType) -> Result<()> {
    if d.is_float() {
        Ok(())
    } else {
        Err(Error::dtype_not_implemented(kernel, d))
    }
}

/// `unfold`: the image (read through its strides) -> its columns (contiguous).
pub fn unfold(x: &Tensor, g: &FoldGeom) -> Result<Tensor> {
    float_only("im2col_out_cpu", x.dtype())?;
    if !x.dtype().is_compute() {
        // float16/bfloat16 through float32: a copy, so exact
        return compute::unary(x, |c| unfold(c, g));
    }
    let out = Tensor::zeros("unfold", &g.cols_shape(), x.dtype())?;
    let (c, l) = (g.c, g.h.output * g.w.output);
    let rows = c * g.h.kernel * g.w.kernel;
    if out.numel() == 0 {
        return Ok(out);
    }
    let s: Vec<usize> = x.strides().iter().map(|&v| v.max(0) as usize).collect();
    let nd = s.len();
    let img = Image {
        offset: x.layout.offset,
        strides: [
            if nd == 4 { s[0] } else { 0 },
            s[nd - 3],
            s[nd - 2],
            s[nd - 1],
        ],
    };
    macro_rules! run {
        ($T:ty) => {{
            // SAFETY: $T is x's dtype; `out` is a fresh buffer.
            let (src, dst) = unsafe { (x.data::<$T>(), out.data_mut::<$T>()) };
            for (n, block) in dst.chunks_mut(rows * l).enumerate() {
                kern::im2col(src, &img, 0, c, &g.h, &g.w, &Cols::image(n, l), block);
            }
        }};
    }
    match x.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(Error::dtype_not_implemented("im2col_out_cpu", d)),
    }
    Ok(out)
}

/// `fold`: columns -> the image they sum into (the adjoint of `unfold`).
pub fn fold(x: &Tensor, g: &FoldGeom) -> Result<Tensor> {
    float_only("col2im_out_cpu", x.dtype())?;
    if !x.dtype().is_compute() {
        // float16/bfloat16 sum their overlaps in float32 and round once
        return compute::unary(x, |c| fold(c, g));
    }
    if x.shape() != g.cols_shape().as_slice() {
        return Err(rt("fold: internal error: columns do not fit the geometry"));
    }
    let out = Tensor::zeros("fold", &g.image_shape(), x.dtype())?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let (c, l) = (g.c, g.h.output * g.w.output);
    let rows = c * g.h.kernel * g.w.kernel;
    let img = Image::contiguous(c, g.h.input, g.w.input);
    let x = x.dense()?;
    macro_rules! run {
        ($T:ty) => {{
            // SAFETY: $T is x's dtype; `out` is a fresh buffer.
            let (src, dst) = unsafe { (x.data::<$T>(), out.data_mut::<$T>()) };
            for n in 0..g.batch() {
                let cols = &src[n * rows * l..(n + 1) * rows * l];
                kern::col2im(cols, &img, 0, c, &g.h, &g.w, &Cols::image(n, l), dst);
            }
        }};
    }
    match x.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(Error::dtype_not_implemented("col2im_out_cpu", d)),
    }
    Ok(out)
}
