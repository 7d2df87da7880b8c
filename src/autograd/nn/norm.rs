//! Differentiable layer norm and batch norm (`NativeLayerNormBackward0`,
//! `NativeBatchNormBackward0`): fused forward and backward kernels; under
//! `create_graph=True` the backward is the same formula in differentiable ops,
//! recomputed from the saved input so second derivatives flow through the statistics.

use super::super::pointwise as ab;
use super::super::pointwise::unary;
use super::super::reduce as ar;
use super::super::{is_grad_enabled, needs_grad, record, views, Saved, Var};
use super::absent;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::nn::norm::{
    batch_norm_backward, batch_norm_forward, check_channel_param, layer_norm_backward,
    layer_norm_forward, Nc,
};
use crate::ops::unary::UnaryOp;
use crate::tensor::Tensor;

/// PyTorch's `_check_layer_norm_inputs` messages, in its order.
fn check_layer_norm(x: &Tensor, ns: &[i64], w: Option<&Var>, b: Option<&Var>) -> Result<()> {
    let ns_str = format!(
        "[{}]",
        ns.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if ns.is_empty() {
        return Err(Error::runtime(
            "",
            format!(
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at \
                 least one element, but got normalized_shape = {ns_str}"
            ),
        ));
    }
    let same =
        |t: &Tensor| t.ndim() == ns.len() && t.shape().iter().zip(ns).all(|(&a, &b)| a as i64 == b);
    for (name, p) in [("weight", w), ("bias", b)] {
        if let Some(p) = p {
            if !same(&p.t) {
                return Err(Error::runtime(
                    "",
                    format!(
                        "Expected {name} to be of same shape as normalized_shape, but got {name} \
                         of shape {} and normalized_shape = {ns_str}",
                        fmt_shape(p.t.shape())
                    ),
                ));
            }
        }
    }
    let nd = x.ndim();
    let tail_ok = nd >= ns.len()
        && x.shape()[nd - ns.len()..]
            .iter()
            .zip(ns)
            .all(|(&a, &b)| a as i64 == b);
    if !tail_ok {
        let sizes: String = ns.iter().map(|d| format!(", {d}")).collect();
        return Err(Error::runtime(
            "",
            format!(
                "Given normalized_shape={ns_str}, expected input with shape [*{sizes}], but got \
                 input of size{}",
                fmt_shape(x.shape())
            ),
        ));
    }
    if !x.dtype().is_float() {
        return Err(Error::dtype_not_implemented(
            "LayerNormKernelImpl",
            x.dtype(),
        ));
    }
    for p in [w, b].into_iter().flatten() {
        if p.t.dtype() != x.dtype() {
            return Err(Error::runtime(
                "",
                format!(
                    "mixed dtype (CPU): expect parameter to have scalar type of {}",
                    x.dtype().torch_name()
                ),
            ));
        }
    }
    Ok(())
}

fn dims_i64(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&d| d as i64).collect()
}

/// `F.layer_norm(x, normalized_shape, weight, bias, eps)`.
pub fn layer_norm(
    x: &Var,
    normalized_shape: &[i64],
    w: Option<&Var>,
    b: Option<&Var>,
    eps: f64,
) -> Result<Var> {
    check_layer_norm(&x.t, normalized_shape, w, b)?;
    let nd = x.t.ndim();
    let axis = nd - normalized_shape.len();
    let m: usize = x.t.shape()[..axis].iter().product();
    let k: usize = x.t.shape()[axis..].iter().product();
    let (y, mean, rstd) = layer_norm_forward(&x.t, m, k, w.map(|v| &v.t), b.map(|v| &v.t), eps)?;
    let (wv, bv) = (
        w.cloned().unwrap_or_else(absent),
        b.cloned().unwrap_or_else(absent),
    );
    if !needs_grad(&[x, &wv, &bv]) {
        return Ok(Var::plain(y));
    }
    let name = "NativeLayerNormBackward0";
    let sx = Saved::input(x);
    let sw = w.map(Saved::input);
    Ok(record(
        name,
        y,
        &[x, &wv, &bv],
        true,
        Box::new(move |g, needs| {
            let g = &g[0];
            let x = sx.get(name)?;
            let w = sw.as_ref().map(|s| s.get(name)).transpose()?;
            let need = [needs[0], needs[1], needs[2]];
            if !is_grad_enabled() {
                let w_t = w.as_ref().map(|v| &v.t);
                let r = layer_norm_backward(&g.t, &x.t, &mean, &rstd, w_t, k, need)?;
                // the kernel's parameter gradients are flat: give them the weight's shape
                let pshape = &x.t.shape()[axis..];
                return r
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| match t {
                        Some(t) if i > 0 => Ok(Some(Var::plain(t.reshape(&dims_i64(pshape))?))),
                        t => Ok(t.map(Var::plain)),
                    })
                    .collect();
            }
            let dims: Vec<i64> = (axis as i64..nd as i64).collect();
            let outer: Vec<i64> = (0..axis as i64).collect();
            let r = norm_backward_graph(g, &x, w.as_ref(), &dims, &outer, eps, None)?;
            Ok(r.into_iter()
                .zip(need)
                .map(|(v, n)| v.filter(|_| n))
                .collect())
        }),
    ))
}

/// The normalisation backward in differentiable ops. Statistics are over `dims`
/// (kept), parameter gradients are summed over `outer`; `w` must broadcast against `x`
/// (batch norm passes it viewed onto the channel dim). With `fixed` = (mean, invstd,
/// view) constants (batch norm in evaluation) the input gradient is `g w invstd`.
fn norm_backward_graph(
    g: &Var,
    x: &Var,
    w: Option<&Var>,
    dims: &[i64],
    outer: &[i64],
    eps: f64,
    fixed: Option<(&Tensor, &Tensor, &[i64])>,
) -> Result<[Option<Var>; 3]> {
    let mean_k = |v: &Var| ar::mean(v, Some(dims), true, None);
    let (xc, invstd) = match fixed {
        Some((m, s, view)) => {
            let m = Var::plain(m.reshape(view)?.to_dtype(x.t.dtype())?);
            let s = Var::plain(s.reshape(view)?.to_dtype(x.t.dtype())?);
            (ab::sub(x, &m)?, s)
        }
        None => {
            let xc = ab::sub(x, &mean_k(x)?)?;
            let var = mean_k(&ab::mul(&xc, &xc)?)?;
            let eps = ab::Arg::S(crate::dtype::Scalar::Float(eps));
            let ve = ab::binary(crate::ops::binary::BinaryOp::Add, ab::Arg::V(&var), eps)?;
            (xc, unary(UnaryOp::Rsqrt, &ve)?)
        }
    };
    let xhat = ab::mul(&xc, &invstd)?;
    let gw = match w {
        Some(w) => ab::mul(g, w)?,
        None => g.clone(),
    };
    let dx = if fixed.is_some() {
        ab::mul(&gw, &invstd)?
    } else {
        let a = mean_k(&gw)?;
        let bm = mean_k(&ab::mul(&gw, &xhat)?)?;
        let inner = ab::sub(&ab::sub(&gw, &a)?, &ab::mul(&xhat, &bm)?)?;
        ab::mul(&invstd, &inner)?
    };
    let psum = |v: &Var| -> Result<Var> {
        if outer.is_empty() {
            Ok(v.clone())
        } else {
            ar::sum(v, Some(outer), false, None)
        }
    };
    let dw = psum(&ab::mul(g, &xhat)?)?;
    let db = psum(g)?;
    Ok([Some(dx), w.map(|_| dw), Some(db)])
}

/// `F.batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps)`;
/// `x` has at least 2 dims (the caller checks). In training the running statistics
/// are updated in place (unbiased variance), as PyTorch does.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    x: &Var,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    w: Option<&Var>,
    b: Option<&Var>,
    training: bool,
    momentum: f64,
    eps: f64,
) -> Result<Var> {
    let nc = Nc::of(x.t.shape());
    let dt = x.t.dtype();
    if !dt.is_float() {
        return Err(Error::dtype_not_implemented("batch_norm", dt));
    }
    let (wv, bv) = (
        w.cloned().unwrap_or_else(absent),
        b.cloned().unwrap_or_else(absent),
    );
    if x.t.numel() > 0 {
        match running_mean {
            Some(t) => check_channel_param("running_mean", t, nc.c, dt)?,
            None if !training => {
                return Err(Error::runtime(
                    "",
                    "running_mean must be defined in evaluation mode",
                ))
            }
            None => {}
        }
        match running_var {
            Some(t) => check_channel_param("running_var", t, nc.c, dt)?,
            None if !training => {
                return Err(Error::runtime(
                    "",
                    "running_var must be defined in evaluation mode",
                ))
            }
            None => {}
        }
        for (name, p) in [("weight", w), ("bias", b)] {
            if let Some(p) = p {
                check_channel_param(name, &p.t, nc.c, dt)?;
            }
        }
    }
    let running = running_mean.zip(running_var);
    let (y, saved) = if x.t.numel() == 0 {
        let empty = crate::ops::nn::norm::BnSaved {
            mean: Vec::new(),
            invstd: Vec::new(),
        };
        (Tensor::zeros("batch_norm", x.t.shape(), dt)?, empty)
    } else {
        batch_norm_forward(
            &x.t,
            w.map(|v| &v.t),
            b.map(|v| &v.t),
            running,
            training,
            momentum,
            eps,
        )?
    };
    if !needs_grad(&[x, &wv, &bv]) {
        return Ok(Var::plain(y));
    }
    let name = "NativeBatchNormBackward0";
    let sx = Saved::input(x);
    let sw = w.map(Saved::input);
    let nd = x.t.ndim();
    let mut view = vec![1i64; nd];
    view[1] = nc.c as i64;
    Ok(record(
        name,
        y,
        &[x, &wv, &bv],
        true,
        Box::new(move |g, needs| {
            let g = &g[0];
            let x = sx.get(name)?;
            let w = sw.as_ref().map(|s| s.get(name)).transpose()?;
            let need = [needs[0], needs[1], needs[2]];
            if x.t.numel() == 0 {
                let z = |s: &[usize]| Tensor::zeros("batch_norm_backward", s, x.t.dtype());
                return Ok(vec![
                    Some(Var::plain(z(x.t.shape())?)),
                    need[1].then(|| z(&[nc.c])).transpose()?.map(Var::plain),
                    need[2].then(|| z(&[nc.c])).transpose()?.map(Var::plain),
                ]);
            }
            if !is_grad_enabled() {
                let w_t = w.as_ref().map(|v| &v.t);
                let r = batch_norm_backward(&g.t, &x.t, w_t, &saved, training, need)?;
                return Ok(r.into_iter().map(|t| t.map(Var::plain)).collect());
            }
            let dims: Vec<i64> = std::iter::once(0).chain(2..nd as i64).collect();
            let consts;
            let fixed = if training {
                None
            } else {
                let m = Tensor::from_vec(saved.mean.clone(), &[nc.c])?;
                let s = Tensor::from_vec(saved.invstd.clone(), &[nc.c])?;
                consts = (m, s);
                Some((&consts.0, &consts.1, view.as_slice()))
            };
            let w_b = w.as_ref().map(|w| views::reshape(w, &view)).transpose()?;
            let r = norm_backward_graph(g, &x, w_b.as_ref(), &dims, &dims, eps, fixed)?;
            Ok(r.into_iter()
                .zip(need)
                .map(|(v, n)| v.filter(|_| n))
                .collect())
        }),
    ))
}
