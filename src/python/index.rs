//! Bindings for the index op family: gather/scatter, index_* ops, masks, `where` and
//! `nonzero`. Module functions are the method descriptors (`ferric.gather = Tensor.gather`)
//! except `where`, whose first argument is the condition.

use crate::autograd::index as av;
use crate::autograd::pointwise::Arg as VA;
use crate::autograd::Var;
use crate::dtype::Scalar;
use crate::ops::index::masked::inplace_mask;
use crate::ops::index::scatter::{ScatterReduce, ScatterSrc};
use crate::python::arith::{inplace_with, varg, VArg};
use crate::python::convert::type_name;
use crate::python::out::{finish, OutDtype};
use crate::python::tensor::{as_tensor_ref, wrap, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A fill value: a Python number or a 0-d tensor (`masked_fill`, `index_fill`); a tensor
/// that requires grad gets a gradient.
enum FillV {
    S(Scalar),
    V(Var),
}

impl FillV {
    fn fill(&self) -> av::Fill<'_> {
        match self {
            FillV::S(s) => av::Fill::S(*s),
            FillV::V(v) => av::Fill::V(v),
        }
    }
    fn requires_grad(&self) -> bool {
        matches!(self, FillV::V(v) if v.requires_grad())
    }
}

fn fill_value(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<FillV> {
    let not_0d = |t: &Tensor| -> PyErr {
        crate::error::Error::runtime(
            op,
            format!(
                "{op} only supports a 0-dimensional value tensor, but got tensor with {} \
                 dimension(s).",
                t.ndim()
            ),
        )
        .into()
    };
    match varg(obj)? {
        Some(VArg::S(s)) => Ok(FillV::S(s)),
        Some(VArg::V(v)) if v.t.ndim() == 0 => Ok(FillV::V(v)),
        Some(VArg::V(v)) => Err(not_0d(&v.t)),
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
) -> PyResult<VArg> {
    match (src, value) {
        (Some(s), None) | (None, Some(s)) => varg(s)?.ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{op}(): argument 'src' must be Tensor, not {}",
                type_name(s)
            ))
        }),
        _ => Err(PyTypeError::new_err(format!(
            "{op}() expects exactly one of 'src' and 'value'"
        ))),
    }
}

fn as_src(v: &VArg) -> av::Src<'_> {
    match v {
        VArg::V(v) => av::Src::V(v),
        VArg::S(s) => av::Src::S(*s),
    }
}

fn raw_src(v: &VArg) -> ScatterSrc<'_> {
    match v {
        VArg::V(v) => ScatterSrc::Tensor(&v.t),
        VArg::S(s) => ScatterSrc::Value(*s),
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
            // PyTorch's argument parser takes tensors only here (no None for "all")
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

fn operand_arg(op: &str, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<VArg> {
    varg(obj)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}(): argument '{name}' must be Tensor or Number, not {}",
            type_name(obj)
        ))
    })
}

#[pymethods]
impl PyTensor {
    /// index_select(input, dim, index, *, out=None) -> Tensor
    ///
    /// Returns the entries of ``input`` at the positions ``index`` (a 1-D int tensor) along
    /// ``dim``, as a new tensor.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.index_select(ferric.tensor([[1, 2], [3, 4]]), 0, ferric.tensor([1, 1]))
    ///     tensor([[3, 4],
    ///             [3, 4]])
    #[pyo3(signature = (dim, index, *, out=None))]
    fn index_select(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let r = av::index_select(&self.var()?, dim, &index.t)?;
        finish(py, "index_select", out, OutDtype::IndexSelect, r)
    }

    #[pyo3(signature = (dim, index, *, sparse_grad=false, out=None))]
    /// gather(input, dim, index, *, sparse_grad=False, out=None) -> Tensor
    ///
    /// Picks values along ``dim``: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and
    /// likewise for other dimensions); the result has ``index``'s shape.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     sparse_grad (bool): must be False (no sparse gradients).
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.gather(ferric.tensor([[1, 2], [3, 4]]), 1, ferric.tensor([[0, 0], [1, 0]]))
    ///     tensor([[1, 1],
    ///             [4, 3]])
    fn gather(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        sparse_grad: bool,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = sparse_grad;
        let r = av::gather(&self.var()?, dim, &index.t)?;
        finish(py, "gather", out, OutDtype::Same, r)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    /// scatter(input, dim, index, src=None, value=None, *, reduce=None) -> Tensor
    ///
    /// Returns a copy of ``input`` with ``src`` (or the scalar ``value``) written at the positions
    /// ``index`` along ``dim``: ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     src (Tensor): the tensor to take the values from.
    ///     value (Number, optional): the value to write instead of ``src``.
    ///     reduce (str, optional): ``'add'`` or ``'multiply'`` to combine instead of writing.
    ///
    /// Example:
    ///     >>> ferric.scatter(ferric.zeros(2, 3), 0, ferric.tensor([[1, 0, 1]]), ferric.tensor([[5., 6., 7.]]))
    ///     tensor([[0., 6., 0.],
    ///             [5., 0., 7.]])
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
        let out = av::scatter("scatter", &self.var()?, dim, &index.t, as_src(&s), r)?;
        wrap_var(py, out)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    /// scatter_(dim, index, src=None, value=None, *, reduce=None) -> Tensor
    ///
    /// In-place version of :func:`ferric.scatter`.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     src (Tensor): the tensor to take the values from.
    ///     value (Number, optional): the value to write instead of ``src``.
    ///     reduce (str, optional): ``'add'`` or ``'multiply'`` to combine instead of writing.
    ///
    /// Example:
    ///     >>> x = ferric.zeros(2, 3)
    ///     >>> x.scatter_(1, ferric.tensor([[2], [0]]), ferric.tensor([[5.0], [6.0]]))
    ///     tensor([[0., 0., 5.],
    ///             [6., 0., 0.]])
    ///     >>> x.scatter_(1, ferric.tensor([[0], [0]]), 1.0, reduce='add')
    ///     tensor([[1., 0., 5.],
    ///             [7., 0., 0.]])
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
        inplace_with(
            &slf,
            "scatter_",
            s.requires_grad(),
            |t| t.scatter_("scatter", dim, &index.t, raw_src(&s), r),
            |old| av::scatter("scatter", old, dim, &index.t, as_src(&s), r),
        )?;
        Ok(slf)
    }

    /// scatter_add(input, dim, index, src) -> Tensor
    ///
    /// Like :func:`ferric.scatter`, but adds ``src`` at the positions (repeated indices
    /// accumulate).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     src (Tensor): the tensor to take the values from.
    ///
    /// Example:
    ///     >>> ferric.scatter_add(ferric.zeros(3), 0, ferric.tensor([0, 0, 2]), ferric.tensor([1., 2., 3.]))
    ///     tensor([3., 0., 3.])
    fn scatter_add(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyTensor>> {
        wrap_var(
            py,
            av::scatter_add(&self.var()?, dim, &index.t, &src.var()?)?,
        )
    }

    /// scatter_add_(dim, index, src) -> Tensor
    ///
    /// In-place version of :func:`ferric.scatter_add`.
    ///
    /// Example:
    ///     >>> x = ferric.zeros(3)
    ///     >>> x.scatter_add_(0, ferric.tensor([0, 0, 2]), ferric.tensor([1.0, 2.0, 3.0]))
    ///     tensor([3., 0., 3.])
    fn scatter_add_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        src: PyRef<'_, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        let s = src.var()?;
        inplace_with(
            &slf,
            "scatter_add_",
            s.requires_grad(),
            |t| {
                t.scatter_(
                    "scatter_add",
                    dim,
                    &index.t,
                    ScatterSrc::Tensor(&s.t),
                    ScatterReduce::Add,
                )
            },
            |old| av::scatter_add(old, dim, &index.t, &s),
        )?;
        Ok(slf)
    }

    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    /// index_add(input, dim, index, source, *, alpha=1) -> Tensor
    ///
    /// Returns a copy of ``input`` with ``alpha * source`` added at the positions ``index`` along
    /// ``dim`` (repeated indices accumulate).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     source (Tensor): the tensor to take the values from.
    ///     alpha (Number): the multiplier for ``source``.
    ///
    /// Example:
    ///     >>> ferric.index_add(ferric.zeros(3), 0, ferric.tensor([0, 0, 2]), ferric.tensor([1., 2., 3.]))
    ///     tensor([3., 0., 3.])
    pub(crate) fn index_add(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let out = av::index_add(
            &self.var()?,
            dim,
            &index.t,
            &source.var()?,
            alpha_arg(alpha)?,
        )?;
        wrap_var(py, out)
    }

    #[pyo3(signature = (dim, index, source, *, alpha=None))]
    /// index_add_(dim, index, source, *, alpha=1) -> Tensor
    ///
    /// In-place version of :func:`ferric.index_add`.
    ///
    /// Args:
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     source (Tensor): the tensor to take the values from.
    ///     alpha (Number): the multiplier for ``source``.
    ///
    /// Example:
    ///     >>> x = ferric.zeros(3, 2)
    ///     >>> x.index_add_(0, ferric.tensor([0, 2]), ferric.ones(2, 2), alpha=3)
    ///     tensor([[3., 3.],
    ///             [0., 0.],
    ///             [3., 3.]])
    fn index_add_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let (s, a) = (source.var()?, alpha_arg(alpha)?);
        inplace_with(
            &slf,
            "index_add_",
            s.requires_grad(),
            |t| t.index_add_(dim, &index.t, &s.t, a),
            |old| av::index_add(old, dim, &index.t, &s, a),
        )?;
        Ok(slf)
    }

    /// index_fill(input, dim, index, value) -> Tensor
    ///
    /// Returns a copy of ``input`` with the positions ``index`` along ``dim`` set to ``value``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (Tensor): the int64 indices.
    ///     value (Number): the value to write.
    ///
    /// Example:
    ///     >>> ferric.index_fill(ferric.zeros(2, 3), 1, ferric.tensor([0, 2]), 1.0)
    ///     tensor([[1., 0., 1.],
    ///             [1., 0., 1.]])
    fn index_fill(
        &self,
        py: Python<'_>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let v = fill_value("index_fill_", value)?;
        wrap_var(py, av::index_fill(&self.var()?, dim, &index.t, v.fill())?)
    }

    /// index_fill_(dim, index, value) -> Tensor
    ///
    /// In-place version of :func:`ferric.index_fill`.
    ///
    /// Example:
    ///     >>> x = ferric.zeros(2, 3)
    ///     >>> x.index_fill_(1, ferric.tensor([0, 2]), -1.0)
    ///     tensor([[-1.,  0., -1.],
    ///             [-1.,  0., -1.]])
    fn index_fill_<'py>(
        slf: PyRef<'py, Self>,
        dim: i64,
        index: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        let v = fill_value("index_fill_", value)?;
        inplace_with(
            &slf,
            "index_fill_",
            v.requires_grad(),
            |t| t.index_fill_(dim, &index.t, v.fill().scalar()?),
            |old| av::index_fill(old, dim, &index.t, v.fill()),
        )?;
        Ok(slf)
    }

    #[pyo3(signature = (indices, values, accumulate=false))]
    /// index_put(input, indices, values, accumulate=False) -> Tensor
    ///
    /// Returns a copy of ``input`` with ``input[indices] = values`` (or ``+=`` with ``accumulate``,
    /// where repeated indices add up).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     indices (tuple of Tensors): the index tensors, one per indexed dimension.
    ///     values (Tensor): the values to write, broadcast to the indexed shape.
    ///     accumulate (bool): add the values instead of writing them.
    ///
    /// Example:
    ///     >>> ferric.index_put(ferric.zeros(3), (ferric.tensor([0, 0]),), ferric.tensor(1.), accumulate=True)
    ///     tensor([2., 0., 0.])
    fn index_put(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        values: PyRef<'_, PyTensor>,
        accumulate: bool,
    ) -> PyResult<Py<PyTensor>> {
        let idx = index_list(indices)?;
        let out = av::index_put(&self.var()?, &idx, &values.var()?, accumulate)?;
        wrap_var(py, out)
    }

    #[pyo3(signature = (indices, values, accumulate=false))]
    /// index_put_(input, indices, values, accumulate=False) -> Tensor
    ///
    /// In-place version of :func:`ferric.index_put`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     indices (tuple of Tensors): the index tensors, one per indexed dimension.
    ///     values (Tensor): the values to write, broadcast to the indexed shape.
    ///     accumulate (bool): add the values instead of writing them.
    ///
    /// Example:
    ///     >>> ferric.zeros(3).index_put_((ferric.tensor([1]),), ferric.tensor(5.))
    ///     tensor([0., 5., 0.])
    fn index_put_<'py>(
        slf: PyRef<'py, Self>,
        indices: &Bound<'_, PyAny>,
        values: PyRef<'_, PyTensor>,
        accumulate: bool,
    ) -> PyResult<PyRef<'py, Self>> {
        let (idx, v) = (index_list(indices)?, values.var()?);
        inplace_with(
            &slf,
            "index_put_",
            v.requires_grad(),
            |t| t.index_put_(&idx, &v.t, accumulate),
            |old| av::index_put(old, &idx, &v, accumulate),
        )?;
        Ok(slf)
    }

    /// take(input, index) -> Tensor
    ///
    /// The elements of the flattened ``input`` at ``index``, in ``index``'s shape.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     index (Tensor): the int64 indices.
    ///
    /// Example:
    ///     >>> ferric.take(ferric.tensor([[1, 2], [3, 4]]), ferric.tensor([0, 3]))
    ///     tensor([1, 4])
    fn take(&self, py: Python<'_>, index: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::take(&self.var()?, &index.t)?)
    }

    /// masked_fill(input, mask, value) -> Tensor
    ///
    /// Returns a copy of ``input`` with ``value`` written where ``mask`` is True.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     mask (Tensor): a bool tensor broadcastable to ``input``.
    ///     value (Number or 0-d Tensor): the value to write.
    ///
    /// Example:
    ///     >>> ferric.masked_fill(ferric.zeros(3), ferric.tensor([True, False, True]), 1.0)
    ///     tensor([1., 0., 1.])
    fn masked_fill(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let v = fill_value("masked_fill_", value)?;
        wrap_var(py, av::masked_fill(&self.var()?, &mask.t, v.fill())?)
    }

    /// masked_fill_(mask, value) -> Tensor
    ///
    /// In-place version of :func:`ferric.masked_fill`.
    ///
    /// Args:
    ///     mask (Tensor): a bool tensor broadcastable to ``input``.
    ///     value (Number or 0-d Tensor): the value to write.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1.0, 2.0, 3.0])
    ///     >>> x.masked_fill_(x > 1.5, 0.0)
    ///     tensor([1., 0., 0.])
    fn masked_fill_<'py>(
        slf: PyRef<'py, Self>,
        mask: PyRef<'_, PyTensor>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        let v = fill_value("masked_fill_", value)?;
        inplace_with(
            &slf,
            "masked_fill_",
            v.requires_grad(),
            |t| t.masked_fill_(&mask.t, v.fill().scalar()?),
            |old| {
                // the mask must broadcast to self (not the other way round) in place
                inplace_mask("masked_fill_", &old.t, &mask.t)?;
                av::masked_fill(old, &mask.t, v.fill())
            },
        )?;
        Ok(slf)
    }

    /// masked_select(input, mask) -> Tensor
    ///
    /// Returns the elements of ``input`` where ``mask`` is True, as a 1-D tensor.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     mask (Tensor): a bool tensor broadcastable to ``input``.
    ///
    /// Example:
    ///     >>> ferric.masked_select(ferric.tensor([1, 2, 3]), ferric.tensor([True, False, True]))
    ///     tensor([1, 3])
    pub(crate) fn masked_select(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::masked_select(&self.var()?, &mask.t)?)
    }

    /// masked_scatter(input, mask, source) -> Tensor
    ///
    /// Returns a copy of ``input`` with the elements where ``mask`` is True replaced, in order, by
    /// the leading elements of ``source``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     mask (Tensor): a bool tensor broadcastable to ``input``.
    ///     source (Tensor): the tensor to take the values from.
    ///
    /// Example:
    ///     >>> ferric.masked_scatter(ferric.zeros(3), ferric.tensor([True, False, True]), ferric.tensor([1., 2.]))
    ///     tensor([1., 0., 2.])
    fn masked_scatter(
        &self,
        py: Python<'_>,
        mask: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
    ) -> PyResult<Py<PyTensor>> {
        let out = av::masked_scatter(&self.var()?, &mask.t, &source.var()?)?;
        wrap_var(py, out)
    }

    /// masked_scatter_(mask, source) -> Tensor
    ///
    /// In-place version of :func:`ferric.masked_scatter`.
    ///
    /// Example:
    ///     >>> x = ferric.zeros(4)
    ///     >>> x.masked_scatter_(ferric.tensor([True, False, True, False]), ferric.tensor([7.0, 8.0, 9.0]))
    ///     tensor([7., 0., 8., 0.])
    fn masked_scatter_<'py>(
        slf: PyRef<'py, Self>,
        mask: PyRef<'_, PyTensor>,
        source: PyRef<'_, PyTensor>,
    ) -> PyResult<PyRef<'py, Self>> {
        let s = source.var()?;
        inplace_with(
            &slf,
            "masked_scatter_",
            s.requires_grad(),
            |t| t.masked_scatter_(&mask.t, &s.t),
            |old| {
                inplace_mask("masked_scatter_", &old.t, &mask.t)?;
                av::masked_scatter(old, &mask.t, &s)
            },
        )?;
        Ok(slf)
    }

    /// where(condition, other) -> Tensor
    ///
    /// ``self.where(condition, other)`` is ``ferric.where(condition, self, other)``.
    ///
    /// Args:
    ///     condition (Tensor): a bool tensor, where to keep this tensor's values.
    ///     other (Tensor or Scalar): the values where ``condition`` is False.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([-1.0, 2.0, -3.0])
    ///     >>> x.where(x > 0, ferric.zeros(3))
    ///     tensor([0., 2., 0.])
    #[pyo3(name = "where")]
    fn where_method(
        &self,
        py: Python<'_>,
        condition: PyRef<'_, PyTensor>,
        other: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let b = operand_arg("where", "other", other)?;
        let me = self.var()?;
        wrap_var(py, av::where_(&condition.t, VA::V(&me), b.arg())?)
    }

    #[pyo3(signature = (*, as_tuple=false))]
    /// nonzero(input, *, as_tuple=False) -> LongTensor or tuple of LongTensors
    ///
    /// The indices of the nonzero elements: one row per element, or with ``as_tuple`` one index
    /// tensor per dimension.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     as_tuple (bool): return a tuple of index tensors, one per dimension.
    ///
    /// Example:
    ///     >>> ferric.nonzero(ferric.tensor([0, 3, 0, 4]))
    ///     tensor([[1],
    ///             [3]])
    pub(crate) fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        if as_tuple {
            return wrap_tuple(py, self.t.nonzero_tuple()?);
        }
        Ok(wrap(py, self.t.nonzero()?)?.into_any())
    }

    /// argwhere(input) -> LongTensor
    ///
    /// Returns the indices of the nonzero elements, one row per element: shape ``(nnz,
    /// input.dim())``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.argwhere(ferric.tensor([[0, 1], [2, 0]]))
    ///     tensor([[0, 1],
    ///             [1, 0]])
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

/// where(condition, input, other, *, out=None) -> Tensor
///
/// Returns the elements of ``input`` where ``condition`` holds and those of ``other``
/// elsewhere (all three broadcast). With only a condition it is
/// ``nonzero(condition, as_tuple=True)``.
///
/// Args:
///     condition (Tensor): a bool tensor, where to take ``input``.
///     input (Tensor or Scalar): the values where ``condition`` is True.
///     other (Tensor or Scalar): the values where ``condition`` is False.
///     out (Tensor, optional): receives the result of the three-argument form.
///
/// Example:
///     >>> x = ferric.tensor([[-1.0, 2.0], [3.0, -4.0]])
///     >>> ferric.where(x > 0, x, 0.0)
///     tensor([[0., 2.],
///             [3., 0.]])
///     >>> ferric.where(x > 0)
///     (tensor([0, 1]), tensor([1, 0]))
#[pyfunction]
#[pyo3(name = "where", signature = (condition, input=None, other=None, *, out=None))]
fn where_fn(
    py: Python<'_>,
    condition: PyRef<'_, PyTensor>,
    input: Option<&Bound<'_, PyAny>>,
    other: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    match (input, other) {
        (None, None) if out.is_none_or(|o| o.is_none()) => {
            wrap_tuple(py, condition.t.nonzero_tuple()?)
        }
        (None, None) => Err(PyTypeError::new_err(
            "where() received an invalid combination of arguments - got (Tensor, out=Tensor), \
             but expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, \
             Tensor other, *, Tensor out = None)",
        )),
        (Some(a), Some(b)) => {
            if out.is_some_and(|o| !o.is_none()) {
                // only the all-tensor overload of torch.where takes out=
                for (i, (name, v)) in [("input", a), ("other", b)].into_iter().enumerate() {
                    if v.cast::<PyTensor>().is_err() {
                        return Err(PyTypeError::new_err(format!(
                            "where(): argument '{name}' (position {}) must be Tensor, not {}",
                            i + 2,
                            type_name(v)
                        )));
                    }
                }
            }
            let a = operand_arg("where", "input", a)?;
            let b = operand_arg("where", "other", b)?;
            let r = av::where_(&condition.t, a.arg(), b.arg())?;
            finish(py, "where", out, OutDtype::Where, r)
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
