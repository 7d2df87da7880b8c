//! `backward()` and `autograd.grad`: checking the roots and their gradients, running
//! the engine.

use crate::autograd::engine::{run, Mode};
use crate::autograd::Var;
use crate::dtype::Scalar;
use crate::python::tensor::{wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::*;

pub(super) fn ones_grad(t: &Tensor) -> PyResult<Var> {
    if t.numel() != 1 {
        return Err(PyRuntimeError::new_err(
            "grad can be implicitly created only for scalar outputs",
        ));
    }
    if !t.dtype().is_float() {
        return Err(PyRuntimeError::new_err(format!(
            "grad can be implicitly created only for real scalar outputs but got {}",
            t.dtype()
        )));
    }
    Ok(Var::plain(Tensor::full(
        "backward",
        t.shape(),
        Scalar::Int(1),
        t.dtype(),
    )?))
}

pub(super) fn vars_of(list: &Bound<'_, PyAny>) -> PyResult<Vec<Var>> {
    if let Ok(t) = list.cast::<PyTensor>() {
        return Ok(vec![t.borrow().var()?]);
    }
    let mut out = Vec::new();
    for item in list.try_iter()? {
        let item = item?;
        let t = item
            .cast::<PyTensor>()
            .map_err(|_| PyTypeError::new_err("expected a sequence of Tensors"))?;
        out.push(t.borrow().var()?);
    }
    Ok(out)
}

pub(super) fn check_grad_shape(out: &Var, g: &Var, i: usize) -> PyResult<()> {
    if out.t.shape() != g.t.shape() {
        return Err(PyRuntimeError::new_err(format!(
            "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
            crate::error::fmt_shape(g.t.shape()),
            crate::error::fmt_shape(out.t.shape())
        )));
    }
    Ok(())
}

/// Pairs outputs with their gradients (implicit ones for scalars).
fn roots(outputs: &[Var], grads: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(Var, Var)>> {
    let given: Vec<Option<Var>> = match grads {
        None => vec![None; outputs.len()],
        Some(g) if g.is_none() => vec![None; outputs.len()],
        Some(g) => {
            if let Ok(t) = g.cast::<PyTensor>() {
                vec![Some(t.borrow().var()?)]
            } else {
                let mut v = Vec::new();
                for item in g.try_iter()? {
                    let item = item?;
                    v.push(if item.is_none() {
                        None
                    } else {
                        Some(
                            item.cast::<PyTensor>()
                                .map_err(|_| {
                                    PyTypeError::new_err("grad_tensors must be Tensors or None")
                                })?
                                .borrow()
                                .var()?,
                        )
                    });
                }
                v
            }
        }
    };
    if given.len() != outputs.len() {
        return Err(PyRuntimeError::new_err(format!(
            "got {} tensors and {} gradients",
            outputs.len(),
            given.len()
        )));
    }
    outputs
        .iter()
        .zip(given)
        .enumerate()
        .map(|(i, (o, g))| {
            let g = match g {
                Some(g) => {
                    check_grad_shape(o, &g, i)?;
                    g
                }
                None => ones_grad(&o.t)?,
            };
            Ok((o.clone(), g))
        })
        .collect()
}

/// The `inputs=` of `backward()`: the leaves to accumulate into (all when absent),
/// which may not be an empty list.
pub(super) fn backward_inputs(inputs: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Var>>> {
    let inputs = match inputs {
        Some(i) if !i.is_none() => Some(vars_of(i)?),
        _ => None,
    };
    if inputs.as_ref().is_some_and(|i| i.is_empty()) {
        return Err(PyRuntimeError::new_err(
            "'inputs' argument to backward() cannot be empty.",
        ));
    }
    Ok(inputs)
}

/// `torch.autograd.backward`.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false, inputs=None))]
pub(super) fn _run_backward(
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let outs = vars_of(tensors)?;
    let r = roots(&outs, grad_tensors)?;
    let inputs = backward_inputs(inputs)?;
    let retain = retain_graph.unwrap_or(create_graph);
    run(
        &r,
        retain,
        create_graph,
        Mode::Accumulate(inputs.as_deref()),
    )
    .map_err(engine_err)?;
    Ok(())
}

/// `torch.autograd.grad`.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=None, materialize_grads=false))]
#[allow(clippy::too_many_arguments)]
pub(super) fn _grad<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: Option<bool>,
    materialize_grads: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let outs = vars_of(outputs)?;
    let ins = vars_of(inputs)?;
    for (i, v) in ins.iter().enumerate() {
        if !v.requires_grad() {
            return Err(PyRuntimeError::new_err(format!(
                "One of the differentiated Tensors does not require grad (input {i})"
            )));
        }
    }
    let r = roots(&outs, grad_outputs)?;
    let retain = retain_graph.unwrap_or(create_graph);
    let allow_unused = allow_unused.unwrap_or(materialize_grads);
    let res = run(&r, retain, create_graph, Mode::Capture(&ins)).map_err(engine_err)?;
    let mut items: Vec<Py<PyAny>> = Vec::with_capacity(res.len());
    for (i, g) in res.into_iter().enumerate() {
        match g {
            Some(g) => {
                let g = if create_graph { g } else { g.detach() };
                items.push(wrap_var(py, g)?.into_any());
            }
            None if materialize_grads => {
                items.push(wrap_var(py, Var::plain(Tensor::zeros("grad", ins[i].t.shape(), ins[i].t.dtype())?))?.into_any())
            }
            None if allow_unused => items.push(py.None()),
            None => {
                return Err(PyRuntimeError::new_err(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.",
                ))
            }
        }
    }
    PyTuple::new(py, items)
}
