//! Bindings for the reduce op family: reductions, scans and softmax as `Tensor` methods,
//! exposed as module functions too (`ferric.sum = Tensor.sum`). Each method converts its
//! arguments and calls the differentiable op in `autograd::reduce` (which records a graph
//! node only when an input requires grad), or `ops::reduce` for the integer/bool-valued
//! ops that have no gradient (argmax, all, count_nonzero...).

use crate::autograd::pointwise::{binary, Arg as VA};
use crate::autograd::reduce as av;
use crate::autograd::Var;
use crate::dtype::DType;
use crate::ops::binary::BinaryOp;
use crate::ops::reduce::{self as r, NormP};
use crate::python::convert::{dims_arg, dtype_arg, index_int, is_ndarray, scalar_arg, type_name};
use crate::python::out::{finish, finish_pair, out_arg, OutDtype};
use crate::python::tensor::{as_tensor_ref, wrap, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyModule, PyString};

pub type Arg<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

fn opt_dtype(obj: Arg) -> PyResult<Option<DType>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(dtype_arg(o)?)),
        _ => Ok(None),
    }
}

/// A named tuple from `ferric.return_types` (`max`, `min`, `aminmax`, `cummax`, ...).
pub(crate) fn named(py: Python<'_>, name: &str, a: Var, b: Var) -> PyResult<Py<PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let m = MODULE.get_or_try_init(py, || py.import("ferric.return_types").map(Bound::unbind))?;
    let cls = m.bind(py).getattr(name)?;
    Ok(cls.call1(((wrap_var(py, a)?, wrap_var(py, b)?),))?.unbind())
}

/// `named`, or with `out=(values, indices)` the named tuple of the two out tensors
/// holding the results.
pub(crate) fn named_out(
    py: Python<'_>,
    name: &str,
    out: Arg,
    a: Var,
    b: Var,
) -> PyResult<Py<PyAny>> {
    match finish_pair(py, name, out, a.clone(), b.clone())? {
        None => named(py, name, a, b),
        Some((x, y)) => {
            let m = py.import("ferric.return_types")?;
            Ok(m.getattr(name)?.call1(((x, y),))?.unbind())
        }
    }
}

/// `max`/`min` with PyTorch's overloads: no dim -> 0-d tensor, an int dim -> (values,
/// indices), a tensor -> elementwise maximum/minimum.
fn minmax(
    py: Python<'_>,
    t: &Var,
    dim: Arg,
    keepdim: Option<bool>,
    other: Arg,
    max: bool,
    out: Arg,
) -> PyResult<Py<PyAny>> {
    let name = if max { "max" } else { "min" };
    let is_tensor = |o: &Bound<'_, PyAny>| as_tensor_ref(o).is_some() || is_ndarray(o);
    let other = match (dim, other) {
        (Some(d), None) if is_tensor(d) => Some(d),
        (None, o) => o.filter(|o| !o.is_none()),
        (Some(_), Some(o)) if !o.is_none() => {
            return Err(PyTypeError::new_err(format!(
                "{name}() received an invalid combination of arguments: got both 'dim' and \
                 'other'"
            )))
        }
        _ => None,
    };
    if let Some(o) = other {
        let b = match crate::python::arith::varg(o)? {
            Some(crate::python::arith::VArg::V(b)) => b,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{name}(): argument 'other' must be Tensor, not {}",
                    type_name(o)
                )))
            }
        };
        let op = if max {
            BinaryOp::Maximum
        } else {
            BinaryOp::Minimum
        };
        let r = binary(op, VA::V(t), VA::V(&b))?;
        return finish(py, name, out, OutDtype::Cast, r);
    }
    let keepdim = keepdim_needs_dim(name, dim, keepdim)?;
    match dim.filter(|d| !d.is_none()) {
        None => finish(py, name, out, OutDtype::Same, av::max_all(t, max)?),
        Some(d) => {
            let (v, i) = av::max_dim(t, index_int(d, "dim")?, keepdim, max)?;
            named_out(py, name, out, v, Var::plain(i))
        }
    }
}

/// Resolves var/std's two spellings: `(dim, unbiased, keepdim)` (also `var(unbiased)`)
/// and `(dim, *, correction, keepdim)`.
fn var_args(
    name: &str,
    dim: Arg,
    unbiased: Option<bool>,
    correction: Arg,
) -> PyResult<(Option<Vec<i64>>, f64)> {
    let (dims, unbiased) = match dim {
        Some(d) if d.is_instance_of::<PyBool>() => {
            if unbiased.is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{name}() received an invalid combination of arguments: 'unbiased' given \
                     twice"
                )));
            }
            (None, Some(d.extract::<bool>()?))
        }
        d => (dims_arg(d)?, unbiased),
    };
    let correction = correction.filter(|c| !c.is_none());
    let c = match (unbiased, correction) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(format!(
                "{name}() received an invalid combination of arguments: cannot pass both \
                 'unbiased' and 'correction'"
            )))
        }
        (Some(u), None) => u as u8 as f64,
        (None, Some(c)) => match scalar_arg(c) {
            Some(s) => s.to_f64(),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "{name}(): argument 'correction' must be Number, not {}",
                    type_name(c)
                )))
            }
        },
        (None, None) => 1.0,
    };
    Ok((dims, c))
}

/// `p` of `norm`: a number (incl. inf), 'fro' or None. Like `torch.norm`, 'fro' over
/// more than two dims and string orders other than 'fro' go to the matrix norm, which
/// ferric does not have beyond 'fro'.
fn norm_p(t: &Tensor, p: Arg, dims: Option<&[i64]>) -> PyResult<NormP> {
    let Some(p) = p.filter(|p| !p.is_none()) else {
        return fro_dims(dims);
    };
    if let Ok(s) = p.cast::<PyString>() {
        return match s.to_str()? {
            "fro" => fro_dims(dims),
            "nuc" if t.ndim() < 2 => Err(PyRuntimeError::new_err(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
            )),
            "nuc" => Err(PyNotImplementedError::new_err(
                "norm: the nuclear norm (p='nuc') is not supported by ferric",
            )),
            other => Err(PyRuntimeError::new_err(format!(
                "linalg.matrix_norm: Order {other} not supported."
            ))),
        };
    }
    match scalar_arg(p) {
        Some(s) => Ok(NormP::P(s.to_f64())),
        None => Err(PyTypeError::new_err(format!(
            "norm(): argument 'p' must be Number or str, not {}",
            type_name(p)
        ))),
    }
}

fn fro_dims(dims: Option<&[i64]>) -> PyResult<NormP> {
    match dims {
        Some(d) if d.len() > 2 => {
            let shown: Vec<String> = d.iter().map(|v| v.to_string()).collect();
            Err(PyRuntimeError::new_err(format!(
                "linalg.matrix_norm: dim must be a 2-tuple. Got {}",
                shown.join(" ")
            )))
        }
        _ => Ok(NormP::Fro),
    }
}

/// PyTorch has no `max(keepdim=...)` / `prod(keepdim=...)` overload without a dim.
pub(crate) fn keepdim_needs_dim(name: &str, dim: Arg, keepdim: Option<bool>) -> PyResult<bool> {
    match (dim.filter(|d| !d.is_none()), keepdim) {
        (None, Some(_)) => Err(PyTypeError::new_err(format!(
            "{name}() received an invalid combination of arguments - got (keepdim=bool, ): \
             keepdim needs a dim"
        ))),
        (_, k) => Ok(k.unwrap_or(false)),
    }
}

/// PyTorch's NumPy-compatible keyword: `axis=` names the same argument as `dim=`.
pub fn dim_or_axis<'a, 'py>(
    op: &str,
    dim: Arg<'a, 'py>,
    axis: Arg<'a, 'py>,
) -> PyResult<Arg<'a, 'py>> {
    match (dim.filter(|d| !d.is_none()), axis.filter(|a| !a.is_none())) {
        (Some(_), Some(_)) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{op}() got multiple values for argument 'dim' (also given as 'axis')"
        ))),
        (None, a @ Some(_)) => Ok(a),
        (d, None) => Ok(d),
    }
}

/// The dtype a sum-like reduction computes in when it writes into `out`, and the rule
/// out's dtype then meets: PyTorch sums in out's dtype unless `dtype=` is given (which
/// out must then have), and `mean` only into a floating out. Like PyTorch, the
/// reductions over all elements take no `out`.
fn reduce_out_dtype(
    op: &str,
    has_dim: bool,
    dtype: Option<DType>,
    out: &Bound<'_, PyTensor>,
    input: &Tensor,
) -> PyResult<(Option<DType>, OutDtype)> {
    if !has_dim {
        return Err(PyTypeError::new_err(format!(
            "{op}() received an invalid combination of arguments - got (Tensor, out=Tensor), \
             but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor \
             input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, \
             Tensor out = None)"
        )));
    }
    let od = out.borrow().t.dtype();
    let mean = op.ends_with("mean");
    Ok(match dtype {
        Some(d) => (Some(d), OutDtype::Same),
        None if mean && !(od.is_float() && input.dtype().is_float()) => (None, OutDtype::Cast),
        None => (Some(od), OutDtype::Same),
    })
}

/// Sums-like methods that share `(dim=None, keepdim=False, *, dtype=None)`.
macro_rules! sum_methods {
    ($($name:ident => $f:path, $doc:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = $doc]
                #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None, axis=None, out=None))]
                fn $name(&self, py: Python<'_>, dim: Arg, keepdim: bool, dtype: Arg, axis: Arg,
                    out: Arg) -> PyResult<Py<PyAny>> {
                    let op = stringify!($name);
                    let dim = dim_or_axis(op, dim, axis)?;
                    let (d, dt) = (dims_arg(dim)?, opt_dtype(dtype)?);
                    let Some(o) = out_arg(op, out)? else {
                        return Ok(wrap_var(py, $f(&self.var()?, d.as_deref(), keepdim, dt)?)?
                            .into_any());
                    };
                    let (dt, rule) = reduce_out_dtype(op, d.is_some(), dt, &o, &self.t)?;
                    let r = $f(&self.var()?, d.as_deref(), keepdim, dt)?;
                    finish(py, op, out, rule, r)
                }
            )*
        }
    };
}

sum_methods! {
    sum => av::sum,
        concat!(
            "sum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor\n",
            "\n",
            "The sum of the elements (over the dimension(s) ``dim``, or all); integer and bool inputs sum in int64.\n",
            "\n",
            "Args:\n",
            "    input (Tensor): the input tensor.\n",
            "    dim (int or tuple of ints, optional): the dimension(s) to reduce.\n",
            "    keepdim (bool): whether the reduced dimensions are kept with size 1.\n",
            "    dtype (:class:`ferric.dtype`, optional): the desired data type of the result.\n",
            "    out (Tensor, optional): the output tensor (only with ``dim``).\n",
            "\n",
            "Example:\n",
            "    >>> ferric.sum(ferric.tensor([[1, 2], [3, 4]]), dim=0)\n",
            "    tensor([4, 6])"
        );
    nansum => av::nansum,
        concat!(
            "nansum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor\n",
            "\n",
            ":func:`ferric.sum` that treats NaN as zero.\n",
            "\n",
            "Args:\n",
            "    input (Tensor): the input tensor.\n",
            "    dim (int or tuple of ints, optional): the dimension(s) to reduce.\n",
            "    keepdim (bool): whether the reduced dimensions are kept with size 1.\n",
            "    dtype (:class:`ferric.dtype`, optional): the desired data type of the result.\n",
            "    out (Tensor, optional): the output tensor (only with ``dim``).\n",
            "\n",
            "Example:\n",
            "    >>> ferric.nansum(ferric.tensor([1., float('nan'), 3.]))\n",
            "    tensor(4.)"
        );
    mean => av::mean,
        concat!(
            "mean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor\n",
            "\n",
            "The mean of ``input`` (over the dimension(s) ``dim``, or all elements); ``input`` must be floating point unless ``dtype`` is.\n",
            "\n",
            "Args:\n",
            "    input (Tensor): the input tensor.\n",
            "    dim (int or tuple of ints, optional): the dimension(s) to reduce.\n",
            "    keepdim (bool): whether the reduced dimensions are kept with size 1.\n",
            "    dtype (:class:`ferric.dtype`, optional): the desired data type of the result.\n",
            "    out (Tensor, optional): the output tensor (only with ``dim``).\n",
            "\n",
            "Example:\n",
            "    >>> ferric.mean(ferric.tensor([[1., 2.], [3., 4.]]), dim=1)\n",
            "    tensor([1.5000, 3.5000])"
        );
    nanmean => av::nanmean,
        concat!(
            "nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor\n",
            "\n",
            ":func:`ferric.mean` that ignores NaN elements.\n",
            "\n",
            "Args:\n",
            "    input (Tensor): the input tensor.\n",
            "    dim (int or tuple of ints, optional): the dimension(s) to reduce.\n",
            "    keepdim (bool): whether the reduced dimensions are kept with size 1.\n",
            "    dtype (:class:`ferric.dtype`, optional): the desired data type of the result.\n",
            "    out (Tensor, optional): the output tensor (only with ``dim``).\n",
            "\n",
            "Example:\n",
            "    >>> ferric.nanmean(ferric.tensor([1., float('nan'), 3.]))\n",
            "    tensor(2.)"
        );
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim=None, keepdim=None, *, dtype=None, out=None))]
    /// prod(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor
    ///
    /// The product of the elements (over ``dim``, or all); integer and bool inputs multiply in
    /// int64.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///     out (Tensor, optional): the output tensor (only with ``dim``).
    ///
    /// Example:
    ///     >>> ferric.prod(ferric.tensor([[1, 2], [3, 4]]), 1)
    ///     tensor([ 2, 12])
    fn prod(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        dtype: Arg,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        let keepdim = keepdim_needs_dim("prod", dim, keepdim)?;
        let d = dim
            .filter(|d| !d.is_none())
            .map(|d| index_int(d, "dim"))
            .transpose()?;
        let (mut dt, mut rule) = (opt_dtype(dtype)?, OutDtype::Same);
        if let Some(o) = out_arg("prod", out)? {
            (dt, rule) = reduce_out_dtype("prod", d.is_some(), dt, &o, &self.t)?;
        }
        finish(
            py,
            "prod",
            out,
            rule,
            // autocast's fp32 list
            av::prod(&crate::python::autocast::fp32(self.var()?)?, d, keepdim, dt)?,
        )
    }

    #[pyo3(signature = (dim=None, keepdim=None, *, other=None, out=None))]
    /// max(input, dim=None, keepdim=False, *, out=None) -> Tensor or (Tensor values, LongTensor indices)
    ///
    /// Without ``dim``, the largest element as a 0-d tensor; with ``dim``, the named tuple
    /// ``(values, indices)`` of the maxima along it; ``max(input, other)`` is
    /// :func:`ferric.maximum`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     out (Tensor or tuple of Tensors, optional): the output tensor(s).
    ///
    /// Example:
    ///     >>> ferric.max(ferric.tensor([[1., 5.], [3., 2.]]))
    ///     tensor(5.)
    ///     >>> ferric.max(ferric.tensor([[1., 5.], [3., 2.]]), 0)
    ///     ferric.return_types.max(
    ///     values=tensor([3., 5.]),
    ///     indices=tensor([1, 0]))
    fn max(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        other: Arg,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        minmax(py, &self.var()?, dim, keepdim, other, true, out)
    }

    #[pyo3(signature = (dim=None, keepdim=None, *, other=None, out=None))]
    /// min(input, dim=None, keepdim=False, *, out=None) -> Tensor or (Tensor values, LongTensor indices)
    ///
    /// Without ``dim``, the smallest element as a 0-d tensor; with ``dim``, the named tuple
    /// ``(values, indices)`` of the minima along it; ``min(input, other)`` is
    /// :func:`ferric.minimum`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     out (Tensor or tuple of Tensors, optional): the output tensor(s).
    ///
    /// Example:
    ///     >>> ferric.min(ferric.tensor([[1., 5.], [3., 2.]]), 1)
    ///     ferric.return_types.min(
    ///     values=tensor([1., 2.]),
    ///     indices=tensor([0, 1]))
    fn min(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        other: Arg,
        out: Arg,
    ) -> PyResult<Py<PyAny>> {
        minmax(py, &self.var()?, dim, keepdim, other, false, out)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, axis=None))]
    /// amax(input, dim=(), keepdim=False) -> Tensor
    ///
    /// Returns the maximum of ``input`` over the dimension(s) ``dim`` (all when empty). Unlike
    /// :func:`ferric.max` it returns no indices and spreads the gradient evenly over ties.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints): the dimension(s) to reduce.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.amax(ferric.tensor([[1., 5.], [3., 2.]]), dim=0)
    ///     tensor([3., 5.])
    fn amax(&self, py: Python<'_>, dim: Arg, keepdim: bool, axis: Arg) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim_or_axis("amax", dim, axis)?)?.unwrap_or_default();
        wrap_var(py, av::amax(&self.var()?, &d, keepdim, true)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, axis=None))]
    /// amin(input, dim=(), keepdim=False) -> Tensor
    ///
    /// Returns the minimum of ``input`` over the dimension(s) ``dim`` (all when empty).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints): the dimension(s) to reduce.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.amin(ferric.tensor([[1., 5.], [3., 2.]]), dim=0)
    ///     tensor([1., 2.])
    fn amin(&self, py: Python<'_>, dim: Arg, keepdim: bool, axis: Arg) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim_or_axis("amin", dim, axis)?)?.unwrap_or_default();
        wrap_var(py, av::amax(&self.var()?, &d, keepdim, false)?)
    }

    #[pyo3(signature = (*, dim=None, keepdim=false))]
    /// aminmax(input, *, dim=None, keepdim=False) -> (Tensor min, Tensor max)
    ///
    /// Returns the minimum and the maximum of ``input`` (over ``dim``, or all elements) as a named
    /// tuple ``(min, max)``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.aminmax(ferric.tensor([1., 5., -2.]))
    ///     ferric.return_types.aminmax(
    ///     min=tensor(-2.),
    ///     max=tensor(5.))
    fn aminmax(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<Py<PyAny>> {
        let (lo, hi) = av::aminmax(&self.var()?, dim, keepdim)?;
        named(py, "aminmax", lo, hi)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    /// argmax(input, dim=None, keepdim=False) -> LongTensor
    ///
    /// Returns the index of the maximum (the first one on ties) of the flattened ``input``, or
    /// along ``dim``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.argmax(ferric.tensor([[1., 5.], [3., 2.]]), dim=1)
    ///     tensor([1, 0])
    fn argmax(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<Py<PyTensor>> {
        wrap(py, r::argmax(&self.t, dim, keepdim, true)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    /// argmin(input, dim=None, keepdim=False) -> LongTensor
    ///
    /// Returns the index of the minimum (the first one on ties) of the flattened ``input``, or
    /// along ``dim``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.argmin(ferric.tensor([[1., 5.], [3., 2.]]), dim=1)
    ///     tensor([0, 1])
    fn argmin(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<Py<PyTensor>> {
        wrap(py, r::argmax(&self.t, dim, keepdim, false)?)
    }

    // named `var_` in Rust: `PyTensor::var` is the autograd accessor
    /// var(input, dim=None, *, correction=1, keepdim=False) -> Tensor
    ///
    /// The variance over ``dim`` (all elements by default), with ``correction`` degrees of freedom
    /// removed. ``unbiased=`` is accepted too.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints, optional): the dimension(s) to reduce.
    ///     correction (int, optional): the difference between the sample size and the degrees of
    ///         freedom; default 1 (Bessel's correction).
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.var(ferric.tensor([1., 2., 3., 4.]))
    ///     tensor(1.6667)
    #[pyo3(name = "var", signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn var_(
        &self,
        py: Python<'_>,
        dim: Arg,
        unbiased: Option<bool>,
        keepdim: bool,
        correction: Arg,
    ) -> PyResult<Py<PyTensor>> {
        let (d, c) = var_args("var", dim, unbiased, correction)?;
        wrap_var(py, av::var(&self.var()?, d.as_deref(), c, keepdim, false)?)
    }

    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    /// std(input, dim=None, *, correction=1, keepdim=False) -> Tensor
    ///
    /// The standard deviation over ``dim`` (all elements by default), with ``correction`` degrees
    /// of freedom removed. ``unbiased=`` is accepted too.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints, optional): the dimension(s) to reduce.
    ///     correction (int, optional): the difference between the sample size and the degrees of
    ///         freedom; default 1 (Bessel's correction).
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.std(ferric.tensor([1., 2., 3., 4.]))
    ///     tensor(1.2910)
    fn std(
        &self,
        py: Python<'_>,
        dim: Arg,
        unbiased: Option<bool>,
        keepdim: bool,
        correction: Arg,
    ) -> PyResult<Py<PyTensor>> {
        let (d, c) = var_args("std", dim, unbiased, correction)?;
        wrap_var(py, av::var(&self.var()?, d.as_deref(), c, keepdim, true)?)
    }

    #[pyo3(signature = (dim, keepdim=false))]
    /// logsumexp(input, dim, keepdim=False) -> Tensor
    ///
    /// ``log(sum(exp(input), dim))``, computed stably.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints): the dimension(s) to reduce.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.logsumexp(ferric.tensor([1., 2., 3.]), 0)
    ///     tensor(3.4076)
    fn logsumexp(
        &self,
        py: Python<'_>,
        dim: &Bound<'_, PyAny>,
        keepdim: bool,
    ) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(Some(dim))?.ok_or_else(|| {
            PyTypeError::new_err("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
        })?;
        wrap_var(py, av::logsumexp(&self.var()?, &d, keepdim)?)
    }

    #[pyo3(signature = (p=None, dim=None, keepdim=false, dtype=None))]
    /// norm(input, p='fro', dim=None, keepdim=False, dtype=None) -> Tensor
    ///
    /// The vector p-norm of ``input`` (flattened, or over ``dim``), or the Frobenius / nuclear
    /// matrix norm for ``p='fro'`` / ``'nuc'``. Prefer :func:`ferric.linalg.vector_norm` and
    /// :func:`ferric.linalg.matrix_norm`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     p (int, float, inf or str): the order; default 2 (Frobenius).
    ///     dim (int or tuple of ints, optional): the dimension(s) to reduce.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///
    /// Example:
    ///     >>> ferric.norm(ferric.tensor([3., 4.]))
    ///     tensor(5.)
    fn norm(
        &self,
        py: Python<'_>,
        p: Arg,
        dim: Arg,
        keepdim: bool,
        dtype: Arg,
    ) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        let (p, dt) = (norm_p(&self.t, p, d.as_deref())?, opt_dtype(dtype)?);
        wrap_var(py, av::norm(&self.var()?, p, d.as_deref(), keepdim, dt)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    /// all(input, dim=None, keepdim=False) -> Tensor
    ///
    /// Tests whether all elements (along ``dim``, or of the whole tensor) are nonzero; returns a
    /// bool tensor (uint8 for uint8 input).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.all(ferric.tensor([[True, False], [True, True]]), dim=1)
    ///     tensor([False,  True])
    fn all(&self, py: Python<'_>, dim: Arg, keepdim: bool) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        wrap(py, r::all(&self.t, d.as_deref(), keepdim, true)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    /// any(input, dim=None, keepdim=False) -> Tensor
    ///
    /// Tests whether any element (along ``dim``, or of the whole tensor) is nonzero.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     keepdim (bool): whether the reduced dimensions are kept with size 1.
    ///
    /// Example:
    ///     >>> ferric.any(ferric.tensor([[True, False], [False, False]]), dim=1)
    ///     tensor([ True, False])
    fn any(&self, py: Python<'_>, dim: Arg, keepdim: bool) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        wrap(py, r::all(&self.t, d.as_deref(), keepdim, false)?)
    }

    #[pyo3(signature = (dim=None))]
    /// count_nonzero(input, dim=None) -> Tensor
    ///
    /// Counts the nonzero elements of ``input`` (along ``dim``, which may be a tuple).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int or tuple of ints, optional): the dimension(s) to count along.
    ///
    /// Example:
    ///     >>> ferric.count_nonzero(ferric.tensor([[0, 1], [2, 3]]), dim=0)
    ///     tensor([1, 2])
    fn count_nonzero(&self, py: Python<'_>, dim: Arg) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        wrap(py, r::count_nonzero(&self.t, d.as_deref())?)
    }

    #[pyo3(signature = (dim, *, dtype=None, out=None))]
    /// cumsum(input, dim, *, dtype=None, out=None) -> Tensor
    ///
    /// The cumulative sum of ``input`` along ``dim``; integer and bool inputs sum in int64.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.cumsum(ferric.tensor([1, 2, 3, 4]), 0)
    ///     tensor([ 1,  3,  6, 10])
    fn cumsum(&self, py: Python<'_>, dim: i64, dtype: Arg, out: Arg) -> PyResult<Py<PyAny>> {
        let (mut dt, mut rule) = (opt_dtype(dtype)?, OutDtype::Same);
        if let Some(o) = out_arg("cumsum", out)? {
            (dt, rule) = reduce_out_dtype("cumsum", true, dt, &o, &self.t)?;
        }
        finish(
            py,
            "cumsum",
            out,
            rule,
            av::cumsum(&self.var()?, dim, dt, false)?,
        )
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    /// cumprod(input, dim, *, dtype=None) -> Tensor
    ///
    /// The cumulative product of ``input`` along ``dim``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///
    /// Example:
    ///     >>> ferric.cumprod(ferric.tensor([1, 2, 3, 4]), 0)
    ///     tensor([ 1,  2,  6, 24])
    fn cumprod(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::cumsum(&self.var()?, dim, opt_dtype(dtype)?, true)?)
    }

    /// cummax(input, dim) -> (Tensor values, LongTensor indices)
    ///
    /// The running maximum of ``input`` along ``dim`` and where each was found.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.cummax(ferric.tensor([1., 3., 2., 5.]), 0)
    ///     ferric.return_types.cummax(
    ///     values=tensor([1., 3., 3., 5.]),
    ///     indices=tensor([0, 1, 1, 3]))
    fn cummax(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyAny>> {
        let (v, i) = av::cummax(&self.var()?, dim, true)?;
        named(py, "cummax", v, Var::plain(i))
    }

    /// cummin(input, dim) -> (Tensor values, LongTensor indices)
    ///
    /// The running minimum of ``input`` along ``dim`` and where each was found.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///
    /// Example:
    ///     >>> ferric.cummin(ferric.tensor([3., 1., 2., 0.]), 0)
    ///     ferric.return_types.cummin(
    ///     values=tensor([3., 1., 1., 0.]),
    ///     indices=tensor([0, 1, 1, 3]))
    fn cummin(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyAny>> {
        let (v, i) = av::cummax(&self.var()?, dim, false)?;
        named(py, "cummin", v, Var::plain(i))
    }

    #[pyo3(signature = (dim, dtype=None))]
    /// softmax(input, dim, dtype=None) -> Tensor
    ///
    /// ``exp(x) / sum(exp(x))`` along ``dim``, computed stably.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     dtype (:class:`ferric.dtype`, optional): cast ``input`` to this dtype first.
    ///
    /// Example:
    ///     >>> ferric.softmax(ferric.tensor([1., 2., 3.]), 0)
    ///     tensor([0.0900, 0.2447, 0.6652])
    fn softmax(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(
            py,
            av::softmax(&self.var()?, dim, opt_dtype(dtype)?, false)?,
        )
    }

    #[pyo3(signature = (dim, dtype=None))]
    /// log_softmax(input, dim, dtype=None) -> Tensor
    ///
    /// ``log(softmax(input, dim))``, computed stably.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     dtype (:class:`ferric.dtype`, optional): cast ``input`` to this dtype first.
    ///
    /// Example:
    ///     >>> ferric.log_softmax(ferric.tensor([1., 2., 3.]), 0)
    ///     tensor([-2.4076, -1.4076, -0.4076])
    fn log_softmax(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::softmax(&self.var()?, dim, opt_dtype(dtype)?, true)?)
    }
}

/// var_mean(input, dim=None, *, correction=1, keepdim=False) -> (Tensor, Tensor)
///
/// Returns the variance and the mean of ``input`` over ``dim`` as a plain tuple
/// ``(var, mean)``, as in PyTorch (the ``unbiased=`` spelling is accepted too).
///
/// Args:
///     input (Tensor): the input tensor.
///     dim (int or tuple of ints, optional): the dimensions to reduce; all when None.
///     correction (int): the difference between the sample size and the divisor (1: Bessel's correction). Default: 1.
///     keepdim (bool): keep the reduced dimensions with size 1. Default: False.
///
/// Example:
///     >>> x = ferric.tensor([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]])
///     >>> ferric.var_mean(x, dim=1)
///     (tensor([1., 4.]), tensor([2., 6.]))
///     >>> ferric.var_mean(x, dim=0, keepdim=True)
///     (tensor([[ 4.5000,  8.0000, 12.5000]]), tensor([[2.5000, 4.0000, 5.5000]]))
#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
fn var_mean(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dim: Arg,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Arg,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let (d, c) = var_args("var_mean", dim, unbiased, correction)?;
    let (v, m) = av::var_mean(&input.var()?, d.as_deref(), c, keepdim, false)?;
    Ok((wrap_var(py, v)?, wrap_var(py, m)?))
}

/// std_mean(input, dim=None, *, correction=1, keepdim=False) -> (Tensor, Tensor)
///
/// Returns the standard deviation and the mean of ``input`` over ``dim`` as a tuple
/// ``(std, mean)``, in one pass.
///
/// Args:
///     input (Tensor): the input tensor.
///     dim (int or tuple of ints, optional): the dimensions to reduce; all when None.
///     correction (int): the difference between the sample size and the divisor (1: Bessel's correction). Default: 1.
///     keepdim (bool): keep the reduced dimensions with size 1. Default: False.
///
/// Example:
///     >>> x = ferric.tensor([[1.0, 2.0, 3.0], [4.0, 6.0, 8.0]])
///     >>> ferric.std_mean(x, dim=1)
///     (tensor([1., 2.]), tensor([2., 6.]))
///     >>> ferric.std_mean(x, correction=0)
///     (tensor(2.3805), tensor(4.))
#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
fn std_mean(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    dim: Arg,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Arg,
) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
    let (d, c) = var_args("std_mean", dim, unbiased, correction)?;
    let (v, m) = av::var_mean(&input.var()?, d.as_deref(), c, keepdim, true)?;
    Ok((wrap_var(py, v)?, wrap_var(py, m)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Load `ferric.return_types` now so `ferric.return_types.max` exists right after
    // `import ferric` (the package is importing us, so its submodules are importable).
    // Outside the package this may fail; `named` imports it lazily then.
    let _ = m.py().import("ferric.return_types");
    m.add_function(wrap_pyfunction!(var_mean, m)?)?;
    m.add_function(wrap_pyfunction!(std_mean, m)?)?;
    crate::python::tensor::alias_methods(
        m,
        &[
            "sum",
            "nansum",
            "mean",
            "nanmean",
            "prod",
            "max",
            "min",
            "amax",
            "amin",
            "aminmax",
            "argmax",
            "argmin",
            "var",
            "std",
            "logsumexp",
            "norm",
            "all",
            "any",
            "count_nonzero",
            "cumsum",
            "cumprod",
            "cummax",
            "cummin",
            "softmax",
            "log_softmax",
        ],
    )
}
