//! The pieces a custom `autograd.Function` (written in Python) is built from: saved
//! tensors held by Rust, and recording the function as one node.

use crate::autograd::{self as ag, Saved, Var};
use crate::python::tensor::{wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::backward::vars_of;
use super::*;

/// Saved tensors of a custom `autograd.Function`, held by Rust so that the context does
/// not keep Python tensor objects (and through them the graph) alive in a cycle.
#[pyclass(name = "_SavedTensors", module = "ferric.autograd", frozen)]
pub struct PySaved {
    saved: Local<Vec<Option<Saved>>>,
    name: String,
}

#[pymethods]
impl PySaved {
    fn unpack<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<Py<PyAny>> = self
            .saved
            .get()?
            .iter()
            .map(|s| match s {
                Some(s) => Ok(wrap_var(py, s.get(&self.name)?)?.into_any()),
                None => Ok(py.None()),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }
}

/// Packs tensors passed to `ctx.save_for_backward`: outputs of the function keep only
/// their data (their node would be a cycle), inputs keep their graph.
#[pyfunction]
pub(super) fn _pack_saved(
    tensors: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyAny>,
    name: String,
) -> PyResult<PySaved> {
    let outs: Vec<Bound<'_, PyAny>> = outputs.try_iter()?.collect::<PyResult<_>>()?;
    let mut saved = Vec::new();
    for item in tensors.try_iter()? {
        let item = item?;
        if item.is_none() {
            saved.push(None);
            continue;
        }
        let t = item.cast::<PyTensor>().map_err(|_| {
            PyTypeError::new_err(
                "save_for_backward can only save variables, but argument is not a Tensor",
            )
        })?;
        let v = t.borrow().var()?;
        // a forward output is saved as output `nr` of the Function's node (bound weakly,
        // so double backward through `saved_tensors` reaches the node without a cycle)
        let is_out = outs.iter().any(|o| o.is(&item));
        saved.push(Some(if !is_out {
            Saved::input(&v)
        } else if v.grad_fn().is_some() {
            let nr = v.meta.as_ref().map_or(0, |m| m.output_nr.get());
            let (s, slot) = Saved::output_nr_of(&v.t, &name, nr);
            slot.bind(&v);
            s
        } else {
            Saved::output(&v.t)
        }));
    }
    // these are saved after their node was recorded: keep them off the next node's list
    ag::forget_just_saved();
    Ok(PySaved {
        saved: Local::new(saved),
        name,
    })
}

/// Records a custom Function: `outputs` (computed without grad) become results of a node
/// whose backward calls `backward(*grads)` in Python and returns one gradient (or None)
/// per entry of `inputs`.
#[pyfunction]
pub(super) fn _record_function<'py>(
    py: Python<'py>,
    name: String,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    differentiable: Vec<bool>,
    backward: Py<PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let ins = vars_of(inputs)?;
    let outs: Vec<Var> = vars_of(outputs)?;
    let n_in = ins.len();
    let diff_outs: Vec<Tensor> = outs
        .iter()
        .zip(&differentiable)
        .filter(|(_, d)| **d)
        .map(|(o, _)| o.t.clone())
        .collect();
    let refs: Vec<&Var> = ins.iter().collect();
    let node_name = format!("{name}Backward");
    let bw: ag::BackwardFn = Box::new(move |grads, _needs| {
        call_py(|py| {
            let gs: Vec<Py<PyTensor>> = grads
                .iter()
                .map(|g| wrap_var(py, g.clone()))
                .collect::<PyResult<_>>()?;
            let r = backward.bind(py).call1(PyTuple::new(py, gs)?)?;
            let r: Vec<Bound<'_, PyAny>> = if r.is_instance_of::<PyTuple>() {
                r.try_iter()?.collect::<PyResult<_>>()?
            } else {
                vec![r]
            };
            if r.len() != n_in {
                return Err(PyRuntimeError::new_err(format!(
                    "function {name}Backward returned an incorrect number of gradients (expected {n_in}, got {})",
                    r.len()
                )));
            }
            r.iter()
                .map(|g| {
                    if g.is_none() {
                        Ok(None)
                    } else {
                        Ok(Some(
                            g.cast::<PyTensor>()
                                .map_err(|_| {
                                    PyTypeError::new_err("backward must return Tensors or None")
                                })?
                                .borrow()
                                .var()?,
                        ))
                    }
                })
                .collect()
        })
    });
    let recorded = if ag::needs_grad(&refs) && !diff_outs.is_empty() {
        ag::record_multi(&node_name, diff_outs, &refs, true, bw)
    } else {
        Vec::new()
    };
    let mut rec = recorded.into_iter();
    let list = PyList::empty(py);
    for (o, d) in outs.into_iter().zip(differentiable) {
        let v = if d {
            rec.next().unwrap_or(Var::plain(o.t))
        } else {
            Var::plain(o.t)
        };
        list.append(wrap_var(py, v)?)?;
    }
    Ok(list)
}
