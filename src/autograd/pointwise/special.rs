//! The differentiable special functions with a parameter: `polygamma(n, x)`,
//! `mvlgamma(x, p)` and `logit(x, eps)` (forward in `ops::special`). Their rules are
//! PyTorch's, written with differentiable ops so higher derivatives work.

use super::expr::{un, E};
use super::{needs_grad, SaveForBackward, Var};
use crate::error::Result;
use crate::ops::special as ops;
use crate::ops::unary::UnaryOp;

/// `polygamma(n, x)`; its gradient is `polygamma(n + 1, x)`.
pub fn polygamma(n: i64, x: &Var) -> Result<Var> {
    let out = ops::polygamma(n, &x.t)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let mut save = SaveForBackward::new("PolygammaBackward0");
    let sx = save.input(x);
    Ok(save.record(
        out,
        &[x],
        Box::new(move |g, _| {
            let x = sx.get("PolygammaBackward0")?;
            Ok(vec![Some((&g[0] * &polygamma(n + 1, &x)?).var()?)])
        }),
    ))
}

/// `mvlgamma(x, p)`; its gradient is `sum_{i<p} digamma(x - i/2)`.
pub fn mvlgamma(x: &Var, p: i64) -> Result<Var> {
    let out = ops::mvlgamma(&x.t, p)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let mut save = SaveForBackward::new("MvlgammaBackward0");
    let sx = save.input(x);
    Ok(save.record(
        out,
        &[x],
        Box::new(move |g, _| {
            let x = sx.get("MvlgammaBackward0")?;
            // PyTorch's order: the arguments x - (p-1)/2, ..., x - 1/2, x
            let mut acc: Option<Var> = None;
            for i in (0..p).rev() {
                let d = un(UnaryOp::Digamma, &x - i as f64 / 2.0).var()?;
                acc = Some(match acc {
                    None => d,
                    Some(a) => (&a + &d).var()?,
                });
            }
            let s = acc.ok_or_else(|| {
                crate::error::Error::runtime("mvlgamma", "p has to be greater than or equal to 1")
            })?;
            Ok(vec![Some((&g[0] * &s).var()?)])
        }),
    ))
}

/// `logit(x, eps)`; its gradient is `1 / (x (1 - x))` inside the domain, 0 outside
/// `[eps, 1 - eps]` (eps given) or NaN outside `[0, 1]` (not given).
pub fn logit(x: &Var, eps: Option<f64>) -> Result<Var> {
    let out = ops::logit(&x.t, eps)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let mut save = SaveForBackward::new("LogitBackward0");
    let sx = save.input(x);
    Ok(save.record(
        out,
        &[x],
        Box::new(move |g, _| {
            let x = sx.get("LogitBackward0")?;
            let scale = Var::plain(ops::logit_grad_scale(&x.t, eps)?);
            let d = E::from(&g[0]) / (&x * (1.0 - &x));
            Ok(vec![Some((d * &scale).var()?)])
        }),
    ))
}
