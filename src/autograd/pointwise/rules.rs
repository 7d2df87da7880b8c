//! The unary backward rules too long for a table row (`grad: [|g, x| rules::gelu(g, x)]`).
//! Each is the formula PyTorch's derivative uses, in the same order of operations.

use super::expr::{mask, un, E};
use super::{masked_zero, softplus, SVal, Var};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::ops::binary::binary as raw;
use crate::ops::binary::{BinaryOp, Operand};
use crate::ops::unary::UnaryOp::{Cos, Erf, Exp, Sigmoid, Sin, Tanh};
use crate::ops::unary::{unary as raw_unary, UnaryOp};
use crate::tensor::Tensor;
use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// relu: the gradient passes where the output is positive.
pub fn relu(g: &Var, y: &Var) -> Result<Var> {
    E::from(g)
        .masked_zero(&mask(BinaryOp::Le, y, Scalar::Int(0))?)
        .var()
}

/// d/dx x Phi(x) = Phi(x) + x phi(x).
pub fn gelu(g: &Var, x: &Var) -> Result<Var> {
    let cdf = (un(Erf, x * FRAC_1_SQRT_2) + 1.0) * 0.5;
    let pdf = un(Exp, x * x * -0.5) * (1.0 / (2.0 * PI).sqrt());
    (g * (cdf + x * pdf)).var()
}

/// The tanh approximation's derivative: 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3c x^2).
pub fn gelu_tanh(g: &Var, x: &Var) -> Result<Var> {
    let k = (2.0 / PI).sqrt();
    let x2 = (x * x).var()?;
    let inner = (x + &x2 * x * 0.044715) * k;
    let t = un(Tanh, inner).var()?;
    let left = (&t + 1.0) * 0.5;
    let dt = 1.0 - &t * &t;
    let dinner = (&x2 * (3.0 * 0.044715) + 1.0) * k;
    let right = x * dt * dinner * 0.5;
    (g * (left + right)).var()
}

/// silu(x) = x sigmoid(x): sigmoid(x) (1 + x (1 - sigmoid(x))).
pub fn silu(g: &Var, x: &Var) -> Result<Var> {
    let sg = un(Sigmoid, x).var()?;
    let t = x * (1.0 - &sg) + 1.0;
    (g * (&sg * t)).var()
}

/// mish(x) = x tanh(softplus(x)): tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2).
pub fn mish(g: &Var, x: &Var) -> Result<Var> {
    let sp = softplus(x, 1.0, 20.0)?;
    let tsp = un(Tanh, &sp).var()?;
    let d = x * un(Sigmoid, x) * (1.0 - &tsp * &tsp);
    (g * (&tsp + d)).var()
}

/// remainder(a, b) = a - floor(a / b) b: d/db = -floor(a / b) (the quotient is a
/// constant of the data).
pub fn remainder_b(g: &Var, a: &SVal, b: &SVal) -> Result<Var> {
    let q = raw(BinaryOp::FloorDiv, a.operand(), b.operand())?;
    (-(g * &Var::plain(q))).var()
}

/// fmod(a, b) = a - trunc(a / b) b: d/db = -trunc(a / b).
pub fn fmod_b(g: &Var, a: &SVal, b: &SVal) -> Result<Var> {
    let d = raw(BinaryOp::Div, a.operand(), b.operand())?;
    let q = raw_unary(UnaryOp::Trunc, &d)?;
    (-(g * &Var::plain(q))).var()
}

// --- special functions ------------------------------------------------------------

/// digamma' = trigamma = polygamma(1, x).
pub fn digamma(g: &Var, x: &Var) -> Result<Var> {
    (g * &super::special::polygamma(1, x)?).var()
}

/// sinc'(x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0.
pub fn sinc(g: &Var, x: &Var) -> Result<Var> {
    let xpi = (x * PI).var()?;
    let x2pi = (x * x * PI).var()?;
    let out = g * (&xpi * un(Cos, &xpi) - un(Sin, &xpi)) / &x2pi;
    out.masked_zero(&mask(BinaryOp::Eq, &x2pi, Scalar::Float(0.0))?)
        .var()
}

/// log_ndtr'(x) = exp(-(log_ndtr(x) + x^2/2)) / sqrt(2 pi).
pub fn log_ndtr(g: &Var, x: &Var) -> Result<Var> {
    let y = un(UnaryOp::SpecialLogNdtr, x).var()?;
    (g / (2.0 * PI).sqrt() * un(Exp, -(&y + x * x / 2.0))).var()
}

/// erfcx'(x) = 2 x erfcx(x) - 2 / sqrt(pi).
pub fn erfcx(g: &Var, x: &Var) -> Result<Var> {
    let y = un(UnaryOp::SpecialErfcx, x).var()?;
    ((2.0 * x * &y - 2.0 / PI.sqrt()) * g).var()
}

/// i0e'(x) = i1e(x) - sgn(x) i0e(x).
pub fn i0e(g: &Var, x: &Var) -> Result<Var> {
    let y = un(UnaryOp::SpecialI0e, x).var()?;
    (g * (un(UnaryOp::SpecialI1e, x) - un(UnaryOp::Sign, x) * &y)).var()
}

/// `x` with its elements of magnitude at most epsilon replaced by epsilon (so the
/// Bessel rules' `1/x` stays finite), and the mask of those elements.
fn away_from_zero(x: &Var) -> Result<(Var, Tensor)> {
    let eps = if x.t.dtype() == DType::F32 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    let tiny = raw(
        BinaryOp::Le,
        Operand::T(&raw_unary(UnaryOp::Abs, &x.t)?),
        Operand::S(Scalar::Float(eps)),
    )?;
    let fill = Var::plain(raw(
        BinaryOp::Mul,
        Operand::T(&tiny.to_dtype(x.t.dtype())?),
        Operand::S(Scalar::Float(eps)),
    )?);
    let safe = (E::from(masked_zero(x, &tiny)) + &fill).var()?;
    Ok((safe, tiny))
}

/// `gradx` where the input is not tiny, 0.5 (the limit at 0) where it is.
fn half_at_zero(g: &Var, gradx: E, tiny: &Tensor) -> Result<Var> {
    let half = Var::plain(raw(
        BinaryOp::Mul,
        Operand::T(&tiny.to_dtype(g.t.dtype())?),
        Operand::S(Scalar::Float(0.5)),
    )?);
    (g * (gradx.masked_zero(tiny) + &half)).var()
}

/// i1'(x) = i0(x) - i1(x) / x, 1/2 at 0.
pub fn i1(g: &Var, x: &Var) -> Result<Var> {
    let y = un(UnaryOp::SpecialI1, x).var()?;
    let (safe, tiny) = away_from_zero(x)?;
    let gradx = un(UnaryOp::I0, &safe) - &y * un(UnaryOp::Reciprocal, &safe);
    half_at_zero(g, gradx, &tiny)
}

/// i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0.
pub fn i1e(g: &Var, x: &Var) -> Result<Var> {
    let y = un(UnaryOp::SpecialI1e, x).var()?;
    let (safe, tiny) = away_from_zero(x)?;
    let gradx = un(UnaryOp::SpecialI0e, &safe)
        - &y * (un(UnaryOp::Sign, &safe) + un(UnaryOp::Reciprocal, &safe));
    half_at_zero(g, gradx, &tiny)
}

/// xlogy's gradient in `a`: log(b) (PyTorch's formula: no mask where `a` is 0).
pub fn xlogy_a(_a: &SVal, b: &SVal) -> E {
    un(UnaryOp::Log, b)
}

/// xlog1py's gradient in `a`: log1p(b).
pub fn xlog1py_a(_a: &SVal, b: &SVal) -> E {
    un(UnaryOp::Log1p, b)
}

/// copysign's gradient in `a`: `g * copysign(a, b) / a`, 0 where `a` is 0 (PyTorch's
/// `copysign_tensor_self_backward`; the ratio is a constant of the data).
pub fn copysign_a(g: &Var, a: &SVal, b: &SVal) -> Result<Var> {
    let r = raw(BinaryOp::Copysign, a.operand(), b.operand())?;
    let ratio = raw(BinaryOp::Div, Operand::T(&r), a.operand())?;
    let zero = raw(BinaryOp::Eq, a.operand(), Operand::S(Scalar::Int(0)))?;
    let ratio = crate::ops::unary::masked_zero(&ratio, &zero)?;
    (g * &Var::plain(ratio)).var()
}

/// `hypot(a, b)` as a formula value (the denominator of hypot's gradients).
pub fn hypot(a: &SVal, b: &SVal) -> E {
    super::expr::apply(BinaryOp::Hypot, a.into(), b.into())
}

/// fmax / fmin's gradients: `input` takes it where it won or tied, or `other` is NaN
/// (`a >= b || isnan(b)` for fmax, `<=` for fmin); `other` takes it elsewhere.
pub fn fmaxmin(g: &Var, a: &SVal, b: &SVal, max: bool, for_a: bool) -> Result<Var> {
    let cmp = raw(
        if max { BinaryOp::Ge } else { BinaryOp::Le },
        a.operand(),
        b.operand(),
    )?;
    let b_nan = raw(BinaryOp::Ne, b.operand(), b.operand())?;
    let a_wins = raw(BinaryOp::LogicalOr, Operand::T(&cmp), Operand::T(&b_nan))?;
    let zero_where = if for_a {
        raw_unary(UnaryOp::LogicalNot, &a_wins)?
    } else {
        a_wins
    };
    masked_zero(g, &zero_where)
}
