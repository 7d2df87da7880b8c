//! `Tensor`: a storage plus a layout. Cloning a `Tensor` makes another view of the same
//! storage; every op returns a new `Tensor`.

use crate::dtype::{DType, Element, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::kernels::strided;
use crate::layout::Layout;
use crate::memory_order::Order;
use crate::shape::checked_numel;
use crate::storage::{try_output_vec, try_zeroed_vec, Storage};
use std::sync::Arc;

pub mod ndarray_interop;

/// PyTorch's error for a value `dtype::scalar_overflows` rejects; `name` is the C++ type
/// (`uint8_t`) for fills and the dtype name (`uint8`) for `tensor()` data.
pub fn overflow_error(name: &str) -> Error {
    Error::runtime(
        "",
        format!("value cannot be converted to type {name} without overflow"),
    )
}

/// Checks a fill value (`full`, `fill_`, `masked_fill`, `index_fill`) against `d`.
pub fn check_fill(value: Scalar, d: DType) -> Result<()> {
    if crate::dtype::scalar_overflows(value, d) {
        return Err(overflow_error(crate::dtype::c_scalar_name(d)));
    }
    Ok(())
}

#[derive(Clone)]
pub struct Tensor {
    pub storage: Arc<Storage>,
    pub layout: Layout,
}

impl Tensor {
    /// A contiguous tensor owning `data` (its length must equal the shape's numel).
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        let n = checked_numel("tensor", shape)?;
        if n != data.len() {
            return Err(Error::runtime(
                "tensor",
                format!(
                    "shape {} needs {n} elements, got {}",
                    fmt_shape(shape),
                    data.len()
                ),
            ));
        }
        Ok(Tensor {
            storage: Arc::new(Storage::from_vec(data)),
            layout: Layout::contiguous(shape),
        })
    }

    /// A tensor owning `data`, written in `order`'s walk (see [`Order`]).
    pub fn from_vec_in<T: Element>(data: Vec<T>, shape: &[usize], order: &Order) -> Result<Tensor> {
        let mut t = Tensor::from_vec(data, shape)?;
        t.layout = order.layout(shape);
        Ok(t)
    }

    /// This fresh row-major tensor (values uniform, or about to be filled in memory order)
    /// relaid in `order` (the `*_like` factories' `memory_format`).
    pub fn in_order(mut self, order: &Order) -> Tensor {
        debug_assert!(self.is_contiguous() && self.layout.offset == 0);
        self.layout = order.layout(&self.layout.shape);
        self
    }

    pub fn zeros(op: &str, shape: &[usize], dtype: DType) -> Result<Tensor> {
        let n = checked_numel(op, shape)?;
        Ok(Tensor {
            storage: Arc::new(Storage::zeros(op, dtype, n)?),
            layout: Layout::contiguous(shape),
        })
    }

    pub fn full(op: &str, shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        check_fill(value, dtype)?;
        let zero = match value {
            Scalar::Float(f) => f.to_bits() == 0, // not -0.0
            Scalar::Int(i) => i == 0,
            Scalar::Bool(b) => !b,
        };
        if zero {
            // zeroed storage is every dtype's zero, and fresh pages need no writing
            return Tensor::zeros(op, shape, dtype);
        }
        let n = checked_numel(op, shape)?;
        crate::with_dtype!(dtype, T, {
            let mut v = try_zeroed_vec::<T>(op, n)?;
            let x = T::from_scalar(value);
            v.iter_mut().for_each(|e| *e = x);
            Tensor::from_vec(v, shape)
        })
    }

    /// A 0-d tensor holding `value` converted to `dtype`.
    pub fn scalar(value: Scalar, dtype: DType) -> Tensor {
        crate::with_dtype!(dtype, T, {
            Tensor {
                storage: Arc::new(Storage::from_vec(vec![T::from_scalar(value)])),
                layout: Layout::contiguous(&[]),
            }
        })
    }

    pub fn dtype(&self) -> DType {
        self.storage.dtype()
    }
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }
    pub fn strides(&self) -> &[isize] {
        &self.layout.strides
    }
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// A new view of the same storage. This is the one place every view is made, so it
    /// is where "a view never reaches outside its storage" is enforced: whatever size or
    /// offset arithmetic went before, an out-of-bounds layout becomes an error here
    /// instead of a read or write past the buffer.
    pub fn with_layout(&self, layout: Layout) -> Result<Tensor> {
        if !layout.fits_in(self.storage.len()) {
            return Err(Error::runtime(
                "view",
                format!(
                    "a view of shape {}, strides {:?} and offset {} reaches outside its storage \
                     of {} elements",
                    fmt_shape(&layout.shape),
                    layout.strides.as_slice(),
                    layout.offset,
                    self.storage.len()
                ),
            ));
        }
        Ok(Tensor {
            storage: self.storage.clone(),
            layout,
        })
    }

    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// The whole storage as a typed slice.
    ///
    /// # Safety
    /// `T` must match `self.dtype()`; no mutable slice of this storage may be live.
    pub unsafe fn data<T: Element>(&self) -> &[T] {
        self.storage.slice::<T>()
    }

    /// The whole storage as a mutable typed slice.
    ///
    /// # Safety
    /// `T` must match `self.dtype()`; no other slice of this storage may be live.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn data_mut<T: Element>(&self) -> &mut [T] {
        self.storage.slice_mut::<T>()
    }

    /// The elements in row-major order, converted to `T`.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let mut out = try_zeroed_vec::<T>("to_vec", self.numel())?;
        crate::with_dtype!(self.dtype(), S, {
            // SAFETY: S is this tensor's dtype; `out` is a separate buffer.
            let src = unsafe { self.data::<S>() };
            strided::copy_to_contiguous(
                src,
                self.shape(),
                self.strides(),
                self.layout.offset,
                &mut out,
                T::cast::<S>,
            );
        });
        Ok(out)
    }

    /// A contiguous copy with element type `dtype` (always copies).
    pub fn copy_as(&self, dtype: DType) -> Result<Tensor> {
        self.copy_in(&Order::row_major(self.shape()), dtype)
    }

    /// A copy with element type `dtype` laid out as `order` says.
    pub fn copy_in(&self, order: &Order, dtype: DType) -> Result<Tensor> {
        let shape = order.walk(self.shape());
        let strides = order.walk(self.strides());
        crate::with_dtype!(dtype, T, {
            // every element is written: a recycled buffer needs no zeroing
            let mut out = try_output_vec::<T>("clone", self.numel())?;
            crate::with_dtype!(self.dtype(), S, {
                // SAFETY: S is this tensor's dtype; `out` is a separate buffer.
                let src = unsafe { self.data::<S>() };
                strided::copy_to_contiguous(
                    src,
                    &shape,
                    &strides,
                    self.layout.offset,
                    &mut out,
                    T::cast::<S>,
                );
            });
            Tensor::from_vec_in(out, self.shape(), order)
        })
    }

    /// `self` if already contiguous, else a contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.copy_as(self.dtype())
        }
    }

    /// `self` if it already has `dtype`, else a converted copy in the same memory order
    /// (`Tensor.to(dtype)`).
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            Ok(self.clone())
        } else {
            self.copy_in(&Order::preserve(&self.layout), dtype)
        }
    }

    /// A contiguous tensor with its data starting at offset 0, for kernels that want
    /// plain slices (matmul packing, reductions along non-inner dims).
    pub fn dense(&self) -> Result<Tensor> {
        if self.is_contiguous() && self.layout.offset == 0 && self.storage.len() == self.numel() {
            Ok(self.clone())
        } else {
            self.copy_as(self.dtype())
        }
    }

    /// The only element of a one-element tensor.
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::runtime(
                "item",
                format!(
                    "a Tensor with {} elements cannot be converted to Scalar",
                    self.numel()
                ),
            ));
        }
        let off = self.layout.offset;
        Ok(crate::with_dtype!(self.dtype(), T, unsafe {
            self.data::<T>()[off].to_scalar()
        }))
    }

    /// PyTorch's rule for a write into `self` that reads `input`: refused when the two
    /// share memory only in part (`x[1:].add_(x[:-1])`, `x.copy_(x.t())`), since the
    /// result would depend on the order elements are visited. The same elements with the
    /// same strides (`x.add_(x)`) are fine, and so are layouts too complex to compare
    /// cheaply (not dense), as in PyTorch's `get_overlap_status`.
    pub fn check_no_partial_overlap(&self, input: &Tensor, op: &str) -> Result<()> {
        if !self.shares_storage(input) || self.numel() == 0 || input.numel() == 0 {
            return Ok(());
        }
        let (a, b) = (&self.layout, &input.layout);
        if !a.is_dense() || !b.is_dense() {
            return Ok(());
        }
        let (a0, a1) = (a.offset, a.offset + a.numel());
        let (b0, b1) = (b.offset, b.offset + b.numel());
        let partial = if (a0, a1) == (b0, b1) {
            a.strides != b.strides
        } else {
            a0 < b1 && b0 < a1
        };
        if partial {
            return Err(Error::runtime(
                op,
                "unsupported operation: some elements of the input tensor and the written-to \
                 tensor refer to a single memory location. Please clone() the tensor before \
                 performing the operation.",
            ));
        }
        Ok(())
    }

    /// Checks only that `self`'s memory is writable: for writes of one value, which are
    /// well defined even through an expanded (self-aliasing) view.
    pub fn check_storage_writable(&self, op: &str) -> Result<()> {
        self.check_not_inference()?;
        if !self.storage.writable() {
            return Err(Error::runtime(op, "the tensor's memory is read-only"));
        }
        Ok(())
    }

    /// PyTorch's rule for inference tensors: outside `inference_mode` they are read-only.
    pub fn check_not_inference(&self) -> Result<()> {
        if self.storage.is_inference() && !crate::storage::inference_mode() {
            return Err(Error::runtime(
                "",
                "Inplace update to inference tensor outside InferenceMode is not allowed.You \
                 can make a clone to get a normal tensor before doing inplace update.See \
                 https://github.com/pytorch/rfcs/pull/17 for more details.",
            ));
        }
        Ok(())
    }

    /// Checks that `self` may be written in place (not an expanded view, not read-only).
    pub fn check_writable(&self, op: &str) -> Result<()> {
        self.check_not_inference()?;
        if self.layout.has_internal_overlap() && self.numel() > 1 {
            return Err(Error::runtime(
                op,
                "unsupported operation: more than one element of the written-to tensor refers \
                 to a single memory location. Please clone() the tensor before performing the \
                 operation.",
            ));
        }
        if !self.storage.writable() {
            return Err(Error::runtime(op, "the tensor's memory is read-only"));
        }
        Ok(())
    }

    /// `self.copy_(src)`: broadcasts `src` to `self`'s shape and converts its dtype.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        self.check_writable("copy_")?;
        self.check_no_partial_overlap(src, "copy_")?;
        let lb = src.layout.broadcast_to(self.shape()).map_err(|_| {
            Error::runtime(
                "copy_",
                format!(
                    "the size of the source {} cannot be broadcast to the destination {}",
                    fmt_shape(src.shape()),
                    fmt_shape(self.shape())
                ),
            )
        })?;
        // A source sharing our storage is copied first, so the slices below never alias.
        let src = if src.shares_storage(self) {
            src.copy_as(src.dtype())?.with_layout_of(&lb, true)?
        } else {
            src.with_layout(lb)?
        };
        crate::with_dtype!(self.dtype(), D, {
            crate::with_dtype!(src.dtype(), S, {
                // SAFETY: dtypes match the slices; `src` does not share `self`'s storage.
                let d = unsafe { self.data_mut::<D>() };
                let s = unsafe { src.data::<S>() };
                strided::zip_inplace(
                    d,
                    (self.strides(), self.layout.offset),
                    s,
                    (src.strides(), src.layout.offset),
                    self.shape(),
                    |_, y| D::cast::<S>(y),
                );
            })
        });
        self.storage.bump_version();
        Ok(())
    }

    /// Re-applies the broadcast of `lb` to a fresh contiguous copy (helper for copy_from).
    fn with_layout_of(&self, lb: &Layout, _fresh: bool) -> Result<Tensor> {
        // `self` is contiguous with the source's original shape; rebuild the broadcast
        // strides from that shape.
        let orig = Layout::contiguous(self.shape());
        let target: Vec<i64> = lb.shape.iter().map(|&d| d as i64).collect();
        self.with_layout(orig.expand(&target).unwrap_or(orig))
    }

    /// `self.fill_(value)`. Unlike other in-place ops this is allowed on expanded
    /// tensors (every alias receives the same value), as in PyTorch.
    pub fn fill(&self, value: Scalar) -> Result<()> {
        self.check_not_inference()?;
        check_fill(value, self.dtype())?;
        if !self.storage.writable() {
            return Err(Error::runtime("fill_", "the tensor's memory is read-only"));
        }
        crate::with_dtype!(self.dtype(), T, {
            let v = T::from_scalar(value);
            // SAFETY: T is our dtype; no other slice is live during the call.
            let d = unsafe { self.data_mut::<T>() };
            strided::apply_inplace(d, (self.strides(), self.layout.offset), self.shape(), |_| v);
        });
        self.storage.bump_version();
        Ok(())
    }
}
