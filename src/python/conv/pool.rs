//! The pooling bindings: max, average and adaptive pools in one and two dimensions,
//! with PyTorch's `return_indices` and `ceil_mode` handling.

use crate::autograd::conv as ac;
use crate::autograd::{is_grad_enabled, Var};
use crate::ops::conv::pool::{
    self as pops, plan_adaptive, plan_avg_pool2d, plan_max_pool2d, AvgRule,
};
use crate::python::convert::type_name;
use crate::python::tensor::{var_arg, wrap, wrap_var, Obj, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PySequence, PyTuple};

use super::*;

/// (values, indices) as PyTorch returns them from `return_indices=True` pools, or just
/// the values.
fn values_and_indices(
    py: Python<'_>,
    v: Var,
    idx: Option<Tensor>,
    with_indices: bool,
) -> PyResult<Py<PyAny>> {
    let v = wrap_var(py, v)?;
    match idx {
        Some(i) if with_indices => {
            let i = wrap(py, i)?;
            Ok(PyTuple::new(py, [v.into_any(), i.into_any()])?
                .into_any()
                .unbind())
        }
        _ => Ok(v.into_any()),
    }
}

#[allow(clippy::too_many_arguments)]
fn max_pool2d_impl(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Obj,
    padding: Obj,
    dilation: Obj,
    ceil_mode: bool,
    with_indices: bool,
) -> PyResult<Py<PyAny>> {
    let op = "max_pool2d";
    let x = var_arg(op, "input", 1, input)?;
    let k = ints(op, "kernel_size", Some(kernel_size), 1, 2)?;
    let s = stride_arg(op, stride, 2)?;
    let p = ints(op, "padding", padding, 0, 2)?;
    let d = ints(op, "dilation", dilation, 1, 2)?;
    let g = plan_max_pool2d(&x.t, &k, &s, &p, &d, ceil_mode)?;
    let (v, idx) = ac::max_pool2d(&x, &g)?;
    values_and_indices(py, v, Some(idx), with_indices)
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride=None, padding=None, dilation=None, ceil_mode=false, return_indices=false))]
#[allow(clippy::too_many_arguments)]
/// max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False) -> Tensor
///
/// The maximum over sliding windows of a ``(N, C, H, W)`` or ``(C, H, W)`` input. See
/// :class:`ferric.nn.MaxPool2d`.
///
/// Args:
///     input (Tensor): the input tensor.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     dilation (int or tuple, optional): the spacing of the window's elements; default 1.
///     ceil_mode (bool): use ceil instead of floor to compute the output size.
///     return_indices (bool): also return the positions of the maxima.
///
/// Example:
///     >>> ferric.max_pool2d(ferric.arange(16.).reshape(1, 1, 4, 4), 2)
///     tensor([[[[ 5.,  7.],
///               [13., 15.]]]])
pub(super) fn max_pool2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Obj,
    padding: Obj,
    dilation: Obj,
    ceil_mode: bool,
    return_indices: bool,
) -> PyResult<Py<PyAny>> {
    max_pool2d_impl(
        py,
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        return_indices,
    )
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride=None, padding=None, dilation=None, ceil_mode=false, return_indices=true))]
#[allow(clippy::too_many_arguments)]
/// max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True) -> (Tensor, LongTensor)
///
/// :func:`ferric.max_pool2d` that also returns the flat positions of the maxima within each plane.
///
/// Args:
///     input (Tensor): the input tensor.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     dilation (int or tuple, optional): the spacing of the window's elements; default 1.
///     ceil_mode (bool): use ceil instead of floor to compute the output size.
///     return_indices (bool): also return the positions of the maxima.
///
/// Example:
///     >>> ferric.max_pool2d_with_indices(ferric.arange(4.).reshape(1, 1, 2, 2), 2)
///     (tensor([[[[3.]]]]), tensor([[[[3]]]]))
pub(super) fn max_pool2d_with_indices(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Obj,
    padding: Obj,
    dilation: Obj,
    ceil_mode: bool,
    return_indices: bool,
) -> PyResult<Py<PyAny>> {
    let _ = return_indices;
    max_pool2d_impl(
        py,
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        true,
    )
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride=None, padding=None, dilation=None, ceil_mode=false, return_indices=false))]
#[allow(clippy::too_many_arguments)]
/// max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False) -> Tensor
///
/// The maximum over sliding windows of a ``(N, C, L)`` or ``(C, L)`` input. See
/// :class:`ferric.nn.MaxPool1d`.
///
/// Args:
///     input (Tensor): the input tensor.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     dilation (int or tuple, optional): the spacing of the window's elements; default 1.
///     ceil_mode (bool): use ceil instead of floor to compute the output size.
///     return_indices (bool): also return the positions of the maxima.
///
/// Example:
///     >>> ferric.max_pool1d(ferric.tensor([[[1., 3., 2., 4.]]]), 2)
///     tensor([[[3., 4.]]])
pub(super) fn max_pool1d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Obj,
    padding: Obj,
    dilation: Obj,
    ceil_mode: bool,
    return_indices: bool,
) -> PyResult<Py<PyAny>> {
    let op = "max_pool1d";
    let x = var_arg(op, "input", 1, input)?;
    let k = ints(op, "kernel_size", Some(kernel_size), 1, 1)?;
    let mut s = stride_arg(op, stride, 1)?;
    let p = ints(op, "padding", padding, 0, 1)?;
    let d = ints(op, "dilation", dilation, 1, 1)?;
    // Like PyTorch: the indices path when they are needed (return_indices, or autograd),
    // else the plain kernel with its own checks.
    let indexed = return_indices || (x.requires_grad() && is_grad_enabled());
    if indexed {
        if s.is_empty() {
            s = k.clone();
        }
        pops::check_pool1d(
            op,
            &x.t,
            &[
                ("kernel_size", &k),
                ("stride", &s),
                ("padding", &p),
                ("dilation", &d),
            ],
        )?;
    } else {
        pops::check_max_pool1d(&x.t, &k, &s, &p, &d, ceil_mode)?;
        if s.is_empty() {
            s = k.clone();
        }
    }
    let (v, idx) = ac::pool1d(&x, |x2| {
        let g = plan_max_pool2d(
            &x2.t,
            &[1, k[0]],
            &[1, s[0]],
            &[0, p[0]],
            &[1, d[0]],
            ceil_mode,
        )?;
        let (v, i) = ac::max_pool2d(x2, &g)?;
        Ok((v, Some(i)))
    })?;
    values_and_indices(py, v, idx, return_indices)
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride=None, padding=None, ceil_mode=false, count_include_pad=true, divisor_override=None))]
#[allow(clippy::too_many_arguments)]
/// avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None) -> Tensor
///
/// Averages over sliding windows of a ``(N, C, H, W)`` or ``(C, H, W)`` input. See
/// :class:`ferric.nn.AvgPool2d`.
///
/// Args:
///     input (Tensor): the input tensor.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     ceil_mode (bool): use ceil instead of floor to compute the output size.
///     count_include_pad (bool): count the zero padding in the divisor.
///     divisor_override (int, optional): divide by this instead of the window size.
///
/// Example:
///     >>> ferric.avg_pool2d(ferric.arange(16.).reshape(1, 1, 4, 4), 2)
///     tensor([[[[ 2.5000,  4.5000],
///               [10.5000, 12.5000]]]])
pub(super) fn avg_pool2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Obj,
    padding: Obj,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> PyResult<Py<PyTensor>> {
    let op = "avg_pool2d";
    let x = var_arg(op, "input", 1, input)?;
    let k = ints(op, "kernel_size", Some(kernel_size), 1, 2)?;
    let s = stride_arg(op, stride, 2)?;
    let p = ints(op, "padding", padding, 0, 2)?;
    let g = plan_avg_pool2d(&x.t, &k, &s, &p, ceil_mode, divisor_override)?;
    let rule = AvgRule {
        count_include_pad,
        divisor_override,
    };
    wrap_var(py, ac::avg_pool2d(&x, &g, rule)?)
}

#[pyfunction]
#[pyo3(signature = (input, kernel_size, stride=None, padding=None, ceil_mode=false, count_include_pad=true))]
/// avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) -> Tensor
///
/// Averages over sliding windows of a ``(N, C, L)`` or ``(C, L)`` input. See
/// :class:`ferric.nn.AvgPool1d`.
///
/// Args:
///     input (Tensor): the input tensor.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     ceil_mode (bool): use ceil instead of floor to compute the output size.
///     count_include_pad (bool): count the zero padding in the divisor.
///
/// Example:
///     >>> ferric.avg_pool1d(ferric.arange(6.).reshape(1, 1, 6), 2)
///     tensor([[[0.5000, 2.5000, 4.5000]]])
pub(super) fn avg_pool1d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    stride: Obj,
    padding: Obj,
    ceil_mode: bool,
    count_include_pad: bool,
) -> PyResult<Py<PyTensor>> {
    let op = "avg_pool1d";
    let x = var_arg(op, "input", 1, input)?;
    let k = ints(op, "kernel_size", Some(kernel_size), 1, 1)?;
    let mut s = stride_arg(op, stride, 1)?;
    if s.is_empty() {
        s = k.clone();
    }
    let p = ints(op, "padding", padding, 0, 1)?;
    pops::check_pool1d(
        op,
        &x.t,
        &[("kernel_size", &k), ("stride", &s), ("padding", &p)],
    )?;
    let rule = AvgRule {
        count_include_pad,
        divisor_override: None,
    };
    let (v, _) = ac::pool1d(&x, |x2| {
        let g = plan_avg_pool2d(&x2.t, &[1, k[0]], &[1, s[0]], &[0, p[0]], ceil_mode, None)?;
        Ok((ac::avg_pool2d(x2, &g, rule)?, None))
    })?;
    wrap_var(py, v)
}

/// `output_size` of the adaptive pools: an int, or a sequence whose `None` entries keep
/// the input's size (PyTorch's `_list_with_default`).
fn adaptive_sizes(op: &str, obj: &Bound<'_, PyAny>, x: &Tensor, n: usize) -> PyResult<Vec<i64>> {
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return Ok(vec![obj.extract::<i64>()?; n]);
    }
    let seq = obj.cast::<PySequence>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{op}(): argument 'output_size' must be tuple of ints, not {}",
            type_name(obj)
        ))
    })?;
    let items: Vec<Bound<'_, PyAny>> = seq.try_iter()?.collect::<PyResult<_>>()?;
    let shape = x.shape();
    if shape.len() <= items.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "Input dimension should be at least {}",
            items.len() + 1
        )));
    }
    let defaults = &shape[shape.len() - items.len()..];
    items
        .iter()
        .zip(defaults)
        .map(|(v, &d)| {
            if v.is_none() {
                Ok(d as i64)
            } else {
                ints(op, "output_size", Some(v), 0, 1).map(|v| v[0])
            }
        })
        .collect()
}

#[pyfunction]
/// adaptive_avg_pool2d(input, output_size) -> Tensor
///
/// Averages over windows of a ``(N, C, H, W)`` or ``(C, H, W)`` input chosen so that the output has
/// size ``output_size``. See :class:`ferric.nn.AdaptiveAvgPool2d`.
///
/// Args:
///     input (Tensor): the input tensor.
///     output_size (int or tuple): the size of the output.
///
/// Example:
///     >>> ferric.adaptive_avg_pool2d(ferric.arange(16.).reshape(1, 1, 4, 4), 2)
///     tensor([[[[ 2.5000,  4.5000],
///               [10.5000, 12.5000]]]])
pub(super) fn adaptive_avg_pool2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: &Bound<'_, PyAny>,
) -> PyResult<Py<PyTensor>> {
    let op = "adaptive_avg_pool2d";
    let x = var_arg(op, "input", 1, input)?;
    let sizes = adaptive_sizes(op, output_size, &x.t, 2)?;
    let g = plan_adaptive(op, &x.t, &sizes)?;
    wrap_var(py, ac::adaptive_avg_pool2d(&x, &g)?)
}

#[pyfunction]
#[pyo3(signature = (input, output_size, return_indices=false))]
/// adaptive_max_pool2d(input, output_size, return_indices=False) -> Tensor
///
/// The maximum over windows of a ``(N, C, H, W)`` or ``(C, H, W)`` input chosen so that the output
/// has size ``output_size``.
///
/// Args:
///     input (Tensor): the input tensor.
///     output_size (int or tuple): the size of the output.
///     return_indices (bool): also return the positions of the maxima.
///
/// Example:
///     >>> ferric.adaptive_max_pool2d(ferric.arange(16.).reshape(1, 1, 4, 4), 2)
///     tensor([[[[ 5.,  7.],
///               [13., 15.]]]])
pub(super) fn adaptive_max_pool2d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: &Bound<'_, PyAny>,
    return_indices: bool,
) -> PyResult<Py<PyAny>> {
    let op = "adaptive_max_pool2d";
    let x = var_arg(op, "input", 1, input)?;
    let sizes = adaptive_sizes(op, output_size, &x.t, 2)?;
    let g = plan_adaptive(op, &x.t, &sizes)?;
    let (v, idx) = ac::adaptive_max_pool2d(&x, &g)?;
    values_and_indices(py, v, Some(idx), return_indices)
}

#[pyfunction]
/// adaptive_avg_pool1d(input, output_size) -> Tensor
///
/// Averages over windows of a ``(N, C, L)`` or ``(C, L)`` input chosen so that the output has
/// length ``output_size``. See :class:`ferric.nn.AdaptiveAvgPool1d`.
///
/// Args:
///     input (Tensor): the input tensor.
///     output_size (int): the output length.
///
/// Example:
///     >>> ferric.adaptive_avg_pool1d(ferric.arange(6.).reshape(1, 1, 6), 3)
///     tensor([[[0.5000, 2.5000, 4.5000]]])
pub(super) fn adaptive_avg_pool1d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: &Bound<'_, PyAny>,
) -> PyResult<Py<PyTensor>> {
    let op = "adaptive_avg_pool1d";
    let x = var_arg(op, "input", 1, input)?;
    let sizes = ints(op, "output_size", Some(output_size), 0, 1)?;
    pops::check_pool1d(op, &x.t, &[("output_size", &sizes)])?;
    let (v, _) = ac::pool1d(&x, |x2| {
        let g = plan_adaptive("adaptive_avg_pool2d", &x2.t, &[1, sizes[0]])?;
        Ok((ac::adaptive_avg_pool2d(x2, &g)?, None))
    })?;
    wrap_var(py, v)
}

#[pyfunction]
#[pyo3(signature = (input, output_size, return_indices=false))]
pub(super) fn adaptive_max_pool1d(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: &Bound<'_, PyAny>,
    return_indices: bool,
) -> PyResult<Py<PyAny>> {
    let op = "adaptive_max_pool1d";
    let x = var_arg(op, "input", 1, input)?;
    let sizes = ints(op, "output_size", Some(output_size), 0, 1)?;
    pops::check_pool1d(op, &x.t, &[("output_size", &sizes)])?;
    let (v, idx) = ac::pool1d(&x, |x2| {
        let g = plan_adaptive("adaptive_max_pool2d", &x2.t, &[1, sizes[0]])?;
        let (v, i) = ac::adaptive_max_pool2d(x2, &g)?;
        Ok((v, Some(i)))
    })?;
    values_and_indices(py, v, idx, return_indices)
}
