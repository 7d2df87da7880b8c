//! `linear(input, weight, bias)` = `input @ weight.T + bias`, dispatched like PyTorch's
//! `at::linear` (the dispatch decides the error messages and, under autograd, the
//! recorded nodes):
//! - 2-D input with a bias: `addmm(bias, input, weight.t())`;
//! - a contiguous input with a 1-D bias: folded to 2-D rows, `addmm`, viewed back;
//! - otherwise `matmul(input, weight.t())`, then `add_(bias)` in place.
//!
//! The `addmm` forms write the broadcast bias into the fresh output and let the GEMM
//! accumulate onto it, so the bias costs no extra pass. Without autograd the last form
//! is fused the same way (one batched GEMM onto the broadcast bias) whenever its shapes
//! and dtypes are valid; otherwise the unfused calls run and raise PyTorch's errors.

use super::{gemm_new, rt};
use crate::dtype::{DType, Scalar};
use crate::error::{fmt_shape, Result};
use crate::layout::Layout;
use crate::ops::binary::{binary_, can_cast, result_type, BinaryOp, Operand};
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// Which of PyTorch's forms `linear` takes for these arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearPath {
    /// no bias: `matmul(input, weight.t())`
    Matmul,
    /// 2-D input: `addmm(bias, input, weight.t())`
    Addmm,
    /// contiguous input, 1-D bias: `addmm` on `input` folded to rows
    Folded,
    /// `matmul(input, weight.t()).add_(bias)`
    MatmulAdd,
}

/// PyTorch's choice between the forms (see the module docs).
pub fn linear_path(input: &Tensor, bias: Option<&Tensor>) -> LinearPath {
    match bias {
        None => LinearPath::Matmul,
        Some(_) if input.ndim() == 2 => LinearPath::Addmm,
        Some(b) if input.is_contiguous() && b.ndim() == 1 => LinearPath::Folded,
        Some(_) => LinearPath::MatmulAdd,
    }
}

/// The checks `at::linear` makes before any product: both operands at least 1-D, and
/// `weight.t()` defined (at most 2-D).
pub fn check_linear(input: &Tensor, weight: &Tensor) -> Result<()> {
    let (di, dw) = (input.ndim(), weight.ndim());
    if di == 0 || dw == 0 {
        return Err(rt(format!(
            "both arguments to linear need to be at least 1D, but they are {di}D and {dw}D"
        )));
    }
    if dw > 2 {
        return Err(rt(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {dw}D"
        )));
    }
    Ok(())
}

/// `weight.t()` (after `check_linear`): a view, the tensor itself when 1-D.
pub fn weight_t(weight: &Tensor) -> Result<Tensor> {
    if weight.ndim() < 2 {
        return Ok(weight.clone());
    }
    weight.with_layout(weight.layout.transpose(0, 1))
}

/// The row count and feature size of `input` folded to 2-D (`(prod(lead), last)`).
pub fn folded_sizes(input: &Tensor) -> (usize, usize) {
    let s = input.shape();
    let (lead, last) = s.split_at(s.len().saturating_sub(1));
    (lead.iter().product(), last.first().copied().unwrap_or(1))
}

/// The result shape of a folded product: `input`'s leading dims plus `p`.
pub fn unfolded_shape(input: &Tensor, p: usize) -> Vec<usize> {
    let s = input.shape();
    let mut shape = s[..s.len().saturating_sub(1)].to_vec();
    shape.push(p);
    shape
}

/// PyTorch's `out.add_(bias)` checks: the bias broadcasts to `out`'s shape without
/// growing it, and the promoted result can be cast back to `out`'s dtype.
pub fn check_bias_add(out: &Tensor, bias: &Tensor) -> Result<()> {
    let shape = out.shape();
    let bs = broadcast_shapes(shape, bias.shape())?;
    if bs.as_slice() != shape {
        return Err(rt(format!(
            "output with shape {} doesn't match the broadcast shape {}",
            fmt_shape(shape),
            fmt_shape(&bs)
        )));
    }
    let r = result_type(&Operand::T(out), &Operand::T(bias));
    if !can_cast(r, out.dtype()) {
        return Err(rt(format!(
            "result type {} can't be cast to the desired output type {}",
            r.torch_name(),
            out.dtype().torch_name()
        )));
    }
    Ok(())
}

impl Tensor {
    /// `torch.nn.functional.linear`: `self @ weight.T + bias` (see the module docs).
    pub fn linear(&self, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        check_linear(self, weight)?;
        let wt = weight_t(weight)?;
        let one = Scalar::Int(1);
        match (bias, linear_path(self, bias)) {
            (Some(b), LinearPath::Addmm) => b.addmm(self, &wt, one, one),
            (Some(b), LinearPath::Folded) => {
                let (rows, k) = folded_sizes(self);
                let x2 = self.reshape(&[rows as i64, k as i64])?;
                let r = b.addmm(&x2, &wt, one, one)?;
                let shape = unfolded_shape(self, r.shape()[1]);
                Ok(r.with_layout(Layout::contiguous(&shape))?)
            }
            (Some(b), _) => match fused_matmul_add(self, &wt, b)? {
                Some(out) => Ok(out),
                None => {
                    let out = self.matmul(&wt)?;
                    check_bias_add(&out, b)?;
                    binary_(BinaryOp::Add, &out, Operand::T(b))?;
                    Ok(out)
                }
            },
            (None, _) => self.matmul(&wt),
        }
    }
}

/// `matmul(x, wt) + bias` as one batched GEMM onto the broadcast bias, when every shape
/// and dtype is valid (None otherwise: the caller runs the unfused ops for their errors).
fn fused_matmul_add(x: &Tensor, wt: &Tensor, bias: &Tensor) -> Result<Option<Tensor>> {
    let nd = x.ndim();
    let valid = nd >= 2
        && wt.ndim() == 2
        && x.shape()[nd - 1] == wt.shape()[0]
        && x.dtype() == wt.dtype()
        && bias.dtype() == x.dtype()
        && x.dtype() != DType::Bool;
    if !valid {
        return Ok(None);
    }
    let shape = unfolded_shape(x, wt.shape()[1]);
    let Ok(init) = bias.layout.broadcast_to(&shape) else {
        return Ok(None);
    };
    if x.numel() == 0 || shape.contains(&0) || x.shape()[nd - 1] == 0 {
        // nothing to multiply: the result is the broadcast bias
        return Ok(Some(bias.with_layout(init)?.copy_as(x.dtype())?));
    }
    let init = bias.with_layout(init)?;
    let (rows, k) = folded_sizes(x);
    if let Some(l) = x.layout.view(&[rows, k]) {
        // the leading dims fold into rows: one 2-D GEMM
        let r = gemm_new(
            "addmm_impl_cpu_",
            &[rows, shape[nd - 1]],
            &x.with_layout(l)?,
            wt,
            Some((&init, Scalar::Int(1))),
            Scalar::Int(1),
        )?;
        return Ok(Some(r.with_layout(Layout::contiguous(&shape))?));
    }
    // the weight is shared by every batch entry: broadcast it with stride-0 batch dims
    let mut wshape = x.shape()[..nd - 2].to_vec();
    wshape.extend_from_slice(wt.shape());
    let wb = wt.with_layout(wt.layout.broadcast_to(&wshape)?)?;
    gemm_new(
        "addmm_impl_cpu_",
        &shape,
        x,
        &wb,
        Some((&init, Scalar::Int(1))),
        Scalar::Int(1),
    )
    .map(Some)
}
