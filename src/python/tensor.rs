//! `ferric.Tensor`: the Python class wrapping a core `Tensor`, with its basic
//! properties, conversions and Python protocol methods.

use super::memory_format::{memory_format_arg, MemoryFormat};
use crate::autograd::{Meta, Var};
use crate::dtype::{DType, Scalar};
use crate::python::convert::{self, dtype_arg, PyDType};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::rc::Rc;

#[pyclass(name = "Tensor", module = "ferric", subclass, weakref, dict)]
/// Tensor(data) -> Tensor
///
/// A multi-dimensional array of one dtype, with autograd. ``ferric.Tensor(data)`` copies nested
/// data into a float32 tensor and ``ferric.Tensor(*sizes)`` makes an uninitialised (zero-filled)
/// float32 tensor of that shape, as ``torch.Tensor`` does; prefer :func:`ferric.tensor`, which
/// infers the dtype.
///
/// Args:
///     data (array_like or int...): nested data, or the sizes of the result.
///
/// Example:
///     >>> ferric.Tensor([1, 2])
///     tensor([1., 2.])
///     >>> ferric.Tensor(2, 3).shape
///     ferric.Size([2, 3])
pub struct PyTensor {
    /// The data (storage + layout). Always safe to read from any thread.
    pub t: Tensor,
    /// Autograd state; None for plain tensors (the common, fast case).
    pub ag: AgSlot,
}

/// Autograd metadata of a Python tensor, pinned to the thread that created it.
///
/// The tape uses `Rc`/`RefCell` (single-threaded by design). Python only runs our code
/// while holding the GIL, so two threads never touch these reference counts at the same
/// time; what must not happen is one thread's graph being *used* from another thread,
/// which `get` turns into a RuntimeError (never a panic).
pub struct AgSlot {
    meta: std::cell::RefCell<Option<Rc<Meta>>>,
    owner: std::cell::Cell<Option<std::thread::ThreadId>>,
}

// SAFETY: see the type's docs: all access happens under the GIL, and graph metadata is
// only dereferenced on its owning thread (checked in `get`/`set`).
unsafe impl Send for AgSlot {}
unsafe impl Sync for AgSlot {}

impl AgSlot {
    pub fn none() -> AgSlot {
        AgSlot {
            meta: std::cell::RefCell::new(None),
            owner: std::cell::Cell::new(None),
        }
    }

    fn check_thread(&self) -> PyResult<()> {
        if let Some(owner) = self.owner.get() {
            if owner != std::thread::current().id() {
                return Err(PyRuntimeError::new_err(
                    "this tensor is part of an autograd graph (or requires grad) and was created on another \
                     thread; ferric's graph is single-threaded. Pass `t.detach()` (or create the tensor in \
                     this thread) instead.",
                ));
            }
        }
        Ok(())
    }

    pub fn get(&self) -> PyResult<Option<Rc<Meta>>> {
        if self.owner.get().is_none() {
            return Ok(None);
        }
        self.check_thread()?;
        Ok(self.meta.borrow().clone())
    }

    /// The metadata for the garbage collector's visit: None off the owning thread or
    /// while the slot is being changed (the collector then sees less, never a race).
    fn meta_for_gc(&self) -> Option<Rc<Meta>> {
        if self.owner.get() != Some(std::thread::current().id()) {
            return None;
        }
        self.meta.try_borrow().ok()?.clone()
    }

    pub fn set(&self, meta: Option<Rc<Meta>>) -> PyResult<()> {
        self.check_thread()?;
        self.owner
            .set(meta.as_ref().map(|_| std::thread::current().id()));
        *self.meta.borrow_mut() = meta;
        Ok(())
    }
}

#[pymethods]
impl PyTensor {
    /// Python objects reachable from this tensor through its hooks (see
    /// `Meta::host_refs`), for the cycle collector.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        let Some(m) = self.ag.meta_for_gc() else {
            return Ok(());
        };
        // the references are this tensor's to report only while no other owner shares the
        // record (a graph node of a leaf, another wrapper): reporting one reference twice
        // would let the collector free an object still in use. (2 = the slot + `m`.)
        if Rc::strong_count(&m) != 2 {
            return Ok(());
        }
        let Ok(refs) = m.host_refs.try_borrow() else {
            return Ok(());
        };
        for (_, r) in refs.iter() {
            if let Some(obj) = r.downcast_ref::<Py<PyAny>>() {
                visit.call(obj)?;
            }
        }
        Ok(())
    }

    /// Breaks a reference cycle through the hooks: they are dropped (the tensor is
    /// unreachable, so no backward can run them any more).
    fn __clear__(&mut self) {
        let Some(m) = self.ag.meta_for_gc() else {
            return;
        };
        let ids: Vec<u64> = match m.host_refs.try_borrow_mut() {
            Ok(mut refs) => refs.drain(..).map(|(id, _)| id).collect(),
            Err(_) => return,
        };
        if let Ok(mut h) = m.hooks.try_borrow_mut() {
            h.retain(|(i, _)| !ids.contains(i));
        }
        if let Ok(mut h) = m.post_acc_hooks.try_borrow_mut() {
            h.retain(|(i, _)| !ids.contains(i));
        }
        if let Some(node) = m.grad_fn.try_borrow().ok().and_then(|f| f.clone()) {
            if let Ok(mut h) = node.pre_hooks.try_borrow_mut() {
                h.retain(|(_, i, _)| !ids.contains(i));
            }
        }
    }
}

impl PyTensor {
    pub fn new(t: Tensor) -> Self {
        PyTensor {
            t,
            ag: AgSlot::none(),
        }
    }

    pub fn from_var(v: Var) -> Self {
        let ag = AgSlot::none();
        if v.meta.is_some() {
            ag.owner.set(Some(std::thread::current().id()));
            *ag.meta.borrow_mut() = v.meta;
        }
        PyTensor { t: v.t, ag }
    }

    /// The tensor with its autograd state, for differentiable ops.
    pub fn var(&self) -> PyResult<Var> {
        Ok(Var {
            t: self.t.clone(),
            meta: self.ag.get()?,
        })
    }

    pub fn requires_grad(&self) -> PyResult<bool> {
        Ok(self.ag.get()?.is_some_and(|m| m.requires_grad.get()))
    }
}

/// Wraps the result of a differentiable op.
///
/// A result computed while the user pressed Ctrl-C may be incomplete (long kernels stop
/// early): it is dropped and the interrupt raised instead.
pub fn wrap_var(py: Python<'_>, v: Var) -> PyResult<Py<PyTensor>> {
    crate::threads::check_interrupt("")?;
    Py::new(py, PyTensor::from_var(v))
}

/// An optional keyword or positional argument as the bindings receive it.
pub type Obj<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

/// A tensor argument (with its autograd state), or PyTorch's TypeError naming the
/// function, the parameter and its position.
pub fn var_arg(op: &str, name: &str, pos: usize, obj: &Bound<'_, PyAny>) -> PyResult<Var> {
    match obj.cast::<PyTensor>() {
        Ok(t) => t.borrow().var(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{op}(): argument '{name}' (position {pos}) must be Tensor, not {}",
            convert::type_name(obj)
        ))),
    }
}

/// An optional tensor argument (None or absent is None).
pub fn opt_var(op: &str, name: &str, pos: usize, obj: Obj) -> PyResult<Option<Var>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(var_arg(op, name, pos, o)?)),
        _ => Ok(None),
    }
}

/// Python-side helpers the bindings call back into, installed by `ferric/__init__.py`
/// (`ferric.Size` and the PyTorch-style printer live in Python).
static SIZE_CLS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static REPR_FN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

#[pyfunction]
fn _install_hooks(py: Python<'_>, size_cls: Py<PyAny>, repr_fn: Py<PyAny>) {
    let _ = SIZE_CLS.set(py, size_cls);
    let _ = REPR_FN.set(py, repr_fn);
}

/// A `ferric.Size` (tuple subclass) for `shape`.
pub fn size_obj<'py>(py: Python<'py>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let tup = PyTuple::new(py, shape)?;
    match SIZE_CLS.get(py) {
        Some(cls) => cls.bind(py).call1((tup,)),
        None => Ok(tup.into_any()),
    }
}

/// The core tensor behind a Python object, if it is a `ferric.Tensor`.
pub fn as_tensor_ref(obj: &Bound<'_, PyAny>) -> Option<Tensor> {
    obj.cast::<PyTensor>().ok().map(|t| t.borrow().t.clone())
}

/// Wraps a core tensor as a new Python `Tensor`.
pub fn wrap(py: Python<'_>, t: Tensor) -> PyResult<Py<PyTensor>> {
    crate::threads::check_interrupt("")?;
    Py::new(py, PyTensor::new(t))
}

/// Nested Python lists of the tensor's values (`tolist`).
pub fn to_pylist<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    fn build<'py, T: Copy>(
        py: Python<'py>,
        shape: &[usize],
        vals: &[T],
        conv: &dyn Fn(Python<'py>, T) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if shape.is_empty() {
            return conv(py, vals[0]);
        }
        let step: usize = shape[1..].iter().product();
        let list = PyList::empty(py);
        for i in 0..shape[0] {
            let lo = i * step;
            list.append(build(py, &shape[1..], &vals[lo..lo + step], conv)?)?;
        }
        Ok(list.into_any())
    }
    match t.dtype() {
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => {
            build(py, t.shape(), &t.to_vec::<f64>()?, &|py, v| {
                Ok(v.into_pyobject(py)?.into_any())
            })
        }
        DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => {
            build(py, t.shape(), &t.to_vec::<i64>()?, &|py, v| {
                Ok(v.into_pyobject(py)?.into_any())
            })
        }
        DType::Bool => build(py, t.shape(), &t.to_vec::<bool>()?, &|py, v| {
            Ok(pyo3::types::PyBool::new(py, v).to_owned().into_any())
        }),
    }
}

pub fn scalar_to_py<'py>(py: Python<'py>, s: Scalar) -> PyResult<Bound<'py, PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => pyo3::types::PyBool::new(py, b).to_owned().into_any(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any(),
    })
}

fn one_element(t: &Tensor) -> PyResult<Scalar> {
    if t.numel() != 1 {
        return Err(PyValueError::new_err(
            "only one element tensors can be converted to Python scalars",
        ));
    }
    Ok(t.item()?)
}

/// `size(d)` / `stride(d)` of a 0-d tensor is an IndexError in PyTorch.
fn no_dims_check(t: &Tensor, d: i64) -> PyResult<()> {
    if t.ndim() == 0 {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "Dimension specified as {d} but tensor has no dimensions"
        )));
    }
    Ok(())
}

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

fn cast_to(slf: Bound<'_, PyTensor>, d: DType) -> PyResult<Py<PyAny>> {
    let v = slf.borrow().var()?;
    if v.t.dtype() == d {
        return Ok(slf.into_any().unbind());
    }
    Ok(wrap_var(slf.py(), crate::autograd::unary::to_dtype(&v, d)?)?.into_any())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTensor>()?;
    m.add_function(wrap_pyfunction!(_install_hooks, m)?)?;
    alias_methods(
        m,
        &[
            "numel",
            "clone",
            "detach",
            "is_floating_point",
            "is_complex",
        ],
    )
}

/// Exposes `Tensor` methods as module functions (`ferric.exp = Tensor.exp`): calling the
/// method descriptor costs no extra Python frame, and a non-tensor argument raises
/// TypeError as in PyTorch.
pub fn alias_methods(m: &Bound<'_, PyModule>, names: &[&str]) -> PyResult<()> {
    let cls = m.py().get_type::<PyTensor>();
    for name in names {
        m.add(*name, cls.getattr(*name)?)?;
    }
    Ok(())
}
