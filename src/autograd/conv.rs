//! Differentiable convolutions, pooling and fold/unfold.
//!
//! Convolution is bilinear, and its three products (forward `A`, transposed `B`, weight
//! gradient `C`, see `ops::conv`) are adjoints of each other:
//! `<A(x, w), y> = <x, B(y, w)> = <w, C(x, y)>`. Each is recorded as a node whose
//! backward rule uses the other two, so gradients of any order come out of the same three
//! kernels (`gradgradcheck` holds). Pooling ops and fold/unfold are linear in the
//! gradient, so each backward op is recorded with the forward op as *its* backward.

use super::{index, needs_grad, record, views, Saved, Var};
use crate::error::Result;
use crate::memory_order::{suggests_channels_last, Order};
use crate::ops::conv::fold::{self as fops, FoldGeom};
use crate::ops::conv::pool::{self as pops, AvgRule, PoolGeom};
use crate::ops::conv::{is_unbatched, plan, ConvArgs, ConvGeom};
use crate::tensor::Tensor;

const CONV: &str = "ConvolutionBackward0";
const CONV2: &str = "ConvolutionBackwardBackward0";

/// A missing bias: a plain tensor whose gradient slot stays empty (PyTorch's
/// ConvolutionBackward0 also has three next functions with `None` for no bias).
fn no_bias() -> Var {
    Var::plain(Tensor::from_vec::<f32>(Vec::new(), &[0]).unwrap_or_else(|_| unreachable!()))
}

/// PyTorch's memory format for a 2-d convolution or pool: the (row-major) result is
/// relaid as channels-last when one of the `operands` suggests that format
/// ([`suggests_channels_last`]); one copy, on that path only.
fn in_suggested_format(out: Tensor, operands: &[&Tensor]) -> Result<Tensor> {
    if out.ndim() == 4 && operands.iter().any(|t| suggests_channels_last(&t.layout)) {
        out.copy_in(&Order::channels_last(out.shape()), out.dtype())
    } else {
        Ok(out)
    }
}

fn differentiable(out: &Tensor, inputs: &[&Var]) -> bool {
    out.dtype().is_float() && needs_grad(inputs)
}

/// The bias gradient: `gy` summed over every dim but the channels (dim 1). Its backward
/// broadcasts the incoming gradient back over those dims.
fn bias_grad(gy: &Var) -> Result<Var> {
    let out = crate::ops::conv::channel_sum(&gy.t)?;
    if !differentiable(&out, &[gy]) {
        return Ok(Var::plain(out));
    }
    let shape = gy.t.shape().to_vec();
    Ok(record(
        "SumBackward1",
        out,
        &[gy],
        false,
        Box::new(move |g, _| {
            let mut sizes = vec![1i64; shape.len() - 1];
            sizes[0] = shape[1] as i64;
            let col = views::reshape(&g[0], &sizes)?;
            Ok(vec![Some(views::expand(&col, &shape)?)])
        }),
    ))
}

/// `A`: the forward convolution of batched `x` (N, C, in...) with `w`.
pub fn conv_a(x: &Var, w: &Var, b: Option<&Var>, g: ConvGeom, name: &str) -> Result<Var> {
    conv_ab(false, x, w, b, g, name)
}

/// `B`: the transposed convolution of batched `y` (N, OC, out...) with `w`.
pub fn conv_b(y: &Var, w: &Var, b: Option<&Var>, g: ConvGeom, name: &str) -> Result<Var> {
    conv_ab(true, y, w, b, g, name)
}

/// `A` (`transposed` false) or `B` (true) of `v` with `w`, recorded. Each is the other's
/// input gradient; the weight gradient is `C(x, y)` with `x` the input of `A` and `y` the
/// input of `B`, so the two operands swap places between them.
fn conv_ab(
    transposed: bool,
    v: &Var,
    w: &Var,
    b: Option<&Var>,
    g: ConvGeom,
    name: &str,
) -> Result<Var> {
    let bt = b.map(|b| &b.t);
    let out = if transposed {
        g.conv_transpose(&v.t, &w.t, bt)?
    } else {
        g.conv(&v.t, &w.t, bt)?
    };
    let out = in_suggested_format(out, &[&v.t, &w.t])?;
    let b = b.cloned().unwrap_or_else(no_bias);
    if !differentiable(&out, &[v, w, &b]) {
        return Ok(Var::plain(out));
    }
    let (sv, sw) = (Saved::input(v), Saved::input(w));
    Ok(record(
        name,
        out,
        &[v, w, &b],
        true,
        Box::new(move |gr, needs| {
            let go = &gr[0];
            let gv = if needs[0] {
                Some(conv_ab(!transposed, go, &sw.get(CONV)?, None, g, CONV2)?)
            } else {
                None
            };
            let gw = if needs[1] {
                let v = sv.get(CONV)?;
                Some(if transposed {
                    conv_c(go, &v, g)?
                } else {
                    conv_c(&v, go, g)?
                })
            } else {
                None
            };
            let gb = if needs[2] { Some(bias_grad(go)?) } else { None };
            Ok(vec![gv, gw, gb])
        }),
    ))
}

/// `C`: the weight gradient from `x` (N, C, in...) and `y` (N, OC, out...).
pub fn conv_c(x: &Var, y: &Var, g: ConvGeom) -> Result<Var> {
    let out = g.weight_grad(&x.t, &y.t)?;
    if !differentiable(&out, &[x, y]) {
        return Ok(Var::plain(out));
    }
    let (sx, sy) = (Saved::input(x), Saved::input(y));
    Ok(record(
        CONV2,
        out,
        &[x, y],
        true,
        Box::new(move |gr, needs| {
            let gw = &gr[0];
            let gx = if needs[0] {
                Some(conv_b(&sy.get(CONV2)?, gw, None, g, CONV2)?)
            } else {
                None
            };
            let gy = if needs[1] {
                Some(conv_a(&sx.get(CONV2)?, gw, None, g, CONV2)?)
            } else {
                None
            };
            Ok(vec![gx, gy])
        }),
    ))
}

/// `unsqueeze(dim)` recorded like PyTorch's (UnsqueezeBackward0).
fn unsqueeze(x: &Var, dim: i64) -> Result<Var> {
    views::reshape_like("UnsqueezeBackward0", x, x.t.unsqueeze(dim)?)
}

/// `squeeze(dim)` recorded like PyTorch's (SqueezeBackward1).
fn squeeze(x: &Var, dim: i64) -> Result<Var> {
    views::reshape_like("SqueezeBackward1", x, x.t.squeeze(Some(&[dim]))?)
}

/// `conv1d` / `conv2d` / `conv_transpose1d` / `conv_transpose2d` (`sd` spatial dims).
/// Unbatched inputs are unsqueezed and the result squeezed, as in PyTorch.
pub fn convolution(
    op: &str,
    sd: usize,
    transposed: bool,
    x: &Var,
    w: &Var,
    b: Option<&Var>,
    args: &ConvArgs,
) -> Result<Var> {
    let unbatched = is_unbatched(op, sd, &x.t)?;
    let xb = if unbatched {
        unsqueeze(x, 0)?
    } else {
        x.clone()
    };
    let g = plan(op, sd, transposed, &xb.t, &w.t, b.map(|b| &b.t), args)?;
    let y = if transposed {
        conv_b(&xb, w, b, g, CONV)?
    } else {
        conv_a(&xb, w, b, g, CONV)?
    };
    if unbatched {
        squeeze(&y, 0)
    } else {
        Ok(y)
    }
}

/// Gathers `g` (..., H, W) at the per-plane flattened positions `idx` (..., oh, ow):
/// the adjoint of the max-pool scatter, differentiable (its own adjoint is the scatter).
fn gather_planes(g: &Var, idx: &Tensor) -> Result<Var> {
    let (gs, is) = (g.t.shape().to_vec(), idx.shape().to_vec());
    let lead = |s: &[usize], last: usize| -> Vec<i64> {
        let mut v: Vec<i64> = s[..s.len() - 2].iter().map(|&d| d as i64).collect();
        v.push(last as i64);
        v
    };
    let (n, m) = (gs.len(), is.len());
    let gf = views::reshape(g, &lead(&gs, gs[n - 2] * gs[n - 1]))?;
    let idf = idx.reshape(&lead(&is, is[m - 2] * is[m - 1]))?;
    let r = index::gather(&gf, -1, &idf)?;
    let shape: Vec<i64> = is.iter().map(|&d| d as i64).collect();
    views::reshape(&r, &shape)
}

/// Scatters `gy` into zeros of `in_shape` at the argmax positions `idx` (max pooling's
/// backward); its backward is [`gather_planes`]. Like PyTorch's backward ops, the node
/// also lists the pool's input `x` (whose gradient through it is zero), so the result of
/// a `create_graph` backward is part of the graph whenever `x` is.
fn max_scatter(gy: &Var, x: &Var, idx: &Tensor, name: &str) -> Result<Var> {
    let out = pops::max_pool_backward(&gy.t, idx, x.t.shape())?;
    if !differentiable(&out, &[gy, x]) {
        return Ok(Var::plain(out));
    }
    let kept = Saved::output(idx);
    Ok(record(
        name,
        out,
        &[gy, x],
        true,
        Box::new(move |gr, needs| {
            let g = if needs[0] {
                let idx = kept.get("MaxPoolBackward")?.t;
                Some(gather_planes(&gr[0], &idx)?)
            } else {
                None
            };
            Ok(vec![g, None])
        }),
    ))
}

/// Records a max pool's values (the indices stay a plain tensor).
fn max_values(x: &Var, out: Tensor, idx: &Tensor, name: &'static str, name2: &'static str) -> Var {
    if !differentiable(&out, &[x]) {
        return Var::plain(out);
    }
    let kept = Saved::output(idx);
    let sx = Saved::input(x);
    record(
        name,
        out,
        &[x],
        true,
        Box::new(move |gr, _| {
            let idx = kept.get(name)?.t;
            Ok(vec![Some(max_scatter(
                &gr[0],
                &sx.get(name)?,
                &idx,
                name2,
            )?)])
        }),
    )
}

/// `max_pool2d_with_indices`: (values, indices).
pub fn max_pool2d(x: &Var, g: &PoolGeom) -> Result<(Var, Tensor)> {
    let (out, idx) = pops::max_pool2d(&x.t, g)?;
    let (out, idx) = (
        in_suggested_format(out, &[&x.t])?,
        in_suggested_format(idx, &[&x.t])?,
    );
    let v = max_values(
        x,
        out,
        &idx,
        "MaxPool2DWithIndicesBackward0",
        "MaxPool2DWithIndicesBackwardBackward0",
    );
    Ok((v, idx))
}

/// `adaptive_max_pool2d`: (values, indices).
pub fn adaptive_max_pool2d(x: &Var, g: &PoolGeom) -> Result<(Var, Tensor)> {
    let (out, idx) = pops::adaptive_pool2d(&x.t, g, true)?;
    let idx = idx.unwrap_or_else(|| unreachable!());
    let (out, idx) = (
        in_suggested_format(out, &[&x.t])?,
        in_suggested_format(idx, &[&x.t])?,
    );
    let v = max_values(
        x,
        out,
        &idx,
        "AdaptiveMaxPool2DBackward0",
        "AdaptiveMaxPool2DBackwardBackward0",
    );
    Ok((v, idx))
}

/// `avg_pool2d`.
pub fn avg_pool2d(x: &Var, g: &PoolGeom, rule: AvgRule) -> Result<Var> {
    let out = in_suggested_format(pops::avg_pool2d(&x.t, g, rule)?, &[&x.t])?;
    if !differentiable(&out, &[x]) {
        return Ok(Var::plain(out));
    }
    let (g, sx) = (*g, Saved::input(x));
    Ok(record(
        "AvgPool2DBackward0",
        out,
        &[x],
        true,
        Box::new(move |gr, _| {
            let x = sx.get("AvgPool2DBackward0")?;
            Ok(vec![Some(avg_pool2d_backward(&gr[0], &x, &g, rule)?)])
        }),
    ))
}

/// The adjoint of `avg_pool2d` (`x`, the pool's input, is listed like in
/// [`max_scatter`]).
fn avg_pool2d_backward(gy: &Var, x: &Var, g: &PoolGeom, rule: AvgRule) -> Result<Var> {
    let out = pops::avg_pool2d_backward(&gy.t, g, rule)?;
    if !differentiable(&out, &[gy, x]) {
        return Ok(Var::plain(out));
    }
    let g = *g;
    Ok(record(
        "AvgPool2DBackwardBackward0",
        out,
        &[gy, x],
        false,
        Box::new(move |gr, needs| {
            let gy = if needs[0] {
                Some(avg_pool2d(&gr[0], &g, rule)?)
            } else {
                None
            };
            Ok(vec![gy, None])
        }),
    ))
}

/// `adaptive_avg_pool2d`.
pub fn adaptive_avg_pool2d(x: &Var, g: &PoolGeom) -> Result<Var> {
    let (out, _) = pops::adaptive_pool2d(&x.t, g, false)?;
    let out = in_suggested_format(out, &[&x.t])?;
    if !differentiable(&out, &[x]) {
        return Ok(Var::plain(out));
    }
    let (g, sx) = (*g, Saved::input(x));
    Ok(record(
        "AdaptiveAvgPool2DBackward0",
        out,
        &[x],
        true,
        Box::new(move |gr, _| {
            let x = sx.get("AdaptiveAvgPool2DBackward0")?;
            Ok(vec![Some(adaptive_avg_backward(&gr[0], &x, &g)?)])
        }),
    ))
}

fn adaptive_avg_backward(gy: &Var, x: &Var, g: &PoolGeom) -> Result<Var> {
    let out = pops::adaptive_avg_backward(&gy.t, g)?;
    if !differentiable(&out, &[gy, x]) {
        return Ok(Var::plain(out));
    }
    let g = *g;
    Ok(record(
        "AdaptiveAvgPool2DBackwardBackward0",
        out,
        &[gy, x],
        false,
        Box::new(move |gr, needs| {
            let gy = if needs[0] {
                Some(adaptive_avg_pool2d(&gr[0], &g)?)
            } else {
                None
            };
            Ok(vec![gy, None])
        }),
    ))
}

/// `unfold` (im2col); its backward is `fold`.
pub fn unfold(x: &Var, g: &FoldGeom) -> Result<Var> {
    let out = fops::unfold(&x.t, g)?;
    if !differentiable(&out, &[x]) {
        return Ok(Var::plain(out));
    }
    let g = *g;
    Ok(record(
        "Im2ColBackward0",
        out,
        &[x],
        false,
        Box::new(move |gr, _| Ok(vec![Some(fold(&gr[0], &g)?)])),
    ))
}

/// `fold` (col2im); its backward is `unfold`.
pub fn fold(x: &Var, g: &FoldGeom) -> Result<Var> {
    let out = fops::fold(&x.t, g)?;
    if !differentiable(&out, &[x]) {
        return Ok(Var::plain(out));
    }
    let g = *g;
    Ok(record(
        "Col2ImBackward0",
        out,
        &[x],
        false,
        Box::new(move |gr, _| Ok(vec![Some(unfold(&gr[0], &g)?)])),
    ))
}

/// Runs a 2-d pool on a 1-d input (N, C, L) / (C, L) through a unit height, recording
/// the unsqueeze/squeeze views like PyTorch. `f` gets the 2-d input and returns the
/// values and (optionally) indices.
pub fn pool1d(
    x: &Var,
    f: impl FnOnce(&Var) -> Result<(Var, Option<Tensor>)>,
) -> Result<(Var, Option<Tensor>)> {
    let x2 = unsqueeze(x, -2)?;
    let (v, idx) = f(&x2)?;
    let idx = match idx {
        Some(i) => Some(i.squeeze(Some(&[-2]))?),
        None => None,
    };
    Ok((squeeze(&v, -2)?, idx))
}
