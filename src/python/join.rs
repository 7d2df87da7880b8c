//! Bindings for joining (`cat`, `stack`, ...), `pad` and the shape-copy ops (`flip`,
//! `roll`, `repeat`, `tile`, `repeat_interleave`, `tril`/`triu`, diagonals).

use crate::autograd::join as aj;
use crate::autograd::Var;
use crate::dtype::Scalar;
use crate::ops::join::repeat::{repeat_interleave_index, Repeats};
use crate::ops::join::PadMode;
use crate::python::arith::inplace_with;
use crate::python::convert::{index_int, int_list, scalar_arg, size_args, type_name};
use crate::python::out::{finish, finish_tensor, OutDtype};
use crate::python::tensor::{as_tensor_ref, wrap, wrap_var, PyTensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyTuple};

/// A sequence of tensors (`cat`, `stack`, ...), with PyTorch's TypeError for other items.
fn tensor_list(op: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<Var>> {
    if as_tensor_ref(obj).is_some() || obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
            type_name(obj)
        )));
    }
    let iter = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
            type_name(obj)
        ))
    })?;
    iter.enumerate()
        .map(|(i, o)| {
            let o = o?;
            match o.cast::<PyTensor>() {
                Ok(t) => t.borrow().var(),
                Err(_) => Err(PyTypeError::new_err(format!(
                    "expected Tensor as element {i} in argument 0, but got {}",
                    type_name(&o)
                ))),
            }
        })
        .collect()
}

/// Ints given as `*args` or as one keyword sequence (`x.flip(0, 1)`, `x.flip(dims=(0, 1))`).
fn dims_or_args(
    args: &Bound<'_, PyTuple>,
    kw: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Vec<i64>> {
    match kw {
        Some(k) if args.is_empty() => int_list(k, what),
        Some(_) => Err(PyTypeError::new_err(format!(
            "{what} given both positionally and as a keyword"
        ))),
        None => size_args(args),
    }
}

/// `hstack`, `vstack`, `dstack` and `column_stack`: one binding shape (a sequence of
/// tensors and `out=`); each call gives the docstring, the name and the autograd op.
macro_rules! stack_binding {
    ($(#[$doc:meta])* $name:ident, $join:path) => {
        #[pyfunction]
        #[pyo3(signature = (tensors, *, out=None))]
        $(#[$doc])*
        fn $name(
            py: Python<'_>,
            tensors: &Bound<'_, PyAny>,
            out: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            let op = stringify!($name);
            let r = $join(&tensor_list(op, tensors)?)?;
            finish(py, op, out, OutDtype::Cat, r)
        }
    };
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=None, *, axis=None, out=None))]
/// cat(tensors, dim=0, *, axis=None, out=None) -> Tensor
///
/// Concatenates ``tensors`` along the existing dimension ``dim``; they must match in every other
/// dimension (1-D empty tensors are skipped). ``concat`` and ``concatenate`` are the same function.
///
/// Args:
///     tensors (sequence of Tensors): the tensors to join.
///     dim (int): the dimension to join along.
///     axis (int, optional): NumPy's name for ``dim``.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.cat([ferric.ones(1, 2), ferric.zeros(1, 2)])
///     tensor([[1., 1.],
///             [0., 0.]])
fn cat(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let dim = join_dim("cat", dim, axis)?;
    let r = aj::cat(&tensor_list("cat", tensors)?, dim)?;
    finish(py, "cat", out, OutDtype::Cat, r)
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=None, *, axis=None, out=None))]
/// stack(tensors, dim=0, *, out=None) -> Tensor
///
/// Joins equally shaped tensors along a new dimension ``dim``.
///
/// Args:
///     tensors (sequence of Tensors): the tensors to join.
///     dim (int): the position of the new dimension.
///     out (Tensor, optional): the output tensor.
///
/// Example:
///     >>> ferric.stack([ferric.tensor([1, 2]), ferric.tensor([3, 4])], dim=1)
///     tensor([[1, 3],
///             [2, 4]])
fn stack(
    py: Python<'_>,
    tensors: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let dim = join_dim("stack", dim, axis)?;
    let r = aj::stack(&tensor_list("stack", tensors)?, dim)?;
    finish(py, "stack", out, OutDtype::Cat, r)
}

/// The `dim` (or its NumPy-style alias `axis`) of `cat`/`stack`: 0 when neither is given.
fn join_dim(
    op: &str,
    dim: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<i64> {
    match crate::python::reduce::dim_or_axis(op, dim, axis)? {
        Some(d) => index_int(d, "dim"),
        None => Ok(0),
    }
}

stack_binding! {
    /// hstack(tensors, *, out=None) -> Tensor
    ///
    /// Stacks tensors horizontally: along dimension 1, or 0 for 1-D tensors.
    ///
    /// Args:
    ///     tensors (sequence of Tensors): the tensors to join.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.hstack([ferric.tensor([1, 2]), ferric.tensor([3])])
    ///     tensor([1, 2, 3])
    hstack, aj::hstack
}

stack_binding! {
    /// vstack(tensors, *, out=None) -> Tensor
    ///
    /// Stacks tensors vertically (along dimension 0), after making them at least 2-D. ``row_stack`` is
    /// the same function.
    ///
    /// Args:
    ///     tensors (sequence of Tensors): the tensors to join.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.vstack([ferric.tensor([1, 2]), ferric.tensor([3, 4])])
    ///     tensor([[1, 2],
    ///             [3, 4]])
    vstack, aj::vstack
}

stack_binding! {
    /// dstack(tensors, *, out=None) -> Tensor
    ///
    /// Stacks tensors depthwise (along the third dimension), after making them at least 3-D.
    ///
    /// Args:
    ///     tensors (sequence of Tensors): the tensors to join.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.dstack([ferric.tensor([1, 2]), ferric.tensor([3, 4])])
    ///     tensor([[[1, 3],
    ///              [2, 4]]])
    dstack, aj::dstack
}

stack_binding! {
    /// column_stack(tensors, *, out=None) -> Tensor
    ///
    /// Stacks tensors horizontally as columns: 0-d and 1-D inputs become ``(n, 1)`` columns first.
    ///
    /// Args:
    ///     tensors (sequence of Tensors): the tensors to join.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.column_stack([ferric.tensor([1, 2]), ferric.tensor([3, 4])])
    ///     tensor([[1, 3],
    ///             [2, 4]])
    column_stack, aj::column_stack
}

/// pad(input, pad, mode='constant', value=None) -> Tensor
///
/// Pads ``input``: ``pad`` lists (before, after) amounts starting from the last dimension,
/// as :func:`ferric.nn.functional.pad`.
///
/// Args:
///     input (Tensor): the input tensor.
///     pad (tuple of ints): ``(left, right)`` for the last dimension, then the one before...
///     mode (str): ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'constant'``.
///     value (float, optional): the fill value of ``'constant'`` padding. Default: 0.
///
/// Example:
///     >>> x = ferric.tensor([[1.0, 2.0], [3.0, 4.0]])
///     >>> ferric.pad(x, (1, 0))
///     tensor([[0., 1., 2.],
///             [0., 3., 4.]])
///     >>> ferric.pad(x, (1, 1), mode='reflect')
///     tensor([[2., 1., 2., 1.],
///             [4., 3., 4., 3.]])
#[pyfunction]
#[pyo3(signature = (input, pad, mode="constant", value=None))]
fn pad(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    pad: &Bound<'_, PyAny>,
    mode: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyTensor>> {
    let pads = int_list(pad, "pad")?;
    let v: Option<Scalar> = match value {
        None => None,
        Some(o) if o.is_none() => None,
        Some(o) => Some(scalar_arg(o).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "pad(): argument 'value' must be float, not {}",
                type_name(o)
            ))
        })?),
    };
    wrap_var(py, aj::pad(&input.var()?, &pads, PadMode::parse(mode)?, v)?)
}

#[pymethods]
impl PyTensor {
    #[pyo3(signature = (*args, dims=None))]
    /// flip(input, dims) -> Tensor
    ///
    /// Reverses the order of the elements along ``dims`` (a copy, as in PyTorch).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dims (int or tuple of ints): the dimensions to flip.
    ///
    /// Example:
    ///     >>> ferric.flip(ferric.tensor([[1, 2], [3, 4]]), [0])
    ///     tensor([[3, 4],
    ///             [1, 2]])
    fn flip(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        dims: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        wrap_var(
            py,
            aj::flip(&self.var()?, &dims_or_args(args, dims, "dims")?)?,
        )
    }
    /// fliplr(input) -> Tensor
    ///
    /// Flips a tensor of at least 2 dimensions left to right (dimension 1).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.fliplr(ferric.tensor([[1, 2], [3, 4]]))
    ///     tensor([[2, 1],
    ///             [4, 3]])
    fn fliplr(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::fliplr(&self.var()?)?)
    }
    /// flipud(input) -> Tensor
    ///
    /// Flips a tensor of at least 1 dimension up to down (dimension 0).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///
    /// Example:
    ///     >>> ferric.flipud(ferric.tensor([[1, 2], [3, 4]]))
    ///     tensor([[3, 4],
    ///             [1, 2]])
    fn flipud(&self, py: Python<'_>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::flipud(&self.var()?)?)
    }

    #[pyo3(signature = (shifts, dims=None))]
    /// roll(input, shifts, dims=None) -> Tensor
    ///
    /// Shifts the elements cyclically along ``dims`` (the flattened tensor without ``dims``).
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     shifts (int or tuple of ints): how far to shift.
    ///     dims (int or tuple of ints, optional): the dimensions to roll.
    ///
    /// Example:
    ///     >>> ferric.roll(ferric.tensor([1, 2, 3, 4]), 1)
    ///     tensor([4, 1, 2, 3])
    fn roll(
        &self,
        py: Python<'_>,
        shifts: &Bound<'_, PyAny>,
        dims: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        let s = int_list(shifts, "shifts")?;
        let d = crate::python::convert::dims_arg(dims)?.unwrap_or_default();
        wrap_var(py, aj::roll(&self.var()?, &s, &d)?)
    }

    #[pyo3(signature = (*sizes))]
    /// repeat(*sizes) -> Tensor
    ///
    /// Tiles the tensor ``sizes[i]`` times along each dimension (``sizes`` may add leading
    /// dimensions).
    ///
    /// Args:
    ///     sizes (int...): the sizes, as separate ints or one sequence.
    ///
    /// Example:
    ///     >>> ferric.tensor([1, 2]).repeat(2, 2)
    ///     tensor([[1, 2, 1, 2],
    ///             [1, 2, 1, 2]])
    fn repeat(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::repeat(&self.var()?, &size_args(sizes)?)?)
    }

    #[pyo3(signature = (*args, dims=None))]
    /// tile(input, dims) -> Tensor
    ///
    /// Repeats ``input`` ``dims[i]`` times along each dimension; a short ``dims`` is padded with
    /// leading ones.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     dims (tuple of ints): the repetitions per dimension.
    ///
    /// Example:
    ///     >>> ferric.tile(ferric.tensor([1, 2]), (2,))
    ///     tensor([1, 2, 1, 2])
    fn tile(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        dims: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyTensor>> {
        wrap_var(
            py,
            aj::tile(&self.var()?, &dims_or_args(args, dims, "dims")?)?,
        )
    }

    /// repeat_interleave(input, repeats, dim=None) -> Tensor
    ///
    /// Repeats each element (or each slice along ``dim``) ``repeats`` times, next to each other.
    /// ``ferric.repeat_interleave(repeats)`` with one integer tensor returns the indices
    /// ``0, 1, ...`` each repeated as often as ``repeats`` says.
    ///
    /// Args:
    ///     input (Tensor): the input tensor (flattened when ``dim`` is None).
    ///     repeats (Tensor or int): the number of repeats, one for all or one per element.
    ///     dim (int, optional): the dimension to repeat along.
    ///
    /// Example:
    ///     >>> x = ferric.tensor([1, 2, 3])
    ///     >>> ferric.repeat_interleave(x, 2)
    ///     tensor([1, 1, 2, 2, 3, 3])
    ///     >>> ferric.repeat_interleave(ferric.tensor([[1, 2], [3, 4]]), ferric.tensor([1, 2]), dim=0)
    ///     tensor([[1, 2],
    ///             [3, 4],
    ///             [3, 4]])
    ///     >>> ferric.repeat_interleave(ferric.tensor([2, 1]))
    ///     tensor([0, 0, 1])
    #[pyo3(signature = (repeats=None, dim=None, *, output_size=None))]
    fn repeat_interleave(
        &self,
        py: Python<'_>,
        repeats: Option<&Bound<'_, PyAny>>,
        dim: Option<i64>,
        output_size: Option<i64>,
    ) -> PyResult<Py<PyTensor>> {
        let _ = output_size;
        let Some(repeats) = repeats else {
            return wrap(py, repeat_interleave_index(&self.t)?);
        };
        let r = if repeats.is_instance_of::<PyInt>() {
            Repeats::Int(repeats.extract()?)
        } else if let Some(t) = as_tensor_ref(repeats) {
            return wrap_var(
                py,
                aj::repeat_interleave(&self.var()?, Repeats::Tensor(&t), dim)?,
            );
        } else {
            return Err(PyTypeError::new_err(format!(
                "repeat_interleave(): argument 'repeats' must be Tensor or int, not {}",
                type_name(repeats)
            )));
        };
        wrap_var(py, aj::repeat_interleave(&self.var()?, r, dim)?)
    }

    #[pyo3(signature = (diagonal=0))]
    /// tril(input, diagonal=0) -> Tensor
    ///
    /// The lower triangle of the matrices in ``input`` (on and below ``diagonal``), zeros
    /// elsewhere.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     diagonal (int): which diagonal: 0 the main one, positive above it, negative below.
    ///
    /// Example:
    ///     >>> ferric.tril(ferric.ones(3, 3))
    ///     tensor([[1., 0., 0.],
    ///             [1., 1., 0.],
    ///             [1., 1., 1.]])
    fn tril(&self, py: Python<'_>, diagonal: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::tri(&self.var()?, true, diagonal)?)
    }
    #[pyo3(signature = (diagonal=0))]
    /// triu(input, diagonal=0) -> Tensor
    ///
    /// The upper triangle of the matrices in ``input`` (on and above ``diagonal``), zeros
    /// elsewhere.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     diagonal (int): which diagonal: 0 the main one, positive above it, negative below.
    ///
    /// Example:
    ///     >>> ferric.triu(ferric.ones(3, 3), 1)
    ///     tensor([[0., 1., 1.],
    ///             [0., 0., 1.],
    ///             [0., 0., 0.]])
    fn triu(&self, py: Python<'_>, diagonal: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::tri(&self.var()?, false, diagonal)?)
    }
    #[pyo3(signature = (diagonal=0))]
    /// tril_(diagonal=0) -> Tensor
    ///
    /// In-place version of :func:`ferric.tril`.
    ///
    /// Example:
    ///     >>> x = ferric.ones(3, 3)
    ///     >>> x.tril_()
    ///     tensor([[1., 0., 0.],
    ///             [1., 1., 0.],
    ///             [1., 1., 1.]])
    fn tril_(slf: PyRef<'_, Self>, diagonal: i64) -> PyResult<PyRef<'_, Self>> {
        inplace_with(
            &slf,
            "tril_",
            false,
            |t| t.tril_(diagonal),
            |old| aj::tri(old, true, diagonal),
        )?;
        Ok(slf)
    }
    #[pyo3(signature = (diagonal=0))]
    /// triu_(diagonal=0) -> Tensor
    ///
    /// In-place version of :func:`ferric.triu`.
    ///
    /// Example:
    ///     >>> x = ferric.ones(3, 3)
    ///     >>> x.triu_(diagonal=1)
    ///     tensor([[0., 1., 1.],
    ///             [0., 0., 1.],
    ///             [0., 0., 0.]])
    fn triu_(slf: PyRef<'_, Self>, diagonal: i64) -> PyResult<PyRef<'_, Self>> {
        inplace_with(
            &slf,
            "triu_",
            false,
            |t| t.triu_(diagonal),
            |old| aj::tri(old, false, diagonal),
        )?;
        Ok(slf)
    }

    #[pyo3(signature = (diagonal=0))]
    /// diag(input, diagonal=0) -> Tensor
    ///
    /// For a 1-D ``input``, the square matrix with ``input`` on a diagonal; for a 2-D one, that
    /// diagonal as a 1-D tensor.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     diagonal (int): which diagonal: 0 the main one, positive above it, negative below.
    ///
    /// Example:
    ///     >>> ferric.diag(ferric.tensor([1, 2]))
    ///     tensor([[1, 0],
    ///             [0, 2]])
    fn diag(&self, py: Python<'_>, diagonal: i64) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::diag(&self.var()?, diagonal)?)
    }
    #[pyo3(signature = (offset=0, dim1=0, dim2=1))]
    /// diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor
    ///
    /// Returns a view of a diagonal of the planes spanned by ``dim1`` and ``dim2``, as the last
    /// dimension.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     offset (int): which diagonal: 0 the main one, positive above it, negative below.
    ///     dim1 (int): the first dimension of the planes.
    ///     dim2 (int): the second dimension of the planes.
    ///
    /// Example:
    ///     >>> ferric.diagonal(ferric.arange(9).reshape(3, 3), 1)
    ///     tensor([1, 5])
    fn diagonal(
        &self,
        py: Python<'_>,
        offset: i64,
        dim1: i64,
        dim2: i64,
    ) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::diagonal(&self.var()?, offset, dim1, dim2)?)
    }
    #[pyo3(signature = (offset=0, dim1=-2, dim2=-1))]
    /// diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor
    ///
    /// Places the last dimension of ``input`` on a diagonal of new planes spanned by ``dim1`` and
    /// ``dim2``.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     offset (int): which diagonal: 0 the main one, positive above it, negative below.
    ///     dim1 (int): the first dimension of the planes.
    ///     dim2 (int): the second dimension of the planes.
    ///
    /// Example:
    ///     >>> ferric.diag_embed(ferric.tensor([[1, 2]]))
    ///     tensor([[[1, 0],
    ///              [0, 2]]])
    fn diag_embed(
        &self,
        py: Python<'_>,
        offset: i64,
        dim1: i64,
        dim2: i64,
    ) -> PyResult<Py<PyTensor>> {
        wrap_var(py, aj::diag_embed(&self.var()?, offset, dim1, dim2)?)
    }
}

/// The functions `tril`, `triu` and `diag` (the methods do not take `out=`): one binding
/// shape; each call gives the docstring, the Rust name, the Python name and the method.
macro_rules! diagonal_fn {
    ($(#[$doc:meta])* $fname:ident, $name:literal, $method:ident) => {
        #[pyfunction]
        #[pyo3(name = $name, signature = (input, diagonal=0, *, out=None))]
        $(#[$doc])*
        fn $fname(
            py: Python<'_>,
            input: PyRef<'_, PyTensor>,
            diagonal: i64,
            out: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            let r = input.$method(py, diagonal)?;
            finish_tensor(py, $name, out, OutDtype::Same, r)
        }
    };
}

diagonal_fn! {
    /// tril(input, diagonal=0, *, out=None) -> Tensor
    ///
    /// The lower triangle of the matrices in ``input`` (on and below ``diagonal``), zeros
    /// elsewhere.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     diagonal (int): which diagonal: 0 the main one, positive above it, negative below.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.tril(ferric.ones(3, 3))
    ///     tensor([[1., 0., 0.],
    ///             [1., 1., 0.],
    ///             [1., 1., 1.]])
    tril_fn, "tril", tril
}

diagonal_fn! {
    /// triu(input, diagonal=0, *, out=None) -> Tensor
    ///
    /// The upper triangle of the matrices in ``input`` (on and above ``diagonal``), zeros
    /// elsewhere.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     diagonal (int): which diagonal: 0 the main one, positive above it, negative below.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.triu(ferric.ones(3, 3), 1)
    ///     tensor([[0., 1., 1.],
    ///             [0., 0., 1.],
    ///             [0., 0., 0.]])
    triu_fn, "triu", triu
}

diagonal_fn! {
    /// diag(input, diagonal=0, *, out=None) -> Tensor
    ///
    /// For a 1-D ``input``, the square matrix with ``input`` on a diagonal; for a 2-D one, that
    /// diagonal as a 1-D tensor.
    ///
    /// Args:
    ///     input (Tensor): the input tensor.
    ///     diagonal (int): which diagonal: 0 the main one, positive above it, negative below.
    ///     out (Tensor, optional): the output tensor.
    ///
    /// Example:
    ///     >>> ferric.diag(ferric.tensor([1, 2]))
    ///     tensor([[1, 0],
    ///             [0, 2]])
    diag_fn, "diag", diag
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cat, m)?)?;
    m.add("concat", m.getattr("cat")?)?;
    m.add("concatenate", m.getattr("cat")?)?;
    add_functions!(m, [stack, hstack, vstack])?;
    m.add("row_stack", m.getattr("vstack")?)?;
    add_functions!(m, [dstack, column_stack, pad])?;
    crate::python::tensor::alias_methods(
        m,
        &[
            "flip",
            "fliplr",
            "flipud",
            "roll",
            "tile",
            "repeat_interleave",
            "diagonal",
            "diag_embed",
        ],
    )?;
    // the functions take out=, the methods do not (as PyTorch's)
    add_functions!(m, [tril_fn, triu_fn, diag_fn])
}
