//! Boolean-mask ops: `masked_fill`, `masked_select`, `masked_scatter_`, `where` and
//! `nonzero`.

use super::visit;
use crate::dtype::{DType, Element, ResultType, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::strided;
use crate::memory_order::Order;
use crate::ops::binary::Operand;
use crate::shape::{broadcast_shapes, checked_numel};
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

/// The dtype names PyTorch's mask messages print (`long int`, `float`, ...).
fn c_type_name(d: DType) -> &'static str {
    d.cpp_name()
}

/// `mask` broadcast to `self`'s shape for an in-place op, with its own storage if it
/// aliases `dst` (so reading it while writing `dst` is sound).
pub(crate) fn inplace_mask(op: &str, dst: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let target: Vec<i64> = dst.shape().iter().map(|&d| d as i64).collect();
    let mask = if mask.shares_storage(dst) {
        mask.copy_as(DType::Bool)?
    } else {
        mask.clone()
    };
    let l = mask
        .layout
        .expand(&target)
        .map_err(|e| Error::runtime(op, e.msg.trim_start_matches("expand: ")))?;
    mask.with_layout(l)
}

/// Broadcast shape of two operands, with the op named in the error.
fn broadcast2(op: &str, a: &[usize], b: &[usize]) -> Result<crate::shape::Dims> {
    broadcast_shapes(a, b).map_err(|e| Error::runtime(op, e.msg))
}

impl Tensor {
    /// `masked_fill_(mask, value)`: writes `value` where the (broadcast) mask is true.
    pub fn masked_fill_(&self, mask: &Tensor, value: Scalar) -> Result<()> {
        if mask.dtype() != DType::Bool {
            return Err(Error::runtime(
                "masked_fill_",
                format!(
                    "masked_fill_ only supports boolean masks, but got mask with dtype {}",
                    c_type_name(mask.dtype())
                ),
            ));
        }
        crate::tensor::check_fill(value, self.dtype())?;
        // one value into aliased elements is well defined (PyTorch allows it)
        self.check_storage_writable("masked_fill_")?;
        let mask = inplace_mask("masked_fill_", self, mask)?;
        crate::with_dtype!(self.dtype(), T, {
            let v = T::from_scalar(value);
            // SAFETY: dtypes match; `mask` does not share `self`'s storage.
            let (d, m) = unsafe { (self.data_mut::<T>(), mask.data::<bool>()) };
            strided::zip_inplace(
                d,
                (self.strides(), self.layout.offset),
                m,
                (mask.strides(), mask.layout.offset),
                self.shape(),
                |x, keep| if keep { v } else { x },
            );
        });
        self.storage.bump_version();
        Ok(())
    }

    /// `masked_fill(mask, value)`: the result has the broadcast shape of `self` and `mask`.
    pub fn masked_fill(&self, mask: &Tensor, value: Scalar) -> Result<Tensor> {
        let shape = broadcast2("masked_fill", self.shape(), mask.shape())?;
        let out = self.broadcast_to(&shape)?.copy_as(self.dtype())?;
        out.masked_fill_(mask, value)?;
        Ok(out)
    }

    /// `masked_select(mask)`: the elements where the broadcast mask is true, as a 1-d tensor.
    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            return Err(Error::runtime(
                "masked_select",
                "masked_select: expected BoolTensor for mask",
            ));
        }
        let shape = broadcast2("masked_select", self.shape(), mask.shape())?;
        let (lx, lm) = (
            self.layout.broadcast_to(&shape)?,
            mask.layout.broadcast_to(&shape)?,
        );
        // SAFETY: bool data of the mask, read only.
        let m = unsafe { mask.data::<bool>() };
        let mut count = 0usize;
        visit(&shape, [&lm.strides[..]], [lm.offset], |[p]| {
            count += usize::from(m[p])
        });
        crate::with_dtype!(self.dtype(), T, {
            let mut out = try_zeroed_vec::<T>("masked_select", count)?;
            // SAFETY: T is self's dtype; `out` is a separate buffer.
            let x = unsafe { self.data::<T>() };
            let mut k = 0;
            visit(
                &shape,
                [&lx.strides[..], &lm.strides[..]],
                [lx.offset, lm.offset],
                |[px, pm]| {
                    if m[pm] {
                        out[k] = x[px];
                        k += 1;
                    }
                },
            );
            Tensor::from_vec(out, &[count])
        })
    }

    /// `masked_scatter_(mask, source)`: fills the true positions of the mask (row-major
    /// order) with consecutive elements of `source`.
    pub fn masked_scatter_(&self, mask: &Tensor, source: &Tensor) -> Result<()> {
        if mask.dtype() != DType::Bool {
            return Err(Error::runtime(
                "masked_scatter_",
                format!(
                    "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
                    mask.dtype().torch_name()
                ),
            ));
        }
        if source.dtype() != self.dtype() {
            return Err(Error::runtime(
                "masked_scatter_",
                format!(
                    "masked_scatter_: expected self and source to have same dtypes but got {} \
                     and {}",
                    self.dtype().torch_name(),
                    source.dtype().torch_name()
                ),
            ));
        }
        self.check_writable("masked_scatter_")?;
        let mask = inplace_mask("masked_scatter_", self, mask)?;
        // SAFETY: bool data, read only (own storage, see `inplace_mask`).
        let m = unsafe { mask.data::<bool>() };
        let mut count = 0usize;
        visit(
            self.shape(),
            [mask.strides()],
            [mask.layout.offset],
            |[p]| count += usize::from(m[p]),
        );
        if count > source.numel() {
            return Err(Error::runtime(
                "masked_scatter_",
                "Number of elements of source < number of ones in mask",
            ));
        }
        crate::with_dtype!(self.dtype(), T, {
            // a contiguous copy: row-major order, and never aliases `self`
            let src = source.to_vec::<T>()?;
            // SAFETY: T is self's dtype; no other slice of self's storage is live.
            let d = unsafe { self.data_mut::<T>() };
            let mut k = 0;
            visit(
                self.shape(),
                [self.strides(), mask.strides()],
                [self.layout.offset, mask.layout.offset],
                |[pd, pm]| {
                    if m[pm] {
                        d[pd] = src[k];
                        k += 1;
                    }
                },
            );
        });
        self.storage.bump_version();
        Ok(())
    }

    /// `nonzero()`: int64 indices of the non-zero elements, shape `(n, ndim)`.
    pub fn nonzero(&self) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        let nd = shape.len();
        let nz: Vec<usize> = crate::with_dtype!(self.dtype(), T, {
            // SAFETY: T is self's dtype, read only.
            let x = unsafe { self.data::<T>() };
            let mut hits = Vec::new();
            super::visit_indexed(&shape, self.strides(), self.layout.offset, |k, p| {
                if x[p].to_bool() {
                    hits.push(k);
                }
            });
            hits
        });
        let n = nz.len();
        let mut out = try_zeroed_vec::<i64>("nonzero", checked_numel("nonzero", &[n, nd])?)?;
        for (row, &k) in out.chunks_exact_mut(nd.max(1)).zip(&nz) {
            // unravel the row-major position into coordinates
            let mut rem = k;
            for d in (0..nd).rev() {
                row[d] = (rem % shape[d]) as i64;
                rem /= shape[d];
            }
        }
        Tensor::from_vec(out, &[n, nd])
    }

    /// `nonzero(as_tuple=True)`: one 1-d index tensor per dim (a 0-d input counts as 1-d).
    pub fn nonzero_tuple(&self) -> Result<Vec<Tensor>> {
        let x = if self.ndim() == 0 {
            self.with_layout(self.layout.unsqueeze(0))?
        } else {
            self.clone()
        };
        let nz = x.nonzero()?.contiguous()?;
        (0..x.ndim())
            .map(|j| nz.with_layout(nz.layout.select(1, j)))
            .collect::<Result<_>>()
    }
}

/// `where(condition, input, other)`: `input` where the condition holds, else `other`,
/// broadcasting all three; `input`/`other` may be Python numbers and are promoted like a
/// binary op.
pub fn where_(cond: &Tensor, a: Operand, b: Operand) -> Result<Tensor> {
    if cond.dtype() != DType::Bool {
        return Err(Error::runtime(
            "where",
            format!(
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                cond.dtype().torch_name()
            ),
        ));
    }
    let mut rt = ResultType::default();
    let mut shape = crate::shape::Dims::from_slice(cond.shape());
    for o in [&a, &b] {
        match o {
            Operand::T(t) => {
                rt = rt.tensor(t.dtype(), t.ndim());
                shape = broadcast_shapes(&shape, t.shape()).map_err(|e| {
                    Error::runtime(
                        "where",
                        format!("{} (shapes {})", e.msg, fmt_shape(t.shape())),
                    )
                })?;
            }
            Operand::S(s) => rt = rt.scalar(*s),
        }
    }
    let dtype = rt.finish();
    let as_tensor = |o: &Operand| match o {
        Operand::T(t) => t.to_dtype(dtype),
        Operand::S(s) => Ok(Tensor::scalar(*s, dtype)),
    };
    let (ta, tb) = (as_tensor(&a)?, as_tensor(&b)?);
    let (lc, la, lb) = (
        cond.layout.broadcast_to(&shape)?,
        ta.layout.broadcast_to(&shape)?,
        tb.layout.broadcast_to(&shape)?,
    );
    let n = checked_numel("where", &shape)?;
    let order = Order::of(&shape, &[&cond.layout, &ta.layout, &tb.layout]);
    crate::with_dtype!(dtype, T, {
        let mut out = try_zeroed_vec::<T>("where", n)?;
        // SAFETY: both operands were converted to dtype T; the condition is bool.
        let (c, x, y) = unsafe { (cond.data::<bool>(), ta.data::<T>(), tb.data::<T>()) };
        visit(
            &shape,
            [
                &lc.strides[..],
                &la.strides[..],
                &lb.strides[..],
                &order.strides[..],
            ],
            [lc.offset, la.offset, lb.offset, 0],
            |[pc, pa, pb, po]| out[po] = if c[pc] { x[pa] } else { y[pb] },
        );
        Tensor::from_vec_in(out, &shape, &order)
    })
}
