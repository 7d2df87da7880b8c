//! Bindings for the index op family: gather/scatter, index_* ops, masks, `where` and
//! `nonzero`. Module functions are the method descriptors (`ferric.gather = Tensor.gather`)
//! except `where`, whose first argument is the condition.

use crate::dtype::Scalar;
use crate::ops::index::masked::where_;
use crate::ops::index::scatter::{ScatterReduce, ScatterSrc};
use crate::python::arith::{arg, Arg};
use crate::python::convert::type_name;
use crate::python::tensor::{as_tensor_ref, wrap, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A fill value: a Python number or a 0-d tensor (`masked_fill`, `index_fill`).
fn fill_value(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    match arg(obj)? {
        Some(Arg::S(s)) => Ok(s),
        Some(Arg::T(t)) if t.ndim() == 0 => Ok(t.item()?),
        Some(Arg::T(t)) => Err(crate::error::Error::runtime(
            op,
            format!(
                "{op} only supports a 0-dimensional value tensor, but got tensor with {} \
                 dimension(s).",
                t.ndim()
            ),
        )
        .into()),
        None => Err(PyTypeError::new_err(format!(
            "{op}(): argument 'value' must be Number, not {}",
            type_name(obj)
        ))),
    }
}

/// `src` of `scatter`: a tensor, or a number (given positionally or as `value=`).
fn scatter_src(
    op: &str,
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Src> {
    match (src, value) {
        (Some(s), None) | (None, Some(s)) => match arg(s)? {
            Some(Arg::T(t)) => Ok(Src::T(t)),
            Some(Arg::S(v)) => Ok(Src::S(v)),
            None => Err(PyTypeError::new_err(format!(
                "{op}(): argument 'src' must be Tensor, not {}",
                type_name(s)
            ))),
        },
        _ => Err(PyTypeError::new_err(format!(
            "{op}() expects exactly one of 'src' and 'value'"
        ))),
    }
}

enum Src {
    T(Tensor),
    S(Scalar),
}

impl Src {
    fn as_src(&self) -> ScatterSrc<'_> {
        match self {
            Src::T(t) => ScatterSrc::Tensor(t),
            Src::S(s) => ScatterSrc::Value(*s),
        }
    }
}

/// The `indices` of `index_put`: a tuple/list of tensors or None.
fn index_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Option<Tensor>>> {
    let items: Vec<Bound<'_, PyAny>> = obj
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err("index_put_(): argument 'indices' must be tuple of Tensors")
        })?
        .collect::<PyResult<_>>()?;
    items
        .iter()
        .enumerate()
        .map(|(i, o)| {
            if o.is_none() {
                return Ok(None);
            }
            as_tensor_ref(o).map(Some).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "expected Tensor as element {i} in argument 0, but got {}",
                    type_name(o)
                ))
            })
        })
        .collect()
}

fn wrap_tuple(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Py<PyAny>> {
    let items: Vec<Py<PyTensor>> = ts
        .into_iter()
        .map(|t| wrap(py, t))
        .collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

fn operand_arg(op: &str, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Arg> {
    arg(obj)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}(): argument '{name}' must be Tensor or Number, not {}",
            type_name(obj)
        ))
    })
}

#[pymethods]
impl PyTensor {
    fn index_select(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyTensor>> {
        wrap(py, self.t.index_select(dim, &index.t)?)
    }

    #[pyo3(signature = (dim, index, *, sparse_grad=false))]
    fn gather(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        sparse_grad: bool,
    ) -> PyResult<Py<PyTensor>> {
        let _ = sparse_grad;
        wrap(py, self.t.gather(dim, &index.t)?)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    fn scatter(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<Py<PyTensor>> {
        let s = scatter_src("scatter", src, value)?;
        let r = ScatterReduce::parse(reduce)?;
        wrap(py, self.t.scatter("scatter", dim, &index.t, s.as_src(), r)?)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    fn scatter_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> PyResult<PyRef<'py, Self>> {
        let s = scatter_src("scatter_", src, value)?;
        let r = ScatterReduce::parse(reduce)?;
        slf.t.scatter_("scatter", dim, &index.t, s.as_src(), r)?;
        Ok(slf)
    }

    fn scatter_add(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyTensor>> {
        let s = ScatterSrc::Tensor(&src.t);
        wrap(
            py,
            self.t
                .scatter("scatter_add", dim, &index.t, s, ScatterReduce::Add)?,
        )
    }

    fn scatter_add_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        let s = ScatterSrc::Tensor(&src.t);
        slf.t
            .scatter_("scatter_add", dim, &index.t, s, ScatterReduce::Add)?;
        Ok(slf)
    }

    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let out = self.t.copy_as(self.t.dtype())?;
        out.index_add_(dim, &index.t, &source.t, alpha_arg(alpha)?)?;
        wrap(py, out)
    }

    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    fn index_add_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t
            .index_add_(dim, &index.t, &source.t, alpha_arg(alpha)?)?;
        Ok(slf)
    }

    fn index_fill(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let v = fill_value("index_fill_", value)?;
        let out = self.t.copy_as(self.t.dtype())?;
        out.index_fill_(dim, &index.t, v)?;
        wrap(py, out)
    }

    fn index_fill_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        let v = fill_value("index_fill_", value)?;
        slf.t.index_fill_(dim, &index.t, v)?;
        Ok(slf)
    }

    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        values: PyRef<'_, PyTensor>,
        accumulate: bool,
    ) -> PyResult<Py<PyTensor>> {
        let out = self.t.copy_as(self.t.dtype())?;
        out.index_put_(&index_list(indices)?, &values.t, accumulate)?;
        wrap(py, out)
    }

    #[pyo3(signature = (indices, values, accumulate=false))]
    fn index_put_<'py>(
        slf: PyRef<'py, Self>,
        indices: &Bound<'_, PyAny>,
        values: PyRef<'_, PyTensor>,
        accumulate: bool,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t
            .index_put_(&index_list(indices)?, &values.t, accumulate)?;
        Ok(slf)
    }

    fn take(&self, py: Python<'_>, index: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.t.take(&index.t)?)
    }

    fn masked_fill(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let v = fill_value("masked_fill_", value)?;
        wrap(py, self.t.masked_fill(&mask.t, v)?)
    }

    fn masked_fill_<'py>(
        slf: PyRef<'py, Self>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        let v = fill_value("masked_fill_", value)?;
        slf.t.masked_fill_(&mask.t, v)?;
        Ok(slf)
    }

    fn masked_select(&self, py: Python<'_>, mask: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.t.masked_select(&mask.t)?)
    }

    fn masked_scatter(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyTensor>> {
        let shape = crate::shape::broadcast_shapes(self.t.shape(), mask.t.shape())
            .map_err(|e| crate::error::Error::runtime("masked_scatter", e.msg))?;
        let out = self.t.broadcast_to(&shape)?.copy_as(self.t.dtype())?;
        out.masked_scatter_(&mask.t, &source.t)?;
        wrap(py, out)
    }

    fn masked_scatter_<'py>(
        slf: PyRef<'py, Self>,
        mask: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.t.masked_scatter_(&mask.t, &source.t)?;
        Ok(slf)
    }

    /// `x.where(condition, y)`: `x` where the condition holds, else `y`.
    #[pyo3(name = "where")]
    fn where_method(
        &self,
        py: Python<'_>,
        condition: PyRef<'_, PyTensor>,
        other: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let b = operand_arg("where", "other", other)?;
        let r = where_(
            &condition.t,
            crate::ops::binary::Operand::T(&self.t),
            b.operand(),
        )?;
        wrap(py, r)
    }

    #[pyo3(signature = (*, as_tuple=false))]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        if as_tuple {
            return wrap_tuple(py, self.t.nonzero_tuple()?);
        }
        Ok(wrap(py, self.t.nonzero()?)?.into_any())
    }

    fn argwhere(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, self.t.nonzero()?)
    }
}

fn alpha_arg(alpha: Option<&Bound<'_, PyAny>>) -> PyResult<Scalar> {
    match alpha {
        None => Ok(Scalar::Int(1)),
        Some(a) => crate::python::convert::scalar_arg(a)
            .ok_or_else(|| PyTypeError::new_err("index_add_(): alpha must be a number")),
    }
}

/// `ferric.where(condition, input, other)`; with only a condition it is
/// `nonzero(condition, as_tuple=True)`.
#[pyfunction]
#[pyo3(name = "where", signature = (condition, input=None, other=None))]
fn where_fn(
    py: Python<'_>,
    condition: PyRef<'_, PyTensor>,
    input: Option<&Bound<'_, PyAny>>,
    other: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    match (input, other) {
        (None, None) => wrap_tuple(py, condition.t.nonzero_tuple()?),
        (Some(a), Some(b)) => {
            let a = operand_arg("where", "input", a)?;
            let b = operand_arg("where", "other", b)?;
            Ok(wrap(py, where_(&condition.t, a.operand(), b.operand())?)?.into_any())
        }
        _ => Err(PyTypeError::new_err(
            "where() expects either only a condition or a condition, input and other",
        )),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(where_fn, m)?)?;
    crate::python::tensor::alias_methods(
        m,
        &[
            "index_select",
            "gather",
            "scatter",
            "scatter_add",
            "index_add",
            "index_fill",
            "index_put",
            "index_put_",
            "take",
            "masked_fill",
            "masked_select",
            "masked_scatter",
            "nonzero",
            "argwhere",
        ],
    )
}
