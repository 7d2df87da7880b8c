//! CPU autocast: the dtype an active `ferric.autocast("cpu")` region casts to, and the
//! casts of PyTorch's CPU policy. The Python context manager sets the state; the matrix
//! products read it here (one thread-local read when no region is active), and the ops
//! composed in Python call `_autocast_args` ("lower" for the convolutions, "fp32" for
//! losses and linalg, as PyTorch's `autocast_mode.cpp` lists them).

use crate::autograd::unary::to_dtype;
use crate::autograd::Var;
use crate::dtype::DType;
use crate::python::convert::{dtype_arg, PyDType};
use crate::python::tensor::{wrap_var, PyTensor};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::cell::Cell;

thread_local! {
    /// The lower-precision dtype of the active CPU autocast region (None: no region).
    static CPU: Cell<Option<DType>> = const { Cell::new(None) };
}

/// The dtype the active CPU autocast region casts to, if one is active.
pub fn cpu_dtype() -> Option<DType> {
    CPU.with(|c| c.get())
}

/// PyTorch casts only floating tensors other than float64.
fn eligible(d: DType) -> bool {
    d.is_float() && d != DType::F64
}

fn cast(v: Var, to: DType) -> PyResult<Var> {
    if eligible(v.t.dtype()) && v.t.dtype() != to {
        return Ok(to_dtype(&v, to)?);
    }
    Ok(v)
}

/// `v` in the autocast dtype when a region is active (the matmul family).
pub fn lower(v: Var) -> PyResult<Var> {
    match cpu_dtype() {
        Some(d) => cast(v, d),
        None => Ok(v),
    }
}

#[pyfunction]
#[pyo3(name = "_set_autocast_cpu_dtype")]
fn set_cpu_dtype(dtype: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let d = match dtype {
        Some(o) if !o.is_none() => Some(dtype_arg(o)?),
        _ => None,
    };
    CPU.with(|c| c.set(d));
    Ok(())
}

#[pyfunction]
#[pyo3(name = "_autocast_cpu_dtype")]
fn get_cpu_dtype() -> Option<PyDType> {
    cpu_dtype().map(|d| PyDType { d })
}

/// `_core._autocast_args(kind, *args)`: `args` with each eligible tensor cast for the
/// active region (`kind` "lower": to the autocast dtype, "fp32": to float32); other
/// arguments unchanged. Without a region, `args` itself.
#[pyfunction]
#[pyo3(name = "_autocast_args", signature = (kind, *args))]
fn autocast_args<'py>(
    py: Python<'py>,
    kind: &str,
    args: Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let Some(d) = cpu_dtype() else {
        return Ok(args);
    };
    let to = match kind {
        "lower" => d,
        "fp32" => DType::F32,
        other => {
            return Err(PyValueError::new_err(format!(
                "_autocast_args: unknown kind {other:?}"
            )))
        }
    };
    let mut out = Vec::with_capacity(args.len());
    for a in args.iter() {
        match a.cast::<PyTensor>() {
            Ok(t) if eligible(t.borrow().t.dtype()) && t.borrow().t.dtype() != to => {
                let v = cast(t.borrow().var()?, to)?;
                out.push(wrap_var(py, v)?.into_any());
            }
            _ => out.push(a.unbind()),
        }
    }
    PyTuple::new(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_cpu_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(get_cpu_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(autocast_args, m)?)
}

/// `v` in float32 when a region is active (PyTorch's fp32 list: `prod`, ...).
pub fn fp32(v: Var) -> PyResult<Var> {
    match cpu_dtype() {
        Some(_) => cast(v, DType::F32),
        None => Ok(v),
    }
}
