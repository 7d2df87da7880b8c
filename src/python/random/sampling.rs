//! Sampling from a tensor's values: the in-place samplers on `Tensor` (`uniform_`,
//! `normal_`, `bernoulli_`, `random_`, ...), `bernoulli` and `multinomial`.

use crate::autograd::matmul::sampled;
use crate::ops::random as rnd;
use crate::python::tensor::{wrap, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::factories::sample_inplace;
use super::*;

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (r#from=0.0, to=1.0, *, generator=None))]
    /// uniform_(from=0, to=1, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with samples from the uniform distribution on ``[from, to)``.
    ///
    /// Args:
    ///     from (float): the lower bound.
    ///     to (float): the upper bound.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw
    ///         from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> bool((ferric.empty(5).uniform_(2, 3) >= 2).all())
    ///     True
    fn uniform_<'py>(
        slf: PyRef<'py, Self>,
        r#from: f64,
        to: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("uniform_", generator)?;
        sample_inplace(&slf, "uniform_", "UniformBackward0", &[], |t| {
            rnd::uniform_(t, r#from, to, &g)
        })?;
        Ok(slf)
    }

    #[pyo3(signature = (mean=0.0, std=1.0, *, generator=None))]
    /// normal_(mean=0, std=1, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with samples from the normal distribution.
    ///
    /// Args:
    ///     mean (float): the mean of the distribution.
    ///     std (float): the standard deviation of the distribution.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw
    ///         from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.empty(1000).normal_(5.0, 0.1).mean().round()
    ///     tensor(5.)
    fn normal_<'py>(
        slf: PyRef<'py, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("normal_", generator)?;
        sample_inplace(&slf, "normal_", "NormalBackward0", &[], |t| {
            rnd::normal_(t, mean, std, &g)
        })?;
        Ok(slf)
    }

    #[pyo3(signature = (lambd=1.0, *, generator=None))]
    /// exponential_(lambd=1, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with samples from the exponential distribution of rate ``lambd``.
    ///
    /// Args:
    ///     lambd (float): the rate.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw
    ///         from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> bool((ferric.empty(3).exponential_() >= 0).all())
    ///     True
    fn exponential_<'py>(
        slf: PyRef<'py, Self>,
        lambd: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("exponential_", generator)?;
        sample_inplace(&slf, "exponential_", "ExponentialBackward0", &[], |t| {
            rnd::exponential_(t, lambd, &g)
        })?;
        Ok(slf)
    }

    #[pyo3(signature = (median=0.0, sigma=1.0, *, generator=None))]
    /// cauchy_(median=0, sigma=1, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with samples from the Cauchy distribution.
    ///
    /// Args:
    ///     median (float): the location.
    ///     sigma (float): the scale.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw
    ///         from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.empty(2).cauchy_().shape
    ///     ferric.Size([2])
    fn cauchy_<'py>(
        slf: PyRef<'py, Self>,
        median: f64,
        sigma: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("cauchy_", generator)?;
        sample_inplace(&slf, "cauchy_", "CauchyBackward0", &[], |t| {
            rnd::cauchy_(t, median, sigma, &g)
        })?;
        Ok(slf)
    }

    #[pyo3(signature = (mean=1.0, std=2.0, *, generator=None))]
    /// log_normal_(mean=1, std=2, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with samples whose logarithm is normal with the given ``mean`` and
    /// ``std``.
    ///
    /// Args:
    ///     mean (float): the mean of the underlying normal distribution.
    ///     std (float): the standard deviation of the underlying normal distribution.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw
    ///         from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> bool((ferric.empty(3).log_normal_() > 0).all())
    ///     True
    fn log_normal_<'py>(
        slf: PyRef<'py, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("log_normal_", generator)?;
        sample_inplace(&slf, "log_normal_", "LogNormalBackward0", &[], |t| {
            rnd::log_normal_(t, mean, std, &g)
        })?;
        Ok(slf)
    }

    #[pyo3(signature = (p, *, generator=None))]
    /// geometric_(p, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with samples from the geometric distribution: the number of
    /// Bernoulli(``p``) trials up to the first success.
    ///
    /// Args:
    ///     p (float): the success probability.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw
    ///         from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> bool((ferric.empty(3).geometric_(0.5) >= 1).all())
    ///     True
    fn geometric_<'py>(
        slf: PyRef<'py, Self>,
        p: f64,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("geometric_", generator)?;
        sample_inplace(&slf, "geometric_", "GeometricBackward0", &[], |t| {
            rnd::geometric_(t, p, &g)
        })?;
        Ok(slf)
    }

    /// bernoulli_(p=0.5, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with 0/1 samples drawn with probability ``p``.
    ///
    /// Args:
    ///     p (float or Tensor): the probability (a tensor gives one per element). Default: 0.5.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.empty(4).bernoulli_(1.0)
    ///     tensor([1., 1., 1., 1.])
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli_<'py>(
        slf: PyRef<'py, Self>,
        p: Option<&Bound<'_, PyAny>>,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("bernoulli_", generator)?;
        let pv = match p {
            Some(p) => match p.cast::<PyTensor>() {
                Ok(pt) => Some(pt.borrow().var()?),
                Err(_) => None,
            },
            None => None,
        };
        match (p, pv) {
            (_, Some(pv)) => {
                sample_inplace(&slf, "bernoulli_", "BernoulliBackward1", &[&pv], |t| {
                    rnd::bernoulli_tensor_(t, &pv.t, &g)
                })?
            }
            (p, None) => {
                let prob = match p {
                    Some(p) => number("bernoulli_", "p", p)?,
                    None => 0.5,
                };
                sample_inplace(&slf, "bernoulli_", "BernoulliBackward2", &[], |t| {
                    rnd::bernoulli_scalar_(t, prob, &g)
                })?
            }
        }
        Ok(slf)
    }

    /// bernoulli(p=None, *, generator=None) -> Tensor
    ///
    /// See :func:`ferric.bernoulli`: ``bernoulli()`` draws with the tensor's values as the
    /// probabilities, ``bernoulli(p)`` with the float ``p`` for every element.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.tensor([0.0, 1.0, 1.0]).bernoulli()
    ///     tensor([0., 1., 1.])
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli(
        &self,
        py: Python<'_>,
        p: Option<&Bound<'_, PyAny>>,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let g = gen_arg("bernoulli", generator)?;
        match p {
            Some(p) if !p.is_none() => {
                let out = Tensor::zeros("bernoulli", self.t.shape(), self.t.dtype())?;
                rnd::bernoulli_scalar_(&out, number("bernoulli", "p", p)?, &g)?;
                wrap(py, out)
            }
            _ => {
                // samples do not depend on p smoothly: a zero-gradient node, as in PyTorch
                let me = self.var()?;
                let t = rnd::bernoulli(&self.t, &g)?;
                wrap_var(py, sampled("BernoulliBackward0", t, &[&me]))
            }
        }
    }

    /// random_(from=0, to=None, *, generator=None) -> Tensor
    ///
    /// Fills the tensor in place with integers drawn uniformly from ``[from, to)``:
    /// ``random_()``, ``random_(to)`` or ``random_(from, to)``; ``to=None`` draws up to the
    /// largest value the dtype holds exactly.
    ///
    /// Args:
    ///     from (int): the lowest value. Default: 0.
    ///     to (int, optional): one above the highest value.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> x = ferric.empty(6).random_(2, 5)
    ///     >>> bool(((x >= 2) & (x < 5)).all())
    ///     True
    #[pyo3(signature = (*args, generator=None, **kwargs))]
    fn random_<'py>(
        slf: PyRef<'py, Self>,
        args: &Bound<'_, PyTuple>,
        generator: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let g = gen_arg("random_", generator)?;
        let kw = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            match kwargs {
                Some(d) => d.get_item(k),
                None => Ok(None),
            }
        };
        let (kfrom, kto) = (kw("from")?, kw("to")?);
        let opt_int = |o: &Bound<'_, PyAny>| -> PyResult<Option<i64>> {
            if o.is_none() {
                Ok(None)
            } else {
                int_arg("random_", "to", o).map(Some)
            }
        };
        let items: Vec<Bound<'_, PyAny>> = args.iter().collect();
        let explicit_from =
            items.len() == 2 || kfrom.is_some() || (items.len() == 1 && kto.is_some());
        let (from, to): (Option<i64>, Option<Option<i64>>) = match (items.as_slice(), kfrom, kto) {
            ([], None, None) => (None, None),
            ([], f, t) => (
                f.map(|f| int_arg("random_", "from", &f)).transpose()?,
                t.map(|t| opt_int(&t)).transpose()?,
            ),
            ([t], None, None) => (Some(0), Some(opt_int(t)?)),
            ([f], None, Some(t)) => (Some(int_arg("random_", "from", f)?), Some(opt_int(&t)?)),
            ([f, t], None, None) => (Some(int_arg("random_", "from", f)?), Some(opt_int(t)?)),
            _ => {
                return Err(PyTypeError::new_err(
                    "random_() received an invalid combination of arguments",
                ))
            }
        };
        // PyTorch's overloads: random_(), random_(to), random_(from, to)
        let node = match (explicit_from, to.is_some()) {
            (true, _) => "RandomBackward0",
            (false, true) => "RandomBackward1",
            (false, false) => "RandomBackward2",
        };
        sample_inplace(&slf, "random_", node, &[], |t| match (from, to) {
            (None, None) => rnd::random_(t, &g),
            (f, to) => rnd::random_from_to_(t, f.unwrap_or(0), to.flatten(), &g),
        })?;
        Ok(slf)
    }

    #[pyo3(signature = (num_samples, replacement=false, *, generator=None))]
    /// multinomial(num_samples, replacement=False, *, generator=None) -> LongTensor
    ///
    /// See :func:`ferric.multinomial`.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.tensor([0.0, 1.0, 0.0]).multinomial(2, replacement=True)
    ///     tensor([1, 1])
    fn multinomial(
        &self,
        py: Python<'_>,
        num_samples: &Bound<'_, PyAny>,
        replacement: bool,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let n = int_arg("multinomial", "num_samples", num_samples)?;
        let g = gen_arg("multinomial", generator)?;
        wrap(py, rnd::multinomial(&self.t, n, replacement, &g)?)
    }
}

/// bernoulli(input, p=None, *, generator=None, out=None) -> Tensor
///
/// Draws 0/1 samples: element ``i`` is 1 with probability ``input[i]`` (or ``p`` when given),
/// in ``input``'s dtype.
///
/// Args:
///     input (Tensor): the probabilities, in ``[0, 1]``.
///     p (float, optional): one probability for every element instead of ``input``'s values.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> p = ferric.tensor([0.0, 1.0, 0.0, 1.0])
///     >>> ferric.bernoulli(p)
///     tensor([0., 1., 0., 1.])
#[pyfunction]
#[pyo3(signature = (input, p=None, *, generator=None, out=None))]
pub(super) fn bernoulli(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    p: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = input.bernoulli(py, p, generator)?;
    crate::python::out::finish_tensor(py, "bernoulli", out, crate::python::out::OutDtype::Cast, r)
}

#[pyfunction]
#[pyo3(signature = (input, num_samples, replacement=false, *, generator=None, out=None))]
/// multinomial(input, num_samples, replacement=False, *, generator=None, out=None) -> LongTensor
///
/// Draws ``num_samples`` category indices per row of the (unnormalised) probabilities ``input``.
///
/// Args:
///     input (Tensor): non-negative weights, 1-D or 2-D.
///     num_samples (int): the number of samples to draw per row.
///     replacement (bool): draw with replacement.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///     out (Tensor, optional): the output tensor (int64).
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> ferric.multinomial(ferric.tensor([0., 1., 0.]), 2, replacement=True)
///     tensor([1, 1])
pub(super) fn multinomial(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    num_samples: &Bound<'_, PyAny>,
    replacement: bool,
    generator: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    use crate::python::out::{finish_tensor, out_dtype, OutDtype};
    if let Some(d) = out_dtype("multinomial", out)?.filter(|d| *d != DType::I64) {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "multinomial expects Long tensor out, got: {}",
            d.torch_name()
        )));
    }
    let r = input.multinomial(py, num_samples, replacement, generator)?;
    finish_tensor(py, "multinomial", out, OutDtype::Same, r)
}
