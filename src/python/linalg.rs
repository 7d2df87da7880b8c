//! Bindings for the `torch.linalg` primitives, as private module functions
//! (`_core._linalg_det`, ...). `ferric/linalg.py` gives them PyTorch's public names,
//! signatures and named-tuple results, and builds the composed ops (norms, `pinv`,
//! `matrix_power`, ...) from them. Each binding converts its arguments and calls
//! `autograd::linalg`.

use crate::autograd::linalg as al;
use crate::autograd::Var;

use crate::ops::linalg::{parse_uplo, QrMode, Triangular};
use crate::python::tensor::{var_arg, wrap, wrap_var, PyTensor};
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type Any<'a, 'py> = &'a Bound<'py, PyAny>;

fn pair(py: Python<'_>, a: Var, b: Var) -> PyResult<Py<PyTuple>> {
    Ok(PyTuple::new(py, [wrap_var(py, a)?, wrap_var(py, b)?])?.unbind())
}

fn with_info(py: Python<'_>, a: Var, info: Tensor) -> PyResult<Py<PyTuple>> {
    Ok(PyTuple::new(py, [wrap_var(py, a)?, wrap(py, info)?])?.unbind())
}

#[pyfunction]
#[pyo3(name = "_linalg_det")]
fn det(py: Python<'_>, a: Any) -> PyResult<Py<PyTensor>> {
    wrap_var(py, al::det(&var_arg("linalg.det", "A", 1, a)?)?)
}

#[pyfunction]
#[pyo3(name = "_linalg_slogdet")]
fn slogdet(py: Python<'_>, a: Any) -> PyResult<Py<PyTuple>> {
    let (s, l) = al::slogdet(&var_arg("linalg.slogdet", "A", 1, a)?)?;
    pair(py, s, l)
}

#[pyfunction]
#[pyo3(name = "_linalg_inv_ex")]
fn inv_ex(py: Python<'_>, a: Any, check_errors: bool) -> PyResult<Py<PyTuple>> {
    let (x, info) = al::inv_ex(&var_arg("linalg.inv", "A", 1, a)?, check_errors)?;
    with_info(py, x, info)
}

#[pyfunction]
#[pyo3(name = "_linalg_solve_ex")]
fn solve_ex(
    py: Python<'_>,
    a: Any,
    b: Any,
    left: bool,
    check_errors: bool,
) -> PyResult<Py<PyTuple>> {
    let (a, b) = (
        var_arg("linalg.solve", "A", 1, a)?,
        var_arg("linalg.solve", "B", 2, b)?,
    );
    let (x, info) = al::solve_ex(&a, &b, left, check_errors)?;
    with_info(py, x, info)
}

#[pyfunction]
#[pyo3(name = "_linalg_cholesky_ex")]
fn cholesky_ex(py: Python<'_>, a: Any, upper: bool, check_errors: bool) -> PyResult<Py<PyTuple>> {
    let (l, info) = al::cholesky_ex(&var_arg("linalg.cholesky", "A", 1, a)?, upper, check_errors)?;
    with_info(py, l, info)
}

#[pyfunction]
#[pyo3(name = "_linalg_qr")]
fn qr(py: Python<'_>, a: Any, mode: &str) -> PyResult<Py<PyTuple>> {
    let mode = QrMode::parse(mode)?;
    let (q, r) = al::qr(&var_arg("linalg.qr", "A", 1, a)?, mode)?;
    pair(py, q, r)
}

#[pyfunction]
#[pyo3(name = "_linalg_svd")]
fn svd(py: Python<'_>, a: Any, full_matrices: bool) -> PyResult<Py<PyTuple>> {
    let (u, s, vh) = al::svd(&var_arg("linalg.svd", "A", 1, a)?, full_matrices)?;
    Ok(PyTuple::new(py, [wrap_var(py, u)?, wrap_var(py, s)?, wrap_var(py, vh)?])?.unbind())
}

#[pyfunction]
#[pyo3(name = "_linalg_svdvals")]
fn svdvals(py: Python<'_>, a: Any) -> PyResult<Py<PyTensor>> {
    wrap_var(py, al::svdvals(&var_arg("linalg.svdvals", "A", 1, a)?)?)
}

#[pyfunction]
#[pyo3(name = "_linalg_eigh")]
fn eigh(py: Python<'_>, a: Any, uplo: &str) -> PyResult<Py<PyTuple>> {
    let upper = parse_uplo(uplo)?;
    let (l, v) = al::eigh(&var_arg("linalg.eigh", "A", 1, a)?, upper)?;
    pair(py, l, v)
}

#[pyfunction]
#[pyo3(name = "_linalg_eigvalsh")]
fn eigvalsh(py: Python<'_>, a: Any, uplo: &str) -> PyResult<Py<PyTensor>> {
    let upper = parse_uplo(uplo)?;
    wrap_var(
        py,
        al::eigvalsh(&var_arg("linalg.eigvalsh", "A", 1, a)?, upper)?,
    )
}

#[pyfunction]
#[pyo3(name = "_linalg_solve_triangular")]
fn solve_triangular(
    py: Python<'_>,
    a: Any,
    b: Any,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> PyResult<Py<PyTensor>> {
    let op = "linalg.solve_triangular";
    let (a, b) = (var_arg(op, "A", 1, a)?, var_arg(op, "B", 2, b)?);
    let t = Triangular {
        upper,
        left,
        unit: unitriangular,
    };
    wrap_var(py, al::solve_triangular(&a, &b, t)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            det,
            slogdet,
            inv_ex,
            solve_ex,
            cholesky_ex,
            qr,
            svd,
            svdvals,
            eigh,
            eigvalsh,
            solve_triangular
        ]
    )
}
