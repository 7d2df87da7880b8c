//! Pooling ops: `max_pool2d` (with indices), `avg_pool2d`, `adaptive_avg_pool2d`,
//! `adaptive_max_pool2d` and their backward ops, with PyTorch's checks and messages.
//! 1-d pools are 2-d pools over a unit height (done by the autograd layer with views).

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
/// How an average pool divides (`count_include_pad`, `divisor_override`). The kernel
/// defines it; the autograd layer and the bindings name it through this op module.
pub use crate::kernels::conv::pool::AvgRule;
use crate::kernels::conv::pool::{self as kern, Planes};
use crate::kernels::conv::{Axis, Image};
use crate::ops::compute;
use crate::shape::Dims;
use crate::tensor::Tensor;

fn rt(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", msg)
}

/// Where a pool reads: the planes of a 3-d (C, H, W) or 4-d (N, C, H, W) input and the
/// window geometry per spatial dim (adaptive pools only use `input` and `output`).
#[derive(Clone, Copy, Debug)]
pub struct PoolGeom {
    pub planes: Planes,
    pub h: Axis,
    pub w: Axis,
    /// The input was 3-d (outputs are 3-d too).
    pub unbatched: bool,
}

impl PoolGeom {
    /// Output shape: the input's leading dims with the pooled sizes.
    pub fn out_shape(&self) -> Dims {
        self.shape(self.h.output, self.w.output)
    }
    pub fn in_shape(&self) -> Dims {
        self.shape(self.h.input, self.w.input)
    }
    fn shape(&self, h: usize, w: usize) -> Dims {
        let mut s = Dims::new();
        if !self.unbatched {
            s.push(self.planes.n);
        }
        s.extend([self.planes.c, h, w]);
        s
    }
    fn count(&self) -> usize {
        self.planes.n * self.planes.c
    }
}

fn image(x: &Tensor) -> Image {
    let s: Vec<usize> = x.strides().iter().map(|&v| v.max(0) as usize).collect();
    let strides = if x.ndim() == 3 {
        [0, s[0], s[1], s[2]]
    } else {
        [s[0], s[1], s[2], s[3]]
    };
    Image {
        offset: x.layout.offset,
        strides,
    }
}

/// A kernel_size / stride / padding / dilation argument: one or two values (stride may be
/// empty, meaning "same as kernel_size").
fn pair(op: &str, what: &str, v: &[i64], fallback: Option<[i64; 2]>) -> Result<[i64; 2]> {
    match (v.len(), fallback) {
        (0, Some(f)) => Ok(f),
        (1, _) => Ok([v[0], v[0]]),
        (2, _) => Ok([v[0], v[1]]),
        _ => Err(rt(match what {
            "stride" => {
                format!("{op}: stride must either be omitted, a single int, or a tuple of two ints")
            }
            "dilation" => {
                format!("{op}: dilation must be either a single int, or a tuple of two ints")
            }
            _ => format!("{op}: {what} must either be a single int, or a tuple of two ints"),
        })),
    }
}

/// PyTorch's `pooling_output_shape` (with its checks), as a signed size.
fn pooling_output(input: i64, k: i64, pad: i64, stride: i64, dil: i64, ceil: bool) -> Result<i64> {
    if stride == 0 {
        return Err(rt("stride should not be zero"));
    }
    if pad < 0 {
        return Err(rt(format!("pad must be non-negative, but got pad: {pad}")));
    }
    let eff = (k as i128 - 1) * dil as i128 + 1;
    if pad as i128 > eff / 2 {
        return Err(rt(format!(
            "pad should be at most half of effective kernel size, but got pad={pad}, \
             kernel_size={k} and dilation={dil}"
        )));
    }
    let (i, s) = (input as i128, stride as i128);
    let num = i + 2 * pad as i128 - eff + if ceil { s - 1 } else { 0 };
    let mut out = num.div_euclid(s) + 1;
    if ceil && (out - 1) * s >= i + pad as i128 {
        out -= 1;
    }
    Ok(out.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// The shared 2-d window checks (PyTorch's `pool2d_shape_check`).
#[allow(clippy::too_many_arguments)]
fn shape_check(
    x: &Tensor,
    k: [i64; 2],
    s: [i64; 2],
    p: [i64; 2],
    d: [i64; 2],
    out: [i64; 2],
) -> Result<()> {
    if k[0] <= 0 || k[1] <= 0 {
        return Err(rt(format!(
            "kernel size should be greater than zero, but got kH: {} kW: {}",
            k[0], k[1]
        )));
    }
    if s[0] <= 0 || s[1] <= 0 {
        return Err(rt(format!(
            "stride should be greater than zero, but got dH: {} dW: {}",
            s[0], s[1]
        )));
    }
    if d[0] <= 0 || d[1] <= 0 {
        return Err(rt(format!(
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            d[0], d[1]
        )));
    }
    check_dims(x)?;
    if k[1] / 2 < p[1] || k[0] / 2 < p[0] {
        return Err(rt(format!(
            "pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = \
             {}, kW = {}, kH = {}",
            p[1], p[0], k[1], k[0]
        )));
    }
    let xs = x.shape();
    let nd = xs.len();
    if out[0] < 1 || out[1] < 1 {
        return Err(rt(format!(
            "Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). Output size is too \
             small",
            xs[nd - 3],
            xs[nd - 2],
            xs[nd - 1],
            xs[nd - 3],
            out[0],
            out[1]
        )));
    }
    Ok(())
}

/// 3-d with no empty dim, or 4-d with only the batch dim possibly empty.
fn check_dims(x: &Tensor) -> Result<()> {
    let s = x.shape();
    let ok = match s.len() {
        3 => !s.contains(&0),
        4 => !s[1..].contains(&0),
        _ => false,
    };
    if !ok {
        return Err(rt(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but \
             got:{}",
            fmt_shape(s)
        )));
    }
    Ok(())
}

fn planes_of(x: &Tensor) -> Planes {
    let s = x.shape();
    if s.len() == 3 {
        Planes { n: 1, c: s[0] }
    } else {
        Planes { n: s[0], c: s[1] }
    }
}

fn geom(x: &Tensor, k: [i64; 2], s: [i64; 2], p: [i64; 2], d: [i64; 2], out: [i64; 2]) -> PoolGeom {
    let nd = x.ndim();
    let axis = |i: usize| Axis {
        input: x.shape()[nd - 2 + i],
        output: out[i] as usize,
        kernel: k[i] as usize,
        stride: s[i] as usize,
        pad: p[i] as usize,
        dilation: d[i] as usize,
    };
    PoolGeom {
        planes: planes_of(x),
        h: axis(0),
        w: axis(1),
        unbatched: nd == 3,
    }
}

/// Validates a `max_pool2d` call (PyTorch's order and messages).
pub fn plan_max_pool2d(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil: bool,
) -> Result<PoolGeom> {
    let op = "max_pool2d";
    let k = pair(op, "kernel_size", kernel, None)?;
    let s = pair(op, "stride", stride, Some(k))?;
    let p = pair(op, "padding", padding, None)?;
    let d = pair(op, "dilation", dilation, None)?;
    if x.ndim() != 3 && x.ndim() != 4 {
        return Err(rt(
            "non-empty 3D or 4D (batch mode) tensor expected for input",
        ));
    }
    let nd = x.ndim();
    let oh = pooling_output(x.shape()[nd - 2] as i64, k[0], p[0], s[0], d[0], ceil)?;
    let ow = pooling_output(x.shape()[nd - 1] as i64, k[1], p[1], s[1], d[1], ceil)?;
    shape_check(x, k, s, p, d, [oh, ow])?;
    Ok(geom(x, k, s, p, d, [oh, ow]))
}

/// Validates an `avg_pool2d` call.
pub fn plan_avg_pool2d(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil: bool,
    divisor_override: Option<i64>,
) -> Result<PoolGeom> {
    let op = "avg_pool2d";
    let k = pair(op, "kernel_size", kernel, None)?;
    let s = pair(op, "stride", stride, Some(k))?;
    let p = pair(op, "padding", padding, None)?;
    if divisor_override == Some(0) {
        return Err(rt("divisor must be not zero"));
    }
    let nd = x.ndim();
    if nd < 3 {
        // PyTorch reads input.size(-3) before checking the rank
        return Err(Error::index(
            "",
            format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got -3)",
                -(nd.max(1) as i64),
                nd.max(1) as i64 - 1
            ),
        ));
    }
    let oh = pooling_output(x.shape()[nd - 2] as i64, k[0], p[0], s[0], 1, ceil)?;
    let ow = pooling_output(x.shape()[nd - 1] as i64, k[1], p[1], s[1], 1, ceil)?;
    shape_check(x, k, s, p, [1, 1], [oh, ow])?;
    Ok(geom(x, k, s, p, [1, 1], [oh, ow]))
}

/// Validates an adaptive pool call; `sizes` already has `None` entries filled in.
pub fn plan_adaptive(op: &str, x: &Tensor, sizes: &[i64]) -> Result<PoolGeom> {
    let max = op == "adaptive_max_pool2d";
    let xs = x.shape();
    let nd = xs.len();
    if !max {
        if sizes.len() != 2 {
            return Err(rt(format!("{op}: output_size must be 2")));
        }
        if sizes[0] < 0 || sizes[1] < 0 {
            return Err(rt(format!(
                "{op}: elements of output_size must be greater than or equal to 0 but received \
                 {{{}, {}}}",
                sizes[0], sizes[1]
            )));
        }
    }
    if nd != 3 && nd != 4 {
        let sep = if max { ": " } else { " " };
        return Err(rt(format!(
            "{op}(): Expected 3D or 4D tensor, but got{sep}{}",
            fmt_shape(xs)
        )));
    }
    let first = if max { 1 } else { nd - 2 };
    if let Some(i) = (first..nd).find(|&i| xs[i] == 0) {
        return Err(rt(format!(
            "{op}(): Expected input to have non-zero size for non-batch dimensions, but input has \
             sizes {} with dimension {i} being empty",
            fmt_shape(xs)
        )));
    }
    if max && sizes.len() != 2 {
        return Err(rt(format!(
            "{op}(): internal error: output_size.size() must be 2"
        )));
    }
    if let Some(&neg) = sizes.iter().find(|&&v| v < 0) {
        // PyTorch fails allocating the output
        let mut shape: Vec<String> = xs[..nd - 2].iter().map(|d| d.to_string()).collect();
        shape.extend(sizes.iter().map(|d| d.to_string()));
        return Err(rt(format!(
            "Trying to create tensor with negative dimension {neg}: [{}]",
            shape.join(", ")
        )));
    }
    let axis = |i: usize| Axis {
        input: xs[nd - 2 + i],
        output: sizes[i] as usize,
        kernel: 1,
        stride: 1,
        pad: 0,
        dilation: 1,
    };
    Ok(PoolGeom {
        planes: planes_of(x),
        h: axis(0),
        w: axis(1),
        unbatched: nd == 3,
    })
}

fn unsupported(kernel: &str, d: DType) -> Error {
    Error::dtype_not_implemented(kernel, d)
}

/// `max_pool2d_with_indices` forward: (values, int64 indices into each H*W plane).
pub fn max_pool2d(x: &Tensor, g: &PoolGeom) -> Result<(Tensor, Tensor)> {
    if !x.dtype().is_compute() {
        let (v, i) = max_pool2d(&compute::input(x)?, g)?;
        return Ok((compute::output(x.dtype(), v)?, i));
    }
    let shape = g.out_shape();
    let out = Tensor::zeros("max_pool2d", &shape, x.dtype())?;
    let idx = Tensor::zeros("max_pool2d", &shape, DType::I64)?;
    if out.numel() == 0 {
        return Ok((out, idx));
    }
    let img = image(x);
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: $T is x's dtype; `out`/`idx` are fresh buffers distinct from x.
            unsafe {
                kern::max_pool2d::<$T>(
                    x.data(),
                    &img,
                    g.planes,
                    &g.h,
                    &g.w,
                    out.data_mut(),
                    idx.data_mut(),
                )
            }
        };
    }
    match x.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        DType::I64 => run!(i64),
        d => return Err(unsupported("max_pool2d", d)),
    }
    Ok((out, idx))
}

/// Scatters `gy` to the argmax positions `idx` (both shaped like the pool's output) into
/// zeros of `in_shape` (max pooling and adaptive max pooling backward).
pub fn max_pool_backward(gy: &Tensor, idx: &Tensor, in_shape: &[usize]) -> Result<Tensor> {
    let gx = Tensor::zeros("max_pool2d_backward", in_shape, gy.dtype())?;
    let nd = in_shape.len();
    if nd < 2 || gy.shape() != idx.shape() || idx.dtype() != DType::I64 {
        return Err(rt(
            "max_pool2d_backward: internal error: mismatched operands",
        ));
    }
    let hw = in_shape[nd - 2] * in_shape[nd - 1];
    let planes = gx.numel().checked_div(hw).unwrap_or(0);
    let l = gy.numel().checked_div(planes).unwrap_or(0);
    if planes * l != gy.numel() {
        return Err(rt(
            "max_pool2d_backward: internal error: mismatched operands",
        ));
    }
    let (gy, idx) = (gy.dense()?, idx.dense()?);
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: dtypes match; `gx` is fresh.
            unsafe {
                kern::max_pool_backward::<$T>(gy.data(), idx.data(), planes, l, hw, gx.data_mut())
            }
        };
    }
    let ok = match gy.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(unsupported("max_pool2d_with_indices_backward", d)),
    };
    if !ok {
        return Err(rt("max_pool2d_backward: index out of range"));
    }
    Ok(gx)
}

/// `avg_pool2d` forward.
pub fn avg_pool2d(x: &Tensor, g: &PoolGeom, rule: AvgRule) -> Result<Tensor> {
    if !x.dtype().is_compute() {
        return compute::unary(x, |c| avg_pool2d(c, g, rule));
    }
    let out = Tensor::zeros("avg_pool2d", &g.out_shape(), x.dtype())?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let img = image(x);
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: $T is x's dtype; `out` is fresh.
            unsafe {
                kern::avg_pool2d::<$T>(x.data(), &img, g.planes, &g.h, &g.w, rule, out.data_mut())
            }
        };
    }
    match x.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        DType::I64 => run!(i64),
        d => return Err(unsupported("avg_pool2d", d)),
    }
    Ok(out)
}

/// The adjoint of `avg_pool2d`: `gy` (the output's shape) -> the input's shape.
pub fn avg_pool2d_backward(gy: &Tensor, g: &PoolGeom, rule: AvgRule) -> Result<Tensor> {
    check_grad("avg_pool2d_backward", gy, &g.out_shape())?;
    let gx = Tensor::zeros("avg_pool2d_backward", &g.in_shape(), gy.dtype())?;
    let gy = gy.dense()?;
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: dtypes match; `gx` is fresh.
            unsafe {
                kern::avg_pool2d_backward::<$T>(
                    gy.data(),
                    g.count(),
                    &g.h,
                    &g.w,
                    rule,
                    gx.data_mut(),
                )
            }
        };
    }
    match gy.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(unsupported("avg_pool2d_backward_out_frame", d)),
    }
    Ok(gx)
}

fn check_grad(op: &str, gy: &Tensor, shape: &[usize]) -> Result<()> {
    if gy.shape() != shape {
        return Err(rt(format!(
            "{op}: internal error: gradient of size {} for an output of size {}",
            fmt_shape(gy.shape()),
            fmt_shape(shape)
        )));
    }
    Ok(())
}

/// Adaptive average pooling (`idx` None) or adaptive max pooling (values and indices).
pub fn adaptive_pool2d(x: &Tensor, g: &PoolGeom, max: bool) -> Result<(Tensor, Option<Tensor>)> {
    let op = if max {
        "adaptive_max_pool2d"
    } else {
        "adaptive_avg_pool2d"
    };
    if x.dtype().is_float() && !x.dtype().is_compute() {
        // float16/bfloat16 pool in float32: exact for a maximum, one rounding for a mean
        let (v, i) = adaptive_pool2d(&compute::input(x)?, g, max)?;
        return Ok((compute::output(x.dtype(), v)?, i));
    }
    let shape = g.out_shape();
    let out = Tensor::zeros(op, &shape, x.dtype())?;
    let idx = if max {
        Some(Tensor::zeros(op, &shape, DType::I64)?)
    } else {
        None
    };
    if !x.dtype().is_float() {
        return Err(unsupported(op, x.dtype()));
    }
    if out.numel() == 0 {
        return Ok((out, idx));
    }
    let img = image(x);
    let (ins, outs) = ((g.h.input, g.w.input), (g.h.output, g.w.output));
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: $T is x's dtype; `out`/`idx` are fresh.
            unsafe {
                kern::adaptive_pool2d::<$T>(
                    x.data(),
                    &img,
                    g.planes,
                    ins,
                    outs,
                    out.data_mut(),
                    idx.as_ref().map(|i| i.data_mut::<i64>()),
                )
            }
        };
    }
    match x.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(unsupported(op, d)),
    }
    Ok((out, idx))
}

/// The adjoint of adaptive average pooling.
pub fn adaptive_avg_backward(gy: &Tensor, g: &PoolGeom) -> Result<Tensor> {
    check_grad("adaptive_avg_pool2d_backward", gy, &g.out_shape())?;
    let gx = Tensor::zeros("adaptive_avg_pool2d_backward", &g.in_shape(), gy.dtype())?;
    let gy = gy.dense()?;
    let (ins, outs) = ((g.h.input, g.w.input), (g.h.output, g.w.output));
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: dtypes match; `gx` is fresh.
            unsafe {
                kern::adaptive_avg_backward::<$T>(gy.data(), g.count(), ins, outs, gx.data_mut())
            }
        };
    }
    match gy.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        d => return Err(unsupported("adaptive_avg_pool2d_backward_cpu", d)),
    }
    Ok(gx)
}

/// The checks of the 1-d pools that run through a 2-d pool (PyTorch's `checkDimRange`
/// for 2..=3 dims and `check1d` for each list argument).
pub fn check_pool1d(op: &str, x: &Tensor, lists: &[(&str, &[i64])]) -> Result<()> {
    let nd = x.ndim();
    if !(2..4).contains(&nd) {
        return Err(rt(format!(
            "Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' \
             (while checking arguments for {op})"
        )));
    }
    for (name, v) in lists {
        if v.len() != 1 {
            return Err(rt(format!(
                "{op}() argument '{name}' should contain one int (got {})",
                v.len()
            )));
        }
    }
    Ok(())
}

/// The checks of `max_pool1d` without indices (PyTorch's `check_max_pool1d`); the
/// values-only kernel is float-only.
pub fn check_max_pool1d(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil: bool,
) -> Result<()> {
    let op = "max_pool1d()";
    let nd = x.ndim();
    if nd != 2 && nd != 3 {
        return Err(rt(format!(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size \
             for input, but got:{}",
            fmt_shape(x.shape())
        )));
    }
    let size = |what: &str, v: &[i64], opt: bool| -> Result<()> {
        if v.len() == 1 || (opt && v.is_empty()) {
            return Ok(());
        }
        let kind = match what {
            "stride" => "must be None, an int, list of ints, or tuple of ints",
            "padding" => "must be an int, list of ints, or tuple of ints",
            _ => "must be an int, list of ints or tuple of ints",
        };
        Err(rt(format!(
            "{op} {what} {kind} of size 1 but got size {}",
            v.len()
        )))
    };
    size("kernel_size", kernel, false)?;
    size("stride", stride, true)?;
    size("padding", padding, false)?;
    size("dilation", dilation, false)?;
    let (k, p, d) = (kernel[0], padding[0], dilation[0]);
    let s = stride.first().copied().unwrap_or(k);
    if k <= 0 {
        return Err(rt(format!(
            "{op} kernel_size must be greater than zero, but got {k}"
        )));
    }
    if s <= 0 {
        return Err(rt(format!(
            "{op} stride must be greater than zero, but got {s}"
        )));
    }
    if p < 0 {
        return Err(rt(format!(
            "{op} padding must be non-negative, but got {p}"
        )));
    }
    if p > k / 2 {
        return Err(rt(format!(
            "{op} padding should be at most half of kernel size, but got padding={p} and \
             kernel_size={k}"
        )));
    }
    if d <= 0 {
        return Err(rt(format!(
            "{op} dilation must be greater than zero, but got {d}"
        )));
    }
    let ow = pooling_output(x.shape()[nd - 1] as i64, k, p, s, d, ceil)?;
    if ow <= 0 {
        return Err(rt(format!("{op} Invalid computed output size: {ow}")));
    }
    if !x.dtype().is_float() {
        return Err(unsupported("max_pool1d_impl", x.dtype()));
    }
    Ok(())
}
