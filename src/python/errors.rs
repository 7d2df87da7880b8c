//! The single mapping from core errors to Python exceptions.

use crate::error::{Error, ErrorKind};
use pyo3::exceptions::{
    PyIndexError, PyMemoryError, PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::PyErr;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e.kind {
            ErrorKind::Runtime => PyRuntimeError::new_err(e.msg),
            ErrorKind::Index => PyIndexError::new_err(e.msg),
            ErrorKind::Type => PyTypeError::new_err(e.msg),
            ErrorKind::Value => PyValueError::new_err(e.msg),
            ErrorKind::Memory => PyMemoryError::new_err(e.msg),
            ErrorKind::NotImplemented => PyNotImplementedError::new_err(e.msg),
        }
    }
}
