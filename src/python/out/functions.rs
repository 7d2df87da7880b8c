//! The module-level functions of Tensor methods whose PyTorch functions take `out=`
//! (`ferric.round(x, out=o)`); the methods themselves take no `out` (as PyTorch's).
//! Each runs the method, then writes into out by the op's dtype rule.

use super::{finish, finish_tensor, out_dtype, OutDtype};
use crate::autograd::Var;
use crate::dtype::DType;
use crate::ops::unary::{unary, UnaryOp};
use crate::python::tensor::PyTensor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

#[pyfunction]
#[pyo3(signature = (input, *, decimals=0, out=None))]
/// round(input, *, decimals=0, out=None) -> Tensor
///
/// Rounds each element to the nearest integer (or to ``decimals`` decimal places), halves to
/// even.
///
/// Args:
///     input (Tensor): the input tensor.
///     decimals (int): the number of decimal places to round to; negative rounds to the left of
///         the point.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.round(ferric.tensor([0.5, 1.5, 2.567]))
///     tensor([0., 2., 3.])
fn round(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    decimals: i64,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = input.round(py, decimals)?;
    finish_tensor(py, "round", out, OutDtype::Found, r)
}

#[pyfunction]
#[pyo3(signature = (input, nan=0.0, posinf=None, neginf=None, *, out=None))]
/// nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None) -> Tensor
///
/// Replaces NaN, +inf and -inf by finite values.
///
/// Args:
///     input (Tensor): the input tensor.
///     nan (float): the value replacing NaN; default 0.
///     posinf (float, optional): the value replacing +inf; default the dtype's largest value.
///     neginf (float, optional): the value replacing -inf; default the dtype's lowest value.
///     out (Tensor, optional): the output tensor (of input's dtype).
///
/// Example:
///     >>> ferric.nan_to_num(ferric.tensor([float('nan'), float('inf'), -1.0]), posinf=9.0)
///     tensor([ 0.,  9., -1.])
fn nan_to_num(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if let Some(d) = out_dtype("nan_to_num", out)? {
        let have = input.t.dtype();
        if d != have {
            return Err(PyRuntimeError::new_err(format!(
                "nan_to_num: dtype of out: {} should be same as input: {}",
                d.torch_name(),
                have.torch_name()
            )));
        }
    }
    let r = input.nan_to_num(py, nan, posinf, neginf)?;
    finish_tensor(py, "nan_to_num", out, OutDtype::Same, r)
}

/// `isposinf` / `isneginf`: a bool result, and out must be bool.
fn inf_test(
    py: Python<'_>,
    op: &'static str,
    test: UnaryOp,
    input: &PyTensor,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if out_dtype(op, out)?.is_some_and(|d| d != DType::Bool) {
        return Err(PyRuntimeError::new_err(format!(
            "{op} does not support non-boolean outputs."
        )));
    }
    let r = Var::plain(unary(test, &input.t)?);
    finish(py, op, out, OutDtype::Same, r)
}

#[pyfunction]
#[pyo3(signature = (input, *, out=None))]
/// isposinf(input, *, out=None) -> Tensor
///
/// Tests each element for positive infinity.
///
/// Args:
///     input (Tensor): the input tensor.
///     out (Tensor, optional): the output tensor (bool).
///
/// Example:
///     >>> ferric.isposinf(ferric.tensor([1.0, float('inf'), -float('inf')]))
///     tensor([False,  True, False])
fn isposinf(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    inf_test(py, "isposinf", UnaryOp::IsPosInf, &input, out)
}

#[pyfunction]
#[pyo3(signature = (input, *, out=None))]
/// isneginf(input, *, out=None) -> Tensor
///
/// Tests each element for negative infinity.
///
/// Args:
///     input (Tensor): the input tensor.
///     out (Tensor, optional): the output tensor (bool).
///
/// Example:
///     >>> ferric.isneginf(ferric.tensor([1.0, float('inf'), -float('inf')]))
///     tensor([False, False,  True])
fn isneginf(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    inf_test(py, "isneginf", UnaryOp::IsNegInf, &input, out)
}

#[pyfunction]
#[pyo3(signature = (input, dim, index, source, *, alpha=None, out=None))]
/// index_add(input, dim, index, source, *, alpha=1, out=None) -> Tensor
///
/// Returns a copy of ``input`` with ``alpha * source`` added at the positions ``index`` along
/// ``dim`` (repeated indices accumulate).
///
/// Args:
///     input (Tensor): the input tensor.
///     dim (int): the dimension to operate along.
///     index (Tensor): the int64 indices.
///     source (Tensor): the tensor to take the values from.
///     alpha (Number): the multiplier for ``source``.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.index_add(ferric.zeros(3), 0, ferric.tensor([0, 0, 2]), ferric.tensor([1., 2., 3.]))
///     tensor([3., 0., 3.])
fn index_add(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dim: i64,
    index: PyRef<'_, PyTensor>,
    source: PyRef<'_, PyTensor>,
    alpha: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = input.index_add(py, dim, index, source, alpha)?;
    finish_tensor(py, "index_add", out, OutDtype::Same, r)
}

#[pyfunction]
#[pyo3(signature = (input, mask, *, out=None))]
/// masked_select(input, mask, *, out=None) -> Tensor
///
/// Returns the elements of ``input`` where ``mask`` is True, as a 1-D tensor.
///
/// Args:
///     input (Tensor): the input tensor.
///     mask (Tensor): a bool tensor broadcastable to ``input``.
///     out (Tensor, optional): the output tensor (of input's dtype).
///
/// Example:
///     >>> ferric.masked_select(ferric.tensor([1, 2, 3]), ferric.tensor([True, False, True]))
///     tensor([1, 3])
fn masked_select(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    mask: PyRef<'_, PyTensor>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if out_dtype("masked_select", out)?.is_some_and(|d| d != input.t.dtype()) {
        return Err(PyRuntimeError::new_err(
            "masked_select(): self and result must have the same scalar type",
        ));
    }
    let r = input.masked_select(py, mask)?;
    finish_tensor(py, "masked_select", out, OutDtype::Same, r)
}

#[pyfunction]
#[pyo3(signature = (input, *, as_tuple=false, out=None))]
/// nonzero(input, *, as_tuple=False, out=None) -> LongTensor or tuple of LongTensors
///
/// The indices of the nonzero elements: one row per element, or with ``as_tuple`` one index
/// tensor per dimension.
///
/// Args:
///     input (Tensor): the input tensor.
///     as_tuple (bool): return a tuple of index tensors, one per dimension.
///     out (Tensor, optional): the output tensor (int64; not with ``as_tuple``).
///
/// Example:
///     >>> ferric.nonzero(ferric.tensor([0, 3, 0, 4]))
///     tensor([[1],
///             [3]])
fn nonzero(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    as_tuple: bool,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let Some(d) = out_dtype("nonzero", out)? else {
        return input.nonzero(py, as_tuple);
    };
    if as_tuple {
        return Err(PyRuntimeError::new_err(
            "nonzero does not support the out kwarg when as_tuple is True",
        ));
    }
    if d != DType::I64 {
        return Err(PyRuntimeError::new_err(format!(
            "nonzero: Expected out tensor to have scalar type Long but got scalar type{}",
            d.torch_name()
        )));
    }
    let r = Var::plain(input.t.nonzero()?);
    finish(py, "nonzero", out, OutDtype::Same, r)
}

/// Replaces the method aliases of these names in the module by the functions above.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            round,
            nan_to_num,
            isposinf,
            isneginf,
            index_add,
            masked_select,
            nonzero
        ]
    )
}
