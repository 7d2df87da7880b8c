//! Bindings for sorting and selection (`sort`, `argsort`, `msort`, `topk`, `kthvalue`,
//! `median`, `nanmedian`, `mode`) as `Tensor` methods, exposed as module functions too
//! (`ferric.topk = Tensor.topk`). Each method converts its arguments and calls
//! `autograd::sort`; pairs come back as `ferric.return_types` named tuples.

use crate::autograd::sort as av;
use crate::autograd::Var;
use crate::dtype::DType;
use crate::python::convert::{index_int, scalar_arg};
use crate::python::out::{finish, out_dtype, OutDtype};
use crate::python::reduce::{keepdim_needs_dim, named_out};
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
    /// sort(input, dim=-1, descending=False, *, stable=False, out=None) -> (Tensor values, LongTensor indices)
    ///
    /// Sorts the elements of ``input`` along ``dim`` and returns the named tuple
    /// ``(values, indices)``, where ``indices`` locate the sorted values in ``input``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int): the dimension to sort along. Default: -1.
    ///     descending (bool): sort largest first. Default: False.
    ///     stable (bool): keep the order of equal elements (keyword-only, as in PyTorch). Default: False.
    ///     out (tuple, optional): two tensors that receive the values and the indices.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]])
    ///     >>> values, indices = ferric.sort(x)
    ///     >>> values
    ///     tensor([[ 1.0000,  2.0000,  3.0000],
    ///             [-1.0000,  0.5000,  4.0000]])
    ///     >>> indices
    ///     tensor([[1, 2, 0],
    ///             [1, 0, 2]])
    ///     >>> ferric.sort(x, dim=0, descending=True).values
    ///     tensor([[ 3.0000,  1.0000,  4.0000],
    ///             [ 0.5000, -1.0000,  2.0000]])
    #[pyo3(
        signature = (dim=-1, descending=false, *, stable=None, out=None),
        text_signature = "(self, /, dim=-1, descending=False, *, stable=None, out=None)"
    )]
    fn sort(
        &self,
        py: Python<'_>,
        dim: i64,
        descending: bool,
        stable: Option<bool>,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        let stable = stable.unwrap_or(false);
        let (v, i) = av::sort(&self.var()?, dim, descending, stable)?;
        named_out(py, "sort", out, v, Var::plain(i))
    }

    #[pyo3(
        signature = (dim=-1, descending=false, *, stable=false),
        text_signature = "(self, /, dim=-1, descending=False, *, stable=False)"
    )]
    /// argsort(input, dim=-1, descending=False, *, stable=False) -> LongTensor
    ///
    /// Returns the indices that sort ``input`` along ``dim``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     descending (bool): sort in descending order.
    ///     stable (bool): keep the order of equal elements.
    ///
    /// Example:
    ///     >>> ferric.argsort(ferric.tensor([3., 1., 2.]))
    ///     tensor([1, 2, 0])
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

    /// msort(input, *, out=None) -> Tensor
    ///
    /// Sorts ``input`` along its first dimension: ``sort(input, dim=0).values``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.msort(ferric.tensor([[2, 1], [1, 3]]))
    ///     tensor([[1, 1],
    ///             [2, 3]])
    #[pyo3(signature = (*, out=None))]
    fn msort(&self, py: Python<'_>, out: Arg) -> PyResult<Py<PyAny>> {
        let r = av::sort(&self.var()?, 0, false, false)?.0;
        finish(py, "msort", out, OutDtype::Same, r)
    }

    #[pyo3(
        signature = (k, dim=-1, largest=true, sorted=true, *, out=None),
        text_signature = "(self, /, k, dim=-1, largest=True, sorted=True, *, out=None)"
    )]
    /// topk(input, k, dim=-1, largest=True, sorted=True, *, out=None) -> (Tensor values, LongTensor indices)
    ///
    /// The ``k`` largest (or smallest) elements along ``dim`` and their indices.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     k (int): the k of k-th / top-k.
    ///     dim (int, optional): the dimension to operate along.
    ///     largest (bool): return the largest (True) or the smallest elements.
    ///     sorted (bool): return the elements in sorted order.
    ///     out (tuple of Tensors, optional): the values and indices tensors to write into.
    ///
    /// Example:
    ///     >>> ferric.topk(ferric.tensor([1., 5., 3., 4.]), 2)
    ///     ferric.return_types.topk(
    ///     values=tensor([5., 4.]),
    ///     indices=tensor([1, 3]))
    fn topk(
        &self,
        py: Python<'_>,
        k: i64,
        dim: i64,
        largest: bool,
        sorted: bool,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        let (v, i) = av::topk(&self.var()?, k, dim, largest, sorted)?;
        named_out(py, "topk", out, v, Var::plain(i))
    }

    #[pyo3(
        signature = (k, dim=-1, keepdim=false, *, out=None),
        text_signature = "(self, /, k, dim=-1, keepdim=False, *, out=None)"
    )]
    /// kthvalue(input, k, dim=-1, keepdim=False, *, out=None) -> (Tensor values, LongTensor indices)
    ///
    /// The ``k``-th smallest element (1-based) along ``dim`` and its index.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     k (int): the k of k-th / top-k.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     out (tuple of two Tensors, optional): the output tensors.
    ///
    /// Example:
    ///     >>> ferric.kthvalue(ferric.tensor([3., 1., 2.]), 2)
    ///     ferric.return_types.kthvalue(
    ///     values=tensor(2.),
    ///     indices=tensor(2))
    fn kthvalue(
        &self,
        py: Python<'_>,
        k: i64,
        dim: i64,
        keepdim: bool,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        let (v, i) = av::kthvalue(&self.var()?, k, dim, keepdim)?;
        named_out(py, "kthvalue", out, v, Var::plain(i))
    }

    #[pyo3(signature = (dim=None, keepdim=None, *, out=None))]
    /// median(input, dim=None, keepdim=False, *, out=None) -> Tensor or (Tensor values, LongTensor indices)
    ///
    /// The median (the lower of the two middle values for an even count); NaN if there is a NaN.
    /// With ``dim``, the named tuple ``(values, indices)``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     out (tuple of two Tensors, optional): the output tensors (only with ``dim``).
    ///
    /// Example:
    ///     >>> ferric.median(ferric.tensor([4., 1., 3., 2.]))
    ///     tensor(2.)
    fn median(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        median(py, &self.var()?, dim, keepdim, false, out)
    }

    #[pyo3(signature = (dim=None, keepdim=None, *, out=None))]
    /// nanmedian(input, dim=None, keepdim=False, *, out=None) -> Tensor or (Tensor values, LongTensor indices)
    ///
    /// :func:`ferric.median` that ignores NaN elements.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     out (tuple of two Tensors, optional): the output tensors (only with ``dim``).
    ///
    /// Example:
    ///     >>> ferric.nanmedian(ferric.tensor([1., float('nan'), 3., 2.]))
    ///     tensor(2.)
    fn nanmedian(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        median(py, &self.var()?, dim, keepdim, true, out)
    }

    #[pyo3(signature = (sorted=true, return_inverse=false, return_counts=false, dim=None))]
    /// unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple
    ///
    /// The unique elements of ``input`` (sorted), optionally with the inverse indices and the
    /// counts; with ``dim``, the unique slices along it.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     sorted (bool): return the elements in sorted order.
    ///     return_inverse (bool): also return the index of each element in the result.
    ///     return_counts (bool): also return how often each unique value occurs.
    ///     dim (int, optional): the dimension to take unique slices along.
    ///
    /// Example:
    ///     >>> ferric.unique(ferric.tensor([3, 1, 3, 2]), return_counts=True)
    ///     (tensor([1, 2, 3]), tensor([1, 1, 2]))
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
    /// unique_consecutive(input, return_inverse=False, return_counts=False, dim=None) -> Tensor or tuple
    ///
    /// Collapses each run of equal consecutive elements (or slices along ``dim``) into one.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     return_inverse (bool): also return the index of each element in the result.
    ///     return_counts (bool): also return how often each unique value occurs.
    ///     dim (int, optional): the dimension to take unique slices along.
    ///
    /// Example:
    ///     >>> ferric.unique_consecutive(ferric.tensor([1, 1, 2, 2, 1]))
    ///     tensor([1, 2, 1])
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
        signature = (dim=-1, keepdim=false, *, out=None),
        text_signature = "(self, /, dim=-1, keepdim=False, *, out=None)"
    )]
    /// mode(input, dim=-1, keepdim=False, *, out=None) -> (Tensor values, LongTensor indices)
    ///
    /// The most frequent value along ``dim`` (the smallest on ties) and an index where it occurs.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     out (tuple of two Tensors, optional): the output tensors.
    ///
    /// Example:
    ///     >>> ferric.mode(ferric.tensor([1, 2, 2, 3])).values
    ///     tensor(2)
    fn mode(&self, py: Python<'_>, dim: i64, keepdim: bool, out: Arg) -> PyResult<Py<PyAny>> {
        let (v, i) = av::mode(&self.var()?, dim, keepdim)?;
        named_out(py, "mode", out, v, Var::plain(i))
    }
}

/// `median()` -> 0-d tensor; `median(dim, keepdim)` -> (values, indices).
fn median(
    py: Python<'_>,
    t: &Var,
    dim: Arg,
    keepdim: Option<bool>,
    nan: bool,
    out: Arg,
) -> PyResult<Py<PyAny>> {
    let name = if nan { "nanmedian" } else { "median" };
    let keepdim = keepdim_needs_dim(name, dim, keepdim)?;
    match dim.filter(|d| !d.is_none()) {
        // PyTorch's median over all elements has no out= overload
        None if out.is_some_and(|o| !o.is_none()) => Err(PyTypeError::new_err(format!(
            "{name}() received an invalid combination of arguments - got (Tensor, out=tuple): \
             out= needs a dim"
        ))),
        None => Ok(wrap_var(py, av::median_all(t, nan)?)?.into_any()),
        Some(d) => {
            let (v, i) = av::median_dim(t, index_int(d, "dim")?, keepdim, nan)?;
            named_out(py, name, out, v, Var::plain(i))
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

/// searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None) -> Tensor
///
/// Returns the indices at which the values of ``input`` would be inserted into
/// ``sorted_sequence`` (along its last dimension) to keep it sorted.
///
/// Args:
///     sorted_sequence (Tensor): increasing along its last dimension (or made so by ``sorter``).
///     input (Tensor or Scalar): the values to insert.
///     out_int32 (bool): return int32 indices instead of int64. Default: False.
///     right (bool): return the last suitable index instead of the first. Default: False.
///     side (str, optional): ``'left'`` or ``'right'``, the same as ``right``.
///     sorter (Tensor, optional): the int64 indices that sort an unsorted ``sorted_sequence``.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> seq = ferric.tensor([1, 3, 5, 7, 9])
///     >>> v = ferric.tensor([3, 6, 9])
///     >>> ferric.searchsorted(seq, v)
///     tensor([1, 3, 4])
///     >>> ferric.searchsorted(seq, v, side='right')
///     tensor([2, 3, 5])
#[pyfunction]
#[pyo3(signature = (sorted_sequence, input, *, out_int32=false, right=false, side=None, sorter=None, out=None))]
#[allow(clippy::too_many_arguments)]
fn searchsorted(
    py: Python<'_>,
    sorted_sequence: PyRef<'_, PyTensor>,
    input: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<PyRef<'_, PyTensor>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    no_int32("searchsorted", out_int32)?;
    search_out_dtype(out, out_int32)?;
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
    let idx = crate::ops::search::searchsorted(
        &sorted_sequence.t,
        &vals,
        right,
        sorter.as_ref(),
        scalar,
    )?;
    finish(py, "searchsorted", out, OutDtype::Same, Var::plain(idx))
}

/// PyTorch's check of a `searchsorted` / `bucketize` out tensor: int64 (int32 with
/// `out_int32`).
fn search_out_dtype(out: Option<&Bound<'_, PyAny>>, out_int32: bool) -> PyResult<()> {
    let want = if out_int32 { DType::I32 } else { DType::I64 };
    match out_dtype("searchsorted", out)? {
        Some(d) if d != want => Err(PyRuntimeError::new_err(format!(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or \
             Long(int64) depending on whether out_int32 flag is True, but we got output \
             tensor's dtype {} and out_int32 flag is {}",
            d.torch_name(),
            if out_int32 { "True" } else { "False" }
        ))),
        _ => Ok(()),
    }
}

/// bucketize(input, boundaries, *, out_int32=False, right=False, out=None) -> Tensor
///
/// Returns, for each value of ``input``, the index of the bucket of the sorted 1-D
/// ``boundaries`` it falls in: the ``i`` with ``boundaries[i-1] < x <= boundaries[i]``
/// (``boundaries[i-1] <= x < boundaries[i]`` with ``right=True``).
///
/// Args:
///     input (Tensor or Scalar): the values to place.
///     boundaries (Tensor): the increasing 1-D bucket boundaries.
///     out_int32 (bool): return int32 indices instead of int64. Default: False.
///     right (bool): which side of a boundary equal values go to (see above). Default: False.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> boundaries = ferric.tensor([1, 3, 5, 7, 9])
///     >>> v = ferric.tensor([[3, 6, 9], [3, 6, 9]])
///     >>> ferric.bucketize(v, boundaries)
///     tensor([[1, 3, 4],
///             [1, 3, 4]])
///     >>> ferric.bucketize(v, boundaries, right=True)
///     tensor([[2, 3, 5],
///             [2, 3, 5]])
#[pyfunction]
#[pyo3(signature = (input, boundaries, *, out_int32=false, right=false, out=None))]
fn bucketize(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    boundaries: PyRef<'_, PyTensor>,
    out_int32: bool,
    right: bool,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    no_int32("bucketize", out_int32)?;
    search_out_dtype(out, out_int32)?;
    let (vals, scalar) = tensor_or_scalar("bucketize", "input", input)?;
    let r = crate::ops::search::bucketize(&vals, &boundaries.t, right, scalar)?;
    finish(py, "bucketize", out, OutDtype::Same, Var::plain(r))
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
