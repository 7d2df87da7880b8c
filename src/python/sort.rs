//! Bindings for sorting and selection (`sort`, `argsort`, `msort`, `topk`, `kthvalue`,
//! `median`, `nanmedian`, `mode`) as `Tensor` methods, exposed as module functions too
//! (`ferric.topk = Tensor.topk`). Each method converts its arguments and calls
//! `autograd::sort`; pairs come back as `ferric.return_types` named tuples.

use crate::autograd::sort as av;
use crate::autograd::Var;
use crate::python::convert::{index_int, scalar_arg};
use crate::python::reduce::{keepdim_needs_dim, named};
use crate::python::tensor::{as_tensor_ref, wrap, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyModule;

type Arg<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

// `text_signature`s spell out `dim=-1`: PyO3 renders a negative default as `...`, which
// `__text_signature__` (and stubtest) would read as Ellipsis.

#[pymethods]
impl PyTensor {
    /// `stable` is keyword-only, as in PyTorch's signatures.
    #[pyo3(
        signature = (dim=-1, descending=false, *, stable=None),
        text_signature = "(self, /, dim=-1, descending=False, *, stable=None)"
    )]
    fn sort(
        &self,
        py: Python<'_>,
        dim: i64,
        descending: bool,
        stable: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let stable = stable.unwrap_or(false);
        let (v, i) = av::sort(&self.var()?, dim, descending, stable)?;
        named(py, "sort", v, Var::plain(i))
    }

    #[pyo3(
        signature = (dim=-1, descending=false, *, stable=false),
        text_signature = "(self, /, dim=-1, descending=False, *, stable=False)"
    )]
    fn argsort(
        &self,
        py: Python<'_>,
        dim: i64,
        descending: bool,
        stable: bool,
    ) -> PyResult<Py<PyTensor>> {
        let (_, i) = crate::ops::sort::sort(&self.var()?.t, dim, descending, stable)?;
        wrap_var(py, Var::plain(i))
    }

    fn msort(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::sort(&self.var()?, 0, false, false)?.0)
    }

    #[pyo3(
        signature = (k, dim=-1, largest=true, sorted=true),
        text_signature = "(self, /, k, dim=-1, largest=True, sorted=True)"
    )]
    fn topk(
        &self,
        py: Python<'_>,
        k: i64,
        dim: i64,
        largest: bool,
        sorted: bool,
    ) -> PyResult<Py<PyAny>> {
        let (v, i) = av::topk(&self.var()?, k, dim, largest, sorted)?;
        named(py, "topk", v, Var::plain(i))
    }

    #[pyo3(
        signature = (k, dim=-1, keepdim=false),
        text_signature = "(self, /, k, dim=-1, keepdim=False)"
    )]
    fn kthvalue(&self, py: Python<'_>, k: i64, dim: i64, keepdim: bool) -> PyResult<Py<PyAny>> {
        let (v, i) = av::kthvalue(&self.var()?, k, dim, keepdim)?;
        named(py, "kthvalue", v, Var::plain(i))
    }

    #[pyo3(signature = (dim=None, keepdim=None))]
    fn median(&self, py: Python<'_>, dim: Arg, keepdim: Option<bool>) -> PyResult<Py<PyAny>> {
        median(py, &self.var()?, dim, keepdim, false)
    }

    #[pyo3(signature = (dim=None, keepdim=None))]
    fn nanmedian(&self, py: Python<'_>, dim: Arg, keepdim: Option<bool>) -> PyResult<Py<PyAny>> {
        median(py, &self.var()?, dim, keepdim, true)
    }

    #[pyo3(signature = (sorted=true, return_inverse=false, return_counts=false, dim=None))]
    fn unique(
        &self,
        py: Python<'_>,
        sorted: bool,
        return_inverse: bool,
        return_counts: bool,
        dim: Option<i64>,
    ) -> PyResult<Py<PyAny>> {
        let _ = sorted;
        only_flat("unique", dim)?;
        let r = crate::ops::search::unique(&self.t, false)?;
        unique_result(py, &self.var()?, r, false, return_inverse, return_counts)
    }

    #[pyo3(signature = (return_inverse=false, return_counts=false, dim=None))]
    fn unique_consecutive(
        &self,
        py: Python<'_>,
        return_inverse: bool,
        return_counts: bool,
        dim: Option<i64>,
    ) -> PyResult<Py<PyAny>> {
        only_flat("unique_consecutive", dim)?;
        let r = crate::ops::search::unique(&self.t, true)?;
        unique_result(py, &self.var()?, r, true, return_inverse, return_counts)
    }

    #[pyo3(
        signature = (dim=-1, keepdim=false),
        text_signature = "(self, /, dim=-1, keepdim=False)"
    )]
    fn mode(&self, py: Python<'_>, dim: i64, keepdim: bool) -> PyResult<Py<PyAny>> {
        let (v, i) = av::mode(&self.var()?, dim, keepdim)?;
        named(py, "mode", v, Var::plain(i))
    }
}

/// `median()` -> 0-d tensor; `median(dim, keepdim)` -> (values, indices).
fn median(
    py: Python<'_>,
    t: &Var,
    dim: Arg,
    keepdim: Option<bool>,
    nan: bool,
) -> PyResult<Py<PyAny>> {
    let name = if nan { "nanmedian" } else { "median" };
    let keepdim = keepdim_needs_dim(name, dim, keepdim)?;
    match dim.filter(|d| !d.is_none()) {
        None => Ok(wrap_var(py, av::median_all(t, nan)?)?.into_any()),
        Some(d) => {
            let (v, i) = av::median_dim(t, index_int(d, "dim")?, keepdim, nan)?;
            named(py, name, v, Var::plain(i))
        }
    }
}

/// A tensor argument or a Python number (a 0-d tensor); the flag says it was a number.
fn tensor_or_scalar(op: &str, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<(Tensor, bool)> {
    if let Some(t) = as_tensor_ref(obj) {
        return Ok((t, false));
    }
    match scalar_arg(obj) {
        Some(s) => Ok((Tensor::scalar(s, s.dtype()), true)),
        None => Err(PyTypeError::new_err(format!(
            "{op}(): argument '{name}' must be Tensor or Number"
        ))),
    }
}

fn no_int32(op: &str, out_int32: bool) -> PyResult<()> {
    if out_int32 {
        return Err(PyNotImplementedError::new_err(format!(
            "{op}(): out_int32=True is not supported: ferric has no int32 dtype"
        )));
    }
    Ok(())
}

/// `ferric.searchsorted(sorted_sequence, input, *, out_int32=False, right=False,
/// side=None, sorter=None)`.
#[pyfunction]
#[pyo3(signature = (sorted_sequence, input, *, out_int32=false, right=false, side=None, sorter=None))]
fn searchsorted(
    py: Python<'_>,
    sorted_sequence: PyRef<'_, PyTensor>,
    input: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<PyRef<'_, PyTensor>>,
) -> PyResult<Py<PyTensor>> {
    no_int32("searchsorted", out_int32)?;
    let right = match side {
        None => right,
        Some("right") => true,
        Some("left") if right => {
            return Err(PyRuntimeError::new_err(
                "torch.searchsorted(): side and right can't be set to opposites, got side of \
                 left while right was True",
            ))
        }
        Some("left") => false,
        Some(s) => {
            return Err(PyRuntimeError::new_err(format!(
                "torch.searchsorted(): side can only be 'left' or 'right' but got {s}"
            )))
        }
    };
    let (vals, scalar) = tensor_or_scalar("searchsorted", "input", input)?;
    let sorter = sorter.map(|s| s.t.clone());
    let out = crate::ops::search::searchsorted(
        &sorted_sequence.t,
        &vals,
        right,
        sorter.as_ref(),
        scalar,
    )?;
    wrap(py, out)
}

/// `ferric.bucketize(input, boundaries, *, out_int32=False, right=False)`.
#[pyfunction]
#[pyo3(signature = (input, boundaries, *, out_int32=false, right=false))]
fn bucketize(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    boundaries: PyRef<'_, PyTensor>,
    out_int32: bool,
    right: bool,
) -> PyResult<Py<PyTensor>> {
    no_int32("bucketize", out_int32)?;
    let (vals, scalar) = tensor_or_scalar("bucketize", "input", input)?;
    wrap(
        py,
        crate::ops::search::bucketize(&vals, &boundaries.t, right, scalar)?,
    )
}

/// The result of `unique`: the values alone, or a tuple with the asked-for extras.
/// Float values of an input that requires grad stay in the graph as in PyTorch, under a
/// node (`Unique2Backward0`, `UniqueConsecutiveBackward0`) whose backward raises
/// PyTorch's NotImplementedError, instead of coming back silently detached.
fn unique_result(
    py: Python<'_>,
    input: &Var,
    r: (Tensor, Tensor, Tensor),
    consecutive: bool,
    inverse: bool,
    counts: bool,
) -> PyResult<Py<PyAny>> {
    let values = if r.0.dtype().is_float() && crate::autograd::needs_grad(&[input]) {
        let (node, aten) = if consecutive {
            ("UniqueConsecutiveBackward0", "unique_consecutive")
        } else {
            ("Unique2Backward0", "_unique2")
        };
        crate::autograd::record(
            node,
            r.0,
            &[input],
            false,
            Box::new(move |_, _| {
                Err(crate::error::Error::not_implemented(
                    "",
                    format!("the derivative for '{aten}' is not implemented."),
                ))
            }),
        )
    } else {
        Var::plain(r.0)
    };
    let vals = wrap_var(py, values)?.into_any();
    if !inverse && !counts {
        return Ok(vals);
    }
    let mut items = vec![vals];
    if inverse {
        items.push(wrap(py, r.1)?.into_any());
    }
    if counts {
        items.push(wrap(py, r.2)?.into_any());
    }
    Ok(pyo3::types::PyTuple::new(py, items)?.into_any().unbind())
}

fn only_flat(op: &str, dim: Option<i64>) -> PyResult<()> {
    if dim.is_some() {
        return Err(PyNotImplementedError::new_err(format!(
            "{op}(): dim= is not supported yet in ferric (dim=None only)"
        )));
    }
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(bucketize, m)?)?;
    crate::python::tensor::alias_methods(
        m,
        &[
            "sort",
            "argsort",
            "msort",
            "topk",
            "kthvalue",
            "median",
            "nanmedian",
            "mode",
            "unique",
            "unique_consecutive",
        ],
    )
}
