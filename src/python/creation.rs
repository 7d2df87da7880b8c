//! Tensor factories: `tensor`, `from_numpy`, `zeros`/`ones`/`full`/`empty` (+ `_like`),
//! `arange`, `linspace`, `logspace`, `eye`, and the `Tensor(...)` constructor.

use crate::dtype::{DType, Scalar};
use crate::error::Error;
use crate::python::convert::{dtype_arg, from_numpy_any, is_ndarray, scalar_arg, size_args};
use crate::python::data::tensor_from_data;
use crate::python::out::{check_out, out_arg, write_out};
use crate::python::tensor::{as_tensor_ref, PyTensor};
use crate::shape::to_dims;
use crate::storage::try_vec_from_fn;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The class's constructor sits with the other factories: it reads nested data
/// (`data.rs`), which builds on the class, not the other way round.
#[pymethods]
impl PyTensor {
    /// `ferric.Tensor(data)` / `ferric.Tensor(*sizes)`: like `torch.Tensor`, always float32.
    #[new]
    #[pyo3(signature = (*args))]
    fn py_new(args: &Bound<'_, PyTuple>) -> PyResult<Self> {
        if args.is_empty() {
            return Ok(PyTensor::new(Tensor::zeros(
                "Tensor",
                &[0],
                crate::dtype::default_float(),
            )?));
        }
        let first = args.get_item(0)?;
        if args.len() == 1 && !first.is_instance_of::<pyo3::types::PyInt>() {
            return Ok(PyTensor::new(tensor_from_data(
                &first,
                Some(crate::dtype::default_float()),
            )?));
        }
        let sizes = size_args(args)?;
        let dims = crate::shape::to_dims("Tensor", &sizes)?;
        Ok(PyTensor::new(Tensor::zeros(
            "Tensor",
            &dims,
            crate::dtype::default_float(),
        )?))
    }
}

/// Wraps `t` and applies the common factory keywords.
pub fn finish(
    py: Python<'_>,
    t: Tensor,
    requires_grad: bool,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    check_device(device)?;
    if requires_grad && !t.dtype().is_float() {
        return Err(PyRuntimeError::new_err(
            "Only Tensors of floating point and complex dtype can require gradients",
        ));
    }
    Py::new(
        py,
        PyTensor::from_var(crate::autograd::Var::leaf(t, requires_grad)?),
    )
}

pub use crate::python::device::check_device;

/// A factory's `dtype=` and `out=` together: the dtype to build in (the explicit one,
/// else out's, else the factory's default) and the tensor to write into, checked before
/// anything is computed.
struct Target<'py> {
    op: &'static str,
    dtype: Option<DType>,
    out: Option<Bound<'py, PyTensor>>,
}

fn target<'py>(
    op: &'static str,
    dtype: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Target<'py>> {
    let explicit = opt_dtype(dtype)?;
    let out = out_arg(op, out)?;
    if let Some(o) = &out {
        check_out(op, o, explicit)?;
    }
    let dtype = explicit.or_else(|| out.as_ref().map(|o| o.borrow().t.dtype()));
    Ok(Target { op, dtype, out })
}

impl Target<'_> {
    /// The new tensor, or `out` holding its values.
    fn finish(
        self,
        py: Python<'_>,
        t: Tensor,
        requires_grad: bool,
        device: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        match self.out {
            None => Ok(finish(py, t, requires_grad, device)?.into_any()),
            Some(o) => {
                check_device(device)?;
                write_out(self.op, &o, &t)
            }
        }
    }
}

fn opt_dtype(d: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match d {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => Ok(Some(dtype_arg(o)?)),
    }
}

#[pyfunction]
#[pyo3(signature = (data, *, dtype=None, device=None, requires_grad=false, pin_memory=false))]
/// tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor
///
/// Builds a new tensor by copying ``data``; the dtype is inferred (bool, int64 or the default float
/// dtype) unless given.
///
/// Args:
///     data (array_like): a number, (nested) list or tuple, NumPy array or tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///     pin_memory (bool): accepted for compatibility; has no effect on the CPU.
///
/// Example:
///     >>> ferric.tensor([[1, 2], [3, 4]])
///     tensor([[1, 2],
///             [3, 4]])
///     >>> ferric.tensor([1.5, 2])
///     tensor([1.5000, 2.0000])
fn tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = pin_memory;
    let t = tensor_from_data(data, opt_dtype(dtype)?)?;
    finish(py, t, requires_grad, device)
}

/// as_tensor(data, dtype=None, device=None) -> Tensor
///
/// Converts ``data`` to a tensor like :func:`ferric.tensor`, but shares memory with a tensor
/// or NumPy array when the dtype (and device) allow it, instead of copying.
///
/// Args:
///     data (array_like): a tensor, NumPy array, sequence or scalar.
///     dtype (:class:`ferric.dtype`, optional): the desired data type; a different one copies.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///
/// Example:
///     >>> import numpy as np
///     >>> a = np.array([1, 2, 3])
///     >>> t = ferric.as_tensor(a)
///     >>> t[0] = -1
///     >>> a
///     array([-1,  2,  3])
#[pyfunction]
#[pyo3(signature = (data, dtype=None, device=None))]
fn as_tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    check_device(device)?;
    let d = opt_dtype(dtype)?;
    if let Some(t) = as_tensor_ref(data) {
        if d.is_none_or(|d| d == t.dtype()) {
            return Ok(data.clone().unbind());
        }
        return Ok(Py::new(py, PyTensor::new(t.copy_as(d.unwrap_or(t.dtype()))?))?.into_any());
    }
    if is_ndarray(data) {
        let t = from_numpy_any(data, true)?;
        let t = match d {
            Some(d) => t.to_dtype(d)?,
            None => t,
        };
        return Ok(Py::new(py, PyTensor::new(t))?.into_any());
    }
    Ok(Py::new(py, PyTensor::new(tensor_from_data(data, d)?))?.into_any())
}

#[pyfunction]
/// from_numpy(ndarray) -> Tensor
///
/// Returns a tensor sharing memory with the NumPy array: changes to one show in the other.
///
/// Args:
///     ndarray (numpy.ndarray): the array to share memory with.
///
/// Example:
///     >>> import numpy as np
///     >>> a = np.array([1, 2])
///     >>> t = ferric.from_numpy(a)
///     >>> a[0] = 5
///     >>> t
///     tensor([5, 2])
fn from_numpy(py: Python<'_>, ndarray: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
    if !is_ndarray(ndarray) {
        return Err(PyTypeError::new_err(format!(
            "expected np.ndarray (got {})",
            crate::python::convert::type_name(ndarray)
        )));
    }
    Py::new(py, PyTensor::new(from_numpy_any(ndarray, false)?))
}

#[pyfunction]
#[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
/// zeros(*size, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor of shape ``size`` filled with zeros.
///
/// Args:
///     size (int...): the shape of the result, as separate ints or one sequence.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.zeros(2, 3)
///     tensor([[0., 0., 0.],
///             [0., 0., 0.]])
fn zeros(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("zeros", dtype, out)?;
    let dims = to_dims("zeros", &size_args(size)?)?;
    let t = Tensor::zeros(
        "zeros",
        &dims,
        tg.dtype.unwrap_or_else(crate::dtype::default_float),
    )?;
    tg.finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
/// ones(*size, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor of shape ``size`` filled with ones.
///
/// Args:
///     size (int...): the shape of the result, as separate ints or one sequence.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.ones(2, 3)
///     tensor([[1., 1., 1.],
///             [1., 1., 1.]])
fn ones(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("ones", dtype, out)?;
    let dims = to_dims("ones", &size_args(size)?)?;
    let t = Tensor::full(
        "ones",
        &dims,
        Scalar::Int(1),
        tg.dtype.unwrap_or_else(crate::dtype::default_float),
    )?;
    tg.finish(py, t, requires_grad, device)
}

/// empty(*size, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, memory_format=ferric.contiguous_format) -> Tensor
///
/// Returns a tensor of shape ``size`` whose values are not to be relied on. ferric hands out
/// zero-filled memory: reading uninitialised memory is never useful and calloc'd pages cost
/// nothing until touched.
///
/// Args:
///     size (int...): the shape of the result, as separate ints or one sequence.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result. Default: False.
///     pin_memory (bool): accepted for compatibility (CPU memory is never pinned).
///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
///
/// Example:
///     >>> ferric.empty(2, 3).shape
///     ferric.Size([2, 3])
///     >>> ferric.empty((2,), dtype=ferric.int32).dtype
///     ferric.int32
#[pyfunction]
#[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false, layout=None, out=None, pin_memory=false, memory_format=None))]
#[allow(clippy::too_many_arguments)]
fn empty(
    py: Python<'_>,
    size: &Bound<'_, PyTuple>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    pin_memory: bool,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    use super::memory_format::{memory_format_arg, MemoryFormat};
    let _ = (layout, pin_memory);
    let tg = target("empty", dtype, out)?;
    let dims = to_dims("empty", &size_args(size)?)?;
    let f = memory_format_arg("empty", memory_format, MemoryFormat::Contiguous)?;
    let order = f.order(&crate::layout::Layout::contiguous(&dims))?;
    let t = Tensor::zeros(
        "empty",
        &dims,
        tg.dtype.unwrap_or_else(crate::dtype::default_float),
    )?
    .in_order(&order);
    tg.finish(py, t, requires_grad, device)
}

/// The fill value of `full`. A Python int beyond int64 fills a floating-point tensor
/// (rounded) and is refused for the others, as in PyTorch.
fn fill_scalar(v: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Scalar> {
    if let Some(s) = scalar_arg(v) {
        return Ok(s);
    }
    if v.is_instance_of::<pyo3::types::PyInt>() && !v.is_instance_of::<pyo3::types::PyBool>() {
        // beyond what PyTorch's Scalar holds (int64 and uint64): Python's own error
        let in_u64 = v.extract::<u64>().is_ok();
        if !in_u64 {
            return Err(pyo3::exceptions::PyOverflowError::new_err(
                "Python int too large to convert to C long",
            ));
        }
        return match dtype {
            Some(d) if d.is_float() => Ok(Scalar::Float(v.extract::<f64>()?)),
            _ => Err(PyRuntimeError::new_err(
                "value cannot be converted to type int64_t without overflow",
            )),
        };
    }
    if let Some(t) = as_tensor_ref(v) {
        if t.numel() == 1 {
            return Ok(t.item()?);
        }
    }
    Err(PyTypeError::new_err(format!(
        "full(): argument 'fill_value' must be Number, not {}",
        crate::python::convert::type_name(v)
    )))
}

#[pyfunction]
#[pyo3(signature = (size, fill_value, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
/// full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor of shape ``size`` filled with ``fill_value``; the dtype is inferred from the
/// value (bool, int64 or the default float dtype) unless given.
///
/// Args:
///     size (tuple of ints): the shape of the result.
///     fill_value (Number): the value to fill the result with.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.full((2, 2), 7)
///     tensor([[7, 7],
///             [7, 7]])
fn full(
    py: Python<'_>,
    size: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("full", dtype, out)?;
    let dims = to_dims("full", &crate::python::convert::int_list(size, "size")?)?;
    let v = fill_scalar(fill_value, tg.dtype)?;
    let d = tg.dtype.unwrap_or(v.dtype());
    let t = Tensor::full("full", &dims, v, d)?;
    tg.finish(py, t, requires_grad, device)
}

/// A fresh tensor shaped like `input`, filled with `value`, of `dtype` (default the
/// input's) and laid out as `memory_format` says (default `preserve_format`): the
/// `*_like` factories, and the random ones before they fill it in memory order.
pub fn like(
    op: &str,
    input: &Tensor,
    value: Scalar,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Tensor> {
    use super::memory_format::{memory_format_arg, MemoryFormat};
    let d = opt_dtype(dtype)?.unwrap_or(input.dtype());
    let order =
        memory_format_arg(op, memory_format, MemoryFormat::Preserve)?.order(&input.layout)?;
    Ok(Tensor::full(op, input.shape(), value, d)?.in_order(&order))
}

#[pyfunction]
#[pyo3(signature = (input, *, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
/// zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=ferric.preserve_format) -> Tensor
///
/// Returns a tensor of zeros shaped like ``input`` (and of its dtype unless given).
///
/// Args:
///     input (Tensor): the input tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
///
/// Example:
///     >>> ferric.zeros_like(ferric.ones(2, 2))
///     tensor([[0., 0.],
///             [0., 0.]])
fn zeros_like(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let _ = layout;
    finish(
        py,
        like("zeros_like", &input.t, Scalar::Int(0), dtype, memory_format)?,
        requires_grad,
        device,
    )
}

#[pyfunction]
#[pyo3(signature = (input, *, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
/// empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=ferric.preserve_format) -> Tensor
///
/// Returns an uninitialised tensor shaped like ``input``. ferric hands out zero-filled memory
/// (reading uninitialised memory is never useful); do not rely on it.
///
/// Args:
///     input (Tensor): the input tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
///
/// Example:
///     >>> ferric.empty_like(ferric.ones(2, 3)).shape
///     ferric.Size([2, 3])
fn empty_like(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let _ = layout;
    finish(
        py,
        like("empty_like", &input.t, Scalar::Int(0), dtype, memory_format)?,
        requires_grad,
        device,
    )
}

#[pyfunction]
#[pyo3(signature = (input, *, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
/// ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=ferric.preserve_format) -> Tensor
///
/// Returns a tensor of ones shaped like ``input`` (and of its dtype unless given).
///
/// Args:
///     input (Tensor): the input tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
///
/// Example:
///     >>> ferric.ones_like(ferric.zeros(2, dtype=ferric.int64))
///     tensor([1, 1])
fn ones_like(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let _ = layout;
    finish(
        py,
        like("ones_like", &input.t, Scalar::Int(1), dtype, memory_format)?,
        requires_grad,
        device,
    )
}

#[pyfunction]
#[pyo3(signature = (input, fill_value, *, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
#[allow(clippy::too_many_arguments)]
/// full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=ferric.preserve_format) -> Tensor
///
/// Returns a tensor shaped like ``input`` (and of its dtype unless given) filled with
/// ``fill_value``.
///
/// Args:
///     input (Tensor): the input tensor.
///     fill_value (Number): the value to fill the result with.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
///
/// Example:
///     >>> ferric.full_like(ferric.zeros(2), 3.5)
///     tensor([3.5000, 3.5000])
fn full_like(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let _ = layout;
    finish(
        py,
        like(
            "full_like",
            &input.t,
            fill_scalar(fill_value, None)?,
            dtype,
            memory_format,
        )?,
        requires_grad,
        device,
    )
}

fn number(op: &str, o: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    fill_scalar(o, None)
        .map_err(|_| PyTypeError::new_err(format!("{op}(): arguments must be numbers")))
}

/// arange(start=0, end, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a 1-D tensor of the values from ``start`` (inclusive) to ``end`` (exclusive) in
/// steps of ``step``: ``arange(end)`` or ``arange(start, end, step=1)``. The result is int64
/// when every argument is an int, else the default floating dtype.
///
/// Args:
///     start (Number): the first value (the end, when it is the only argument). Default: 0.
///     end (Number): the bound, not included.
///     step (Number): the gap between neighbouring values. Default: 1.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result. Default: False.
///
/// Example:
///     >>> ferric.arange(5)
///     tensor([0, 1, 2, 3, 4])
///     >>> ferric.arange(1, 4)
///     tensor([1, 2, 3])
///     >>> ferric.arange(1, 2.5, 0.5)
///     tensor([1.0000, 1.5000, 2.0000])
#[pyfunction]
#[pyo3(signature = (start, end=None, step=None, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
fn arange(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("arange", dtype, out)?;
    let (s, e) = match end {
        Some(e) if !e.is_none() => (number("arange", start)?, number("arange", e)?),
        _ => (Scalar::Int(0), number("arange", start)?),
    };
    let st = match step {
        Some(x) if !x.is_none() => number("arange", x)?,
        _ => Scalar::Int(1),
    };
    let all_int = [s, e, st].iter().all(|v| !matches!(v, Scalar::Float(_)));
    let d = tg.dtype.unwrap_or(if all_int {
        DType::I64
    } else {
        crate::dtype::default_float()
    });
    let t = if all_int && d == DType::I64 {
        let (a, b, c) = (s.to_i64(), e.to_i64(), st.to_i64());
        if c == 0 {
            return Err(Error::runtime("arange", "step must be nonzero").into());
        }
        if (c > 0 && b < a) || (c < 0 && b > a) {
            return Err(Error::runtime(
                "arange",
                "upper bound and larger bound inconsistent with step sign",
            )
            .into());
        }
        let n =
            ((b as i128 - a as i128 + c as i128 - c.signum() as i128) / c as i128).max(0) as usize;
        crate::shape::checked_numel("arange", &[n])?;
        // a + i * c stays within [a, b] (n was derived from them), so it cannot overflow
        let v = try_vec_from_fn("arange", n, |i| a + i as i64 * c)?;
        Tensor::from_vec(v, &[n])?
    } else {
        let (a, b, c) = (s.to_f64(), e.to_f64(), st.to_f64());
        if c == 0.0 || c.is_nan() {
            return Err(Error::runtime("arange", "step must be nonzero").into());
        }
        if !(a.is_finite() && b.is_finite()) {
            return Err(Error::runtime("arange", format!("unsupported range: {a} -> {b}")).into());
        }
        if (c > 0.0 && b < a) || (c < 0.0 && b > a) {
            return Err(Error::runtime(
                "arange",
                "upper bound and larger bound inconsistent with step sign",
            )
            .into());
        }
        let n = ((b - a) / c).ceil().max(0.0);
        if n > (isize::MAX as f64) / 8.0 {
            return Err(Error::runtime(
                "arange",
                format!("invalid size, possible overflow? ({n} elements)"),
            )
            .into());
        }
        let n = n as usize;
        let v = try_vec_from_fn("arange", n, |i| a + i as f64 * c)?;
        Tensor::from_vec(v, &[n])?.to_dtype(d)?
    };
    tg.finish(py, t.to_dtype(d)?, requires_grad, device)
}

/// `steps` evenly spaced values from `a` to `b`, each mapped through `f`; allocated
/// fallibly (the count is the user's).
fn linspace_values<T: crate::dtype::Element>(
    op: &str,
    a: f64,
    b: f64,
    steps: usize,
    f: impl Fn(f64) -> T,
) -> PyResult<Vec<T>> {
    crate::shape::checked_numel(op, &[steps])?;
    if steps == 1 {
        return Ok(vec![f(a)]);
    }
    let step = (b - a) / (steps - 1) as f64;
    let half = steps / 2;
    // like PyTorch: the first half counts up from start, the second half down from end,
    // so both endpoints are exact
    Ok(try_vec_from_fn(op, steps, |i| {
        f(if i < half {
            a + step * i as f64
        } else {
            b - step * (steps - 1 - i) as f64
        })
    })?)
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
/// linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns ``steps`` evenly spaced values from ``start`` to ``end`` inclusive.
///
/// Args:
///     start (Number): the first value.
///     end (Number): the last value.
///     steps (int): the number of values.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.linspace(0, 1, 5)
///     tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
fn linspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("linspace", dtype, out)?;
    if steps < 0 {
        return Err(Error::runtime("linspace", "number of steps must be non-negative").into());
    }
    let (a, b) = (
        number("linspace", start)?.to_f64(),
        number("linspace", end)?.to_f64(),
    );
    let d = tg.dtype.unwrap_or_else(crate::dtype::default_float);
    let n = steps as usize;
    let t = if d == DType::I64 {
        Tensor::from_vec(
            linspace_values("linspace", a, b, n, |x| x.trunc() as i64)?,
            &[n],
        )?
    } else {
        Tensor::from_vec(linspace_values("linspace", a, b, n, |x| x)?, &[n])?.to_dtype(d)?
    };
    tg.finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=false))]
#[allow(clippy::too_many_arguments)]
/// logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns ``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``.
///
/// Args:
///     start (Number): the first exponent.
///     end (Number): the last exponent.
///     steps (int): the number of values.
///     base (float): the base.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.logspace(0, 2, 3)
///     tensor([  1.,  10., 100.])
fn logspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    steps: i64,
    base: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyTensor>> {
    if steps < 0 {
        return Err(Error::runtime("logspace", "number of steps must be non-negative").into());
    }
    let (a, b) = (
        number("logspace", start)?.to_f64(),
        number("logspace", end)?.to_f64(),
    );
    let d = opt_dtype(dtype)?.unwrap_or_else(crate::dtype::default_float);
    let v = linspace_values("logspace", a, b, steps as usize, |e| base.powf(e))?;
    finish(
        py,
        Tensor::from_vec(v, &[steps as usize])?.to_dtype(d)?,
        requires_grad,
        device,
    )
}

#[pyfunction]
#[pyo3(signature = (n, m=None, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
/// eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a 2-D tensor with ones on the diagonal and zeros elsewhere.
///
/// Args:
///     n (int): the number of rows.
///     m (int, optional): the number of columns; default ``n``.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.eye(2, 3)
///     tensor([[1., 0., 0.],
///             [0., 1., 0.]])
fn eye(
    py: Python<'_>,
    n: i64,
    m: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("eye", dtype, out)?;
    let m = m.unwrap_or(n);
    for (arg, v) in [("n", n), ("m", m)] {
        if v < 0 {
            return Err(Error::runtime(
                "eye",
                format!("{arg} must be greater or equal to 0, got {v}"),
            )
            .into());
        }
    }
    let dims = to_dims("eye", &[n, m])?;
    let d = tg.dtype.unwrap_or_else(crate::dtype::default_float);
    let t = Tensor::zeros("eye", &dims, d)?;
    let diag = t.with_layout(crate::layout::Layout {
        shape: [n.min(m) as usize].as_slice().into(),
        strides: [(m + 1) as isize].as_slice().into(),
        offset: 0,
    })?;
    diag.fill(Scalar::Int(1))?;
    tg.finish(py, t, requires_grad, device)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tensor, m)?)?;
    m.add_function(wrap_pyfunction!(as_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(empty_like, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(logspace, m)?)?;
    m.add_function(wrap_pyfunction!(eye, m)?)?;
    Ok(())
}
