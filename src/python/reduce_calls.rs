//! What each row of the reduction table (`ops::reduce_table`) runs: the table's `call`
//! field names one of these functions, which `python::reduce` calls from the generated
//! binding with the row's `ReduceOp` and the arguments its `sig` parses (`RArgs`). Each
//! converts the arguments, calls the differentiable op in `autograd::reduce` (or
//! `ops::reduce` for integer/bool-valued ops) and handles `out=`.

use crate::autograd::pointwise::{binary, Arg as VA};
use crate::autograd::reduce as av;
use crate::autograd::Var;
use crate::dtype::DType;
use crate::ops::binary::BinaryOp;
use crate::ops::reduce::{self as r, NormP, ReduceOp};
use crate::python::convert::{dims_arg, index_int, is_ndarray, opt_dtype, scalar_arg, type_name};
use crate::python::out::{finish, finish_pair, out_arg, out_dtype, OutDtype};
use crate::python::tensor::{as_tensor_ref, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyModule, PyString, PyTuple};

pub type Arg<'a, 'py> = Option<&'a Bound<'py, PyAny>>;

/// The named-tuple class `name` of `ferric.return_types` (`max`, `min`, `aminmax`, ...).
fn return_type<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let m = MODULE.get_or_try_init(py, || py.import("ferric.return_types").map(Bound::unbind))?;
    m.bind(py).getattr(name)
}

/// A named tuple from `ferric.return_types` (`max`, `min`, `aminmax`, `cummax`, ...).
pub(crate) fn named(py: Python<'_>, name: &str, a: Var, b: Var) -> PyResult<Py<PyAny>> {
    let cls = return_type(py, name)?;
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
        Some((x, y)) => Ok(return_type(py, name)?.call1(((x, y),))?.unbind()),
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

/// The arguments a table binding parsed; the fields its `sig` does not have stay None.
#[derive(Default)]
pub(crate) struct RArgs<'a, 'py> {
    pub dim: Arg<'a, 'py>,
    /// `dim` of the sigs that take it as a plain int (`Arg`, `Scan`, `ScanPair`, `Aminmax`).
    pub idim: Option<i64>,
    pub keepdim: Option<bool>,
    pub dtype: Arg<'a, 'py>,
    pub axis: Arg<'a, 'py>,
    pub out: Arg<'a, 'py>,
    pub unbiased: Option<bool>,
    pub correction: Arg<'a, 'py>,
    pub p: Arg<'a, 'py>,
    pub other: Arg<'a, 'py>,
}

type Ret = PyResult<Py<PyAny>>;

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

/// sum, nansum, mean, nanmean.
pub(crate) fn sum_like(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let name = op.name();
    let f = match op {
        ReduceOp::Nansum => av::nansum,
        ReduceOp::Mean => av::mean,
        ReduceOp::Nanmean => av::nanmean,
        _ => av::sum,
    };
    let dim = dim_or_axis(name, a.dim, a.axis)?;
    let (d, dt) = (dims_arg(dim)?, opt_dtype(a.dtype)?);
    let keepdim = a.keepdim.unwrap_or(false);
    let Some(o) = out_arg(name, a.out)? else {
        return Ok(wrap_var(py, f(&t.var()?, d.as_deref(), keepdim, dt)?)?.into_any());
    };
    let (dt, rule) = reduce_out_dtype(name, d.is_some(), dt, &o, &t.t)?;
    let r = f(&t.var()?, d.as_deref(), keepdim, dt)?;
    finish(py, name, a.out, rule, r)
}

pub(crate) fn prod(py: Python<'_>, t: &PyTensor, _op: ReduceOp, a: RArgs) -> Ret {
    let keepdim = keepdim_needs_dim("prod", a.dim, a.keepdim)?;
    let d = a
        .dim
        .filter(|d| !d.is_none())
        .map(|d| index_int(d, "dim"))
        .transpose()?;
    let (mut dt, mut rule) = (opt_dtype(a.dtype)?, OutDtype::Same);
    if let Some(o) = out_arg("prod", a.out)? {
        (dt, rule) = reduce_out_dtype("prod", d.is_some(), dt, &o, &t.t)?;
    }
    // autocast's fp32 list
    let x = crate::python::autocast::fp32(t.var()?)?;
    finish(py, "prod", a.out, rule, av::prod(&x, d, keepdim, dt)?)
}

/// `max`/`min` with PyTorch's overloads: no dim -> 0-d tensor, an int dim -> (values,
/// indices), a tensor -> elementwise maximum/minimum.
pub(crate) fn max_min(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let (name, max) = (op.name(), op == ReduceOp::Max);
    let (dim, out) = (a.dim, a.out);
    let is_tensor = |o: &Bound<'_, PyAny>| as_tensor_ref(o).is_some() || is_ndarray(o);
    let other = match (dim, a.other) {
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
    let x = t.var()?;
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
        let bop = if max {
            BinaryOp::Maximum
        } else {
            BinaryOp::Minimum
        };
        let r = binary(bop, VA::V(&x), VA::V(&b))?;
        return finish(py, name, out, OutDtype::Cast, r);
    }
    let keepdim = keepdim_needs_dim(name, dim, a.keepdim)?;
    match dim.filter(|d| !d.is_none()) {
        None => finish(py, name, out, OutDtype::Same, av::max_all(&x, max)?),
        Some(d) => {
            let (v, i) = av::max_dim(&x, index_int(d, "dim")?, keepdim, max)?;
            named_out(py, name, out, v, Var::plain(i))
        }
    }
}

/// amax, amin: out must have input's dtype.
pub(crate) fn amax(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let name = op.name();
    let d = dims_arg(dim_or_axis(name, a.dim, a.axis)?)?.unwrap_or_default();
    if let Some(od) = out_dtype(name, a.out)? {
        if od != t.t.dtype() {
            return Err(PyRuntimeError::new_err(format!(
                "Expected the dtype for input and out to match, but got {} for input's dtype \
                 and {} for out's dtype.",
                t.t.dtype().torch_name(),
                od.torch_name()
            )));
        }
    }
    let r = av::amax(
        &t.var()?,
        &d,
        a.keepdim.unwrap_or(false),
        op == ReduceOp::Amax,
    )?;
    finish(py, name, a.out, OutDtype::Same, r)
}

pub(crate) fn aminmax(py: Python<'_>, t: &PyTensor, _op: ReduceOp, a: RArgs) -> Ret {
    let (lo, hi) = av::aminmax(&t.var()?, a.idim, a.keepdim.unwrap_or(false))?;
    named_out(py, "aminmax", a.out, lo, hi)
}

/// argmax, argmin: out must be int64.
pub(crate) fn argmax(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let keepdim = a.keepdim.unwrap_or(false);
    let r = r::argmax(&t.t, a.idim, keepdim, op == ReduceOp::Argmax)?;
    finish(py, op.name(), a.out, OutDtype::Same, Var::plain(r))
}

/// all, any: out must be bool (uint8 for uint8 input, whose result is uint8).
pub(crate) fn all_any(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let name = op.name();
    let d = dims_arg(a.dim)?;
    let r = r::all(
        &t.t,
        d.as_deref(),
        a.keepdim.unwrap_or(false),
        op == ReduceOp::All,
    )?;
    if let Some(od) = out_dtype(name, a.out)? {
        if od != r.dtype() {
            return Err(PyRuntimeError::new_err(format!(
                "{name} only supports bool tensor for result, got: {}",
                od.torch_name()
            )));
        }
    }
    finish(py, name, a.out, OutDtype::Same, Var::plain(r))
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

/// var, std.
pub(crate) fn var_std(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let name = op.name();
    let (d, c) = var_args(name, a.dim, a.unbiased, a.correction)?;
    let keepdim = a.keepdim.unwrap_or(false);
    let r = av::var(&t.var()?, d.as_deref(), c, keepdim, op == ReduceOp::Std)?;
    finish(py, name, a.out, OutDtype::Cast, r)
}

/// var_mean, std_mean: a plain tuple, as in PyTorch.
pub(crate) fn var_mean(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let (d, c) = var_args(op.name(), a.dim, a.unbiased, a.correction)?;
    let keepdim = a.keepdim.unwrap_or(false);
    let (v, m) = av::var_mean(&t.var()?, d.as_deref(), c, keepdim, op == ReduceOp::StdMean)?;
    let pair = (wrap_var(py, v)?, wrap_var(py, m)?);
    Ok(PyTuple::new(py, [pair.0.into_any(), pair.1.into_any()])?
        .into_any()
        .unbind())
}

pub(crate) fn logsumexp(py: Python<'_>, t: &PyTensor, _op: ReduceOp, a: RArgs) -> Ret {
    let d = dims_arg(a.dim)?.ok_or_else(|| {
        PyTypeError::new_err("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    })?;
    let r = av::logsumexp(&t.var()?, &d, a.keepdim.unwrap_or(false))?;
    finish(py, "logsumexp", a.out, OutDtype::Cast, r)
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

/// norm: out must have the result's dtype.
pub(crate) fn norm(py: Python<'_>, t: &PyTensor, _op: ReduceOp, a: RArgs) -> Ret {
    let d = dims_arg(a.dim)?;
    let (p, dt) = (norm_p(&t.t, a.p, d.as_deref())?, opt_dtype(a.dtype)?);
    let r = av::norm(&t.var()?, p, d.as_deref(), a.keepdim.unwrap_or(false), dt)?;
    finish(py, "norm", a.out, OutDtype::Same, r)
}

pub(crate) fn count_nonzero(py: Python<'_>, t: &PyTensor, _op: ReduceOp, a: RArgs) -> Ret {
    let d = dims_arg(a.dim)?;
    Ok(wrap_var(py, Var::plain(r::count_nonzero(&t.t, d.as_deref())?))?.into_any())
}

/// cumsum, cumprod: with out, computed in out's dtype unless `dtype=` is given.
pub(crate) fn cumsum(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let name = op.name();
    let (mut dt, mut rule) = (opt_dtype(a.dtype)?, OutDtype::Same);
    if let Some(o) = out_arg(name, a.out)? {
        (dt, rule) = reduce_out_dtype(name, true, dt, &o, &t.t)?;
    }
    let dim = a.idim.unwrap_or(0);
    let r = av::cumsum(&t.var()?, dim, dt, op == ReduceOp::Cumprod)?;
    finish(py, name, a.out, rule, r)
}

/// cummax, cummin: out=(values, indices), values in input's dtype.
pub(crate) fn cummax(py: Python<'_>, t: &PyTensor, op: ReduceOp, a: RArgs) -> Ret {
    let name = op.name();
    pair_dtype_matches(a.out, t.t.dtype())?;
    let (v, i) = av::cummax(&t.var()?, a.idim.unwrap_or(0), op == ReduceOp::Cummax)?;
    named_out(py, name, a.out, v, Var::plain(i))
}

/// PyTorch's check of the values tensor of `out=(values, indices)` for the scans.
fn pair_dtype_matches(out: Arg, want: DType) -> PyResult<()> {
    let Some(first) = out
        .filter(|o| !o.is_none())
        .and_then(|o| o.get_item(0).ok())
    else {
        return Ok(());
    };
    if let Some(v) = as_tensor_ref(&first) {
        if v.dtype() != want {
            return Err(PyRuntimeError::new_err(format!(
                "expected scalar_type {} but found {}",
                want.torch_name(),
                v.dtype().torch_name()
            )));
        }
    }
    Ok(())
}
