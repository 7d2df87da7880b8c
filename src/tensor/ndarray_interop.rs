//! Zero-copy interop with the [`ndarray`] crate, the Rust-side array type.
//!
//! * [`Tensor::from_ndarray`] takes an owned [`ndarray::Array`] without copying its
//!   buffer whenever its strides are non-negative (standard, Fortran, transposed or
//!   stepped owned arrays alike: the tensor keeps the array's strides and offset, as
//!   `torch.from_numpy` does); views, shared arrays and arrays with negative strides are
//!   copied.
//! * [`Tensor::as_ndarray`] / [`Tensor::as_ndarray_mut`] are views of the tensor's memory
//!   honouring its shape, strides (zero strides of `expand`ed dims included) and storage
//!   offset.
//! * [`Tensor::to_ndarray`] copies into a standard-layout array, converting elements.
//!
//! # The safety story
//!
//! A [`Tensor`] is a handle: clones, views (`transpose`, slicing, `expand`) and tensors
//! saved by autograd share one storage through an `Arc`, and in-place ops
//! ([`Tensor::fill`], [`Tensor::copy_from`], the `_`-suffixed ops) write through a shared
//! `&Tensor`, as in PyTorch. An ndarray view, however, is a Rust borrow: while an
//! `ArrayView` lives nothing may write its elements, and while an `ArrayViewMut` lives
//! nothing else may even read them. The safe views therefore require, and check, that
//! the borrow cannot be broken:
//!
//! * they take `&mut self`, so this handle can neither be written nor cloned (no new
//!   handle can appear) while the view lives;
//! * the storage must be referenced by this handle only (`Arc::get_mut` succeeds: no
//!   other tensor, view or saved tensor shares it) and be ferric's own memory (not a
//!   NumPy array another owner can write).
//!
//! A tensor whose storage is shared can be read with [`Tensor::to_ndarray`] (a copy), or
//! viewed with [`Tensor::as_ndarray_unchecked`], an `unsafe fn` whose caller promises that
//! no handle writes the storage while the view lives. The mutable view additionally
//! refuses layouts where two indices name one element (an `expand`ed dim), read-only
//! memory and inference tensors outside `inference_mode`, and bumps the storage's version
//! counter, since it may write.

use super::Tensor;
use crate::dtype::{DType, Element};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use ndarray::{ArrayBase, ArrayD, ArrayViewD, ArrayViewMutD, Data, Dimension, IxDyn, ShapeBuilder};
use std::sync::Arc;

/// The error for a view or copy asked for with an element type that is not the tensor's
/// dtype: an [`Error`] of kind [`ErrorKind::Type`] naming both.
fn dtype_mismatch<T: Element>(op: &str, found: DType) -> Error {
    Error::new(
        ErrorKind::Type,
        op,
        format!(
            "the tensor has dtype {found}, but the element type asked for is {} ({})",
            std::any::type_name::<T>(),
            T::DTYPE
        ),
    )
}

fn check_dtype<T: Element>(op: &str, t: &Tensor) -> Result<()> {
    if t.dtype() != T::DTYPE {
        return Err(dtype_mismatch::<T>(op, t.dtype()));
    }
    Ok(())
}

/// ndarray's shape-with-strides for a ferric layout. Strides are passed as ndarray wants
/// them (`isize` values in `usize` slots), so zero and negative strides keep their
/// meaning. An empty layout gets ndarray's default strides (its strides name nothing).
fn stride_shape(l: &Layout) -> ndarray::StrideShape<IxDyn> {
    if l.shape.contains(&0) {
        // no element to reach: ndarray's own strides, which it accepts for an empty slice
        return IxDyn(&l.shape).into();
    }
    let strides: Vec<usize> = l.strides.iter().map(|&s| s as usize).collect();
    IxDyn(&l.shape).strides(IxDyn(&strides))
}

fn shape_error(op: &str, l: &Layout, e: ndarray::ShapeError) -> Error {
    Error::runtime(
        op,
        format!(
            "ndarray cannot view shape {:?} with strides {:?}: {e}",
            l.shape.as_slice(),
            l.strides.as_slice()
        ),
    )
}

/// The storage of `t` if `t` is its only handle and the memory is ferric's own.
fn exclusive_storage<'a>(op: &str, storage: &'a mut Arc<Storage>) -> Result<&'a mut Storage> {
    let others = Arc::strong_count(storage) - 1;
    let Some(storage) = Arc::get_mut(storage) else {
        return Err(Error::runtime(
            op,
            format!(
                "the tensor's storage is shared with {others} other tensor handle(s) (views, \
                 clones or tensors saved for backward): a safe ndarray view needs the only \
                 handle. Drop the others, view a `.copy_as(dtype)` of it, use `to_ndarray()` \
                 (a copy), or `as_ndarray_unchecked()`"
            ),
        ));
    };
    if storage.is_foreign() {
        return Err(Error::runtime(
            op,
            "the tensor's memory is owned by another library (e.g. a NumPy array), which may \
             write it: use `to_ndarray()` (a copy) or `as_ndarray_unchecked()`",
        ));
    }
    Ok(storage)
}

/// The elements from the layout's offset on (empty for an empty layout, whose offset may
/// point past the end).
fn from_offset<'a, T>(data: &'a [T], l: &Layout) -> &'a [T] {
    data.get(l.offset..).unwrap_or(&[])
}

impl Tensor {
    /// A tensor owning the elements of `a`, with `a`'s shape.
    ///
    /// An owned [`ndarray::Array`] with non-negative strides hands over its buffer
    /// without a copy; the tensor keeps the array's strides and offset (a Fortran-order
    /// array gives a transposed-contiguous tensor, as `torch.from_numpy` does). Other
    /// arrays (views, `ArcArray`s, negative strides) are copied: into the same memory
    /// order when ndarray's `into_owned` keeps it, else row-major.
    ///
    /// ```
    /// use ferric::{DType, Tensor};
    /// use ndarray::array;
    ///
    /// let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
    /// let ptr = a.as_ptr();
    /// let t = Tensor::from_ndarray(a);
    /// assert_eq!(t.shape(), &[2, 3]);
    /// assert_eq!(t.dtype(), DType::F32);
    /// assert_eq!(t.storage.as_ptr() as *const f32, ptr); // the same buffer: no copy
    ///
    /// // a Fortran-order array keeps its strides
    /// let f = Tensor::from_ndarray(array![[1i64, 2], [3, 4]].reversed_axes());
    /// assert_eq!(f.strides(), &[1, 2]);
    /// assert_eq!(f.to_vec::<i64>().unwrap(), vec![1, 3, 2, 4]);
    /// ```
    pub fn from_ndarray<S, D>(a: ArrayBase<S, D>) -> Tensor
    where
        S: Data,
        S::Elem: Element,
        D: Dimension,
    {
        let shape = a.shape().to_vec();
        if a.is_empty() || a.strides().iter().any(|&s| s < 0) {
            // logical (row-major) order: the one copy, whatever the strides
            let v: Vec<S::Elem> = a.iter().copied().collect();
            return Tensor {
                storage: Arc::new(Storage::from_vec(v)),
                layout: Layout::contiguous(&shape),
            };
        }
        let owned = a.into_owned(); // no copy for an `Array`
        let strides: Vec<isize> = owned.strides().to_vec();
        let (v, offset) = owned.into_raw_vec_and_offset();
        let layout = Layout {
            shape: shape.as_slice().into(),
            strides: strides.as_slice().into(),
            offset: offset.unwrap_or(0),
        };
        debug_assert!(layout.fits_in(v.len()));
        Tensor {
            storage: Arc::new(Storage::from_vec(v)),
            layout,
        }
    }

    /// A zero-copy, read-only [`ArrayViewD`] of the tensor, with its shape, strides
    /// (zero for broadcast dims) and offset.
    ///
    /// Needs exclusive access (see the [module docs](self)): `&mut self`, and no other
    /// tensor handle sharing the storage. `T` must be the tensor's element type.
    ///
    /// # Errors
    /// [`ErrorKind::Type`] when `T` is not the dtype's element type;
    /// [`ErrorKind::Runtime`] when the storage is shared or foreign memory.
    ///
    /// ```
    /// use ferric::Tensor;
    /// use ndarray::array;
    ///
    /// let mut t = Tensor::from_ndarray(array![[1.0f64, 2.0], [3.0, 4.0]]);
    /// let v = t.as_ndarray::<f64>().unwrap();
    /// assert_eq!(v, array![[1.0, 2.0], [3.0, 4.0]].into_dyn());
    /// assert!(t.as_ndarray::<f32>().is_err()); // not the tensor's dtype
    /// ```
    pub fn as_ndarray<T: Element>(&mut self) -> Result<ArrayViewD<'_, T>> {
        const OP: &str = "as_ndarray";
        check_dtype::<T>(OP, self)?;
        let Tensor { storage, layout } = self;
        let storage: &Storage = exclusive_storage(OP, storage)?;
        // SAFETY: T is the storage's element type (checked above). No mutable slice is
        // live and none can be made while the view lives: this handle is borrowed
        // mutably for the view's lifetime and is the storage's only one (checked by
        // `exclusive_storage`), and the memory is ferric's own, so nothing else can
        // reach it.
        let data = unsafe { storage.slice::<T>() };
        ArrayViewD::from_shape(stride_shape(layout), from_offset(data, layout))
            .map_err(|e| shape_error(OP, layout, e))
    }

    /// A zero-copy, writable [`ArrayViewMutD`] of the tensor (shape, strides, offset):
    /// writes through it change the tensor.
    ///
    /// Needs exclusive access like [`Tensor::as_ndarray`], and a layout where every index
    /// names its own element (not an `expand`ed tensor), writable memory, and not an
    /// inference tensor outside `inference_mode`. Bumps the storage's version counter.
    ///
    /// # Errors
    /// [`ErrorKind::Type`] for a `T` that is not the tensor's element type;
    /// [`ErrorKind::Runtime`] for shared, foreign or read-only memory and overlapping
    /// layouts.
    ///
    /// ```
    /// use ferric::Tensor;
    /// use ndarray::{array, Axis};
    ///
    /// let mut t = Tensor::from_ndarray(array![[1i64, 2, 3], [4, 5, 6]]);
    /// t.as_ndarray_mut::<i64>().unwrap().index_axis_mut(Axis(1), 1).fill(0); // column 1
    /// assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 0, 3, 4, 0, 6]);
    /// ```
    pub fn as_ndarray_mut<T: Element>(&mut self) -> Result<ArrayViewMutD<'_, T>> {
        const OP: &str = "as_ndarray_mut";
        check_dtype::<T>(OP, self)?;
        self.check_writable(OP)?;
        let Tensor { storage, layout } = self;
        let storage: &mut Storage = exclusive_storage(OP, storage)?;
        storage.bump_version();
        // SAFETY: T is the storage's element type (checked above). No other slice of the
        // storage is live and none can be made while the view lives: this handle is
        // borrowed mutably for the view's lifetime and is the storage's only one, and the
        // memory is ferric's own (`exclusive_storage`). ndarray's `from_shape` below
        // refuses layouts where two indices name one element.
        let data = unsafe { storage.slice_mut::<T>() };
        let start = layout.offset.min(data.len());
        ArrayViewMutD::from_shape(stride_shape(layout), &mut data[start..])
            .map_err(|e| shape_error(OP, layout, e))
    }

    /// A zero-copy, read-only [`ArrayViewD`] of a tensor whose storage may be shared
    /// (with views, clones, saved tensors, a NumPy array).
    ///
    /// # Safety
    /// While the returned view lives, nothing may write the tensor's storage: no
    /// in-place op (`fill`, `copy_from`, `*_` ops, optimizer steps) on any tensor
    /// sharing it, and no write through foreign owners of the memory.
    ///
    /// # Errors
    /// [`ErrorKind::Type`] when `T` is not the dtype's element type.
    ///
    /// ```
    /// use ferric::Tensor;
    /// use ndarray::array;
    ///
    /// let t = Tensor::from_ndarray(array![1.0f32, 2.0, 3.0]);
    /// let alias = t.clone(); // shares the storage: `as_ndarray` would refuse
    /// // SAFETY: neither handle is written while `v` lives.
    /// let v = unsafe { alias.as_ndarray_unchecked::<f32>() }.unwrap();
    /// assert_eq!(v.sum(), 6.0);
    /// ```
    pub unsafe fn as_ndarray_unchecked<T: Element>(&self) -> Result<ArrayViewD<'_, T>> {
        const OP: &str = "as_ndarray_unchecked";
        check_dtype::<T>(OP, self)?;
        // SAFETY: T is the storage's element type (checked above); the caller promises
        // no writes to the storage while the view lives.
        let data = unsafe { self.storage.slice::<T>() };
        ArrayViewD::from_shape(stride_shape(&self.layout), from_offset(data, &self.layout))
            .map_err(|e| shape_error(OP, &self.layout, e))
    }

    /// A standard-layout (row-major) [`ArrayD`] copy of the tensor, its elements
    /// converted to `T` as [`Tensor::to_vec`] converts them (PyTorch's casts).
    ///
    /// Works on any tensor, shared or not.
    ///
    /// ```
    /// use ferric::Tensor;
    /// use ndarray::array;
    ///
    /// let t = Tensor::from_ndarray(array![[1i64, 2], [3, 4]]);
    /// let tt = t.with_layout(t.layout.transpose(0, 1)).unwrap(); // a view
    /// assert_eq!(tt.to_ndarray::<f64>().unwrap(), array![[1.0, 3.0], [2.0, 4.0]].into_dyn());
    /// ```
    pub fn to_ndarray<T: Element>(&self) -> Result<ArrayD<T>> {
        let v = self.to_vec::<T>()?;
        ArrayD::from_shape_vec(IxDyn(self.shape()), v)
            .map_err(|e| shape_error("to_ndarray", &self.layout, e))
    }
}

/// [`Tensor::from_ndarray`] as a `From` conversion.
impl<S, D> From<ArrayBase<S, D>> for Tensor
where
    S: Data,
    S::Elem: Element,
    D: Dimension,
{
    fn from(a: ArrayBase<S, D>) -> Tensor {
        Tensor::from_ndarray(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, s, Array, ArrayView, Axis, Ix3};

    /// Distinct-ish values of every dtype (bool alternates).
    fn values<T: Element>(n: usize) -> Vec<T> {
        (0..n)
            .map(|i| T::from_i64((i % 2 + 3 * i) as i64 % 120))
            .collect()
    }

    fn array3<T: Element>() -> Array<T, Ix3> {
        Array::from_shape_vec((2, 3, 4), values::<T>(24)).unwrap()
    }

    /// A view of `t` under `layout`, as the only handle of the storage.
    fn only_view(t: Tensor, layout: Layout) -> Tensor {
        let v = t.with_layout(layout).unwrap();
        drop(t);
        v
    }

    fn layouts_round_trip<T: Element>() {
        let a = array3::<T>();
        let ptr = a.as_ptr();
        // contiguous: zero-copy both ways
        let mut t = Tensor::from_ndarray(a.clone());
        assert_eq!(t.dtype(), T::DTYPE);
        assert_eq!(t.shape(), &[2, 3, 4]);
        assert!(t.is_contiguous());
        let storage_ptr = t.storage.as_ptr() as *const T;
        let v = t.as_ndarray::<T>().unwrap();
        assert_eq!(v, a.view().into_dyn());
        assert_eq!(v.as_ptr(), storage_ptr);
        let a2 = a.clone();
        let p2 = a2.as_ptr();
        assert_ne!(p2, ptr);
        assert_eq!(Tensor::from_ndarray(a2).storage.as_ptr() as *const T, p2);

        // transposed (permuted) view
        let base = Tensor::from_ndarray(a.clone());
        let mut tt = only_view(base.clone(), base.layout.permute(&[2, 0, 1]));
        drop(base);
        assert_eq!(tt.strides(), &[1, 12, 4]);
        assert_eq!(
            tt.as_ndarray::<T>().unwrap(),
            a.view().permuted_axes([2, 0, 1]).into_dyn()
        );

        // stepped with an offset: [1:, ::2, 1::2]
        let base = Tensor::from_ndarray(a.clone());
        let l = base.layout.narrow(0, 1, 1);
        let l = l.slice(1, 0, 3, 2).unwrap().slice(2, 1, 4, 2).unwrap();
        let mut st = only_view(base, l);
        assert_eq!(st.layout.offset, 13);
        let want = a.slice(s![1.., ..;2, 1..;2]);
        assert_eq!(st.as_ndarray::<T>().unwrap(), want.into_dyn());
        assert_eq!(st.to_ndarray::<T>().unwrap(), want.to_owned().into_dyn());
        // round trip through an owned copy
        let back = Tensor::from_ndarray(st.to_ndarray::<T>().unwrap());
        assert_eq!(back.to_vec::<T>().unwrap(), st.to_vec::<T>().unwrap());

        // broadcast: zero strides
        let row = Tensor::from_ndarray(array![T::from_i64(1), T::from_i64(0), T::from_i64(5)]);
        let mut b = only_view(row.clone(), row.layout.expand(&[4, 3]).unwrap());
        drop(row);
        assert_eq!(b.strides(), &[0, 1]);
        let bv = b.as_ndarray::<T>().unwrap();
        assert_eq!(bv.strides(), &[0, 1]);
        let r = [T::from_i64(1), T::from_i64(0), T::from_i64(5)];
        assert_eq!(
            bv,
            ArrayView::from(&r).broadcast((4, 3)).unwrap().into_dyn()
        );
        // writing through aliased elements is refused
        let e = b.as_ndarray_mut::<T>().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Runtime);
        assert!(e.msg.contains("single memory location"), "{}", e.msg);

        // 0-d
        let mut z = Tensor::from_ndarray(ndarray::arr0(T::from_i64(7)));
        assert_eq!(z.shape(), &[] as &[usize]);
        assert_eq!(z.as_ndarray::<T>().unwrap().ndim(), 0);
        z.as_ndarray_mut::<T>().unwrap()[[]] = T::from_i64(0);
        assert_eq!(z.to_vec::<T>().unwrap(), vec![T::from_i64(0)]);

        // empty, also with an offset past the data
        let mut e = Tensor::from_ndarray(Array::<T, _>::from_shape_vec((0, 3), vec![]).unwrap());
        assert_eq!(e.shape(), &[0, 3]);
        assert_eq!(e.as_ndarray::<T>().unwrap().shape(), &[0, 3]);
        assert_eq!(e.as_ndarray_mut::<T>().unwrap().len(), 0);
        let base = Tensor::from_ndarray(a.clone());
        let l = base.layout.narrow(0, 2, 0);
        let mut ee = only_view(base, l);
        assert_eq!(ee.as_ndarray::<T>().unwrap().shape(), &[0, 3, 4]);
        assert_eq!(ee.to_ndarray::<T>().unwrap().shape(), &[0, 3, 4]);
    }

    #[test]
    fn every_dtype_round_trips_on_every_layout() {
        layouts_round_trip::<bool>();
        layouts_round_trip::<u8>();
        layouts_round_trip::<i8>();
        layouts_round_trip::<i16>();
        layouts_round_trip::<i32>();
        layouts_round_trip::<i64>();
        layouts_round_trip::<half::f16>();
        layouts_round_trip::<half::bf16>();
        layouts_round_trip::<f32>();
        layouts_round_trip::<f64>();
    }

    #[test]
    fn from_ndarray_keeps_or_copies_as_documented() {
        // Fortran order: the buffer is taken, strides kept
        let f = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]].reversed_axes();
        let p = f.as_ptr();
        let t = Tensor::from_ndarray(f.clone());
        assert_ne!(t.storage.as_ptr() as *const f64, p); // f.clone() copied
        let t = Tensor::from_ndarray(f);
        assert_eq!(t.storage.as_ptr() as *const f64, p);
        assert_eq!(t.strides(), &[1, 3]);
        assert_eq!(
            t.to_vec::<f64>().unwrap(),
            vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );

        // an owned array sliced in place: offset and steps kept, no copy
        let mut a = Array::from_shape_vec((4, 5), (0..20).collect::<Vec<i32>>()).unwrap();
        a.slice_collapse(s![1..;2, 2..]);
        let p = a.as_ptr();
        let t = Tensor::from_ndarray(a.clone());
        assert_eq!(t.to_vec::<i32>().unwrap(), vec![7, 8, 9, 17, 18, 19]);
        let t2 = Tensor::from_ndarray(a);
        assert_eq!(t2.layout.offset, 7);
        assert_eq!(t2.strides(), &[10, 1]);
        assert_eq!(unsafe { t2.data::<i32>() }.as_ptr().wrapping_add(7), p);

        // negative strides: copied into row-major order
        let mut n = Array::from_shape_vec((2, 3), (0..6).collect::<Vec<i64>>()).unwrap();
        n.invert_axis(Axis(1));
        let t = Tensor::from_ndarray(n.clone());
        assert!(t.is_contiguous());
        assert_eq!(t.to_vec::<i64>().unwrap(), vec![2, 1, 0, 5, 4, 3]);

        // a view and a shared array: copied
        let base = array![[1u8, 2], [3, 4]];
        let t = Tensor::from_ndarray(base.t());
        assert_eq!(t.to_vec::<u8>().unwrap(), vec![1, 3, 2, 4]);
        let t: Tensor = base.clone().into_shared().into();
        assert_eq!(t.to_vec::<u8>().unwrap(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn dtype_mismatch_is_a_type_error() {
        let mut t = Tensor::from_ndarray(array![1.0f32, 2.0]);
        let e = t.as_ndarray::<f64>().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Type);
        assert!(
            e.msg.contains("float32") && e.msg.contains("f64"),
            "{}",
            e.msg
        );
        assert_eq!(t.as_ndarray_mut::<i64>().unwrap_err().kind, ErrorKind::Type);
        assert_eq!(
            unsafe { t.as_ndarray_unchecked::<half::f16>() }
                .unwrap_err()
                .kind,
            ErrorKind::Type
        );
        // the copy converts instead
        assert_eq!(t.to_ndarray::<i64>().unwrap(), array![1i64, 2].into_dyn());
    }

    #[test]
    fn shared_or_foreign_storage_has_no_safe_view() {
        let mut t = Tensor::from_ndarray(array![1.0f32, 2.0, 3.0]);
        let alias = t.clone();
        let e = t.as_ndarray::<f32>().unwrap_err();
        assert!(e.msg.contains("shared with 1 other"), "{}", e.msg);
        assert!(t.as_ndarray_mut::<f32>().is_err());
        // SAFETY: nothing writes the storage while `v` lives
        let v = unsafe { alias.as_ndarray_unchecked::<f32>() }.unwrap();
        assert_eq!(v.iter().copied().collect::<Vec<f32>>(), vec![1.0, 2.0, 3.0]);
        drop(alias);
        assert!(t.as_ndarray::<f32>().is_ok());

        let mut buf = vec![1i64, 2, 3];
        let ptr = buf.as_mut_ptr() as *mut u8;
        // SAFETY: `buf`'s heap block is moved into the owner, which keeps it alive.
        let storage = unsafe { Storage::from_external(ptr, 3, DType::I64, true, Box::new(buf)) };
        let mut f = Tensor {
            storage: Arc::new(storage),
            layout: Layout::contiguous(&[3]),
        };
        let e = f.as_ndarray::<i64>().unwrap_err();
        assert!(e.msg.contains("owned by another library"), "{}", e.msg);
        assert_eq!(
            f.to_ndarray::<i64>().unwrap(),
            array![1i64, 2, 3].into_dyn()
        );
    }

    #[test]
    fn writes_through_the_mutable_view_reach_the_tensor() {
        let mut t = Tensor::from_ndarray(array![[1.0f64, 2.0], [3.0, 4.0]]);
        let before = t.storage.version();
        {
            let mut v = t.as_ndarray_mut::<f64>().unwrap();
            v.map_inplace(|x| *x *= 10.0);
            v.index_axis_mut(Axis(0), 1).fill(-1.0);
        }
        assert!(t.storage.version() > before);
        assert_eq!(t.to_vec::<f64>().unwrap(), vec![10.0, 20.0, -1.0, -1.0]);
        // a transposed view writes in its own index order
        let base = Tensor::from_ndarray(array![[1i16, 2, 3], [4, 5, 6]]);
        let mut tt = only_view(base.clone(), base.layout.transpose(0, 1));
        drop(base);
        tt.as_ndarray_mut::<i16>().unwrap()[[2, 0]] = 0;
        let flat = only_view(tt.clone(), Layout::contiguous(&[6]));
        drop(tt);
        assert_eq!(flat.to_vec::<i16>().unwrap(), vec![1, 2, 0, 4, 5, 6]);
        // a 1-element expanded tensor names one element once: writable
        let one = Tensor::from_ndarray(array![5.0f32]);
        let mut e = only_view(one.clone(), one.layout.expand(&[1]).unwrap());
        drop(one);
        e.as_ndarray_mut::<f32>().unwrap()[[0]] = 6.0;
        assert_eq!(e.to_vec::<f32>().unwrap(), vec![6.0]);
    }
}
