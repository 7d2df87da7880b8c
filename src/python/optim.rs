//! Private entry points of the fused optimizer updates (`ferric.optim` calls them per
//! parameter and falls back to the op-by-op update when they return False).

use super::tensor::PyTensor;
use crate::ops::optim::{adam_step, sgd_step, Adam, Sgd};
use pyo3::prelude::*;

#[pyfunction]
#[pyo3(signature = (param, grad, buf, first, lr, momentum, dampening, weight_decay, nesterov, maximize))]
#[allow(clippy::too_many_arguments)]
fn _fused_sgd(
    param: PyRef<'_, PyTensor>,
    grad: PyRef<'_, PyTensor>,
    buf: Option<PyRef<'_, PyTensor>>,
    first: bool,
    lr: f64,
    momentum: f64,
    dampening: f64,
    weight_decay: f64,
    nesterov: bool,
    maximize: bool,
) -> PyResult<bool> {
    let h = Sgd {
        lr,
        momentum,
        dampening,
        weight_decay,
        nesterov,
        maximize,
    };
    Ok(sgd_step(
        &param.t,
        &grad.t,
        buf.as_ref().map(|b| &b.t),
        first,
        &h,
    )?)
}

#[pyfunction]
#[pyo3(signature = (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, lr, beta1, beta2, eps,
    weight_decay, decoupled, maximize, step_size, bias_correction2_sqrt))]
#[allow(clippy::too_many_arguments)]
fn _fused_adam(
    param: PyRef<'_, PyTensor>,
    grad: PyRef<'_, PyTensor>,
    exp_avg: PyRef<'_, PyTensor>,
    exp_avg_sq: PyRef<'_, PyTensor>,
    max_exp_avg_sq: Option<PyRef<'_, PyTensor>>,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    decoupled: bool,
    maximize: bool,
    step_size: f64,
    bias_correction2_sqrt: f64,
) -> PyResult<bool> {
    let h = Adam {
        lr,
        beta1,
        beta2,
        eps,
        weight_decay,
        decoupled,
        maximize,
        step_size,
        bias_correction2_sqrt,
    };
    let vmax = max_exp_avg_sq.as_ref().map(|t| &t.t);
    Ok(adam_step(
        &param.t,
        &grad.t,
        &exp_avg.t,
        &exp_avg_sq.t,
        vmax,
        &h,
    )?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fused_sgd, m)?)?;
    m.add_function(wrap_pyfunction!(_fused_adam, m)?)?;
    Ok(())
}
