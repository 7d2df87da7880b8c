//! Differentiable reductions, scans and softmax: each op computes its result with the
//! plain `ops::reduce` kernel and records a node whose backward rule follows PyTorch's
//! derivative formula (`derivatives.yaml` / `FunctionsManual.cpp`), including its
//! subgradient conventions: ties share the gradient of `amax`/`amin` and of `max()`/
//! `min()` evenly, `max(dim)` sends it to the returned index, `std` and the 2-norm have
//! gradient 0 where the result is 0, and `prod`/`cumprod` are exact with zeros.
//!
//! Rules are written with Var-level ops (this file's own reductions included), so
//! `create_graph=True` differentiates them again; masks and indices computed from the
//! data are constants. Multi-output nodes get zeros for an unused output from the engine;
//! rules skip such all-zero plain gradients so a NaN factor (empty or NaN slices) cannot
//! leak into the used output's gradient.

use super::pointwise::{self as ab, Arg};
use super::{index, is_grad_enabled, join, needs_grad, record, record_multi, unary};
use super::{views, SaveForBackward, Saved, Var};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::ops::binary::{binary as rawb, BinaryOp, Operand};
use crate::ops::reduce::{self as r, NormP, Plan};
use crate::ops::unary::{unary as rawu, UnaryOp};
use crate::shape::{normalize_dim, Dims};
use crate::tensor::Tensor;
use smallvec::SmallVec;

mod scans;
#[cfg(test)]
mod tests;

pub use scans::{cummax, cumsum, softmax};

// ------------------------------------------------------------------ helpers

/// How a reduction's output lines up with its input: the input shape and which dims
/// were reduced (PyTorch's `unsqueeze_multiple` / `restore_reduced_dims`).
#[derive(Clone)]
struct Restore {
    shape: Dims,
    reduced: SmallVec<[bool; 6]>,
    keepdim: bool,
}

impl Restore {
    fn new(x: &Tensor, dims: Option<&[i64]>, keepdim: bool) -> Result<Restore> {
        let plan = Plan::new(x, dims, keepdim)?;
        Ok(Restore {
            shape: x.shape().into(),
            reduced: plan.reduced,
            keepdim,
        })
    }

    fn one_dim(x: &Tensor, dim: usize, keepdim: bool) -> Result<Restore> {
        Restore::new(x, Some(&[dim as i64]), keepdim)
    }

    /// The output's shape with the reduced dims kept as size 1.
    fn kept_sizes(&self) -> Vec<i64> {
        self.shape
            .iter()
            .zip(&self.reduced)
            .map(|(&s, &r)| if r { 1 } else { s as i64 })
            .collect()
    }

    /// Output-shaped `v` with the reduced dims put back as size 1 (broadcasts against x).
    fn unsqueeze(&self, v: &Var) -> Result<Var> {
        if self.keepdim || v.t.ndim() == self.shape.len() {
            return Ok(v.clone());
        }
        views::reshape(v, &self.kept_sizes())
    }

    fn unsqueeze_t(&self, t: &Tensor) -> Result<Tensor> {
        if self.keepdim || t.ndim() == self.shape.len() {
            return Ok(t.clone());
        }
        t.reshape(&self.kept_sizes())
    }

    /// Output-shaped `v` broadcast back over the input (the gradient of a sum).
    fn expand(&self, v: &Var) -> Result<Var> {
        views::expand(&self.unsqueeze(v)?, &self.shape)
    }

    /// The reduced dims (all of them for a 0-d input, which `Plan` reads as "all").
    fn dims(&self) -> Vec<i64> {
        (0..self.shape.len() as i64)
            .filter(|&d| self.reduced[d as usize])
            .collect()
    }

    /// How many input elements fold into one output element.
    fn count(&self) -> usize {
        self.shape
            .iter()
            .zip(&self.reduced)
            .filter(|(_, &r)| r)
            .map(|(&s, _)| s)
            .product()
    }
}

fn plain(t: Tensor) -> Var {
    Var::plain(t)
}

fn zeros(shape: &[usize], dtype: DType) -> Result<Var> {
    Ok(plain(Tensor::zeros("backward", shape, dtype)?))
}

fn cmp(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    rawb(op, Operand::T(a), Operand::T(b))
}

fn is_nan(t: &Tensor) -> Result<Tensor> {
    rawu(UnaryOp::IsNan, t)
}

fn eq_zero(t: &Tensor) -> Result<Tensor> {
    rawb(BinaryOp::Eq, Operand::T(t), Operand::S(Scalar::Int(0)))
}

/// How many elements of a bool tensor are true.
fn count_true(mask: &Tensor) -> Result<i64> {
    Ok(r::count_nonzero(mask, None)?.item()?.to_i64())
}

fn u(op: UnaryOp, x: &Var) -> Result<Var> {
    crate::autograd::pointwise::unary(op, x)
}

fn mul_s(x: &Var, s: f64) -> Result<Var> {
    ab::mul_s(x, s)
}

fn div_s(x: &Var, s: f64) -> Result<Var> {
    ab::binary(BinaryOp::Div, Arg::V(x), Arg::S(Scalar::Float(s)))
}

fn pow_s(x: &Var, e: f64) -> Result<Var> {
    ab::binary(BinaryOp::Pow, Arg::V(x), Arg::S(Scalar::Float(e)))
}

/// An engine-made zero gradient for an unused output (nothing to differentiate).
fn unused(g: &Var) -> Result<bool> {
    Ok(!g.requires_grad()
        && count_true(&rawb(
            BinaryOp::Ne,
            Operand::T(&g.t),
            Operand::S(Scalar::Int(0)),
        )?)? == 0)
}

/// Sum of `a` and `b` where either may be missing.
fn add_opt(a: Option<Var>, b: Option<Var>) -> Result<Option<Var>> {
    Ok(match (a, b) {
        (Some(a), Some(b)) => Some(ab::add(&a, &b)?),
        (a, b) => a.or(b),
    })
}

/// `(g / mask.sum(dims, keepdim)) * mask`: the gradient shared evenly by the selected
/// elements of each reduced slice (`g_r` already has the reduced dims restored).
fn scale_by_count(g_r: &Var, mask: &Tensor, rs: &Restore) -> Result<Var> {
    let m = mask.to_dtype(g_r.t.dtype())?;
    let count = r::sum(&m, Some(&rs.dims()), true, None)?;
    ab::mul(&ab::div(g_r, &plain(count))?, &plain(m))
}

// ------------------------------------------------------------------ sums and means

/// `x.sum(dim, keepdim, dtype=)`: the gradient is broadcast back over the reduced dims.
pub fn sum(x: &Var, dims: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Result<Var> {
    let out = r::sum(&x.t, dims, keepdim, dtype)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let rs = Restore::new(&x.t, dims, keepdim)?;
    let name = if dims.is_some() {
        "SumBackward1"
    } else {
        "SumBackward0"
    };
    Ok(record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(rs.expand(&g[0])?)])),
    ))
}

/// `x.nansum(...)`: like sum, with no gradient to the NaN elements.
pub fn nansum(x: &Var, dims: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Result<Var> {
    let out = r::nansum(&x.t, dims, keepdim, dtype)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let rs = Restore::new(&x.t, dims, keepdim)?;
    let sx = Saved::input(x);
    Ok(record(
        "NansumBackward0",
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let x = sx.get("NansumBackward0")?;
            Ok(vec![Some(crate::autograd::pointwise::masked_zero(
                &rs.expand(&g[0])?,
                &is_nan(&x.t)?,
            )?)])
        }),
    ))
}

/// `x.mean(...)`: the gradient divided by the number of reduced elements.
pub fn mean(x: &Var, dims: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Result<Var> {
    let out = r::mean(&x.t, dims, keepdim, dtype)?;
    if !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let rs = Restore::new(&x.t, dims, keepdim)?;
    let name = if dims.is_some() {
        "MeanBackward1"
    } else {
        "MeanBackward0"
    };
    let n = rs.count() as f64;
    Ok(record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(rs.expand(&div_s(&g[0], n)?)?)])),
    ))
}

/// `x.nanmean(...)`: PyTorch's composite `nansum(x) / (~isnan(x)).sum()`, so the result's
/// node is a `DivBackward0` over `NansumBackward0`, as there. Without a graph the fused
/// one-pass kernel runs instead.
pub fn nanmean(x: &Var, dims: Option<&[i64]>, keepdim: bool, dtype: Option<DType>) -> Result<Var> {
    // (an input that requires grad is floating, so the fused op's dtype check passes)
    if !needs_grad(&[x]) || dtype.is_some_and(|d| !d.is_float()) {
        return Ok(plain(r::nanmean(&x.t, dims, keepdim, dtype)?));
    }
    let s = nansum(x, dims, keepdim, dtype)?;
    let kept = rawu(UnaryOp::LogicalNot, &is_nan(&x.t)?)?;
    let count = r::sum(&kept, dims, keepdim, None)?;
    ab::div(&s, &plain(count))
}

// ------------------------------------------------------------------ prod

/// `x.prod(dim, keepdim, dtype=)`. The gradient is `g * out / x` when `x` has no zeros,
/// else PyTorch's zero-safe product of the elements before and after each position.
pub fn prod(x: &Var, dim: Option<i64>, keepdim: bool, dtype: Option<DType>) -> Result<Var> {
    let out = r::prod(&x.t, dim, keepdim, dtype)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let name = if dim.is_some() {
        "ProdBackward1"
    } else {
        "ProdBackward0"
    };
    let d = dim.map(|d| normalize_dim(d, x.t.ndim())).transpose()?;
    Ok(record_from_in_out(name, x, out, move |g, x, out| {
        prod_backward(g, x, out, d, keepdim).map(Some)
    }))
}

fn prod_backward(g: &Var, x: &Var, out: &Var, dim: Option<usize>, keepdim: bool) -> Result<Var> {
    if x.t.ndim() == 0 {
        return Ok(g.clone());
    }
    // prod(dtype=) computes in the result's dtype; so does its gradient
    let x = &unary::to_dtype(x, g.t.dtype())?;
    let zeros_in = count_true(&eq_zero(&x.t)?)?;
    let Some(d) = dim else {
        if zeros_in == 0 {
            return ab::mul(g, &ab::div(out, x)?);
        }
        if zeros_in > 1 && !is_grad_enabled() {
            // every partial product contains a zero
            return zeros(x.t.shape(), g.t.dtype());
        }
        let shape: Vec<i64> = x.t.shape().iter().map(|&s| s as i64).collect();
        let flat = views::reshape(x, &[-1])?;
        return views::reshape(&prod_safe_zeros(g, &flat, 0)?, &shape);
    };
    let rs = Restore::one_dim(&x.t, d, keepdim)?;
    let (g, out) = (rs.unsqueeze(g)?, rs.unsqueeze(out)?);
    if zeros_in == 0 {
        return ab::mul(&g, &ab::div(&out, x)?);
    }
    prod_safe_zeros(&g, x, d)
}

/// Ones of `dtype` shaped like `x` with dim `d` of size 1 (the first entry of an
/// exclusive cumulative product along `d`).
fn ones_across(x: &Tensor, d: usize, dtype: DType) -> Result<Var> {
    let mut shape: Dims = x.shape().into();
    shape[d] = 1;
    Ok(plain(Tensor::full(
        "backward",
        &shape,
        Scalar::Int(1),
        dtype,
    )?))
}

/// `g * (exclusive cumprod from the front * exclusive cumprod from the back)` along `d`:
/// the product of all other elements, with no division.
fn prod_safe_zeros(g: &Var, x: &Var, d: usize) -> Result<Var> {
    let n = x.t.shape().get(d).copied().unwrap_or(1);
    if x.t.numel() == 0 {
        return views::expand(g, x.t.shape());
    }
    if n == 1 {
        return Ok(g.clone());
    }
    let ones = ones_across(&x.t, d, g.t.dtype())?;
    let (di, m) = (d as i64, n as i64 - 1);
    let front = join::cat(&[ones.clone(), views::narrow(x, di, 0, m)?], di)?;
    let front = cumsum(&front, di, None, true)?;
    let back = join::flip(&views::narrow(x, di, 1, m)?, &[di])?;
    let back = cumsum(&join::cat(&[ones, back], di)?, di, None, true)?;
    let back = join::flip(&back, &[di])?;
    ab::mul(g, &ab::mul(&front, &back)?)
}

// ------------------------------------------------------------------ max / min

/// `x.max(dim)` / `x.min(dim)`: (values, indices); the gradient goes to the index.
pub fn max_dim(x: &Var, dim: i64, keepdim: bool, max: bool) -> Result<(Var, Tensor)> {
    let (vals, idx) = r::max_dim(&x.t, dim, keepdim, max)?;
    if !vals.dtype().is_float() || !needs_grad(&[x]) {
        return Ok((plain(vals), idx));
    }
    let name = if max { "MaxBackward0" } else { "MinBackward0" };
    let d = normalize_dim(dim, x.t.ndim())?;
    let rs = Restore::one_dim(&x.t, d, keepdim)?;
    let si = Saved::output(&idx);
    let v = record(
        name,
        vals,
        &[x],
        true,
        Box::new(move |g, _| {
            let idx = rs.unsqueeze_t(&si.get(name)?.t)?;
            let z = zeros(&rs.shape, g[0].t.dtype())?;
            let gr = rs.unsqueeze(&g[0])?;
            Ok(vec![Some(index::scatter_add(&z, d as i64, &idx, &gr)?)])
        }),
    );
    Ok((v, idx))
}

/// `x.max()` / `x.min()`: ties (or, for a NaN result, the NaNs) share the gradient.
pub fn max_all(x: &Var, max: bool) -> Result<Var> {
    let out = r::max_all(&x.t, max)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let name = if max { "MaxBackward1" } else { "MinBackward1" };
    Ok(record_evenly_distributed(name, x, out))
}

/// Records `out`, a 0-d value picked from `x` (its max, min, median, ...), whose
/// gradient the elements equal to it share ([`evenly_distribute`]).
pub(crate) fn record_evenly_distributed(name: &'static str, x: &Var, out: Tensor) -> Var {
    let (sx, so) = (Saved::input(x), Saved::output(&out));
    record(
        name,
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let (x, out) = (sx.get(name)?, so.get(name)?);
            Ok(vec![Some(evenly_distribute(&g[0], &x.t, &out.t)?)])
        }),
    )
}

/// PyTorch's `evenly_distribute_backward`: the gradient of a 0-d result that equals
/// some elements of `x` (max(), min(), median()) is shared by those elements (by the
/// NaNs when the result is NaN).
pub(crate) fn evenly_distribute(g: &Var, x: &Tensor, out: &Tensor) -> Result<Var> {
    let mask = if out.item()?.to_f64().is_nan() {
        is_nan(x)?
    } else {
        cmp(BinaryOp::Eq, x, out)?
    };
    let m = mask.to_dtype(g.t.dtype())?;
    let count = r::sum(&m, None, false, None)?;
    ab::mul(&plain(m), &ab::div(g, &plain(count))?)
}

/// `x.amax(dims)` / `x.amin(dims)`: ties share the gradient evenly.
pub fn amax(x: &Var, dims: &[i64], keepdim: bool, max: bool) -> Result<Var> {
    let out = r::amax(&x.t, dims, keepdim, max)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let name = if max {
        "AmaxBackward0"
    } else {
        "AminBackward0"
    };
    let rs = Restore::new(&x.t, Some(dims), keepdim)?;
    let (sx, so) = (Saved::input(x), Saved::output(&out));
    Ok(record(
        name,
        out,
        &[x],
        true,
        Box::new(move |g, _| {
            let (x, out) = (sx.get(name)?, so.get(name)?);
            let mask = cmp(BinaryOp::Eq, &x.t, &rs.unsqueeze_t(&out.t)?)?;
            Ok(vec![Some(scale_by_count(
                &rs.unsqueeze(&g[0])?,
                &mask,
                &rs,
            )?)])
        }),
    ))
}

/// `x.aminmax(dim=, keepdim=)`: (min, max), each with the `amin`/`amax` gradient.
pub fn aminmax(x: &Var, dim: Option<i64>, keepdim: bool) -> Result<(Var, Var)> {
    let (lo, hi) = r::aminmax(&x.t, dim, keepdim)?;
    if !lo.dtype().is_float() || !needs_grad(&[x]) {
        return Ok((plain(lo), plain(hi)));
    }
    let name = "AminmaxBackward0";
    let dims: Vec<i64> = dim.into_iter().collect();
    let rs = Restore::new(&x.t, Some(&dims), keepdim)?;
    let (sx, slo, shi) = (Saved::input(x), Saved::output(&lo), Saved::output(&hi));
    let mut outs = record_multi(
        name,
        vec![lo, hi],
        &[x],
        true,
        Box::new(move |g, _| {
            let x = sx.get(name)?;
            let mut gx = None;
            for (gi, so) in g.iter().zip([&slo, &shi]) {
                if unused(gi)? {
                    continue;
                }
                let mask = cmp(BinaryOp::Eq, &x.t, &rs.unsqueeze_t(&so.get(name)?.t)?)?;
                gx = add_opt(gx, Some(scale_by_count(&rs.unsqueeze(gi)?, &mask, &rs)?))?;
            }
            Ok(vec![Some(match gx {
                Some(v) => v,
                None => zeros(&rs.shape, g[0].t.dtype())?,
            })])
        }),
    );
    let hi = outs.pop();
    let lo = outs.pop();
    match (lo, hi) {
        (Some(lo), Some(hi)) => Ok((lo, hi)),
        _ => Err(crate::error::Error::runtime(
            "aminmax",
            "internal: missing outputs",
        )),
    }
}

// ------------------------------------------------------------------ var / std

/// What `var_backward` needs besides the gradient and the input.
#[derive(Clone)]
struct Moments {
    rs: Restore,
    /// No dims given (or a 0-d input): PyTorch's whole-tensor formula.
    all: bool,
    dims: Option<Vec<i64>>,
    correction: f64,
}

impl Moments {
    fn new(x: &Tensor, dims: Option<&[i64]>, correction: f64, keepdim: bool) -> Result<Moments> {
        Ok(Moments {
            rs: Restore::new(x, dims, keepdim)?,
            all: dims.is_none() || x.ndim() == 0,
            dims: dims.map(|d| d.to_vec()),
            correction,
        })
    }

    /// `2 / (n - correction) * g * (x - mean(x))`.
    fn var_backward(&self, g: &Var, x: &Var) -> Result<Var> {
        if self.all {
            let dof = x.t.numel() as f64 - self.correction;
            if dof <= 0.0 {
                // 2/dof is infinite: inf * 0 = NaN where x equals the mean, inf elsewhere
                let m = r::mean(&x.t, None, false, None)?;
                let at_mean = cmp(BinaryOp::Eq, &x.t, &m)?;
                let f = Tensor::full(
                    "backward",
                    x.t.shape(),
                    Scalar::Float(f64::INFINITY),
                    g.t.dtype(),
                )?
                .masked_fill(&at_mean, Scalar::Float(f64::NAN))?;
                return ab::mul(g, &plain(f));
            }
            let centred = ab::sub(x, &mean(x, None, false, None)?)?;
            return ab::mul(&mul_s(g, 2.0 / dof)?, &centred);
        }
        let n = self.rs.count() as f64;
        let centred = ab::sub(x, &mean(x, self.dims.as_deref(), true, None)?)?;
        ab::mul(
            &mul_s(&self.rs.unsqueeze(g)?, 2.0 / (n - self.correction))?,
            &centred,
        )
    }

    /// The gradient of `std = sqrt(var)` turned into one of `var`: `g / (2 std)`, and 0
    /// where std is 0 (PyTorch's subgradient there).
    fn std_to_var(g: &Var, std: &Var) -> Result<Var> {
        let q = ab::div(g, &mul_s(std, 2.0)?)?;
        crate::autograd::pointwise::masked_zero(&q, &eq_zero(&std.t)?)
    }

    fn mean_backward(&self, g: &Var) -> Result<Var> {
        self.rs.expand(&div_s(g, self.rs.count() as f64)?)
    }
}

/// `x.var(dim, correction=, keepdim=)` (`std` with `sqrt`).
pub fn var(
    x: &Var,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    sqrt: bool,
) -> Result<Var> {
    let out = r::var(&x.t, dims, correction, keepdim, sqrt)?;
    if !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let name = if sqrt { "StdBackward0" } else { "VarBackward0" };
    let mo = Moments::new(&x.t, dims, correction, keepdim)?;
    let mut save = SaveForBackward::new(name);
    let sx = save.input(x);
    // only std's gradient reads the result (PyTorch's VarBackward0 saves no result)
    let so = sqrt.then(|| save.output(&out));
    Ok(save.record(
        out,
        &[x],
        Box::new(move |g, _| {
            let x = sx.get(name)?;
            let gv = match &so {
                Some(so) => Moments::std_to_var(&g[0], &so.get(name)?)?,
                None => g[0].clone(),
            };
            Ok(vec![Some(mo.var_backward(&gv, &x)?)])
        }),
    ))
}

/// `torch.var_mean` / `torch.std_mean`: both outputs are differentiable.
pub fn var_mean(
    x: &Var,
    dims: Option<&[i64]>,
    correction: f64,
    keepdim: bool,
    sqrt: bool,
) -> Result<(Var, Var)> {
    let (v, m) = r::var_mean(&x.t, dims, correction, keepdim, sqrt)?;
    if !needs_grad(&[x]) {
        return Ok((plain(v), plain(m)));
    }
    let name = if sqrt {
        "StdMeanBackward0"
    } else {
        "VarMeanBackward0"
    };
    let mo = Moments::new(&x.t, dims, correction, keepdim)?;
    let mut save = SaveForBackward::new(name);
    let sx = save.input(x);
    // only std's gradient reads the result (output 0)
    let so = sqrt.then(|| save.output(&v));
    let mut outs = save.record_multi(
        vec![v, m],
        &[x],
        Box::new(move |g, _| {
            let x = sx.get(name)?;
            let mut gx = None;
            if !unused(&g[0])? {
                let gv = match &so {
                    Some(so) => Moments::std_to_var(&g[0], &so.get(name)?)?,
                    None => g[0].clone(),
                };
                gx = Some(mo.var_backward(&gv, &x)?);
            }
            if !unused(&g[1])? {
                gx = add_opt(gx, Some(mo.mean_backward(&g[1])?))?;
            }
            Ok(vec![Some(match gx {
                Some(v) => v,
                None => zeros(x.t.shape(), g[0].t.dtype())?,
            })])
        }),
    );
    let m = outs.pop();
    let v = outs.pop();
    match (v, m) {
        (Some(v), Some(m)) => Ok((v, m)),
        _ => Err(crate::error::Error::runtime(
            "var_mean",
            "internal: missing outputs",
        )),
    }
}

// ------------------------------------------------------------------ logsumexp, norm

/// `x.logsumexp(dims, keepdim)`: the gradient is `g * exp(x - out)` (a softmax).
pub fn logsumexp(x: &Var, dims: &[i64], keepdim: bool) -> Result<Var> {
    let out = r::logsumexp(&x.t, dims, keepdim)?;
    if !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let name = "LogsumexpBackward0";
    let rs = Restore::new(&x.t, Some(dims), keepdim)?;
    Ok(record_from_in_out(name, x, out, move |g, x, out| {
        let e = u(UnaryOp::Exp, &ab::sub(x, &rs.unsqueeze(out)?)?)?;
        Ok(Some(ab::mul(&rs.unsqueeze(g)?, &e)?))
    }))
}

/// `x.norm(p, dim, keepdim, dtype)` (PyTorch's `linalg.vector_norm`).
pub fn norm(
    x: &Var,
    p: NormP,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Var> {
    let out = r::norm(&x.t, p, dims, keepdim, dtype)?;
    if !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let p = match p {
        NormP::Fro => 2.0,
        NormP::P(p) => p,
    };
    let name = "LinalgVectorNormBackward0";
    let rs = Restore::new(&x.t, dims, keepdim)?;
    Ok(record_from_in_out(name, x, out, move |g, x, out| {
        norm_backward(g, x, out, p, &rs)
    }))
}

/// Records `out`, a reduction or scan of `x` whose rule reads both `x` and `out` (saved,
/// the output bound to the node): `rule(g, x, out)` is x's gradient (`None`: none).
fn record_from_in_out(
    name: &'static str,
    x: &Var,
    out: Tensor,
    rule: impl Fn(&Var, &Var, &Var) -> Result<Option<Var>> + 'static,
) -> Var {
    let mut save = SaveForBackward::new(name);
    let (sx, so) = (save.input(x), save.output(&out));
    save.record(
        out,
        &[x],
        Box::new(move |g, _| {
            let (x, out) = (sx.get(name)?, so.get(name)?);
            Ok(vec![rule(&g[0], &x, &out)?])
        }),
    )
}

fn norm_backward(g: &Var, x: &Var, norm: &Var, p: f64, rs: &Restore) -> Result<Option<Var>> {
    if p == 0.0 {
        // piecewise constant: PyTorch returns no gradient at all (`.grad` stays None)
        return Ok(None);
    }
    let x = &unary::to_dtype(x, g.t.dtype())?;
    let (g, norm) = (&rs.unsqueeze(g)?, &rs.unsqueeze(norm)?);
    let sgn = || u(UnaryOp::Sign, x);
    let norm_zero = || eq_zero(&norm.t);
    let r = if p == 1.0 {
        ab::mul(&sgn()?, g)?
    } else if p == 2.0 {
        ab::mul(
            g,
            &crate::autograd::pointwise::masked_zero(&ab::div(x, norm)?, &norm_zero()?)?,
        )?
    } else if p.is_infinite() {
        // the gradient of amax(|x|), NaNs included, shared by ties
        let a = rawu(UnaryOp::Abs, &x.t)?;
        let hit = cmp(BinaryOp::Eq, &a, &norm.t)?;
        let mask = cmp(BinaryOp::LogicalOr, &hit, &is_nan(&a)?)?;
        ab::mul(&sgn()?, &scale_by_count(g, &mask, rs)?)?
    } else if p < 1.0 {
        let pw = pow_s(&u(UnaryOp::Abs, x)?, p - 1.0)?;
        let scaled = ab::mul(
            &sgn()?,
            &crate::autograd::pointwise::masked_zero(&pw, &eq_zero(&x.t)?)?,
        )?;
        ab::mul(&ab::mul(&scaled, g)?, &pow_s(norm, 1.0 - p)?)?
    } else {
        let scaled = if p < 2.0 {
            ab::mul(&sgn()?, &pow_s(&u(UnaryOp::Abs, x)?, p - 1.0)?)?
        } else {
            ab::mul(x, &pow_s(&u(UnaryOp::Abs, x)?, p - 2.0)?)?
        };
        let scale = crate::autograd::pointwise::masked_zero(
            &ab::div(g, &pow_s(norm, p - 1.0)?)?,
            &norm_zero()?,
        )?;
        ab::mul(&scaled, &scale)?
    };
    Ok(Some(r))
}
