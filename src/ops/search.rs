//! `unique` / `unique_consecutive` (flattened, `dim=None`), and `searchsorted` and
//! `bucketize` on `Tensor`: checks as PyTorch's
//! `searchsorted_pre_check`, promotion of boundaries and values to their common dtype,
//! then `kernels::sort::search` over contiguous copies (boundaries are small next to the
//! values in typical uses; the copy is skipped when already contiguous).

use crate::dtype::{DType, ResultType};
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::sort::search::search_rows;
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

const OP: &str = "torch.searchsorted()";

fn err(msg: impl std::fmt::Display) -> Error {
    Error::runtime("", format!("{OP}: {msg}"))
}

/// `torch.searchsorted(sorted_sequence, values, right=, sorter=)`: int64 positions with
/// the values' shape. `value_is_scalar` marks a Python number passed as `values`.
pub fn searchsorted(
    bnd: &Tensor,
    vals: &Tensor,
    right: bool,
    sorter: Option<&Tensor>,
    value_is_scalar: bool,
) -> Result<Tensor> {
    if bnd.ndim() == 0 {
        return Err(err(
            "boundaries tensor should have positive dimension, but got 0 dimension",
        ));
    }
    if value_is_scalar && bnd.ndim() != 1 {
        return Err(err(format!(
            "input value can be a scalar only when boundaries tensor dimension is 1, but we \
             got boundaries tensor dim({}) and input value's dim(0) numel(1)",
            bnd.ndim()
        )));
    }
    let lead_ok = bnd.ndim() == vals.ndim()
        && bnd.shape()[..bnd.ndim() - 1] == vals.shape()[..vals.ndim() - 1];
    if bnd.ndim() != 1 && !lead_ok {
        return Err(err(format!(
            "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries \
             tensor and input value tensor must match, but we got boundaries tensor {} and \
             input value tensor {}",
            fmt_shape(bnd.shape()),
            fmt_shape(vals.shape())
        )));
    }
    let sorter = match sorter {
        Some(s) => {
            if s.dtype() != DType::I64 {
                return Err(err(format!(
                    "sorter must be a tensor of long dtype but got dtype {}",
                    s.dtype().torch_name()
                )));
            }
            if s.shape() != bnd.shape() {
                return Err(err(format!(
                    "boundary and sorter must have the same size, but got boundary tensor {}\
                     and got sorter tensor {}",
                    fmt_shape(bnd.shape()),
                    fmt_shape(s.shape())
                )));
            }
            let m = bnd.shape()[bnd.ndim() - 1] as i64;
            let s = s.contiguous()?.to_vec::<i64>()?;
            if s.iter().any(|&i| i < 0 || i >= m) {
                return Err(err("sorter index out of range"));
            }
            Some(s)
        }
        None => None,
    };
    if bnd.dtype() == DType::Bool || vals.dtype() == DType::Bool {
        return Err(Error::dtype_not_implemented(
            "searchsorted_out_cpu",
            DType::Bool,
        ));
    }
    let dt = ResultType::default()
        .tensor(bnd.dtype(), bnd.ndim())
        .tensor(vals.dtype(), vals.ndim())
        .finish();
    let (b, v) = (
        bnd.to_dtype(dt)?.contiguous()?,
        vals.to_dtype(dt)?.contiguous()?,
    );
    let m = bnd.shape()[bnd.ndim() - 1];
    let n = vals.shape().last().copied().unwrap_or(1);
    let mut out = try_zeroed_vec::<i64>("searchsorted", vals.numel())?;
    crate::with_dtype!(dt, T, {
        // SAFETY: T is dt, the dtype of both contiguous copies.
        let (bs, vs) = unsafe { (b.data::<T>(), v.data::<T>()) };
        let (bs, vs) = (&bs[b.layout.offset..], &vs[v.layout.offset..]);
        search_rows(
            bs,
            m,
            vs,
            n,
            bnd.ndim() == 1,
            sorter.as_deref(),
            right,
            &mut out,
        );
    });
    Tensor::from_vec(out, vals.shape())
}

/// `torch.bucketize(input, boundaries, right=)`: boundaries must be 1-d.
pub fn bucketize(
    vals: &Tensor,
    bnd: &Tensor,
    right: bool,
    value_is_scalar: bool,
) -> Result<Tensor> {
    if bnd.ndim() != 1 {
        return Err(Error::runtime(
            "",
            format!(
                "boundaries tensor must be 1 dimension, but got dim({})",
                bnd.ndim()
            ),
        ));
    }
    searchsorted(bnd, vals, right, None, value_is_scalar)
}

/// `torch.unique(x, sorted, return_inverse, return_counts)` (`consecutive` for
/// `unique_consecutive`) with `dim=None`: (values, inverse with x's shape, counts). The
/// CPU result is sorted whether or not `sorted` is asked for, as in PyTorch.
pub fn unique(x: &Tensor, consecutive: bool) -> Result<(Tensor, Tensor, Tensor)> {
    if !x.dtype().is_compute() {
        let (v, i, c) = unique(&crate::ops::compute::input(x)?, consecutive)?;
        return Ok((crate::ops::compute::output(x.dtype(), v)?, i, c));
    }
    let flat = x.contiguous()?;
    let mut inverse = try_zeroed_vec::<i64>("unique", x.numel())?;
    let (vals, counts) = crate::with_compute_dtype!(
        x.dtype(),
        T,
        {
            // SAFETY: T is x's dtype; `flat` is contiguous from its offset.
            let src = unsafe { flat.data::<T>() };
            let src = &src[flat.layout.offset..flat.layout.offset + x.numel()];
            let (v, c) = crate::kernels::sort::unique::unique(src, consecutive, &mut inverse);
            let n = v.len();
            (Tensor::from_vec(v, &[n])?, Tensor::from_vec(c, &[n])?)
        },
        return Err(Error::runtime(
            "unique",
            "internal: no kernel for this dtype"
        ))
    );
    Ok((vals, Tensor::from_vec(inverse, x.shape())?, counts))
}
