//! Bindings for the fused nn ops (`autograd::nn`). They are private (`_core._nll_loss`,
//! ...): `ferric.nn.functional` keeps PyTorch's public signatures, handles the legacy
//! `size_average`/`reduce` arguments and Python-level checks, and calls these.
//! Tensor-type errors name the ATen function, as PyTorch's do.

use crate::autograd::nn as an;
use crate::autograd::Var;
use crate::ops::nn::Reduction;
use crate::python::convert::{dtype_arg, type_name};
use crate::python::tensor::{opt_var, var_arg, wrap_var, Obj, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

fn opt_tensor(op: &str, name: &str, pos: usize, obj: Obj) -> PyResult<Option<Tensor>> {
    Ok(opt_var(op, name, pos, obj)?.map(|v| v.t))
}

/// `_named_node(t, name)`: `t` under a pass-through node called `name`, so a loss
/// composed in Python reports PyTorch's node (`MseLossBackward0`) as its `grad_fn`.
#[pyfunction(name = "_named_node")]
fn named_node(py: Python<'_>, t: &Bound<'_, PyAny>, name: &str) -> PyResult<Py<PyTensor>> {
    let x = var_arg("_named_node", "t", 1, t)?;
    wrap_var(py, crate::autograd::unary::named(name, &x))
}

/// The leading arguments of the class-index losses: input, target, optional weight and
/// the reduction.
fn loss_args(
    op: &str,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    weight: Obj,
    reduction: &str,
) -> PyResult<(Var, Var, Option<Var>, Reduction)> {
    let x = var_arg(op, "input", 1, input)?;
    let t = var_arg(op, "target", 2, target)?;
    let w = opt_var(op, "weight", 3, weight)?;
    Ok((x, t, w, Reduction::parse(reduction)?))
}

/// `_nll_loss(input, target, weight, reduction, ignore_index)`.
#[pyfunction(name = "_nll_loss")]
#[pyo3(signature = (input, target, weight=None, reduction="mean", ignore_index=-100))]
fn nll_loss(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    weight: Obj,
    reduction: &str,
    ignore_index: i64,
) -> PyResult<Py<PyTensor>> {
    let (x, t, w, r) = loss_args("nll_loss_nd", input, target, weight, reduction)?;
    wrap_var(py, an::nll_loss(&x, &t.t, w.as_ref(), r, ignore_index)?)
}

/// `_cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)`.
#[pyfunction(name = "_cross_entropy")]
#[pyo3(signature = (input, target, weight=None, reduction="mean", ignore_index=-100,
                    label_smoothing=0.0))]
fn cross_entropy(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    weight: Obj,
    reduction: &str,
    ignore_index: i64,
    label_smoothing: f64,
) -> PyResult<Py<PyTensor>> {
    let (x, t, w, r) = loss_args("cross_entropy_loss", input, target, weight, reduction)?;
    let out = an::cross_entropy(&x, &t, w.as_ref(), r, ignore_index, label_smoothing)?;
    wrap_var(py, out)
}

/// `_layer_norm(input, normalized_shape, weight, bias, eps)`.
#[pyfunction(name = "_layer_norm")]
#[pyo3(signature = (input, normalized_shape, weight=None, bias=None, eps=1e-5))]
fn layer_norm(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    normalized_shape: Vec<i64>,
    weight: Obj,
    bias: Obj,
    eps: f64,
) -> PyResult<Py<PyTensor>> {
    let op = "layer_norm";
    let x = var_arg(op, "input", 1, input)?;
    let w = opt_var(op, "weight", 3, weight)?;
    let b = opt_var(op, "bias", 4, bias)?;
    let out = an::layer_norm(&x, &normalized_shape, w.as_ref(), b.as_ref(), eps)?;
    wrap_var(py, out)
}

/// `_thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias, hidden_bias)`:
/// the pointwise part of an LSTM cell as one op; returns `(hy, cy)`.
#[pyfunction(name = "_thnn_fused_lstm_cell")]
#[pyo3(signature = (input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None))]
fn fused_lstm_cell(
    py: Python<'_>,
    input_gates: &Bound<'_, PyAny>,
    hidden_gates: &Bound<'_, PyAny>,
    cx: &Bound<'_, PyAny>,
    input_bias: Obj,
    hidden_bias: Obj,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let op = "_thnn_fused_lstm_cell";
    let ig = var_arg(op, "input_gates", 1, input_gates)?;
    let hg = var_arg(op, "hidden_gates", 2, hidden_gates)?;
    let c = var_arg(op, "cx", 3, cx)?;
    let bi = opt_var(op, "input_bias", 4, input_bias)?;
    let bh = opt_var(op, "hidden_bias", 5, hidden_bias)?;
    let (hy, cy) = an::lstm_cell(&ig, &hg, &c, bi.as_ref(), bh.as_ref())?;
    Ok((wrap_var(py, hy)?, wrap_var(py, cy)?))
}

/// `_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)`;
/// the running statistics are updated in place in training.
#[pyfunction(name = "_batch_norm")]
#[pyo3(signature = (input, running_mean, running_var, weight=None, bias=None,
                    training=false, momentum=None, eps=1e-5))]
#[allow(clippy::too_many_arguments)]
fn batch_norm(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    running_mean: Obj,
    running_var: Obj,
    weight: Obj,
    bias: Obj,
    training: bool,
    momentum: Obj,
    eps: f64,
) -> PyResult<Py<PyTensor>> {
    let op = "batch_norm";
    // PyTorch's own message (the module passes None only through its own logic)
    let momentum: f64 = match momentum {
        Some(m) => m.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "batch_norm(): argument 'momentum' (position 7) must be float, not {}",
                type_name(m)
            ))
        })?,
        None => 0.1,
    };
    let x = var_arg(op, "input", 1, input)?;
    let rm = opt_tensor(op, "running_mean", 4, running_mean)?;
    let rv = opt_tensor(op, "running_var", 5, running_var)?;
    let w = opt_var(op, "weight", 2, weight)?;
    let b = opt_var(op, "bias", 3, bias)?;
    let out = an::batch_norm(
        &x,
        rm.as_ref(),
        rv.as_ref(),
        w.as_ref(),
        b.as_ref(),
        training,
        momentum,
        eps,
    )?;
    wrap_var(py, out)
}

/// `_dropout(input, p, noise_shape)`: `input * noise` (a new tensor).
#[pyfunction(name = "_dropout")]
fn dropout(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    p: f64,
    noise_shape: Vec<usize>,
) -> PyResult<Py<PyTensor>> {
    let x = var_arg("dropout", "input", 1, input)?;
    wrap_var(py, an::dropout(&x, p, &noise_shape)?)
}

/// `_dropout_noise(shape, p, dtype)`: the scaled keep-mask alone (for in-place dropout).
#[pyfunction(name = "_dropout_noise")]
fn dropout_noise(
    py: Python<'_>,
    shape: Vec<usize>,
    p: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<PyTensor>> {
    let t = crate::ops::nn::embed::dropout_noise(&shape, p, dtype_arg(dtype)?)?;
    wrap_var(py, Var::plain(t))
}

/// `_embedding(weight, indices, padding_idx, scale_grad_by_freq)`; `padding_idx` is
/// already non-negative (or None).
#[pyfunction(name = "_embedding")]
#[pyo3(signature = (weight, indices, padding_idx=None, scale_grad_by_freq=false))]
fn embedding(
    py: Python<'_>,
    weight: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    padding_idx: Option<usize>,
    scale_grad_by_freq: bool,
) -> PyResult<Py<PyTensor>> {
    let op = "embedding";
    let w = var_arg(op, "weight", 1, weight)?;
    let i = var_arg(op, "indices", 2, indices)?;
    wrap_var(
        py,
        an::embedding(&w, &i.t, padding_idx, scale_grad_by_freq)?,
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            named_node,
            nll_loss,
            cross_entropy,
            layer_norm,
            batch_norm,
            fused_lstm_cell,
            dropout,
            dropout_noise,
            embedding
        ]
    )
}
