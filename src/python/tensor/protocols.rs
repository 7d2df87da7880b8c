//! `Tensor`'s Python protocols: `item`, `tolist`, `len`, iteration, truth value,
//! number conversions, `repr`/`format`, and the NumPy array interface.

use crate::dtype::Scalar;
use crate::python::convert;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::*;

#[pymethods]
impl PyTensor {
    /// item() -> number
    ///
    /// Returns the value of a one-element tensor as a Python number.
    ///
    /// Example:
    ///     >>> ferric.tensor([2.5]).item()
    ///     2.5
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        scalar_to_py(
            py,
            self.t.item().map_err(|_| {
                PyRuntimeError::new_err(format!(
                    "a Tensor with {} elements cannot be converted to Scalar",
                    self.t.numel()
                ))
            })?,
        )
    }

    /// tolist() -> list or number
    ///
    /// Returns the elements as (nested) Python lists of numbers.
    ///
    /// Example:
    ///     >>> ferric.tensor([[1, 2], [3, 4]]).tolist()
    ///     [[1, 2], [3, 4]]
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_pylist(py, &self.t)
    }

    fn __len__(&self) -> PyResult<usize> {
        if self.t.ndim() == 0 {
            return Err(PyTypeError::new_err("len() of a 0-d tensor"));
        }
        Ok(self.t.shape()[0])
    }

    /// Iterates over the first dim (differentiable views, like `unbind(0)`).
    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        if slf.borrow().t.ndim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d tensor"));
        }
        slf.call_method1("unbind", (0,))?
            .try_iter()
            .map(|i| i.into_any())
    }

    fn __bool__(&self) -> PyResult<bool> {
        match self.t.numel() {
            0 => Err(PyRuntimeError::new_err(
                "Boolean value of Tensor with no values is ambiguous",
            )),
            1 => Ok(self.t.item()?.to_bool()),
            _ => Err(PyRuntimeError::new_err(
                "Boolean value of Tensor with more than one value is ambiguous",
            )),
        }
    }
    fn __float__(&self) -> PyResult<f64> {
        Ok(one_element(&self.t)?.to_f64())
    }
    fn __int__(&self) -> PyResult<i64> {
        let s = one_element(&self.t)?;
        if let Scalar::Float(f) = s {
            if !f.is_finite() {
                return Err(PyValueError::new_err(format!(
                    "cannot convert float {f} to integer"
                )));
            }
        }
        Ok(s.to_i64())
    }
    fn __index__(&self) -> PyResult<i64> {
        if self.t.dtype().is_float() || self.t.numel() != 1 {
            return Err(PyTypeError::new_err(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(one_element(&self.t)?.to_i64())
    }
    fn __hash__(slf: &Bound<'_, Self>) -> isize {
        slf.as_ptr() as isize
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        match REPR_FN.get(py) {
            Some(f) => f.bind(py).call1((slf,))?.extract(),
            None => Ok(format!(
                "tensor(<{} {:?}>)",
                slf.borrow().t.dtype(),
                slf.borrow().t.shape()
            )),
        }
    }

    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        let t = slf.borrow().t.clone();
        if t.ndim() == 0 && !spec.is_empty() {
            let v = scalar_to_py(slf.py(), t.item()?)?;
            return v.call_method1("__format__", (spec,))?.extract();
        }
        Self::__repr__(slf)
    }

    /// NumPy view of the same memory (`np.asarray(t)`).
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        refuse_if_requires_grad(slf)?;
        let arr = numpy_view(slf)?;
        let np = py.import("numpy")?;
        let mut out = arr;
        if let Some(d) = dtype {
            out = out.call_method1("astype", (d,))?;
        }
        if copy == Some(true) {
            out = np.call_method1("array", (out,))?;
        }
        Ok(out)
    }

    #[classattr]
    fn __array_priority__() -> i64 {
        1000
    }

    #[pyo3(signature = (*, force=false))]
    /// numpy(*, force=False) -> numpy.ndarray
    ///
    /// Returns a NumPy array sharing the tensor's memory. Tensors that require grad raise unless
    /// ``force=True`` (which detaches first).
    ///
    /// Args:
    ///     force (bool): detach (and copy if needed) instead of raising.
    ///
    /// Example:
    ///     >>> ferric.tensor([1, 2]).numpy()
    ///     array([1, 2])
    fn numpy<'py>(slf: &Bound<'py, Self>, force: bool) -> PyResult<Bound<'py, PyAny>> {
        if !force {
            refuse_if_requires_grad(slf)?;
        }
        let arr = numpy_view(slf)?;
        if force {
            return arr.call_method0("copy");
        }
        Ok(arr)
    }
}

/// PyTorch refuses a NumPy view of a tensor that requires grad: the array would escape
/// the graph silently.
fn refuse_if_requires_grad(slf: &Bound<'_, PyTensor>) -> PyResult<()> {
    if slf.borrow().requires_grad()? {
        return Err(PyRuntimeError::new_err(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        ));
    }
    Ok(())
}

/// Builds a NumPy array over the tensor's memory; the array keeps the tensor alive.
fn numpy_view<'py>(slf: &Bound<'py, PyTensor>) -> PyResult<Bound<'py, PyAny>> {
    let py = slf.py();
    let t = slf.borrow().t.clone();
    let iface = convert::array_interface(py, &t)?;
    let holder = py.import("types")?.getattr("SimpleNamespace")?;
    let kw = PyDict::new(py);
    kw.set_item("__array_interface__", iface)?;
    kw.set_item("_tensor", slf)?;
    let obj = holder.call((), Some(&kw))?;
    py.import("numpy")?.call_method1("asarray", (obj,))
}
