//! Differentiable nn ops over the fused kernels of `ops::nn`: nll_loss, cross_entropy,
//! dropout, embedding (here) and layer/batch norm (`nn/norm.rs`).
//!
//! Node names and graph shapes follow PyTorch (`NllLossBackward0` under
//! `LogSoftmaxBackward0` for cross entropy, `EmbeddingBackward0`, `MulBackward0` for
//! dropout, ...). Each backward runs its fused kernel when no graph is being built; under
//! `create_graph=True` it is written with differentiable ops instead, so double backward
//! works wherever PyTorch supports it.

mod norm;
mod rnn;

pub use norm::{batch_norm, layer_norm};
pub use rnn::lstm_cell;

use super::pointwise as ab;
use super::reduce as ar;
use super::{index, is_grad_enabled, needs_grad, record, views, Var};
use crate::dtype::Scalar;
use crate::error::{fmt_shape, Error, Result};
use crate::ops::binary::{binary as rawb, BinaryOp, Operand};
use crate::ops::nn::embed::{dropout_noise, embedding_backward, embedding_forward};
use crate::ops::nn::loss::{nll_backward, nll_forward, nll_plan, NllPlan};
use crate::ops::nn::Reduction;
use crate::tensor::Tensor;

/// A stand-in input for an absent weight or bias: no gradient edge (PyTorch's node has
/// `None` there).
pub(crate) fn absent() -> Var {
    Var::plain(Tensor::scalar(
        crate::dtype::Scalar::Float(0.0),
        crate::dtype::DType::F32,
    ))
}

fn plain(t: Tensor) -> Var {
    Var::plain(t)
}

/// PyTorch refuses to record a loss whose class weights require grad.
fn weight_not_differentiable(weight: Option<&Var>) -> Result<()> {
    if weight.is_some_and(|w| w.requires_grad()) && is_grad_enabled() {
        return Err(Error::runtime(
            "",
            "the derivative for 'weight' is not implemented.",
        ));
    }
    Ok(())
}

/// `F.nll_loss(input, target, weight, ignore_index=, reduction=)`.
pub fn nll_loss(
    input: &Var,
    target: &Tensor,
    weight: Option<&Var>,
    reduction: Reduction,
    ignore_index: i64,
) -> Result<Var> {
    let wt = weight.map(|w| &w.t);
    let plan = nll_plan(&input.t, target, wt)?;
    weight_not_differentiable(weight)?;
    let nd = input.t.ndim();
    if nd == 3 || nd > 4 {
        // PyTorch's nll_loss_nd: view as (N, C, 1, -1) for nll_loss2d, and back
        let (n, c) = (plan.n as i64, plan.c as i64);
        let x4 = views::reshape(input, &[n, c, 1, -1])?;
        let t3 = target.reshape(&[n, 1, -1])?;
        let out = nll_loss(&x4, &t3, weight, reduction, ignore_index)?;
        if reduction != Reduction::None {
            return Ok(out);
        }
        let sizes: Vec<i64> = plan.out_shape.iter().map(|&d| d as i64).collect();
        return views::reshape(&out, &sizes);
    }
    let (loss, total_w) = nll_forward(&input.t, target, wt, &plan, reduction, ignore_index)?;
    if !needs_grad(&[input]) {
        return Ok(plain(loss));
    }
    let name = if plan.spatial {
        "NllLoss2DBackward0"
    } else {
        "NllLossBackward0"
    };
    let (target, weight) = (target.clone(), wt.cloned());
    let (shape, dtype) = (input.t.shape().to_vec(), input.t.dtype());
    Ok(record(
        name,
        loss,
        &[input],
        true,
        Box::new(move |g, _| {
            let g = &g[0];
            let back = |gt: &Tensor| {
                nll_backward(
                    gt,
                    &target,
                    weight.as_ref(),
                    &plan,
                    reduction,
                    ignore_index,
                    total_w,
                    &shape,
                    dtype,
                )
            };
            if !(is_grad_enabled() && g.requires_grad()) {
                return Ok(vec![Some(plain(back(&g.t)?))]);
            }
            // the gradient is linear in g: constant coefficients times g broadcast over
            // the class dim, so double backward reaches g
            let unit = Tensor::full("nll_loss_backward", g.t.shape(), Scalar::Float(1.0), dtype)?;
            let coef = plain(back(&unit)?);
            let gb = if reduction == Reduction::None && !plan.out_shape.is_empty() {
                views::reshape(g, &class_sizes(&plan))?
            } else {
                g.clone()
            };
            Ok(vec![Some(ab::mul(&coef, &gb)?)])
        }),
    ))
}

/// The unreduced loss's shape with a size-1 class dim inserted (broadcasts to input).
fn class_sizes(plan: &NllPlan) -> Vec<i64> {
    let mut s: Vec<i64> = plan.out_shape.iter().map(|&d| d as i64).collect();
    s.insert(1, 1);
    s
}

/// C++'s default formatting of a double in PyTorch messages (`2`, `1.5`, `nan`).
fn cpp_double(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.is_nan() {
        "nan".into()
    } else {
        format!("{v}")
    }
}

/// `F.cross_entropy(input, target, weight, ignore_index=, reduction=, label_smoothing=)`
/// with PyTorch's three paths: class probabilities (target shaped like input), class
/// indices with label smoothing, and plain log_softmax + nll_loss.
pub fn cross_entropy(
    input: &Var,
    target: &Var,
    weight: Option<&Var>,
    reduction: Reduction,
    ignore_index: i64,
    label_smoothing: f64,
) -> Result<Var> {
    // PyTorch checks only the upper bound (a negative value disables smoothing)
    if label_smoothing > 1.0 || label_smoothing.is_nan() {
        return Err(Error::runtime(
            "",
            format!(
                "label_smoothing must be between 0.0 and 1.0. Got: {}",
                cpp_double(label_smoothing)
            ),
        ));
    }
    let x = &input.t;
    let class_dim: i64 = if x.ndim() == 1 { 0 } else { 1 };
    if x.shape() == target.t.shape() {
        return ce_probabilities(
            input,
            target,
            weight,
            reduction,
            ignore_index,
            label_smoothing,
        );
    }
    let logp = ar::softmax(input, class_dim, None, true)?;
    let nll = nll_loss(&logp, &target.t, weight, reduction, ignore_index)?;
    if label_smoothing <= 0.0 {
        return Ok(nll);
    }
    // label smoothing: mix in the loss against the uniform distribution
    let c = x.shape()[class_dim as usize];
    let cd = [class_dim];
    let smooth = match weight {
        Some(w) => ab::mul(&logp, &views::reshape(w, &class_view(x.ndim(), c))?)?,
        None => logp.clone(),
    };
    let smooth = super::pointwise::neg(&ar::sum(&smooth, Some(&cd), false, None)?)?;
    let ignore = rawb(
        BinaryOp::Eq,
        Operand::T(&target.t),
        Operand::S(Scalar::Int(ignore_index)),
    )?;
    let smooth = index::masked_fill(&smooth, &ignore, index::Fill::S(Scalar::Float(0.0)))?;
    let ret = match reduction {
        Reduction::None => smooth,
        Reduction::Sum => ar::sum(&smooth, None, false, None)?,
        Reduction::Mean => {
            let denom = kept_weight(&target.t, weight.map(|w| &w.t), ignore_index)?;
            let d = Tensor::scalar(Scalar::Float(denom), x.dtype());
            ab::div(&ar::sum(&smooth, None, false, None)?, &plain(d))?
        }
    };
    ab::add(
        &ab::mul_s(&nll, 1.0 - label_smoothing)?,
        &ab::mul_s(&ret, label_smoothing / c as f64)?,
    )
}

/// Sizes that put `c` on the class dim of an `nd`-dim input and 1 elsewhere.
fn class_view(nd: usize, c: usize) -> Vec<i64> {
    let mut s = vec![1i64; nd.max(1)];
    s[if nd == 1 { 0 } else { 1 }] = c as i64;
    s
}

/// The smoothing term's mean denominator: the number (or total class weight) of targets
/// not ignored. nll_loss has already checked every target is in range.
fn kept_weight(target: &Tensor, weight: Option<&Tensor>, ignore_index: i64) -> Result<f64> {
    let w = weight.map(|w| w.to_vec::<f64>()).transpose()?;
    let mut s = 0.0;
    for t in target.to_vec::<i64>()? {
        if t != ignore_index {
            s += w
                .as_ref()
                .and_then(|w| w.get(t as usize).copied())
                .unwrap_or(1.0);
        }
    }
    Ok(s)
}

/// Cross entropy against class probabilities, as PyTorch composes it.
fn ce_probabilities(
    input: &Var,
    target: &Var,
    weight: Option<&Var>,
    reduction: Reduction,
    ignore_index: i64,
    label_smoothing: f64,
) -> Result<Var> {
    let x = &input.t;
    if !target.t.dtype().is_float() {
        return Err(Error::runtime(
            "",
            format!(
                "Expected floating point type for target with class probabilities, got {}",
                target.t.dtype().torch_name()
            ),
        ));
    }
    if ignore_index >= 0 {
        return Err(Error::runtime(
            "",
            "ignore_index is not supported for floating point target",
        ));
    }
    let class_dim: i64 = if x.ndim() == 1 { 0 } else { 1 };
    let logp = ar::softmax(input, class_dim, None, true)?;
    let c = x.shape()[class_dim as usize];
    if let Some(w) = weight {
        if w.t.ndim() != 1 || w.t.numel() != c {
            return Err(Error::runtime(
                "",
                format!(
                    "cross_entropy: weight tensor should be defined either for all {c} classes \
                     or no classes but got weight tensor of shape: {}",
                    fmt_shape(w.t.shape())
                ),
            ));
        }
    }
    let mut t = target.clone();
    if label_smoothing > 0.0 {
        let scaled = ab::mul_s(&t, 1.0 - label_smoothing)?;
        let s = Scalar::Float(label_smoothing / c as f64);
        t = ab::binary(BinaryOp::Add, ab::Arg::V(&scaled), ab::Arg::S(s))?;
    }
    let inp = match weight {
        Some(w) => ab::mul(&logp, &views::reshape(w, &class_view(x.ndim(), c))?)?,
        None => logp,
    };
    let prod = ab::mul(&inp, &t)?;
    let neg = super::pointwise::neg;
    match reduction {
        Reduction::None => neg(&ar::sum(&prod, Some(&[class_dim]), false, None)?),
        Reduction::Sum => neg(&ar::sum(&prod, None, false, None)?),
        Reduction::Mean if x.numel() == 0 => {
            // PyTorch: -(...).sum().fill_(nan)
            let s = ab::mul_s(&ar::sum(&prod, None, false, None)?, 0.0)?;
            let nan = ab::Arg::S(Scalar::Float(f64::NAN));
            neg(&ab::binary(BinaryOp::Add, ab::Arg::V(&s), nan)?)
        }
        Reduction::Mean => {
            let s = neg(&ar::sum(&prod, None, false, None)?)?;
            let n = Scalar::Float((x.numel() / c) as f64);
            ab::binary(BinaryOp::Div, ab::Arg::V(&s), ab::Arg::S(n))
        }
    }
}

/// Dropout: `x * noise` with noise of `noise_shape` (x's shape, or `(N, C, 1, ...)` for
/// channel dropout) from [`dropout_noise`]; the product is PyTorch's `MulBackward0`.
pub fn dropout(x: &Var, p: f64, noise_shape: &[usize]) -> Result<Var> {
    let noise = dropout_noise(noise_shape, p, x.t.dtype())?;
    ab::mul(x, &plain(noise))
}

/// `F.embedding(input, weight, padding_idx, scale_grad_by_freq=)`: rows of `weight`;
/// the backward adds gradient rows into their weight rows (none into `padding_idx`).
pub fn embedding(
    weight: &Var,
    indices: &Tensor,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
) -> Result<Var> {
    let out = embedding_forward(&weight.t, indices)?;
    if !needs_grad(&[weight]) {
        return Ok(plain(out));
    }
    let idx = indices.reshape(&[-1])?;
    let nw = weight.t.shape()[0];
    Ok(record(
        "EmbeddingBackward0",
        out,
        &[weight],
        true,
        Box::new(move |g, _| {
            let g = &g[0];
            if !(is_grad_enabled() && g.requires_grad()) {
                let gw = embedding_backward(&g.t, &idx, nw, padding_idx, scale_grad_by_freq)?;
                return Ok(vec![Some(plain(gw))]);
            }
            // differentiable form: scale each gradient row, then index_add into zeros
            let d = *g.t.shape().last().unwrap_or(&1);
            let rows = views::reshape(g, &[-1, d as i64])?;
            let factors =
                row_factors(&idx, nw, padding_idx, scale_grad_by_freq)?.to_dtype(g.t.dtype())?;
            let scaled = ab::mul(&rows, &plain(factors))?;
            let zeros = plain(Tensor::zeros("embedding_backward", &[nw, d], g.t.dtype())?);
            Ok(vec![Some(index::index_add(
                &zeros,
                0,
                &idx,
                &scaled,
                Scalar::Int(1),
            )?)])
        }),
    ))
}

/// Per gradient row, the factor its embedding backward applies: 0 for the padding
/// index, 1/count of its index when scaling by frequency, else 1. Shape `(L, 1)`.
fn row_factors(
    idx: &Tensor,
    nw: usize,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
) -> Result<Tensor> {
    let idx = idx.to_vec::<i64>()?;
    let mut counts = vec![0usize; nw];
    for &i in &idx {
        if let Some(c) = counts.get_mut(i as usize) {
            *c += 1;
        }
    }
    let f: Vec<f64> = idx
        .iter()
        .map(|&i| {
            let i = i as usize;
            if Some(i) == padding_idx {
                0.0
            } else if scale_grad_by_freq {
                1.0 / counts.get(i).copied().unwrap_or(1).max(1) as f64
            } else {
                1.0
            }
        })
        .collect();
    let n = f.len();
    Tensor::from_vec(f, &[n, 1])
}
