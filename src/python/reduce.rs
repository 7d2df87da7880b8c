//! Bindings of the reduce family, generated from the reduction table
//! (`ops::reduce_table`): for each row a `Tensor` method (also a module function,
//! `ferric.sum = Tensor.sum`; `var_mean`/`std_mean` are module functions only) whose
//! parameters come from the row's `sig`, whose docstring is composed from the row's
//! `doc`/`ex` and the `Args:` lines shared by its `sig` and `out` fields, and which runs
//! the row's `call` in `python::reduce_calls`. The rows are also exported to Python
//! (`_core._op_table()`, family `"reduction"`). Softmax keeps its own binding here.

use crate::autograd::reduce as av;
use crate::ops::reduce::ReduceOp;
use crate::python::convert::opt_dtype;
use crate::python::reduce_calls::{self as calls, RArgs};
use crate::python::tensor::{wrap_var, PyTensor};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyModule};

pub(crate) use crate::python::reduce_calls::{dim_or_axis, keepdim_needs_dim, named_out, Arg};

/// The parameter list a `sig` puts on the signature line of the docstring.
macro_rules! sig_line {
    (Dims) => {
        "(input, dim=None, keepdim=False, *, dtype=None, out=None)"
    };
    (Amax) => {
        "(input, dim=(), keepdim=False, *, out=None)"
    };
    (AllAny) => {
        "(input, dim=None, keepdim=False, *, out=None)"
    };
    (Arg) => {
        "(input, dim=None, keepdim=False, *, out=None)"
    };
    (Prod) => {
        "(input, dim=None, keepdim=False, *, dtype=None, out=None)"
    };
    (MaxMin) => {
        "(input, dim=None, keepdim=False, *, out=None)"
    };
    (Var) => {
        "(input, dim=None, *, correction=1, keepdim=False, out=None)"
    };
    (Lse) => {
        "(input, dim, keepdim=False, *, out=None)"
    };
    (Norm) => {
        "(input, p='fro', dim=None, keepdim=False, dtype=None, *, out=None)"
    };
    (Count) => {
        "(input, dim=None)"
    };
    (Scan) => {
        "(input, dim, *, dtype=None, out=None)"
    };
    (ScanPair) => {
        "(input, dim, *, out=None)"
    };
    (Aminmax) => {
        "(input, *, dim=None, keepdim=False, out=None)"
    };
    (VarMean) => {
        "(input, dim=None, *, correction=1, keepdim=False)"
    };
}

/// The shared `Args:` lines.
macro_rules! arg_line {
    (input) => {
        "    input (Tensor): the input tensor.\n"
    };
    (dims) => {
        "    dim (int or tuple of ints, optional): the dimension(s) to reduce; all when \
                 None.\n"
    };
    (dims_req) => {
        "    dim (int or tuple of ints): the dimension(s) to reduce.\n"
    };
    (dim) => {
        "    dim (int, optional): the dimension to reduce; all elements when None.\n"
    };
    (dim_req) => {
        "    dim (int): the dimension to operate along.\n"
    };
    (keepdim) => {
        "    keepdim (bool): whether the reduced dimensions are kept with size 1.\n"
    };
    (dtype) => {
        "    dtype (:class:`ferric.dtype`, optional): the desired data type of the \
                  result; the input is cast to it first.\n"
    };
    (correction) => {
        "    correction (int): the difference between the sample size and the \
                       divisor (1: Bessel's correction). Default: 1.\n"
    };
    (p) => {
        "    p (int, float, inf or str): the order; default 'fro' (2 for vectors).\n"
    };
}

/// The `Args:` lines of a `sig`.
macro_rules! sig_args {
    (Dims) => {
        concat!(arg_line!(dims), arg_line!(keepdim), arg_line!(dtype))
    };
    (Amax) => {
        concat!(arg_line!(dims), arg_line!(keepdim))
    };
    (AllAny) => {
        concat!(arg_line!(dims), arg_line!(keepdim))
    };
    (Arg) => {
        concat!(arg_line!(dim), arg_line!(keepdim))
    };
    (Prod) => {
        concat!(arg_line!(dim), arg_line!(keepdim), arg_line!(dtype))
    };
    (MaxMin) => {
        concat!(arg_line!(dim), arg_line!(keepdim))
    };
    (Var) => {
        concat!(arg_line!(dims), arg_line!(correction), arg_line!(keepdim))
    };
    (Lse) => {
        concat!(arg_line!(dims_req), arg_line!(keepdim))
    };
    (Norm) => {
        concat!(
            arg_line!(p),
            arg_line!(dims),
            arg_line!(keepdim),
            arg_line!(dtype)
        )
    };
    (Count) => {
        arg_line!(dims)
    };
    (Scan) => {
        concat!(arg_line!(dim_req), arg_line!(dtype))
    };
    (ScanPair) => {
        arg_line!(dim_req)
    };
    (Aminmax) => {
        concat!(arg_line!(dim), arg_line!(keepdim))
    };
    (VarMean) => {
        concat!(arg_line!(dims), arg_line!(correction), arg_line!(keepdim))
    };
}

/// The `out` line of an `out` field.
macro_rules! out_line {
    (yes) => {
        "    out (Tensor, optional): the output tensor.\n"
    };
    (dim) => {
        "    out (Tensor, optional): the output tensor (only with ``dim``).\n"
    };
    (pair) => {
        "    out (tuple of two Tensors, optional): the output tensors (with ``dim``).\n"
    };
    (no) => {
        ""
    };
}

/// The docstring of a row.
macro_rules! reduce_doc {
    ($sig:ident, $name:literal, $returns:literal, $out:ident, $doc:literal, $ex:literal) => {
        concat!(
            $name,
            sig_line!($sig),
            " -> ",
            $returns,
            "\n\n",
            $doc,
            "\n\nArgs:\n",
            arg_line!(input),
            sig_args!($sig),
            out_line!($out),
            "\nExample:\n",
            $ex
        )
    };
}

/// What a `sig` takes, for `_op_table()`: (dim, keepdim, dtype).
macro_rules! sig_info {
    (Dims) => {
        ("int or list", true, true)
    };
    (Amax) => {
        ("int or list", true, false)
    };
    (AllAny) => {
        ("int or list", true, false)
    };
    (Arg) => {
        ("int", true, false)
    };
    (Prod) => {
        ("int", true, true)
    };
    (MaxMin) => {
        ("int", true, false)
    };
    (Var) => {
        ("int or list", true, false)
    };
    (Lse) => {
        ("int or list, required", true, false)
    };
    (Norm) => {
        ("int or list", true, true)
    };
    (Count) => {
        ("int or list", false, false)
    };
    (Scan) => {
        ("int, required", false, true)
    };
    (ScanPair) => {
        ("int, required", false, false)
    };
    (Aminmax) => {
        ("int", true, false)
    };
    (VarMean) => {
        ("int or list", true, false)
    };
}

macro_rules! opt_str {
    (none) => {
        None::<&str>
    };
    ($s:literal) => {
        Some($s)
    };
}

/// One row's binding: the parameters of its `sig`, gathered into `RArgs` for its `call`.
macro_rules! reduce_binding {
    (VarMean, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[doc = $docs]
        #[pyfunction]
        #[pyo3(name = $name,
            signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None))]
        #[allow(non_snake_case)]
        fn $v(py: Python<'_>, input: PyRef<'_, PyTensor>, dim: Arg, unbiased: Option<bool>,
            keepdim: bool, correction: Arg) -> PyResult<Py<PyAny>> {
            let a = RArgs { dim, unbiased, keepdim: Some(keepdim), correction,
                ..RArgs::default() };
            calls::$call(py, &input, ReduceOp::$v, a)
        }
    };
    ($sig:ident, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        reduce_method!($sig, $v, $name, $call, $docs);
    };
}

/// The method of a row, by `sig`.
macro_rules! reduce_method {
    (Dims, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name,
                signature = (dim=None, keepdim=false, *, dtype=None, axis=None, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg, keepdim: bool, dtype: Arg, axis: Arg,
                out: Arg) -> PyResult<Py<PyAny>> {
                let a = RArgs { dim, keepdim: Some(keepdim), dtype, axis, out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Amax, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim=None, keepdim=false, *, axis=None, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg, keepdim: bool, axis: Arg, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { dim, keepdim: Some(keepdim), axis, out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (AllAny, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim=None, keepdim=false, *, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg, keepdim: bool, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { dim, keepdim: Some(keepdim), out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Arg, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim=None, keepdim=false, *, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { idim: dim, keepdim: Some(keepdim), out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Prod, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim=None, keepdim=None, *, dtype=None, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg, keepdim: Option<bool>, dtype: Arg, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { dim, keepdim, dtype, out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (MaxMin, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim=None, keepdim=None, *, other=None, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg, keepdim: Option<bool>, other: Arg, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { dim, keepdim, other, out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Var, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name,
                signature = (dim=None, unbiased=None, keepdim=false, *, correction=None, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg, unbiased: Option<bool>, keepdim: bool,
                correction: Arg, out: Arg) -> PyResult<Py<PyAny>> {
                let a = RArgs { dim, unbiased, keepdim: Some(keepdim), correction, out,
                    ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Lse, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim, keepdim=false, *, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: &Bound<'_, PyAny>, keepdim: bool, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { dim: Some(dim), keepdim: Some(keepdim), out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Norm, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name,
                signature = (p=None, dim=None, keepdim=false, dtype=None, *, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, p: Arg, dim: Arg, keepdim: bool, dtype: Arg, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { p, dim, keepdim: Some(keepdim), out, dtype, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Count, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Arg) -> PyResult<Py<PyAny>> {
                calls::$call(py, self, ReduceOp::$v, RArgs { dim, ..RArgs::default() })
            }
        }
    };
    (Scan, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim, *, dtype=None, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: i64, dtype: Arg, out: Arg) -> PyResult<Py<PyAny>> {
                let a = RArgs { idim: Some(dim), dtype, out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (ScanPair, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (dim, *, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: i64, out: Arg) -> PyResult<Py<PyAny>> {
                let a = RArgs { idim: Some(dim), out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
    (Aminmax, $v:ident, $name:literal, $call:ident, $docs:expr) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $docs]
            #[pyo3(name = $name, signature = (*, dim=None, keepdim=false, out=None))]
            #[allow(non_snake_case)]
            fn $v(&self, py: Python<'_>, dim: Option<i64>, keepdim: bool, out: Arg)
                -> PyResult<Py<PyAny>> {
                let a = RArgs { idim: dim, keepdim: Some(keepdim), out, ..RArgs::default() };
                calls::$call(py, self, ReduceOp::$v, a)
            }
        }
    };
}

/// Registration of a row: `var_mean`-shaped rows are functions, the others methods
/// the module also exports as functions.
macro_rules! reduce_register {
    (VarMean, $v:ident, $name:literal, $m:ident, $names:ident) => {
        $m.add_function(wrap_pyfunction!($v, $m)?)?;
    };
    ($sig:ident, $v:ident, $name:literal, $m:ident, $names:ident) => {
        $names.push($name);
    };
}

/// The reduction table's bindings, registration and `_op_table()` rows.
macro_rules! reduce_bindings {
    ($($v:ident { name: $name:literal, sig: $sig:ident, call: $call:ident,
        returns: $returns:literal, tuple: $tuple:tt, out: $out:ident, grad: $grad:literal,
        nested: $nested:literal, doc: $doc:literal, ex: $ex:literal })*) => {
        $(reduce_binding!($sig, $v, $name, $call,
            reduce_doc!($sig, $name, $returns, $out, $doc, $ex));)*

        /// Registers the table's functions; returns the method names the module exports
        /// as functions too.
        #[allow(clippy::vec_init_then_push)]
        pub(super) fn register_table(m: &Bound<'_, PyModule>) -> PyResult<Vec<&'static str>> {
            let mut names = Vec::new();
            $(reduce_register!($sig, $v, $name, m, names);)*
            Ok(names)
        }

        /// The reduction table as Python data: one dict per row (`_core._op_table()`).
        pub(crate) fn reduce_rows(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
            let mut rows = Vec::new();
            $(
                let d = PyDict::new(py);
                let (dim, keepdim, dtype) = sig_info!($sig);
                let method = stringify!($sig) != "VarMean";
                d.set_item("family", "reduction")?;
                d.set_item("name", $name)?;
                d.set_item("variant", stringify!($v))?;
                d.set_item("methods", if method { vec![$name] } else { vec![] })?;
                d.set_item("functions", vec![$name])?;
                d.set_item("inplace", Vec::<&str>::new())?;
                d.set_item("fn_inplace", false)?;
                d.set_item("sig", stringify!($sig))?;
                d.set_item("dim", dim)?;
                d.set_item("keepdim", keepdim)?;
                d.set_item("dtype", dtype)?;
                d.set_item("out", stringify!($out))?;
                d.set_item("returns", $returns)?;
                d.set_item("tuple", opt_str!($tuple))?;
                d.set_item("grad", $grad)?;
                d.set_item("differentiable", $grad != "none")?;
                d.set_item("simd", false)?;
                d.set_item("nested", $nested)?;
                d.set_item("doc", $doc)?;
                rows.push(d);
            )*
            Ok(rows)
        }
    };
}

// (the generated items are named after the rows' CamelCase variants)
#[allow(non_snake_case)]
mod generated {
    use super::*;
    crate::ops::reduce_table::reduce_table!(reduce_bindings);
}
use generated::reduce_rows;
use generated::register_table;

// Softmax is no reduction (the result keeps input's shape) and has no out=.
#[pymethods]
impl PyTensor {
    #[pyo3(signature = (dim, dtype=None))]
    /// softmax(input, dim, dtype=None) -> Tensor
    ///
    /// ``exp(x) / sum(exp(x))`` along ``dim``, computed stably.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     dtype (:class:`ferric.dtype`, optional): cast ``input`` to this dtype first.
    ///
    /// Example:
    ///     >>> ferric.softmax(ferric.tensor([1., 2., 3.]), 0)
    ///     tensor([0.0900, 0.2447, 0.6652])
    fn softmax(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(
            py,
            av::softmax(&self.var()?, dim, opt_dtype(dtype)?, false)?,
        )
    }

    #[pyo3(signature = (dim, dtype=None))]
    /// log_softmax(input, dim, dtype=None) -> Tensor
    ///
    /// ``log(softmax(input, dim))``, computed stably.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dim (int, optional): the dimension to operate along.
    ///     dtype (:class:`ferric.dtype`, optional): cast ``input`` to this dtype first.
    ///
    /// Example:
    ///     >>> ferric.log_softmax(ferric.tensor([1., 2., 3.]), 0)
    ///     tensor([-2.4076, -1.4076, -0.4076])
    fn log_softmax(&self, py: Python<'_>, dim: i64, dtype: Arg) -> PyResult<Py<PyTensor>> {
        wrap_var(py, av::softmax(&self.var()?, dim, opt_dtype(dtype)?, true)?)
    }
}

/// `_core._reduce_rows()`: the reduction table's rows, which `_core._op_table()` includes.
#[pyfunction]
fn _reduce_rows(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    reduce_rows(py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_reduce_rows, m)?)?;
    // Load `ferric.return_types` now so `ferric.return_types.max` exists right after
    // `import ferric` (the package is importing us, so its submodules are importable).
    // Outside the package this may fail; `named` imports it lazily then.
    let _ = m.py().import("ferric.return_types");
    let mut names = register_table(m)?;
    names.extend(["softmax", "log_softmax"]);
    crate::python::tensor::alias_methods(m, &names)
}
