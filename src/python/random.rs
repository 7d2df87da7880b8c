//! Bindings for the random family: `ferric.Generator`, the seeding functions, the
//! random factories (`rand`, `randn`, `randint`, `randperm`, `normal`, `*_like`,
//! `bernoulli`, `multinomial`) and the in-place samplers on `Tensor`.
//!
//! RNG states are int64 tensors of 5056 values in 0..=255: the bytes of PyTorch's
//! `torch.get_rng_state()` (ferric has no uint8 dtype). `set_rng_state` also accepts
//! `bytes`, `bytearray` and NumPy uint8 arrays, so a state saved from PyTorch loads.

use crate::autograd::{matmul::sampled, Var};
use crate::dtype::{DType, Scalar};
use crate::ops::binary::Operand;
use crate::ops::random::{self as rnd, Generator};
use crate::python::arith::inplace_with;
use crate::python::convert::{
    dtype_arg, index_int, int_list, is_ndarray, scalar_arg, size_args, type_name,
};
use crate::python::creation::{check_device, finish, like};
use crate::python::tensor::{as_tensor_ref, wrap, wrap_var, PyTensor};
use crate::shape::to_dims;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyTuple};

/// `ferric.Generator`: a handle on a random number generator state.
///
/// Example:
///     >>> g = ferric.Generator().manual_seed(0)
///     >>> a = ferric.rand(2, generator=g)
///     >>> _ = g.manual_seed(0)
///     >>> ferric.equal(a, ferric.rand(2, generator=g))
///     True
///     >>> g.initial_seed()
///     0
#[pyclass(name = "Generator", module = "ferric")]
pub struct PyGenerator {
    pub g: Generator,
}

/// The Python object for the default generator, so `manual_seed()` always returns the
/// same `ferric.default_generator` object.
static DEFAULT_PY: PyOnceLock<Py<PyGenerator>> = PyOnceLock::new();

fn default_py(py: Python<'_>) -> PyResult<Py<PyGenerator>> {
    let g = DEFAULT_PY.get_or_try_init(py, || {
        Py::new(
            py,
            PyGenerator {
                g: Generator::default_generator().clone(),
            },
        )
    })?;
    Ok(g.clone_ref(py))
}

/// A seed like `torch.manual_seed` takes it: anything `int()` accepts; negative values
/// wrap to their two's complement, values beyond 64 bits are a ValueError.
fn seed_arg(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = seed.py();
    let v = py.import("builtins")?.getattr("int")?.call1((seed,))?;
    if let Ok(u) = v.extract::<u64>() {
        return Ok(u);
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(i as u64);
    }
    Err(PyValueError::new_err("Overflow when unpacking long long"))
}

/// The bytes of an RNG state given as a ferric int64 tensor, bytes, bytearray or NumPy
/// uint8 array.
fn state_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if is_ndarray(obj) {
        let kind: String = obj.getattr("dtype")?.getattr("name")?.extract()?;
        if kind == "uint8" {
            let raw = obj.call_method0("tobytes")?;
            return Ok(raw.cast::<PyBytes>()?.as_bytes().to_vec());
        }
    }
    let t = as_tensor_ref(obj)
        .filter(|t| t.dtype() == DType::I64)
        .ok_or_else(|| PyTypeError::new_err("RNG state must be a torch.ByteTensor"))?;
    t.to_vec::<i64>()?
        .into_iter()
        .map(|v| {
            u8::try_from(v).map_err(|_| {
                PyValueError::new_err(format!("RNG state values must be in [0, 255], got {v}"))
            })
        })
        .collect()
}

fn state_tensor(g: &Generator) -> PyResult<Tensor> {
    let b: Vec<i64> = g.get_state().into_iter().map(i64::from).collect();
    let n = b.len();
    Ok(Tensor::from_vec(b, &[n])?)
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (device=None))]
    fn py_new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        check_device(device)?;
        Ok(PyGenerator {
            g: Generator::new(),
        })
    }

    fn manual_seed<'py>(
        slf: PyRef<'py, Self>,
        seed: &Bound<'_, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.g.manual_seed(seed_arg(seed)?);
        Ok(slf)
    }

    fn seed(&self) -> u64 {
        self.g.seed()
    }

    fn initial_seed(&self) -> u64 {
        self.g.initial_seed()
    }

    fn get_state(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap(py, state_tensor(&self.g)?)
    }

    fn set_state<'py>(
        slf: PyRef<'py, Self>,
        new_state: &Bound<'_, PyAny>,
    ) -> PyResult<PyRef<'py, Self>> {
        slf.g.set_state(&state_bytes(new_state)?)?;
        Ok(slf)
    }

    #[getter]
    fn device<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::python::device::cpu_device(py)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        format!("<ferric.Generator object at {:#x}>", slf.as_ptr() as usize)
    }
}

/// The generator to draw from: `generator=` if given, else the default one.
fn gen_arg(op: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Generator> {
    match obj {
        None => Ok(Generator::default_generator().clone()),
        Some(o) if o.is_none() => Ok(Generator::default_generator().clone()),
        Some(o) => o
            .cast::<PyGenerator>()
            .map(|g| g.borrow().g.clone())
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "{op}(): argument 'generator' must be torch.Generator, not {}",
                    type_name(o)
                ))
            }),
    }
}

fn opt_dtype(d: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match d {
        Some(o) if !o.is_none() => Ok(Some(dtype_arg(o)?)),
        _ => Ok(None),
    }
}

/// Sizes from `*args` or the `size=` keyword.
fn sizes(args: &Bound<'_, PyTuple>, size: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<usize>> {
    let s = match size {
        Some(s) if args.is_empty() => int_list(s, "size")?,
        _ => size_args(args)?,
    };
    Ok(to_dims("", &s)?.to_vec())
}

fn number(op: &str, name: &str, o: &Bound<'_, PyAny>) -> PyResult<f64> {
    if let Some(s) = scalar_arg(o) {
        return Ok(s.to_f64());
    }
    if let Some(t) = as_tensor_ref(o).filter(|t| t.numel() == 1) {
        return Ok(t.item()?.to_f64());
    }
    Err(PyTypeError::new_err(format!(
        "{op}(): argument '{name}' must be float, not {}",
        type_name(o)
    )))
}

fn int_arg(op: &str, name: &str, o: &Bound<'_, PyAny>) -> PyResult<i64> {
    index_int(o, name).map_err(|_| {
        PyTypeError::new_err(format!(
            "{op}(): argument '{name}' must be int, not {}",
            type_name(o)
        ))
    })
}

#[pyfunction]
#[pyo3(signature = (*args, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
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
fn rand(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = (layout, pin_memory);
    let g = gen_arg("rand", generator)?;
    let t = Tensor::zeros(
        "rand",
        &sizes(args, size)?,
        opt_dtype(dtype)?.unwrap_or_else(crate::dtype::default_float),
    )?;
    rnd::uniform_(&t, 0.0, 1.0, &g)?;
    finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (*args, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
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
fn randn(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = (layout, pin_memory);
    let g = gen_arg("randn", generator)?;
    let t = Tensor::zeros(
        "randn",
        &sizes(args, size)?,
        opt_dtype(dtype)?.unwrap_or_else(crate::dtype::default_float),
    )?;
    rnd::normal_(&t, 0.0, 1.0, &g)?;
    finish(py, t, requires_grad, device)
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

/// randint(low=0, high, size, *, generator=None, dtype=ferric.int64, device=None, requires_grad=False) -> Tensor
///
/// Returns a tensor of integers drawn uniformly from ``[low, high)``: ``randint(high, size)``
/// or ``randint(low, high, size)`` (also by keyword).
///
/// Args:
///     low (int): the lowest value. Default: 0.
///     high (int): one above the highest value.
///     size (tuple of ints): the shape of the result.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
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
#[pyo3(signature = (*args, low=None, high=None, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
fn randint(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    low: Option<&Bound<'_, PyAny>>,
    high: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = (layout, pin_memory);
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
    let t = Tensor::zeros("randint", &dims, opt_dtype(dtype)?.unwrap_or(DType::I64))?;
    rnd::random_from_to_(&t, lo, Some(hi), &g)?;
    finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (n, *, generator=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
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
fn randperm(
    py: Python<'_>,
    n: &Bound<'_, PyAny>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = (layout, pin_memory);
    let n = int_arg("randperm", "n", n)?;
    let g = gen_arg("randperm", generator)?;
    let t = rnd::randperm(n, opt_dtype(dtype)?.unwrap_or(DType::I64), &g)?;
    finish(py, t, requires_grad, device)
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

/// normal(mean, std, size=None, *, generator=None) -> Tensor
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
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> ferric.normal(ferric.zeros(3), 1e-6).abs().max() < 1e-4
///     tensor(True)
///     >>> ferric.normal(2.0, 3.0, size=(2, 3)).shape
///     ferric.Size([2, 3])
#[pyfunction]
#[pyo3(signature = (mean, std=None, size=None, *, generator=None, dtype=None, layout=None, device=None, requires_grad=false, pin_memory=false))]
#[allow(clippy::too_many_arguments)]
fn normal(
    py: Python<'_>,
    mean: &Bound<'_, PyAny>,
    std: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    layout: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
    pin_memory: bool,
) -> PyResult<Py<PyTensor>> {
    let _ = (layout, pin_memory);
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
                opt_dtype(dtype)?.unwrap_or_else(crate::dtype::default_float),
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
                return wrap_var(py, v);
            }
            v.t
        }
    };
    finish(py, t, requires_grad, device)
}

/// Runs an in-place sampler on `slf`: straight on the data when no graph is involved;
/// otherwise through `inplace_with` (so a leaf that requires grad raises, as in PyTorch),
/// recording a zero-gradient node named `node` (`NormalBackward0`, ...).
fn sample_inplace(
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

#[pyfunction]
#[pyo3(signature = (input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=false, memory_format=None))]
#[allow(clippy::too_many_arguments)]
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
fn rand_like(
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
    let t = like("rand_like", &input.t, Scalar::Int(0), dtype, memory_format)?;
    rnd::uniform_(&t, 0.0, 1.0, &gen_arg("rand_like", generator)?)?;
    finish(py, t, requires_grad, device)
}

#[pyfunction]
#[pyo3(signature = (input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=false, memory_format=None))]
#[allow(clippy::too_many_arguments)]
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
fn randn_like(
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
    let t = like("randn_like", &input.t, Scalar::Int(0), dtype, memory_format)?;
    rnd::normal_(&t, 0.0, 1.0, &gen_arg("randn_like", generator)?)?;
    finish(py, t, requires_grad, device)
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
fn randint_like(
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

/// bernoulli(input, p=None, *, generator=None) -> Tensor
///
/// Draws 0/1 samples: element ``i`` is 1 with probability ``input[i]`` (or ``p`` when given),
/// in ``input``'s dtype.
///
/// Args:
///     input (Tensor): the probabilities, in ``[0, 1]``.
///     p (float, optional): one probability for every element instead of ``input``'s values.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> p = ferric.tensor([0.0, 1.0, 0.0, 1.0])
///     >>> ferric.bernoulli(p)
///     tensor([0., 1., 0., 1.])
#[pyfunction]
#[pyo3(signature = (input, p=None, *, generator=None))]
fn bernoulli(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    p: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    input.bernoulli(py, p, generator)
}

#[pyfunction]
#[pyo3(signature = (input, num_samples, replacement=false, *, generator=None))]
/// multinomial(input, num_samples, replacement=False, *, generator=None) -> LongTensor
///
/// Draws ``num_samples`` category indices per row of the (unnormalised) probabilities ``input``.
///
/// Args:
///     input (Tensor): non-negative weights, 1-D or 2-D.
///     num_samples (int): the number of samples to draw per row.
///     replacement (bool): draw with replacement.
///     generator (:class:`ferric.Generator`, optional): the random number generator to draw from.
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> ferric.multinomial(ferric.tensor([0., 1., 0.]), 2, replacement=True)
///     tensor([1, 1])
fn multinomial(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    num_samples: &Bound<'_, PyAny>,
    replacement: bool,
    generator: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    input.multinomial(py, num_samples, replacement, generator)
}

/// manual_seed(seed) -> Generator
///
/// Seeds the default random number generator and returns it.
///
/// Args:
///     seed (int): the seed (any int; reduced modulo 2**64 as in PyTorch).
///
/// Example:
///     >>> _ = ferric.manual_seed(0)
///     >>> a = ferric.rand(2)
///     >>> _ = ferric.manual_seed(0)
///     >>> ferric.equal(a, ferric.rand(2))
///     True
#[pyfunction]
fn manual_seed(py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<Py<PyGenerator>> {
    Generator::default_generator().manual_seed(seed_arg(seed)?);
    default_py(py)
}

#[pyfunction]
/// seed() -> int
///
/// Seeds the default generator with a non-deterministic random number and returns it.
///
/// Example:
///     >>> isinstance(ferric.seed(), int)
///     True
fn seed() -> u64 {
    Generator::default_generator().seed()
}

#[pyfunction]
/// initial_seed() -> int
///
/// Returns the seed the default generator was last seeded with.
///
/// Example:
///     >>> _ = ferric.manual_seed(7)
///     >>> ferric.initial_seed()
///     7
fn initial_seed() -> u64 {
    Generator::default_generator().initial_seed()
}

#[pyfunction]
/// get_rng_state() -> Tensor
///
/// Returns the state of the default generator as a uint8 tensor, for :func:`ferric.set_rng_state`.
///
/// Example:
///     >>> s = ferric.get_rng_state()
///     >>> a = ferric.rand(2)
///     >>> ferric.set_rng_state(s)
///     >>> bool((ferric.rand(2) == a).all())
///     True
fn get_rng_state(py: Python<'_>) -> PyResult<Py<PyTensor>> {
    wrap(py, state_tensor(Generator::default_generator())?)
}

#[pyfunction]
/// set_rng_state(new_state) -> None
///
/// Restores the default generator's state from :func:`ferric.get_rng_state`.
///
/// Args:
///     new_state (Tensor): the uint8 state tensor.
///
/// Example:
///     >>> s = ferric.get_rng_state()
///     >>> ferric.set_rng_state(s)
fn set_rng_state(new_state: &Bound<'_, PyAny>) -> PyResult<()> {
    Generator::default_generator()
        .set_state(&state_bytes(new_state)?)
        .map_err(|e| PyRuntimeError::new_err(e.msg))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()?;
    m.add("default_generator", default_py(m.py())?)?;
    for f in [
        wrap_pyfunction!(rand, m)?,
        wrap_pyfunction!(randn, m)?,
        wrap_pyfunction!(randint, m)?,
        wrap_pyfunction!(randperm, m)?,
        wrap_pyfunction!(normal, m)?,
        wrap_pyfunction!(rand_like, m)?,
        wrap_pyfunction!(randn_like, m)?,
        wrap_pyfunction!(randint_like, m)?,
        wrap_pyfunction!(bernoulli, m)?,
        wrap_pyfunction!(multinomial, m)?,
        wrap_pyfunction!(manual_seed, m)?,
        wrap_pyfunction!(seed, m)?,
        wrap_pyfunction!(initial_seed, m)?,
        wrap_pyfunction!(get_rng_state, m)?,
        wrap_pyfunction!(set_rng_state, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
