//! One Python class per backward-node name (`MulBackward0`, `AccumulateGrad`, ...), each
//! a subclass of `ferric.autograd.graph.Node`, so `type(y.grad_fn).__name__` and
//! `isinstance` checks read as in PyTorch.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// Node name -> its class, made on first use and kept for the interpreter's lifetime
/// (there are a few hundred names at most).
static CLASSES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// The class for nodes named `name`: a subclass of `base` (`Node`).
pub fn class_for<'py>(
    py: Python<'py>,
    name: &str,
    base: Bound<'py, PyType>,
) -> PyResult<Bound<'py, PyType>> {
    let cache = CLASSES
        .get_or_init(py, || PyDict::new(py).unbind())
        .bind(py);
    if let Some(cls) = cache.get_item(name)? {
        return Ok(cls.cast_into::<PyType>()?);
    }
    let ns = PyDict::new(py);
    // no per-instance __dict__: the node's state lives in Rust
    ns.set_item("__slots__", PyTuple::empty(py))?;
    // PyTorch's node classes are C types without a module (`<class 'MulBackward0'>`)
    ns.set_item("__module__", "builtins")?;
    let cls = py
        .get_type::<PyType>()
        .call1((name, (base,), ns))?
        .cast_into::<PyType>()?;
    cache.set_item(name, &cls)?;
    Ok(cls)
}
