//! `Tensor`'s autograd attributes and methods: `requires_grad`, `.grad`, `grad_fn`,
//! `is_leaf`, hooks, `backward()`, `detach()`, `.data`.

use crate::autograd::engine::{run, Mode};
use crate::autograd::{self as ag, next_hook_id, GradHook, Meta, Var};
use crate::python::tensor::{wrap_var, PyTensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use std::rc::Rc;

use super::backward::{backward_inputs, check_grad_shape, ones_grad};
use super::hooks::{hook_callable, py_hook, HookTarget, Hooked, PyHandle};
use super::node::{node_obj, PyNode};
use super::*;

#[pymethods]
impl PyTensor {
    #[getter]
    fn get_requires_grad(&self) -> PyResult<bool> {
        self.requires_grad()
    }

    #[setter]
    fn set_requires_grad(&self, value: bool) -> PyResult<()> {
        let v = self.var()?;
        if !v.is_leaf() {
            if !value {
                return Err(PyRuntimeError::new_err(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
                ));
            }
            return Ok(());
        }
        if value {
            ag::check_float("requires_grad_", self.t.dtype())?;
            if self.t.storage.is_inference() && !crate::storage::inference_mode() {
                return Err(PyRuntimeError::new_err(
                    "Setting requires_grad=True on inference tensor outside InferenceMode is not \
                     allowed.",
                ));
            }
        }
        match v.meta {
            Some(m) => m.requires_grad.set(value),
            None if value => {
                let m = Meta::default();
                m.requires_grad.set(true);
                self.ag.set(Some(Rc::new(m)))?;
            }
            None => {}
        }
        Ok(())
    }

    #[pyo3(signature = (requires_grad=true))]
    /// requires_grad_(requires_grad=True) -> Tensor
    ///
    /// Sets whether autograd records operations on this tensor, in place, and returns it.
    ///
    /// Args:
    ///     requires_grad (bool): whether autograd records operations on the result.
    ///
    /// Example:
    ///     >>> ferric.zeros(2).requires_grad_().requires_grad
    ///     True
    fn requires_grad_(slf: PyRef<'_, Self>, requires_grad: bool) -> PyResult<PyRef<'_, Self>> {
        slf.set_requires_grad(requires_grad)?;
        Ok(slf)
    }

    /// is_inference() -> bool
    ///
    /// Whether this is an inference tensor (its memory was allocated under
    /// ``inference_mode``).
    ///
    /// Example:
    ///     >>> with ferric.inference_mode():
    ///     ...     y = ferric.ones(2)
    ///     ...
    ///     >>> y.is_inference(), ferric.ones(2).is_inference()
    ///     (True, False)
    fn is_inference(&self) -> bool {
        self.t.storage.is_inference()
    }

    #[getter]
    fn is_leaf(&self) -> PyResult<bool> {
        Ok(self.var()?.is_leaf())
    }

    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<Py<PyTensor>>> {
        let Some(m) = self.ag.get()? else {
            return Ok(None);
        };
        let g = m.grad.borrow().clone();
        g.map(|g| wrap_var(py, g)).transpose()
    }

    #[setter]
    fn set_grad(&self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let g = match value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) => {
                let t = v.cast::<PyTensor>().map_err(|_| {
                    PyTypeError::new_err("assigned grad expected to be a Tensor or None")
                })?;
                let g = t.borrow().var()?;
                if g.t.shape() != self.t.shape() {
                    return Err(PyRuntimeError::new_err(
                        "assigned grad has data of a different size",
                    ));
                }
                if g.t.dtype() != self.t.dtype() {
                    return Err(PyRuntimeError::new_err(
                        "assigned grad has data of a different type",
                    ));
                }
                Some(g)
            }
        };
        match self.ag.get()? {
            Some(m) => *m.grad.borrow_mut() = g,
            None => {
                if g.is_some() {
                    let m = Meta::default();
                    *m.grad.borrow_mut() = g;
                    self.ag.set(Some(Rc::new(m)))?;
                }
            }
        }
        Ok(())
    }

    #[getter]
    fn grad_fn(&self, py: Python<'_>) -> PyResult<Option<Py<PyNode>>> {
        self.var()?.grad_fn().map(|n| node_obj(py, n)).transpose()
    }

    #[getter]
    fn retains_grad(&self) -> PyResult<bool> {
        Ok(self.ag.get()?.is_some_and(|m| m.retains_grad.get()))
    }

    #[getter]
    fn _version(&self) -> u64 {
        self.t.storage.version()
    }

    #[getter]
    fn output_nr(&self) -> PyResult<usize> {
        Ok(self.ag.get()?.map_or(0, |m| m.output_nr.get()))
    }

    /// retain_grad() -> None
    ///
    /// Makes a non-leaf tensor keep its ``.grad`` after backward.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1., 2.], requires_grad=True)
    ///     >>> y = x * 2
    ///     >>> y.retain_grad()
    ///     >>> y.sum().backward()
    ///     >>> y.grad
    ///     tensor([1., 1.])
    fn retain_grad(&self) -> PyResult<()> {
        let v = self.var()?;
        let Some(m) = v.meta.clone() else {
            return Err(PyRuntimeError::new_err(
                "can't retain_grad on Tensor that has requires_grad=False",
            ));
        };
        if !m.requires_grad.get() {
            return Err(PyRuntimeError::new_err(
                "can't retain_grad on Tensor that has requires_grad=False",
            ));
        }
        if m.retains_grad.get() {
            return Ok(());
        }
        if let Some(node) = v.grad_fn() {
            let weak = Rc::downgrade(&m);
            let hook: GradHook = Rc::new(move |g: &Var| {
                if let Some(m) = weak.upgrade() {
                    let mut slot = m.grad.borrow_mut();
                    let cur = slot.take();
                    *slot = Some(match cur {
                        None => Var::plain(g.t.copy_as(g.t.dtype())?),
                        Some(p) => Var::plain(crate::ops::binary::binary(
                            crate::ops::binary::BinaryOp::Add,
                            crate::ops::binary::Operand::T(&p.t),
                            crate::ops::binary::Operand::T(&g.t),
                        )?),
                    });
                }
                Ok(None)
            });
            node.pre_hooks
                .borrow_mut()
                .push((m.output_nr.get(), next_hook_id(), hook));
            m.retains_grad.set(true);
        }
        Ok(())
    }

    /// register_hook(hook) -> RemovableHandle
    ///
    /// Registers ``hook(grad)``, called with this tensor's gradient during backward; a non-None
    /// return replaces the gradient. ``handle.remove()`` unregisters it.
    ///
    /// Args:
    ///     hook (callable): the function to call.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1., 2.], requires_grad=True)
    ///     >>> h = x.register_hook(lambda g: g * 10)
    ///     >>> x.sum().backward()
    ///     >>> x.grad
    ///     tensor([10., 10.])
    fn register_hook(&self, hook: Py<PyAny>) -> PyResult<PyHandle> {
        let v = self.var()?;
        let Some(m) = v.meta.clone().filter(|m| m.requires_grad.get()) else {
            return Err(PyRuntimeError::new_err(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        };
        let id = next_hook_id();
        let target = match v.grad_fn() {
            // a non-leaf's hook lives on its node and must keep working after the Python
            // tensor is gone, so the node's closure owns the callable (as in PyTorch, a
            // cycle through it is not collected)
            Some(node) => {
                node.pre_hooks.borrow_mut().push((
                    m.output_nr.get(),
                    id,
                    py_hook(Hooked::Owned(hook)),
                ));
                HookTarget::Node(Rc::downgrade(&node), Rc::downgrade(&m))
            }
            // a leaf's hook lives in its record, which owns the callable once
            None => {
                m.host_refs.borrow_mut().push((id, Box::new(hook)));
                let h = py_hook(Hooked::InRecord(Rc::downgrade(&m), id));
                m.hooks.borrow_mut().push((id, h));
                HookTarget::Leaf(Rc::downgrade(&m))
            }
        };
        Ok(PyHandle {
            target: Local::new(target),
            id,
        })
    }

    /// register_post_accumulate_grad_hook(hook) -> RemovableHandle
    ///
    /// Registers ``hook(tensor)`` on a leaf, called after its ``.grad`` has been accumulated.
    ///
    /// Args:
    ///     hook (callable): the function to call.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1., 2.], requires_grad=True)
    ///     >>> h = x.register_post_accumulate_grad_hook(lambda t: print(t.grad))
    ///     >>> x.sum().backward()
    ///     tensor([1., 1.])
    fn register_post_accumulate_grad_hook(
        slf: &Bound<'_, Self>,
        hook: Py<PyAny>,
    ) -> PyResult<PyHandle> {
        let v = slf.borrow().var()?;
        if !v.is_leaf() {
            return Err(PyRuntimeError::new_err(
                "post accumulate grad hooks cannot be registered on non-leaf tensors",
            ));
        }
        let Some(m) = v.meta.clone().filter(|m| m.requires_grad.get()) else {
            return Err(PyRuntimeError::new_err(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        };
        // a weak reference to the Python tensor: the hook lives in the tensor's own meta
        let weak: Py<PyAny> = slf
            .py()
            .import("weakref")?
            .getattr("ref")?
            .call1((slf,))?
            .unbind();
        let id = next_hook_id();
        m.host_refs.borrow_mut().push((id, Box::new(hook)));
        let meta = Rc::downgrade(&m);
        let f: ag::PostAccHook = Rc::new(move |_g: &Var| {
            call_py(|py| {
                let t = weak.bind(py).call0()?;
                if let (false, Some(hook)) = (t.is_none(), hook_callable(py, &meta, id)) {
                    hook.bind(py).call1((t,))?;
                }
                Ok(())
            })
        });
        m.post_acc_hooks.borrow_mut().push((id, f));
        Ok(PyHandle {
            target: Local::new(HookTarget::LeafPost(Rc::downgrade(&m))),
            id,
        })
    }

    #[pyo3(signature = (gradient=None, retain_graph=None, create_graph=false, inputs=None))]
    /// backward(gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None
    ///
    /// Computes the gradient of this tensor with respect to the graph leaves and accumulates it
    /// into their ``.grad``. See :func:`ferric.autograd.backward`.
    ///
    /// Args:
    ///     gradient (Tensor, optional): the gradient with respect to this tensor; may be omitted
    ///         for a one-element tensor.
    ///     retain_graph (bool, optional): keep the graph for another backward; default
    ///         ``create_graph``.
    ///     create_graph (bool): record the backward pass itself, for higher-order gradients.
    ///     inputs (sequence of Tensors, optional): accumulate only into these leaves.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1., 2.], requires_grad=True)
    ///     >>> (x * x).sum().backward()
    ///     >>> x.grad
    ///     tensor([2., 4.])
    fn backward(
        &self,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let me = self.var()?;
        if !me.requires_grad() {
            return Err(PyRuntimeError::new_err(
                "element 0 of tensors does not require grad and does not have a grad_fn",
            ));
        }
        let g = match gradient {
            Some(g) if !g.is_none() => {
                let gv = g
                    .cast::<PyTensor>()
                    .map_err(|_| PyTypeError::new_err("gradient must be a Tensor"))?
                    .borrow()
                    .var()?;
                check_grad_shape(&me, &gv, 0)?;
                gv
            }
            _ => ones_grad(&self.t)?,
        };
        let inputs = backward_inputs(inputs)?;
        let retain = retain_graph.unwrap_or(create_graph);
        run(
            &[(me, g)],
            retain,
            create_graph,
            Mode::Accumulate(inputs.as_deref()),
        )
        .map_err(engine_err)?;
        Ok(())
    }

    /// detach(input) -> Tensor
    ///
    /// Returns a view of ``input`` that shares its memory but is cut off the autograd graph
    /// (``requires_grad=False``).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.ones(2, requires_grad=True).detach().requires_grad
    ///     False
    fn detach(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, Var::plain(self.t.clone()))
    }

    /// detach_() -> Tensor
    ///
    /// Detaches the tensor from the graph in place: it becomes a leaf that does not require grad.
    ///
    /// Example:
    ///     >>> x = ferric.ones(2, requires_grad=True) * 2
    ///     >>> x.detach_().requires_grad
    ///     False
    fn detach_(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        let is_view = slf.ag.get()?.is_some_and(|m| m.view_of.borrow().is_some());
        if is_view {
            return Err(PyRuntimeError::new_err(
                "Can't detach views in-place. Use detach() instead. If you are using \
                 DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set \
                 as True, gradients are views of DDP buckets, and hence detach_() cannot be \
                 called on these gradients. To fix this error, please refer to the \
                 Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.",
            ));
        }
        slf.ag.set(None)?;
        Ok(slf)
    }

    #[getter]
    fn get_data(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, Var::plain(self.t.clone()))
    }

    #[setter]
    fn set_data(&mut self, value: PyRef<'_, PyTensor>) -> PyResult<()> {
        self.t = value.t.clone();
        Ok(())
    }
}
