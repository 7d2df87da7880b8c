//! Differentiable scans (cumsum, cumprod, cummax/cummin) and softmax / log_softmax.

use super::{count_true, eq_zero, ones_across, plain, record_from_in_out, zeros};
use crate::autograd::pointwise as ab;
use crate::autograd::{
    index, is_grad_enabled, join, needs_grad, record, unary, views, SaveForBackward, Saved, Var,
};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::reduce as r;
use crate::ops::unary::UnaryOp;
use crate::shape::{normalize_dim, Dims};
use crate::tensor::Tensor;

/// `x.cumsum(dim, dtype=)` (`prod` for cumprod).
pub fn cumsum(x: &Var, dim: i64, dtype: Option<DType>, prod: bool) -> Result<Var> {
    let out = r::cumsum(&x.t, dim, dtype, prod)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let d = normalize_dim(dim, x.t.ndim())?;
    if !prod {
        return Ok(record(
            "CumsumBackward0",
            out,
            &[x],
            false,
            Box::new(move |g, _| Ok(vec![Some(reversed_cumsum(&g[0], d)?)])),
        ));
    }
    let name = "CumprodBackward0";
    Ok(record_from_in_out(name, x, out, move |g, x, out| {
        cumprod_backward(g, x, out, d).map(Some)
    }))
}

fn len_along(t: &Tensor, d: usize) -> usize {
    t.shape().get(d).copied().unwrap_or(1)
}

/// `flip(cumsum(flip(g)))`: each position gets the sum of the gradient from there on.
fn reversed_cumsum(g: &Var, d: usize) -> Result<Var> {
    if g.t.numel() <= 1 || len_along(&g.t, d) == 1 {
        return Ok(g.clone());
    }
    let di = d as i64;
    let rev = cumsum(&join::flip(g, &[di])?, di, None, false)?;
    join::flip(&rev, &[di])
}

/// PyTorch's `cumprod_backward`: `reversed_cumsum(out * g) / x` without zeros; with
/// zeros, an exact O(n) kernel for first derivatives, or (when a graph is being built)
/// the O(n^2) sum of omitted-element products, which is differentiable.
fn cumprod_backward(g: &Var, x: &Var, out: &Var, d: usize) -> Result<Var> {
    let n = len_along(&x.t, d);
    if x.t.numel() <= 1 || n == 1 {
        return Ok(g.clone());
    }
    let x = &unary::to_dtype(x, g.t.dtype())?;
    if count_true(&eq_zero(&x.t)?)? == 0 {
        return ab::div(&reversed_cumsum(&ab::mul(out, g)?, d)?, x);
    }
    if !is_grad_enabled() {
        return Ok(plain(r::cumprod_backward(&x.t, &g.t, d)?));
    }
    let di = d as i64;
    let ones = ones_across(&x.t, d, g.t.dtype())?;
    let mut parts = Vec::with_capacity(n);
    for k in 0..n as i64 {
        let last = n as i64 - 1;
        // the products of x[..=j] without x[k], for j >= k
        let omitted = if k == 0 {
            let after = cumsum(&views::narrow(x, di, 1, last)?, di, None, true)?;
            join::cat(&[ones.clone(), after], di)?
        } else {
            let before = super::prod(&views::narrow(x, di, 0, k)?, Some(di), true, None)?;
            if k == last {
                before
            } else {
                let after = cumsum(&views::narrow(x, di, k + 1, last - k)?, di, None, true)?;
                join::cat(&[before.clone(), ab::mul(&before, &after)?], di)?
            }
        };
        let tail = views::narrow(g, di, k, n as i64 - k)?;
        parts.push(super::sum(
            &ab::mul(&omitted, &tail)?,
            Some(&[di]),
            true,
            None,
        )?);
    }
    join::cat(&parts, di)
}

/// `x.cummax(dim)` / `x.cummin(dim)`: (values, indices); each position's gradient goes
/// to the index its running extreme came from.
pub fn cummax(x: &Var, dim: i64, max: bool) -> Result<(Var, Tensor)> {
    let (vals, idx) = r::cummax(&x.t, dim, max)?;
    if !vals.dtype().is_float() || !needs_grad(&[x]) {
        return Ok((plain(vals), idx));
    }
    let name = if max {
        "CummaxBackward0"
    } else {
        "CumminBackward0"
    };
    let d = normalize_dim(dim, x.t.ndim())? as i64;
    let shape: Dims = x.t.shape().into();
    let si = Saved::output(&idx);
    let v = record(
        name,
        vals,
        &[x],
        true,
        Box::new(move |g, _| {
            let z = zeros(&shape, g[0].t.dtype())?;
            if z.t.numel() == 0 {
                return Ok(vec![Some(z)]);
            }
            let idx = si.get(name)?.t;
            Ok(vec![Some(index::scatter_add(&z, d, &idx, &g[0])?)])
        }),
    );
    Ok((v, idx))
}

/// `x.softmax(dim, dtype=)` (`log` for log_softmax), with the fused forward kernel.
/// Backward: `out * (g - sum(g * out))`, resp. `g - exp(out) * sum(g)`: a fused kernel,
/// or Var-level ops when a graph is being built (`create_graph=True`), so double
/// backward differentiates the rule.
pub fn softmax(x: &Var, dim: i64, dtype: Option<DType>, log: bool) -> Result<Var> {
    // like PyTorch, dtype= converts the input first (a ToCopyBackward0 under the node)
    let x = &match dtype {
        Some(dt) => unary::to_dtype(x, dt)?,
        None => x.clone(),
    };
    let out = r::softmax(&x.t, dim, dtype, log)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(plain(out));
    }
    let d = [normalize_dim(dim, x.t.ndim())? as i64];
    let name = if log {
        "LogSoftmaxBackward0"
    } else {
        "SoftmaxBackward0"
    };
    let mut save = SaveForBackward::new(name);
    let so = save.output(&out);
    Ok(save.record(
        out,
        &[x],
        Box::new(move |g, _| {
            let (g, out) = (&g[0], &so.get(name)?);
            if !is_grad_enabled() || !(g.requires_grad() || out.requires_grad()) {
                // no graph to build: one fused pass per line
                let gi = r::softmax_backward(&g.t, &out.t, d[0] as usize, log)?;
                return Ok(vec![Some(plain(gi))]);
            }
            let r = if log {
                let s = super::sum(g, Some(&d), true, None)?;
                ab::sub(
                    g,
                    &ab::mul(&crate::autograd::pointwise::unary(UnaryOp::Exp, out)?, &s)?,
                )?
            } else {
                let s = super::sum(&ab::mul(g, out)?, Some(&d), true, None)?;
                ab::mul(out, &ab::sub(g, &s)?)?
            };
            Ok(vec![Some(r)])
        }),
    ))
}
