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
    fn view(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::view(&self.var()?, &size_args(shape)?)?)
    }
    fn view_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        wrap_var(py, av::view(&self.var()?, &s)?)
    }
    #[pyo3(signature = (*shape))]
    fn reshape(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::reshape(&self.var()?, &size_args(shape)?)?)
    }
    fn reshape_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        wrap_var(py, av::reshape(&self.var()?, &s)?)
    }
    #[pyo3(signature = (*dims))]
    fn permute(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::permute(&self.var()?, &size_args(dims)?)?)
    }
    fn transpose(&self, py: Python<'_>, dim0: i64, dim1: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::transpose(&self.var()?, dim0, dim1)?)
    }
    fn swapaxes(&self, py: Python<'_>, axis0: i64, axis1: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::transpose(&self.var()?, axis0, axis1)?)
    }
    fn swapdims(&self, py: Python<'_>, dim0: i64, dim1: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::transpose(&self.var()?, dim0, dim1)?)
    }
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
    fn expand(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::expand_sizes(&self.var()?, &size_args(sizes)?)?)
    }
    fn expand_as(&self, py: Python<'_>, other: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
        let s: Vec<i64> = other.t.shape().iter().map(|&d| d as i64).collect();
        wrap_var(py, av::expand_sizes(&self.var()?, &s)?)
    }
    fn broadcast_to(&self, py: Python<'_>, size: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let s = int_list(size, "size")?;
        wrap_var(py, av::expand_sizes(&self.var()?, &s)?)
    }
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, py: Python<'_>, dim: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyTensor>> {
        let dims = crate::python::convert::dims_arg(dim)?;
        let out = self.t.squeeze(dims.as_deref())?;
        wrap_var(py, av::reshape_like("SqueezeBackward0", &self.var()?, out)?)
    }
    fn unsqueeze(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyTensor>> {
        let out = self.t.unsqueeze(dim)?;
        wrap_var(
            py,
            av::reshape_like("UnsqueezeBackward0", &self.var()?, out)?,
        )
    }
    #[pyo3(signature = (start_dim=0, end_dim=-1))]
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
    fn ravel(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::reshape(&self.var()?, &[-1])?)
    }
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
    fn narrow(&self, py: Python<'_>, dim: i64, start: i64, length: i64) -> PyResult<Py<PyTensor>> {
        self.t.narrow(dim, start, length)?;
        wrap_var(py, av::narrow(&self.var()?, dim, start, length)?)
    }
    fn select(&self, py: Python<'_>, dim: i64, index: i64) -> PyResult<Py<PyTensor>> {
        self.t.select(dim, index)?;
        wrap_var(py, av::select(&self.var()?, dim, index)?)
    }
    #[pyo3(signature = (dim=0))]
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
