//! Fused optimizer updates: one pass over a parameter and its state instead of the
//! four to eight elementwise ops (each a full read and write of the tensor) that
//! PyTorch's single-tensor SGD and Adam perform.
//!
//! Every element goes through the same arithmetic as PyTorch's op-by-op update, in the
//! tensor's own precision and in the same order (`lerp`'s two-sided formula,
//! `addcmul`'s `value * t1 * t2`, `addcdiv`'s `value * (t1 / t2)`), so the results agree
//! with PyTorch's to rounding (PyTorch's vectorised kernels contract some `a + s * b` into
//! fused multiply-adds; these loops do not).
//!
//! The fused path applies when the parameter, its gradient and its state are dense
//! tensors of one floating dtype and one shape in separate storages; otherwise the
//! callers (the Python optimizers) use the op-by-op update, which handles any layout.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::unary::num_like::Real;
use crate::tensor::Tensor;
use std::sync::Arc;

/// The hyperparameters of one SGD step.
#[derive(Clone, Copy, Debug)]
pub struct Sgd {
    pub lr: f64,
    pub momentum: f64,
    pub dampening: f64,
    pub weight_decay: f64,
    pub nesterov: bool,
    pub maximize: bool,
}

/// The per-step constants of one Adam/AdamW step (bias corrections already applied).
#[derive(Clone, Copy, Debug)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub decoupled: bool,
    pub maximize: bool,
    /// `lr / (1 - beta1^step)`
    pub step_size: f64,
    /// `sqrt(1 - beta2^step)`
    pub bias_correction2_sqrt: f64,
}

/// True if all tensors are dense, of `param`'s floating dtype and shape, and no two
/// share a storage (so reading one while writing another is well defined).
fn fusable(param: &Tensor, others: &[&Tensor]) -> bool {
    if !matches!(param.dtype(), DType::F32 | DType::F64) {
        return false;
    }
    let all = std::iter::once(param).chain(others.iter().copied());
    let dense = all
        .clone()
        .all(|t| t.is_contiguous() && t.dtype() == param.dtype() && t.shape() == param.shape());
    let tensors: Vec<&Tensor> = all.collect();
    let distinct = tensors.iter().enumerate().all(|(i, a)| {
        tensors[i + 1..]
            .iter()
            .all(|b| !Arc::ptr_eq(&a.storage, &b.storage))
    });
    dense && distinct
}

/// The dense element range `[offset, offset + numel)` of a contiguous tensor.
fn range(t: &Tensor) -> std::ops::Range<usize> {
    t.layout.offset..t.layout.offset + t.numel()
}

/// One SGD step on `param` from `grad` with momentum buffer `buf` (`first`: the buffer
/// is set to the gradient instead of updated, as on PyTorch's first step). Returns
/// false, touching nothing, when the tensors do not fit the fused path.
pub fn sgd_step(
    param: &Tensor,
    grad: &Tensor,
    buf: Option<&Tensor>,
    first: bool,
    h: &Sgd,
) -> Result<bool> {
    let others: Vec<&Tensor> = std::iter::once(grad).chain(buf).collect();
    if !fusable(param, &others) {
        return Ok(false);
    }
    for t in std::iter::once(param).chain(buf) {
        t.check_writable("sgd")?;
    }
    if h.momentum != 0.0 && buf.is_none() {
        return Err(Error::runtime("sgd", "momentum needs a momentum buffer"));
    }
    crate::with_float_dtype!(
        param.dtype(),
        T,
        {
            // SAFETY: T is the common dtype (checked by `fusable`); the storages are
            // distinct, so the one mutable slice per storage does not alias the shared ones.
            let (p, g) = unsafe { (param.data_mut::<T>(), grad.data::<T>()) };
            let (p, g) = (&mut p[range(param)], &g[range(grad)]);
            let b = buf.map(|b| unsafe { &mut b.data_mut::<T>()[range(b)] });
            sgd_kernel::<T>(p, g, b, first, h);
        },
        unreachable!("fusable() admits float dtypes only")
    );
    param.storage.bump_version();
    if let Some(b) = buf {
        b.storage.bump_version();
    }
    Ok(true)
}

fn sgd_kernel<T: Real>(p: &mut [T], g: &[T], b: Option<&mut [T]>, first: bool, h: &Sgd) {
    let (wd, mom) = (T::of(h.weight_decay), T::of(h.momentum));
    let damp = T::of(1.0 - h.dampening);
    let neg_lr = T::of(-h.lr);
    let (maximize, decay, nesterov) = (h.maximize, h.weight_decay != 0.0, h.nesterov);
    // PyTorch's order of operations, element by element: d = ±g (+ wd p); b = b mom +
    // (1 - dampening) d; d = d + mom b (nesterov) or b; p = p - lr d. Zipped slices (no
    // bounds checks) and loop-invariant flags let the compiler vectorise each variant.
    let dir = |pi: T, gi: T| {
        let d = if maximize { -gi } else { gi };
        if decay {
            d + wd * pi
        } else {
            d
        }
    };
    match b {
        None => {
            for (pi, &gi) in p.iter_mut().zip(g) {
                *pi = *pi + neg_lr * dir(*pi, gi);
            }
        }
        Some(b) => {
            for ((pi, &gi), bi) in p.iter_mut().zip(g).zip(b.iter_mut()) {
                let d = dir(*pi, gi);
                let v = if first { d } else { *bi * mom + damp * d };
                *bi = v;
                let d = if nesterov { d + mom * v } else { v };
                *pi = *pi + neg_lr * d;
            }
        }
    }
}

/// One Adam (or AdamW, `decoupled`) step; `max_sq` is the AMSGrad state. Returns false,
/// touching nothing, when the tensors do not fit the fused path.
pub fn adam_step(
    param: &Tensor,
    grad: &Tensor,
    exp_avg: &Tensor,
    exp_avg_sq: &Tensor,
    max_sq: Option<&Tensor>,
    h: &Adam,
) -> Result<bool> {
    let others: Vec<&Tensor> = [grad, exp_avg, exp_avg_sq]
        .into_iter()
        .chain(max_sq)
        .collect();
    if !fusable(param, &others) {
        return Ok(false);
    }
    let written: Vec<&Tensor> = [param, exp_avg, exp_avg_sq]
        .into_iter()
        .chain(max_sq)
        .collect();
    for t in &written {
        t.check_writable("adam")?;
    }
    crate::with_float_dtype!(
        param.dtype(),
        T,
        {
            // SAFETY: as in `sgd_step`: one dtype, distinct storages.
            let s = unsafe {
                AdamSlices {
                    p: &mut param.data_mut::<T>()[range(param)],
                    g: &grad.data::<T>()[range(grad)],
                    m: &mut exp_avg.data_mut::<T>()[range(exp_avg)],
                    v: &mut exp_avg_sq.data_mut::<T>()[range(exp_avg_sq)],
                    vmax: max_sq.map(|t| &mut t.data_mut::<T>()[range(t)]),
                }
            };
            adam_kernel::<T>(s, h);
        },
        unreachable!("fusable() admits float dtypes only")
    );
    for t in written {
        t.storage.bump_version();
    }
    Ok(true)
}

struct AdamSlices<'a, T> {
    p: &'a mut [T],
    g: &'a [T],
    m: &'a mut [T],
    v: &'a mut [T],
    vmax: Option<&'a mut [T]>,
}

fn adam_kernel<T: Real>(s: AdamSlices<'_, T>, h: &Adam) {
    let AdamSlices { p, g, m, v, vmax } = s;
    let wd = T::of(h.weight_decay);
    let decay = T::of(1.0 - h.lr * h.weight_decay);
    // lerp(m, g, w) with w = 1 - beta1, in PyTorch's two-sided form
    let w = 1.0 - h.beta1;
    let (tw, one_minus_w, low) = (T::of(w), T::of(1.0 - w), w.abs() < 0.5);
    let (beta2, one_minus_beta2) = (T::of(h.beta2), T::of(1.0 - h.beta2));
    let (bc2, eps, neg_step) = (
        T::of(h.bias_correction2_sqrt),
        T::of(h.eps),
        T::of(-h.step_size),
    );
    let mut vmax = vmax;
    for i in 0..p.len() {
        let mut d = if h.maximize { -g[i] } else { g[i] };
        let mut pi = p[i];
        if h.weight_decay != 0.0 {
            if h.decoupled {
                pi = pi * decay;
            } else {
                d = d + wd * pi;
            }
        }
        let mi = if low {
            m[i] + tw * (d - m[i])
        } else {
            d - (d - m[i]) * one_minus_w
        };
        m[i] = mi;
        let vi = v[i] * beta2 + one_minus_beta2 * d * d;
        v[i] = vi;
        let second = match vmax.as_deref_mut() {
            Some(vm) => {
                // torch.maximum propagates NaN
                let x = if vm[i].is_nan() || vi.is_nan() {
                    vm[i] + vi
                } else if vi > vm[i] {
                    vi
                } else {
                    vm[i]
                };
                vm[i] = x;
                x
            }
            None => vi,
        };
        let denom = second.sqrt() / bc2 + eps;
        p[i] = pi + neg_step * (mi / denom);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64]) -> Tensor {
        Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap()
    }

    #[test]
    fn sgd_momentum_matches_the_op_by_op_update() {
        let (p, g, b) = (t(&[1.0, -2.0]), t(&[0.5, 0.25]), t(&[0.1, 0.2]));
        let h = Sgd {
            lr: 0.1,
            momentum: 0.9,
            dampening: 0.0,
            weight_decay: 0.01,
            nesterov: true,
            maximize: false,
        };
        assert!(sgd_step(&p, &g, Some(&b), false, &h).unwrap());
        let d: Vec<f64> = vec![0.5 + 0.01 * 1.0, 0.25 + 0.01 * -2.0];
        let nb: Vec<f64> = vec![0.1 * 0.9 + d[0], 0.2 * 0.9 + d[1]];
        let np = [
            1.0 - 0.1 * (d[0] + 0.9 * nb[0]),
            -2.0 - 0.1 * (d[1] + 0.9 * nb[1]),
        ];
        assert_eq!(b.to_vec::<f64>().unwrap(), nb);
        assert_eq!(p.to_vec::<f64>().unwrap(), np);
    }

    #[test]
    fn shared_or_strided_tensors_are_declined() {
        let p = t(&[1.0, 2.0]);
        let h = Sgd {
            lr: 0.1,
            momentum: 0.0,
            dampening: 0.0,
            weight_decay: 0.0,
            nesterov: false,
            maximize: false,
        };
        assert!(!sgd_step(&p, &p, None, false, &h).unwrap());
        let g = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        assert!(!sgd_step(&p, &g, None, false, &h).unwrap());
        assert_eq!(p.to_vec::<f64>().unwrap(), [1.0, 2.0]);
    }
}
