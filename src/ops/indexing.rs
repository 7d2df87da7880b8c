//! `x[...]` and `x[...] = v`: basic indexing (ints, slices, None, Ellipsis) becomes a
//! view; tensor indices are handed to the advanced-indexing code in `index.rs`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

#[derive(Clone)]
pub enum IndexItem {
    Int(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    None,
    Ellipsis,
    /// An integer or boolean tensor (lists are converted to tensors by the binding).
    Tensor(Tensor),
}

/// The view after basic indexing plus the advanced indices, each with the dim of the
/// view it applies to.
pub struct Indexed {
    pub view: Tensor,
    pub advanced: Vec<(usize, Tensor)>,
}

fn consumed(item: &IndexItem) -> usize {
    match item {
        IndexItem::Int(_) | IndexItem::Slice(..) => 1,
        IndexItem::Tensor(t) if t.dtype() == DType::Bool => t.ndim(),
        IndexItem::Tensor(_) => 1,
        IndexItem::None | IndexItem::Ellipsis => 0,
    }
}

/// Applies the basic part of an index expression.
pub fn apply_basic(x: &Tensor, items: &[IndexItem]) -> Result<Indexed> {
    let nd = x.ndim();
    let used: usize = items.iter().map(consumed).sum();
    let ellipses = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Ellipsis))
        .count();
    if ellipses > 1 {
        return Err(Error::index(
            "index",
            "an index can only have a single ellipsis ('...')",
        ));
    }
    if nd == 0 && matches!(items, [IndexItem::Int(_)]) {
        return Err(Error::index(
            "index",
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or \
             `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
        ));
    }
    if used > nd {
        return Err(Error::index(
            "index",
            format!("too many indices for tensor of dimension {nd}"),
        ));
    }
    let mut v = x.clone();
    let mut dim = 0usize;
    let mut advanced = Vec::new();
    for item in items {
        // PyTorch applies a 0-d integer tensor index as `select` (a view), like an int.
        let as_int;
        let item = match item {
            IndexItem::Tensor(t) if t.ndim() == 0 && t.dtype() == DType::I64 => {
                as_int = IndexItem::Int(t.item()?.to_i64());
                &as_int
            }
            other => other,
        };
        match item {
            IndexItem::Int(i) => {
                let size = v.shape()[dim];
                let idx = crate::layout::wrap_index("index", *i, dim, size).map_err(|_| {
                    Error::index(
                        "index",
                        format!("index {i} is out of bounds for dimension {dim} with size {size}"),
                    )
                })?;
                v = v.with_layout(v.layout.select(dim, idx))?;
            }
            IndexItem::Slice(start, stop, step) => {
                let step = step.unwrap_or(1);
                if step <= 0 {
                    return Err(Error::value("index", "step must be greater than zero"));
                }
                v = v.slice(dim, start.unwrap_or(0), stop.unwrap_or(i64::MAX), step)?;
                dim += 1;
            }
            IndexItem::None => {
                v = v.with_layout(v.layout.unsqueeze(dim))?;
                dim += 1;
            }
            IndexItem::Ellipsis => dim += nd - used,
            IndexItem::Tensor(t) => {
                advanced.push((dim, t.clone()));
                dim += consumed(item);
            }
        }
    }
    Ok(Indexed { view: v, advanced })
}

/// `x[items]`.
pub fn getitem(x: &Tensor, items: &[IndexItem]) -> Result<Tensor> {
    let ix = apply_basic(x, items)?;
    if ix.advanced.is_empty() {
        return Ok(ix.view);
    }
    crate::ops::index::advanced_getitem(&ix.view, &ix.advanced)
}

/// `x[items] = number`: basic indexing fills the view, which PyTorch allows even when
/// it is an expanded (self-overlapping) view.
pub fn setitem_scalar(x: &Tensor, items: &[IndexItem], value: crate::dtype::Scalar) -> Result<()> {
    let ix = apply_basic(x, items)?;
    if ix.advanced.is_empty() {
        return ix.view.fill(value);
    }
    let value = Tensor::scalar(value, x.dtype());
    crate::ops::index::advanced_setitem(&ix.view, &ix.advanced, &value, false)
}

/// `x[items] = value`; `value` broadcasts to the indexed shape and is cast to x's dtype.
pub fn setitem(x: &Tensor, items: &[IndexItem], value: &Tensor) -> Result<()> {
    let ix = apply_basic(x, items)?;
    if ix.advanced.is_empty() {
        return ix.view.copy_from(value);
    }
    crate::ops::index::advanced_setitem(&ix.view, &ix.advanced, value, false)
}

/// `dst[items] += src` with repeated indices accumulating (the adjoint of advanced
/// indexing, used by autograd).
pub fn index_put_accumulate(dst: &Tensor, items: &[IndexItem], src: &Tensor) -> Result<()> {
    let ix = apply_basic(dst, items)?;
    if ix.advanced.is_empty() {
        // e.g. a 0-d integer tensor index, which is applied as `select`
        return crate::ops::binary::binary_(
            crate::ops::binary::BinaryOp::Add,
            &ix.view,
            crate::ops::binary::Operand::T(src),
        );
    }
    crate::ops::index::advanced_setitem(&ix.view, &ix.advanced, src, true)
}
