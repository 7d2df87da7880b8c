//! Differentiable elementwise ops: unary and binary forward through `ops::unary` /
//! `ops::binary`, with their backward rules. Unary rules come from the op table
//! (`crate::ops::table`), written as formulas (`expr`); the long ones are named
//! functions in `rules`. Gradients are written with differentiable ops, so
//! `create_graph=True` gives higher derivatives; broadcasting is undone by the engine.

pub mod expr;
mod rules;
pub mod special;

use super::{needs_grad, record, SaveForBackward, Saved, Var};
use crate::dtype::Scalar;
use crate::error::Result;
use crate::ops::binary::{binary as raw, BinaryOp, Operand};
use crate::ops::unary::{map_float, unary as raw_unary, UnaryOp};
use crate::tensor::Tensor;

/// A differentiable operand: a tensor or a Python number.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    V(&'a Var),
    S(Scalar),
}

impl Arg<'_> {
    fn operand(&self) -> Operand<'_> {
        match self {
            Arg::V(v) => Operand::T(&v.t),
            Arg::S(s) => Operand::S(*s),
        }
    }
    fn var(&self) -> Option<&Var> {
        match self {
            Arg::V(v) => Some(v),
            Arg::S(_) => None,
        }
    }
}

/// Saved operand (tensor with version, or the number).
enum SArg {
    V(Saved),
    S(Scalar),
}

impl SArg {
    fn new(a: &Arg) -> SArg {
        match a {
            Arg::V(v) => SArg::V(Saved::input(v)),
            Arg::S(s) => SArg::S(*s),
        }
    }
    fn get(&self, op: &str) -> Result<SVal> {
        Ok(match self {
            SArg::V(s) => SVal::V(s.get(op)?),
            SArg::S(s) => SVal::S(*s),
        })
    }
}

pub enum SVal {
    V(Var),
    S(Scalar),
}

impl SVal {
    /// The saved operand for a plain (non-differentiable) op.
    pub fn operand(&self) -> Operand<'_> {
        match self {
            SVal::V(v) => Operand::T(&v.t),
            SVal::S(s) => Operand::S(*s),
        }
    }
    fn arg(&self) -> Arg<'_> {
        match self {
            SVal::V(v) => Arg::V(v),
            SVal::S(s) => Arg::S(*s),
        }
    }
}

/// What a binary row's backward needs (from the table's `grad` field).
#[derive(Clone, Copy)]
enum BinRule {
    /// pow, maximum, minimum: rules below that read both operands
    Custom,
    /// a node whose backward raises (PyTorch has no derivative, e.g. floor_divide)
    Unimplemented,
    /// a formula per input; `(reads a, reads b)` of each input's formula
    Formula { a: (bool, bool), b: (bool, bool) },
}

macro_rules! reads_a {
    () => { false };
    (a $(, $r:ident)*) => { true };
    ($o:ident $(, $r:ident)*) => { reads_a!($($r),*) };
}
macro_rules! reads_b {
    () => { false };
    (b $(, $r:ident)*) => { true };
    ($o:ident $(, $r:ident)*) => { reads_b!($($r),*) };
}
/// Binds a formula parameter (`a` or `b`) to the saved operand it names.
macro_rules! operand {
    (a, $av:expr, $bv:expr) => {
        $av
    };
    (b, $av:expr, $bv:expr) => {
        $bv
    };
}

macro_rules! bin_rule {
    (none) => { None };
    (custom) => { Some(BinRule::Custom) };
    (unimplemented) => { Some(BinRule::Unimplemented) };
    (a: |$g:ident $(, $pa:ident)*| $ea:expr; b: |$g2:ident $(, $pb:ident)*| $eb:expr) => {
        Some(BinRule::Formula {
            a: (reads_a!($($pa),*), reads_b!($($pa),*)),
            b: (reads_a!($($pb),*), reads_b!($($pb),*)),
        })
    };
}

/// The gradients of a formula row: `(need a, need b)` say which to compute.
macro_rules! bin_formulas {
    ($gv:ident, $av:ident, $bv:ident, $need:ident; none) => { Ok((None, None)) };
    ($gv:ident, $av:ident, $bv:ident, $need:ident; custom) => { Ok((None, None)) };
    ($gv:ident, $av:ident, $bv:ident, $need:ident; unimplemented) => { Ok((None, None)) };
    ($gv:ident, $av:ident, $bv:ident, $need:ident;
     a: |$g:ident $(, $pa:ident)*| $ea:expr; b: |$g2:ident $(, $pb:ident)*| $eb:expr) => {{
        let ga = if $need.0 {
            let $g = $gv;
            $(let $pa = &operand!($pa, $av()?, $bv()?);)*
            Some(E::from($ea).var()?)
        } else {
            None
        };
        let gb = if $need.1 {
            let $g2 = $gv;
            $(let $pb = &operand!($pb, $av()?, $bv()?);)*
            Some(E::from($eb).var()?)
        } else {
            None
        };
        Ok((ga, gb))
    }};
}

macro_rules! binary_rules {
    ($($v:ident { name: $name:literal, node: $node:literal, kind: $kind:ident,
        dunders: [$($dn:ident)*], methods: [$($meth:tt)*], other: $other:ident,
        cost: $cost:literal, simd: [$($simd:ident)?], float: $float:expr, int: $int:expr,
        bool: $bool:expr, grad: [$($grad:tt)*], nested: $nested:literal,
        doc: $doc:literal, ex: [$($ex:literal),*] })*) => {
        /// What `op`'s backward needs; None when it has no gradient.
        fn bin_rule(op: BinaryOp) -> Option<BinRule> {
            match op {
                $(BinaryOp::$v => bin_rule!($($grad)*),)*
            }
        }

        /// The gradients of a formula row given the saved operands.
        fn bin_formulas(
            op: BinaryOp,
            g: &Var,
            a: &dyn Fn() -> Result<SVal>,
            b: &dyn Fn() -> Result<SVal>,
            need: (bool, bool),
        ) -> Result<Pair> {
            #[allow(unused_imports)]
            use expr::{same, un, zeros_like, E};
            #[allow(unused_imports)]
            use crate::ops::unary::UnaryOp::{Exp, Exp2};
            match op {
                $(BinaryOp::$v => bin_formulas!(g, a, b, need; $($grad)*),)*
            }
        }
    };
}
crate::ops::table::binary_table!(binary_rules);

/// `a op b` on differentiable operands.
pub fn binary(op: BinaryOp, a: Arg, b: Arg) -> Result<Var> {
    let out = raw(op, a.operand(), b.operand())?;
    let vars: Vec<&Var> = [a.var(), b.var()].into_iter().flatten().collect();
    let rule = match bin_rule(op) {
        Some(r) if out.dtype().is_float() && needs_grad(&vars) => r,
        _ => return Ok(Var::plain(out)),
    };
    // which of a, b are tensors (their positions in `next`)
    let (a_is_t, b_is_t) = (a.var().is_some(), b.var().is_some());
    // Save only what the needed gradients use (like PyTorch's derivative formulas), so
    // e.g. `t * 3` does not pin `t` and later in-place writes to `t` stay legal.
    let (ga_needed, gb_needed) = (
        a.var().is_some_and(|v| v.requires_grad()),
        b.var().is_some_and(|v| v.requires_grad()),
    );
    if let BinRule::Unimplemented = rule {
        let msg = format!("derivative for aten::{} is not implemented", op.name());
        return Ok(record(
            op.node_name(),
            out,
            &vars,
            false,
            Box::new(move |_, _| Err(crate::error::Error::runtime("", msg.clone()))),
        ));
    }
    let (need_a, need_b) = match rule {
        BinRule::Custom | BinRule::Unimplemented => (true, true),
        BinRule::Formula { a, b } => (
            (ga_needed && a.0) || (gb_needed && b.0),
            (ga_needed && a.1) || (gb_needed && b.1),
        ),
    };
    // PyTorch numbers the overloads with a Python number: self (1) or other (2); fmod and
    // remainder by a tensor are their second overload
    use BinaryOp::{Copysign, Fmod, Pow, Rem, SpecialXlog1py, SpecialZeta, Xlogy};
    let name = match (op, a_is_t, b_is_t) {
        (Copysign, _, false) => "CopysignBackward1",
        (Pow, _, false) => "PowBackward0",
        (Pow, false, _) => "PowBackward2",
        (Fmod, _, true) => "FmodBackward1",
        (Rem, _, true) => "RemainderBackward1",
        (Xlogy, false, _) => "XlogyBackward1",
        (Xlogy, _, false) => "XlogyBackward2",
        (SpecialXlog1py, false, _) => "SpecialXlog1PyBackward1",
        (SpecialXlog1py, _, false) => "SpecialXlog1PyBackward2",
        (SpecialZeta, false, _) => "SpecialZetaBackward1",
        (SpecialZeta, _, false) => "SpecialZetaBackward2",
        _ => op.node_name(),
    };
    let mut save = SaveForBackward::new(name);
    if need_a || need_b {
        save.keeps_other();
    }
    let sa = need_a.then(|| SArg::new(&a));
    let sb = need_b.then(|| SArg::new(&b));
    // only a tensor exponent's gradient uses the output (out * log(a))
    let sout = (op == BinaryOp::Pow && b_is_t).then(|| save.output(&out));
    Ok(save.record(
        out,
        &vars,
        Box::new(move |grads, needs| {
            let g = &grads[0];
            let (ga, gb) = binary_rule(
                op,
                rule,
                g,
                (sa.as_ref(), sb.as_ref(), sout.as_ref()),
                name,
                (
                    needs.first().copied().unwrap_or(false) && a_is_t,
                    needs
                        .get(if a_is_t { 1 } else { 0 })
                        .copied()
                        .unwrap_or(false)
                        && b_is_t,
                ),
            )?;
            let mut res = Vec::new();
            if a_is_t {
                res.push(ga);
            }
            if b_is_t {
                res.push(gb);
            }
            Ok(res)
        }),
    ))
}

type Pair = (Option<Var>, Option<Var>);

/// The saved operands `a`, `b` and output of a binary node.
type SavedBinary<'a> = (Option<&'a SArg>, Option<&'a SArg>, Option<&'a Saved>);

fn binary_rule(
    op: BinaryOp,
    rule: BinRule,
    g: &Var,
    (sa, sb, sout): SavedBinary,
    name: &str,
    need: (bool, bool),
) -> Result<Pair> {
    use BinaryOp::*;
    let load = |s: Option<&SArg>| -> Result<SVal> {
        match s {
            Some(s) => s.get(name),
            None => Ok(SVal::S(Scalar::Int(0))),
        }
    };
    if let BinRule::Formula { .. } = rule {
        return bin_formulas(op, g, &|| load(sa), &|| load(sb), need);
    }
    Ok(match op {
        Pow => {
            let (a, b) = (load(sa)?, load(sb)?);
            let out = sout.map(|s| s.get(name)).transpose()?;
            let ga = if need.0 {
                match b {
                    // scalar exponent: g * b * a^(b-1) directly (PowBackward0)
                    SVal::S(e) if e.to_f64() == 0.0 => {
                        Some(binary(Mul, Arg::V(g), Arg::S(Scalar::Int(0)))?)
                    }
                    SVal::S(e) => {
                        let em1 = match e {
                            Scalar::Int(i) => Scalar::Int(i - 1),
                            other => Scalar::Float(other.to_f64() - 1.0),
                        };
                        let p = binary(Pow, a.arg(), Arg::S(em1))?;
                        Some(binary(
                            Mul,
                            Arg::V(&binary(Mul, Arg::V(g), Arg::S(e))?),
                            Arg::V(&p),
                        )?)
                    }
                    SVal::V(_) => {
                        // g * b * a^(b-1), zero where b == 0
                        let bm1 = binary(Sub, b.arg(), Arg::S(Scalar::Int(1)))?;
                        let p = binary(Pow, a.arg(), Arg::V(&bm1))?;
                        let t = binary(Mul, Arg::V(&binary(Mul, Arg::V(g), b.arg())?), Arg::V(&p))?;
                        let zero_exp =
                            raw(BinaryOp::Eq, b.arg().operand(), Operand::S(Scalar::Int(0)))?;
                        Some(masked_zero(&t, &zero_exp)?)
                    }
                }
            } else {
                None
            };
            let gb = match (need.1, out) {
                (true, Some(out)) => {
                    // g * out * log(a), zero where a == 0 and b >= 0
                    let la = unary(UnaryOp::Log, &to_var(&a)?)?;
                    let t = binary(
                        Mul,
                        Arg::V(&binary(Mul, Arg::V(g), Arg::V(&out))?),
                        Arg::V(&la),
                    )?;
                    let az = raw(BinaryOp::Eq, a.arg().operand(), Operand::S(Scalar::Int(0)))?;
                    let bp = raw(BinaryOp::Ge, b.arg().operand(), Operand::S(Scalar::Int(0)))?;
                    let cond = raw(BinaryOp::LogicalAnd, Operand::T(&az), Operand::T(&bp))?;
                    Some(masked_zero(&t, &cond)?)
                }
                _ => None,
            };
            (ga, gb)
        }
        Maximum | Minimum => {
            let (a, b) = (load(sa)?, load(sb)?);
            // the larger (smaller) input gets the gradient; ties split it evenly
            let lose = if op == Maximum {
                BinaryOp::Lt
            } else {
                BinaryOp::Gt
            };
            let tie = raw(BinaryOp::Eq, a.arg().operand(), b.arg().operand())?;
            let half = binary(
                Mul,
                Arg::V(&Var::plain(tie.clone())),
                Arg::S(Scalar::Float(-0.5)),
            )?;
            let scale = binary(Add, Arg::V(&half), Arg::S(Scalar::Int(1)))?;
            let gs = binary(Mul, Arg::V(g), Arg::V(&scale))?;
            let ga = if need.0 {
                Some(masked_zero(
                    &gs,
                    &raw(lose, a.arg().operand(), b.arg().operand())?,
                )?)
            } else {
                None
            };
            let gb = if need.1 {
                Some(masked_zero(
                    &gs,
                    &raw(lose, b.arg().operand(), a.arg().operand())?,
                )?)
            } else {
                None
            };
            (ga, gb)
        }
        Igamma | Igammac => {
            if need.0 {
                // PyTorch has no derivative in the shape parameter
                return Err(crate::error::Error::not_implemented(
                    "",
                    format!(
                        "the derivative for \'{}: input\' is not implemented.",
                        op.name()
                    ),
                ));
            }
            let gb = if need.1 {
                // d/dx P(a, x) = exp((a - 1) log x - x - lgamma(a)) = -d/dx Q(a, x)
                let (a, b) = (to_var(&load(sa)?)?, to_var(&load(sb)?)?);
                let am1 = binary(Sub, Arg::V(&a), Arg::S(Scalar::Float(1.0)))?;
                let t = binary(Mul, Arg::V(&am1), Arg::V(&unary(UnaryOp::Log, &b)?))?;
                let t = binary(Sub, Arg::V(&t), Arg::V(&b))?;
                let t = binary(Sub, Arg::V(&t), Arg::V(&unary(UnaryOp::Lgamma, &a)?))?;
                let d = binary(Mul, Arg::V(g), Arg::V(&unary(UnaryOp::Exp, &t)?))?;
                Some(if op == Igammac {
                    binary(Mul, Arg::V(&d), Arg::S(Scalar::Float(-1.0)))?
                } else {
                    d
                })
            } else {
                None
            };
            (None, gb)
        }
        SpecialZeta => {
            if need.0 {
                // PyTorch has no derivative in the order s
                return Err(crate::error::Error::not_implemented(
                    "",
                    "the derivative for 'zeta' is not implemented.",
                ));
            }
            let gb = if need.1 {
                // d/dq zeta(s, q) = -s zeta(s + 1, q)
                let (a, b) = (load(sa)?, load(sb)?);
                let a1 = binary(Add, a.arg(), Arg::S(Scalar::Float(1.0)))?;
                let z = binary(SpecialZeta, Arg::V(&a1), b.arg())?;
                Some((g * (&a * -1.0) * &z).var()?)
            } else {
                None
            };
            (None, gb)
        }
        _ => (None, None),
    })
}

fn to_var(v: &SVal) -> Result<Var> {
    Ok(match v {
        SVal::V(v) => v.clone(),
        SVal::S(s) => Var::plain(crate::tensor::Tensor::scalar(*s, crate::dtype::DType::F64)),
    })
}

pub fn add(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Add, Arg::V(a), Arg::V(b))
}
pub fn sub(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Sub, Arg::V(a), Arg::V(b))
}
pub fn mul(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Mul, Arg::V(a), Arg::V(b))
}
pub fn div(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Div, Arg::V(a), Arg::V(b))
}
pub fn mul_s(a: &Var, s: f64) -> Result<Var> {
    binary(BinaryOp::Mul, Arg::V(a), Arg::S(Scalar::Float(s)))
}

pub fn neg(x: &Var) -> Result<Var> {
    unary(UnaryOp::Neg, x)
}

/// PyTorch's node name of a unary op: `tanh` -> `TanhBackward0`. As PyTorch's codegen
/// does, each `_`-separated word and each letter after a digit starts upper-case
/// (`log1p` -> `Log1PBackward0`, `special_i0e` -> `SpecialI0EBackward0`).
fn node_name(op: UnaryOp) -> String {
    // PyTorch's own spellings where they are not the capitalised op name
    match op.name() {
        "logsigmoid" => return "LogSigmoidBackward0".to_string(),
        "square" => return "PowBackward0".to_string(), // square is pow(x, 2) in PyTorch
        _ => {}
    }
    let mut cap = String::new();
    for w in op.name().split('_') {
        let mut upper = true;
        for c in w.chars() {
            cap.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = c.is_ascii_digit();
        }
    }
    format!("{cap}Backward0")
}

/// What a unary rule reads besides the gradient.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    Nothing,
    Input,
    Output,
}

/// The table's `grad` field: which value the rule reads (`x` input, `y` output).
macro_rules! reads {
    (none) => {
        None
    };
    (|$g:ident| $body:expr) => {
        Some(Reads::Nothing)
    };
    (|$g:ident, x| $body:expr) => {
        Some(Reads::Input)
    };
    (|$g:ident, y| $body:expr) => {
        Some(Reads::Output)
    };
}

/// The table's `grad` field as code: the rule's formula with `g`, and `x` or `y`
/// bound to the saved value.
macro_rules! rule_body {
    ($gv:ident, $sv:ident; none) => {
        Ok($gv.clone())
    };
    ($gv:ident, $sv:ident; |$g:ident| $body:expr) => {{
        let $g = $gv;
        E::from($body).var()
    }};
    ($gv:ident, $sv:ident; |$g:ident, $s:ident| $body:expr) => {{
        let $g = $gv;
        let $s = $sv()?;
        E::from($body).var()
    }};
}

macro_rules! unary_rules {
    (math: [$($v:ident { name: $name:literal, methods: [$($meth:tt)*], fn_inplace: $fi:literal,
        cost: $cost:literal, simd: [$($simd:ident)?], float: $float:expr,
        ints: $ints:expr, bools: $bools:expr, grad: [$($grad:tt)*], nested: $nested:literal,
        doc: $doc:literal, ex: [$($ex:literal),*] })*]
     predicates: [$($rest:tt)*]) => {
        /// What `op`'s backward reads; None when it has no gradient.
        fn reads(op: UnaryOp) -> Option<Reads> {
            match op {
                $(UnaryOp::$v => reads!($($grad)*),)*
                _ => None,
            }
        }

        /// `op`'s gradient given the incoming `g` and the saved value.
        fn rule(op: UnaryOp, g: &Var, saved: Option<&Var>) -> Result<Var> {
            #[allow(unused_imports)]
            use expr::{un, zeros_like, same, E};
            #[allow(unused_imports)]
            use std::f64::consts::{LN_10, LN_2, PI};
            #[allow(unused_imports)]
            use UnaryOp::*;
            let _saved = || {
                saved.ok_or_else(|| crate::error::Error::runtime("backward", "missing saved value"))
            };
            match op {
                $(UnaryOp::$v => rule_body!(g, _saved; $($grad)*),)*
                _ => Ok(g.clone()),
            }
        }
    };
}
crate::ops::table::unary_table!(unary_rules);

/// `op(x)` on a differentiable value; the op table says what backward saves and does.
pub fn unary(op: UnaryOp, x: &Var) -> Result<Var> {
    let out = raw_unary(op, &x.t)?;
    let reads = match reads(op) {
        Some(r) if out.dtype().is_float() && needs_grad(&[x]) => r,
        _ => return Ok(Var::plain(out)),
    };
    let nm = node_name(op);
    let mut save = SaveForBackward::new(&nm);
    let saved = match reads {
        Reads::Nothing => None,
        Reads::Input => Some(save.input(x)),
        Reads::Output => Some(save.output(&out)),
    };
    let nm2 = nm.clone();
    let v = save.record(
        out,
        &[x],
        Box::new(move |grads, _| {
            let s = saved.as_ref().map(|s| s.get(&nm2)).transpose()?;
            Ok(vec![Some(rule(op, &grads[0], s.as_ref())?)])
        }),
    );
    Ok(v)
}

/// `x` with elements zeroed where `cond` is true (cond broadcasts). Differentiable in x.
pub fn masked_zero(x: &Var, cond: &Tensor) -> Result<Var> {
    let out = crate::ops::unary::masked_zero(&x.t, cond)?;
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
            let bx = binary(BinaryOp::Mul, Arg::V(&x), Arg::S(Scalar::Float(beta)))?;
            let sg = unary(UnaryOp::Sigmoid, &bx)?;
            let above = crate::ops::binary::binary(
                BinaryOp::Gt,
                crate::ops::binary::Operand::T(&bx.t),
                crate::ops::binary::Operand::S(Scalar::Float(threshold)),
            )?;
            let below = masked_zero(&sg, &above)?;
            let ones = Var::plain(above.to_dtype(g[0].t.dtype())?);
            Ok(vec![Some(mul(&g[0], &add(&below, &ones)?)?)])
        }),
    ))
}
