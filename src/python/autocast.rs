//! CPU autocast: the dtype an active `ferric.autocast("cpu")` region casts to, and the
//! casts of PyTorch's CPU policy. The Python context manager sets the state; the matrix
//! products read it here (one thread-local read when no region is active), and the ops
//! composed in Python call `_autocast_args` ("lower" for the convolutions, "fp32" for
//! losses and linalg, as PyTorch's `autocast_mode.cpp` lists them).

use crate::autograd::unary::to_dtype;
use crate::autograd::Var;
use crate::dtype::DType;
use crate::python::convert::{opt_dtype, PyDType};
use crate::python::tensor::{wrap_var, PyTensor};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

thread_local! {
    /// The lower-precision dtype of the active CPU autocast region (None: no region).
    static CPU: Cell<Option<DType>> = const { Cell::new(None) };
    /// Whether casts of weights are cached (`set_autocast_cache_enabled`).
    static CACHE_ON: Cell<bool> = const { Cell::new(true) };
    /// The cast cache: a float32 leaf that requires grad (a weight), by the identity of
    /// its autograd state and the target dtype, with the leaf (kept alive so the key
    /// stays its own) and its cast. Emptied when the outermost region exits.
    static CACHE: RefCell<HashMap<(usize, DType), (Var, Var)>> = RefCell::new(HashMap::new());
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
    if !eligible(v.t.dtype()) || v.t.dtype() == to {
        return Ok(v);
    }
    // PyTorch caches the lower-precision cast of a float32 leaf that requires grad, so a
    // weight used by several ops in one region is cast once
    let cacheable = CACHE_ON.with(|c| c.get())
        && Some(to) == cpu_dtype()
        && v.t.dtype() == DType::F32
        && v.requires_grad()
        && v.is_leaf();
    let Some(meta) = v.meta.as_ref().filter(|_| cacheable) else {
        return Ok(to_dtype(&v, to)?);
    };
    let key = (Rc::as_ptr(meta) as usize, to);
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).map(|(_, cast)| cast.clone())) {
        return Ok(hit);
    }
    let r = to_dtype(&v, to)?;
    CACHE.with(|c| c.borrow_mut().insert(key, (v, r.clone())));
    Ok(r)
}

#[pyfunction]
/// clear_autocast_cache() -> None
///
/// Empties the autocast cast cache (the lower-precision copies of the weights cast in
/// the current region); leaving the outermost ``autocast`` region does it.
///
/// Example:
///     >>> ferric.clear_autocast_cache()
fn clear_autocast_cache() {
    // the entries are dropped outside the borrow (dropping a Var may run Python code)
    let old = CACHE.with(|c| std::mem::take(&mut *c.borrow_mut()));
    drop(old);
}

#[pyfunction]
/// is_autocast_cache_enabled() -> bool
///
/// Whether autocast caches the casts of the weights (leaf tensors that require grad)
/// within a region.
///
/// Example:
///     >>> ferric.is_autocast_cache_enabled()
///     True
fn is_autocast_cache_enabled() -> bool {
    CACHE_ON.with(|c| c.get())
}

#[pyfunction]
/// set_autocast_cache_enabled(enabled) -> None
///
/// Turns the autocast cast cache on or off (``autocast(..., cache_enabled=...)`` sets it
/// for its region).
///
/// Args:
///     enabled (bool): whether to cache.
///
/// Example:
///     >>> ferric.set_autocast_cache_enabled(True)
fn set_autocast_cache_enabled(enabled: bool) {
    CACHE_ON.with(|c| c.set(enabled));
}

/// `_core._autocast_cache_len()`: the number of cached casts (for the tests).
#[pyfunction]
#[pyo3(name = "_autocast_cache_len")]
fn autocast_cache_len() -> usize {
    CACHE.with(|c| c.borrow().len())
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
    let d = opt_dtype(dtype)?;
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
    add_functions!(
        m,
        [
            set_cpu_dtype,
            get_cpu_dtype,
            autocast_args,
            clear_autocast_cache,
            is_autocast_cache_enabled,
            set_autocast_cache_enabled,
            autocast_cache_len
        ]
    )
}

/// `v` in float32 when a region is active (PyTorch's fp32 list: `prod`, ...).
pub fn fp32(v: Var) -> PyResult<Var> {
    match cpu_dtype() {
        Some(_) => cast(v, DType::F32),
        None => Ok(v),
    }
}
