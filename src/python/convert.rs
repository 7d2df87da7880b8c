//! Conversions between Python objects and core values: dtypes, numbers, size/dim
//! arguments, nested sequences and NumPy arrays.

use crate::dtype::{DType, Scalar};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PySequence, PyTuple};
use std::sync::Arc;

/// `ferric.float32` and friends.
#[pyclass(name = "dtype", module = "ferric", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub d: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("ferric.{}", self.d.name())
    }
    #[getter]
    fn is_floating_point(&self) -> bool {
        self.d.is_float()
    }
    #[getter]
    fn is_signed(&self) -> bool {
        self.d != DType::Bool
    }
    #[getter]
    fn is_complex(&self) -> bool {
        false
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.d.size_of()
    }
    /// Pickled by name: unpickling looks up `ferric.<name>`.
    fn __reduce__(&self) -> String {
        self.d.name().to_string()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDType>()?;
    for d in DType::ALL {
        m.add(d.name(), Py::new(m.py(), PyDType { d })?)?;
    }
    // aliases are the same objects (`ferric.float is ferric.float32`), as in PyTorch
    for (alias, name) in [
        ("float", "float32"),
        ("double", "float64"),
        ("long", "int64"),
    ] {
        m.add(alias, m.getattr(name)?)?;
    }
    Ok(())
}

/// Accepts a `ferric.dtype`, or the Python types PyTorch also accepts (`float` ->
/// float64, `int` -> int64, `bool`). Strings and NumPy types are a TypeError, as in
/// PyTorch.
pub fn dtype_arg(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(d) = obj.cast::<PyDType>() {
        return Ok(d.get().d);
    }
    let py = obj.py();
    let builtins = py.import("builtins")?;
    if obj.is(&builtins.getattr("float")?) {
        return Ok(DType::F64);
    }
    if obj.is(&builtins.getattr("int")?) {
        return Ok(DType::I64);
    }
    if obj.is(&builtins.getattr("bool")?) {
        return Ok(DType::Bool);
    }
    Err(PyTypeError::new_err(format!(
        "dtype must be ferric.dtype, not {}",
        type_name(obj)
    )))
}

/// A Python number (bool checked before int, since bool subclasses int), or a NumPy
/// scalar. Returns None for anything else.
pub fn scalar_arg(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if let Ok(b) = obj.cast::<PyBool>() {
        return Some(Scalar::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    if obj.is_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    // NumPy scalars (np.float32, np.int64, np.bool_) expose `dtype` and `item()`.
    let ty = obj.get_type();
    let module: String = ty
        .getattr("__module__")
        .and_then(|m| m.extract())
        .unwrap_or_default();
    if module == "numpy" && obj.getattr("ndim").and_then(|n| n.extract::<usize>()).ok() == Some(0) {
        let item = obj.call_method0("item").ok()?;
        return scalar_arg(&item);
    }
    None
}

/// Sizes from `*args` where a single tuple/list/Size argument is also accepted:
/// `zeros(2, 3)`, `zeros((2, 3))`, `x.view(x.shape)`.
pub fn size_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let a = args.get_item(0)?;
        if !a.is_instance_of::<PyInt>() {
            return int_list(&a, "size");
        }
    }
    int_list(args.as_any(), "size")
}

/// A list of ints from a sequence (or a single int as a 1-list).
pub fn int_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i64>> {
    if obj.is_instance_of::<PyInt>() {
        return Ok(vec![index_int(obj, what)?]);
    }
    let seq = obj.cast::<PySequence>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a tuple of ints, but got {}",
            type_name(obj)
        ))
    })?;
    let mut out = Vec::with_capacity(seq.len()?);
    for item in seq.try_iter()? {
        out.push(index_int(&item?, what)?);
    }
    Ok(out)
}

/// An int argument (accepting anything with `__index__`, e.g. 1-element int tensors).
pub fn index_int(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be int, not {}",
            type_name(obj)
        )));
    }
    obj.extract::<i64>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be int, not {}", type_name(obj))))
}

/// `dim` arguments: None, an int, or a tuple/list of ints.
pub fn dims_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<i64>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => Ok(Some(int_list(o, "dim")?)),
    }
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// Builds a tensor from nested sequences of numbers (and 1-element tensors / NumPy
/// values). The dtype is inferred like PyTorch: any float -> float32, else any int ->
/// int64, else bool.
pub fn tensor_from_data(obj: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    // a NumPy scalar keeps its dtype (`tensor(np.float64(1.5))` is float64)
    if is_numpy_scalar(obj) {
        let arr = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
        return tensor_from_data(&arr, dtype);
    }
    if let Some(t) = crate::python::tensor::as_tensor_ref(obj) {
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
    // ints beyond int64 were collected as floats; they count as ints for the inference
    let mut big = seen.big_ints;
    let inferred = values.iter().fold(seen.np_dtype, |acc, s| {
        let d = match s {
            Scalar::Float(_) if big > 0 => {
                big -= 1;
                DType::I64
            }
            Scalar::Float(_) => DType::F32,
            Scalar::Int(_) => DType::I64,
            Scalar::Bool(_) => DType::Bool,
        };
        Some(acc.map_or(d, |a| a.max(d)))
    });
    let d = dtype.unwrap_or(inferred.unwrap_or(DType::F32));
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

/// What `collect` learns besides the values: the dtypes of NumPy scalars met, and how
/// many Python ints beyond int64 were collected (as floats: fine for a floating-point
/// result, an overflow error for an integer one, as in PyTorch).
#[derive(Default)]
struct Seen {
    np_dtype: Option<DType>,
    big_ints: usize,
}

fn collect(
    obj: &Bound<'_, PyAny>,
    depth: usize,
    shape: &mut Vec<usize>,
    out: &mut Vec<Scalar>,
    seen: &mut Seen,
) -> PyResult<()> {
    // NumPy scalars inside lists also contribute their own dtype (as in PyTorch)
    if is_numpy_scalar(obj) {
        let name: String = obj.getattr("dtype")?.getattr("name")?.extract()?;
        if let Some(d) = DType::ALL.iter().find(|d| d.name() == name) {
            seen.np_dtype = Some(seen.np_dtype.map_or(*d, |p| p.max(*d)));
        }
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
        out.push(s);
        return Ok(());
    }
    if let Some(t) = crate::python::tensor::as_tensor_ref(obj) {
        if t.numel() == 1 && depth >= shape.len() {
            out.push(t.item()?);
            return Ok(());
        }
        let list = crate::python::tensor::to_pylist(obj.py(), &t)?;
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

pub fn is_ndarray(obj: &Bound<'_, PyAny>) -> bool {
    let ty = obj.get_type();
    ty.name().map(|n| n == "ndarray").unwrap_or(false)
        && ty
            .getattr("__module__")
            .and_then(|m| m.extract::<String>())
            .map(|m| m == "numpy")
            .unwrap_or(false)
}

fn np_dtype(typestr: &str) -> Option<DType> {
    match typestr {
        "<f4" | "=f4" => Some(DType::F32),
        "<f8" | "=f8" => Some(DType::F64),
        "<i8" | "=i8" => Some(DType::I64),
        "|b1" => Some(DType::Bool),
        _ => None,
    }
}

/// Wraps a NumPy array's memory without copying (`from_numpy`). With `convert`, array
/// types ferric does not have (int32, uint8, float16, ...) are first converted by NumPy
/// to the nearest ferric dtype (a copy); without it they raise TypeError like PyTorch.
pub fn from_numpy_any(arr: &Bound<'_, PyAny>, convert: bool) -> PyResult<Tensor> {
    let mut arr = arr.clone();
    let iface = arr.getattr("__array_interface__")?;
    let mut typestr: String = iface.get_item("typestr")?.extract()?;
    if typestr.starts_with('>') && np_dtype(&typestr.replacen('>', "<", 1)).is_some() {
        // big-endian data: shared memory cannot be read as native numbers
        if !convert {
            return Err(PyValueError::new_err(
                "given numpy array has byte order different from the native byte order. \
                 Conversion between byte orders is currently not supported.",
            ));
        }
        let native = arr.getattr("dtype")?.call_method1("newbyteorder", ("=",))?;
        arr = arr.call_method1("astype", (native,))?;
        typestr = arr
            .getattr("__array_interface__")?
            .get_item("typestr")?
            .extract()?;
    }
    if np_dtype(&typestr).is_none() {
        if !convert {
            let name: String = arr.getattr("dtype")?.getattr("name")?.extract()?;
            return Err(PyTypeError::new_err(format!(
                "can't convert np.ndarray of type numpy.{name}. The only supported types are: float64, float32, int64, and bool."
            )));
        }
        let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
        let target = match kind.as_str() {
            "f" => "float32",
            "i" | "u" => "int64",
            "b" => "bool",
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "can't convert np.ndarray of type {}",
                    arr.getattr("dtype")?.repr()?
                )))
            }
        };
        arr = arr.call_method1("astype", (target,))?;
        typestr = arr
            .getattr("__array_interface__")?
            .get_item("typestr")?
            .extract()?;
    }
    let dtype = np_dtype(&typestr).ok_or_else(|| PyTypeError::new_err("unsupported array type"))?;
    let iface = arr.getattr("__array_interface__")?;
    let shape: Vec<usize> = iface.get_item("shape")?.extract()?;
    let (ptr, readonly): (usize, bool) = iface.get_item("data")?.extract()?;
    let item = dtype.size_of() as isize;
    let strides: Vec<isize> = match iface.get_item("strides")?.extract::<Option<Vec<isize>>>()? {
        Some(s) => {
            if s.iter().any(|&b| b < 0) {
                return Err(PyValueError::new_err(
                    "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) ",
                ));
            }
            if s.iter().any(|&b| b % item != 0) || ptr % dtype.size_of() != 0 {
                // unaligned or odd strides: take an aligned copy instead
                let c = arr
                    .py()
                    .import("numpy")?
                    .call_method1("ascontiguousarray", (&arr,))?;
                return from_numpy_any(&c, convert);
            }
            s.iter().map(|&b| b / item).collect()
        }
        None => crate::shape::contiguous_strides(&shape).to_vec(),
    };
    if ptr % dtype.size_of() != 0 {
        let c = arr
            .py()
            .import("numpy")?
            .call_method1("ascontiguousarray", (&arr,))?
            .call_method0("copy")?;
        return from_numpy_any(&c, convert);
    }
    let layout = Layout {
        shape: shape.as_slice().into(),
        strides: strides.as_slice().into(),
        offset: 0,
    };
    let len = layout.max_extent();
    let owner: Py<PyAny> = arr.clone().unbind();
    // SAFETY: the array object (kept alive by `owner`) owns `len` elements at `ptr`.
    let storage =
        unsafe { Storage::from_external(ptr as *mut u8, len, dtype, !readonly, Box::new(owner)) };
    Ok(Tensor {
        storage: Arc::new(storage),
        layout,
    })
}

/// The NumPy `__array_interface__` dict describing `t`'s memory.
pub fn array_interface<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let item = t.dtype().size_of();
    let typestr = match t.dtype() {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I64 => "<i8",
        DType::Bool => "|b1",
    };
    let ptr = t.storage.as_ptr() as usize + t.layout.offset * item;
    d.set_item("shape", PyTuple::new(py, t.shape())?)?;
    d.set_item("typestr", typestr)?;
    d.set_item("data", (ptr, !t.storage.writable()))?;
    let strides: Vec<isize> = t.strides().iter().map(|&s| s * item as isize).collect();
    d.set_item("strides", PyTuple::new(py, strides)?)?;
    d.set_item("version", 3)?;
    Ok(d)
}
