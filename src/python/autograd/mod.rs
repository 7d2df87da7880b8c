//! The Python surface of the autograd tape: `requires_grad`, `.grad`, `grad_fn`,
//! `backward()`, hooks, grad mode, anomaly mode, and the pieces `autograd.Function`
//! (written in Python) is built from.

use crate::autograd as ag;
use crate::error::Error;
use crate::python::tensor::PyTensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::cell::RefCell;
use std::rc::Rc;

use function::PySaved;
use hooks::PyHandle;
use node::PyNode;

mod backward;
mod function;
mod hooks;
mod node;
mod tensor_api;

thread_local! {
    /// A Python exception raised inside a hook or custom Function during backward: the
    /// engine only knows core errors, so the original exception waits here and is
    /// re-raised unchanged when the engine returns.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Runs Python code from inside the engine, stashing any exception.
fn call_py<R>(f: impl FnOnce(Python<'_>) -> PyResult<R>) -> crate::error::Result<R> {
    Python::attach(|py| {
        f(py).map_err(|e| {
            let msg = e.to_string();
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            Error::runtime("", msg)
        })
    })
}

/// Converts an engine error, preferring a stashed Python exception.
pub fn engine_err(e: Error) -> PyErr {
    PENDING
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| e.into())
}

/// A value that may only be used on the thread that created it (graph objects).
struct Local<T> {
    v: T,
    owner: std::thread::ThreadId,
}

// SAFETY: only dereferenced on the owning thread (checked in `get`), and only under the
// GIL, so the non-atomic reference counts inside are never raced.
unsafe impl<T> Send for Local<T> {}
unsafe impl<T> Sync for Local<T> {}

impl<T> Local<T> {
    fn new(v: T) -> Self {
        Local {
            v,
            owner: std::thread::current().id(),
        }
    }
    fn get(&self) -> PyResult<&T> {
        if self.owner != std::thread::current().id() {
            return Err(PyRuntimeError::new_err(
                "autograd graph objects can only be used on the thread that created them",
            ));
        }
        Ok(&self.v)
    }
}

#[pyfunction]
/// is_grad_enabled() -> bool
///
/// Whether autograd currently records operations (see :class:`ferric.no_grad`).
///
/// Example:
///     >>> ferric.is_grad_enabled()
///     True
fn is_grad_enabled() -> bool {
    ag::is_grad_enabled()
}

#[pyfunction]
fn _set_grad_enabled(mode: bool) {
    ag::set_grad_enabled(mode);
}

/// Turns `inference_mode` on or off for this thread (`ferric.inference_mode` uses it).
#[pyfunction]
fn _set_inference_mode(mode: bool) {
    crate::storage::set_inference_mode(mode);
}

/// Whether `inference_mode` is on for this thread.
#[pyfunction]
fn _is_inference_mode_enabled() -> bool {
    crate::storage::inference_mode()
}

#[pyfunction]
/// is_anomaly_enabled() -> bool
///
/// Whether anomaly detection (:class:`ferric.autograd.detect_anomaly`) is on.
///
/// Example:
///     >>> ferric.is_anomaly_enabled()
///     False
fn is_anomaly_enabled() -> bool {
    ag::is_anomaly_enabled()
}

static TRACE_PROVIDER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn python_trace() -> Option<String> {
    Python::attach(|py| {
        let f = TRACE_PROVIDER.get(py)?;
        f.bind(py).call0().ok()?.extract::<String>().ok()
    })
}

#[pyfunction]
fn _set_anomaly_enabled(py: Python<'_>, mode: bool, trace_provider: Option<Py<PyAny>>) {
    if let Some(f) = trace_provider {
        let _ = TRACE_PROVIDER.set(py, f);
        ag::set_trace_provider(python_trace);
    }
    ag::set_anomaly_enabled(mode);
}

/// An identity for a tensor's autograd state (shared by all Python objects for the same
/// tensor, including `AccumulateGrad.variable`); None for a tensor without any.
#[pyfunction]
fn _autograd_id(t: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    let t = t
        .cast::<PyTensor>()
        .map_err(|_| PyTypeError::new_err("_autograd_id: expected a Tensor"))?;
    Ok(t.borrow().ag.get()?.map(|m| Rc::as_ptr(&m) as usize))
}

/// _profiler_start() -> None
///
/// Starts noting this thread's backward nodes for ``ferric.profiler``; the clock starts
/// now (see ``_profiler_stop``).
///
/// Example:
///     >>> ferric._core._profiler_start(); ferric._core._profiler_stop()
///     []
#[pyfunction]
fn _profiler_start() {
    ag::profile::start();
}

/// _profiler_stop() -> list[tuple[str, int, int]]
///
/// Stops noting backward nodes and returns ``(name, start_ns, end_ns)`` for each, in
/// nanoseconds since ``_profiler_start``.
///
/// Example:
///     >>> ferric._core._profiler_start(); ferric._core._profiler_stop()
///     []
#[pyfunction]
fn _profiler_stop() -> Vec<ag::profile::Span> {
    ag::profile::stop()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_profiler_start, m)?)?;
    m.add_function(wrap_pyfunction!(_profiler_stop, m)?)?;
    m.add_class::<PyNode>()?;
    m.add_class::<PyHandle>()?;
    m.add_class::<PySaved>()?;
    add_functions!(
        m,
        [
            backward::_run_backward,
            backward::_grad,
            is_grad_enabled,
            _set_grad_enabled,
            _set_inference_mode,
            _is_inference_mode_enabled,
            is_anomaly_enabled,
            _set_anomaly_enabled,
            function::_pack_saved,
            function::_record_function,
            _autograd_id
        ]
    )?;
    crate::python::tensor::alias_methods(m, &["detach"])?;
    Ok(())
}
