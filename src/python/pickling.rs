//! `Tensor.__reduce_ex__` / `__deepcopy__`: thin hooks into `ferric._pickle`, where the
//! (versioned) pickle format lives in Python next to NumPy, which serialises the data.

use crate::python::tensor::PyTensor;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn pickle_fn<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("ferric._pickle")?.getattr(name)
}

#[pymethods]
impl PyTensor {
    /// Pickling and `copy.copy` (see `ferric/_pickle.py`).
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyAny>> {
        pickle_fn(slf.py(), "_reduce_tensor")?.call1((slf, protocol))
    }

    /// `copy.deepcopy`: new memory; also copies `.grad`, as PyTorch does.
    fn __deepcopy__<'py>(
        slf: &Bound<'py, Self>,
        memo: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        pickle_fn(slf.py(), "_deepcopy_tensor")?.call1((slf, memo))
    }
}
