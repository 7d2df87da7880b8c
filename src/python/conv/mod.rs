//! Bindings for convolutions, pooling and fold/unfold: module functions with
//! `torch.nn.functional`'s names, signatures and defaults (`ferric.nn.functional`
//! forwards to them).

use crate::autograd::conv as ac;
use crate::ops::conv::fold::{plan_fold, plan_unfold};
use crate::ops::conv::{ConvArgs, Padding};
use crate::python::convert::{index_int, type_name};
use crate::python::tensor::{opt_var, var_arg, wrap_var, Obj, PyTensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PySequence, PyString};

mod pool;

/// An int-list argument: one int (repeated `n` times, like PyTorch's `_pair`) or a
/// sequence of ints. Bools and floats are TypeErrors, as in PyTorch.
/// The sliding-window arguments of `unfold` and `fold`, two ints each:
/// `[kernel_size, dilation, padding, stride]` (defaults 1, 0 and 1).
fn window_args(
    op: &str,
    kernel_size: &Bound<'_, PyAny>,
    dilation: Obj,
    padding: Obj,
    stride: Obj,
) -> PyResult<[Vec<i64>; 4]> {
    Ok([
        ints(op, "kernel_size", Some(kernel_size), 1, 2)?,
        ints(op, "dilation", dilation, 1, 2)?,
        ints(op, "padding", padding, 0, 2)?,
        ints(op, "stride", stride, 1, 2)?,
    ])
}

fn ints(op: &str, name: &str, obj: Obj, default: i64, n: usize) -> PyResult<Vec<i64>> {
    let Some(o) = obj else {
        return Ok(vec![default; n]);
    };
    let bad = || {
        PyTypeError::new_err(format!(
            "{op}(): argument '{name}' must be tuple of ints, not {}",
            type_name(o)
        ))
    };
    if o.is_instance_of::<PyBool>() || o.is_instance_of::<PyFloat>() {
        return Err(bad());
    }
    if o.is_instance_of::<PyInt>() || o.cast::<PyTensor>().is_ok() {
        return Ok(vec![index_int(o, name).map_err(|_| bad())?; n]);
    }
    let seq = o.cast::<PySequence>().map_err(|_| bad())?;
    let mut out = Vec::new();
    for item in seq.try_iter()? {
        let item = item?;
        if !item.is_instance_of::<PyInt>() || item.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "{op}(): argument '{name}' must be tuple of ints, but found element of type {} at \
                 pos {}",
                type_name(&item),
                out.len()
            )));
        }
        out.push(item.extract::<i64>()?);
    }
    Ok(out)
}

/// `stride=None` of the pools: empty (meaning "the kernel size").
fn stride_arg(op: &str, obj: Obj, n: usize) -> PyResult<Vec<i64>> {
    match obj {
        Some(o) if !o.is_none() => ints(op, "stride", Some(o), 1, n),
        _ => Ok(Vec::new()),
    }
}

fn padding_arg(op: &str, obj: Obj, n: usize) -> PyResult<Padding> {
    match obj {
        Some(o) if o.is_instance_of::<PyString>() => {
            let s: String = o.extract()?;
            match s.as_str() {
                "valid" => Ok(Padding::Valid),
                "same" => Ok(Padding::Same),
                _ => Err(crate::error::Error::runtime(
                    "",
                    format!("Invalid padding string: '{s}'"),
                )
                .into()),
            }
        }
        _ => Ok(Padding::Explicit(ints(op, "padding", obj, 0, n)?)),
    }
}

#[allow(clippy::too_many_arguments)]
fn conv(
    py: Python<'_>,
    op: &str,
    sd: usize,
    transposed: bool,
    input: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    bias: Obj,
    args: ConvArgs,
) -> PyResult<Py<PyTensor>> {
    let x = var_arg(op, "input", 1, input)?;
    let w = var_arg(op, "weight", 2, weight)?;
    let b = opt_var(op, "bias", 3, bias)?;
    wrap_var(
        py,
        ac::convolution(op, sd, transposed, &x, &w, b.as_ref(), &args)?,
    )
}

/// The `Args:` lines the convolution bindings share after `input` and `weight`.
macro_rules! conv_args_doc {
    () => {
        "    bias (Tensor, optional): the per-channel bias; default none.\n    \
         stride (int or tuple, optional): the step of the window; default ``kernel_size`` for\n        \
         pooling, 1 otherwise.\n    \
         padding (int or tuple, optional): implicit zero padding on both sides; default 0.\n"
    };
}

/// One convolution binding, `conv{1,2}d` (`$sd` spatial dims): `$about` says what it
/// computes, `$weight` the filters' shape and `$example` the doctest lines.
macro_rules! conv_binding {
    ($name:ident, $sd:expr, $about:expr, $weight:expr, $example:expr) => {
        #[pyfunction]
        #[pyo3(signature = (input, weight, bias=None, stride=None, padding=None, dilation=None, groups=1))]
        #[allow(clippy::too_many_arguments)]
        #[doc = concat!(stringify!($name),
            "(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor\n\n",
            $about, "\n\nArgs:\n    input (Tensor): the input tensor.\n    \
             weight (Tensor): the filters, ``", $weight, "``.\n", conv_args_doc!(),
            "    dilation (int or tuple, optional): the spacing of the window's elements; default 1.\n    \
             groups (int): the number of blocked connections from input to output channels.\n\n\
             Example:\n", $example)]
        fn $name(
            py: Python<'_>,
            input: &Bound<'_, PyAny>,
            weight: &Bound<'_, PyAny>,
            bias: Obj,
            stride: Obj,
            padding: Obj,
            dilation: Obj,
            groups: i64,
        ) -> PyResult<Py<PyTensor>> {
            let args = ConvArgs {
                stride: ints(stringify!($name), "stride", stride, 1, $sd)?,
                padding: padding_arg(stringify!($name), padding, $sd)?,
                dilation: ints(stringify!($name), "dilation", dilation, 1, $sd)?,
                groups,
                output_padding: Vec::new(),
            };
            conv(py, stringify!($name), $sd, false, input, weight, bias, args)
        }
    };
}

/// One transposed convolution binding, `conv_transpose{1,2}d`: as `conv_binding!`.
macro_rules! conv_transpose_binding {
    ($name:ident, $sd:expr, $about:expr, $weight:expr, $example:expr) => {
        #[pyfunction]
        #[pyo3(signature = (input, weight, bias=None, stride=None, padding=None, output_padding=None, groups=1, dilation=None))]
        #[allow(clippy::too_many_arguments)]
        #[doc = concat!(stringify!($name),
            "(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, \
             dilation=1) -> Tensor\n\n",
            $about, "\n\nArgs:\n    input (Tensor): the input tensor.\n    \
             weight (Tensor): the filters, ``", $weight, "``.\n", conv_args_doc!(),
            "    output_padding (int or tuple, optional): extra size added to one side of the \
             output.\n    \
             groups (int): the number of blocked connections from input to output channels.\n    \
             dilation (int or tuple, optional): the spacing of the window's elements; default 1.\n\n\
             Example:\n", $example)]
        fn $name(
            py: Python<'_>,
            input: &Bound<'_, PyAny>,
            weight: &Bound<'_, PyAny>,
            bias: Obj,
            stride: Obj,
            padding: Obj,
            output_padding: Obj,
            groups: i64,
            dilation: Obj,
        ) -> PyResult<Py<PyTensor>> {
            let op = stringify!($name);
            let args = ConvArgs {
                stride: ints(op, "stride", stride, 1, $sd)?,
                padding: Padding::Explicit(ints(op, "padding", padding, 0, $sd)?),
                dilation: ints(op, "dilation", dilation, 1, $sd)?,
                groups,
                output_padding: ints(op, "output_padding", output_padding, 0, $sd)?,
            };
            conv(py, op, $sd, true, input, weight, bias, args)
        }
    };
}

conv_binding!(
    conv1d,
    1,
    "1-D convolution (cross-correlation) of a ``(N, C_in, L)`` or ``(C_in, L)`` input. \
     ``padding``\nmay also be ``'valid'`` or ``'same'``. See :class:`ferric.nn.Conv1d`.",
    "(out_channels, in_channels / groups, *kernel)",
    "    >>> ferric.conv1d(ferric.ones(1, 1, 4), ferric.ones(1, 1, 2))\n    \
     tensor([[[2., 2., 2.]]])"
);
conv_binding!(
    conv2d,
    2,
    "2-D convolution (cross-correlation) of a ``(N, C_in, H, W)`` or ``(C_in, H, W)`` input.\n\
     ``padding`` may also be ``'valid'`` or ``'same'``. See :class:`ferric.nn.Conv2d`.",
    "(out_channels, in_channels / groups, *kernel)",
    "    >>> ferric.conv2d(ferric.ones(1, 1, 3, 3), ferric.ones(1, 1, 2, 2))\n    \
     tensor([[[[4., 4.],\n              [4., 4.]]]])"
);
conv_transpose_binding!(
    conv_transpose1d,
    1,
    "1-D transposed convolution (the gradient of :func:`ferric.conv1d` with respect to its \
     input).\n``weight`` is ``(C_in, C_out / groups, k)``.",
    "(in_channels, out_channels / groups, k)",
    "    >>> ferric.conv_transpose1d(ferric.ones(1, 1, 2), ferric.ones(1, 1, 2))\n    \
     tensor([[[1., 2., 1.]]])"
);
conv_transpose_binding!(
    conv_transpose2d,
    2,
    "2-D transposed convolution (the gradient of :func:`ferric.conv2d` with respect to its \
     input).",
    "(in_channels, out_channels / groups, kH, kW)",
    "    >>> ferric.conv_transpose2d(ferric.ones(1, 1, 1, 1), ferric.ones(1, 1, 2, 2))\n    \
     tensor([[[[1., 1.],\n              [1., 1.]]]])"
);

#[pyfunction]
#[pyo3(signature = (input, kernel_size, dilation=None, padding=None, stride=None))]
/// unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor
///
/// Extracts sliding local blocks of a ``(N, C, H, W)`` input as the columns of a ``(N, C *
/// prod(kernel_size), L)`` tensor (im2col).
///
/// Args:
///     input (Tensor): the input tensor.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     dilation (int or tuple, optional): the spacing of the window's elements; default 1.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///
/// Example:
///     >>> ferric.unfold(ferric.arange(9.).reshape(1, 1, 3, 3), 2).shape
///     ferric.Size([1, 4, 4])
fn unfold(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    dilation: Obj,
    padding: Obj,
    stride: Obj,
) -> PyResult<Py<PyTensor>> {
    let op = "unfold";
    let x = var_arg(op, "input", 1, input)?;
    let [k, d, p, s] = window_args(op, kernel_size, dilation, padding, stride)?;
    let g = plan_unfold(&x.t, &k, &d, &p, &s)?;
    wrap_var(py, ac::unfold(&x, &g)?)
}

#[pyfunction]
#[pyo3(signature = (input, output_size, kernel_size, dilation=None, padding=None, stride=None))]
/// fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor
///
/// Combines sliding local blocks (the columns of a ``(N, C * prod(kernel_size), L)`` input) into a
/// ``(N, C, *output_size)`` tensor, summing overlaps; the inverse layout of :func:`ferric.unfold`.
///
/// Args:
///     input (Tensor): the input tensor.
///     output_size (int or tuple): the size of the output.
///     kernel_size (int or tuple): the size of the pooling or sliding window.
///     dilation (int or tuple, optional): the spacing of the window's elements; default 1.
///     padding (int or tuple, optional): implicit zero padding on both sides; default 0.
///     stride (int or tuple, optional): the step of the window; default ``kernel_size`` for
///         pooling, 1 otherwise.
///
/// Example:
///     >>> ferric.fold(ferric.ones(1, 4, 1), (2, 2), 2)
///     tensor([[[[1., 1.],
///               [1., 1.]]]])
fn fold(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output_size: &Bound<'_, PyAny>,
    kernel_size: &Bound<'_, PyAny>,
    dilation: Obj,
    padding: Obj,
    stride: Obj,
) -> PyResult<Py<PyTensor>> {
    let op = "fold";
    let x = var_arg(op, "input", 1, input)?;
    let size = ints(op, "output_size", Some(output_size), 1, 2)?;
    let [k, d, p, s] = window_args(op, kernel_size, dilation, padding, stride)?;
    let g = plan_fold(&x.t, &size, &k, &d, &p, &s)?;
    wrap_var(py, ac::fold(&x, &g)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            conv1d,
            conv2d,
            conv_transpose1d,
            conv_transpose2d,
            pool::max_pool1d,
            pool::max_pool2d,
            pool::max_pool2d_with_indices,
            pool::avg_pool1d,
            pool::avg_pool2d,
            pool::adaptive_avg_pool1d,
            pool::adaptive_avg_pool2d,
            pool::adaptive_max_pool1d,
            pool::adaptive_max_pool2d,
            unfold,
            fold
        ]
    )
}
