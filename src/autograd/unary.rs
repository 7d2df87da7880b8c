//! Differentiable parameterised activations (leaky_relu, elu, clamp), dtype
//! conversions, clones and copies. The table-driven elementwise ops are in
//! `pointwise`.

use super::pointwise::{binary, masked_zero, mul, unary, Arg};
use super::{needs_grad, record, Saved, Var};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::memory_order::Order;
use crate::ops::binary::BinaryOp;
use crate::ops::unary::{map_float, UnaryOp};
use crate::tensor::Tensor;

fn u(op: UnaryOp, x: &Var) -> Result<Var> {
    unary(op, x)
}
fn s(v: f64) -> Arg<'static> {
    Arg::S(Scalar::Float(v))
}
fn bmul(a: &Var, b: &Var) -> Result<Var> {
    mul(a, b)
}

/// Element type conversion (`x.to(dtype)`, keeping `x`'s memory order); the gradient
/// is converted back.
pub fn to_dtype(x: &Var, d: DType) -> Result<Var> {
    if x.t.dtype() == d {
        return Ok(x.clone());
    }
    to_dtype_in(x, d, &Order::preserve(&x.t.layout))
}

/// `x.to(d, memory_format=...)` for a new dtype `d`: one copy, converted and laid out as
/// `order` says.
pub fn to_dtype_in(x: &Var, d: DType, order: &Order) -> Result<Var> {
    let out = x.t.copy_in(order, d)?;
    if !d.is_float() || !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let src = x.t.dtype();
    Ok(record(
        "ToCopyBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(to_dtype(&g[0], src)?)])),
    ))
}

/// A constant (non-differentiable) factor computed from the input's data.
fn factor(x: &Tensor, f32f: impl Fn(f32) -> f32, f64f: impl Fn(f64) -> f64) -> Result<Var> {
    Ok(Var::plain(map_float("backward", x, f32f, f64f)?))
}

pub fn leaky_relu(x: &Var, slope: f64) -> Result<Var> {
    crate::ops::unary::require_float("leaky_relu_cpu", &x.t)?;
    let s32 = slope as f32;
    let out = map_float(
        "leaky_relu",
        &x.t,
        move |v| if v > 0.0 { v } else { v * s32 },
        move |v| if v > 0.0 { v } else { v * slope },
    )?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let sx = Saved::input(x);
    Ok(record(
        "LeakyReluBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let x = sx.get("LeakyReluBackward0")?;
            let f = factor(
                &x.t,
                move |v| if v > 0.0 { 1.0 } else { s32 },
                move |v| if v > 0.0 { 1.0 } else { slope },
            )?;
            Ok(vec![Some(bmul(&g[0], &f)?)])
        }),
    ))
}

pub fn elu(x: &Var, alpha: f64) -> Result<Var> {
    crate::ops::unary::require_float("elu_cpu", &x.t)?;
    let a32 = alpha as f32;
    let out = map_float(
        "elu",
        &x.t,
        move |v| if v > 0.0 { v } else { a32 * v.exp_m1() },
        move |v| if v > 0.0 { v } else { alpha * v.exp_m1() },
    )?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let sx = Saved::input(x);
    Ok(record(
        "EluBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let x = sx.get("EluBackward0")?;
            // 1 for x > 0, alpha * exp(x) otherwise (differentiable in x for double backward)
            let pos = crate::ops::binary::binary(
                BinaryOp::Gt,
                crate::ops::binary::Operand::T(&x.t),
                crate::ops::binary::Operand::S(Scalar::Int(0)),
            )?;
            let neg_part = masked_zero(
                &binary(BinaryOp::Mul, Arg::V(&u(UnaryOp::Exp, &x)?), s(alpha))?,
                &pos,
            )?;
            let ones = Var::plain(pos.to_dtype(g[0].t.dtype())?);
            Ok(vec![Some(bmul(
                &g[0],
                &super::pointwise::add(&neg_part, &ones)?,
            )?)])
        }),
    ))
}

/// `clamp(x, min, max)` with PyTorch's gradient: passes where min <= x <= max.
pub fn clamp(x: &Var, min: Option<Arg>, max: Option<Arg>) -> Result<Var> {
    let tensor_bound = matches!(min, Some(Arg::V(_))) || matches!(max, Some(Arg::V(_)));
    let name = if tensor_bound {
        "ClampBackward0"
    } else {
        "ClampBackward1"
    };
    clamp_as(name, x, min, max)
}

/// [`clamp`] recorded under the node name `name` (`clamp_min` is `ClampMinBackward0`).
pub fn clamp_as(name: &str, x: &Var, min: Option<Arg>, max: Option<Arg>) -> Result<Var> {
    use crate::ops::binary::{binary as rawb, Operand};
    fn op<'a>(a: &'a Arg<'a>) -> Operand<'a> {
        match a {
            Arg::V(v) => Operand::T(&v.t),
            Arg::S(s) => Operand::S(*s),
        }
    }
    let mut out = x.t.clone();
    if let Some(lo) = &min {
        out = rawb(BinaryOp::Maximum, Operand::T(&out), op(lo))?;
    }
    if let Some(hi) = &max {
        out = rawb(BinaryOp::Minimum, Operand::T(&out), op(hi))?;
    }
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let mut outside = crate::tensor::Tensor::full("clamp", &[], Scalar::Bool(false), DType::Bool)?;
    if let Some(lo) = &min {
        let below = rawb(BinaryOp::Lt, Operand::T(&x.t), op(lo))?;
        outside = rawb(
            BinaryOp::LogicalOr,
            Operand::T(&outside),
            Operand::T(&below),
        )?;
    }
    if let Some(hi) = &max {
        let above = rawb(BinaryOp::Gt, Operand::T(&x.t), op(hi))?;
        outside = rawb(
            BinaryOp::LogicalOr,
            Operand::T(&outside),
            Operand::T(&above),
        )?;
    }
    Ok(record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(masked_zero(&g[0], &outside)?)])),
    ))
}

/// `x.clone()`: a copy in `x`'s memory order (PyTorch's `preserve_format`).
pub fn clone(x: &Var) -> Result<Var> {
    clone_in(x, &Order::preserve(&x.t.layout))
}

/// A copy laid out as `order` says, with the same autograd identity downstream
/// (`clone(memory_format=...)`, `contiguous()`).
pub fn clone_in(x: &Var, order: &Order) -> Result<Var> {
    let out = x.t.copy_in(order, x.t.dtype())?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    Ok(record(
        "CloneBackward0",
        out,
        &[x],
        false,
        Box::new(|g, _| Ok(vec![Some(g[0].clone())])),
    ))
}

/// `value` (same shape as `x`) as the result of an op on `x` whose gradient is zero
/// (round, fill_, zero_, floor-division results written in place).
pub fn constant_like(x: &Var, value: &Tensor) -> Result<Var> {
    zero_gradient("FillBackward0", value.clone(), &[x])
}

/// The result of `x.copy_(src)`: `src` broadcast and cast to `x`; the gradient goes to
/// `src` (summed over broadcast dims by the engine), none to `x`'s old value.
pub fn copy_into(x: &Var, src: &Var) -> Result<Var> {
    let out = Tensor::zeros("copy_", x.t.shape(), x.t.dtype())?;
    out.copy_from(&src.t)?;
    if !needs_grad(&[x, src]) || !out.dtype().is_float() {
        return Ok(Var::plain(out));
    }
    let src_needs = src.requires_grad();
    let x_needs = x.requires_grad();
    let mut inputs: Vec<&Var> = Vec::new();
    if x_needs {
        inputs.push(x);
    }
    if src_needs {
        inputs.push(src);
    }
    Ok(record(
        "CopyBackwards",
        out,
        &inputs,
        false,
        Box::new(move |g, _| {
            let mut r = Vec::new();
            if x_needs {
                r.push(Some(Var::plain(Tensor::zeros(
                    "backward",
                    g[0].t.shape(),
                    g[0].t.dtype(),
                )?)));
            }
            if src_needs {
                r.push(Some(g[0].clone()));
            }
            Ok(r)
        }),
    ))
}

/// `nan_to_num(x)` given its value `out`: the gradient passes where `x` is finite
/// (PyTorch's `NanToNumBackward0`).
pub fn nan_to_num(x: &Var, out: Tensor) -> Result<Var> {
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let not_finite = crate::ops::unary::unary(
        UnaryOp::LogicalNot,
        &crate::ops::unary::unary(UnaryOp::IsFinite, &x.t)?,
    )?;
    Ok(record(
        "NanToNumBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(masked_zero(&g[0], &not_finite)?)])),
    ))
}

/// `value`, computed from `inputs` by an op whose gradient is zero everywhere (the
/// rounded divisions, PyTorch's `DivBackward2`).
pub fn zero_gradient(name: &str, value: Tensor, inputs: &[&Var]) -> Result<Var> {
    let inputs: Vec<&Var> = inputs
        .iter()
        .copied()
        .filter(|v| v.requires_grad())
        .collect();
    if !value.dtype().is_float() || !needs_grad(&inputs) {
        return Ok(Var::plain(value));
    }
    let n = inputs.len();
    Ok(record(
        name,
        value,
        &inputs,
        false,
        Box::new(move |g, _| {
            let z = Tensor::zeros("backward", g[0].t.shape(), g[0].t.dtype())?;
            Ok((0..n).map(|_| Some(Var::plain(z.clone()))).collect())
        }),
    ))
}

/// `x` again, under a node named `name` whose backward passes the gradient through: a
/// composite op written from primitives (a loss in Python) shows PyTorch's node name
/// (`MseLossBackward0`) as its `grad_fn`. The result shares `x`'s memory.
pub fn named(name: &str, x: &Var) -> Var {
    if !needs_grad(&[x]) {
        return x.clone();
    }
    record(
        name,
        x.t.clone(),
        &[x],
        false,
        Box::new(|g, _| Ok(vec![Some(g[0].clone())])),
    )
}
