//! Tensor and node hooks: `RemovableHandle` and the Python callables wrapped as the
//! tape's `GradHook`s.

use crate::autograd::{GradHook, Meta, Node, Var};
use crate::dtype::DType;
use crate::python::tensor::{wrap_var, PyTensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use std::rc::{Rc, Weak};

use super::*;

/// Handle returned by `register_hook`; `remove()` unregisters the hook.
///
/// Example:
///     >>> x = ferric.ones(2, requires_grad=True)
///     >>> h = x.register_hook(lambda g: g * 10)
///     >>> (x * 2).sum().backward()
///     >>> x.grad
///     tensor([20., 20.])
///     >>> h.remove()
///     >>> x.grad = None
///     >>> (x * 2).sum().backward()
///     >>> x.grad
///     tensor([2., 2.])
#[pyclass(name = "RemovableHandle", module = "ferric.utils.hooks", frozen)]
pub struct PyHandle {
    pub(super) target: Local<HookTarget>,
    pub(super) id: u64,
}

pub(super) enum HookTarget {
    Leaf(Weak<Meta>),
    LeafPost(Weak<Meta>),
    /// A hook on a non-leaf: it lives on the node; the tensor's meta keeps its callable
    Node(Weak<Node>, Weak<Meta>),
}

#[pymethods]
impl PyHandle {
    fn remove(&self) -> PyResult<()> {
        let id = self.id;
        let meta = match self.target.get()? {
            HookTarget::Leaf(m) => {
                if let Some(m) = m.upgrade() {
                    m.hooks.borrow_mut().retain(|(i, _)| *i != id);
                }
                m
            }
            HookTarget::LeafPost(m) => {
                if let Some(m) = m.upgrade() {
                    m.post_acc_hooks.borrow_mut().retain(|(i, _)| *i != id);
                }
                m
            }
            HookTarget::Node(n, m) => {
                if let Some(n) = n.upgrade() {
                    n.pre_hooks.borrow_mut().retain(|(_, i, _)| *i != id);
                }
                m
            }
        };
        if let Some(m) = meta.upgrade() {
            m.host_refs.borrow_mut().retain(|(i, _)| *i != id);
        }
        Ok(())
    }
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __exit__(
        &self,
        _a: &Bound<'_, PyAny>,
        _b: &Bound<'_, PyAny>,
        _c: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.remove()
    }
}

/// Wraps a Python hook `fn(grad) -> Tensor | None` for the engine.
/// The Python callable of hook `id`, held (once) in `m.host_refs`. Hooks look their
/// callable up there instead of holding it themselves, so the tensor owns the only
/// reference and its `__traverse__` reports it exactly: a hook that refers back to
/// its tensor is then a cycle the collector can break.
pub(super) fn hook_callable(py: Python<'_>, m: &Weak<Meta>, id: u64) -> Option<Py<PyAny>> {
    let m = m.upgrade()?;
    let refs = m.host_refs.borrow();
    let (_, r) = refs.iter().find(|(i, _)| *i == id)?;
    r.downcast_ref::<Py<PyAny>>().map(|f| f.clone_ref(py))
}

/// Where a gradient hook's Python callable is kept.
pub(super) enum Hooked {
    /// held by the hook itself
    Owned(Py<PyAny>),
    /// in the tensor's record (`Meta::host_refs`) under this id
    InRecord(Weak<Meta>, u64),
}

pub(super) fn py_hook(hooked: Hooked) -> GradHook {
    Rc::new(move |g: &Var| {
        call_py(|py| {
            let f = match &hooked {
                Hooked::Owned(f) => f.clone_ref(py),
                Hooked::InRecord(m, id) => match hook_callable(py, m, *id) {
                    Some(f) => f,
                    None => return Ok(None),
                },
            };
            let arg = wrap_var(py, g.clone())?;
            let r = f.bind(py).call1((arg,))?;
            if r.is_none() {
                return Ok(None);
            }
            let r = match r.cast::<PyTensor>() {
                Ok(t) => t.borrow().var()?,
                Err(_) => return Err(PyTypeError::new_err("hook must return a Tensor or None")),
            };
            // a hook may change the values, never the shape or dtype (PyTorch's check)
            let name = || {
                f.bind(py)
                    .getattr("__name__")
                    .and_then(|n| n.extract::<String>())
                    .unwrap_or_else(|_| "<hook>".into())
            };
            if r.t.shape() != g.t.shape() {
                return Err(PyRuntimeError::new_err(format!(
                    "hook '{}' has changed the size of value",
                    name()
                )));
            }
            if r.t.dtype() != g.t.dtype() {
                let legacy = |d: DType| format!("torch.{}Tensor", d.torch_name());
                return Err(PyRuntimeError::new_err(format!(
                    "hook '{}' has changed the type of value (was {} got {})",
                    name(),
                    legacy(g.t.dtype()),
                    legacy(r.t.dtype())
                )));
            }
            Ok(Some(r))
        })
    })
}
