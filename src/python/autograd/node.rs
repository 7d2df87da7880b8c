//! `Node`: the recorded graph's nodes as Python sees them (`grad_fn`, `next_functions`,
//! saved tensors by name, metadata).

use crate::autograd::{Node, SavedRole, Var};
use crate::python::tensor::wrap_var;
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::cell::RefCell;
use std::rc::Rc;

use super::*;

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
