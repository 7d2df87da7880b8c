//! `ferric.Tensor`: the Python class wrapping a core `Tensor`, with its basic
//! properties, conversions and Python protocol methods.

use crate::autograd::{Meta, Var};
use crate::dtype::{DType, Scalar};
use crate::python::convert;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple};
use std::rc::Rc;

mod attributes;
mod casts;
mod protocols;

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
    /// Set on the placeholder data of a tensor that an `autobatch` region has not
    /// computed yet: any op that reaches it through its autograd state raises instead of
    /// computing on the empty placeholder.
    pending: std::cell::Cell<bool>,
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
            pending: std::cell::Cell::new(false),
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
            if self.pending.get() {
                return Err(PyRuntimeError::new_err(
                    "ferric.autobatch: this tensor is pending (its value is computed when the \
                     region evaluates) and reached an op that the region does not route, such \
                     as a Tensor method fetched before the region (`sig = torch.sigmoid`). \
                     Inside a region, call ops through their module or as methods \
                     (`torch.sigmoid(x)`, `x.sigmoid()`, `F.relu(x)`).",
                ));
            }
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

    /// Marks (or clears) the placeholder of a pending `autobatch` tensor.
    pub fn set_pending(&self, on: bool) {
        self.pending.set(on);
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
