//! PyTorch's `out=` argument: the result is written into a tensor the caller gives,
//! which is resized first when its shape differs (keeping its storage when that is large
//! enough, as `resize_` does), and that same tensor is returned.

use crate::autograd::Var;
use crate::dtype::DType;
use crate::layout::Layout;
use crate::python::convert::type_name;
use crate::python::tensor::{wrap_var, PyTensor};
use crate::shape::checked_numel;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

mod functions;

/// The `out=` tensor of `op`, if one was given (None and absent are no tensor).
pub fn out_arg<'py>(
    op: &str,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyTensor>>> {
    match out {
        Some(o) if !o.is_none() => o.cast::<PyTensor>().map(|t| Some(t.clone())).map_err(|_| {
            PyTypeError::new_err(format!(
                "{op}(): argument 'out' must be Tensor, not {}",
                type_name(o)
            ))
        }),
        _ => Ok(None),
    }
}

/// Checks what PyTorch checks before writing into `out`: an explicit `dtype` must be
/// out's, and out may not take part in autograd.
pub fn check_out(op: &str, out: &Bound<'_, PyTensor>, dtype: Option<DType>) -> PyResult<()> {
    let o = out.borrow();
    if let Some(d) = dtype {
        if d != o.t.dtype() {
            return Err(PyRuntimeError::new_err(format!(
                "dtype {} does not match dtype of out parameter ({})",
                d.torch_name(),
                o.t.dtype().torch_name()
            )));
        }
    }
    if o.requires_grad()? && crate::autograd::is_grad_enabled() {
        return Err(PyRuntimeError::new_err(format!(
            "aten::{op}(): functions with out=... arguments don't support automatic \
             differentiation, but one of the arguments requires grad."
        )));
    }
    Ok(())
}

/// Writes `result` into `out` (converted to out's dtype) and returns `out`.
pub fn write_out(op: &str, out: &Bound<'_, PyTensor>, result: &Tensor) -> PyResult<Py<PyAny>> {
    {
        let mut o = out.borrow_mut();
        if o.t.shape() != result.shape() {
            o.t = resized(op, &o.t, result.shape())?;
        }
        // (copy_from bumps the version)
        o.t.copy_from(result)?;
    }
    Ok(out.clone().into_any().unbind())
}

/// `t` with a new contiguous `shape`: a view of the same storage from t's offset when it
/// holds enough elements, else fresh memory.
fn resized(op: &str, t: &Tensor, shape: &[usize]) -> PyResult<Tensor> {
    let n = checked_numel(op, shape)?;
    let fits = t
        .layout
        .offset
        .checked_add(n)
        .is_some_and(|end| end <= t.storage.len());
    if fits {
        let mut l = Layout::contiguous(shape);
        l.offset = t.layout.offset;
        return Ok(t.with_layout(l)?);
    }
    let fresh = Tensor::zeros(op, shape, t.dtype())?;
    fresh.storage.set_version(t.storage.version());
    Ok(fresh)
}

/// How an op's result dtype must meet out's dtype: PyTorch's rule differs by op family,
/// and so does its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutDtype {
    /// Elementwise ops, `mean`: the result is converted to out's dtype when it can be
    /// cast there (float into int cannot).
    Cast,
    /// `cat`/`stack`: as `Cast`, refused with cat's TypeError.
    Cat,
    /// matmul family, `gather`, explicit `dtype=` reductions: the dtype must be the result's.
    Same,
    /// `clamp`: the dtype must be the result's ("Found dtype Double but expected Float").
    Found,
    /// `where`: the dtype must be the result's ("Expected out type to be Float ...").
    Where,
    /// `index_select`: the dtype must be input's.
    IndexSelect,
}

impl OutDtype {
    /// PyTorch's error when a `result`-typed value may not be written into an `out`-typed
    /// tensor.
    pub fn check(self, result: DType, out: DType) -> PyResult<()> {
        if result == out {
            return Ok(());
        }
        let (r, o) = (result.torch_name(), out.torch_name());
        Err(match self {
            OutDtype::Cast | OutDtype::Cat if result.can_cast_to(out) => return Ok(()),
            OutDtype::Cast => PyRuntimeError::new_err(format!(
                "result type {r} can't be cast to the desired output type {o}"
            )),
            OutDtype::Cat => PyTypeError::new_err(format!(
                "torch.cat(): input types can't be cast to the desired output type {o}"
            )),
            OutDtype::Same => PyRuntimeError::new_err(format!(
                "Expected out tensor to have dtype {}, but got {} instead",
                result.cpp_name(),
                out.cpp_name()
            )),
            OutDtype::Found => PyRuntimeError::new_err(format!("Found dtype {o} but expected {r}")),
            OutDtype::Where => {
                PyRuntimeError::new_err(format!("Expected out type to be {r} but got {o}"))
            }
            OutDtype::IndexSelect => PyRuntimeError::new_err(
                "index_select(): self and result must have the same scalar type",
            ),
        })
    }
}

/// PyTorch refuses `out=` when autograd would have to record the call: grad mode on and
/// out or an input (here: the result) requiring grad.
pub fn check_autograd(
    op: &str,
    out: &Bound<'_, PyTensor>,
    result_requires_grad: bool,
) -> PyResult<()> {
    if !crate::autograd::is_grad_enabled() {
        return Ok(());
    }
    if result_requires_grad || out.borrow().requires_grad()? {
        return Err(PyRuntimeError::new_err(format!(
            "{op}(): functions with out=... arguments don't support automatic \
             differentiation, but one of the arguments requires grad."
        )));
    }
    Ok(())
}

/// Writes `result` into `out` as PyTorch's `out=` variants do: the dtype rule first,
/// then a resize when the shapes differ (with PyTorch's deprecation warning when out
/// had elements), then one copy (one version bump).
pub fn store(op: &str, out: &Bound<'_, PyTensor>, result: &Tensor, rule: OutDtype) -> PyResult<()> {
    let (dtype, shape) = {
        let o = out.borrow();
        (o.t.dtype(), o.t.shape().to_vec())
    };
    rule.check(result.dtype(), dtype)?;
    if shape != result.shape() {
        let Ok(mut o) = out.try_borrow_mut() else {
            return Err(PyRuntimeError::new_err(format!(
                "{op}(): out has shape {shape:?} but the result has shape {:?}, and out cannot \
                 be resized while it is also an input of the call",
                result.shape()
            )));
        };
        if shape.iter().product::<usize>() > 0 {
            resize_warning(out.py(), &shape, result.shape())?;
        }
        o.t = resized(op, &o.t, result.shape())?;
    }
    // (copy_from bumps the version)
    out.borrow().t.copy_from(result)?;
    Ok(())
}

/// PyTorch's UserWarning for resizing an out tensor that had elements.
fn resize_warning(py: Python<'_>, had: &[usize], want: &[usize]) -> PyResult<()> {
    let list = |s: &[usize]| {
        let v: Vec<String> = s.iter().map(|d| d.to_string()).collect();
        format!("[{}]", v.join(", "))
    };
    let msg = std::ffi::CString::new(format!(
        "An output with one or more elements was resized since it had shape {}, which does \
         not match the required output shape {}. This behavior is deprecated, and in a \
         future PyTorch release outputs will not be resized unless they have zero elements. \
         You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements \
         with t.resize_(0).",
        list(had),
        list(want)
    ))
    .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyUserWarning>(),
        &msg,
        2,
    )
}

/// The end of an op that takes `out=`: without out, the result as a new tensor; with
/// out, the autograd and dtype checks, the write, and out itself.
pub fn finish(
    py: Python<'_>,
    op: &str,
    out: Option<&Bound<'_, PyAny>>,
    rule: OutDtype,
    r: Var,
) -> PyResult<Py<PyAny>> {
    let Some(o) = out_arg(op, out)? else {
        return Ok(wrap_var(py, r)?.into_any());
    };
    check_autograd(op, &o, r.requires_grad())?;
    store(op, &o, &r.t, rule)?;
    Ok(o.into_any().unbind())
}

/// `finish` for a binding whose result is already a tensor object (the module-level
/// function of a method: `ferric.tril(x, out=o)` runs `x.tril()`).
pub fn finish_tensor(
    py: Python<'_>,
    op: &str,
    out: Option<&Bound<'_, PyAny>>,
    rule: OutDtype,
    r: Py<PyTensor>,
) -> PyResult<Py<PyAny>> {
    if out.is_none_or(|o| o.is_none()) {
        return Ok(r.into_any());
    }
    let v = r.borrow(py).var()?;
    finish(py, op, out, rule, v)
}

/// The dtype of the `out=` tensor of `op`, if one was given (checked to be a tensor).
pub fn out_dtype(op: &str, out: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    Ok(out_arg(op, out)?.map(|o| o.borrow().t.dtype()))
}

/// `finish` for ops with two outputs returned as a named tuple (`max(dim)`, `sort`,
/// `topk`): out is a sequence of two tensors, each takes its output with the same dtype.
pub fn finish_pair(
    py: Python<'_>,
    op: &str,
    out: Option<&Bound<'_, PyAny>>,
    a: Var,
    b: Var,
) -> PyResult<Option<(Py<PyAny>, Py<PyAny>)>> {
    let Some(o) = out.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let pair = o
        .cast::<pyo3::types::PyTuple>()
        .map(|t| t.as_sequence().clone())
        .or_else(|_| {
            o.cast::<pyo3::types::PyList>()
                .map(|l| l.as_sequence().clone())
        })
        .ok()
        .filter(|s| s.len().ok() == Some(2))
        .ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{op}(): argument 'out' must be tuple of Tensors, not {}",
                type_name(o)
            ))
        })?;
    let mut outs = Vec::with_capacity(2);
    for i in 0..2 {
        let item = pair.get_item(i)?;
        let t = item.cast::<PyTensor>().cloned().map_err(|_| {
            PyTypeError::new_err(format!(
                "{op}(): argument 'out' must be tuple of Tensors, not {}",
                type_name(&item)
            ))
        })?;
        outs.push(t);
    }
    let rg = a.requires_grad() || b.requires_grad();
    for t in &outs {
        check_autograd(op, t, rg)?;
    }
    for (t, r) in outs.iter().zip([&a.t, &b.t]) {
        OutDtype::Same.check(r.dtype(), t.borrow().t.dtype())?;
    }
    for (t, r) in outs.iter().zip([&a.t, &b.t]) {
        store(op, t, r, OutDtype::Same)?;
    }
    let _ = py;
    let [x, y]: [Bound<'_, PyTensor>; 2] = outs
        .try_into()
        .map_err(|_| PyRuntimeError::new_err("out: two tensors expected"))?;
    Ok(Some((x.into_any().unbind(), y.into_any().unbind())))
}

/// `_core._out_write(op, out, result, rule)`: the `out=` write of an op composed in
/// Python (`ferric.linalg`, `ferric.special`); `rule` is `"cast"` or `"same"`.
#[pyfunction]
#[pyo3(name = "_out_write")]
fn out_write(
    py: Python<'_>,
    op: &str,
    out: &Bound<'_, PyAny>,
    result: &Bound<'_, PyTensor>,
    rule: &str,
) -> PyResult<Py<PyAny>> {
    let rule = match rule {
        "cast" => OutDtype::Cast,
        "same" => OutDtype::Same,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "_out_write: unknown rule {other:?}"
            )))
        }
    };
    let r = result.borrow().var()?;
    finish(py, op, Some(out), rule, r)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(out_write, m)?)?;
    functions::register(m)
}
