//! The unary backward rules too long for a table row (`grad: [|g, x| rules::gelu(g, x)]`).
//! Each is the formula PyTorch's derivative uses, in the same order of operations.

use super::expr::{mask, un, E};
use super::{softplus, SVal, Var};
use crate::dtype::Scalar;
use crate::error::Result;
use crate::ops::binary::binary as raw;
use crate::ops::binary::BinaryOp;
use crate::ops::unary::UnaryOp::{Erf, Exp, Sigmoid, Tanh};
use crate::ops::unary::{unary as raw_unary, UnaryOp};
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
