//! The evenly spaced factories: `arange`, `linspace` and `logspace`.

use crate::dtype::{DType, Scalar};
use crate::error::Error;
use crate::storage::try_vec_from_fn;
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::*;

fn number(op: &str, o: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    fill_scalar(o, None)
        .map_err(|_| PyTypeError::new_err(format!("{op}(): arguments must be numbers")))
}

/// arange(start=0, end, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a 1-D tensor of the values from ``start`` (inclusive) to ``end`` (exclusive) in
/// steps of ``step``: ``arange(end)`` or ``arange(start, end, step=1)``. The result is int64
/// when every argument is an int, else the default floating dtype.
///
/// Args:
///     start (Number): the first value (the end, when it is the only argument). Default: 0.
///     end (Number): the bound, not included.
///     step (Number): the gap between neighbouring values. Default: 1.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result. Default: False.
///
/// Example:
///     >>> ferric.arange(5)
///     tensor([0, 1, 2, 3, 4])
///     >>> ferric.arange(1, 4)
///     tensor([1, 2, 3])
///     >>> ferric.arange(1, 2.5, 0.5)
///     tensor([1.0000, 1.5000, 2.0000])
#[pyfunction]
#[pyo3(signature = (start, end=None, step=None, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn arange(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("arange", dtype, out)?;
    let (s, e) = match end {
        Some(e) if !e.is_none() => (number("arange", start)?, number("arange", e)?),
        _ => (Scalar::Int(0), number("arange", start)?),
    };
    let st = match step {
        Some(x) if !x.is_none() => number("arange", x)?,
        _ => Scalar::Int(1),
    };
    let all_int = [s, e, st].iter().all(|v| !matches!(v, Scalar::Float(_)));
    let d = tg.dtype.unwrap_or(if all_int {
        DType::I64
    } else {
        crate::dtype::default_float()
    });
    let t = if all_int && d == DType::I64 {
        let (a, b, c) = (s.to_i64(), e.to_i64(), st.to_i64());
        if c == 0 {
            return Err(Error::runtime("arange", "step must be nonzero").into());
        }
        if (c > 0 && b < a) || (c < 0 && b > a) {
            return Err(Error::runtime(
                "arange",
                "upper bound and larger bound inconsistent with step sign",
            )
            .into());
        }
        let n =
            ((b as i128 - a as i128 + c as i128 - c.signum() as i128) / c as i128).max(0) as usize;
        crate::shape::checked_numel("arange", &[n])?;
        // a + i * c stays within [a, b] (n was derived from them), so it cannot overflow
        let v = try_vec_from_fn("arange", n, |i| a + i as i64 * c)?;
        Tensor::from_vec(v, &[n])?
    } else {
        let (a, b, c) = (s.to_f64(), e.to_f64(), st.to_f64());
        if c == 0.0 || c.is_nan() {
            return Err(Error::runtime("arange", "step must be nonzero").into());
        }
        if !(a.is_finite() && b.is_finite()) {
            return Err(Error::runtime("arange", format!("unsupported range: {a} -> {b}")).into());
        }
        if (c > 0.0 && b < a) || (c < 0.0 && b > a) {
            return Err(Error::runtime(
                "arange",
                "upper bound and larger bound inconsistent with step sign",
            )
            .into());
        }
        let n = ((b - a) / c).ceil().max(0.0);
        if n > (isize::MAX as f64) / 8.0 {
            return Err(Error::runtime(
                "arange",
                format!("invalid size, possible overflow? ({n} elements)"),
            )
            .into());
        }
        let n = n as usize;
        let v = try_vec_from_fn("arange", n, |i| a + i as f64 * c)?;
        Tensor::from_vec(v, &[n])?.to_dtype(d)?
    };
    tg.finish(py, t.to_dtype(d)?, requires_grad, device)
}

/// `steps` evenly spaced values from `a` to `b`, each mapped through `f`; allocated
/// fallibly (the count is the user's).
fn linspace_values<T: crate::dtype::Element>(
    op: &str,
    a: f64,
    b: f64,
    steps: usize,
    f: impl Fn(f64) -> T,
) -> PyResult<Vec<T>> {
    crate::shape::checked_numel(op, &[steps])?;
    if steps == 1 {
        return Ok(vec![f(a)]);
    }
    let step = (b - a) / (steps - 1) as f64;
    let half = steps / 2;
    // like PyTorch: the first half counts up from start, the second half down from end,
    // so both endpoints are exact
    Ok(try_vec_from_fn(op, steps, |i| {
        f(if i < half {
            a + step * i as f64
        } else {
            b - step * (steps - 1 - i) as f64
        })
    })?)
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
/// linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns ``steps`` evenly spaced values from ``start`` to ``end`` inclusive.
///
/// Args:
///     start (Number): the first value.
///     end (Number): the last value.
///     steps (int): the number of values.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.linspace(0, 1, 5)
///     tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
pub(super) fn linspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("linspace", dtype, out)?;
    if steps < 0 {
        return Err(Error::runtime("linspace", "number of steps must be non-negative").into());
    }
    let (a, b) = (
        number("linspace", start)?.to_f64(),
        number("linspace", end)?.to_f64(),
    );
    let d = tg.dtype.unwrap_or_else(crate::dtype::default_float);
    let n = steps as usize;
    let t = if d == DType::I64 {
        Tensor::from_vec(
            linspace_values("linspace", a, b, n, |x| x.trunc() as i64)?,
            &[n],
        )?
    } else {
        Tensor::from_vec(linspace_values("linspace", a, b, n, |x| x)?, &[n])?.to_dtype(d)?
    };
    tg.finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=false, layout=None, out=None))]
#[allow(clippy::too_many_arguments)]
/// logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor
///
/// Returns ``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``.
///
/// Args:
///     start (Number): the first exponent.
///     end (Number): the last exponent.
///     steps (int): the number of values.
///     base (float): the base.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///
/// Example:
///     >>> ferric.logspace(0, 2, 3)
///     tensor([  1.,  10., 100.])
pub(super) fn logspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    steps: i64,
    base: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    layout: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let _ = layout;
    let tg = target("logspace", dtype, out)?;
    if steps < 0 {
        return Err(Error::runtime("logspace", "number of steps must be non-negative").into());
    }
    let (a, b) = (
        number("logspace", start)?.to_f64(),
        number("logspace", end)?.to_f64(),
    );
    let d = tg.dtype.unwrap_or_else(crate::dtype::default_float);
    let v = linspace_values("logspace", a, b, steps as usize, |e| base.powf(e))?;
    tg.finish(
        py,
        Tensor::from_vec(v, &[steps as usize])?.to_dtype(d)?,
        requires_grad,
        device,
    )
}
