//! View and shape methods, and `__getitem__` / `__setitem__`.

use crate::autograd::{self, views as av, Var};
use crate::dtype::DType;
use crate::ops::indexing::{getitem, setitem, IndexItem};
use crate::python::arith::{arg, Arg};
use crate::python::convert::{int_list, size_args, type_name};
use crate::python::tensor::{as_tensor_ref, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PySlice, PyTuple};
use std::rc::Rc;

fn wrap_all(py: Python<'_>, vs: Vec<Var>) -> PyResult<Bound<'_, PyTuple>> {
    let items: Vec<Py<PyTensor>> = vs
        .into_iter()
        .map(|v| wrap_var(py, v))
        .collect::<PyResult<_>>()?;
    PyTuple::new(py, items)
}

/// Splits `x` into pieces along `dim` as differentiable views (`unbind`, `split`, `chunk`).
fn pieces(
    x: &Var,
    name: &str,
    pieces: Vec<Tensor>,
    dim: i64,
    select: bool,
) -> crate::error::Result<Vec<Var>> {
    if !autograd::needs_grad(&[x]) {
        return Ok(pieces.into_iter().map(Var::plain).collect());
    }
    let mut start = 0i64;
    let mut out = Vec::with_capacity(pieces.len());
    for (i, p) in pieces.iter().enumerate() {
        let v = if select {
            let idx = i as i64;
            av::view_op(name, x, Rc::new(move |t: &Tensor| t.select(dim, idx)))?
        } else {
            let d = crate::shape::normalize_dim(dim, x.t.ndim())?;
            let len = p.shape()[d] as i64;
            let s0 = start;
            start += len;
            av::view_op(name, x, Rc::new(move |t: &Tensor| t.narrow(dim, s0, len)))?
        };
        // one of several views made at once: in-place writes to it are refused
        if let Some(m) = &v.meta {
            if let Some(vi) = m.view_of.borrow_mut().as_mut() {
                let op = match name {
                    "UnbindBackward0" => "Unbind",
                    "SplitWithSizesBackward0" => "SplitWithSizes",
                    _ => "Split",
                };
                vi.multi_output = Some((op, i));
            }
        }
        out.push(v);
    }
    Ok(out)
}

fn opt_int(obj: Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if obj.is_none() {
        Ok(None)
    } else {
        Ok(Some(obj.extract::<i64>().map_err(|_| {
            PyTypeError::new_err(
                "slice indices must be integers or None or have an __index__ method",
            )
        })?))
    }
}

/// Converts one Python index component.
fn index_item(obj: &Bound<'_, PyAny>) -> PyResult<IndexItem> {
    if obj.is_none() {
        return Ok(IndexItem::None);
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(IndexItem::Ellipsis);
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        return Ok(IndexItem::Slice(
            opt_int(s.getattr("start")?)?,
            opt_int(s.getattr("stop")?)?,
            opt_int(s.getattr("step")?)?,
        ));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(IndexItem::Tensor(Tensor::scalar(
            crate::dtype::Scalar::Bool(obj.extract()?),
            DType::Bool,
        )));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(IndexItem::Int(obj.extract()?));
    }
    if let Some(t) = as_tensor_ref(obj) {
        if t.ndim() == 0 && matches!(t.dtype(), DType::I64 | DType::I32) {
            return Ok(IndexItem::Int(t.item()?.to_i64()));
        }
        return match t.dtype() {
            DType::I64 | DType::Bool => Ok(IndexItem::Tensor(t)),
            // int32 indices are positions; uint8 ones are a (legacy) mask, as in PyTorch
            DType::I32 => Ok(IndexItem::Tensor(t.to_dtype(DType::I64)?)),
            DType::U8 => Ok(IndexItem::Tensor(t.to_dtype(DType::Bool)?)),
            _ => Err(PyIndexError::new_err(
                "tensors used as indices must be long, int, byte or bool tensors",
            )),
        };
    }
    // a `range` indexes as the list of its values (PyTorch reads it as a sequence)
    let as_list;
    let obj = if obj.is_instance_of::<pyo3::types::PyRange>() {
        as_list = PyList::new(obj.py(), obj.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
        as_list.as_any()
    } else {
        obj
    };
    if obj.is_instance_of::<PyList>() || crate::python::convert::is_ndarray(obj) {
        let t = crate::python::data::tensor_from_data(obj, None)?;
        return match t.dtype() {
            DType::I64 | DType::Bool => Ok(IndexItem::Tensor(t)),
            DType::I32 => Ok(IndexItem::Tensor(t.to_dtype(DType::I64)?)),
            DType::U8 => Ok(IndexItem::Tensor(t.to_dtype(DType::Bool)?)),
            _ if t.numel() == 0 => Ok(IndexItem::Tensor(t.to_dtype(DType::I64)?)),
            _ => Err(PyIndexError::new_err(
                "tensors used as indices must be long, int, byte or bool tensors",
            )),
        };
    }
    // objects with __index__ (NumPy ints)
    if let Ok(i) = obj.call_method0("__index__") {
        return Ok(IndexItem::Int(i.extract()?));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() {
        // PyTorch reads a string index as a sequence to make an index tensor from
        return Err(PyTypeError::new_err("new(): invalid data type 'str'"));
    }
    Err(PyIndexError::new_err(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
        type_name(obj)
    )))
}

/// PyTorch counts the dims a tuple of indices consumes before it reads any item, so
/// too many indices is an `IndexError` even when an item is of a bad type.
fn check_index_count<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    ndim: usize,
) -> PyResult<()> {
    let mut count = 0usize;
    for k in items {
        if let Some(t) = as_tensor_ref(&k) {
            count += if t.dtype() == DType::Bool {
                t.ndim()
            } else {
                1
            };
        } else if !(k.is_none() || k.is_instance_of::<PyEllipsis>() || k.is_instance_of::<PyBool>())
        {
            count += 1;
        }
    }
    if count > ndim {
        return Err(PyIndexError::new_err(format!(
            "too many indices for tensor of dimension {ndim}"
        )));
    }
    Ok(())
}

fn index_items(key: &Bound<'_, PyAny>, ndim: usize) -> PyResult<Vec<IndexItem>> {
    if let Ok(t) = key.cast::<PyTuple>() {
        check_index_count(t.iter(), ndim)?;
        return t.iter().map(|k| index_item(&k)).collect();
    }
    // PyTorch (like old NumPy) still reads a list holding sequences, slices, None,
    // Ellipsis or tensors as a tuple of indices, with a deprecation warning.
    if let Ok(l) = key.cast::<PyList>() {
        let tuple_like = l.len() < 32
            && l.iter().any(|k| {
                k.is_none()
                    || k.is_instance_of::<PyEllipsis>()
                    || k.is_instance_of::<PySlice>()
                    || k.is_instance_of::<PyList>()
                    || k.is_instance_of::<PyTuple>()
                    // a string is a sequence too, for PyTorch's rule
                    || k.is_instance_of::<pyo3::types::PyString>()
                    || k.cast::<PyTensor>().is_ok()
            });
        if tuple_like {
            let py = key.py();
            let warn = py.import("warnings")?;
            warn.call_method1(
                "warn",
                (
                    "Using a non-tuple sequence for multidimensional indexing is deprecated; use \
                     x[tuple(seq)] instead of x[seq]. A future release will interpret it as a tensor index.",
                    py.get_type::<pyo3::exceptions::PyUserWarning>(),
                    2,
                ),
            )?;
            check_index_count(l.iter(), ndim)?;
            return l.iter().map(|k| index_item(&k)).collect();
        }
    }
    Ok(vec![index_item(key)?])
}

fn value_tensor(op: &str, v: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Tensor> {
    match arg(v)? {
        Some(Arg::T(t)) => Ok(t),
        Some(Arg::S(s)) => Ok(Tensor::scalar(s, dtype)),
        None => {
            // lists, and ints beyond int64 (a float for float tensors, else PyTorch's
            // overflow error)
            if v.is_instance_of::<PyList>()
                || v.is_instance_of::<PyTuple>()
                || v.is_instance_of::<pyo3::types::PyInt>()
            {
                return crate::python::data::tensor_from_data(v, Some(dtype));
            }
            Err(PyTypeError::new_err(format!(
                "{op}: can't assign a {} to a ferric tensor",
                type_name(v)
            )))
        }
    }
}

#[pymethods]
impl PyTensor {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let items = index_items(key, self.t.ndim())?;
        let x = self.var()?;
        if x.meta.is_none() {
            return wrap_var(py, Var::plain(getitem(&self.t, &items)?));
        }
        wrap_var(py, av::getitem(&x, &items)?)
    }

    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = index_items(key, self.t.ndim())?;
        if let Some(s) = crate::python::convert::scalar_arg(value) {
            if !self.requires_grad()? {
                return Ok(crate::ops::indexing::setitem_scalar(&self.t, &items, s)?);
            }
        }
        let v = match value.cast::<PyTensor>() {
            Ok(t) => t.borrow().var()?,
            Err(_) => Var::plain(value_tensor("__setitem__", value, self.t.dtype())?),
        };
        crate::python::arith::inplace_with(
            self,
            "__setitem__",
            v.requires_grad(),
            |t| setitem(t, &items, &v.t),
            |old| av::index_put(old, &items, &v),
        )
    }

    #[pyo3(signature = (*shape))]
    /// view(*shape) -> Tensor
    ///
    /// Returns a view with the same elements in ``shape``; raises if the strides do not allow a
    /// view (use :meth:`Tensor.reshape`). ``view(dtype)`` reinterprets the bytes as another dtype.
    ///
    /// Args:
    ///     shape (int...): the new shape, as separate ints or one sequence; one entry may be -1.
    ///
    /// Example:
    ///     >>> ferric.arange(6).view(2, 3)
    ///     tensor([[0, 1, 2],
    ///             [3, 4, 5]])
    fn view(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::view(&self.var()?, &size_args(shape)?)?)
    }
    /// view_as(other) -> Tensor
    ///
    /// ``self.view(other.size())``.
    ///
    /// Args:
    ///     other (Tensor): the tensor whose shape to use.
    ///
    /// Example:
    ///     >>> ferric.arange(4).view_as(ferric.zeros(2, 2))
    ///     tensor([[0, 1],
    ///             [2, 3]])
    fn view_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        wrap_var(py, av::view(&self.var()?, &s)?)
    }
    #[pyo3(signature = (*shape))]
    /// reshape(input, shape) -> Tensor
    ///
    /// Returns a tensor with ``input``'s elements in the new ``shape``: a view when the strides
    /// allow, else a copy.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     shape (int...): the new shape, as separate ints or one sequence; one entry may be -1.
    ///
    /// Example:
    ///     >>> ferric.reshape(ferric.arange(6), (2, -1))
    ///     tensor([[0, 1, 2],
    ///             [3, 4, 5]])
    fn reshape(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::reshape(&self.var()?, &size_args(shape)?)?)
    }
    /// reshape_as(other) -> Tensor
    ///
    /// ``self.reshape(other.size())``.
    ///
    /// Args:
    ///     other (Tensor): the tensor whose shape to use.
    ///
    /// Example:
    ///     >>> ferric.arange(4).reshape_as(ferric.zeros(2, 2))
    ///     tensor([[0, 1],
    ///             [2, 3]])
    fn reshape_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        wrap_var(py, av::reshape(&self.var()?, &s)?)
    }
    #[pyo3(signature = (*dims))]
    /// permute(input, dims) -> Tensor
    ///
    /// Returns a view with the dimensions reordered as ``dims``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dims (tuple of ints): the new order of the dimensions.
    ///
    /// Example:
    ///     >>> ferric.permute(ferric.zeros(2, 3, 4), (2, 0, 1)).shape
    ///     ferric.Size([4, 2, 3])
    fn permute(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::permute(&self.var()?, &size_args(dims)?)?)
    }
    /// transpose(input, dim0, dim1) -> Tensor
    ///
    /// Returns a view with dimensions ``dim0`` and ``dim1`` swapped.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim0 (int): the first dimension.
    ///     dim1 (int): the second dimension.
    ///
    /// Example:
    ///     >>> ferric.transpose(ferric.zeros(2, 3), 0, 1).shape
    ///     ferric.Size([3, 2])
    fn transpose(&self, py: Python<'_>, dim0: i64, dim1: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::transpose(&self.var()?, dim0, dim1)?)
    }
    /// swapaxes(input, axis0, axis1) -> Tensor
    ///
    /// Alias for :func:`ferric.transpose`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     axis0 (int): the first dimension.
    ///     axis1 (int): the second dimension.
    ///
    /// Example:
    ///     >>> ferric.swapaxes(ferric.zeros(2, 3), 0, 1).shape
    ///     ferric.Size([3, 2])
    fn swapaxes(&self, py: Python<'_>, axis0: i64, axis1: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::transpose(&self.var()?, axis0, axis1)?)
    }
    /// swapdims(input, dim0, dim1) -> Tensor
    ///
    /// Alias for :func:`ferric.transpose`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim0 (int): the first dimension.
    ///     dim1 (int): the second dimension.
    ///
    /// Example:
    ///     >>> ferric.swapdims(ferric.zeros(2, 3), 0, 1).shape
    ///     ferric.Size([3, 2])
    fn swapdims(&self, py: Python<'_>, dim0: i64, dim1: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::transpose(&self.var()?, dim0, dim1)?)
    }
    /// t(input) -> Tensor
    ///
    /// Transposes a tensor of at most 2 dimensions (0-d and 1-D tensors are returned as they are).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.t(ferric.tensor([[1, 2], [3, 4]]))
    ///     tensor([[1, 3],
    ///             [2, 4]])
    fn t(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        let x = self.var()?;
        let out = self.t.t()?;
        if self.t.ndim() < 2 {
            return wrap_var(py, av::reshape_like("AliasBackward0", &x, out)?);
        }
        wrap_var(py, av::transpose_as("TBackward0", &x, 0, 1)?)
    }
    #[getter(T)]
    fn big_t(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        let n = self.t.ndim() as i64;
        let rev: Vec<i64> = (0..n).rev().collect();
        wrap_var(py, av::permute(&self.var()?, &rev)?)
    }
    #[getter(mT)]
    fn m_t(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        self.t.mt()?;
        wrap_var(py, av::transpose(&self.var()?, -2, -1)?)
    }
    #[pyo3(signature = (*sizes))]
    /// expand(*sizes) -> Tensor
    ///
    /// Returns a view with size-1 dimensions broadcast to ``sizes`` (-1 keeps a size), without
    /// copying: the new elements share memory (stride 0).
    ///
    /// Args:
    ///     sizes (int...): the sizes, as separate ints or one sequence.
    ///
    /// Example:
    ///     >>> ferric.tensor([[1], [2]]).expand(2, 3)
    ///     tensor([[1, 1, 1],
    ///             [2, 2, 2]])
    fn expand(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::expand_sizes(&self.var()?, &size_args(sizes)?)?)
    }
    /// expand_as(other) -> Tensor
    ///
    /// ``self.expand(other.size())``.
    ///
    /// Args:
    ///     other (Tensor): the tensor whose shape to expand to.
    ///
    /// Example:
    ///     >>> ferric.tensor([1, 2]).expand_as(ferric.zeros(2, 2))
    ///     tensor([[1, 2],
    ///             [1, 2]])
    fn expand_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        wrap_var(py, av::expand_sizes(&self.var()?, &s)?)
    }
    /// broadcast_to(input, size) -> Tensor
    ///
    /// Returns a view of ``input`` broadcast to ``size`` (no copy; see :meth:`Tensor.expand`).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     size (tuple of ints): the target shape.
    ///
    /// Example:
    ///     >>> ferric.broadcast_to(ferric.tensor([1, 2]), (2, 2))
    ///     tensor([[1, 2],
    ///             [1, 2]])
    fn broadcast_to(&self, py: Python<'_>, size: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let s = int_list(size, "size")?;
        wrap_var(py, av::expand_sizes(&self.var()?, &s)?)
    }
    #[pyo3(signature = (dim=None))]
    /// squeeze(input, dim=None) -> Tensor
    ///
    /// Returns a view without the size-1 dimensions (only those in ``dim`` when given).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints, optional): the dimensions to squeeze.
    ///
    /// Example:
    ///     >>> ferric.squeeze(ferric.zeros(2, 1, 3)).shape
    ///     ferric.Size([2, 3])
    fn squeeze(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyTensor>> {
        let dims = crate::python::convert::dims_arg(dim)?;
        let out = self.t.squeeze(dims.as_deref())?;
        wrap_var(py, av::reshape_like("SqueezeBackward0", &self.var()?, out)?)
    }
    /// unsqueeze(input, dim) -> Tensor
    ///
    /// Returns a view with a size-1 dimension inserted at ``dim``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int): the position of the new dimension.
    ///
    /// Example:
    ///     >>> ferric.unsqueeze(ferric.tensor([1, 2]), 1)
    ///     tensor([[1],
    ///             [2]])
    fn unsqueeze(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyTensor>> {
        let out = self.t.unsqueeze(dim)?;
        wrap_var(
            py,
            av::reshape_like("UnsqueezeBackward0", &self.var()?, out)?,
        )
    }
    #[pyo3(signature = (start_dim=0, end_dim=-1))]
    /// flatten(input, start_dim=0, end_dim=-1) -> Tensor
    ///
    /// Merges the dimensions ``start_dim`` to ``end_dim`` into one: a view when possible, else a
    /// copy.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     start_dim (int): the first dimension to flatten.
    ///     end_dim (int): the last dimension to flatten; default -1.
    ///
    /// Example:
    ///     >>> ferric.flatten(ferric.zeros(2, 3, 4), 1).shape
    ///     ferric.Size([2, 12])
    fn flatten(&self, py: Python<'_>, start_dim: i64, end_dim: i64) -> PyResult<Py<PyTensor>> {
        let x = self.var()?;
        let out = self.t.flatten(start_dim, end_dim)?;
        let name = if out.shares_storage(&x.t) {
            "ViewBackward0"
        } else {
            "UnsafeViewBackward0"
        };
        wrap_var(py, av::reshape_like(name, &x, out)?)
    }
    /// ravel(input) -> Tensor
    ///
    /// The elements of ``input`` as a 1-D tensor: a view when possible.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.ravel(ferric.tensor([[1, 2], [3, 4]]))
    ///     tensor([1, 2, 3, 4])
    fn ravel(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::reshape(&self.var()?, &[-1])?)
    }
    /// unflatten(input, dim, sizes) -> Tensor
    ///
    /// Splits dimension ``dim`` into the dimensions ``sizes`` (one may be -1).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     sizes (tuple of ints): the new sizes.
    ///
    /// Example:
    ///     >>> ferric.unflatten(ferric.zeros(2, 6), 1, (2, 3)).shape
    ///     ferric.Size([2, 2, 3])
    fn unflatten(
        &self,
        py: Python<'_>,
        dim: i64,
        sizes: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let out = self.t.unflatten(dim, &int_list(sizes, "sizes")?)?;
        wrap_var(py, av::reshape_like("ViewBackward0", &self.var()?, out)?)
    }
    #[pyo3(signature = (size, stride, storage_offset=None))]
    /// as_strided(input, size, stride, storage_offset=None) -> Tensor
    ///
    /// Returns a view of ``input``'s storage with the given sizes, strides and offset (in
    /// elements). Views that overlap or reach outside the storage are the caller's responsibility
    /// only as far as ferric checks the bounds: out-of-storage views raise.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     size (tuple of ints): the shape of the view.
    ///     stride (tuple of ints): the stride of each dimension.
    ///     storage_offset (int, optional): the first element's offset in the storage; default
    ///         ``input``'s.
    ///
    /// Example:
    ///     >>> ferric.as_strided(ferric.arange(6.), (2, 2), (1, 2))
    ///     tensor([[0., 2.],
    ///             [1., 3.]])
    fn as_strided(
        &self,
        py: Python<'_>,
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        storage_offset: Option<i64>,
    ) -> PyResult<Py<PyTensor>> {
        let (size, stride) = (int_list(size, "size")?, int_list(stride, "stride")?);
        wrap_var(
            py,
            crate::autograd::index::as_strided(&self.var()?, &size, &stride, storage_offset)?,
        )
    }
    /// narrow(input, dim, start, length) -> Tensor
    ///
    /// Returns the view ``input[..., start:start + length, ...]`` along ``dim``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     start (int): the first index.
    ///     length (int): the length of the slice.
    ///
    /// Example:
    ///     >>> ferric.narrow(ferric.arange(6), 0, 2, 3)
    ///     tensor([2, 3, 4])
    fn narrow(&self, py: Python<'_>, dim: i64, start: i64, length: i64) -> PyResult<Py<PyTensor>> {
        self.t.narrow(dim, start, length)?;
        wrap_var(py, av::narrow(&self.var()?, dim, start, length)?)
    }
    /// select(input, dim, index) -> Tensor
    ///
    /// Returns the view ``input[..., index, ...]`` along ``dim``, without that dimension.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     index (int): the position to select.
    ///
    /// Example:
    ///     >>> ferric.select(ferric.tensor([[1, 2], [3, 4]]), 1, 0)
    ///     tensor([1, 3])
    fn select(&self, py: Python<'_>, dim: i64, index: i64) -> PyResult<Py<PyTensor>> {
        self.t.select(dim, index)?;
        wrap_var(py, av::select(&self.var()?, dim, index)?)
    }
    #[pyo3(signature = (dim=0))]
    /// unbind(input, dim=0) -> tuple of Tensors
    ///
    /// The slices of ``input`` along ``dim``, as views without that dimension.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.unbind(ferric.tensor([[1, 2], [3, 4]]))
    ///     (tensor([1, 2]), tensor([3, 4]))
    fn unbind<'py>(&self, py: Python<'py>, dim: i64) -> PyResult<Bound<'py, PyTuple>> {
        wrap_all(
            py,
            pieces(
                &self.var()?,
                "UnbindBackward0",
                self.t.unbind(dim)?,
                dim,
                true,
            )?,
        )
    }
    #[pyo3(signature = (chunks, dim=0))]
    /// chunk(input, chunks, dim=0) -> List of Tensors
    ///
    /// Splits ``input`` into ``chunks`` views of equal size along ``dim`` (the last may be smaller,
    /// and there may be fewer than ``chunks``).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     chunks (int): the number of chunks.
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.chunk(ferric.arange(5), 2)
    ///     (tensor([0, 1, 2]), tensor([3, 4]))
    fn chunk<'py>(&self, py: Python<'py>, chunks: i64, dim: i64) -> PyResult<Bound<'py, PyTuple>> {
        wrap_all(
            py,
            pieces(
                &self.var()?,
                "SplitBackward0",
                self.t.chunk(chunks, dim)?,
                dim,
                false,
            )?,
        )
    }
    #[pyo3(signature = (split_size_or_sections, dim=0))]
    /// split(tensor, split_size_or_sections, dim=0) -> tuple of Tensors
    ///
    /// Splits the tensor into views along ``dim``: chunks of ``split_size_or_sections`` elements
    /// (the last may be smaller) or, for a list, chunks of those sizes.
    ///
    /// Args:
    ///     tensor (Tensor): the tensor to split.
    ///     split_size_or_sections (int or list of ints): the size of each chunk, or the list of
    ///         sizes.
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.split(ferric.arange(5), [1, 4])
    ///     (tensor([0]), tensor([1, 2, 3, 4]))
    fn split<'py>(
        &self,
        py: Python<'py>,
        split_size_or_sections: &Bound<'py, PyAny>,
        dim: i64,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let x = self.var()?;
        if split_size_or_sections.is_instance_of::<PyInt>() {
            let parts = self.t.split_size(split_size_or_sections.extract()?, dim)?;
            wrap_all(py, pieces(&x, "SplitBackward0", parts, dim, false)?)
        } else {
            let parts = self
                .t
                .split_sizes(&int_list(split_size_or_sections, "split_sizes")?, dim)?;
            wrap_all(
                py,
                pieces(&x, "SplitWithSizesBackward0", parts, dim, false)?,
            )
        }
    }
    /// movedim(input, source, destination) -> Tensor
    ///
    /// Returns a view with the dimensions ``source`` moved to the positions ``destination``; the
    /// others keep their order.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     source (int or tuple of ints): the dimensions to move.
    ///     destination (int or tuple of ints): the destination positions of the moved dimensions.
    ///
    /// Example:
    ///     >>> ferric.movedim(ferric.zeros(2, 3, 4), 0, -1).shape
    ///     ferric.Size([3, 4, 2])
    fn movedim(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        destination: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        let perm = self.t.movedim_perm(
            &int_list(source, "source")?,
            &int_list(destination, "destination")?,
        )?;
        wrap_var(py, av::permute(&self.var()?, &perm)?)
    }
    /// moveaxis(input, source, destination) -> Tensor
    ///
    /// Alias for :func:`ferric.movedim`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     source (int or tuple of ints): the dimensions to move.
    ///     destination (int or tuple of ints): the destination positions of the moved dimensions.
    ///
    /// Example:
    ///     >>> ferric.moveaxis(ferric.zeros(2, 3, 4), 0, -1).shape
    ///     ferric.Size([3, 4, 2])
    fn moveaxis(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        destination: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyTensor>> {
        self.movedim(py, source, destination)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::python::tensor::alias_methods(
        m,
        &[
            "reshape",
            "permute",
            "transpose",
            "swapaxes",
            "swapdims",
            "t",
            "squeeze",
            "unsqueeze",
            "flatten",
            "ravel",
            "unflatten",
            "narrow",
            "as_strided",
            "select",
            "unbind",
            "chunk",
            "split",
            "movedim",
            "moveaxis",
            "broadcast_to",
        ],
    )
}
