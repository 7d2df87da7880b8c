//! `Tensor`'s copies and conversions: `cpu`, `contiguous`, `clone`, `to`, and the
//! dtype shorthands (`float()`, `long()`, ...).

use crate::dtype::DType;
use crate::python::convert::{dtype_arg, PyDType};
use crate::python::memory_format::{memory_format_arg, MemoryFormat};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::*;

#[pymethods]
impl PyTensor {
    /// cpu() -> Tensor
    ///
    /// Returns the tensor itself: ferric tensors always live on the CPU.
    ///
    /// Example:
    ///     >>> ferric.ones(1).cpu().device
    ///     device(type='cpu')
    fn cpu(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (memory_format=None))]
    /// contiguous(memory_format=ferric.contiguous_format) -> Tensor
    ///
    /// Returns the tensor itself if it is already laid out in ``memory_format``, else a copy that
    /// is.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.arange(4).reshape(2, 2).t().contiguous().stride()
    ///     (2, 1)
    fn contiguous(
        slf: Bound<'_, Self>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let f = memory_format_arg("contiguous", memory_format, MemoryFormat::Contiguous)?;
        let v = slf.borrow().var()?;
        if f.holds(&v.t.layout) {
            return Ok(slf.into_any().unbind());
        }
        if f == MemoryFormat::Preserve {
            return Err(PyRuntimeError::new_err(
                "preserve memory format is unsupported by the contiguous operator",
            ));
        }
        let r = crate::autograd::unary::clone_in(&v, &f.order(&v.t.layout)?)?;
        Ok(wrap_var(slf.py(), r)?.into_any())
    }

    #[pyo3(signature = (memory_format=None))]
    /// clone(input, *, memory_format=ferric.preserve_format) -> Tensor
    ///
    /// Returns a copy of ``input`` with its own memory; the copy stays in the autograd graph.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1., 2.])
    ///     >>> y = ferric.clone(x)
    ///     >>> y.add_(1), x
    ///     (tensor([2., 3.]), tensor([1., 2.]))
    fn clone(
        &self,
        py: Python<'_>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let f = memory_format_arg("clone", memory_format, MemoryFormat::Preserve)?;
        let v = self.var()?;
        wrap_var(
            py,
            crate::autograd::unary::clone_in(&v, &f.order(&v.t.layout)?)?,
        )
    }

    /// to(*args, **kwargs) -> Tensor
    ///
    /// Returns the tensor converted to a dtype and/or device: ``to(dtype)``, ``to(other)`` (the
    /// dtype and device of the tensor ``other``), ``to("cpu")``, ``to("cpu", dtype)``. Returns
    /// the tensor itself when nothing changes, unless ``copy=True``.
    ///
    /// Args:
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type.
    ///     device (:class:`ferric.device`, optional): the desired device (only ``'cpu'``).
    ///     other (Tensor, optional): take the dtype and device from this tensor.
    ///     non_blocking (bool): accepted for compatibility (CPU copies are synchronous).
    ///     copy (bool): return a new tensor even when nothing changes. Default: False.
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1.5, -2.0])
    ///     >>> x.to(ferric.int64)
    ///     tensor([ 1, -2])
    ///     >>> x.to('cpu') is x
    ///     True
    ///     >>> x.to(ferric.zeros(1, dtype=ferric.float64))
    ///     tensor([ 1.5000, -2.0000], dtype=ferric.float64)
    ///     >>> x.to(copy=True) is x
    ///     False
    #[pyo3(signature = (*args, dtype=None, copy=false, non_blocking=false, device=None, memory_format=None))]
    #[allow(clippy::too_many_arguments)]
    fn to(
        slf: Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        copy: bool,
        non_blocking: bool,
        device: Option<&Bound<'_, PyAny>>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let format = memory_format_arg("to", memory_format, MemoryFormat::Preserve)?;
        let _ = non_blocking;
        let mut target: Option<DType> = dtype.map(dtype_arg).transpose()?;
        let mut dev = device.cloned();
        for a in args.iter() {
            if let Some(o) = as_tensor_ref(&a) {
                target = Some(o.dtype());
            } else if a.cast::<PyDType>().is_ok() {
                target = Some(dtype_arg(&a)?);
            } else {
                dev = Some(a);
            }
        }
        if let Some(d) = &dev {
            crate::python::device::check_device(Some(d))?;
        }
        let v = slf.borrow().var()?;
        let d = target.unwrap_or(v.t.dtype());
        // a copy is needed for a new dtype, a layout the tensor lacks, or copy=True
        let relayout = format != MemoryFormat::Preserve && !format.holds(&v.t.layout);
        if d == v.t.dtype() && !copy && !relayout {
            return Ok(slf.into_any().unbind());
        }
        let order = format.order(&v.t.layout)?;
        let r = if d == v.t.dtype() {
            crate::autograd::unary::clone_in(&v, &order)?
        } else {
            crate::autograd::unary::to_dtype_in(&v, d, &order)?
        };
        Ok(wrap_var(slf.py(), r)?.into_any())
    }

    /// float(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.float()`` is ``self.to(ferric.float32)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1, 2]).float()
    ///     tensor([1., 2.])
    fn float(slf: Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::F32)
    }
    /// double(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.double()`` is ``self.to(ferric.float64)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1, 2]).double()
    ///     tensor([1., 2.], dtype=ferric.float64)
    fn double(slf: Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::F64)
    }
    /// long(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.long()`` is ``self.to(ferric.int64)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.7, -2.5]).long()
    ///     tensor([ 1, -2])
    fn long(slf: Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::I64)
    }
    /// bool(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.bool()`` is ``self.to(ferric.bool)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([0., 2.]).bool()
    ///     tensor([False,  True])
    fn bool(slf: Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        cast_to(slf, DType::Bool)
    }
    #[pyo3(signature = (memory_format=None))]
    /// int(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.int()`` is ``self.to(ferric.int32)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.7, -2.5]).int()
    ///     tensor([ 1, -2], dtype=ferric.int32)
    fn int(slf: Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = memory_format; // the result keeps the input's memory order
        cast_to(slf, DType::I32)
    }
    #[pyo3(signature = (memory_format=None))]
    /// short(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.short()`` is ``self.to(ferric.int16)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.7]).short()
    ///     tensor([1], dtype=ferric.int16)
    fn short(
        slf: Bound<'_, Self>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = memory_format; // the result keeps the input's memory order
        cast_to(slf, DType::I16)
    }
    #[pyo3(signature = (memory_format=None))]
    /// char(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.char()`` is ``self.to(ferric.int8)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.7, -2.0]).char()
    ///     tensor([ 1, -2], dtype=ferric.int8)
    fn char(slf: Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = memory_format; // the result keeps the input's memory order
        cast_to(slf, DType::I8)
    }
    #[pyo3(signature = (memory_format=None))]
    /// byte(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.byte()`` is ``self.to(ferric.uint8)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.7, 2.0]).byte()
    ///     tensor([1, 2], dtype=ferric.uint8)
    fn byte(slf: Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = memory_format; // the result keeps the input's memory order
        cast_to(slf, DType::U8)
    }
    #[pyo3(signature = (memory_format=None))]
    /// half(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.half()`` is ``self.to(ferric.float16)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.5]).half()
    ///     tensor([1.5000], dtype=ferric.float16)
    fn half(slf: Bound<'_, Self>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = memory_format; // the result keeps the input's memory order
        cast_to(slf, DType::F16)
    }
    #[pyo3(signature = (memory_format=None))]
    /// bfloat16(memory_format=ferric.preserve_format) -> Tensor
    ///
    /// ``self.bfloat16()`` is ``self.to(ferric.bfloat16)``.
    ///
    /// Args:
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the
    ///         result.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.5]).bfloat16()
    ///     tensor([1.5000], dtype=ferric.bfloat16)
    fn bfloat16(
        slf: Bound<'_, Self>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = memory_format; // the result keeps the input's memory order
        cast_to(slf, DType::BF16)
    }
    /// type_as(other) -> Tensor
    ///
    /// ``self.to(other.dtype)``.
    ///
    /// Args:
    ///     other (Tensor): the tensor whose dtype to use.
    ///
    /// Example:
    ///     >>> ferric.tensor([1, 2]).type_as(ferric.zeros(1))
    ///     tensor([1., 2.])
    fn type_as(slf: Bound<'_, Self>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyAny>> {
        let d = other.t.dtype();
        cast_to(slf, d)
    }
}

fn cast_to(slf: Bound<'_, PyTensor>, d: DType) -> PyResult<Py<PyAny>> {
    let v = slf.borrow().var()?;
    if v.t.dtype() == d {
        return Ok(slf.into_any().unbind());
    }
    Ok(wrap_var(slf.py(), crate::autograd::unary::to_dtype(&v, d)?)?.into_any())
}
