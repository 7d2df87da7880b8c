//! PyTorch's `out=` argument: the result is written into a tensor the caller gives,
//! which is resized first when its shape differs (keeping its storage when that is large
//! enough, as `resize_` does), and that same tensor is returned.

use crate::dtype::DType;
use crate::layout::Layout;
use crate::python::convert::type_name;
use crate::python::tensor::PyTensor;
use crate::shape::checked_numel;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

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
    Ok(Tensor::zeros(op, shape, t.dtype())?)
}
