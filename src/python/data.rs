//! Nested Python data as a core tensor (`ferric.tensor(data)`, `Tensor(data)`): lists
//! and tuples of numbers, NumPy scalars and arrays, and `ferric.Tensor`s inside them.

use crate::dtype::{DType, Scalar};
use crate::python::convert::{from_numpy_any, is_ndarray, scalar_arg, type_name};
use crate::python::tensor::{as_tensor_ref, to_pylist};
use crate::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PySequence, PyTuple};

/// Builds a tensor from nested sequences of numbers (and 1-element tensors / NumPy
/// values). The dtype is inferred like PyTorch: any float -> float32, else any int ->
/// int64, else bool.
pub fn tensor_from_data(obj: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    // a NumPy scalar keeps its dtype (`tensor(np.float64(1.5))` is float64)
    if is_numpy_scalar(obj) {
        let arr = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
        return tensor_from_data(&arr, dtype);
    }
    if let Some(t) = as_tensor_ref(obj) {
        let d = dtype.unwrap_or(t.dtype());
        return Ok(t.copy_as(d)?);
    }
    if is_ndarray(obj) {
        let t = from_numpy_any(obj, true)?;
        let d = dtype.unwrap_or(t.dtype());
        return Ok(t.copy_as(d)?);
    }
    let mut shape: Vec<usize> = Vec::new();
    let mut values: Vec<Scalar> = Vec::new();
    let mut seen = Seen::default();
    collect(obj, 0, &mut shape, &mut values, &mut seen)?;
    let d = dtype.unwrap_or(seen.inferred.unwrap_or_else(crate::dtype::default_float));
    if d.category() == crate::dtype::Category::Int && d != DType::I64 {
        // PyTorch's check of Python numbers stored in a narrow integer dtype
        if values.iter().any(|&s| crate::dtype::scalar_overflows(s, d)) {
            return Err(crate::tensor::overflow_error(d.name()).into());
        }
    }
    if seen.big_ints > 0 && !d.is_float() {
        // PyTorch's message for an int beyond int64 in integer tensor data
        return Err(PyValueError::new_err("Overflow when unpacking long long"));
    }
    Ok(crate::with_dtype!(d, T, {
        use crate::dtype::Element;
        Tensor::from_vec(
            values
                .iter()
                .map(|&s| T::from_scalar(s))
                .collect::<Vec<T>>(),
            &shape,
        )?
    }))
}

/// How deep `tensor()` data may nest (PyTorch's `MAX_DIMS`); deeper input is refused
/// before the recursion could exhaust the stack.
const MAX_NESTING: usize = 64;

/// What `collect` learns besides the values: the promoted dtype of the elements (a
/// Python float counts as the default dtype, an int as int64, a NumPy scalar or a
/// one-element tensor as its own dtype, as in PyTorch's `infer_scalar_type`), and how
/// many Python ints beyond int64 were collected (as floats: fine for a floating-point
/// result, an overflow error for an integer one, as in PyTorch).
#[derive(Default)]
struct Seen {
    inferred: Option<DType>,
    big_ints: usize,
}

impl Seen {
    fn add(&mut self, d: DType) {
        self.inferred = Some(self.inferred.map_or(d, |p| p.promote(d)));
    }
}

fn collect(
    obj: &Bound<'_, PyAny>,
    depth: usize,
    shape: &mut Vec<usize>,
    out: &mut Vec<Scalar>,
    seen: &mut Seen,
) -> PyResult<()> {
    // NumPy scalars contribute their own dtype (as in PyTorch)
    let mut typed = None;
    if is_numpy_scalar(obj) {
        let name: String = obj.getattr("dtype")?.getattr("name")?.extract()?;
        typed = DType::ALL.iter().find(|d| d.name() == name).copied();
    }
    let big = obj.is_instance_of::<PyInt>() && scalar_arg(obj).is_none();
    let scalar = if big {
        seen.big_ints += 1;
        Some(Scalar::Float(obj.extract::<f64>()?))
    } else {
        scalar_arg(obj)
    };
    if let Some(s) = scalar {
        if depth < shape.len() {
            return Err(PyValueError::new_err(format!(
                "expected sequence of length {} at dim {depth} (got a number)",
                shape[depth]
            )));
        }
        if depth > shape.len() {
            return Err(PyValueError::new_err("ragged nested sequence"));
        }
        // ints beyond int64 were collected as floats; they count as ints here
        seen.add(typed.unwrap_or(match s {
            _ if big => DType::I64,
            Scalar::Float(_) => crate::dtype::default_float(),
            Scalar::Int(_) => DType::I64,
            Scalar::Bool(_) => DType::Bool,
        }));
        out.push(s);
        return Ok(());
    }
    if let Some(t) = as_tensor_ref(obj) {
        if t.numel() == 1 && depth >= shape.len() {
            seen.add(t.dtype());
            out.push(t.item()?);
            return Ok(());
        }
        let list = to_pylist(obj.py(), &t)?;
        return collect(&list, depth, shape, out, seen);
    }
    if is_ndarray(obj) {
        let list = obj.call_method0("tolist")?;
        return collect(&list, depth, shape, out, seen);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        // PyTorch's limit on nesting (also what stops a list that contains itself)
        if depth >= MAX_NESTING {
            return Err(PyValueError::new_err(format!(
                "too many dimensions '{}'",
                type_name(obj)
            )));
        }
        let seq = obj.cast::<PySequence>()?;
        let n = seq.len()?;
        if depth == shape.len() {
            if !out.is_empty() {
                // a sequence where numbers came before: PyTorch's TypeError
                return Err(PyTypeError::new_err(format!(
                    "must be real number, not {}",
                    type_name(obj)
                )));
            }
            shape.push(n);
        } else if shape[depth] != n {
            return Err(PyValueError::new_err(format!(
                "expected sequence of length {} at dim {depth} (got {n})",
                shape[depth]
            )));
        }
        for item in seq.try_iter()? {
            collect(&item?, depth + 1, shape, out, seen)?;
        }
        if n == 0 && depth + 1 < shape.len() {
            return Err(PyValueError::new_err("ragged nested sequence"));
        }
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "new(): invalid data type '{}'",
        type_name(obj)
    )))
}

fn is_numpy_scalar(obj: &Bound<'_, PyAny>) -> bool {
    let ty = obj.get_type();
    ty.getattr("__module__")
        .and_then(|m| m.extract::<String>())
        .is_ok_and(|m| m == "numpy")
        && !is_ndarray(obj)
        && obj.hasattr("dtype").unwrap_or(false)
}
