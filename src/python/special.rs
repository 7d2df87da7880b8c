//! Bindings of the special functions that are not plain table methods: the ones with a
//! parameter (`polygamma`, `mvlgamma`, `logit`, with their Tensor methods and in-place
//! forms) and the `special_*` table rows, which `ferric.special` calls by name.

use crate::autograd::pointwise::special as diff;
use crate::autograd::pointwise::{binary as vbinary, unary as vunary};
use crate::error::{Error, Result};
use crate::ops::binary::BinaryOp;
use crate::ops::special as ops;
use crate::ops::unary::UnaryOp;
use crate::python::arith::{inplace_with, need_varg, VArg};
use crate::python::convert::type_name;
use crate::python::out::{finish, OutDtype};
use crate::python::tensor::{wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// Writes an out-of-place result `r` into `t` (the in-place forms), with PyTorch's
/// check that the result dtype can be cast to `t`'s.
fn write_back(name: &str, t: &Tensor, r: Result<Tensor>) -> Result<()> {
    let r = r?;
    if !r.dtype().can_cast_to(t.dtype()) {
        return Err(Error::runtime(
            name,
            format!(
                "result type {} can't be cast to the desired output type {}",
                r.dtype().torch_name(),
                t.dtype().torch_name()
            ),
        ));
    }
    t.copy_from(&r)
}

#[pymethods]
impl PyTensor {
    /// polygamma(n) -> Tensor
    ///
    /// See :func:`ferric.polygamma`: ``x.polygamma(n)`` is ``ferric.polygamma(n, x)``.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0, 0.5]).polygamma(1)
    ///     tensor([1.6449, 4.9348])
    fn polygamma(&self, py: Python<'_>, n: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, diff::polygamma(n, &self.var()?)?)
    }
    /// polygamma_(n) -> Tensor
    ///
    /// Replaces each element ``x`` in place by the ``n``-th derivative of the digamma function at
    /// ``x``. See :func:`ferric.polygamma`.
    ///
    /// Args:
    ///     n (int): the order of the derivative.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0]).polygamma_(1)
    ///     tensor([1.6449])
    fn polygamma_<'py>(slf: PyRef<'py, Self>, n: i64) -> PyResult<PyRef<'py, Self>> {
        inplace_with(
            &slf,
            "polygamma_",
            false,
            |t| write_back("polygamma_", t, ops::polygamma(n, t)),
            |old| diff::polygamma(n, old),
        )?;
        Ok(slf)
    }
    /// mvlgamma(p) -> Tensor
    ///
    /// See :func:`ferric.mvlgamma`.
    ///
    /// Example:
    ///     >>> ferric.tensor([2.5, 3.0]).mvlgamma(2)
    ///     tensor([0.8570, 1.5502])
    fn mvlgamma(&self, py: Python<'_>, p: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, diff::mvlgamma(&self.var()?, p)?)
    }
    /// mvlgamma_(p) -> Tensor
    ///
    /// In-place version of :func:`ferric.mvlgamma`.
    ///
    /// Args:
    ///     p (int): the dimension.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([2.5, 3.0])
    ///     >>> x.mvlgamma_(2)
    ///     tensor([0.8570, 1.5502])
    fn mvlgamma_<'py>(slf: PyRef<'py, Self>, p: i64) -> PyResult<PyRef<'py, Self>> {
        inplace_with(
            &slf,
            "mvlgamma_",
            false,
            |t| write_back("mvlgamma_", t, ops::mvlgamma(t, p)),
            |old| diff::mvlgamma(old, p),
        )?;
        Ok(slf)
    }
    #[pyo3(signature = (eps=None))]
    /// logit(eps=None) -> Tensor
    ///
    /// See :func:`ferric.logit`.
    ///
    /// Example:
    ///     >>> ferric.tensor([0.25, 0.5, 1.0]).logit(eps=1e-6)
    ///     tensor([-1.0986,  0.0000, 13.8023])
    fn logit(&self, py: Python<'_>, eps: Option<f64>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, diff::logit(&self.var()?, eps)?)
    }
    #[pyo3(signature = (eps=None))]
    /// logit_(eps=None) -> Tensor
    ///
    /// In-place version of :func:`ferric.logit`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([0.25, 0.5, 0.75])
    ///     >>> x.logit_()
    ///     tensor([-1.0986,  0.0000,  1.0986])
    fn logit_<'py>(slf: PyRef<'py, Self>, eps: Option<f64>) -> PyResult<PyRef<'py, Self>> {
        logit_inplace(&slf, eps)?;
        Ok(slf)
    }
}

fn logit_inplace(t: &PyTensor, eps: Option<f64>) -> PyResult<()> {
    inplace_with(
        t,
        "logit_",
        false,
        |t| write_back("logit_", t, ops::logit(t, eps)),
        |old| diff::logit(old, eps),
    )
}

/// polygamma(n, input, *, out=None) -> Tensor
///
/// Computes the ``n``-th derivative of the digamma function of ``input``
/// (``polygamma(0, x)`` is ``digamma(x)``).
///
/// Args:
///     n (int): the order of the derivative, non-negative.
///     input (Tensor): the input tensor.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.polygamma(1, ferric.tensor([1.0, 0.5]))
///     tensor([1.6449, 4.9348])
#[pyfunction]
#[pyo3(signature = (n, input, *, out=None))]
fn polygamma(
    py: Python<'_>,
    n: i64,
    input: PyRef<'_, PyTensor>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = diff::polygamma(n, &input.var()?)?;
    finish(py, "polygamma", out, OutDtype::Cast, r)
}

#[pyfunction]
#[pyo3(signature = (input, p, *, out=None))]
/// mvlgamma(input, p, *, out=None) -> Tensor
///
/// The multivariate log-gamma function of dimension ``p``; every element must exceed ``(p - 1) /
/// 2``.
///
/// Args:
///     input (Tensor): the input tensor.
///     p (int): the dimension.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.mvlgamma(ferric.tensor([2.5]), 2)
///     tensor([0.8570])
fn mvlgamma(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    p: i64,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = diff::mvlgamma(&input.var()?, p)?;
    finish(py, "mvlgamma", out, OutDtype::Cast, r)
}

#[pyfunction]
#[pyo3(signature = (input, eps=None, *, out=None))]
/// logit(input, eps=None, *, out=None) -> Tensor
///
/// The log-odds ``log(p / (1 - p))`` of each element.
///
/// Args:
///     input (Tensor): the input tensor.
///     eps (float, optional): clamp the input to ``[eps, 1 - eps]`` first; default no clamping.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.logit(ferric.tensor([0.25, 0.5]))
///     tensor([-1.0986,  0.0000])
fn logit(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    eps: Option<f64>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = diff::logit(&input.var()?, eps)?;
    finish(py, "logit", out, OutDtype::Cast, r)
}

/// logit_(input, eps=None) -> Tensor
///
/// `ferric.logit_(input, eps=None)`.
#[pyfunction]
#[pyo3(signature = (input, eps=None))]
/// logit_(input, eps=None) -> Tensor
///
/// In-place version of :func:`ferric.logit`.
///
/// Args:
///     input (Tensor): the input tensor.
///     eps (float, optional): clamp the input to ``[eps, 1 - eps]`` first; default no clamping.
///
/// Example:
///     >>> ferric.logit_(ferric.tensor([0.5]))
///     tensor([0.])
fn logit_<'py>(input: PyRef<'py, PyTensor>, eps: Option<f64>) -> PyResult<PyRef<'py, PyTensor>> {
    logit_inplace(&input, eps)?;
    Ok(input)
}

/// `op(input)` for a unary table row named `name` (`special_entr`, ...).
#[pyfunction]
fn _special_unary(
    py: Python<'_>,
    name: &str,
    input: PyRef<'_, PyTensor>,
) -> PyResult<Py<PyTensor>> {
    let op = UnaryOp::MATH
        .iter()
        .copied()
        .find(|op| op.name() == name)
        .ok_or_else(|| PyValueError::new_err(format!("no unary op named '{name}'")))?;
    wrap_var(py, vunary(op, &input.var()?)?)
}

/// `op(input, other)` for the binary rows `xlogy`, `special_xlog1py`, `special_zeta` and
/// the orthogonal polynomials:
/// either operand may be a Python number, not both (PyTorch's overloads).
#[pyfunction]
fn _special_binary(
    py: Python<'_>,
    name: &str,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyTensor>> {
    let op = match name {
        "xlogy" => BinaryOp::Xlogy,
        "special_xlog1py" => BinaryOp::SpecialXlog1py,
        "special_zeta" => BinaryOp::SpecialZeta,
        _ => BinaryOp::POLYNOMIALS
            .iter()
            .copied()
            .find(|op| op.name() == name)
            .ok_or_else(|| PyValueError::new_err(format!("no binary op named '{name}'")))?,
    };
    let (a, b) = (need_varg(name, input)?, need_varg(name, other)?);
    if let (VArg::S(_), VArg::S(_)) = (&a, &b) {
        // PyTorch's parameter names: (x, n) for the polynomials
        let (x, n, s) = if BinaryOp::POLYNOMIALS.contains(&op) {
            ("x", "n", "x")
        } else {
            ("input", "other", "self")
        };
        return Err(PyTypeError::new_err(format!(
            "{name}() received an invalid combination of arguments - got ({}, {}), but \
             expected one of:\n * (Tensor {x}, Tensor {n}, *, Tensor out = None)\n * \
             (Number {s}, Tensor {n}, *, Tensor out = None)\n * (Tensor {x}, Number \
             {n}, *, Tensor out = None)\n",
            type_name(input),
            type_name(other)
        )));
    }
    wrap_var(py, vbinary(op, a.arg(), b.arg())?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            polygamma,
            mvlgamma,
            logit,
            logit_,
            _special_unary,
            _special_binary
        ]
    )
}
