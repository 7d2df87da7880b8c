//! Tensor factories: `tensor`, `from_numpy`, `zeros`/`ones`/`full`/`empty` (+ `_like`),
//! `arange`, `linspace`, `logspace`, `eye`, and the `Tensor(...)` constructor.

use crate::dtype::{DType, Scalar};
use crate::error::Error;
use crate::python::convert::{from_numpy_any, is_ndarray, opt_dtype, scalar_arg, size_args};
use crate::python::data::tensor_from_data;
use crate::python::out::{check_out, out_arg, write_out};
use crate::python::tensor::{as_tensor_ref, PyTensor};
use crate::shape::to_dims;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

mod ranges;

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
pub(crate) struct Target<'py> {
    op: &'static str,
    pub(crate) dtype: Option<DType>,
    out: Option<Bound<'py, PyTensor>>,
}

pub(crate) fn target<'py>(
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
    /// The dtype to build in when the factory's default is the default float dtype.
    pub(crate) fn dtype_or_float(&self) -> DType {
        self.dtype.unwrap_or_else(crate::dtype::default_float)
    }

    /// The new tensor, or `out` holding its values.
    pub(crate) fn finish(
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

/// `zeros` and `ones`: one binding shape (`*size`, no memory format); each call gives the
/// docstring, the name and the fill value.
macro_rules! constant_sized {
    ($(#[$doc:meta])* $name:ident, $value:expr) => {
        #[pyfunction]
        #[pyo3(signature = (*size, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
        $(#[$doc])*
        fn $name(
            py: Python<'_>,
            size: &Bound<'_, PyTuple>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            layout: Option<&Bound<'_, PyAny>>,
            out: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            let _ = layout;
            let op = stringify!($name);
            let tg = target(op, dtype, out)?;
            let dims = to_dims(op, &size_args(size)?)?;
            let t = Tensor::full(op, &dims, $value, tg.dtype_or_float())?;
            tg.finish(py, t, requires_grad, device)
        }
    };
}

constant_sized! {
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
    zeros, Scalar::Int(0)
}

constant_sized! {
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
    ones, Scalar::Int(1)
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
    let t = Tensor::zeros("empty", &dims, tg.dtype_or_float())?.in_order(&order);
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

/// A `*_like` factory that fills with a constant (`zeros_like`, `ones_like`, `empty_like`):
/// one binding shape; each call gives the docstring, the name and the value.
macro_rules! constant_like {
    ($(#[$doc:meta])* $name:ident, $value:expr) => {
        #[pyfunction]
        #[pyo3(signature = (input, *, dtype=None, device=None, requires_grad=false, layout=None, memory_format=None))]
        $(#[$doc])*
        fn $name(
            py: Python<'_>,
            input: PyRef<'_, PyTensor>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            layout: Option<&Bound<'_, PyAny>>,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyTensor>> {
            let _ = layout;
            let t = like(stringify!($name), &input.t, $value, dtype, memory_format)?;
            finish(py, t, requires_grad, device)
        }
    };
}

constant_like! {
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
    zeros_like, Scalar::Int(0)
}

constant_like! {
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
    empty_like, Scalar::Int(0)
}

constant_like! {
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
    ones_like, Scalar::Int(1)
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
    add_functions!(
        m,
        [
            tensor,
            as_tensor,
            from_numpy,
            zeros,
            ones,
            empty,
            full,
            zeros_like,
            ones_like,
            empty_like,
            full_like,
            ranges::arange,
            ranges::linspace,
            ranges::logspace,
            eye
        ]
    )
}
