//! `nll_loss`: the negative log likelihood of target classes, over the input seen as
//! `(N, C, S)` (N samples, C classes, S spatial positions; S = 1 for 1-d and 2-d inputs).
//! The checks reproduce PyTorch's `nll_loss_nd` / `nll_loss` / `nll_loss2d` messages in
//! their order, since the error a user sees depends on which check fires first.

use super::{same_dtype, Reduction};
use crate::dtype::{DType, Element};
use crate::error::{fmt_shape, Error, Result};
use crate::ops::compute;
use crate::shape::Dims;
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

/// How nll_loss sees a validated input.
#[derive(Clone, Debug)]
pub struct NllPlan {
    pub n: usize,
    pub c: usize,
    pub s: usize,
    /// Shape of the unreduced loss: `[]`, `[N]` or `[N, d1, ...]`.
    pub out_shape: Dims,
    /// Inputs of 3+ dims go through PyTorch's nll_loss2d (node `NllLoss2DBackward0`).
    pub spatial: bool,
}

fn rt(msg: String) -> Error {
    Error::runtime("", msg)
}

/// Checks `input`, `target` and `weight` as PyTorch does and returns the plan.
pub fn nll_plan(input: &Tensor, target: &Tensor, weight: Option<&Tensor>) -> Result<NllPlan> {
    let (xs, ts) = (input.shape(), target.shape());
    let nd = xs.len();
    if nd < 1 {
        return Err(Error::value(
            "",
            format!("Expected 1 or more dimensions (got {nd})"),
        ));
    }
    if nd == 1 && ts.len() == 1 && ts[0] != 1 {
        return Err(Error::value(
            "",
            format!(
                "For 1D input, 1D target must have size 1, but got target size: {}",
                ts[0]
            ),
        ));
    }
    let t0 = ts.first().copied().unwrap_or(0);
    if nd > 1 && xs[0] != t0 {
        return Err(Error::value(
            "",
            format!(
                "Expected input batch_size ({}) to match target batch_size ({t0}).",
                xs[0]
            ),
        ));
    }
    let c = if nd == 1 { xs[0] } else { xs[1] };
    let spatial = nd > 2;
    if nd <= 2 {
        if ts.len() > 1 {
            return Err(rt(
                "0D or 1D target tensor expected, multi-target not supported".into(),
            ));
        }
        if let Some(w) = weight {
            if w.ndim() != 1 || w.numel() != c {
                return Err(rt(format!(
                    "weight tensor should be defined either for all {c} classes or no classes \
                     but got weight tensor of shape: {}",
                    fmt_shape(w.shape())
                )));
            }
        }
    } else {
        if nd == 4 && ts.len() != 3 {
            return Err(rt(format!(
                "only batches of spatial targets supported (3D tensors) but got targets of \
                 dimension: {}",
                ts.len()
            )));
        }
        if ts.get(1..) != xs.get(2..) {
            let mut want: Vec<usize> = vec![xs[0]];
            want.extend_from_slice(&xs[2..]);
            return Err(rt(if nd == 4 {
                format!(
                    "size mismatch (got input: {} , target: {}",
                    fmt_shape(xs),
                    fmt_shape(ts)
                )
            } else {
                format!(
                    "Expected target size {}, got {}",
                    fmt_shape(&want),
                    fmt_shape(ts)
                )
            }));
        }
        if weight.is_some_and(|w| w.numel() != c) {
            return Err(rt(
                "weight tensor should be defined either for all or no classes".into(),
            ));
        }
    }
    if target.dtype() != DType::I64 {
        return Err(rt(format!(
            "expected target dtype to be Long or Byte, but got {}",
            target.dtype().torch_name()
        )));
    }
    if !input.dtype().is_float() {
        let kernel = if spatial {
            "nll_loss2d_forward_out_frame"
        } else {
            "nll_loss_out_frame"
        };
        return Err(Error::dtype_not_implemented(kernel, input.dtype()));
    }
    if let Some(w) = weight {
        same_dtype(input.dtype(), w)?;
    }
    let n = if nd == 1 { 1 } else { xs[0] };
    let s: usize = xs.iter().skip(2).product();
    let out_shape: Dims = if nd == 1 {
        Dims::new()
    } else {
        std::iter::once(xs[0])
            .chain(xs[2..].iter().copied())
            .collect()
    };
    Ok(NllPlan {
        n,
        c,
        s,
        out_shape,
        spatial,
    })
}

/// The class weights as `T` (all ones when absent).
fn class_weights<T: Element>(weight: Option<&Tensor>, c: usize) -> Result<Vec<T>> {
    match weight {
        Some(w) => w.to_vec::<T>(),
        None => Ok(vec![T::from_f64(1.0); c]),
    }
}

/// Visits every (sample, position) with its target class and weight, in row-major order;
/// ignored targets are skipped, out-of-range ones raise PyTorch's IndexError.
fn for_each_target<T: Element>(
    plan: &NllPlan,
    tgt: &[i64],
    w: &[T],
    ignore_index: i64,
    mut f: impl FnMut(usize, usize, T),
) -> Result<()> {
    for (p, &t) in tgt.iter().enumerate().take(plan.n * plan.s) {
        if t == ignore_index {
            continue;
        }
        if t < 0 || t as usize >= plan.c {
            return Err(Error::index("", format!("Target {t} is out of bounds.")));
        }
        let t = t as usize;
        // element (i, t, k) of the (N, C, S) input, with p = i * S + k
        let (i, k) = (p / plan.s.max(1), p % plan.s.max(1));
        f(p, (i * plan.c + t) * plan.s + k, w[t]);
    }
    Ok(())
}

/// The loss (shape `out_shape` for `Reduction::None`, else 0-d) and the total weight of
/// the counted targets (the mean's denominator, also needed by the backward).
pub fn nll_forward(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    plan: &NllPlan,
    reduction: Reduction,
    ignore_index: i64,
) -> Result<(Tensor, f64)> {
    if !input.dtype().is_compute() {
        let wc = weight.map(compute::input).transpose()?;
        let c = compute::input(input)?;
        let (l, tw) = nll_forward(&c, target, wc.as_ref(), plan, reduction, ignore_index)?;
        return Ok((compute::output(input.dtype(), l)?, tw));
    }
    let x = input.dense()?;
    let tgt = target.dense()?;
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            let w = class_weights::<T>(weight, plan.c)?;
            // SAFETY: T is x's dtype; the target is int64 (checked by nll_plan).
            let (xs, ts) = unsafe { (x.data::<T>(), tgt.data::<i64>()) };
            let m = plan.n * plan.s;
            let mut losses = if reduction == Reduction::None {
                try_zeroed_vec::<T>("nll_loss", m)?
            } else {
                Vec::new()
            };
            let (mut total, mut total_w) = (0.0f64, 0.0f64);
            for_each_target(plan, ts, &w, ignore_index, |p, at, wv| {
                let l = -(wv * xs[at]);
                if let Some(o) = losses.get_mut(p) {
                    *o = l;
                }
                total += l.to_f64();
                total_w += wv.to_f64();
            })?;
            let loss = match reduction {
                Reduction::None => Tensor::from_vec(losses, &plan.out_shape)?,
                Reduction::Sum => Tensor::from_vec(vec![T::from_f64(total)], &[])?,
                Reduction::Mean => Tensor::from_vec(vec![T::from_f64(total / total_w)], &[])?,
            };
            Ok((loss, total_w))
        },
        Err(Error::dtype_not_implemented(
            "nll_loss_out_frame",
            x.dtype()
        ))
    )
}

/// The gradient of the loss with respect to the input for incoming gradient `g` (0-d
/// for mean/sum, `out_shape` for none): `-w[t] * g` at each counted target (divided by
/// the total weight for mean), zero elsewhere. `shape` is the input's.
#[allow(clippy::too_many_arguments)]
pub fn nll_backward(
    g: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    plan: &NllPlan,
    reduction: Reduction,
    ignore_index: i64,
    total_weight: f64,
    shape: &[usize],
    dtype: DType,
) -> Result<Tensor> {
    if !dtype.is_compute() {
        let wc = weight.map(compute::input).transpose()?;
        let (c, gc) = (dtype.compute(), compute::input(g)?);
        let r = nll_backward(
            &gc,
            target,
            wc.as_ref(),
            plan,
            reduction,
            ignore_index,
            total_weight,
            shape,
            c,
        )?;
        return compute::output(dtype, r);
    }
    let g = g.to_dtype(dtype)?.dense()?;
    let tgt = target.dense()?;
    crate::with_float_dtype!(
        dtype,
        T,
        {
            let w = class_weights::<T>(weight, plan.c)?;
            let mut gi = try_zeroed_vec::<T>("nll_loss_backward", plan.n * plan.c * plan.s)?;
            // SAFETY: T is g's dtype (converted above); the target is int64.
            let (gs, ts) = unsafe { (g.data::<T>(), tgt.data::<i64>()) };
            let scale = match reduction {
                Reduction::Mean => T::from_f64(1.0 / total_weight),
                _ => T::from_f64(1.0),
            };
            let g0 = gs.first().copied().unwrap_or(T::from_f64(0.0));
            for_each_target(plan, ts, &w, ignore_index, |p, at, wv| {
                let gv = if reduction == Reduction::None {
                    gs[p]
                } else {
                    g0 * scale
                };
                gi[at] = -(wv * gv);
            })?;
            Tensor::from_vec(gi, shape)
        },
        Err(Error::dtype_not_implemented("nll_loss_backward", dtype))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<f64>, s: &[usize]) -> Tensor {
        Tensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn nll_matches_hand_computed_values() {
        // input (2, 3) log-probabilities, targets [2, 0], weights [1, 2, 3]
        let x = t(vec![-1.0, -2.0, -3.0, -4.0, -5.0, -6.0], &[2, 3]);
        let tgt = Tensor::from_vec(vec![2i64, 0], &[2]).unwrap();
        let w = t(vec![1.0, 2.0, 3.0], &[3]);
        let plan = nll_plan(&x, &tgt, Some(&w)).unwrap();
        let (l, tw) = nll_forward(&x, &tgt, Some(&w), &plan, Reduction::Mean, -100).unwrap();
        assert_eq!(tw, 4.0);
        assert_eq!(l.to_vec::<f64>().unwrap(), [(9.0 + 4.0) / 4.0]);
        let (l, _) = nll_forward(&x, &tgt, Some(&w), &plan, Reduction::None, 0).unwrap();
        assert_eq!(l.to_vec::<f64>().unwrap(), [9.0, 0.0]);
        let g = t(vec![1.0], &[]);
        let gi = nll_backward(
            &g,
            &tgt,
            Some(&w),
            &plan,
            Reduction::Mean,
            -100,
            4.0,
            &[2, 3],
            DType::F64,
        )
        .unwrap();
        assert_eq!(
            gi.to_vec::<f64>().unwrap(),
            [0.0, 0.0, -0.75, -0.25, 0.0, 0.0]
        );
        let bad = Tensor::from_vec(vec![2i64, 3], &[2]).unwrap();
        let e = nll_forward(&x, &bad, None, &plan, Reduction::Sum, -100).err();
        assert_eq!(
            e.map(|e| e.msg).as_deref(),
            Some("Target 3 is out of bounds.")
        );
    }

    #[test]
    fn spatial_positions_index_the_class_dim() {
        // (1, 2, 3): classes on dim 1, three positions
        let x = t(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[1, 2, 3]);
        let tgt = Tensor::from_vec(vec![1i64, 0, 1], &[1, 3]).unwrap();
        let plan = nll_plan(&x, &tgt, None).unwrap();
        assert!(plan.spatial);
        let (l, _) = nll_forward(&x, &tgt, None, &plan, Reduction::None, -100).unwrap();
        assert_eq!(l.shape(), &[1, 3]);
        assert_eq!(l.to_vec::<f64>().unwrap(), [-4.0, -2.0, -6.0]);
    }
}
