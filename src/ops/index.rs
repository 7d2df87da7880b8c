//! Advanced indexing and gather/scatter-style ops.

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `view[adv]` where `adv` holds (dim, integer-or-bool index tensor) pairs.
pub fn advanced_getitem(view: &Tensor, adv: &[(usize, Tensor)]) -> Result<Tensor> {
    let _ = (view, adv);
    Err(Error::not_implemented(
        "index",
        "advanced indexing is being implemented",
    ))
}

/// `view[adv] = value`.
pub fn advanced_setitem(view: &Tensor, adv: &[(usize, Tensor)], value: &Tensor) -> Result<()> {
    let _ = (view, adv, value);
    Err(Error::not_implemented(
        "index_put_",
        "advanced indexing is being implemented",
    ))
}

/// `dst[items] += src` with repeated indices accumulating (the adjoint of advanced
/// indexing, used by autograd).
pub fn index_put_accumulate(
    dst: &Tensor,
    items: &[crate::ops::indexing::IndexItem],
    src: &Tensor,
) -> Result<()> {
    let _ = (dst, items, src);
    Err(Error::not_implemented(
        "index_put_",
        "advanced indexing is being implemented",
    ))
}
