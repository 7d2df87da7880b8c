//! The single mapping from core errors to Python exceptions.

use crate::error::{Error, ErrorKind};
use pyo3::exceptions::{
    PyIndexError, PyKeyboardInterrupt, PyMemoryError, PyNotImplementedError, PyRuntimeError,
    PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};
use pyo3::PyErr;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e.kind {
            ErrorKind::Runtime => PyRuntimeError::new_err(e.msg),
            ErrorKind::Index => PyIndexError::new_err(e.msg),
            ErrorKind::Type => PyTypeError::new_err(e.msg),
            ErrorKind::Value => PyValueError::new_err(e.msg),
            ErrorKind::Memory => Python::attach(|py| match out_of_memory_type(py) {
                Ok(t) => PyErr::from_type(t.clone(), e.msg),
                Err(err) => err,
            }),
            ErrorKind::NotImplemented => PyNotImplementedError::new_err(e.msg),
            ErrorKind::LinAlg => Python::attach(|py| match linalg_error_type(py) {
                Ok(t) => PyErr::from_type(t.clone(), e.msg),
                Err(err) => err,
            }),
            // the SIGINT also reached the interpreter's own handler: running it now
            // raises what the user's handler raises (KeyboardInterrupt by default)
            ErrorKind::Interrupted => Python::attach(|py| match py.check_signals() {
                Err(err) => err,
                Ok(()) => PyKeyboardInterrupt::new_err(()),
            }),
        }
    }
}

/// A new exception class `name` (a dotted path: its module and class name) with the
/// docstring `doc`, deriving from `bases`.
fn new_exception_type(
    name: &std::ffi::CStr,
    doc: &std::ffi::CStr,
    bases: &Bound<'_, PyAny>,
) -> PyResult<Py<PyType>> {
    let py = bases.py();
    // SAFETY: the name and doc are NUL-terminated; `bases` is a live type object or tuple
    // of types; the new reference (or NULL with an exception set) is taken over at once.
    let t = unsafe {
        let p = pyo3::ffi::PyErr_NewExceptionWithDoc(
            name.as_ptr(),
            doc.as_ptr(),
            bases.as_ptr(),
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, p)?
    };
    Ok(t.cast_into::<PyType>()?.unbind())
}

/// `ferric.OutOfMemoryError`: raised when a buffer cannot be allocated. PyTorch's CPU
/// allocator raises `RuntimeError` ("DefaultCPUAllocator: can't allocate memory ..."), and
/// Python code catches `MemoryError`; the class derives from both so either works
/// (PyTorch's own `torch.OutOfMemoryError` is a `RuntimeError` too).
fn out_of_memory_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static OOM: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    OOM.get_or_try_init(py, || {
        let bases = PyTuple::new(
            py,
            [
                py.get_type::<PyRuntimeError>(),
                py.get_type::<PyMemoryError>(),
            ],
        )?;
        new_exception_type(
            c"ferric.OutOfMemoryError",
            c"Raised when ferric cannot allocate a tensor's memory.",
            bases.as_any(),
        )
    })
    .map(|t| t.bind(py))
}

/// The policy for a panic that still escapes library code (there should be none:
/// `tests/test_rust_hygiene.py` rejects every panic path it can find). pyo3 turns it into
/// `pyo3_runtime.PanicException`, a `BaseException` that `except Exception` misses, so a
/// bug would end the user's program; rebased on `RuntimeError` it is an ordinary error
/// that carries the panic's message, while tests can still tell it apart by its name.
fn panics_raise_runtime_error(py: Python<'_>) -> PyResult<()> {
    let panic = py.get_type::<pyo3::panic::PanicException>();
    panic.setattr("__bases__", (py.get_type::<PyRuntimeError>(),))
}

/// `ferric.linalg.LinAlgError` (PyTorch's `torch.linalg.LinAlgError`, a `RuntimeError`):
/// raised when a factorization fails (singular matrix, not positive-definite, no
/// convergence).
fn linalg_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static LINALG: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    LINALG
        .get_or_try_init(py, || {
            new_exception_type(
                c"ferric.linalg.LinAlgError",
                c"Error raised by ferric.linalg when a factorization fails.",
                py.get_type::<PyRuntimeError>().as_any(),
            )
        })
        .map(|t| t.bind(py))
}

/// Adds `OutOfMemoryError` and `_LinAlgError` (re-exported as `ferric.linalg.LinAlgError`)
/// to the module, and sets the panic policy.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    panics_raise_runtime_error(m.py())?;
    m.add("OutOfMemoryError", out_of_memory_type(m.py())?)?;
    m.add("_LinAlgError", linalg_error_type(m.py())?)
}
