//! `set_num_threads` / `get_num_threads`: the size of ferric's kernel pool.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// Sets the number of threads ferric's kernels use (like `torch.set_num_threads`).
#[pyfunction]
fn set_num_threads(n: &Bound<'_, PyAny>) -> PyResult<()> {
    if !n.is_instance_of::<PyInt>() || n.is_instance_of::<PyBool>() {
        let got = n.get_type().name()?;
        return Err(PyRuntimeError::new_err(format!(
            "set_num_threads expects an int, but got {got}"
        )));
    }
    let n: i64 = n.extract()?;
    let n = usize::try_from(n).unwrap_or(0);
    Ok(crate::threads::set_num_threads(n)?)
}

/// The number of threads ferric's kernels use.
#[pyfunction]
fn get_num_threads() -> usize {
    crate::threads::num_threads()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    Ok(())
}
