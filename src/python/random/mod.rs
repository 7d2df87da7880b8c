//! Bindings for the random family: `ferric.Generator`, the seeding functions, the
//! random factories (`rand`, `randn`, `randint`, `randperm`, `normal`, `*_like`,
//! `bernoulli`, `multinomial`) and the in-place samplers on `Tensor`.
//!
//! RNG states are int64 tensors of 5056 values in 0..=255: the bytes of PyTorch's
//! `torch.get_rng_state()` (ferric has no uint8 dtype). `set_rng_state` also accepts
//! `bytes`, `bytearray` and NumPy uint8 arrays, so a state saved from PyTorch loads.

use crate::dtype::DType;
use crate::ops::random::Generator;
use crate::python::convert::{index_int, int_list, is_ndarray, scalar_arg, size_args, type_name};
use crate::python::creation::check_device;
use crate::python::tensor::{as_tensor_ref, wrap, PyTensor};
use crate::shape::to_dims;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

mod factories;
mod sampling;

/// Generator(device='cpu') -> Generator
///
/// A random number generator: its own state, seeded and saved independently of the
/// default generator, for the ``generator=`` argument of the sampling functions.
///
/// Args:
///     device (:class:`ferric.device` or str, optional): only ``'cpu'``.
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
    add_functions!(
        m,
        [
            factories::rand,
            factories::randn,
            factories::randint,
            factories::randperm,
            factories::normal,
            factories::rand_like,
            factories::randn_like,
            factories::randint_like,
            sampling::bernoulli,
            sampling::multinomial,
            manual_seed,
            seed,
            initial_seed,
            get_rng_state,
            set_rng_state
        ]
    )?;
    Ok(())
}
