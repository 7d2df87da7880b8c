//! The random factories: `rand`, `randn`, `randint`, `randperm`, `normal` and their
//! `*_like` forms.

use crate::autograd::{matmul::sampled, Var};
use crate::dtype::{DType, Scalar};
use crate::ops::binary::Operand;
use crate::ops::random as rnd;
use crate::python::arith::inplace_with;
use crate::python::convert::{index_int, int_list, scalar_arg, type_name};
use crate::python::creation::{check_device, finish, like, target};
use crate::python::out::OutDtype;
use crate::python::tensor::{as_tensor_ref, PyTensor};
use crate::shape::to_dims;
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::*;

/// `rand` and `randn`: one binding shape; each call gives the docstring, the name and the
/// in-place sampler (`uniform_` on `[0, 1)` or `normal_` with mean 0 and std 1).
macro_rules! sampled_sized {
    ($(#[$doc:meta])* $name:ident, $sample:path) => {
        #[pyfunction]
        #[pyo3(signature = (*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
        #[allow(clippy::too_many_arguments)]
        $(#[$doc])*
        pub(super) fn $name(
            py: Python<'_>,
            args: &Bound<'_, PyTuple>,
            size: Option<&Bound<'_, PyAny>>,
            generator: Option<&Bound<'_, PyAny>>,
            out: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            layout: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            pin_memory: bool,
        ) -> PyResult<Py<PyAny>> {
            let _ = (layout, pin_memory);
            let op = stringify!($name);
            let tg = target(op, dtype, out)?;
            let g = gen_arg(op, generator)?;
            let t = Tensor::zeros(op, &sizes(args, size)?, tg.dtype_or_float())?;
            $sample(&t, 0.0, 1.0, &g)?;
            tg.finish(py, t, requires_grad, device)
        }
    };
}

/// `rand_like` and `randn_like`: as `sampled_sized`, shaped like `input`.
macro_rules! sampled_like {
    ($(#[$doc:meta])* $name:ident, $sample:path) => {
        #[pyfunction]
        #[pyo3(signature = (input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=false, memory_format=None))]
        #[allow(clippy::too_many_arguments)]
        $(#[$doc])*
        pub(super) fn $name(
            py: Python<'_>,
            input: PyRef<'_, PyTensor>,
            generator: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            layout: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
            memory_format: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyTensor>> {
            let _ = layout;
            let op = stringify!($name);
            let t = like(op, &input.t, Scalar::Int(0), dtype, memory_format)?;
            $sample(&t, 0.0, 1.0, &gen_arg(op, generator)?)?;
            finish(py, t, requires_grad, device)
        }
    };
}

sampled_sized! {
    /// rand(*size, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor
    ///
    /// Returns a tensor of shape ``size`` filled with uniform samples from ``[0, 1)``.
    ///
    /// Args:
    ///     size (int...): the shape of the result, as separate ints or one sequence.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
    ///     out (Tensor, optional): the output tensor.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///     layout (optional): only ``ferric.strided``.
    ///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
    ///     requires_grad (bool): whether autograd records operations on the result.
    ///     pin_memory (bool): accepted for compatibility; has no effect on the CPU.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.rand(2, 3).shape
    ///     ferric.Size([2, 3])
    rand, rnd::uniform_
}

sampled_sized! {
    /// randn(*size, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor
    ///
    /// Returns a tensor of shape ``size`` filled with samples from the standard normal distribution.
    ///
    /// Args:
    ///     size (int...): the shape of the result, as separate ints or one sequence.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
    ///     out (Tensor, optional): the output tensor.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///     layout (optional): only ``ferric.strided``.
    ///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
    ///     requires_grad (bool): whether autograd records operations on the result.
    ///     pin_memory (bool): accepted for compatibility; has no effect on the CPU.
    ///
    /// Example:
    ///     >>> _ = ferric.manual_seed(0)
    ///     >>> ferric.randn(2, 3).shape
    ///     ferric.Size([2, 3])
    randn, rnd::normal_
}

fn randint_usage(args: &Bound<'_, PyTuple>) -> PyErr {
    let got: Vec<String> = args.iter().map(|a| type_name(&a)).collect();
    PyTypeError::new_err(format!(
        "randint() received an invalid combination of arguments - got ({}), but expected one \
         of:\n * (int high, tuple of ints size, *, torch.Generator generator = None, ...)\n * \
         (int low, int high, tuple of ints size, *, torch.Generator generator = None, ...)",
        got.join(", ")
    ))
}

/// randint(low=0, high, size, *, generator=None, out=None, dtype=ferric.int64, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor of integers drawn uniformly from ``[low, high)``: ``randint(high, size)``
/// or ``randint(low, high, size)`` (also by keyword).
///
/// Args:
///     low (int): the lowest value. Default: 0.
///     high (int): one above the highest value.
///     size (tuple of ints): the shape of the result.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the data type of the result. Default: ``ferric.int64``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result. Default: False.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> x = ferric.randint(3, 10, (2, 4))
///     >>> x.dtype, x.shape
///     (ferric.int64, ferric.Size([2, 4]))
///     >>> bool(((x >= 3) & (x < 10)).all())
///     True
#[pyfunction]
#[pyo3(signature = (*args, low=None, high=None, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
pub(super) fn randint(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    low: Option<&Bound<'_, PyAny>>,
    high: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyAny>> {
    let _ = (layout, pin_memory);
    let tg = target("randint", dtype, out)?;
    let items: Vec<Bound<'_, PyAny>> = args.iter().collect();
    let (lo, hi, sz) = match (items.as_slice(), low, high, size) {
        ([h, s], None, None, None) => (None, h.clone(), s.clone()),
        ([l, h, s], None, None, None) => (Some(l.clone()), h.clone(), s.clone()),
        ([h], None, None, Some(s)) => (None, h.clone(), s.clone()),
        ([l, h], None, None, Some(s)) => (Some(l.clone()), h.clone(), s.clone()),
        ([], l, Some(h), Some(s)) => (l.cloned(), h.clone(), s.clone()),
        _ => return Err(randint_usage(args)),
    };
    // an int beyond int64 is PyTorch's ValueError, not a usage error
    let too_big = |o: &Bound<'_, PyAny>| {
        o.is_instance_of::<pyo3::types::PyInt>() && o.extract::<i64>().is_err()
    };
    if too_big(&hi) || lo.as_ref().is_some_and(too_big) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "Overflow when unpacking long long",
        ));
    }
    let is_int = |o: &Bound<'_, PyAny>| index_int(o, "high").is_ok();
    if !is_int(&hi) || lo.as_ref().is_some_and(|l| !is_int(l)) || is_int(&sz) {
        return Err(randint_usage(args));
    }
    let lo = lo.map(|l| index_int(&l, "low")).transpose()?.unwrap_or(0);
    let hi = index_int(&hi, "high")?;
    let dims = to_dims("", &int_list(&sz, "size")?)?;
    let g = gen_arg("randint", generator)?;
    let t = Tensor::zeros("randint", &dims, tg.dtype.unwrap_or(DType::I64))?;
    rnd::random_from_to_(&t, lo, Some(hi), &g)?;
    tg.finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
/// randperm(n, *, generator=None, out=None, dtype=ferric.int64, layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor
///
/// A random permutation of ``0, ..., n - 1``.
///
/// Args:
///     n (int): the size.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///     out (Tensor, optional): the output tensor.
///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
///     layout (optional): only ``ferric.strided``.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result.
///     pin_memory (bool): accepted for compatibility; has no effect on the CPU.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> ferric.randperm(4).sort().values
///     tensor([0, 1, 2, 3])
pub(super) fn randperm(
    py: Python<'_>,
    n: &Bound<'_, PyAny>,
    generator: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyAny>> {
    let _ = (layout, pin_memory);
    let tg = target("randperm", dtype, out)?;
    let n = int_arg("randperm", "n", n)?;
    let g = gen_arg("randperm", generator)?;
    let t = rnd::randperm(n, tg.dtype.unwrap_or(DType::I64), &g)?;
    tg.finish(py, t, requires_grad, device)
}

/// A `normal` parameter: a tensor or a number.
fn tensor_or_number(o: &Bound<'_, PyAny>) -> Option<NormalArg> {
    if let Some(t) = as_tensor_ref(o) {
        return Some(NormalArg::T(t));
    }
    scalar_arg(o).map(NormalArg::S)
}

enum NormalArg {
    T(Tensor),
    S(Scalar),
}

impl NormalArg {
    fn operand(&self) -> Operand<'_> {
        match self {
            NormalArg::T(t) => Operand::T(t),
            NormalArg::S(s) => Operand::S(*s),
        }
    }
}

/// normal(mean, std, size=None, *, generator=None, out=None) -> Tensor
///
/// Draws from normal distributions with the given means and standard deviations. ``mean`` and
/// ``std`` may each be a tensor or a float (tensors broadcast); with two floats, ``size``
/// gives the shape.
///
/// Args:
///     mean (Tensor or float): the means.
///     std (Tensor or float): the standard deviations (non-negative). Default: 1.
///     size (tuple of ints, optional): the shape of the result when both are floats.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> ferric.normal(ferric.zeros(3), 1e-6).abs().max() < 1e-4
///     tensor(True)
///     >>> ferric.normal(2.0, 3.0, size=(2, 3)).shape
///     ferric.Size([2, 3])
#[pyfunction]
#[pyo3(signature = (mean, std=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
pub(super) fn normal(
    py: Python<'_>,
    mean: &Bound<'_, PyAny>,
    std: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyAny>> {
    let _ = (layout, pin_memory);
    let tg = target("normal", dtype, out)?;
    let usage = || {
        PyTypeError::new_err(
            "normal() received an invalid combination of arguments - expected one of: \
             (Tensor mean, Tensor std), (Tensor mean, float std = 1), (float mean, Tensor std), \
             (float mean, float std, tuple of ints size)",
        )
    };
    let m = tensor_or_number(mean).ok_or_else(usage)?;
    let s = match std {
        Some(s) => tensor_or_number(s).ok_or_else(usage)?,
        None => NormalArg::S(Scalar::Float(1.0)),
    };
    let g = gen_arg("normal", generator)?;
    let t = match (&m, &s, size) {
        (NormalArg::S(m), NormalArg::S(s), Some(size)) => {
            let dims = to_dims("", &int_list(size, "size")?)?;
            let t = Tensor::zeros(
                "normal",
                &dims,
                tg.dtype.unwrap_or_else(crate::dtype::default_float),
            )?;
            rnd::normal_(&t, m.to_f64(), s.to_f64(), &g)?;
            t
        }
        (NormalArg::S(_), NormalArg::S(_), None) => return Err(usage()),
        (_, _, Some(_)) => return Err(usage()),
        _ => {
            let t = rnd::normal_tensors(m.operand(), s.operand(), &g)?;
            // tensor parameters get PyTorch's zero-gradient node (NormalBackward1/2/3)
            let var_of = |o: Option<&Bound<'_, PyAny>>| -> PyResult<Option<Var>> {
                match o.map(|o| o.cast::<PyTensor>()) {
                    Some(Ok(pt)) => Ok(Some(pt.borrow().var()?)),
                    _ => Ok(None),
                }
            };
            let (mv, sv) = (var_of(Some(mean))?, var_of(std)?);
            let node = match (&mv, &sv) {
                (Some(_), None) => "NormalBackward1",
                (None, Some(_)) => "NormalBackward2",
                _ => "NormalBackward3",
            };
            let inputs: Vec<&Var> = mv.iter().chain(sv.iter()).collect();
            let v = sampled(node, t, &inputs);
            if v.requires_grad() {
                check_device(device)?;
                return crate::python::out::finish(py, "normal", out, OutDtype::Same, v);
            }
            v.t
        }
    };
    tg.finish(py, t, requires_grad, device)
}

/// Runs an in-place sampler on `slf`: straight on the data when no graph is involved;
/// otherwise through `inplace_with` (so a leaf that requires grad raises, as in PyTorch),
/// recording a zero-gradient node named `node` (`NormalBackward0`, ...).
pub(super) fn sample_inplace(
    slf: &PyTensor,
    op: &str,
    node: &str,
    others: &[&Var],
    fill: impl Fn(&Tensor) -> crate::error::Result<()>,
) -> PyResult<()> {
    let others_require_grad = others.iter().any(|v| v.requires_grad());
    inplace_with(slf, op, others_require_grad, &fill, |old| {
        let out = old.t.copy_as(old.t.dtype())?;
        fill(&out)?;
        let inputs: Vec<&Var> = std::iter::once(old).chain(others.iter().copied()).collect();
        Ok(sampled(node, out, &inputs))
    })
}

sampled_like! {
    /// rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=ferric.preserve_format) -> Tensor
    ///
    /// :func:`ferric.rand` with ``input``'s shape and dtype.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///     layout (optional): only ``ferric.strided``.
    ///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
    ///     requires_grad (bool): whether autograd records operations on the result.
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
    ///
    /// Example:
    ///     >>> ferric.rand_like(ferric.zeros(2, dtype=ferric.float64)).dtype
    ///     ferric.float64
    rand_like, rnd::uniform_
}

sampled_like! {
    /// randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=ferric.preserve_format) -> Tensor
    ///
    /// :func:`ferric.randn` with ``input``'s shape and dtype.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
    ///     dtype (:class:`ferric.dtype`, optional): the desired data type of the result.
    ///     layout (optional): only ``ferric.strided``.
    ///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
    ///     requires_grad (bool): whether autograd records operations on the result.
    ///     memory_format (:class:`ferric.memory_format`, optional): the memory layout of the result.
    ///
    /// Example:
    ///     >>> ferric.randn_like(ferric.zeros(2, 2)).shape
    ///     ferric.Size([2, 2])
    randn_like, rnd::normal_
}

/// randint_like(input, low=0, high, *, dtype=None, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor shaped like ``input`` of integers drawn uniformly from ``[low, high)``:
/// ``randint_like(input, high)`` or ``randint_like(input, low, high)``.
///
/// Args:
///     input (Tensor): its shape (and, by default, dtype) is used.
///     low (int): the lowest value. Default: 0.
///     high (int): one above the highest value.
///     dtype (:class:`ferric.dtype`, optional): the data type of the result. Default: ``input``'s.
///     device (:class:`ferric.device`, optional): the device of the result (only ``'cpu'``).
///     requires_grad (bool): whether autograd records operations on the result. Default: False.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> x = ferric.randint_like(ferric.zeros(2, 2), 5)
///     >>> x.dtype, x.shape
///     (ferric.float32, ferric.Size([2, 2]))
///     >>> bool(((x >= 0) & (x < 5)).all())
///     True
#[pyfunction]
#[pyo3(signature = (input, low_or_high=None, high=None, *, low=None, generator=None, dtype=None, layout=None, device=None, requires_grad=false, memory_format=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn randint_like(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    low_or_high: Option<&Bound<'_, PyAny>>,
    high: Option<&Bound<'_, PyAny>>,
    low: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    memory_format: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let _ = layout;
    let (lo, hi) = match (low_or_high, high, low) {
        (Some(h), None, None) => (0, int_arg("randint_like", "high", h)?),
        (Some(l), Some(h), None) => (
            int_arg("randint_like", "low", l)?,
            int_arg("randint_like", "high", h)?,
        ),
        (None, Some(h), l) => (
            l.map(|l| int_arg("randint_like", "low", l))
                .transpose()?
                .unwrap_or(0),
            int_arg("randint_like", "high", h)?,
        ),
        _ => {
            return Err(PyTypeError::new_err(
                "randint_like() missing required argument 'high'",
            ))
        }
    };
    let t = like(
        "randint_like",
        &input.t,
        Scalar::Int(0),
        dtype,
        memory_format,
    )?;
    rnd::random_from_to_(&t, lo, Some(hi), &gen_arg("randint_like", generator)?)?;
    finish(py, t, requires_grad, device)
}
