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

/// `max`/`min` with PyTorch's overloads: no dim -> 0-d tensor, an int dim -> (values,
/// indices), a tensor -> elementwise maximum/minimum.
fn minmax(
    py: Python<'_>,
    t: &Var,
    dim: Arg,
    keepdim: Option<bool>,
    other: Arg,
    max: bool,
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
        return Ok(wrap_var(py, binary(op, VA::V(t), VA::V(&b))?)?.into_any());
    }
    let keepdim = keepdim_needs_dim(name, dim, keepdim)?;
    match dim.filter(|d| !d.is_none()) {
        None => Ok(wrap_var(py, av::max_all(t, max)?)?.into_any()),
        Some(d) => {
            let (v, i) = av::max_dim(t, index_int(d, "dim")?, keepdim, max)?;
            named(py, name, v, Var::plain(i))
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

/// Sums-like methods that share `(dim=None, keepdim=False, *, dtype=None)`.
macro_rules! sum_methods {
    ($($name:ident => $f:path;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None, axis=None))]
                fn $name(&self, py: Python<'_>, dim: Arg, keepdim: bool, dtype: Arg, axis: Arg)
                    -> PyResult<Py<PyTensor>> {
                    let dim = dim_or_axis(stringify!($name), dim, axis)?;
                    let (d, dt) = (dims_arg(dim)?, opt_dtype(dtype)?);
                    wrap_var(py, $f(&self.var()?, d.as_deref(), keepdim, dt)?)
                }
            )*
        }
    };
}

sum_methods! {
    sum => av::sum;
    nansum => av::nansum;
    mean => av::mean;
    nanmean => av::nanmean;
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim=None, keepdim=None, *, dtype=None))]
    fn prod(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        dtype: Arg,
    ) -> PyResult<Py<PyTensor>> {
        let keepdim = keepdim_needs_dim("prod", dim, keepdim)?;
        let d = dim
            .filter(|d| !d.is_none())
            .map(|d| index_int(d, "dim"))
            .transpose()?;
        wrap_var(py, av::prod(&self.var()?, d, keepdim, opt_dtype(dtype)?)?)
    }

    #[pyo3(signature = (dim=None, keepdim=None, *, other=None))]
    fn max(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        other: Arg,
    ) -> PyResult<Py<PyAny>> {
        minmax(py, &self.var()?, dim, keepdim, other, true)
    }

    #[pyo3(signature = (dim=None, keepdim=None, *, other=None))]
    fn min(
        &self,
        py: Python<'_>,
        dim: Arg,
        keepdim: Option<bool>,
        other: Arg,
    ) -> PyResult<Py<PyAny>> {
        minmax(py, &self.var()?, dim, keepdim, other, false)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, axis=None))]
    fn amax(&self, py: Python<'_>, dim: Arg, keepdim: bool, axis: Arg) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim_or_axis("amax", dim, axis)?)?.unwrap_or_default();
        wrap_var(py, av::amax(&self.var()?, &d, keepdim, true)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false, *, axis=None))]
    fn amin(&self, py: Python<'_>, dim: Arg, keepdim: bool, axis: Arg) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim_or_axis("amin", dim, axis)?)?.unwrap_or_default();
        wrap_var(py, av::amax(&self.var()?, &d, keepdim, false)?)
    }

    #[pyo3(signature = (*, dim=None, keepdim=false))]
    fn aminmax(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<Py<PyAny>> {
        let (lo, hi) = av::aminmax(&self.var()?, dim, keepdim)?;
        named(py, "aminmax", lo, hi)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmax(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<Py<PyTensor>> {
        wrap(py, r::argmax(&self.t, dim, keepdim, true)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn argmin(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool) -> PyResult<Py<PyTensor>> {
        wrap(py, r::argmax(&self.t, dim, keepdim, false)?)
    }

    // named `var_` in Rust: `PyTensor::var` is the autograd accessor
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
    fn all(&self, py: Python<'_>, dim: Arg, keepdim: bool) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        wrap(py, r::all(&self.t, d.as_deref(), keepdim, true)?)
    }

    #[pyo3(signature = (dim=None, keepdim=false))]
    fn any(&self, py: Python<'_>, dim: Arg, keepdim: bool) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        wrap(py, r::all(&self.t, d.as_deref(), keepdim, false)?)
    }

    #[pyo3(signature = (dim=None))]
    fn count_nonzero(&self, py: Python<'_>, dim: Arg) -> PyResult<Py<PyTensor>> {
        let d = dims_arg(dim)?;
        wrap(py, r::count_nonzero(&self.t, d.as_deref())?)
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::cumsum(&self.var()?, dim, opt_dtype(dtype)?, false)?)
    }

    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::cumsum(&self.var()?, dim, opt_dtype(dtype)?, true)?)
    }

    fn cummax(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyAny>> {
        let (v, i) = av::cummax(&self.var()?, dim, true)?;
        named(py, "cummax", v, Var::plain(i))
    }

    fn cummin(&self, py: Python<'_>, dim: i64) -> PyResult<Py<PyAny>> {
        let (v, i) = av::cummax(&self.var()?, dim, false)?;
        named(py, "cummin", v, Var::plain(i))
    }

    #[pyo3(signature = (dim, dtype=None))]
    fn softmax(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(
            py,
            av::softmax(&self.var()?, dim, opt_dtype(dtype)?, false)?,
        )
    }

    #[pyo3(signature = (dim, dtype=None))]
    fn log_softmax(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::softmax(&self.var()?, dim, opt_dtype(dtype)?, true)?)
    }
}

/// `ferric.var_mean(input, dim=None, *, correction=1, keepdim=False)` (and the
/// `unbiased` spelling): a plain (var, mean) tuple, as in PyTorch.
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

/// `ferric.std_mean(...)`: (std, mean).
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
