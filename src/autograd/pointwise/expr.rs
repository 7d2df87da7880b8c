//! Backward rules written as formulas: `g * (1.0 - y * y)` instead of nested calls.
//!
//! An [`E`] is a differentiable value still to be checked for errors. Arithmetic on
//! `&Var`, `E` and `f64` records the same differentiable ops (`binary`, `unary`) a
//! hand-written rule would, in the order the formula spells, so `create_graph=True`
//! gives higher derivatives and results are bit for bit those of the nested calls. The
//! op tables (`crate::ops::table`) write their backward rules in this notation.

use super::{binary, masked_zero, unary, Arg, SVal};
use crate::autograd::Var;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::ops::binary::{binary as raw, BinaryOp, Operand};
use crate::ops::unary::UnaryOp;
use crate::tensor::Tensor;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A differentiable value or the error that computing it raised.
pub struct E(pub Result<Var>);

/// One side of a formula's operator.
pub enum Side<'a> {
    R(&'a Var),
    E(E),
    F(f64),
    /// a Python number operand, kept as it came (int or float)
    S(Scalar),
}

impl<'a> From<&'a SVal> for Side<'a> {
    fn from(v: &'a SVal) -> Self {
        match v {
            SVal::V(v) => Side::R(v),
            SVal::S(s) => Side::S(*s),
        }
    }
}

impl<'a> From<&'a Var> for Side<'a> {
    fn from(v: &'a Var) -> Self {
        Side::R(v)
    }
}
impl From<E> for Side<'_> {
    fn from(e: E) -> Self {
        Side::E(e)
    }
}
impl From<f64> for Side<'_> {
    fn from(f: f64) -> Self {
        Side::F(f)
    }
}

/// `a op b` on two formula sides (numbers enter as float scalars, as the rules did).
pub fn apply(op: BinaryOp, a: Side, b: Side) -> E {
    fn go(op: BinaryOp, a: Side, b: Side) -> Result<Var> {
        let (av, bv) = (a.value()?, b.value()?);
        binary(op, av.arg(), bv.arg())
    }
    E(go(op, a, b))
}

/// A side with its error checked: a borrowed or owned value, or a number.
enum Value<'a> {
    R(&'a Var),
    O(Var),
    S(Scalar),
}

impl Value<'_> {
    fn arg(&self) -> Arg<'_> {
        match self {
            Value::R(v) => Arg::V(v),
            Value::O(v) => Arg::V(v),
            Value::S(s) => Arg::S(*s),
        }
    }
}

impl<'a> Side<'a> {
    fn value(self) -> Result<Value<'a>> {
        Ok(match self {
            Side::R(v) => Value::R(v),
            Side::E(e) => Value::O(e.0?),
            Side::F(f) => Value::S(Scalar::Float(f)),
            Side::S(s) => Value::S(s),
        })
    }
}

/// `op(x)` for a formula value.
pub fn un<'a>(op: UnaryOp, x: impl Into<Side<'a>>) -> E {
    E(match x.into() {
        Side::R(v) => unary(op, v),
        Side::E(e) => e.0.and_then(|v| unary(op, &v)),
        Side::F(f) => unary(
            op,
            &Var::plain(Tensor::scalar(Scalar::Float(f), DType::F64)),
        ),
        Side::S(s) => unary(op, &Var::plain(Tensor::scalar(s, DType::F64))),
    })
}

impl From<&Var> for E {
    fn from(v: &Var) -> Self {
        E(Ok(v.clone()))
    }
}
impl From<Result<Var>> for E {
    fn from(r: Result<Var>) -> Self {
        E(r)
    }
}

/// The incoming gradient unchanged (ops whose derivative is 1).
pub fn same(g: &Var) -> E {
    E::from(g)
}

impl E {
    pub fn var(self) -> Result<Var> {
        self.0
    }
    /// This value with elements zeroed where `cond` (a plain mask) is true.
    pub fn masked_zero(self, cond: &Tensor) -> E {
        E(self.0.and_then(|v| masked_zero(&v, cond)))
    }
}

/// `x <= 0` etc. as a plain (non-differentiable) mask.
pub fn mask(op: BinaryOp, x: &Var, s: Scalar) -> Result<Tensor> {
    raw(op, Operand::T(&x.t), Operand::S(s))
}

/// Zeros shaped like the incoming gradient (the rule of piecewise-constant ops).
pub fn zeros_like(g: &Var) -> E {
    E(Tensor::zeros("backward", g.t.shape(), g.t.dtype()).map(Var::plain))
}

macro_rules! formula_ops {
    ($($tr:ident $m:ident $op:ident;)*) => {$(
        impl<'a, R: Into<Side<'a>>> $tr<R> for &'a Var {
            type Output = E;
            fn $m(self, rhs: R) -> E {
                apply(BinaryOp::$op, Side::R(self), rhs.into())
            }
        }
        impl<'a, R: Into<Side<'a>>> $tr<R> for E {
            type Output = E;
            fn $m(self, rhs: R) -> E {
                apply(BinaryOp::$op, Side::E(self), rhs.into())
            }
        }
        impl<'a, R: Into<Side<'a>>> $tr<R> for &'a SVal {
            type Output = E;
            fn $m(self, rhs: R) -> E {
                apply(BinaryOp::$op, Side::from(self), rhs.into())
            }
        }
        impl<'a> $tr<&'a Var> for f64 {
            type Output = E;
            fn $m(self, rhs: &'a Var) -> E {
                apply(BinaryOp::$op, Side::F(self), Side::R(rhs))
            }
        }
        impl $tr<E> for f64 {
            type Output = E;
            fn $m(self, rhs: E) -> E {
                apply(BinaryOp::$op, Side::F(self), Side::E(rhs))
            }
        }
    )*};
}

formula_ops! {
    Add add Add;
    Sub sub Sub;
    Mul mul Mul;
    Div div Div;
}

impl Neg for &Var {
    type Output = E;
    fn neg(self) -> E {
        un(UnaryOp::Neg, self)
    }
}
impl Neg for E {
    type Output = E;
    fn neg(self) -> E {
        un(UnaryOp::Neg, self)
    }
}
