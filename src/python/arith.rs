//! Arithmetic, comparison, logical and elementwise math on `Tensor`, as methods and
//! Python operators. Module-level forms (`ferric.exp`) are the method descriptors.

use crate::autograd::pointwise::{binary as vbinary, Arg as VA};
use crate::autograd::{self, Var};
use crate::dtype::{DType, Scalar};
use crate::error::Error;
use crate::ops::binary::{binary, binary_, can_cast, BinaryOp, Operand};
use crate::ops::unary::{map_float, unary, UnaryOp};
use crate::python::convert::{from_numpy_any, is_ndarray, scalar_arg, type_name};
use crate::python::out::{finish, OutDtype};
use crate::python::tensor::{as_tensor_ref, wrap, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// An operand after conversion from Python.
pub enum Arg {
    T(Tensor),
    S(Scalar),
}

impl Arg {
    pub fn operand(&self) -> Operand<'_> {
        match self {
            Arg::T(t) => Operand::T(t),
            Arg::S(s) => Operand::S(*s),
        }
    }
}

/// Tensor, number, NumPy array or NumPy scalar; None for anything else.
pub fn arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<Arg>> {
    if let Some(t) = as_tensor_ref(obj) {
        return Ok(Some(Arg::T(t)));
    }
    if let Some(s) = scalar_arg(obj) {
        return Ok(Some(Arg::S(s)));
    }
    if is_ndarray(obj) {
        return Ok(Some(Arg::T(from_numpy_any(obj, true)?)));
    }
    Ok(None)
}

fn need_arg(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Arg> {
    arg(obj)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}(): argument 'other' must be Tensor or Number, not {}",
            type_name(obj)
        ))
    })
}

/// A differentiable operand converted from Python.
pub enum VArg {
    V(Var),
    S(Scalar),
}

impl VArg {
    pub fn arg(&self) -> VA<'_> {
        match self {
            VArg::V(v) => VA::V(v),
            VArg::S(s) => VA::S(*s),
        }
    }
    pub fn requires_grad(&self) -> bool {
        matches!(self, VArg::V(v) if v.requires_grad())
    }
}

pub fn varg(obj: &Bound<'_, PyAny>) -> PyResult<Option<VArg>> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(Some(VArg::V(t.borrow().var()?)));
    }
    Ok(arg(obj)?.map(|a| match a {
        Arg::T(t) => VArg::V(Var::plain(t)),
        Arg::S(s) => VArg::S(s),
    }))
}

pub fn need_varg(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<VArg> {
    varg(obj)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}(): argument 'other' must be Tensor or Number, not {}",
            type_name(obj)
        ))
    })
}

/// Runs an in-place op on `slf`. When autograd is not involved, `raw` mutates the data
/// directly (the fast path). Otherwise the result is computed out of place by `diff` from
/// a snapshot that carries the tensor's history, written back into the tensor, and the
/// tensor's history is rebased onto the new node — so saved tensors keep their values
/// and gradients flow through the in-place op.
pub fn inplace_with(
    slf: &PyTensor,
    name: &str,
    others_require_grad: bool,
    raw: impl FnOnce(&Tensor) -> crate::error::Result<()>,
    diff: impl FnOnce(&Var) -> crate::error::Result<Var>,
) -> PyResult<()> {
    let me = slf.var()?;
    if !autograd::is_grad_enabled() || !(me.requires_grad() || others_require_grad) {
        return Ok(raw(&slf.t)?);
    }
    if me.is_leaf() && me.requires_grad() {
        return Err(leaf_in_place());
    }
    let view_of = me.meta.as_ref().and_then(|m| m.view_of.borrow().clone());
    if let Some(vi) = &view_of {
        if let Some((op, i)) = vi.multi_output {
            return Err(Error::runtime(
                "",
                format!(
                    "Output {i} of {op} is a view and is being modified inplace. This view is \
                     the output of a function that returns multiple views. Such functions do \
                     not allow the output views to be modified inplace. You should replace the \
                     inplace operation by an out-of-place one."
                ),
            )
            .into());
        }
        if vi.base.is_leaf() && vi.base.requires_grad() {
            return Err(Error::runtime(
                "",
                "a view of a leaf Variable that requires grad is being used in an in-place operation.",
            )
            .into());
        }
    }
    slf.t.check_writable(name)?;
    let old = Var {
        t: slf.t.copy_as(slf.t.dtype())?,
        meta: me.meta.clone(),
    };
    let r = diff(&old)?;
    if !can_cast(r.t.dtype(), slf.t.dtype()) {
        return Err(Error::runtime(
            name,
            format!(
                "result type {} can't be cast to the desired output type {}",
                r.t.dtype(),
                slf.t.dtype()
            ),
        )
        .into());
    }
    let r = autograd::unary::to_dtype(&r, slf.t.dtype())?;
    slf.t.copy_from(&r.t)?;
    match (view_of, &me.meta, &r.meta) {
        // writing through a view rewrites the history of its base too
        (Some(vi), _, _) => slf.ag.set(autograd::views::rebase_view(&vi, &r)?.meta)?,
        // the tensor keeps its own autograd record and takes the new history into it, so
        // everything that refers to the tensor (the base of its views, above all) sees
        // the write
        (None, Some(m), Some(rm)) => {
            *m.grad_fn.borrow_mut() = rm.grad_fn.borrow().clone();
            m.output_nr.set(rm.output_nr.get());
            m.requires_grad.set(rm.requires_grad.get());
        }
        (None, _, _) => slf.ag.set(r.meta)?,
    }
    Ok(())
}

/// `a op b` for Python operators: unknown operand types give NotImplemented.
fn dunder(
    py: Python<'_>,
    a: &PyTensor,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let Some(b) = varg(other)? else {
        return Ok(py.NotImplemented());
    };
    let a = a.var()?;
    let r = if reflected {
        vbinary(op, b.arg(), VA::V(&a))
    } else {
        vbinary(op, VA::V(&a), b.arg())
    }?;
    Ok(wrap_var(py, r)?.into_any())
}

fn method(
    py: Python<'_>,
    a: &PyTensor,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
) -> PyResult<Py<PyTensor>> {
    let b = need_varg(op.name(), other)?;
    wrap_var(py, vbinary(op, VA::V(&a.var()?), b.arg())?)
}

fn inplace<'py>(
    slf: PyRef<'py, PyTensor>,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
) -> PyResult<PyRef<'py, PyTensor>> {
    let b = need_varg(op.name(), other)?;
    binary_inplace(&slf, op, &b)?;
    Ok(slf)
}

/// `other * alpha` for add/sub with `alpha`; `rt` is the dtype of the result.
fn scaled(
    op: &str,
    other: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
    rt: DType,
) -> PyResult<VArg> {
    let b = need_varg(op, other)?;
    let Some(alpha) = alpha else { return Ok(b) };
    let mut a = scalar_arg(alpha)
        .ok_or_else(|| PyTypeError::new_err(format!("{op}(): alpha must be a number")))?;
    if !rt.is_float() && matches!(a, Scalar::Float(_)) {
        return Err(Error::runtime(
            "",
            "For integral input tensors, argument alpha must not be a floating point number.",
        )
        .into());
    }
    if rt == DType::Bool {
        // PyTorch converts alpha to the result dtype: bool + bool stays bool
        a = Scalar::Bool(a.to_f64() != 0.0);
    }
    if a == Scalar::Int(1) || a == Scalar::Bool(true) {
        return Ok(b);
    }
    Ok(VArg::V(vbinary(BinaryOp::Mul, b.arg(), VA::S(a))?))
}

fn div_mode(a: &Tensor, b: Operand, mode: Option<&str>) -> PyResult<Tensor> {
    match mode {
        None => Ok(binary(BinaryOp::Div, Operand::T(a), b)?),
        Some("floor") => Ok(binary(BinaryOp::FloorDiv, Operand::T(a), b)?),
        Some("trunc") => {
            let out = crate::ops::binary::result_type(&Operand::T(a), &b);
            if out == DType::Bool {
                return Err(Error::dtype_not_implemented("div_trunc_cpu", out).into());
            }
            let q = binary(
                BinaryOp::Div,
                Operand::T(&a.to_dtype(out.to_float().max(DType::F64))?),
                b,
            )?;
            let q = unary(UnaryOp::Trunc, &q)?;
            if out.category() == crate::dtype::Category::Int
                && !matches!(b, Operand::T(t) if t.dtype().is_float())
            {
                // integer division by zero is an error for integer results
                let zero = binary(BinaryOp::Eq, b, Operand::S(Scalar::Int(0)))?;
                if zero.to_vec::<bool>()?.contains(&true) {
                    return Err(crate::error::Error::runtime("div", "ZeroDivisionError").into());
                }
            }
            Ok(q.to_dtype(out)?)
        }
        Some(m) => Err(Error::runtime(
            "",
            format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{m}'"
            ),
        )
        .into()),
    }
}

fn bound(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<VArg>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => Ok(Some(need_varg("clamp", o)?)),
    }
}

fn clamp_impl(x: &Var, min: Option<VArg>, max: Option<VArg>) -> PyResult<Var> {
    if min.is_none() && max.is_none() {
        return Err(
            Error::runtime("clamp", "At least one of 'min' or 'max' must not be None").into(),
        );
    }
    Ok(autograd::unary::clamp(
        x,
        min.as_ref().map(|a| a.arg()),
        max.as_ref().map(|a| a.arg()),
    )?)
}

/// PyTorch's refusal of an in-place write to a leaf that requires grad.
fn leaf_in_place() -> PyErr {
    Error::runtime(
        "",
        "a leaf Variable that requires grad is being used in an in-place operation.",
    )
    .into()
}

/// An in-place op without a derivative (`logical_and_` on a float tensor): like
/// PyTorch, the tensor keeps its `grad_fn` and `requires_grad`; only a leaf that requires
/// grad is refused.
fn nondifferentiable_inplace(
    slf: &PyTensor,
    raw: impl FnOnce(&Tensor) -> crate::error::Result<()>,
) -> PyResult<()> {
    let me = slf.var()?;
    if autograd::is_grad_enabled() && me.is_leaf() && me.requires_grad() {
        return Err(leaf_in_place());
    }
    Ok(raw(&slf.t)?)
}

/// In-place unary op (`x.exp_()`), autograd-aware.
fn unary_inplace(slf: &PyTensor, op: UnaryOp) -> PyResult<()> {
    if op == UnaryOp::LogicalNot {
        return nondifferentiable_inplace(slf, |t| crate::ops::unary::unary_(op, t));
    }
    let name = format!("{}_", op.name());
    inplace_with(
        slf,
        &name,
        false,
        |t| crate::ops::unary::unary_(op, t),
        |old| autograd::pointwise::unary(op, old),
    )
}

/// Whether a table row's `grad` field gives a rule.
macro_rules! differentiable {
    (none) => {
        false
    };
    (unimplemented) => {
        false
    };
    ($($rule:tt)*) => {
        true
    };
}

/// `ferric._core._op_table()`: the op tables' rows (family, name, methods, in-place
/// forms, differentiable, simd, nested), read by nested tensors and the tests.
#[pyfunction]
fn _op_table(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let mut rows = unary_rows(py)?;
    rows.extend(binary_rows(py)?);
    // the reduction table's rows, registered by `python::reduce` as `_reduce_rows` (looked
    // up at call time: python::reduce imports this module, not the other way round)
    let reduce = py
        .import("ferric._core")?
        .getattr("_reduce_rows")?
        .call0()?;
    for row in reduce.try_iter()? {
        rows.push(row?.cast_into::<PyDict>()?);
    }
    Ok(rows)
}

// The two negations outside the table: their dtype rules are their own (bool results /
// integer-only) and they have no gradient.
#[pymethods]
impl PyTensor {
    /// logical_not(input, *, out=None) -> Tensor
    ///
    /// Elementwise logical NOT: True where ``input`` is zero; a bool tensor.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.logical_not(ferric.tensor([0., 1.5]))
    ///     tensor([ True, False])
    #[pyo3(signature = (*, out=None))]
    fn logical_not(&self, py: Python<'_>, out: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let r = Var::plain(unary(UnaryOp::LogicalNot, &self.t)?);
        finish(py, "logical_not", out, OutDtype::Cast, r)
    }
    /// logical_not_() -> Tensor
    ///
    /// In-place version of :func:`ferric.logical_not` (writes 0/1 in the tensor's dtype).
    ///
    /// Example:
    ///     >>> x = ferric.tensor([0.0, 2.0, -1.0])
    ///     >>> x.logical_not_()
    ///     tensor([1., 0., 0.])
    fn logical_not_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        unary_inplace(&slf, UnaryOp::LogicalNot)?;
        Ok(slf)
    }
    /// bitwise_not(input, *, out=None) -> Tensor
    ///
    /// Elementwise bitwise NOT of an integer or bool tensor (logical NOT for bool).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.bitwise_not(ferric.tensor([0, 5, -1]))
    ///     tensor([-1, -6,  0])
    #[pyo3(signature = (*, out=None))]
    fn bitwise_not(&self, py: Python<'_>, out: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let r = Var::plain(unary(UnaryOp::BitwiseNot, &self.t)?);
        finish(py, "bitwise_not", out, OutDtype::Cast, r)
    }
    /// bitwise_not_() -> Tensor
    ///
    /// In-place version of :func:`ferric.bitwise_not`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([0, 1, -4])
    ///     >>> x.bitwise_not_()
    ///     tensor([-1, -2,  3])
    fn bitwise_not_<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        unary_inplace(&slf, UnaryOp::BitwiseNot)?;
        Ok(slf)
    }
}

/// The operator methods of a binary row: `[forward reflected in-place]` or `[forward]`.
macro_rules! binary_dunders {
    ($v:ident;) => {};
    ($v:ident; $f:ident) => {
        #[pymethods]
        impl PyTensor {
            fn $f(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                dunder(py, self, other, BinaryOp::$v, false)
            }
        }
    };
    ($v:ident; $f:ident $r:ident $i:ident) => {
        #[pymethods]
        impl PyTensor {
            fn $f(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                dunder(py, self, other, BinaryOp::$v, false)
            }
            fn $r(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                dunder(py, self, other, BinaryOp::$v, true)
            }
            fn $i(slf: PyRef<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
                inplace(slf, other, BinaryOp::$v).map(|_| ())
            }
        }
    };
}

/// A named binary method and its in-place form; `Tensor` rows reject Python numbers
/// with PyTorch's TypeError.
macro_rules! binary_method {
    ($v:ident, $other:ident, $doc:expr, $idoc:expr; $meth:ident $(/ $imeth:ident)?) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $doc]
            #[pyo3(signature = (other, *, out=None))]
            fn $meth(
                &self,
                py: Python<'_>,
                other: &Bound<'_, PyAny>,
                out: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                if binary_method!(@tensor_only $other) && other.cast::<PyTensor>().is_err() {
                    return Err(PyTypeError::new_err(format!(
                        "{}(): argument 'other' (position 1) must be Tensor, not {}",
                        stringify!($meth),
                        type_name(other)
                    )));
                }
                let b = need_varg(BinaryOp::$v.name(), other)?;
                let r = vbinary(BinaryOp::$v, VA::V(&self.var()?), b.arg())?;
                finish(py, BinaryOp::$v.name(), out, OutDtype::Cast, r)
            }
            $(
                #[doc = $idoc]
                fn $imeth<'py>(
                    slf: PyRef<'py, Self>,
                    other: &Bound<'_, PyAny>,
                ) -> PyResult<PyRef<'py, Self>> {
                    inplace(slf, other, BinaryOp::$v)
                }
            )?
        }
    };
    (@tensor_only Tensor) => {
        true
    };
    (@tensor_only Number) => {
        false
    };
    (@other_type Tensor) => {
        "Tensor"
    };
    (@other_type Number) => {
        "Tensor or Number"
    };
}

/// The `Example:` section of a binary row's docstring.
macro_rules! binary_example {
    ($call:expr, []) => {
        ""
    };
    ($call:expr, [$a:literal, $b:literal, $output:literal]) => {
        concat!(
            "\n\nExample:\n    >>> a = ferric.tensor(",
            $a,
            ")\n    >>> b = ferric.tensor(",
            $b,
            ")\n    >>> ",
            $call,
            "\n    ",
            $output
        )
    };
}

/// The named methods of one binary row with their docstrings (from the row's `doc` and
/// `ex` fields): the op, its in-place form and the aliases.
macro_rules! binary_row {
    ($v:ident, $other:ident, $doc:literal, $ex:tt;) => {};
    ($v:ident, $other:ident, $doc:literal, $ex:tt;
     $first:ident $(/ $ifirst:ident)? $(, $alias:ident $(/ $ialias:ident)?)*) => {
        binary_method!($v, $other,
            concat!(stringify!($first), "(input, other, *, out=None) -> Tensor\n\n", $doc,
                " ``other`` is broadcast against ``input`` and the result has the promoted ",
                "dtype.\n\n``ferric.", stringify!($first), "(a, b)`` and ``a.",
                stringify!($first), "(b)`` are the same function.\n\nArgs:\n",
                "    input (Tensor): the first operand.\n    other (",
                binary_method!(@other_type $other), "): the second operand.\n",
                "    out (Tensor, optional): the output tensor.",
                binary_example!(concat!("ferric.", stringify!($first), "(a, b)"), $ex)),
            concat!(stringify!($first), "_(input, other) -> Tensor\n\n",
                "In-place version of :func:`ferric.", stringify!($first),
                "`: writes the result into ``input`` (which must be able to hold the ",
                "promoted dtype and the broadcast shape) and returns it.",
                binary_example!(concat!("a.", stringify!($first), "_(b)"), $ex));
            $first $(/ $ifirst)?);
        $(
            binary_method!($v, $other,
                concat!(stringify!($alias), "(input, other, *, out=None) -> Tensor\n\n",
                    "Alias for :func:`ferric.", stringify!($first), "`.",
                    binary_example!(concat!("ferric.", stringify!($alias), "(a, b)"), $ex)),
                concat!(stringify!($alias), "_(input, other) -> Tensor\n\n",
                    "In-place version of :func:`ferric.", stringify!($alias), "`.");
                $alias $(/ $ialias)?);
        )*
    };
}

/// The binary table's rows as Python operators, methods and module functions, and as
/// data for Python (`_core._op_table()`).
macro_rules! binary_py {
    ($($v:ident { name: $name:literal, node: $node:literal, kind: $kind:ident,
        dunders: [$($dn:ident)*], methods: [$($meth:ident $(/ $imeth:ident)?),*], other: $other:ident,
        cost: $cost:literal, simd: [$($simd:ident)?], float: $float:expr, int: $int:expr,
        bool: $bool:expr, grad: [$($grad:tt)*], nested: $nested:literal,
        doc: $doc:literal, ex: [$($ex:literal),*] })*) => {
        $(
            binary_dunders!($v; $($dn)*);
            binary_row!($v, $other, $doc, [$($ex),*]; $($meth $(/ $imeth)?),*);
        )*

        /// Module-level functions the binary table provides (`ferric.maximum`, ...).
        fn binary_function_names() -> Vec<&'static str> {
            vec![$($(stringify!($meth),)*)*]
        }

        /// The binary table as Python data: one dict per row.
        fn binary_rows(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
            let mut rows = Vec::new();
            $(
                let d = PyDict::new(py);
                d.set_item("family", "binary")?;
                d.set_item("name", $name)?;
                d.set_item("variant", stringify!($v))?;
                d.set_item("kind", stringify!($kind))?;
                let methods: Vec<&str> = vec![$(stringify!($meth)),*];
                d.set_item("methods", methods)?;
                let inplace: Vec<&str> = vec![$($(stringify!($imeth),)?)*];
                d.set_item("inplace", inplace)?;
                let dunders: Vec<&str> = vec![$(stringify!($dn)),*];
                d.set_item("dunders", dunders)?;
                d.set_item("fn_inplace", false)?;
                d.set_item("tensor_only", stringify!($other) == "Tensor")?;
                d.set_item("differentiable", differentiable!($($grad)*))?;
                d.set_item("backward_raises", stringify!($($grad)*) == "unimplemented")?;
                d.set_item("simd", { let s: &[&str] = &[$(stringify!($simd)),*]; !s.is_empty() })?;
                d.set_item("nested", $nested)?;
                rows.push(d);
            )*
            Ok(rows)
        }
    };
}

crate::ops::table::binary_table!(binary_py);

#[pymethods]
impl PyTensor {
    /// pow_(exponent) -> Tensor
    ///
    /// In-place version of :func:`ferric.pow`.
    ///
    /// Example:
    ///     >>> ferric.tensor([2., 3.]).pow_(2)
    ///     tensor([4., 9.])
    fn pow_<'py>(slf: PyRef<'py, Self>, other: &Bound<'_, PyAny>) -> PyResult<PyRef<'py, Self>> {
        inplace(slf, other, BinaryOp::Pow)
    }
}

/// The `Example:` section of a unary row's docstring: `ferric.<call>(x)` on the row's
/// input, and the output PyTorch prints (the doctests in `tests/test_docstrings.py`
/// check it).
macro_rules! unary_example {
    ($call:expr, []) => {
        ""
    };
    ($call:expr, [$input:literal, $output:literal]) => {
        concat!(
            "\n\nExample:\n    >>> x = ferric.tensor(",
            $input,
            ")\n    >>> ",
            $call,
            "\n    ",
            $output
        )
    };
}

/// The methods of one unary row: the op (`tanh`), its in-place form (`tanh_`) and the
/// aliases (`arctanh`, `arctanh_`), each with a docstring built from the row's `doc`
/// and `ex` fields.
macro_rules! unary_row {
    ($v:ident, $doc:literal, $ex:tt;) => {};
    ($v:ident, $doc:literal, $ex:tt;
     $first:ident $(/ $ifirst:ident)? $(, $alias:ident $(/ $ialias:ident)?)*) => {
        #[pymethods]
        impl PyTensor {
            #[doc = concat!(stringify!($first), "() -> Tensor\n\n", $doc,
                "\n\nThe method form of :func:`ferric.", stringify!($first),
                "` (which also takes ``out=``).\n\nArgs:\n    input (Tensor): the input tensor.",
                unary_example!(concat!("x.", stringify!($first), "()"), $ex))]
            fn $first(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
                wrap_var(py, autograd::pointwise::unary(UnaryOp::$v, &self.var()?)?)
            }
            $(
                #[doc = concat!(stringify!($ifirst), "(input) -> Tensor\n\n",
                    "In-place version of :func:`ferric.", stringify!($first),
                    "`: writes the result into ``input`` and returns it.",
                    unary_example!(concat!("x.", stringify!($ifirst), "()"), $ex))]
                fn $ifirst<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
                    unary_inplace(&slf, UnaryOp::$v)?;
                    Ok(slf)
                }
            )?
            $(
                #[doc = concat!(stringify!($alias), "() -> Tensor\n\n",
                    "Alias for :meth:`Tensor.", stringify!($first), "`.",
                    unary_example!(concat!("x.", stringify!($alias), "()"), $ex))]
                fn $alias(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
                    wrap_var(py, autograd::pointwise::unary(UnaryOp::$v, &self.var()?)?)
                }
                $(
                    #[doc = concat!(stringify!($ialias), "(input) -> Tensor\n\n",
                        "In-place version of :func:`ferric.", stringify!($alias), "`.",
                        unary_example!(concat!("x.", stringify!($ialias), "()"), $ex))]
                    fn $ialias<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
                        unary_inplace(&slf, UnaryOp::$v)?;
                        Ok(slf)
                    }
                )?
            )*
        }
    };
}

/// The module-level functions of one unary row (`ferric.tanh(x, out=None)`, its
/// aliases): separate from the methods so that a method call parses no `out`.
macro_rules! unary_fn_row {
    ($v:ident, $doc:literal, $ex:tt;) => {};
    ($v:ident, $doc:literal, $ex:tt;
     $first:ident $(/ $ifirst:ident)? $(, $alias:ident $(/ $ialias:ident)?)*) => {
        #[pyfunction]
        #[pyo3(signature = (input, *, out=None))]
        #[doc = concat!(stringify!($first), "(input, *, out=None) -> Tensor\n\n", $doc,
            "\n\nArgs:\n    input (Tensor): the input tensor.",
            "\n    out (Tensor, optional): the output tensor.",
            unary_example!(concat!("ferric.", stringify!($first), "(x)"), $ex))]
        pub(super) fn $first(
            py: Python<'_>,
            input: PyRef<'_, PyTensor>,
            out: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            unary_method(py, &input, UnaryOp::$v, out)
        }
        $(
            #[pyfunction]
            #[pyo3(signature = (input, *, out=None))]
            #[doc = concat!(stringify!($alias), "(input, *, out=None) -> Tensor\n\n",
                "Alias for :func:`ferric.", stringify!($first), "`.",
                unary_example!(concat!("ferric.", stringify!($alias), "(x)"), $ex))]
            pub(super) fn $alias(
                py: Python<'_>,
                input: PyRef<'_, PyTensor>,
                out: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                unary_method(py, &input, UnaryOp::$v, out)
            }
        )*
    };
}

/// `ferric.<op>(t, out=o)` for a unary table op.
fn unary_method(
    py: Python<'_>,
    t: &PyTensor,
    op: UnaryOp,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let r = autograd::pointwise::unary(op, &t.var()?)?;
    if out.is_none_or(|o| o.is_none()) {
        return Ok(wrap_var(py, r)?.into_any());
    }
    let rule = match op {
        // PyTorch's ops that keep the input's dtype want it in out too
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Trunc
        | UnaryOp::Frac => OutDtype::Found,
        // torch.relu has no out= overload
        UnaryOp::Relu => {
            return Err(PyTypeError::new_err(
                "relu() got an unexpected keyword argument 'out'",
            ))
        }
        _ => OutDtype::Cast,
    };
    finish(py, op.name(), out, rule, r)
}

/// The unary table's rows as Python methods (`t.tanh()`, `t.tanh_()`, aliases) and
/// predicates (`t.isnan()`), the names the module exports as functions, and the rows as
/// data for Python (`_core._op_table()`).
macro_rules! unary_methods {
    (math: [$($v:ident { name: $name:literal, methods: [$($meth:ident $(/ $imeth:ident)?),*],
        fn_inplace: $fi:literal, cost: $cost:literal, simd: [$($simd:ident)?], float: $float:expr,
        ints: $ints:expr, bools: $bools:expr, grad: [$($grad:tt)*], nested: $nested:literal,
        doc: $doc:literal, ex: [$($ex:literal),*] })*]
     predicates: [$($p:ident { name: $pname:ident, test: $test:expr, other: $other:literal,
        doc: $pdoc:literal, ex: [$($pex:literal),*] })*]) => {
        $(unary_row!($v, $doc, [$($ex),*]; $($meth $(/ $imeth)?),*);)*
        /// The unary rows as module-level functions (they take `out=`).
        mod unary_fns {
            use super::*;
            $(unary_fn_row!($v, $doc, [$($ex),*]; $($meth $(/ $imeth)?),*);)*
            pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
                $($(m.add_function(wrap_pyfunction!($meth, m)?)?;)*)*
                Ok(())
            }
        }
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = concat!(stringify!($pname), "(input) -> Tensor\n\n", $pdoc,
                    "\n\n``ferric.", stringify!($pname), "(x)`` and ``x.", stringify!($pname),
                    "()`` are the same function.\n\nArgs:\n    input (Tensor): the input tensor.",
                    unary_example!(concat!("ferric.", stringify!($pname), "(x)"), [$($pex),*]))]
                fn $pname(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
                    wrap(py, unary(UnaryOp::$p, &self.t)?)
                }
            )*
        }

        /// The module-level names the unary table takes from the methods: the in-place
        /// forms (`ferric.tanh_`) and the predicates (`ferric.isnan`).
        fn unary_function_names() -> Vec<&'static str> {
            let mut names = Vec::new();
            $($(
                if $fi {
                    $(names.push(stringify!($imeth));)?
                }
            )*)*
            $(names.push(stringify!($pname));)*
            names
        }

        /// The unary table as Python data: one dict per row.
        fn unary_rows(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
            let mut rows = Vec::new();
            $(
                let d = PyDict::new(py);
                d.set_item("family", "unary")?;
                d.set_item("name", $name)?;
                d.set_item("variant", stringify!($v))?;
                let methods: Vec<&str> = vec![$(stringify!($meth)),*];
                d.set_item("methods", methods)?;
                let inplace: Vec<&str> = vec![$($(stringify!($imeth),)?)*];
                d.set_item("inplace", inplace)?;
                d.set_item("fn_inplace", $fi)?;
                d.set_item("differentiable", differentiable!($($grad)*))?;
                d.set_item("simd", { let s: &[&str] = &[$(stringify!($simd)),*]; !s.is_empty() })?;
                d.set_item("nested", $nested)?;
                rows.push(d);
            )*
            $(
                let d = PyDict::new(py);
                d.set_item("family", "predicate")?;
                d.set_item("name", stringify!($pname))?;
                d.set_item("variant", stringify!($p))?;
                d.set_item("methods", vec![stringify!($pname)])?;
                d.set_item("inplace", Vec::<&str>::new())?;
                d.set_item("fn_inplace", false)?;
                d.set_item("differentiable", false)?;
                d.set_item("simd", false)?;
                d.set_item("nested", true)?;
                rows.push(d);
            )*
            Ok(rows)
        }
    };
}

crate::ops::table::unary_table!(unary_methods);

#[pymethods]
impl PyTensor {
    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, autograd::pointwise::unary(UnaryOp::Neg, &self.var()?)?)
    }
    fn __pos__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, autograd::pointwise::unary(UnaryOp::Abs, &self.var()?)?)
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        if self.t.dtype().is_float() {
            return Err(PyTypeError::new_err(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
            ));
        }
        wrap(py, unary(UnaryOp::BitwiseNot, &self.t)?)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        dunder(py, self, other, BinaryOp::Eq, false)
    }
    fn __ne__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        dunder(py, self, other, BinaryOp::Ne, false)
    }
    fn __lt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        dunder(py, self, other, BinaryOp::Lt, false)
    }
    fn __le__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        dunder(py, self, other, BinaryOp::Le, false)
    }
    fn __gt__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        dunder(py, self, other, BinaryOp::Gt, false)
    }
    fn __ge__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        dunder(py, self, other, BinaryOp::Ge, false)
    }

    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        dunder(py, self, other, BinaryOp::Pow, false)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        dunder(py, self, other, BinaryOp::Pow, true)
    }
    fn __ipow__(
        slf: PyRef<'_, Self>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = modulo;
        inplace(slf, other, BinaryOp::Pow).map(|_| ())
    }

    /// pow(exponent) -> Tensor
    ///
    /// See :func:`ferric.pow`.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0, 2.0, 3.0]).pow(2)
    ///     tensor([1., 4., 9.])
    fn pow(&self, py: Python<'_>, exponent: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        method(py, self, exponent, BinaryOp::Pow)
    }

    #[pyo3(signature = (other, *, alpha=None, out=None))]
    /// add(input, other, *, alpha=1, out=None) -> Tensor
    ///
    /// Adds ``other``, scaled by ``alpha``, to ``input``: ``input + alpha * other``, with
    /// broadcasting and type promotion. ``x.add(y)`` is the method form.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     other (Tensor or Number): the second operand.
    ///     alpha (Number): the multiplier for ``other``; default 1.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.add(ferric.tensor([1., 2.]), ferric.tensor([10., 20.]), alpha=2)
    ///     tensor([21., 42.])
    fn add(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let r = add_sub(self, BinaryOp::Add, other, alpha)?;
        finish(py, "add", out, OutDtype::Cast, r)
    }
    #[pyo3(signature = (other, *, alpha=None))]
    /// add_(other, *, alpha=1) -> Tensor
    ///
    /// In-place version of :func:`ferric.add`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1., 2.])
    ///     >>> x.add_(1)
    ///     tensor([2., 3.])
    fn add_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let b = scaled("add_", other, alpha, slf.t.dtype())?;
        binary_inplace(&slf, BinaryOp::Add, &b)?;
        Ok(slf)
    }
    #[pyo3(signature = (other, *, alpha=None, out=None))]
    /// sub(input, other, *, alpha=1, out=None) -> Tensor
    ///
    /// Subtracts ``other``, scaled by ``alpha``, from ``input``: ``input - alpha * other``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     other (Tensor or Number): the second operand.
    ///     alpha (Number): the multiplier for ``other``; default 1.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.sub(ferric.tensor([5., 5.]), ferric.tensor([1., 2.]), alpha=2)
    ///     tensor([3., 1.])
    fn sub(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let r = add_sub(self, BinaryOp::Sub, other, alpha)?;
        finish(py, "sub", out, OutDtype::Cast, r)
    }
    #[pyo3(signature = (other, *, alpha=None, out=None))]
    /// subtract(input, other, *, alpha=1, out=None) -> Tensor
    ///
    /// Alias for :func:`ferric.sub`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     other (Tensor or Number): the second operand.
    ///     alpha (Number): the multiplier for ``other``; default 1.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.subtract(ferric.tensor([5., 5.]), 1)
    ///     tensor([4., 4.])
    fn subtract(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.sub(py, other, alpha, out)
    }
    #[pyo3(signature = (other, *, alpha=None))]
    /// sub_(other, *, alpha=1) -> Tensor
    ///
    /// In-place version of :func:`ferric.sub`.
    ///
    /// Example:
    ///     >>> ferric.tensor([5., 5.]).sub_(1)
    ///     tensor([4., 4.])
    fn sub_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'_, PyAny>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let b = scaled("sub_", other, alpha, slf.t.dtype())?;
        binary_inplace(&slf, BinaryOp::Sub, &b)?;
        Ok(slf)
    }
    #[pyo3(signature = (other, *, rounding_mode=None, out=None))]
    /// div(input, other, *, rounding_mode=None, out=None) -> Tensor
    ///
    /// Divides ``input`` by ``other`` elementwise: true division (integer inputs give a float
    /// result), or with ``rounding_mode`` ``'trunc'`` / ``'floor'`` the rounded quotient in the
    /// promoted dtype.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     other (Tensor or Number): the second operand.
    ///     rounding_mode (str, optional): None, ``'trunc'`` or ``'floor'``.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.div(ferric.tensor([7, -7]), 2)
    ///     tensor([ 3.5000, -3.5000])
    ///     >>> ferric.div(ferric.tensor([7, -7]), 2, rounding_mode='floor')
    ///     tensor([ 3, -4])
    fn div(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        rounding_mode: Option<&str>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if rounding_mode.is_none() {
            let b = need_varg("div", other)?;
            let r = vbinary(BinaryOp::Div, VA::V(&self.var()?), b.arg())?;
            return finish(py, "div", out, OutDtype::Cast, r);
        }
        // rounded quotients have a zero gradient (PyTorch's DivBackward2)
        let b = need_varg("div", other)?;
        let me = self.var()?;
        let (r, inputs) = match &b {
            VArg::V(v) => (
                div_mode(&self.t, Operand::T(&v.t), rounding_mode)?,
                vec![&me, v],
            ),
            VArg::S(s) => (div_mode(&self.t, Operand::S(*s), rounding_mode)?, vec![&me]),
        };
        let r = autograd::unary::zero_gradient("DivBackward2", r, &inputs)?;
        finish(py, "div", out, OutDtype::Cast, r)
    }
    #[pyo3(signature = (other, *, rounding_mode=None, out=None))]
    /// divide(input, other, *, rounding_mode=None, out=None) -> Tensor
    ///
    /// Alias for :func:`ferric.div`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     other (Tensor or Number): the second operand.
    ///     rounding_mode (str, optional): None, ``'trunc'`` or ``'floor'``.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.divide(ferric.tensor([1., 3.]), 2)
    ///     tensor([0.5000, 1.5000])
    fn divide(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        rounding_mode: Option<&str>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.div(py, other, rounding_mode, out)
    }
    #[pyo3(signature = (other, *, rounding_mode=None))]
    /// div_(other, *, rounding_mode=None) -> Tensor
    ///
    /// In-place version of :func:`ferric.div`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([5.0, -7.0])
    ///     >>> x.div_(2, rounding_mode='floor')
    ///     tensor([ 2., -4.])
    fn div_<'py>(
        slf: PyRef<'py, Self>,
        other: &Bound<'_, PyAny>,
        rounding_mode: Option<&str>,
    ) -> PyResult<PyRef<'py, Self>> {
        if rounding_mode.is_none() {
            let b = need_varg("div_", other)?;
            binary_inplace(&slf, BinaryOp::Div, &b)?;
            return Ok(slf);
        }
        let b = need_arg("div_", other)?;
        let r = div_mode(&slf.t, b.operand(), rounding_mode)?;
        if !can_cast(r.dtype(), slf.t.dtype()) {
            return Err(Error::runtime(
                "div_",
                format!(
                    "result type {} can't be cast to the desired output type {}",
                    r.dtype(),
                    slf.t.dtype()
                ),
            )
            .into());
        }
        inplace_with(
            &slf,
            "div_",
            false,
            |t| t.copy_from(&r),
            |old| autograd::unary::constant_like(old, &r),
        )?;
        Ok(slf)
    }

    #[pyo3(signature = (min=None, max=None, *, out=None))]
    /// clamp(input, min=None, max=None, *, out=None) -> Tensor
    ///
    /// Clamps every element into ``[min, max]``; either bound may be omitted, and may be a tensor.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     min (Number or Tensor, optional): the lower bound.
    ///     max (Number or Tensor, optional): the upper bound.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.clamp(ferric.tensor([-2., 0.5, 3.]), min=-1, max=1)
    ///     tensor([-1.0000,  0.5000,  1.0000])
    fn clamp(
        &self,
        py: Python<'_>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let r = clamp_impl(&self.var()?, bound(min)?, bound(max)?)?;
        finish(py, "clamp", out, OutDtype::Found, r)
    }
    #[pyo3(signature = (min=None, max=None, *, out=None))]
    /// clip(input, min=None, max=None, *, out=None) -> Tensor
    ///
    /// Alias for :func:`ferric.clamp`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     min (Number or Tensor, optional): the lower bound.
    ///     max (Number or Tensor, optional): the upper bound.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.clip(ferric.tensor([-2., 3.]), -1, 1)
    ///     tensor([-1.,  1.])
    fn clip(
        &self,
        py: Python<'_>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.clamp(py, min, max, out)
    }
    #[pyo3(signature = (min=None, max=None))]
    /// clamp_(input, min=None, max=None) -> Tensor
    ///
    /// In-place version of :func:`ferric.clamp`.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     min (Number or Tensor, optional): the lower bound.
    ///     max (Number or Tensor, optional): the upper bound.
    ///
    /// Example:
    ///     >>> ferric.tensor([-2., 0.5, 3.]).clamp_(max=1)
    ///     tensor([-2.0000,  0.5000,  1.0000])
    fn clamp_<'py>(
        slf: PyRef<'py, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        let (lo, hi) = (bound(min)?, bound(max)?);
        if lo.is_none() && hi.is_none() {
            return Err(Error::runtime(
                "clamp_",
                "At least one of 'min' or 'max' must not be None",
            )
            .into());
        }
        let others = lo.as_ref().is_some_and(|a| a.requires_grad())
            || hi.as_ref().is_some_and(|a| a.requires_grad());
        let (la, ha) = (lo.as_ref().map(|a| a.arg()), hi.as_ref().map(|a| a.arg()));
        inplace_with(
            &slf,
            "clamp_",
            others,
            |t| {
                let v = autograd::unary::clamp(&Var::plain(t.clone()), la, ha)?;
                if !can_cast(v.t.dtype(), t.dtype()) {
                    return Err(Error::runtime(
                        "clamp_",
                        format!(
                            "result type {} can't be cast to the desired output type {}",
                            v.t.dtype(),
                            t.dtype()
                        ),
                    ));
                }
                t.copy_from(&v.t)
            },
            |old| autograd::unary::clamp(old, la, ha),
        )?;
        Ok(slf)
    }
    #[pyo3(signature = (min=None, max=None))]
    /// clip_(min=None, max=None) -> Tensor
    ///
    /// Alias for :meth:`Tensor.clamp_`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([-2.0, 0.5, 3.0])
    ///     >>> x.clip_(min=-1.0, max=1.0)
    ///     tensor([-1.0000,  0.5000,  1.0000])
    fn clip_<'py>(
        slf: PyRef<'py, Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRef<'py, Self>> {
        Self::clamp_(slf, min, max)
    }
    /// clamp_min(input, min) -> Tensor
    ///
    /// ``clamp(input, min=min)``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     min (Number or Tensor, optional): the lower bound.
    ///
    /// Example:
    ///     >>> ferric.clamp_min(ferric.tensor([-2., 3.]), 1)
    ///     tensor([1., 3.])
    fn clamp_min(&self, py: Python<'_>, min: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let lo = need_varg("clamp_min", min)?;
        let name = match lo {
            VArg::V(_) => "ClampMinBackward1",
            VArg::S(_) => "ClampMinBackward0",
        };
        wrap_var(
            py,
            autograd::unary::clamp_as(name, &self.var()?, Some(lo.arg()), None)?,
        )
    }
    /// clamp_max(input, max) -> Tensor
    ///
    /// ``clamp(input, max=max)``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     max (Number or Tensor, optional): the upper bound.
    ///
    /// Example:
    ///     >>> ferric.clamp_max(ferric.tensor([-2., 3.]), 1)
    ///     tensor([-2.,  1.])
    fn clamp_max(&self, py: Python<'_>, max: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let hi = need_varg("clamp_max", max)?;
        let name = match hi {
            VArg::V(_) => "ClampMaxBackward1",
            VArg::S(_) => "ClampMaxBackward0",
        };
        wrap_var(
            py,
            autograd::unary::clamp_as(name, &self.var()?, None, Some(hi.arg()))?,
        )
    }

    #[pyo3(signature = (decimals=0))]
    /// round(input, *, decimals=0) -> Tensor
    ///
    /// Rounds each element to the nearest integer (or to ``decimals`` decimal places), halves to
    /// even.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     decimals (int): the number of decimal places to round to; negative rounds to the left of
    ///         the point.
    ///
    /// Example:
    ///     >>> ferric.round(ferric.tensor([0.5, 1.5, 2.567]))
    ///     tensor([0., 2., 3.])
    ///     >>> ferric.round(ferric.tensor([2.567]), decimals=2)
    ///     tensor([2.5700])
    pub(crate) fn round(&self, py: Python<'_>, decimals: i64) -> PyResult<Py<PyTensor>> {
        let v = self.var()?;
        let r = round_impl(&self.t, decimals)?;
        wrap_var(
            py,
            autograd::unary::zero_gradient(round_node(decimals), r, &[&v])?,
        )
    }
    #[pyo3(signature = (decimals=0))]
    /// round_(decimals=0) -> Tensor
    ///
    /// In-place version of :func:`ferric.round`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1.2345, -2.5, 0.5])
    ///     >>> x.round_(decimals=2)
    ///     tensor([ 1.2300, -2.5000,  0.5000])
    fn round_<'py>(slf: PyRef<'py, Self>, decimals: i64) -> PyResult<PyRef<'py, Self>> {
        slf.t.check_writable("round_")?;
        let r = round_impl(&slf.t, decimals)?;
        inplace_with(
            &slf,
            "round_",
            false,
            |t| t.copy_from(&r),
            |old| autograd::unary::zero_gradient(round_node(decimals), r.clone(), &[old]),
        )?;
        Ok(slf)
    }

    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    /// nan_to_num(input, nan=0.0, posinf=None, neginf=None) -> Tensor
    ///
    /// Replaces NaN, +inf and -inf by finite values.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     nan (float): the value replacing NaN; default 0.
    ///     posinf (float, optional): the value replacing +inf; default the dtype's largest value.
    ///     neginf (float, optional): the value replacing -inf; default the dtype's lowest value.
    ///
    /// Example:
    ///     >>> ferric.nan_to_num(ferric.tensor([float('nan'), float('inf'), -1.0]), posinf=9.0)
    ///     tensor([ 0.,  9., -1.])
    pub(crate) fn nan_to_num(
        &self,
        py: Python<'_>,
        nan: f64,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> PyResult<Py<PyTensor>> {
        let x = self.var()?;
        let out = nan_to_num_impl(&x.t, nan, posinf, neginf)?;
        wrap_var(py, autograd::unary::nan_to_num(&x, out)?)
    }
    #[pyo3(signature = (nan=0.0, posinf=None, neginf=None))]
    /// nan_to_num_(nan=0.0, posinf=None, neginf=None) -> Tensor
    ///
    /// In-place version of :func:`ferric.nan_to_num`.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([float('nan'), float('inf'), -float('inf'), 1.0])
    ///     >>> x.nan_to_num_(nan=0.0, posinf=9.0, neginf=-9.0)
    ///     tensor([ 0.,  9., -9.,  1.])
    fn nan_to_num_<'py>(
        slf: PyRef<'py, Self>,
        nan: f64,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> PyResult<PyRef<'py, Self>> {
        inplace_with(
            &slf,
            "nan_to_num_",
            false,
            |t| {
                let r = nan_to_num_impl(t, nan, posinf, neginf)?;
                t.copy_from(&r)
            },
            |old| {
                let r = nan_to_num_impl(&old.t, nan, posinf, neginf)?;
                autograd::unary::nan_to_num(old, r)
            },
        )?;
        Ok(slf)
    }

    /// zero_() -> Tensor
    ///
    /// Fills the tensor with zeros in place.
    ///
    /// Example:
    ///     >>> ferric.ones(3).zero_()
    ///     tensor([0., 0., 0.])
    fn zero_(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        fill_scalar(&slf, Scalar::Int(0), "zero_")?;
        Ok(slf)
    }
    /// fill_(value) -> Tensor
    ///
    /// Fills the tensor with ``value`` in place.
    ///
    /// Args:
    ///     value (Number or 0-d Tensor): the value to write.
    ///
    /// Example:
    ///     >>> ferric.zeros(3).fill_(7)
    ///     tensor([7., 7., 7.])
    fn fill_<'py>(slf: PyRef<'py, Self>, value: &Bound<'_, PyAny>) -> PyResult<PyRef<'py, Self>> {
        let v = match arg(value)? {
            None if value.is_instance_of::<pyo3::types::PyInt>() => {
                // an int beyond int64: fine for floating-point tensors, else PyTorch's error
                if !slf.t.dtype().is_float() {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                        "value cannot be converted to type {} without overflow",
                        if slf.t.dtype() == DType::Bool { "bool" } else { "int64_t" }
                    )));
                }
                Scalar::Float(value.extract::<f64>()?)
            }
            Some(Arg::S(s)) => s,
            Some(Arg::T(t)) if t.ndim() == 0 => {
                // unlike a number, a tensor value may not be written to an expanded tensor
                slf.t.check_writable("fill_")?;
                t.item()?
            }
            Some(Arg::T(t)) => {
                return Err(Error::runtime(
                    "fill_",
                    format!("fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.", t.ndim()),
                )
                .into())
            }
            None => return Err(PyTypeError::new_err(format!("fill_(): argument 'value' must be Number, not {}", type_name(value)))),
        };
        fill_scalar(&slf, v, "fill_")?;
        Ok(slf)
    }
    #[pyo3(signature = (src, non_blocking=false))]
    /// copy_(src, non_blocking=False) -> Tensor
    ///
    /// Copies the elements of ``src`` (broadcast, converted to this dtype) into the tensor and
    /// returns it.
    ///
    /// Args:
    ///     src (Tensor): the tensor to take the values from.
    ///     non_blocking (bool): accepted for compatibility; the copy is always synchronous.
    ///
    /// Example:
    ///     >>> x = ferric.zeros(2, 2)
    ///     >>> x.copy_(ferric.tensor([1, 2]))
    ///     tensor([[1., 2.],
    ///             [1., 2.]])
    fn copy_<'py>(
        slf: PyRef<'py, Self>,
        src: &Bound<'_, PyAny>,
        non_blocking: bool,
    ) -> PyResult<PyRef<'py, Self>> {
        let _ = non_blocking;
        let s = match need_varg("copy_", src)? {
            VArg::V(v) => v,
            VArg::S(s) => Var::plain(Tensor::scalar(s, s.dtype())),
        };
        inplace_with(
            &slf,
            "copy_",
            s.requires_grad(),
            |t| t.copy_from(&s.t),
            |old| autograd::unary::copy_into(old, &s),
        )?;
        Ok(slf)
    }
}

/// `a.add(b, alpha=...)` / `a.sub(...)`: the result dtype is that of `a op b`; alpha only
/// scales `b` (so bool + bool with alpha=2 stays bool, as in PyTorch).
fn add_sub(
    a: &PyTensor,
    op: BinaryOp,
    other: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
) -> PyResult<Var> {
    let x = a.var()?;
    let raw_b = need_varg(op.name(), other)?;
    let rt = crate::ops::binary::result_type(
        &Operand::T(&x.t),
        &match &raw_b {
            VArg::V(v) => Operand::T(&v.t),
            VArg::S(s) => Operand::S(*s),
        },
    );
    // the dtype checks of plain add/sub apply before alpha scales the operand
    crate::ops::binary::check_dtypes(
        op,
        &Operand::T(&x.t),
        &match &raw_b {
            VArg::V(v) => Operand::T(&v.t),
            VArg::S(s) => Operand::S(*s),
        },
    )?;
    let b = scaled(op.name(), other, alpha, rt)?;
    let r = vbinary(op, VA::V(&x), b.arg())?;
    Ok(autograd::unary::to_dtype(&r, rt)?)
}

/// In-place binary op on an already converted operand (add_ with alpha, div_).
fn binary_inplace(slf: &PyTensor, op: BinaryOp, b: &VArg) -> PyResult<()> {
    let name = format!("{}_", op.name());
    if op.kind() == crate::ops::binary::Kind::Logical {
        return nondifferentiable_inplace(slf, |t| match b {
            VArg::V(v) => binary_(op, t, Operand::T(&v.t)),
            VArg::S(s) => binary_(op, t, Operand::S(*s)),
        });
    }
    inplace_with(
        slf,
        &name,
        b.requires_grad(),
        |t| match b {
            VArg::V(v) => binary_(op, t, Operand::T(&v.t)),
            VArg::S(s) => binary_(op, t, Operand::S(*s)),
        },
        |old| vbinary(op, VA::V(old), b.arg()),
    )
}

fn fill_scalar(slf: &PyTensor, v: Scalar, name: &str) -> PyResult<()> {
    inplace_with(
        slf,
        name,
        false,
        |t| t.fill(v),
        |old| {
            let filled = Tensor::full(name, old.t.shape(), v, old.t.dtype())?;
            // PyTorch's entries: zero_ and fill_.Scalar (the third fill overload)
            let node = if name == "zero_" {
                "ZeroBackward0"
            } else {
                "FillBackward2"
            };
            autograd::unary::zero_gradient(node, filled, &[old])
        },
    )
}

/// PyTorch's node for `round` (`RoundBackward1` when rounding to decimals).
fn round_node(decimals: i64) -> &'static str {
    if decimals == 0 {
        "RoundBackward0"
    } else {
        "RoundBackward1"
    }
}

fn round_impl(t: &Tensor, decimals: i64) -> PyResult<Tensor> {
    if decimals == 0 {
        return Ok(unary(UnaryOp::Round, t)?);
    }
    if !t.dtype().is_float() {
        // PyTorch rounds integers only without decimals
        return Err(Error::dtype_not_implemented("round_cpu", t.dtype()).into());
    }
    // PyTorch: round(x * 10^d) / 10^d (with the inverse for negative d)
    let d = decimals.unsigned_abs() as i32;
    let (s32, s64) = (10f32.powi(d), 10f64.powi(d));
    let neg = decimals < 0;
    Ok(map_float(
        "round",
        t,
        move |x| {
            if neg {
                (x / s32).round_ties_even() * s32
            } else {
                (x * s32).round_ties_even() / s32
            }
        },
        move |x| {
            if neg {
                (x / s64).round_ties_even() * s64
            } else {
                (x * s64).round_ties_even() / s64
            }
        },
    )?)
}

fn nan_to_num_impl(
    t: &Tensor,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
) -> crate::error::Result<Tensor> {
    if !t.dtype().is_float() {
        return t.copy_as(t.dtype());
    }
    let (p32, n32) = (
        posinf.map_or(f32::MAX, |v| v as f32),
        neginf.map_or(f32::MIN, |v| v as f32),
    );
    let (p64, n64) = (posinf.unwrap_or(f64::MAX), neginf.unwrap_or(f64::MIN));
    let nan32 = nan as f32;
    map_float(
        "nan_to_num",
        t,
        move |x| {
            if x.is_nan() {
                nan32
            } else if x == f32::INFINITY {
                p32
            } else if x == f32::NEG_INFINITY {
                n32
            } else {
                x
            }
        },
        move |x| {
            if x.is_nan() {
                nan
            } else if x == f64::INFINITY {
                p64
            } else if x == f64::NEG_INFINITY {
                n64
            } else {
                x
            }
        },
    )
}

/// pow(input, exponent) -> Tensor
///
/// Raises each element of ``input`` to the power ``exponent`` (broadcast); ``input`` may be a
/// Python number when ``exponent`` is a tensor.
///
/// Args:
///     input (Tensor or Number): the base.
///     exponent (Tensor or Number): the exponent.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> x = ferric.tensor([1.0, 2.0, 3.0])
///     >>> ferric.pow(x, 2)
///     tensor([1., 4., 9.])
///     >>> ferric.pow(x, ferric.tensor([0.0, 1.0, 2.0]))
///     tensor([1., 2., 9.])
///     >>> ferric.pow(2, x)
///     tensor([2., 4., 8.])
#[pyfunction]
#[pyo3(signature = (input, exponent, *, out=None))]
fn pow(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    exponent: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let a = need_varg("pow", input)?;
    let b = need_varg("pow", exponent)?;
    if let (VArg::S(_), VArg::S(_)) = (&a, &b) {
        return Err(PyTypeError::new_err(
            "pow(): at least one of 'input' and 'exponent' must be a Tensor",
        ));
    }
    let r = vbinary(BinaryOp::Pow, a.arg(), b.arg())?;
    finish(py, "pow", out, OutDtype::Cast, r)
}

#[pyfunction]
#[pyo3(signature = (input, approximate="none"))]
/// gelu(input, approximate='none') -> Tensor
///
/// Gaussian error linear unit ``x * Phi(x)``, or its tanh approximation with
/// ``approximate='tanh'``. See :class:`ferric.nn.GELU`.
///
/// Args:
///     input (Tensor): the input tensor.
///     approximate (str): ``'none'`` or ``'tanh'``.
///
/// Example:
///     >>> ferric.gelu(ferric.tensor([-1., 0., 2.]))
///     tensor([-0.1587,  0.0000,  1.9545])
fn gelu(py: Python<'_>, input: PyRef<'_, PyTensor>, approximate: &str) -> PyResult<Py<PyTensor>> {
    let op = match approximate {
        "none" => UnaryOp::Gelu,
        "tanh" => UnaryOp::GeluTanh,
        _ => {
            return Err(
                Error::runtime("", "approximate argument must be either none or tanh.").into(),
            )
        }
    };
    wrap_var(py, autograd::pointwise::unary(op, &input.var()?)?)
}

#[pyfunction]
/// silu(input) -> Tensor
///
/// Sigmoid linear unit ``x * sigmoid(x)``. See :class:`ferric.nn.SiLU`.
///
/// Args:
///     input (Tensor): the input tensor.
///
/// Example:
///     >>> ferric.silu(ferric.tensor([-1., 0., 2.]))
///     tensor([-0.2689,  0.0000,  1.7616])
fn silu(py: Python<'_>, input: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    wrap_var(
        py,
        autograd::pointwise::unary(UnaryOp::Silu, &input.var()?)?,
    )
}

#[pyfunction]
/// mish(input) -> Tensor
///
/// Mish activation ``x * tanh(softplus(x))``. See :class:`ferric.nn.Mish`.
///
/// Args:
///     input (Tensor): the input tensor.
///
/// Example:
///     >>> ferric.mish(ferric.tensor([-1., 0., 2.]))
///     tensor([-0.3034,  0.0000,  1.9440])
fn mish(py: Python<'_>, input: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    wrap_var(
        py,
        autograd::pointwise::unary(UnaryOp::Mish, &input.var()?)?,
    )
}

#[pyfunction]
/// logsigmoid(input) -> Tensor
///
/// ``log(sigmoid(x))`` of each element, without overflow. See :class:`ferric.nn.LogSigmoid`.
///
/// Args:
///     input (Tensor): the input tensor.
///
/// Example:
///     >>> ferric.logsigmoid(ferric.tensor([-1., 0., 2.]))
///     tensor([-1.3133, -0.6931, -0.1269])
fn logsigmoid(py: Python<'_>, input: PyRef<'_, PyTensor>) -> PyResult<Py<PyTensor>> {
    wrap_var(
        py,
        autograd::pointwise::unary(UnaryOp::LogSigmoid, &input.var()?)?,
    )
}

#[pyfunction]
#[pyo3(signature = (input, beta=1.0, threshold=20.0))]
/// softplus(input, beta=1.0, threshold=20.0) -> Tensor
///
/// ``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``. See
/// :class:`ferric.nn.Softplus`.
///
/// Args:
///     input (Tensor): the input tensor.
///     beta (float): the sharpness.
///     threshold (float): where to switch to the identity.
///
/// Example:
///     >>> ferric.softplus(ferric.tensor([-1., 0., 2.]))
///     tensor([0.3133, 0.6931, 2.1269])
fn softplus(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    beta: f64,
    threshold: f64,
) -> PyResult<Py<PyTensor>> {
    wrap_var(
        py,
        autograd::pointwise::softplus(&input.var()?, beta, threshold)?,
    )
}

#[pyfunction]
#[pyo3(signature = (input, negative_slope=0.01))]
/// leaky_relu(input, negative_slope=0.01) -> Tensor
///
/// ``x`` for positive ``x``, ``negative_slope * x`` otherwise. See :class:`ferric.nn.LeakyReLU`.
///
/// Args:
///     input (Tensor): the input tensor.
///     negative_slope (float): the slope of the negative part.
///
/// Example:
///     >>> ferric.leaky_relu(ferric.tensor([-1., 2.]), 0.1)
///     tensor([-0.1000,  2.0000])
fn leaky_relu(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    negative_slope: f64,
) -> PyResult<Py<PyTensor>> {
    wrap_var(
        py,
        autograd::unary::leaky_relu(&input.var()?, negative_slope)?,
    )
}

#[pyfunction]
#[pyo3(signature = (input, alpha=1.0))]
/// elu(input, alpha=1.0) -> Tensor
///
/// Exponential linear unit: ``x`` for positive ``x``, ``alpha * (exp(x) - 1)`` otherwise. See
/// :class:`ferric.nn.ELU`.
///
/// Args:
///     input (Tensor): the input tensor.
///     alpha (float): the scale of the negative part.
///
/// Example:
///     >>> ferric.elu(ferric.tensor([-1., 0., 2.]))
///     tensor([-0.6321,  0.0000,  2.0000])
fn elu(py: Python<'_>, input: PyRef<'_, PyTensor>, alpha: f64) -> PyResult<Py<PyTensor>> {
    wrap_var(py, autograd::unary::elu(&input.var()?, alpha)?)
}

/// result_type(tensor1, tensor2) -> dtype
///
/// Returns the dtype an arithmetic operation on the two operands produces, by PyTorch's
/// promotion rules (a Python number counts less than a tensor of its kind).
///
/// Args:
///     tensor1 (Tensor or Number): the first operand.
///     tensor2 (Tensor or Number): the second operand.
///
/// Example:
///     >>> ferric.result_type(ferric.tensor([1, 2]), 1.0)
///     ferric.float32
///     >>> ferric.result_type(ferric.tensor([1.0], dtype=ferric.float16), ferric.tensor([1.0]))
///     ferric.float32
#[pyfunction]
fn result_type(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<crate::python::convert::PyDType> {
    let (x, y) = (need_arg("result_type", a)?, need_arg("result_type", b)?);
    Ok(crate::python::convert::PyDType {
        d: crate::ops::binary::result_type(&x.operand(), &y.operand()),
    })
}

#[pyfunction]
/// promote_types(type1, type2) -> dtype
///
/// The smallest dtype both ``type1`` and ``type2`` convert to without losing range, by PyTorch's
/// promotion rules.
///
/// Args:
///     type1 (:class:`ferric.dtype`): the first dtype.
///     type2 (:class:`ferric.dtype`): the second dtype.
///
/// Example:
///     >>> ferric.promote_types(ferric.int32, ferric.float32)
///     ferric.float32
fn promote_types(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<crate::python::convert::PyDType> {
    let (x, y) = (
        crate::python::convert::dtype_arg(a)?,
        crate::python::convert::dtype_arg(b)?,
    );
    Ok(crate::python::convert::PyDType { d: x.promote(y) })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            pow,
            gelu,
            silu,
            mish,
            logsigmoid,
            softplus,
            leaky_relu,
            elu,
            result_type,
            promote_types,
            _op_table
        ]
    )?;
    unary_fns::register(m)?;
    // torch.relu has no out= overload: the function is the method
    crate::python::tensor::alias_methods(m, &["relu"])?;
    crate::python::tensor::alias_methods(m, &unary_function_names())?;
    crate::python::tensor::alias_methods(m, &binary_function_names())?;
    crate::python::tensor::alias_methods(
        m,
        &[
            "add",
            "sub",
            "subtract",
            "div",
            "divide",
            "logical_not",
            "bitwise_not",
            "clamp",
            "clip",
            "clamp_min",
            "clamp_max",
            "round",
            "nan_to_num",
            "clamp_",
        ],
    )?;
    Ok(())
}
