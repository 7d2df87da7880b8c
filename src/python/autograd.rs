//! The Python surface of the autograd tape: `requires_grad`, `.grad`, `grad_fn`,
//! `backward()`, hooks, grad mode, anomaly mode, and the pieces `autograd.Function`
//! (written in Python) is built from.

use crate::autograd::engine::{run, Mode};
use crate::autograd::{self as ag, next_hook_id, GradHook, Meta, Node, Saved, SavedRole, Var};
use crate::dtype::{DType, Scalar};
use crate::error::Error;
use crate::python::tensor::{wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

thread_local! {
    /// A Python exception raised inside a hook or custom Function during backward: the
    /// engine only knows core errors, so the original exception waits here and is
    /// re-raised unchanged when the engine returns.
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Runs Python code from inside the engine, stashing any exception.
fn call_py<R>(f: impl FnOnce(Python<'_>) -> PyResult<R>) -> crate::error::Result<R> {
    Python::attach(|py| {
        f(py).map_err(|e| {
            let msg = e.to_string();
            PENDING.with(|p| *p.borrow_mut() = Some(e));
            Error::runtime("", msg)
        })
    })
}

/// Converts an engine error, preferring a stashed Python exception.
pub fn engine_err(e: Error) -> PyErr {
    PENDING
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| e.into())
}

/// A value that may only be used on the thread that created it (graph objects).
struct Local<T> {
    v: T,
    owner: std::thread::ThreadId,
}

// SAFETY: only dereferenced on the owning thread (checked in `get`), and only under the
// GIL, so the non-atomic reference counts inside are never raced.
unsafe impl<T> Send for Local<T> {}
unsafe impl<T> Sync for Local<T> {}

impl<T> Local<T> {
    fn new(v: T) -> Self {
        Local {
            v,
            owner: std::thread::current().id(),
        }
    }
    fn get(&self) -> PyResult<&T> {
        if self.owner != std::thread::current().id() {
            return Err(PyRuntimeError::new_err(
                "autograd graph objects can only be used on the thread that created them",
            ));
        }
        Ok(&self.v)
    }
}

/// `tensor.grad_fn`: a node of the recorded graph. Each node is an instance of a
/// subclass named after its op, as in PyTorch (`type(y.grad_fn).__name__ ==
/// "MulBackward0"`); the subclasses are made on first use by `node_class`.
///
/// Example:
///     >>> x = ferric.ones(2, requires_grad=True)
///     >>> y = (x * 3).sum()
///     >>> type(y.grad_fn).__name__
///     'SumBackward0'
///     >>> y.grad_fn.next_functions[0][0].name()
///     'MulBackward0'
#[pyclass(name = "Node", module = "ferric.autograd.graph", frozen, subclass)]
pub struct PyNode {
    node: Local<Rc<Node>>,
}

thread_local! {
    /// The node `node_obj` is wrapping: Python-made subclasses can only be instantiated
    /// through their type, so the Rust node reaches `PyNode::new` through this slot.
    static NEW_NODE: RefCell<Option<Rc<Node>>> = const { RefCell::new(None) };
}

pub fn node_obj(py: Python<'_>, n: Rc<Node>) -> PyResult<Py<PyNode>> {
    let cls = crate::python::node_class::class_for(
        py,
        if n.is_accumulate() {
            "AccumulateGrad"
        } else {
            &n.name
        },
        py.get_type::<PyNode>(),
    )?;
    NEW_NODE.with(|s| *s.borrow_mut() = Some(n));
    let obj = cls.call0();
    NEW_NODE.with(|s| s.borrow_mut().take());
    Ok(obj?.cast_into::<PyNode>()?.unbind())
}

#[pymethods]
impl PyNode {
    #[new]
    fn py_new() -> PyResult<Self> {
        let node = NEW_NODE.with(|s| s.borrow_mut().take()).ok_or_else(|| {
            PyTypeError::new_err("cannot create autograd nodes directly: the engine makes them")
        })?;
        Ok(PyNode {
            node: Local::new(node),
        })
    }
    /// The node's name, as PyTorch spells it (its leaf node is named after the C++ class).
    fn name(&self) -> PyResult<String> {
        let n = self.node.get()?;
        Ok(if n.is_accumulate() {
            "torch::autograd::AccumulateGrad".to_string()
        } else {
            n.name.clone()
        })
    }
    /// A dict for the user's own notes about this node, kept as long as the node lives
    /// (PyTorch's `grad_fn.metadata`).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let n = self.node.get()?;
        let mut slot = n.metadata.borrow_mut();
        if let Some(d) = slot.as_ref().and_then(|b| b.downcast_ref::<Py<PyDict>>()) {
            return Ok(d.bind(py).clone());
        }
        let d = PyDict::new(py);
        *slot = Some(Box::new(d.clone().unbind()));
        Ok(d)
    }
    /// `_saved_<name>` (the tensors the backward rule saved) and, on `AccumulateGrad`,
    /// `variable` (the leaf). Looked up dynamically so that `hasattr(fn, "variable")`
    /// tells leaf nodes apart, as it does in PyTorch.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let n = self.node.get()?;
        if name == "variable" {
            if let Some(v) = n.leaf_variable() {
                return Ok(wrap_var(py, v)?.into_any());
            }
        }
        if let Some(key) = name.strip_prefix("_saved_") {
            if let Some((_, v)) = saved_names(n).into_iter().find(|(k, _)| k == key) {
                return match v {
                    Some(v) => Ok(wrap_var(py, v?)?.into_any()),
                    None => Err(PyRuntimeError::new_err(FREED)),
                };
            }
        }
        Err(PyAttributeError::new_err(format!(
            "'{}' object has no attribute '{name}'",
            n.name
        )))
    }
    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let object = slf.py().import("builtins")?.getattr("object")?;
        let mut names: Vec<String> = object.getattr("__dir__")?.call1((slf,))?.extract()?;
        let me = slf.get();
        let n = me.node.get()?;
        names.extend(
            saved_names(n)
                .into_iter()
                .map(|(k, _)| format!("_saved_{k}")),
        );
        if n.is_accumulate() {
            names.push("variable".to_string());
        }
        names.sort();
        Ok(names)
    }
    /// Shapes of the tensors this node's op produced.
    fn _output_shapes(&self) -> PyResult<Vec<Vec<usize>>> {
        Ok(self
            .node
            .get()?
            .outputs
            .iter()
            .map(|m| m.shape.to_vec())
            .collect())
    }
    #[getter]
    fn next_functions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let n = self.node.get()?;
        let items: Vec<Bound<'py, PyTuple>> = n
            .next
            .iter()
            .map(|e| match e {
                Some(e) => Ok(PyTuple::new(
                    py,
                    [
                        node_obj(py, e.node.clone())?.into_any(),
                        e.input_nr.into_pyobject(py)?.into_any().unbind(),
                    ],
                )?),
                None => Ok(PyTuple::new(
                    py,
                    [py.None(), 0i64.into_pyobject(py)?.into_any().unbind()],
                )?),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }
    fn __repr__(&self) -> PyResult<String> {
        let n = self.node.get()?;
        Ok(format!(
            "<{} object at {:#x}>",
            n.name,
            Rc::as_ptr(n) as usize
        ))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        match other.cast::<PyNode>() {
            Ok(o) => Ok(Rc::ptr_eq(self.node.get()?, o.get().node.get()?)),
            Err(_) => Ok(false),
        }
    }
    fn __hash__(&self) -> PyResult<isize> {
        Ok(Rc::as_ptr(self.node.get()?) as isize)
    }
    /// The sequence number (creation order) of this node.
    fn _sequence_nr(&self) -> PyResult<u64> {
        Ok(self.node.get()?.seq)
    }
    /// Shapes of the inputs this node produces gradients for.
    fn _input_shapes(&self) -> PyResult<Vec<Vec<usize>>> {
        Ok(self
            .node
            .get()?
            .inputs
            .iter()
            .map(|m| m.shape.to_vec())
            .collect())
    }
}

const FREED: &str = "Trying to backward through the graph a second time (or directly access saved tensors \
    after they have already been freed). Saved intermediate values of the graph are freed when you call \
    .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a \
    second time or if you need to access saved tensors after calling backward.";

/// PyTorch's names for the inputs of ops whose names are not `self`, `other`.
fn input_name(node: &str, i: usize) -> String {
    let names: &[&str] = match node {
        "MmBackward0" | "BmmBackward0" => &["self", "mat2"],
        "AddmmBackward0" => &["self", "mat1", "mat2"],
        "BaddbmmBackward0" => &["self", "batch1", "batch2"],
        "MvBackward0" => &["self", "vec"],
        "DotBackward0" => &["self", "tensor"],
        "PowBackward1" => &["self", "exponent"],
        "ConvolutionBackward0" => &["input", "weight", "bias"],
        _ => &["self", "other"],
    };
    names
        .get(i)
        .map_or_else(|| format!("input{i}"), |n| n.to_string())
}

/// PyTorch's name for an index or mask an op kept.
fn index_name(node: &str) -> &'static str {
    match node {
        "WhereBackward0" => "condition",
        n if n.starts_with("Masked") => "mask",
        n if n.starts_with("Index") && n != "IndexBackward0" => "index",
        "GatherBackward0" | "ScatterAddBackward0" | "TakeBackward0" => "index",
        _ => "indices",
    }
}

/// PyTorch-style names for a node's saved tensors (`self`, `other`, `result`, `mat2`,
/// ...), made unique by a numeric suffix; the value is None once freed.
fn saved_names(n: &Node) -> Vec<(String, Option<crate::error::Result<Var>>)> {
    let mut out: Vec<(String, Option<crate::error::Result<Var>>)> = Vec::new();
    for (role, v) in n.saved_tensors() {
        let base = match role {
            SavedRole::Input(i) => input_name(&n.name, i),
            SavedRole::Output(0) => "result".to_string(),
            SavedRole::Output(j) => format!("result{j}"),
            SavedRole::Index => index_name(&n.name).to_string(),
            SavedRole::Other => "tensor".to_string(),
        };
        let mut name = base.clone();
        let mut k = 1;
        while out.iter().any(|(n, _)| *n == name) {
            name = format!("{base}{k}");
            k += 1;
        }
        out.push((name, v));
    }
    out
}

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
    target: Local<HookTarget>,
    id: u64,
}

enum HookTarget {
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
fn hook_callable(py: Python<'_>, m: &Weak<Meta>, id: u64) -> Option<Py<PyAny>> {
    let m = m.upgrade()?;
    let refs = m.host_refs.borrow();
    let (_, r) = refs.iter().find(|(i, _)| *i == id)?;
    r.downcast_ref::<Py<PyAny>>().map(|f| f.clone_ref(py))
}

/// Where a gradient hook's Python callable is kept.
enum Hooked {
    /// held by the hook itself
    Owned(Py<PyAny>),
    /// in the tensor's record (`Meta::host_refs`) under this id
    InRecord(Weak<Meta>, u64),
}

fn py_hook(hooked: Hooked) -> GradHook {
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

fn ones_grad(t: &Tensor) -> PyResult<Var> {
    if t.numel() != 1 {
        return Err(PyRuntimeError::new_err(
            "grad can be implicitly created only for scalar outputs",
        ));
    }
    if !t.dtype().is_float() {
        return Err(PyRuntimeError::new_err(format!(
            "grad can be implicitly created only for real scalar outputs but got {}",
            t.dtype()
        )));
    }
    Ok(Var::plain(Tensor::full(
        "backward",
        t.shape(),
        Scalar::Int(1),
        t.dtype(),
    )?))
}

fn vars_of(list: &Bound<'_, PyAny>) -> PyResult<Vec<Var>> {
    if let Ok(t) = list.cast::<PyTensor>() {
        return Ok(vec![t.borrow().var()?]);
    }
    let mut out = Vec::new();
    for item in list.try_iter()? {
        let item = item?;
        let t = item
            .cast::<PyTensor>()
            .map_err(|_| PyTypeError::new_err("expected a sequence of Tensors"))?;
        out.push(t.borrow().var()?);
    }
    Ok(out)
}

fn check_grad_shape(out: &Var, g: &Var, i: usize) -> PyResult<()> {
    if out.t.shape() != g.t.shape() {
        return Err(PyRuntimeError::new_err(format!(
            "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
            crate::error::fmt_shape(g.t.shape()),
            crate::error::fmt_shape(out.t.shape())
        )));
    }
    Ok(())
}

/// Pairs outputs with their gradients (implicit ones for scalars).
fn roots(outputs: &[Var], grads: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(Var, Var)>> {
    let given: Vec<Option<Var>> = match grads {
        None => vec![None; outputs.len()],
        Some(g) if g.is_none() => vec![None; outputs.len()],
        Some(g) => {
            if let Ok(t) = g.cast::<PyTensor>() {
                vec![Some(t.borrow().var()?)]
            } else {
                let mut v = Vec::new();
                for item in g.try_iter()? {
                    let item = item?;
                    v.push(if item.is_none() {
                        None
                    } else {
                        Some(
                            item.cast::<PyTensor>()
                                .map_err(|_| {
                                    PyTypeError::new_err("grad_tensors must be Tensors or None")
                                })?
                                .borrow()
                                .var()?,
                        )
                    });
                }
                v
            }
        }
    };
    if given.len() != outputs.len() {
        return Err(PyRuntimeError::new_err(format!(
            "got {} tensors and {} gradients",
            outputs.len(),
            given.len()
        )));
    }
    outputs
        .iter()
        .zip(given)
        .enumerate()
        .map(|(i, (o, g))| {
            let g = match g {
                Some(g) => {
                    check_grad_shape(o, &g, i)?;
                    g
                }
                None => ones_grad(&o.t)?,
            };
            Ok((o.clone(), g))
        })
        .collect()
}

/// `torch.autograd.backward`.
#[pyfunction]
#[pyo3(signature = (tensors, grad_tensors=None, retain_graph=None, create_graph=false, inputs=None))]
fn _run_backward(
    tensors: &Bound<'_, PyAny>,
    grad_tensors: Option<&Bound<'_, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let outs = vars_of(tensors)?;
    let r = roots(&outs, grad_tensors)?;
    let inputs = match inputs {
        Some(i) if !i.is_none() => Some(vars_of(i)?),
        _ => None,
    };
    if inputs.as_ref().is_some_and(|i| i.is_empty()) {
        return Err(PyRuntimeError::new_err(
            "'inputs' argument to backward() cannot be empty.",
        ));
    }
    let retain = retain_graph.unwrap_or(create_graph);
    run(
        &r,
        retain,
        create_graph,
        Mode::Accumulate(inputs.as_deref()),
    )
    .map_err(engine_err)?;
    Ok(())
}

/// `torch.autograd.grad`.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=false, allow_unused=None, materialize_grads=false))]
#[allow(clippy::too_many_arguments)]
fn _grad<'py>(
    py: Python<'py>,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    grad_outputs: Option<&Bound<'py, PyAny>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: Option<bool>,
    materialize_grads: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let outs = vars_of(outputs)?;
    let ins = vars_of(inputs)?;
    for (i, v) in ins.iter().enumerate() {
        if !v.requires_grad() {
            return Err(PyRuntimeError::new_err(format!(
                "One of the differentiated Tensors does not require grad (input {i})"
            )));
        }
    }
    let r = roots(&outs, grad_outputs)?;
    let retain = retain_graph.unwrap_or(create_graph);
    let allow_unused = allow_unused.unwrap_or(materialize_grads);
    let res = run(&r, retain, create_graph, Mode::Capture(&ins)).map_err(engine_err)?;
    let mut items: Vec<Py<PyAny>> = Vec::with_capacity(res.len());
    for (i, g) in res.into_iter().enumerate() {
        match g {
            Some(g) => {
                let g = if create_graph { g } else { g.detach() };
                items.push(wrap_var(py, g)?.into_any());
            }
            None if materialize_grads => {
                items.push(wrap_var(py, Var::plain(Tensor::zeros("grad", ins[i].t.shape(), ins[i].t.dtype())?))?.into_any())
            }
            None if allow_unused => items.push(py.None()),
            None => {
                return Err(PyRuntimeError::new_err(
                    "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.",
                ))
            }
        }
    }
    PyTuple::new(py, items)
}

#[pyfunction]
/// is_grad_enabled() -> bool
///
/// Whether autograd currently records operations (see :class:`ferric.no_grad`).
///
/// Example:
///     >>> ferric.is_grad_enabled()
///     True
fn is_grad_enabled() -> bool {
    ag::is_grad_enabled()
}

#[pyfunction]
fn _set_grad_enabled(mode: bool) {
    ag::set_grad_enabled(mode);
}

/// Turns `inference_mode` on or off for this thread (`ferric.inference_mode` uses it).
#[pyfunction]
fn _set_inference_mode(mode: bool) {
    crate::storage::set_inference_mode(mode);
}

/// Whether `inference_mode` is on for this thread.
#[pyfunction]
fn _is_inference_mode_enabled() -> bool {
    crate::storage::inference_mode()
}

#[pyfunction]
/// is_anomaly_enabled() -> bool
///
/// Whether anomaly detection (:class:`ferric.autograd.detect_anomaly`) is on.
///
/// Example:
///     >>> ferric.is_anomaly_enabled()
///     False
fn is_anomaly_enabled() -> bool {
    ag::is_anomaly_enabled()
}

static TRACE_PROVIDER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn python_trace() -> Option<String> {
    Python::attach(|py| {
        let f = TRACE_PROVIDER.get(py)?;
        f.bind(py).call0().ok()?.extract::<String>().ok()
    })
}

#[pyfunction]
fn _set_anomaly_enabled(py: Python<'_>, mode: bool, trace_provider: Option<Py<PyAny>>) {
    if let Some(f) = trace_provider {
        let _ = TRACE_PROVIDER.set(py, f);
        ag::set_trace_provider(python_trace);
    }
    ag::set_anomaly_enabled(mode);
}

/// Saved tensors of a custom `autograd.Function`, held by Rust so that the context does
/// not keep Python tensor objects (and through them the graph) alive in a cycle.
#[pyclass(name = "_SavedTensors", module = "ferric.autograd", frozen)]
pub struct PySaved {
    saved: Local<Vec<Option<Saved>>>,
    name: String,
}

#[pymethods]
impl PySaved {
    fn unpack<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let items: Vec<Py<PyAny>> = self
            .saved
            .get()?
            .iter()
            .map(|s| match s {
                Some(s) => Ok(wrap_var(py, s.get(&self.name)?)?.into_any()),
                None => Ok(py.None()),
            })
            .collect::<PyResult<_>>()?;
        PyTuple::new(py, items)
    }
}

/// Packs tensors passed to `ctx.save_for_backward`: outputs of the function keep only
/// their data (their node would be a cycle), inputs keep their graph.
#[pyfunction]
fn _pack_saved(
    tensors: &Bound<'_, PyAny>,
    outputs: &Bound<'_, PyAny>,
    name: String,
) -> PyResult<PySaved> {
    let outs: Vec<Bound<'_, PyAny>> = outputs.try_iter()?.collect::<PyResult<_>>()?;
    let mut saved = Vec::new();
    for item in tensors.try_iter()? {
        let item = item?;
        if item.is_none() {
            saved.push(None);
            continue;
        }
        let t = item.cast::<PyTensor>().map_err(|_| {
            PyTypeError::new_err(
                "save_for_backward can only save variables, but argument is not a Tensor",
            )
        })?;
        let v = t.borrow().var()?;
        let is_out = outs.iter().any(|o| o.is(&item));
        saved.push(Some(if is_out {
            Saved::output(&v.t)
        } else {
            Saved::input(&v)
        }));
    }
    // these are saved after their node was recorded: keep them off the next node's list
    ag::forget_just_saved();
    Ok(PySaved {
        saved: Local::new(saved),
        name,
    })
}

/// Records a custom Function: `outputs` (computed without grad) become results of a node
/// whose backward calls `backward(*grads)` in Python and returns one gradient (or None)
/// per entry of `inputs`.
#[pyfunction]
fn _record_function<'py>(
    py: Python<'py>,
    name: String,
    outputs: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyAny>,
    differentiable: Vec<bool>,
    backward: Py<PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let ins = vars_of(inputs)?;
    let outs: Vec<Var> = vars_of(outputs)?;
    let n_in = ins.len();
    let diff_outs: Vec<Tensor> = outs
        .iter()
        .zip(&differentiable)
        .filter(|(_, d)| **d)
        .map(|(o, _)| o.t.clone())
        .collect();
    let refs: Vec<&Var> = ins.iter().collect();
    let node_name = format!("{name}Backward");
    let bw: ag::BackwardFn = Box::new(move |grads, _needs| {
        call_py(|py| {
            let gs: Vec<Py<PyTensor>> = grads
                .iter()
                .map(|g| wrap_var(py, g.clone()))
                .collect::<PyResult<_>>()?;
            let r = backward.bind(py).call1(PyTuple::new(py, gs)?)?;
            let r: Vec<Bound<'_, PyAny>> = if r.is_instance_of::<PyTuple>() {
                r.try_iter()?.collect::<PyResult<_>>()?
            } else {
                vec![r]
            };
            if r.len() != n_in {
                return Err(PyRuntimeError::new_err(format!(
                    "function {name}Backward returned an incorrect number of gradients (expected {n_in}, got {})",
                    r.len()
                )));
            }
            r.iter()
                .map(|g| {
                    if g.is_none() {
                        Ok(None)
                    } else {
                        Ok(Some(
                            g.cast::<PyTensor>()
                                .map_err(|_| {
                                    PyTypeError::new_err("backward must return Tensors or None")
                                })?
                                .borrow()
                                .var()?,
                        ))
                    }
                })
                .collect()
        })
    });
    let recorded = if ag::needs_grad(&refs) && !diff_outs.is_empty() {
        ag::record_multi(&node_name, diff_outs, &refs, true, bw)
    } else {
        Vec::new()
    };
    let mut rec = recorded.into_iter();
    let list = PyList::empty(py);
    for (o, d) in outs.into_iter().zip(differentiable) {
        let v = if d {
            rec.next().unwrap_or(Var::plain(o.t))
        } else {
            Var::plain(o.t)
        };
        list.append(wrap_var(py, v)?)?;
    }
    Ok(list)
}

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
        let inputs = match inputs {
            Some(i) if !i.is_none() => Some(vars_of(i)?),
            _ => None,
        };
        if inputs.as_ref().is_some_and(|i| i.is_empty()) {
            return Err(PyRuntimeError::new_err(
                "'inputs' argument to backward() cannot be empty.",
            ));
        }
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

/// An identity for a tensor's autograd state (shared by all Python objects for the same
/// tensor, including `AccumulateGrad.variable`); None for a tensor without any.
#[pyfunction]
fn _autograd_id(t: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    let t = t
        .cast::<PyTensor>()
        .map_err(|_| PyTypeError::new_err("_autograd_id: expected a Tensor"))?;
    Ok(t.borrow().ag.get()?.map(|m| Rc::as_ptr(&m) as usize))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNode>()?;
    m.add_class::<PyHandle>()?;
    m.add_class::<PySaved>()?;
    m.add_function(wrap_pyfunction!(_run_backward, m)?)?;
    m.add_function(wrap_pyfunction!(_grad, m)?)?;
    m.add_function(wrap_pyfunction!(is_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_grad_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_inference_mode, m)?)?;
    m.add_function(wrap_pyfunction!(_is_inference_mode_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(is_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_set_anomaly_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(_pack_saved, m)?)?;
    m.add_function(wrap_pyfunction!(_record_function, m)?)?;
    m.add_function(wrap_pyfunction!(_autograd_id, m)?)?;
    crate::python::tensor::alias_methods(m, &["detach"])?;
    Ok(())
}
