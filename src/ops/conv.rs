//! Convolutions (`conv1d`, `conv2d`, `conv_transpose1d`, `conv_transpose2d`), with
//! PyTorch's argument checks and messages; pooling and fold/unfold are in submodules.
//!
//! A convolution is reduced to a [`ConvGeom`]: groups plus one [`Axis`] per spatial dim
//! giving the input and output sizes explicitly. Three products share a geometry and are
//! exact adjoints of each other, which is what autograd builds on:
//!
//! * [`ConvGeom::conv`]: x (N, C, in...) -> y (N, OC, out...), the forward convolution;
//! * [`ConvGeom::conv_transpose`]: y -> x, the input gradient and transposed convolution;
//! * [`ConvGeom::weight_grad`]: (x, y) -> w (OC, C/g, k...), the weight gradient.
//!
//! Tensors have 1 or 2 spatial dims (`sd`); 1-d ones are viewed as 2-d with a height of 1.

pub mod fold;
pub mod pool;

use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::conv::{self as kern, Axis, ConvDims, Image};
use crate::ops::compute;
use crate::tensor::Tensor;

/// Groups and per-dim geometry of one convolution (see the module docs). For 1-d
/// convolutions `h` is the trivial axis of size 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeom {
    pub sd: usize,
    pub groups: usize,
    pub h: Axis,
    pub w: Axis,
}

/// The axis of the dummy height of a 1-d convolution.
pub const UNIT_AXIS: Axis = Axis {
    input: 1,
    output: 1,
    kernel: 1,
    stride: 1,
    pad: 0,
    dilation: 1,
};

/// `padding=` of a convolution: explicit sizes or PyTorch's 'valid' / 'same'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    Explicit(Vec<i64>),
    Valid,
    Same,
}

/// The user's arguments of a convolution (lists as given, expanded from one value).
#[derive(Clone, Debug)]
pub struct ConvArgs {
    pub stride: Vec<i64>,
    pub padding: Padding,
    pub dilation: Vec<i64>,
    pub groups: i64,
    /// Only for transposed convolutions.
    pub output_padding: Vec<i64>,
}

fn rt(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", msg)
}

fn list(v: &[i64]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", s.join(", "))
}

/// PyTorch's `expand_param_if_needed`: one value is repeated for every spatial dim.
fn expand_param(name: &str, v: &[i64], k: usize) -> Result<Vec<i64>> {
    if v.len() == 1 {
        return Ok(vec![v[0]; k]);
    }
    if v.len() != k {
        return Err(rt(format!(
            "expected {name} to be a single integer value or a list of {k} values to match the \
             convolution dimensions, but got {name}={}",
            list(v)
        )));
    }
    Ok(v.to_vec())
}

/// Reads the `sd` spatial sizes of a (N, C, ...) shape as (h, w) (h = 1 for 1-d).
fn hw(shape: &[usize], sd: usize) -> (usize, usize) {
    let n = shape.len();
    if sd == 1 {
        (1, shape[n - 1])
    } else {
        (shape[n - 2], shape[n - 1])
    }
}

/// PyTorch's C++ type name for "Input type (float) and bias type (double)" messages.
fn c_type(d: DType) -> &'static str {
    d.cpp_name()
}

/// Validates a convolution call exactly in PyTorch's order and builds its geometry.
/// `x` must already be batched (N, C, spatial...). Returns the geometry and, for 'same'
/// padding, nothing more: asymmetric 'same' padding is folded into the explicit output
/// size (the extra pad is on the right, as in PyTorch).
pub fn plan(
    op: &str,
    sd: usize,
    transposed: bool,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    a: &ConvArgs,
) -> Result<ConvGeom> {
    let ws = w.shape();
    if ws.len() < 3 {
        return Err(rt("weight should have at least three dimensions"));
    }
    let k = ws.len() - 2;
    let stride = expand_param("stride", &a.stride, k)?;
    let same = a.padding == Padding::Same;
    if same && stride.iter().any(|&s| s != 1) {
        return Err(rt(
            "padding='same' is not supported for strided convolutions",
        ));
    }
    let padding = match &a.padding {
        Padding::Explicit(p) => expand_param("padding", p, k)?,
        Padding::Valid | Padding::Same => vec![0; k],
    };
    let dilation = expand_param("dilation", &a.dilation, k)?;
    let output_padding = if transposed {
        expand_param("output_padding", &a.output_padding, k)?
    } else {
        vec![0; k]
    };
    if padding.iter().any(|&p| p < 0) {
        return Err(rt("negative padding is not supported"));
    }
    if output_padding.iter().any(|&p| p < 0) {
        return Err(rt("negative output_padding is not supported"));
    }
    if stride.iter().any(|&s| s <= 0) {
        return Err(rt("non-positive stride is not supported"));
    }
    if dilation.iter().any(|&d| d < 0) {
        return Err(rt("dilation should be greater than zero"));
    }
    let xs = x.shape();
    if xs.len() != ws.len() {
        return Err(rt(format!(
            "Expected {k2}-dimensional input for {k2}-dimensional weight {}, but got {}-dimensional \
             input of size {} instead",
            fmt_shape(ws),
            xs.len(),
            fmt_shape(xs),
            k2 = ws.len()
        )));
    }
    if a.groups <= 0 {
        return Err(rt("non-positive groups is not supported"));
    }
    let groups = a.groups as usize;
    if ws[0] < groups {
        return Err(rt(format!(
            "Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got \
             weight of size {} instead",
            fmt_shape(ws)
        )));
    }
    if !ws[0].is_multiple_of(groups) {
        return Err(rt(format!(
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but \
             got weight of size [{}] instead",
            fmt_shape(ws)
        )));
    }
    let bias_ok = |n: usize| bias.is_none_or(|b| b.ndim() == 1 && b.shape()[0] == n);
    let bias_shape = || fmt_shape(bias.map_or(&[][..], |b| b.shape()));
    if !transposed {
        if xs[1] != ws[1] * groups {
            return Err(rt(format!(
                "Given groups={groups}, weight of size {}, expected input{} to have {} channels, but \
                 got {} channels instead",
                fmt_shape(ws),
                fmt_shape(xs),
                ws[1] * groups,
                xs[1]
            )));
        }
        if !bias_ok(ws[0]) {
            return Err(rt(format!(
                "Given weight of size {}, expected bias to be 1-dimensional with {} elements, but \
                 got bias of size {} instead",
                fmt_shape(ws),
                ws[0],
                bias_shape()
            )));
        }
        let padded: Vec<i128> = (0..k)
            .map(|i| xs[i + 2] as i128 + 2 * padding[i] as i128)
            .collect();
        let kern: Vec<i128> = (0..k)
            .map(|i| dilation[i] as i128 * (ws[i + 2] as i128 - 1) + 1)
            .collect();
        if (0..k).any(|i| padded[i] < kern[i]) && !same {
            let join = |v: &[i128]| {
                let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                s.join(" x ")
            };
            return Err(rt(format!(
                "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size \
                 can't be greater than actual input size",
                join(&padded),
                join(&kern)
            )));
        }
    } else {
        if xs[1] != ws[0] {
            return Err(rt(format!(
                "Given transposed=1, weight of size {}, expected input{} to have {} channels, but \
                 got {} channels instead",
                fmt_shape(ws),
                fmt_shape(xs),
                ws[0],
                xs[1]
            )));
        }
        if !bias_ok(ws[1] * groups) {
            return Err(rt(format!(
                "Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} \
                 elements, but got bias of size {} instead",
                fmt_shape(ws),
                ws[1] * groups,
                bias_shape()
            )));
        }
    }
    if x.dtype() != w.dtype() {
        return Err(rt(format!(
            "expected scalar type {} but found {}",
            x.dtype().torch_name(),
            w.dtype().torch_name()
        )));
    }
    if let Some(b) = bias {
        if !transposed && b.dtype() != x.dtype() {
            return Err(rt(format!(
                "Input type ({}) and bias type ({}) should be the same",
                c_type(x.dtype()),
                c_type(b.dtype())
            )));
        }
    }
    if k != sd {
        // a weight of another rank than the op's (PyTorch's generic path would run an N-d
        // convolution; ferric has 1-d and 2-d kernels)
        return Err(rt(format!(
            "{op}: expected a {}-dimensional weight, but got weight of size {}",
            sd + 2,
            fmt_shape(ws)
        )));
    }
    if dilation.contains(&0) {
        // checked on the 2-d form (1-d convolutions have a unit height)
        let d2 = if sd == 1 {
            vec![1, dilation[0]]
        } else {
            dilation.clone()
        };
        return Err(rt(format!(
            "dilation should be greater than zero, but got {}",
            list(&d2)
        )));
    }
    // the 2-d slow kernels' checks print height and width, 1-d ones a unit height
    let two = |v: &[i64], unit: i64| -> [i128; 2] {
        if sd == 1 {
            [unit as i128, v[0] as i128]
        } else {
            [v[0] as i128, v[1] as i128]
        }
    };
    let kernel: Vec<i64> = ws[2..].iter().map(|&d| d as i64).collect();
    let kk = two(&kernel, 1);
    if kk[0] <= 0 || kk[1] <= 0 {
        return Err(rt(format!(
            "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}",
            kk[0], kk[1]
        )));
    }
    let (ss, pp, dd) = (two(&stride, 1), two(&padding, 0), two(&dilation, 1));
    let (ih, iw) = hw(xs, sd);
    let inp = [ih as i128, iw as i128];
    let size = |v: i128| -> Result<usize> {
        usize::try_from(v).map_err(|_| rt(format!("{op}: output size {v} is too large")))
    };
    let mut axes = [UNIT_AXIS; 2];
    if transposed {
        let op2 = two(&output_padding, 0);
        if (0..2).any(|i| op2[i] >= ss[i] && op2[i] >= dd[i]) {
            return Err(rt(format!(
                "output padding must be smaller than either stride or dilation, but got \
                 output_padding_height: {} output_padding_width: {} stride_height: {} stride_width: \
                 {} dilation_height: {} dilation_width: {}",
                op2[0], op2[1], ss[0], ss[1], dd[0], dd[1]
            )));
        }
        if ws[1] == 0 {
            return Err(rt(format!(
                "non-empty 2D or 4D weight tensor expected, but got: {}",
                fmt_shape(ws)
            )));
        }
        let out: Vec<i128> = (0..2)
            .map(|i| (inp[i] - 1) * ss[i] - 2 * pp[i] + dd[i] * (kk[i] - 1) + op2[i] + 1)
            .collect();
        if out[0] < 1 || out[1] < 1 {
            let show = |v: [i128; 2]| format!("{} x {}", v[0], v[1]);
            return Err(rt(format!(
                "Given input size per channel: ({}). Calculated output size per channel: ({}). \
                 Output size is too small",
                show(inp),
                show([out[0], out[1]])
            )));
        }
        for i in 0..2 {
            // a transposed convolution is the adjoint of the convolution from its output
            // (the "input" side of the geometry) to its input
            axes[i] = Axis {
                input: size(out[i])?,
                output: size(inp[i])?,
                kernel: size(kk[i])?,
                stride: size(ss[i])?,
                pad: size(pp[i])?,
                dilation: size(dd[i])?,
            };
        }
    } else {
        for i in 0..2 {
            let total = dd[i] * (kk[i] - 1);
            let (lo, out) = if same {
                (total / 2, inp[i])
            } else {
                (pp[i], (inp[i] + 2 * pp[i] - total - 1) / ss[i] + 1)
            };
            axes[i] = Axis {
                input: size(inp[i])?,
                output: size(out.max(0))?,
                kernel: size(kk[i])?,
                stride: size(ss[i])?,
                pad: size(lo)?,
                dilation: size(dd[i])?,
            };
        }
    }
    Ok(ConvGeom {
        sd,
        groups,
        h: axes[0],
        w: axes[1],
    })
}

/// The kernel name PyTorch reports for unsupported dtypes.
fn kernel_name(transposed: bool) -> &'static str {
    if transposed {
        "slow_conv_transpose2d_out_cpu"
    } else {
        "slow_conv2d_cpu"
    }
}

/// Strides of a batched tensor viewed as 4-d (N, C, H, W) images.
fn image(t: &Tensor, sd: usize) -> Image {
    let s = t.strides();
    let st = |i: usize| s[i].max(0) as usize;
    if sd == 1 {
        Image {
            offset: t.layout.offset,
            strides: [st(0), st(1), 0, st(2)],
        }
    } else {
        Image {
            offset: t.layout.offset,
            strides: [st(0), st(1), st(2), st(3)],
        }
    }
}

/// `t` with its spatial dims readable as one stride (the column stride of a GEMM
/// operand), copying only when they do not merge.
fn spatial_merged(t: &Tensor, sd: usize) -> Result<(Tensor, usize)> {
    let n = t.ndim();
    let (h, w) = hw(t.shape(), sd);
    let s = t.strides();
    let sw = s[n - 1].max(0) as usize;
    if sd == 1 || w == 1 {
        let st = if sd == 2 && w == 1 {
            s[n - 2]
        } else {
            s[n - 1]
        };
        return Ok((t.clone(), st.max(0) as usize));
    }
    if h == 1 || s[n - 2].max(0) as usize == sw * w {
        return Ok((t.clone(), sw));
    }
    let c = t.contiguous()?;
    Ok((c, 1))
}

/// Runs the caller's `run!` for `dtype` (bool has no kernel) and checks its geometry
/// guard; long convolutions release the GIL meanwhile, so other Python threads run.
macro_rules! run_kernel {
    ($dtype:expr, $work:expr, $transposed:expr) => {{
        let ok = crate::threads::unlocked_if_long($work, || -> Result<bool> {
            Ok(match $dtype {
                DType::F32 => run!(f32),
                DType::F64 => run!(f64),
                DType::I64 => run!(i64),
                // narrow integers: PyTorch's CPU convolutions have no kernel either (half
                // types were converted at the op's entry)
                d => return Err(Error::dtype_not_implemented(kernel_name($transposed), d)),
            })
        })?;
        internal(ok)?;
    }};
}

impl ConvGeom {
    fn dims(&self, n: usize, c: usize, oc: usize) -> ConvDims {
        ConvDims {
            n,
            c,
            oc,
            groups: self.groups,
            h: self.h,
            w: self.w,
        }
    }

    /// Shape (N, C, sizes...) of a batched tensor with `sd` spatial dims.
    fn shape(&self, n: usize, c: usize, (h, w): (usize, usize)) -> Vec<usize> {
        if self.sd == 1 {
            vec![n, c, w]
        } else {
            vec![n, c, h, w]
        }
    }

    fn check(&self, what: &str, t: &Tensor, sizes: (usize, usize)) -> Result<()> {
        if t.ndim() != self.sd + 2 || hw(t.shape(), self.sd) != sizes {
            return Err(rt(format!(
                "convolution: internal error: {what} of size {} does not fit the geometry",
                fmt_shape(t.shape())
            )));
        }
        Ok(())
    }

    fn in_size(&self) -> (usize, usize) {
        (self.h.input, self.w.input)
    }
    fn out_size(&self) -> (usize, usize) {
        (self.h.output, self.w.output)
    }
    fn kernel(&self) -> (usize, usize) {
        (self.h.kernel, self.w.kernel)
    }

    /// The forward convolution: `x` (N, C, in...) and `w` (OC, C/g, k...) -> (N, OC, out...).
    pub fn conv(&self, x: &Tensor, w: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        if is_half(x) {
            let b = bias.map(compute::input).transpose()?;
            let r = self.conv(&compute::input(x)?, &compute::input(w)?, b.as_ref())?;
            return compute::output(x.dtype(), r);
        }
        self.check("input", x, self.in_size())?;
        self.check("weight", w, self.kernel())?;
        let (n, c, oc) = (x.shape()[0], x.shape()[1], w.shape()[0]);
        let out = Tensor::zeros("conv", &self.shape(n, oc, self.out_size()), x.dtype())?;
        let d = self.dims(n, c, oc);
        let w = w.contiguous()?;
        let bias = match bias {
            Some(b) => Some(b.to_dtype(x.dtype())?.contiguous()?),
            None => None,
        };
        macro_rules! run {
            ($T:ty) => {{
                // SAFETY: every operand has dtype $T (checked by `plan`/callers); `out` is a
                // fresh buffer, so its mutable slice aliases no input.
                let ok = unsafe {
                    let b = bias.as_ref().map(|b| &b.data::<$T>()[b.layout.offset..]);
                    kern::conv_forward(
                        &d,
                        x.data::<$T>(),
                        &image(x, self.sd),
                        w.data::<$T>(),
                        w.layout.offset,
                        b,
                        out.data_mut::<$T>(),
                    )
                };
                ok
            }};
        }
        run_kernel!(x.dtype(), out_work(&out, x), false);
        Ok(out)
    }

    /// The transposed convolution / input gradient: `y` (N, OC, out...) and `w` ->
    /// (N, C, in...) with `C = w.shape[1] * groups`.
    pub fn conv_transpose(&self, y: &Tensor, w: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        if is_half(y) {
            let b = bias.map(compute::input).transpose()?;
            let r = self.conv_transpose(&compute::input(y)?, &compute::input(w)?, b.as_ref())?;
            return compute::output(y.dtype(), r);
        }
        self.check("grad_output", y, self.out_size())?;
        self.check("weight", w, self.kernel())?;
        let (n, oc, c) = (y.shape()[0], w.shape()[0], w.shape()[1] * self.groups);
        let out = Tensor::zeros(
            "conv_transpose",
            &self.shape(n, c, self.in_size()),
            y.dtype(),
        )?;
        let d = self.dims(n, c, oc);
        let w = w.contiguous()?;
        let (y, yl) = spatial_merged(y, self.sd)?;
        let bias = match bias {
            Some(b) => Some(b.to_dtype(y.dtype())?.contiguous()?),
            None => None,
        };
        macro_rules! run {
            ($T:ty) => {{
                // SAFETY: as in `conv`.
                let ok = unsafe {
                    let b = bias.as_ref().map(|b| &b.data::<$T>()[b.layout.offset..]);
                    kern::conv_input_grad(
                        &d,
                        y.data::<$T>(),
                        &image(&y, self.sd),
                        yl,
                        w.data::<$T>(),
                        w.layout.offset,
                        b,
                        out.data_mut::<$T>(),
                    )
                };
                ok
            }};
        }
        run_kernel!(y.dtype(), out_work(&out, &y), true);
        Ok(out)
    }

    /// The weight gradient: `x` (N, C, in...) and `y` (N, OC, out...) -> (OC, C/g, k...).
    pub fn weight_grad(&self, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        if is_half(x) {
            let r = self.weight_grad(&compute::input(x)?, &compute::input(y)?)?;
            return compute::output(x.dtype(), r);
        }
        self.check("input", x, self.in_size())?;
        self.check("grad_output", y, self.out_size())?;
        let (n, c, oc) = (x.shape()[0], x.shape()[1], y.shape()[1]);
        if y.shape()[0] != n || x.dtype() != y.dtype() {
            return Err(rt(
                "convolution: internal error: mismatched weight_grad operands",
            ));
        }
        let cg = c / self.groups;
        let gw = Tensor::zeros(
            "conv_weight_grad",
            &self.shape(oc, cg, self.kernel()),
            x.dtype(),
        )?;
        let d = self.dims(n, c, oc);
        let (y, yl) = spatial_merged(y, self.sd)?;
        macro_rules! run {
            ($T:ty) => {{
                // SAFETY: as in `conv`.
                unsafe {
                    kern::conv_weight_grad(
                        &d,
                        x.data::<$T>(),
                        &image(x, self.sd),
                        y.data::<$T>(),
                        &image(&y, self.sd),
                        yl,
                        gw.data_mut::<$T>(),
                    )
                }
            }};
        }
        run_kernel!(x.dtype(), out_work(&gw, x), false);
        Ok(gw)
    }
}

fn internal(ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(rt(
            "convolution: internal error: operand layout out of bounds",
        ))
    }
}

/// The bias gradient of a convolution: `gy` (N, C, spatial...) summed over every dim but
/// the channels.
pub fn channel_sum(gy: &Tensor) -> Result<Tensor> {
    if is_half(gy) {
        return compute::output(gy.dtype(), channel_sum(&compute::input(gy)?)?);
    }
    let s = gy.shape();
    if s.len() < 2 {
        return Err(rt(
            "convolution: internal error: bias gradient of a tensor below 2-d",
        ));
    }
    let (n, c) = (s[0], s[1]);
    let l: usize = s[2..].iter().product();
    let out = Tensor::zeros("conv_bias_grad", &[c], gy.dtype())?;
    let gy = gy.dense()?;
    macro_rules! run {
        ($T:ty) => {
            // SAFETY: $T is gy's dtype; `out` is fresh.
            unsafe { kern::channel_sum::<$T>(gy.data(), (n, c, l), out.data_mut()) }
        };
    }
    match gy.dtype() {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        DType::I64 => run!(i64),
        d => return Err(Error::dtype_not_implemented("sum_cpu", d)),
    }
    Ok(out)
}

/// float16 and bfloat16 convolve through float32 (see `ops::compute`).
fn is_half(x: &Tensor) -> bool {
    matches!(x.dtype(), DType::F16 | DType::BF16)
}

/// Whether `x` is an unbatched input of a convolution with `sd` spatial dims, after
/// PyTorch's "Expected 3D (unbatched) or 4D (batched) input to conv2d" check.
pub fn is_unbatched(op: &str, sd: usize, x: &Tensor) -> Result<bool> {
    let nd = x.ndim();
    if nd == sd + 1 {
        return Ok(true);
    }
    if nd == sd + 2 {
        return Ok(false);
    }
    Err(rt(format!(
        "Expected {}D (unbatched) or {}D (batched) input to {op}, but got input of size: {}",
        sd + 1,
        sd + 2,
        fmt_shape(x.shape())
    )))
}

impl Tensor {
    /// `conv1d` / `conv2d` (`sd` spatial dims), or the transposed convolutions, without
    /// autograd. Unbatched inputs are accepted like PyTorch.
    pub fn convolution(
        &self,
        op: &str,
        sd: usize,
        transposed: bool,
        weight: &Tensor,
        bias: Option<&Tensor>,
        args: &ConvArgs,
    ) -> Result<Tensor> {
        let unbatched = is_unbatched(op, sd, self)?;
        let x = if unbatched {
            self.unsqueeze(0)?
        } else {
            self.clone()
        };
        let g = plan(op, sd, transposed, &x, weight, bias, args)?;
        let y = if transposed {
            g.conv_transpose(&x, weight, bias)?
        } else {
            g.conv(&x, weight, bias)?
        };
        if unbatched {
            y.squeeze(Some(&[0]))
        } else {
            Ok(y)
        }
    }
}

/// Roughly the multiply-adds of a convolution producing `out` from `input`: output
/// elements times input channels (the kernel size only makes it larger).
fn out_work(out: &Tensor, input: &Tensor) -> usize {
    let c = input.shape().get(1).copied().unwrap_or(1);
    out.numel().saturating_mul(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(padding: Padding) -> ConvArgs {
        ConvArgs {
            stride: vec![1],
            padding,
            dilation: vec![1],
            groups: 1,
            output_padding: vec![0],
        }
    }

    #[test]
    fn plain_convolution_and_its_transpose() {
        // x = 1..=9 in a 3x3 image, w = ones(2x2): each output sums a 2x2 window
        let x = Tensor::from_vec((1..=9).map(|v| v as f64).collect(), &[1, 1, 3, 3]).unwrap();
        let w = Tensor::from_vec(vec![1.0f64; 4], &[1, 1, 2, 2]).unwrap();
        let y = x
            .convolution("conv2d", 2, false, &w, None, &args(Padding::Valid))
            .unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), [12.0, 16.0, 24.0, 28.0]);
        // unbatched input, 'same' padding keeps the size
        let x3 = x.squeeze(Some(&[0])).unwrap();
        let s = x3
            .convolution("conv2d", 2, false, &w, None, &args(Padding::Same))
            .unwrap();
        assert_eq!(s.shape(), &[1, 3, 3]);
        // the transposed convolution scatters each input over a 2x2 block
        let t = y
            .convolution(
                "conv_transpose2d",
                2,
                true,
                &w,
                None,
                &args(Padding::Explicit(vec![0])),
            )
            .unwrap();
        assert_eq!(t.shape(), &[1, 1, 3, 3]);
        assert_eq!(t.to_vec::<f64>().unwrap()[4], 12.0 + 16.0 + 24.0 + 28.0);
        let bad = Tensor::from_vec(vec![1.0f64; 8], &[1, 2, 2, 2]).unwrap();
        match x.convolution("conv2d", 2, false, &bad, None, &args(Padding::Valid)) {
            Err(e) => assert!(e
                .msg
                .contains("to have 2 channels, but got 1 channels instead")),
            Ok(_) => panic!("a channel mismatch must be an error"),
        }
    }
}
