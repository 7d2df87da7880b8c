//! Differentiable sorting and selection: values come from `ops::sort`'s kernels and
//! their gradient goes back to the positions the indices name (PyTorch's
//! `SortBackward0`, `TopkBackward0`, `KthvalueBackward0`, `MedianBackward1`, ...:
//! `value_selecting_reduction_backward`). The rule is a differentiable `scatter_add`
//! into zeros, so `create_graph=True` differentiates it again; the indices are
//! constants. `median()` without a dim shares the gradient among the elements equal to
//! the result, as `max()` does.

use super::reduce::record_evenly_distributed;
use super::{index, needs_grad, record, views, Saved, Var};
use crate::error::Result;
use crate::ops::sort as s;
use crate::shape::normalize_dim;
use crate::tensor::Tensor;

/// Records `vals` (selected from `x` along `dim` at `idx`) with a rule that scatters
/// the gradient back; `squeezed` says the selection dropped `dim` (keepdim=False).
fn selecting(
    name: &'static str,
    x: &Var,
    dim: i64,
    vals: Tensor,
    idx: &Tensor,
    squeezed: bool,
) -> Result<Var> {
    if !vals.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(Var::plain(vals));
    }
    let d = normalize_dim(dim, x.t.ndim())?;
    let shape: Vec<usize> = x.t.shape().to_vec();
    // the output's shape with dim d put back as size 1 (only when it was dropped)
    let kept: Option<Vec<i64>> = (squeezed && !shape.is_empty()).then(|| {
        let mut k: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        k[d] = 1;
        k
    });
    let si = Saved::output(idx);
    Ok(record(
        name,
        vals,
        &[x],
        true,
        Box::new(move |g, _| {
            let z = Var::plain(Tensor::zeros("backward", &shape, g[0].t.dtype())?);
            if z.t.numel() == 0 {
                return Ok(vec![Some(z)]);
            }
            let (mut idx, mut g) = (si.get(name)?.t, g[0].clone());
            if let Some(k) = &kept {
                idx = idx.reshape(k)?;
                g = views::reshape(&g, k)?;
            }
            Ok(vec![Some(index::scatter_add(&z, d as i64, &idx, &g)?)])
        }),
    ))
}

/// `x.sort(dim, descending, stable)`: (values, indices).
pub fn sort(x: &Var, dim: i64, descending: bool, stable: bool) -> Result<(Var, Tensor)> {
    let (v, i) = s::sort(&x.t, dim, descending, stable)?;
    Ok((selecting("SortBackward0", x, dim, v, &i, false)?, i))
}

/// `x.topk(k, dim, largest, sorted)`: (values, indices).
pub fn topk(x: &Var, k: i64, dim: i64, largest: bool, sorted: bool) -> Result<(Var, Tensor)> {
    let (v, i) = s::topk(&x.t, k, dim, largest, sorted)?;
    Ok((selecting("TopkBackward0", x, dim, v, &i, false)?, i))
}

/// `x.kthvalue(k, dim, keepdim)`.
pub fn kthvalue(x: &Var, k: i64, dim: i64, keepdim: bool) -> Result<(Var, Tensor)> {
    let (v, i) = s::kthvalue(&x.t, k, dim, keepdim)?;
    Ok((selecting("KthvalueBackward0", x, dim, v, &i, !keepdim)?, i))
}

/// `x.median(dim, keepdim)` (`nan` for nanmedian).
pub fn median_dim(x: &Var, dim: i64, keepdim: bool, nan: bool) -> Result<(Var, Tensor)> {
    let (v, i) = s::median_dim(&x.t, dim, keepdim, nan)?;
    let name = if nan {
        "NanmedianBackward1"
    } else {
        "MedianBackward1"
    };
    Ok((selecting(name, x, dim, v, &i, !keepdim)?, i))
}

/// `x.mode(dim, keepdim)`.
pub fn mode(x: &Var, dim: i64, keepdim: bool) -> Result<(Var, Tensor)> {
    let (v, i) = s::mode(&x.t, dim, keepdim)?;
    Ok((selecting("ModeBackward0", x, dim, v, &i, !keepdim)?, i))
}

/// `x.median()` / `x.nanmedian()`: a 0-d tensor; ties share the gradient.
pub fn median_all(x: &Var, nan: bool) -> Result<Var> {
    let out = s::median_all(&x.t, nan)?;
    if !out.dtype().is_float() || !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let name = if nan {
        "NanmedianBackward0"
    } else {
        "MedianBackward0"
    };
    Ok(record_evenly_distributed(name, x, out))
}
