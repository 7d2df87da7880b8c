//! Bindings for the matmul op family: `@`, `matmul`, `mm`, `bmm`, `mv`, `dot`, `outer`,
//! `addmm`, `baddbmm` (Tensor methods, also exposed as module functions), `einsum` and
//! `_linear` (behind `ferric.nn.functional.linear`).
//!
//! There is deliberately no `__imatmul__`: PyTorch has none either, so `a @= b` rebinds
//! `a` to a new tensor instead of writing in place.
//!
//! Every op is differentiable: the bindings hand `Var`s to `autograd::matmul`, which
//! runs the plain tensor op when no graph is needed.

use crate::autograd::matmul as ag;
use crate::autograd::Var;
use crate::dtype::Scalar;
use crate::python::autocast::lower;
use crate::python::convert::{scalar_arg, type_name};
use crate::python::out::{finish, OutDtype};
use crate::python::tensor::{var_arg, wrap_var, PyTensor};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The tensor (with its autograd state) behind a Python object, if it is a Tensor.
fn as_var(obj: &Bound<'_, PyAny>) -> PyResult<Option<Var>> {
    match obj.cast::<PyTensor>() {
        Ok(t) => Ok(Some(t.borrow().var()?)),
        Err(_) => Ok(None),
    }
}

fn scale_arg(op: &str, name: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Scalar> {
    match obj {
        None => Ok(Scalar::Int(1)),
        Some(o) => scalar_arg(o).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{op}(): argument '{name}' must be Number, not {}",
                type_name(o)
            ))
        }),
    }
}

#[pymethods]
impl PyTensor {
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match as_var(other)? {
            Some(o) => {
                let (a, b) = (lower(self.var()?)?, lower(o)?);
                Ok(wrap_var(py, ag::matmul(&a, &b)?)?.into_any())
            }
            None => Ok(py.NotImplemented()),
        }
    }

    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match as_var(other)? {
            Some(o) => {
                let (a, b) = (lower(o)?, lower(self.var()?)?);
                Ok(wrap_var(py, ag::matmul(&a, &b)?)?.into_any())
            }
            None => Ok(py.NotImplemented()),
        }
    }

    /// matmul(other) -> Tensor
    ///
    /// See :func:`ferric.matmul`.
    ///
    /// Example:
    ///     >>> a = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
    ///     >>> a.matmul(ferric.tensor([1.0, -1.0]))
    ///     tensor([-1., -1.])
    fn matmul(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = lower(var_arg("matmul", "other", 1, other)?)?;
        wrap_var(py, ag::matmul(&lower(self.var()?)?, &o)?)
    }

    /// mm(mat2) -> Tensor
    ///
    /// See :func:`ferric.mm`.
    ///
    /// Example:
    ///     >>> a = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
    ///     >>> a.mm(ferric.eye(2) * 2)
    ///     tensor([[2., 4.],
    ///             [6., 8.]])
    fn mm(&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = lower(var_arg("mm", "mat2", 1, mat2)?)?;
        wrap_var(py, ag::mm(&lower(self.var()?)?, &o)?)
    }

    /// bmm(mat2) -> Tensor
    ///
    /// See :func:`ferric.bmm`.
    ///
    /// Example:
    ///     >>> a = ferric.ones(2, 1, 3)
    ///     >>> a.bmm(ferric.ones(2, 3, 2)).shape
    ///     ferric.Size([2, 1, 2])
    fn bmm(&self, py: Python<'_>, mat2: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = lower(var_arg("bmm", "mat2", 1, mat2)?)?;
        wrap_var(py, ag::bmm(&lower(self.var()?)?, &o)?)
    }

    /// mv(vec) -> Tensor
    ///
    /// See :func:`ferric.mv`.
    ///
    /// Example:
    ///     >>> ferric.tensor([[1.0, 2.0], [3.0, 4.0]]).mv(ferric.tensor([1.0, 1.0]))
    ///     tensor([3., 7.])
    fn mv(&self, py: Python<'_>, vec: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = var_arg("mv", "vec", 1, vec)?;
        wrap_var(py, ag::mv(&self.var()?, &o)?)
    }

    /// dot(tensor) -> Tensor
    ///
    /// See :func:`ferric.dot`.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0, 2.0]).dot(ferric.tensor([3.0, 4.0]))
    ///     tensor(11.)
    fn dot(&self, py: Python<'_>, tensor: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = var_arg("dot", "tensor", 1, tensor)?;
        wrap_var(py, ag::dot(&self.var()?, &o)?)
    }

    /// vdot(other) -> Tensor
    ///
    /// See :func:`ferric.vdot`.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0, 2.0]).vdot(ferric.tensor([3.0, 4.0]))
    ///     tensor(11.)
    fn vdot(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = var_arg("vdot", "other", 1, other)?;
        wrap_var(py, ag::vdot(&self.var()?, &o)?)
    }

    /// outer(vec2) -> Tensor
    ///
    /// See :func:`ferric.outer`.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0, 2.0]).outer(ferric.tensor([1.0, 10.0, 100.0]))
    ///     tensor([[  1.,  10., 100.],
    ///             [  2.,  20., 200.]])
    fn outer(&self, py: Python<'_>, vec2: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = var_arg("outer", "vec2", 1, vec2)?;
        wrap_var(py, ag::outer(&self.var()?, &o)?)
    }

    /// ger(vec2) -> Tensor
    ///
    /// See :func:`ferric.outer`.
    ///
    /// Example:
    ///     >>> ferric.tensor([1.0, 2.0]).ger(ferric.tensor([1.0, 10.0, 100.0]))
    ///     tensor([[  1.,  10., 100.],
    ///             [  2.,  20., 200.]])
    fn ger(&self, py: Python<'_>, vec2: &Bound<'_, PyAny>) -> PyResult<Py<PyTensor>> {
        let o = var_arg("ger", "vec2", 1, vec2)?;
        wrap_var(py, ag::outer(&self.var()?, &o)?)
    }

    #[pyo3(signature = (mat1, mat2, *, beta=None, alpha=None))]
    /// addmm(mat1, mat2, *, beta=1, alpha=1) -> Tensor
    ///
    /// See :func:`ferric.addmm`.
    ///
    /// Example:
    ///     >>> m = ferric.ones(2, 2)
    ///     >>> m.addmm(ferric.eye(2), ferric.full((2, 2), 2.0), beta=0.5)
    ///     tensor([[2.5000, 2.5000],
    ///             [2.5000, 2.5000]])
    fn addmm(
        &self,
        py: Python<'_>,
        mat1: &Bound<'_, PyAny>,
        mat2: &Bound<'_, PyAny>,
        beta: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let m1 = var_arg("addmm", "mat1", 1, mat1)?;
        let m2 = var_arg("addmm", "mat2", 2, mat2)?;
        let (b, a) = (
            scale_arg("addmm", "beta", beta)?,
            scale_arg("addmm", "alpha", alpha)?,
        );
        let (i, m1, m2) = (lower(self.var()?)?, lower(m1)?, lower(m2)?);
        wrap_var(py, ag::addmm(&i, &m1, &m2, b, a)?)
    }

    #[pyo3(signature = (batch1, batch2, *, beta=None, alpha=None))]
    /// baddbmm(batch1, batch2, *, beta=1, alpha=1) -> Tensor
    ///
    /// See :func:`ferric.baddbmm`.
    ///
    /// Example:
    ///     >>> b = ferric.ones(1, 2, 2)
    ///     >>> b.baddbmm(b, b, alpha=2)
    ///     tensor([[[5., 5.],
    ///              [5., 5.]]])
    fn baddbmm(
        &self,
        py: Python<'_>,
        batch1: &Bound<'_, PyAny>,
        batch2: &Bound<'_, PyAny>,
        beta: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let b1 = var_arg("baddbmm", "batch1", 1, batch1)?;
        let b2 = var_arg("baddbmm", "batch2", 2, batch2)?;
        let (b, a) = (
            scale_arg("baddbmm", "beta", beta)?,
            scale_arg("baddbmm", "alpha", alpha)?,
        );
        let (i, b1, b2) = (lower(self.var()?)?, lower(b1)?, lower(b2)?);
        wrap_var(py, ag::baddbmm(&i, &b1, &b2, b, a)?)
    }
}

/// Converts einsum's sublist format (`einsum(a, [0, 1], b, [1, 2], [0, 2])`) to an
/// equation string; sublist integers map to letters `a..z` then `A..Z`, like PyTorch.
fn sublist_equation(args: &Bound<'_, PyTuple>) -> PyResult<(String, Vec<Var>)> {
    let letter = |v: &Bound<'_, PyAny>| -> PyResult<String> {
        if v.is(v.py().Ellipsis()) {
            return Ok("...".into());
        }
        let i: i64 = v.extract().map_err(|_| {
            PyTypeError::new_err("einsum(): expected a sublist of ints or Ellipsis")
        })?;
        match i {
            0..=25 => Ok(((b'a' + i as u8) as char).to_string()),
            26..=51 => Ok(((b'A' + (i - 26) as u8) as char).to_string()),
            _ => Err(PyValueError::new_err(format!(
                "einsum(): subscript in subscript list is not within the valid range [0, 52), got {i}"
            ))),
        }
    };
    let sub =
        |l: &Bound<'_, PyAny>| -> PyResult<String> { l.try_iter()?.map(|v| letter(&v?)).collect() };
    let items: Vec<Bound<'_, PyAny>> = args.iter().collect();
    let mut terms = Vec::new();
    let mut ops = Vec::new();
    let mut i = 0;
    while i + 1 < items.len() {
        let t = as_var(&items[i])?.ok_or_else(|| {
            PyTypeError::new_err("einsum(): operands must be tensors in the sublist format")
        })?;
        ops.push(t);
        terms.push(sub(&items[i + 1])?);
        i += 2;
    }
    let mut eq = terms.join(",");
    if i < items.len() {
        eq.push_str("->");
        eq.push_str(&sub(&items[i])?);
    }
    Ok((eq, ops))
}

/// einsum(equation, *operands) -> Tensor
///
/// Sums the product of the operands' elements over the indices the Einstein-summation
/// ``equation`` names (``'ij,jk->ik'`` is a matrix product); the operands may also be
/// given as one list or tuple.
///
/// Args:
///     equation (str): the subscripts of each operand, optionally ``->`` and the output's.
///     operands (Tensor...): the tensors to combine.
///
/// Example:
///     >>> a = ferric.arange(6.0).reshape(2, 3)
///     >>> b = ferric.arange(3.0)
///     >>> ferric.einsum('ij,j->i', a, b)
///     tensor([ 5., 14.])
///     >>> ferric.einsum('ij->ji', a)
///     tensor([[0., 3.],
///             [1., 4.],
///             [2., 5.]])
#[pyfunction]
#[pyo3(signature = (*args))]
fn einsum(py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
    if args.is_empty() {
        return Err(PyTypeError::new_err(
            "einsum(): must specify the equation string and at least one operand, or at least \
             one operand and its subscripts list",
        ));
    }
    let first = args.get_item(0)?;
    let (equation, ops) = if first.cast::<PyTensor>().is_ok() {
        sublist_equation(args)?
    } else {
        let eq: String = first.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "einsum(): argument 'equation' must be str, not {}",
                type_name(&first)
            ))
        })?;
        let rest: Vec<Bound<'_, PyAny>> = args.iter().skip(1).collect();
        let items: Vec<Bound<'_, PyAny>> = match rest.as_slice() {
            [one] if one.is_instance_of::<PyList>() || one.is_instance_of::<PyTuple>() => {
                one.try_iter()?.collect::<PyResult<_>>()?
            }
            _ => rest,
        };
        let ops = items
            .iter()
            .map(|o| {
                as_var(o)?.ok_or_else(|| {
                    PyTypeError::new_err(format!(
                        "einsum(): operands must be Tensors, not {}",
                        type_name(o)
                    ))
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        (eq, ops)
    };
    let ops = ops.into_iter().map(lower).collect::<PyResult<Vec<_>>>()?;
    wrap_var(py, ag::einsum(&equation, &ops)?)
}

/// Module-level forms (`ferric.mm(input, mat2)`): separate functions rather than method
/// aliases so keyword calls (`input=`) and argument positions in errors match PyTorch.
macro_rules! binary_functions {
    ($($fname:ident, $op:literal, $arg:literal, $method:ident, $doc:expr;)*) => {
        $(
            #[doc = $doc]
            #[pyfunction(name = $op)]
            #[pyo3(signature = (input, other, *, out=None))]
            fn $fname(
                py: Python<'_>,
                input: &Bound<'_, PyAny>,
                other: &Bound<'_, PyAny>,
                out: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let mut a = var_arg($op, "input", 1, input)?;
                let mut b = var_arg($op, $arg, 2, other)?;
                if matches!($op, "matmul" | "mm" | "bmm") {
                    // autocast's lower-precision list
                    (a, b) = (lower(a)?, lower(b)?);
                }
                finish(py, $op, out, OutDtype::Same, ag::$method(&a, &b)?)
            }
        )*
        fn register_binary(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(
                m.add_function(wrap_pyfunction!($fname, m)?)?;
            )*
            Ok(())
        }
    };
}

binary_functions! {
    fn_matmul, "matmul", "other", matmul,
    concat!(
        "matmul(input, other, *, out=None) -> Tensor\n",
        "\n",
        "Matrix product with NumPy's rules: dot product for 1-D by 1-D, matrix-vector and\n",
        "matrix-matrix products, and batched products with the batch dimensions broadcast. The ``@``\n",
        "operator.\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the input tensor.\n",
        "    other (Tensor): the second operand.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.matmul(ferric.tensor([[1., 2.], [3., 4.]]), ferric.tensor([1., 1.]))\n",
        "    tensor([3., 7.])"
    );
    fn_mm, "mm", "mat2", mm,
    concat!(
        "mm(input, mat2, *, out=None) -> Tensor\n",
        "\n",
        "Matrix product of a ``(n, m)`` and a ``(m, p)`` matrix. No broadcasting (see\n",
        ":func:`ferric.matmul`).\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the first matrix.\n",
        "    mat2 (Tensor): the second matrix, ``(m, p)``.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.mm(ferric.tensor([[1., 2.]]), ferric.tensor([[3.], [4.]]))\n",
        "    tensor([[11.]])"
    );
    fn_bmm, "bmm", "mat2", bmm,
    concat!(
        "bmm(input, mat2, *, out=None) -> Tensor\n",
        "\n",
        "Batched matrix product of ``(b, n, m)`` and ``(b, m, p)`` tensors: ``(b, n, p)``. No\n",
        "broadcasting (see :func:`ferric.matmul`).\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the first batch of matrices.\n",
        "    mat2 (Tensor): the second batch of matrices.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.bmm(ferric.ones(2, 1, 3), ferric.ones(2, 3, 1)).shape\n",
        "    ferric.Size([2, 1, 1])"
    );
    fn_mv, "mv", "vec", mv,
    concat!(
        "mv(input, vec, *, out=None) -> Tensor\n",
        "\n",
        "Matrix-vector product of a ``(n, m)`` matrix and a ``(m,)`` vector.\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the matrix.\n",
        "    vec (Tensor): the vector.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.mv(ferric.tensor([[1., 2.], [3., 4.]]), ferric.tensor([1., 1.]))\n",
        "    tensor([3., 7.])"
    );
    fn_dot, "dot", "tensor", dot,
    concat!(
        "dot(input, tensor, *, out=None) -> Tensor\n",
        "\n",
        "The dot product of two 1-D tensors of the same size and dtype, as a 0-d tensor.\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the input tensor.\n",
        "    tensor (Tensor): the second vector.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.dot(ferric.tensor([1., 2.]), ferric.tensor([3., 4.]))\n",
        "    tensor(11.)"
    );
    fn_vdot, "vdot", "other", vdot,
    concat!(
        "vdot(input, other, *, out=None) -> Tensor\n",
        "\n",
        "The dot product of two 1-D tensors (the first conjugated for complex inputs, which ferric\n",
        "does not have).\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the input tensor.\n",
        "    other (Tensor): the second vector.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.vdot(ferric.tensor([1., 2.]), ferric.tensor([3., 4.]))\n",
        "    tensor(11.)"
    );
    fn_outer, "outer", "vec2", outer,
    concat!(
        "outer(input, vec2, *, out=None) -> Tensor\n",
        "\n",
        "The outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]``.\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the first vector.\n",
        "    vec2 (Tensor): the second vector.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.outer(ferric.tensor([1, 2]), ferric.tensor([3, 4]))\n",
        "    tensor([[3, 4],\n",
        "            [6, 8]])"
    );
    fn_ger, "ger", "vec2", outer,
    concat!(
        "ger(input, vec2, *, out=None) -> Tensor\n",
        "\n",
        "Alias for :func:`ferric.outer`.\n",
        "\n",
        "Args:\n",
        "    input (Tensor): the input tensor.\n",
        "    vec2 (Tensor): the second vector.\n",
        "    out (Tensor, optional): the output tensor.\n",
        "\n",
        "Example:\n",
        "    >>> ferric.ger(ferric.tensor([1, 2]), ferric.tensor([3, 4]))\n",
        "    tensor([[3, 4],\n",
        "            [6, 8]])"
    );
}

/// addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor
///
/// Returns ``beta * input + alpha * (mat1 @ mat2)``; ``input`` is broadcast to the product's shape.
///
/// Args:
///     input (Tensor): the input tensor.
///     mat1 (Tensor): the first matrix, ``(n, m)``.
///     mat2 (Tensor): the second matrix, ``(m, p)``.
///     beta (Number): the multiplier for ``input``; default 1.
///     alpha (Number): the multiplier for ``other``; default 1.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.addmm(ferric.ones(2, 2), ferric.eye(2), ferric.full((2, 2), 3.0))
///     tensor([[4., 4.],
///             [4., 4.]])
#[pyfunction(name = "addmm")]
#[pyo3(signature = (input, mat1, mat2, *, beta=None, alpha=None, out=None))]
fn fn_addmm(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    mat1: &Bound<'_, PyAny>,
    mat2: &Bound<'_, PyAny>,
    beta: Option<&Bound<'_, PyAny>>,
    alpha: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let i = var_arg("addmm", "input", 1, input)?;
    let m1 = var_arg("addmm", "mat1", 2, mat1)?;
    let m2 = var_arg("addmm", "mat2", 3, mat2)?;
    let (b, a) = (
        scale_arg("addmm", "beta", beta)?,
        scale_arg("addmm", "alpha", alpha)?,
    );
    let (i, m1, m2) = (lower(i)?, lower(m1)?, lower(m2)?);
    finish(
        py,
        "addmm",
        out,
        OutDtype::Same,
        ag::addmm(&i, &m1, &m2, b, a)?,
    )
}

/// baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor
///
/// Returns ``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices; ``input`` is
/// broadcast to the product's shape.
///
/// Args:
///     input (Tensor): the input tensor.
///     batch1 (Tensor): the first batch of matrices, ``(b, n, m)``.
///     batch2 (Tensor): the second batch of matrices, ``(b, m, p)``.
///     beta (Number): the multiplier for ``input``; default 1.
///     alpha (Number): the multiplier for ``other``; default 1.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.baddbmm(ferric.zeros(1, 2, 2), ferric.ones(1, 2, 3), ferric.ones(1, 3, 2))
///     tensor([[[3., 3.],
///              [3., 3.]]])
#[pyfunction(name = "baddbmm")]
#[pyo3(signature = (input, batch1, batch2, *, beta=None, alpha=None, out=None))]
fn fn_baddbmm(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    batch1: &Bound<'_, PyAny>,
    batch2: &Bound<'_, PyAny>,
    beta: Option<&Bound<'_, PyAny>>,
    alpha: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let i = var_arg("baddbmm", "input", 1, input)?;
    let b1 = var_arg("baddbmm", "batch1", 2, batch1)?;
    let b2 = var_arg("baddbmm", "batch2", 3, batch2)?;
    let (b, a) = (
        scale_arg("baddbmm", "beta", beta)?,
        scale_arg("baddbmm", "alpha", alpha)?,
    );
    let (i, b1, b2) = (lower(i)?, lower(b1)?, lower(b2)?);
    finish(
        py,
        "baddbmm",
        out,
        OutDtype::Same,
        ag::baddbmm(&i, &b1, &b2, b, a)?,
    )
}

/// `torch.nn.functional.linear` (private in `_core`: PyTorch has no `torch.linear`;
/// `ferric.nn.functional.linear` is the public name).
#[pyfunction(name = "_linear")]
#[pyo3(signature = (input, weight, bias=None))]
fn fn_linear(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    weight: &Bound<'_, PyAny>,
    bias: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let x = var_arg("linear", "input", 1, input)?;
    let w = var_arg("linear", "weight", 2, weight)?;
    let b = match bias {
        Some(o) if !o.is_none() => Some(var_arg("linear", "bias", 3, o)?),
        _ => None,
    };
    let (x, w) = (lower(x)?, lower(w)?);
    let b = b.map(lower).transpose()?;
    wrap_var(py, ag::linear(&x, &w, b.as_ref())?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, [einsum, fn_addmm, fn_baddbmm, fn_linear])?;
    register_binary(m)
}
