//! Differentiable views and the `sum_to` / `expand` pair the engine uses for broadcasting.
//!
//! A view's backward either has a cheap closed form (reshape back, inverse permutation,
//! sum over expanded dims) or is the generic "scatter into zeros": create zeros shaped
//! like the input, take the same view of them and copy the gradient in.

use super::{needs_grad, record, Var, ViewInfo};
use crate::error::{Error, Result};
use crate::ops::indexing::IndexItem;
use crate::shape::Dims;
use crate::tensor::Tensor;
use std::rc::Rc;

/// Re-creates a view from a tensor shaped like the view's input.
pub type Replay = Rc<dyn Fn(&Tensor) -> Result<Tensor>>;

/// Sums `x` down to `shape` (the reverse of broadcasting `shape` up to `x.shape`).
pub fn sum_to(x: &Var, shape: &[usize]) -> Result<Var> {
    if x.t.shape() == shape {
        return Ok(x.clone());
    }
    let out = sum_to_raw(&x.t, shape)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let full: Dims = x.t.shape().into();
    Ok(record(
        "SumBackward1",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(expand(&g[0], &full)?)])),
    ))
}

fn sum_to_raw(x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    // One call into the reductions kernel (pairwise float sums, vectorised rows) over the
    // dims `shape` was broadcast along: the leading extra dims and the size-1 dims that
    // were stretched. Reduced with keepdim, so only the leading dims need reshaping away.
    let bad = || {
        Error::runtime(
            "sum_to",
            format!(
                "shape {} is not broadcastable to {}",
                crate::error::fmt_shape(shape),
                crate::error::fmt_shape(x.shape())
            ),
        )
    };
    let lead = x.ndim().checked_sub(shape.len()).ok_or_else(bad)?;
    let mut dims: Vec<i64> = (0..lead as i64).collect();
    for (i, (&want, &have)) in shape.iter().zip(&x.shape()[lead..]).enumerate() {
        if want == 1 && have != 1 {
            dims.push((lead + i) as i64);
        } else if want != have {
            return Err(bad());
        }
    }
    if dims.is_empty() {
        // same sizes: only a rank change of size-1 dims, or nothing at all
        let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        return x.copy_as(x.dtype())?.reshape(&sizes);
    }
    let s = crate::ops::reduce::sum(x, Some(&dims), true, Some(x.dtype()))?;
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    s.reshape(&sizes)
}

pub fn expand(x: &Var, shape: &[usize]) -> Result<Var> {
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    expand_sizes(x, &sizes)
}

pub fn expand_sizes(x: &Var, sizes: &[i64]) -> Result<Var> {
    let out = x.t.expand(sizes)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Dims = x.t.shape().into();
    Ok(record(
        "ExpandBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(sum_to(&g[0], &shape)?)])),
    ))
}

/// Views whose gradient is the incoming gradient reshaped back (view, reshape, squeeze,
/// unsqueeze, flatten, unflatten).
pub fn reshape_like(name: &str, x: &Var, out: Tensor) -> Result<Var> {
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Vec<i64> = x.t.shape().iter().map(|&d| d as i64).collect();
    let target: Vec<i64> = out.shape().iter().map(|&d| d as i64).collect();
    let is_view = out.shares_storage(&x.t);
    let v = record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(reshape(&g[0], &shape)?)])),
    );
    if is_view {
        mark_view(&v, x, Rc::new(move |t: &Tensor| t.reshape(&target)));
    }
    Ok(v)
}

pub fn reshape(x: &Var, sizes: &[i64]) -> Result<Var> {
    let out = x.t.reshape(sizes)?;
    let name = if out.shares_storage(&x.t) {
        "ViewBackward0"
    } else {
        "UnsafeViewBackward0"
    };
    reshape_like(name, x, out)
}

pub fn view(x: &Var, sizes: &[i64]) -> Result<Var> {
    let out = x.t.view(sizes)?;
    reshape_like("ViewBackward0", x, out)
}

pub fn permute(x: &Var, dims: &[i64]) -> Result<Var> {
    let out = x.t.permute(dims)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let nd = x.t.ndim();
    let p = crate::layout::check_permutation(dims, nd)?;
    let mut inv = vec![0i64; nd];
    for (i, &d) in p.iter().enumerate() {
        inv[d] = i as i64;
    }
    let dims = dims.to_vec();
    let v = record(
        "PermuteBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(permute(&g[0], &inv)?)])),
    );
    mark_view(&v, x, Rc::new(move |t: &Tensor| t.permute(&dims)));
    Ok(v)
}

pub fn transpose(x: &Var, d0: i64, d1: i64) -> Result<Var> {
    transpose_as("TransposeBackward0", x, d0, d1)
}

/// [`transpose`] recorded as `name` (`t()` is PyTorch's `TBackward0`).
pub fn transpose_as(name: &str, x: &Var, d0: i64, d1: i64) -> Result<Var> {
    let out = x.t.transpose(d0, d1)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let v = record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(transpose(&g[0], d0, d1)?)])),
    );
    mark_view(&v, x, Rc::new(move |t: &Tensor| t.transpose(d0, d1)));
    Ok(v)
}

/// Records that `v` is a view of `x` (re-derivable from `x` by `replay`), so an in-place
/// write to `v` can rebase the history of `x`'s base (PyTorch's CopySlices).
pub fn mark_view(v: &Var, x: &Var, replay: Replay) {
    let Some(m) = &v.meta else { return };
    let parent = x.meta.as_ref().and_then(|pm| pm.view_of.borrow().clone());
    let info = match parent {
        Some(p) => {
            let (r1, r2) = (p.replay.clone(), replay);
            ViewInfo {
                base: p.base,
                replay: Rc::new(move |t: &Tensor| r2(&r1(t)?)),
                version: std::cell::Cell::new(v.t.storage.version()),
                multi_output: None,
            }
        }
        None => ViewInfo {
            base: x.clone(),
            replay,
            version: std::cell::Cell::new(v.t.storage.version()),
            multi_output: None,
        },
    };
    *m.view_of.borrow_mut() = Some(info);
}

/// A view described by `replay` (select, slice, narrow, diagonal, basic indexing...).
pub fn view_op(name: &str, x: &Var, replay: Replay) -> Result<Var> {
    let out = replay(&x.t)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let track = out.shares_storage(&x.t);
    let shape: Dims = x.t.shape().into();
    let nm = name.to_string();
    let r2 = replay.clone();
    let v = record(
        name,
        out,
        &[x],
        false,
        Box::new(move |g, _| Ok(vec![Some(unview(&nm, &g[0], &shape, r2.clone())?)])),
    );
    if track {
        mark_view(&v, x, replay);
    }
    Ok(v)
}

/// The adjoint of a view: zeros shaped like the view's input with `g` written into the
/// viewed positions. Its own backward is the view again (for double backward).
pub fn unview(name: &str, g: &Var, shape: &[usize], replay: Replay) -> Result<Var> {
    let z = Tensor::zeros("backward", shape, g.t.dtype())?;
    let target = replay(&z)?;
    target.copy_from(&g.t)?;
    if !needs_grad(&[g]) {
        return Ok(Var::plain(z));
    }
    let nm = name.to_string();
    Ok(record(
        &format!("{name}Backward"),
        z,
        &[g],
        false,
        Box::new(move |gg, _| Ok(vec![Some(view_op(&nm, &gg[0], replay.clone())?)])),
    ))
}

pub fn select(x: &Var, dim: i64, index: i64) -> Result<Var> {
    view_op(
        "SelectBackward0",
        x,
        Rc::new(move |t: &Tensor| t.select(dim, index)),
    )
}

pub fn narrow(x: &Var, dim: i64, start: i64, len: i64) -> Result<Var> {
    view_op(
        "SliceBackward0",
        x,
        Rc::new(move |t: &Tensor| t.narrow(dim, start, len)),
    )
}

/// `x[items]` (basic indexing is a view; advanced indexing gathers a copy).
pub fn getitem(x: &Var, items: &[IndexItem]) -> Result<Var> {
    // PyTorch applies a 0-d integer tensor index as an integer: a `select` view.
    let owned: Vec<IndexItem> = items
        .iter()
        .map(|i| match i {
            IndexItem::Tensor(t) if t.ndim() == 0 && t.dtype() == crate::dtype::DType::I64 => {
                t.item().map(|v| IndexItem::Int(v.to_i64()))
            }
            other => Ok(other.clone()),
        })
        .collect::<Result<_>>()?;
    let items = &owned[..];
    let advanced = items.iter().any(|i| matches!(i, IndexItem::Tensor(_)));
    let owned: Vec<IndexItem> = items.to_vec();
    if !advanced {
        let name = match items.last() {
            Some(IndexItem::Int(_)) => "SelectBackward0",
            Some(IndexItem::None) => "UnsqueezeBackward0",
            Some(IndexItem::Ellipsis) | None => "AliasBackward0",
            _ => "SliceBackward0",
        };
        return view_op(
            name,
            x,
            Rc::new(move |t: &Tensor| crate::ops::indexing::getitem(t, &owned)),
        );
    }
    let out = crate::ops::indexing::getitem(&x.t, items)?;
    if !needs_grad(&[x]) {
        return Ok(Var::plain(out));
    }
    let shape: Dims = x.t.shape().into();
    Ok(record(
        "IndexBackward0",
        out,
        &[x],
        false,
        Box::new(move |g, _| {
            // scatter-add the gradient back: repeated indices receive their sum
            Ok(vec![Some(index_backward(&shape, &owned, &g[0])?)])
        }),
    ))
}

/// The adjoint of `x[items]` for `x` of `shape`: zeros with `g` added at the indexed
/// positions (repeated indices accumulate). Its own gradient is `g[items]` again.
fn index_backward(shape: &[usize], items: &[IndexItem], g: &Var) -> Result<Var> {
    let z = Tensor::zeros("backward", shape, g.t.dtype())?;
    crate::ops::indexing::index_put_accumulate(&z, items, &g.t)?;
    if !needs_grad(&[g]) {
        return Ok(Var::plain(z));
    }
    let owned = items.to_vec();
    Ok(record(
        "IndexPutBackward0",
        z,
        &[g],
        false,
        Box::new(move |gg, _| Ok(vec![Some(getitem(&gg[0], &owned)?)])),
    ))
}

/// The value of `old` after `old[items] = value` (for autograd-aware `__setitem__`).
pub fn index_put(old: &Var, items: &[IndexItem], value: &Var) -> Result<Var> {
    let out = old.t.copy_as(old.t.dtype())?;
    crate::ops::indexing::setitem(&out, items, &value.t)?;
    if !needs_grad(&[old, value]) || !out.dtype().is_float() {
        return Ok(Var::plain(out));
    }
    let owned = items.to_vec();
    let (old_needs, val_needs) = (old.requires_grad(), value.requires_grad());
    let mut inputs: Vec<&Var> = Vec::new();
    if old_needs {
        inputs.push(old);
    }
    if val_needs {
        inputs.push(value);
    }
    Ok(record(
        "CopySlices",
        out,
        &inputs,
        false,
        Box::new(move |g, _| {
            let mut r = Vec::new();
            if old_needs {
                // the gradient with the overwritten region zeroed: itself an index_put, so
                // it is differentiable for double backward
                let zero = Var::plain(Tensor::scalar(crate::dtype::Scalar::Int(0), g[0].t.dtype()));
                r.push(Some(index_put(&g[0], &owned, &zero)?));
            }
            if val_needs {
                r.push(Some(getitem(&g[0], &owned)?));
            }
            Ok(r)
        }),
    ))
}

/// After an in-place op wrote `r` (the view's new value, with its history) through a
/// view, makes the base's history include the write (PyTorch's CopySlices) and returns
/// the view's new history: the same view of the updated base.
pub fn rebase_view(vi: &ViewInfo, r: &Var) -> Result<Var> {
    let base = &vi.base;
    let replay = vi.replay.clone();
    let r2 = replay.clone();
    let new_base = record(
        "CopySlices",
        base.t.clone(),
        &[base, r],
        false,
        Box::new(move |g, _| {
            // the base's old values were overwritten in the view's region
            let gb = g[0].t.copy_as(g[0].t.dtype())?;
            r2(&gb)?.fill(crate::dtype::Scalar::Int(0))?;
            let gr = view_op("AsStridedBackward0", &g[0], r2.clone())?;
            Ok(vec![Some(Var::plain(gb)), Some(gr)])
        }),
    );
    if let Some(m) = &base.meta {
        *m.grad_fn.borrow_mut() = new_base.grad_fn();
        m.output_nr.set(0);
        m.requires_grad.set(true);
    }
    let v = view_op("AsStridedBackward0", base, replay)?;
    Ok(v)
}
