//! `Tensor`'s read-only attributes and queries: shape, size, stride, dtype, ndim,
//! numel, contiguity, device.

use crate::python::convert::PyDType;
use crate::python::memory_format::{memory_format_arg, MemoryFormat};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::*;

#[pymethods]
impl PyTensor {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        size_obj(py, self.t.shape())
    }

    #[pyo3(signature = (dim=None))]
    /// size(dim=None) -> Size or int
    ///
    /// Returns the shape as a :class:`ferric.Size`, or the size of dimension ``dim``.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.zeros(2, 3).size()
    ///     ferric.Size([2, 3])
    ///     >>> ferric.zeros(2, 3).size(-1)
    ///     3
    fn size<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => size_obj(py, self.t.shape()),
            Some(d) => {
                no_dims_check(&self.t, d)?;
                let d = crate::shape::normalize_dim(d, self.t.ndim())?;
                Ok(self.t.shape()[d].into_pyobject(py)?.into_any())
            }
        }
    }

    #[pyo3(signature = (dim=None))]
    /// stride(dim=None) -> tuple or int
    ///
    /// The strides (in elements) of all dimensions, or of dimension ``dim``.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.zeros(2, 3).stride()
    ///     (3, 1)
    fn stride<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        match dim {
            None => Ok(PyTuple::new(py, self.t.strides())?.into_any()),
            Some(d) => {
                no_dims_check(&self.t, d)?;
                let d = crate::shape::normalize_dim(d, self.t.ndim())?;
                Ok(self.t.strides()[d].into_pyobject(py)?.into_any())
            }
        }
    }

    /// storage_offset() -> int
    ///
    /// The offset of the tensor's first element in its storage, in elements.
    ///
    /// Example:
    ///     >>> ferric.arange(6)[2:].storage_offset()
    ///     2
    fn storage_offset(&self) -> usize {
        self.t.layout.offset
    }

    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType { d: self.t.dtype() }
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.t.ndim()
    }
    /// dim() -> int
    ///
    /// Returns the number of dimensions.
    ///
    /// Example:
    ///     >>> ferric.zeros(2, 3).dim()
    ///     2
    fn dim(&self) -> usize {
        self.t.ndim()
    }
    /// ndimension() -> int
    ///
    /// Alias for :meth:`Tensor.dim`.
    ///
    /// Example:
    ///     >>> ferric.zeros(2, 3).ndimension()
    ///     2
    fn ndimension(&self) -> usize {
        self.t.ndim()
    }
    /// numel(input) -> int
    ///
    /// Returns the number of elements.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.numel(ferric.zeros(2, 3))
    ///     6
    fn numel(&self) -> usize {
        self.t.numel()
    }
    /// nelement() -> int
    ///
    /// Alias for :meth:`Tensor.numel`.
    ///
    /// Example:
    ///     >>> ferric.zeros(2, 3).nelement()
    ///     6
    fn nelement(&self) -> usize {
        self.t.numel()
    }
    /// element_size() -> int
    ///
    /// Returns the size of one element in bytes.
    ///
    /// Example:
    ///     >>> ferric.zeros(1, dtype=ferric.float64).element_size()
    ///     8
    fn element_size(&self) -> usize {
        self.t.dtype().size_of()
    }
    /// is_floating_point() -> bool
    ///
    /// Whether the tensor's dtype is a floating-point one.
    ///
    /// Example:
    ///     >>> ferric.zeros(1).is_floating_point()
    ///     True
    fn is_floating_point(&self) -> bool {
        self.t.dtype().is_float()
    }
    /// is_complex(input) -> bool
    ///
    /// Whether ``input``'s dtype is complex; always False, ferric has no complex dtypes.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.is_complex(ferric.zeros(1))
    ///     False
    fn is_complex(&self) -> bool {
        false
    }
    #[pyo3(signature = (memory_format=None))]
    /// is_contiguous(memory_format=ferric.contiguous_format) -> bool
    ///
    /// Whether the tensor is laid out contiguously in ``memory_format`` (row-major by default).
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.zeros(2, 3).t().is_contiguous()
    ///     False
    fn is_contiguous(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        Ok(
            memory_format_arg("is_contiguous", memory_format, MemoryFormat::Contiguous)?
                .holds(&self.t.layout),
        )
    }
    /// data_ptr() -> int
    ///
    /// Returns the address of the tensor's first element.
    ///
    /// Example:
    ///     >>> ferric.zeros(2).data_ptr() != 0
    ///     True
    fn data_ptr(&self) -> usize {
        self.t.storage.as_ptr() as usize + self.t.layout.offset * self.t.dtype().size_of()
    }
    #[getter]
    fn device<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::python::device::cpu_device(py)
    }
    #[getter]
    fn is_cuda(&self) -> bool {
        false
    }
}
