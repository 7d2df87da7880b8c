//! Conversions between Python objects and core values: dtypes, numbers, size/dim
//! arguments and NumPy arrays. Nested data (`tensor([[1, 2], ...])`, which may hold
//! `ferric.Tensor`s) is read by `data.rs`, above the Tensor class.

use crate::dtype::{DType, Scalar};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PySequence, PyTuple};
use std::sync::Arc;

/// `ferric.float32` and friends.
///
/// Example:
///     >>> ferric.float32
///     ferric.float32
///     >>> ferric.tensor([1, 2]).dtype
///     ferric.int64
///     >>> ferric.float64.is_floating_point, ferric.float64.itemsize
///     (True, 8)
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
        self.d.is_signed()
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

/// `torch.get_default_dtype()`.
#[pyfunction]
fn _get_default_dtype() -> PyDType {
    PyDType {
        d: crate::dtype::default_float(),
    }
}

/// `torch.set_default_dtype(d)`: floating dtypes only, as in PyTorch.
#[pyfunction]
fn _set_default_dtype(d: &Bound<'_, PyAny>) -> PyResult<()> {
    let d = dtype_arg(d)?;
    if !d.is_float() {
        return Err(PyTypeError::new_err(
            "only floating-point types are supported as the default type",
        ));
    }
    crate::dtype::set_default_float(d);
    Ok(())
}

/// can_cast(from_, to) -> bool
///
/// Whether a cast from ``from_`` to ``to`` is allowed by PyTorch's same-kind casting rule
/// (no float to int, no complex to real, no number to bool).
///
/// Args:
///     from_ (:class:`ferric.dtype`): the source data type.
///     to (:class:`ferric.dtype`): the target data type.
///
/// Example:
///     >>> ferric.can_cast(ferric.double, ferric.float)
///     True
///     >>> ferric.can_cast(ferric.float, ferric.int)
///     False
#[pyfunction]
fn can_cast(from_: PyDType, to: PyDType) -> bool {
    from_.d.can_cast_to(to.d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDType>()?;
    add_functions!(m, [_get_default_dtype, _set_default_dtype, can_cast])?;
    for d in DType::ALL {
        m.add(d.name(), Py::new(m.py(), PyDType { d })?)?;
    }
    // aliases are the same objects (`ferric.float is ferric.float32`), as in PyTorch
    for (alias, name) in [
        ("float", "float32"),
        ("double", "float64"),
        ("long", "int64"),
        ("int", "int32"),
        ("short", "int16"),
        ("half", "float16"),
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

/// An optional `dtype=` argument: None and absent are no dtype, anything else as
/// [`dtype_arg`] reads it.
pub fn opt_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(dtype_arg(o)?)),
        _ => Ok(None),
    }
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

/// A NumPy array, including subclasses (`np.memmap`, user subclasses) as PyTorch
/// accepts them; they are read through the array interface like plain arrays.
pub fn is_ndarray(obj: &Bound<'_, PyAny>) -> bool {
    obj.cast::<numpy::PyUntypedArray>().is_ok()
}

fn np_dtype(typestr: &str) -> Option<DType> {
    match typestr {
        "<f2" | "=f2" => Some(DType::F16),
        "<f4" | "=f4" => Some(DType::F32),
        "<f8" | "=f8" => Some(DType::F64),
        "|i1" => Some(DType::I8),
        "|u1" => Some(DType::U8),
        "<i2" | "=i2" => Some(DType::I16),
        "<i4" | "=i4" => Some(DType::I32),
        "<i8" | "=i8" => Some(DType::I64),
        "|b1" => Some(DType::Bool),
        _ => None,
    }
}

/// NumPy's type string of a dtype; None for bfloat16, which NumPy lacks.
pub fn np_typestr(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::Bool => "|b1",
        DType::BF16 => return None,
    })
}

/// Wraps a NumPy array's memory without copying (`from_numpy`). With `convert`, array
/// types ferric does not have (uint16, uint32, uint64, float128, ...) are first converted by NumPy
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
                "can't convert np.ndarray of type numpy.{name}. The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
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
    // PyTorch's message (`Tensor.numpy()` of a bfloat16 tensor)
    let typestr = np_typestr(t.dtype()).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "Got unsupported ScalarType {}",
            t.dtype().torch_name()
        ))
    })?;
    let ptr = t.storage.as_ptr() as usize + t.layout.offset * item;
    d.set_item("shape", PyTuple::new(py, t.shape())?)?;
    d.set_item("typestr", typestr)?;
    d.set_item("data", (ptr, !t.storage.writable()))?;
    let strides: Vec<isize> = t.strides().iter().map(|&s| s * item as isize).collect();
    d.set_item("strides", PyTuple::new(py, strides)?)?;
    d.set_item("version", 3)?;
    Ok(d)
}
