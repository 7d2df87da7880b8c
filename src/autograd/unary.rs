//! Differentiable unary and parameterised elementwise ops.

use super::binary::{binary, mul, Arg};
use super::{needs_grad, record, Saved, Var};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::kernels::strided;
use crate::memory_order::Order;
use crate::ops::binary::BinaryOp;
use crate::ops::unary::{map_float, unary as raw, UnaryOp};
use crate::shape::broadcast_shapes;
use crate::storage::try_zeroed_vec;
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

pub fn neg(x: &Var) -> Result<Var> {
    unary(UnaryOp::Neg, x)
}

fn name(op: UnaryOp) -> String {
    let n = op.name();
    // snake_case op name -> PyTorch's CamelCase node name
    let cap: String = n
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("{cap}Backward0")
}

fn differentiable(op: UnaryOp) -> bool {
    use UnaryOp::*;
    !matches!(
        op,
        IsNan | IsInf | IsPosInf | IsNegInf | IsFinite | LogicalNot | BitwiseNot
    )
}

/// Which of input / output the backward rule needs.
fn saves(op: UnaryOp) -> (bool, bool) {
    use UnaryOp::*;
    match op {
        Neg | Sign | Floor | Ceil | Round | Trunc | Frac => (false, false),
        Exp | Exp2 | Expm1 | Sqrt | Rsqrt | Reciprocal | Tan | Tanh | Sigmoid | Relu => {
            (false, true)
        }
        _ => (true, false),
    }
}

pub fn unary(op: UnaryOp, x: &Var) -> Result<Var> {
    let out = raw(op, &x.t)?;
    if !differentiable(op) || !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let (si, so) = saves(op);
    let sx = si.then(|| Saved::input(x));
    let (sy, slot) = match so.then(|| Saved::output_of(&out, &name(op))) {
        Some((s, slot)) => (Some(s), Some(slot)),
        None => (None, None),
    };
    let nm = name(op);
    let nm2 = nm.clone();
    let v = record(
        &nm,
        out,
        &[x],
        si || so,
        Box::new(move |grads, _| {
            let g = &grads[0];
            let x = sx.as_ref().map(|s| s.get(&nm2)).transpose()?;
            let y = sy.as_ref().map(|s| s.get(&nm2)).transpose()?;
            Ok(vec![Some(rule(op, g, x.as_ref(), y.as_ref())?)])
        }),
    );
    if let Some(slot) = slot {
        slot.bind(&v);
    }
    Ok(v)
}

fn rule(op: UnaryOp, g: &Var, x: Option<&Var>, y: Option<&Var>) -> Result<Var> {
    use UnaryOp::*;
    let x = || x.ok_or_else(|| crate::error::Error::runtime("backward", "missing saved input"));
    let y = || y.ok_or_else(|| crate::error::Error::runtime("backward", "missing saved output"));
    let ln2 = std::f64::consts::LN_2;
    Ok(match op {
        Neg => neg(g)?,
        Abs => bmul(g, &u(Sign, x()?)?)?,
        Sign | Floor | Ceil | Round | Trunc => {
            Var::plain(Tensor::zeros("backward", g.t.shape(), g.t.dtype())?)
        }
        Frac => g.clone(),
        Exp => bmul(g, y()?)?,
        Exp2 => binary(BinaryOp::Mul, Arg::V(&bmul(g, y()?)?), s(ln2))?,
        Expm1 => bmul(g, &binary(BinaryOp::Add, Arg::V(y()?), s(1.0))?)?,
        Log => binary(BinaryOp::Div, Arg::V(g), Arg::V(x()?))?,
        Log2 => binary(
            BinaryOp::Div,
            Arg::V(g),
            Arg::V(&binary(BinaryOp::Mul, Arg::V(x()?), s(ln2))?),
        )?,
        Log10 => binary(
            BinaryOp::Div,
            Arg::V(g),
            Arg::V(&binary(
                BinaryOp::Mul,
                Arg::V(x()?),
                s(std::f64::consts::LN_10),
            )?),
        )?,
        Log1p => binary(
            BinaryOp::Div,
            Arg::V(g),
            Arg::V(&binary(BinaryOp::Add, Arg::V(x()?), s(1.0))?),
        )?,
        Sqrt => binary(
            BinaryOp::Div,
            Arg::V(g),
            Arg::V(&binary(BinaryOp::Mul, Arg::V(y()?), s(2.0))?),
        )?,
        Rsqrt => {
            let y = y()?;
            let y3 = bmul(&bmul(y, y)?, y)?;
            binary(BinaryOp::Mul, Arg::V(&bmul(g, &y3)?), s(-0.5))?
        }
        Square => binary(BinaryOp::Mul, Arg::V(&bmul(g, x()?)?), s(2.0))?,
        Reciprocal => {
            let y = y()?;
            neg(&bmul(g, &bmul(y, y)?)?)?
        }
        Sin => bmul(g, &u(Cos, x()?)?)?,
        Cos => neg(&bmul(g, &u(Sin, x()?)?)?)?,
        Tan => {
            let y = y()?;
            bmul(g, &binary(BinaryOp::Add, Arg::V(&bmul(y, y)?), s(1.0))?)?
        }
        Asin | Acos => {
            let x = x()?;
            let d = u(Sqrt, &binary(BinaryOp::Sub, s(1.0), Arg::V(&bmul(x, x)?))?)?;
            let r = binary(BinaryOp::Div, Arg::V(g), Arg::V(&d))?;
            if op == Acos {
                neg(&r)?
            } else {
                r
            }
        }
        Atan => {
            let x = x()?;
            binary(
                BinaryOp::Div,
                Arg::V(g),
                Arg::V(&binary(BinaryOp::Add, Arg::V(&bmul(x, x)?), s(1.0))?),
            )?
        }
        Sinh => bmul(g, &u(Cosh, x()?)?)?,
        Cosh => bmul(g, &u(Sinh, x()?)?)?,
        Tanh => {
            let y = y()?;
            bmul(g, &binary(BinaryOp::Sub, s(1.0), Arg::V(&bmul(y, y)?))?)?
        }
        Sigmoid => {
            let y = y()?;
            bmul(g, &bmul(y, &binary(BinaryOp::Sub, s(1.0), Arg::V(y))?)?)?
        }
        LogSigmoid => bmul(g, &u(Sigmoid, &neg(x()?)?)?)?,
        Relu => {
            let y = y()?;
            let dead = crate::ops::binary::binary(
                BinaryOp::Le,
                crate::ops::binary::Operand::T(&y.t),
                crate::ops::binary::Operand::S(Scalar::Int(0)),
            )?;
            masked_zero(g, &dead)?
        }
        Gelu => {
            // d/dx x*Phi(x) = Phi(x) + x*phi(x)
            let x = x()?;
            let cdf = binary(
                BinaryOp::Mul,
                Arg::V(&binary(
                    BinaryOp::Add,
                    Arg::V(&u(
                        Erf,
                        &binary(BinaryOp::Mul, Arg::V(x), s(std::f64::consts::FRAC_1_SQRT_2))?,
                    )?),
                    s(1.0),
                )?),
                s(0.5),
            )?;
            let pdf = binary(
                BinaryOp::Mul,
                Arg::V(&u(
                    Exp,
                    &binary(BinaryOp::Mul, Arg::V(&bmul(x, x)?), s(-0.5))?,
                )?),
                s(1.0 / (2.0 * std::f64::consts::PI).sqrt()),
            )?;
            bmul(
                g,
                &binary(BinaryOp::Add, Arg::V(&cdf), Arg::V(&bmul(x, &pdf)?))?,
            )?
        }
        GeluTanh => {
            let x = x()?;
            let k = (2.0 / std::f64::consts::PI).sqrt();
            let x2 = bmul(x, x)?;
            let inner = binary(
                BinaryOp::Mul,
                Arg::V(&binary(
                    BinaryOp::Add,
                    Arg::V(x),
                    Arg::V(&binary(BinaryOp::Mul, Arg::V(&bmul(&x2, x)?), s(0.044715))?),
                )?),
                s(k),
            )?;
            let t = u(Tanh, &inner)?;
            let left = binary(
                BinaryOp::Mul,
                Arg::V(&binary(BinaryOp::Add, Arg::V(&t), s(1.0))?),
                s(0.5),
            )?;
            let dt = binary(BinaryOp::Sub, s(1.0), Arg::V(&bmul(&t, &t)?))?;
            let dinner = binary(
                BinaryOp::Mul,
                Arg::V(&binary(
                    BinaryOp::Add,
                    Arg::V(&binary(BinaryOp::Mul, Arg::V(&x2), s(3.0 * 0.044715))?),
                    s(1.0),
                )?),
                s(k),
            )?;
            let right = binary(
                BinaryOp::Mul,
                Arg::V(&bmul(&bmul(x, &dt)?, &dinner)?),
                s(0.5),
            )?;
            bmul(g, &binary(BinaryOp::Add, Arg::V(&left), Arg::V(&right))?)?
        }
        Silu => {
            let x = x()?;
            let sg = u(Sigmoid, x)?;
            let one_minus = binary(BinaryOp::Sub, s(1.0), Arg::V(&sg))?;
            let t = binary(BinaryOp::Add, Arg::V(&bmul(x, &one_minus)?), s(1.0))?;
            bmul(g, &bmul(&sg, &t)?)?
        }
        Mish => {
            let x = x()?;
            let sp = softplus(x, 1.0, 20.0)?;
            let tsp = u(Tanh, &sp)?;
            let d = bmul(
                &bmul(x, &u(Sigmoid, x)?)?,
                &binary(BinaryOp::Sub, s(1.0), Arg::V(&bmul(&tsp, &tsp)?))?,
            )?;
            bmul(g, &binary(BinaryOp::Add, Arg::V(&tsp), Arg::V(&d))?)?
        }
        Erf | Erfc => {
            let x = x()?;
            let e = u(Exp, &neg(&bmul(x, x)?)?)?;
            let c = 2.0 / std::f64::consts::PI.sqrt();
            binary(
                BinaryOp::Mul,
                Arg::V(&bmul(g, &e)?),
                s(if op == Erf { c } else { -c }),
            )?
        }
        IsNan | IsInf | IsPosInf | IsNegInf | IsFinite | LogicalNot | BitwiseNot => g.clone(),
    })
}

/// `x` with elements zeroed where `cond` is true (cond broadcasts). Differentiable in x.
pub fn masked_zero(x: &Var, cond: &Tensor) -> Result<Var> {
    let out = masked_zero_raw(&x.t, cond)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let c = cond.clone();
    Ok(record(
        "MaskedFillBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(masked_zero(&g[0], &c)?)])),
    ))
}

fn masked_zero_raw(x: &Tensor, cond: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes(x.shape(), cond.shape())?;
    let lx = x.layout.broadcast_to(&shape)?;
    let c = cond.to_dtype(DType::Bool)?;
    let lc = c.layout.broadcast_to(&shape)?;
    let n = crate::shape::checked_numel("masked_fill", &shape)?;
    crate::with_dtype!(x.dtype(), T, {
        let mut dst = try_zeroed_vec::<T>("masked_fill", n)?;
        // SAFETY: dtypes match the slices; dst is fresh.
        let (xs, cs) = unsafe { (x.data::<T>(), c.data::<bool>()) };
        strided::map2(
            xs,
            (&lx.strides, lx.offset),
            cs,
            (&lc.strides, lc.offset),
            &shape,
            &mut dst,
            |v, m| if m { T::default() } else { v },
        );
        Tensor::from_vec(dst, &shape)
    })
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

pub fn softplus(x: &Var, beta: f64, threshold: f64) -> Result<Var> {
    crate::ops::unary::require_float("softplus_cpu", &x.t)?;
    let (b32, t32) = (beta as f32, threshold as f32);
    let out = map_float(
        "softplus",
        &x.t,
        move |v| crate::ops::unary::softplus_(v, b32, t32),
        move |v| crate::ops::unary::softplus_(v, beta, threshold),
    )?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let sx = Saved::input(x);
    Ok(record(
        "SoftplusBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let x = sx.get("SoftplusBackward0")?;
            // sigmoid(beta*x) below the threshold, 1 above it
            let bx = binary(BinaryOp::Mul, Arg::V(&x), s(beta))?;
            let sg = u(UnaryOp::Sigmoid, &bx)?;
            let above = crate::ops::binary::binary(
                BinaryOp::Gt,
                crate::ops::binary::Operand::T(&bx.t),
                crate::ops::binary::Operand::S(Scalar::Float(threshold)),
            )?;
            let below = masked_zero(&sg, &above)?;
            let ones = Var::plain(above.to_dtype(g[0].t.dtype())?);
            Ok(vec![Some(bmul(
                &g[0],
                &super::binary::add(&below, &ones)?,
            )?)])
        }),
    ))
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
                &super::binary::add(&neg_part, &ones)?,
            )?)])
        }),
    ))
}

/// `clamp(x, min, max)` with PyTorch's gradient: passes where min <= x <= max.
pub fn clamp(x: &Var, min: Option<Arg>, max: Option<Arg>) -> Result<Var> {
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
        "ClampBackward1",
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
    if !needs_grad(&[x]) || !value.dtype().is_float() {
        return Ok(Var::plain(value.clone()));
    }
    Ok(record(
        "FillBackward0",
        value.clone(),
        &[x],
        false,
        Box::new(|g, _| {
            Ok(vec![Some(Var::plain(Tensor::zeros(
                "backward",
                g[0].t.shape(),
                g[0].t.dtype(),
            )?))])
        }),
    ))
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
