//! The view algebra: shape + strides (in elements) + storage offset. Every view op is a
//! pure function from one `Layout` to another; no data moves here.

use crate::error::{fmt_shape, Error, Result};
use crate::shape::{contiguous_strides, normalize_dim, Dims, Strides};
use smallvec::SmallVec;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Dims,
    /// Strides in elements, one per dim; 0 for broadcast (expanded) dims.
    pub strides: Strides,
    /// Offset of element `[0, 0, ...]` from the start of the storage, in elements.
    pub offset: usize,
}

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Self {
        Layout {
            shape: shape.into(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// PyTorch's definition: strides of size-1 dims do not matter, empty is contiguous.
    pub fn is_contiguous(&self) -> bool {
        if self.shape.contains(&0) {
            return true;
        }
        let mut expected: isize = 1;
        for i in (0..self.ndim()).rev() {
            if self.shape[i] != 1 {
                if self.strides[i] != expected {
                    return false;
                }
                expected *= self.shape[i] as isize;
            }
        }
        true
    }

    /// True if the elements fill `numel` consecutive storage slots from `offset` in some
    /// order of the dims (see [`is_dense`]).
    pub fn is_dense(&self) -> bool {
        is_dense(&self.shape, &self.strides)
    }

    /// One past the largest storage index this layout touches (0 when empty).
    pub fn max_extent(&self) -> usize {
        if self.shape.contains(&0) {
            return 0;
        }
        let mut m = self.offset;
        for (&d, &s) in self.shape.iter().zip(self.strides.iter()) {
            m += (d - 1) * s as usize;
        }
        m + 1
    }

    /// True if every element this layout names lies inside a storage of `len` elements
    /// (checked arithmetic: a layout whose extent overflows does not fit; an empty one
    /// always fits, wherever its offset points).
    pub fn fits_in(&self, len: usize) -> bool {
        if self.shape.contains(&0) {
            return true;
        }
        let mut end = self.offset;
        for (&d, &s) in self.shape.iter().zip(self.strides.iter()) {
            let Ok(s) = usize::try_from(s) else {
                return false;
            };
            match (d - 1).checked_mul(s).and_then(|x| end.checked_add(x)) {
                Some(e) => end = e,
                None => return false,
            }
        }
        end < len
    }

    /// True if two different indices may name the same element (an expanded dim).
    /// Writing in place through such a layout is refused, as in PyTorch.
    pub fn has_internal_overlap(&self) -> bool {
        self.shape
            .iter()
            .zip(self.strides.iter())
            .any(|(&d, &s)| d > 1 && s == 0)
    }

    pub fn permute(&self, dims: &[usize]) -> Layout {
        Layout {
            shape: dims.iter().map(|&d| self.shape[d]).collect(),
            strides: dims.iter().map(|&d| self.strides[d]).collect(),
            offset: self.offset,
        }
    }

    pub fn transpose(&self, d0: usize, d1: usize) -> Layout {
        let mut l = self.clone();
        if l.ndim() > 0 {
            l.shape.swap(d0, d1);
            l.strides.swap(d0, d1);
        }
        l
    }

    /// `expand`: sizes of -1 keep the dim; new leading dims and expanded size-1 dims get
    /// stride 0.
    pub fn expand(&self, sizes: &[i64]) -> Result<Layout> {
        let nd = self.ndim();
        if sizes.len() < nd {
            return Err(Error::runtime(
                "expand",
                format!(
                    "the number of sizes provided ({}) must be greater or equal to the number \
                     of dimensions in the tensor ({nd})",
                    sizes.len()
                ),
            ));
        }
        let lead = sizes.len() - nd;
        let mut shape: Dims = SmallVec::with_capacity(sizes.len());
        let mut strides: Strides = SmallVec::with_capacity(sizes.len());
        for (i, &s) in sizes.iter().enumerate() {
            if i < lead {
                if s < 0 {
                    return Err(Error::runtime(
                        "expand",
                        format!(
                            "The expanded size of the tensor ({s}) isn't allowed in a leading, \
                             non-existing dimension {i}"
                        ),
                    ));
                }
                shape.push(s as usize);
                strides.push(0);
            } else {
                let (d, st) = (self.shape[i - lead], self.strides[i - lead]);
                if s == -1 || s as usize == d {
                    shape.push(d);
                    strides.push(st);
                } else if d == 1 && s >= 0 {
                    shape.push(s as usize);
                    strides.push(0);
                } else {
                    let target: Vec<String> = sizes.iter().map(|x| x.to_string()).collect();
                    return Err(Error::runtime(
                        "expand",
                        format!(
                            "The expanded size of the tensor ({s}) must match the existing size \
                             ({d}) at non-singleton dimension {i}.  Target sizes: [{}].  Tensor \
                             sizes: {}",
                            target.join(", "),
                            fmt_shape(&self.shape)
                        ),
                    ));
                }
            }
        }
        crate::shape::checked_numel("expand", &shape)?;
        Ok(Layout {
            shape,
            strides,
            offset: self.offset,
        })
    }

    /// Broadcasts to `shape` (which must be a valid broadcast target).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        self.expand(&sizes)
    }

    /// Elements `start..start+len` along `dim` (already validated by the caller).
    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Layout {
        let mut l = self.clone();
        if len > 0 {
            l.offset += start * l.strides[dim] as usize;
        }
        l.shape[dim] = len;
        l
    }

    /// Python slice `start:stop:step` along `dim`, with Python's clamping (step > 0).
    pub fn slice(&self, dim: usize, start: i64, stop: i64, step: i64) -> Result<Layout> {
        if step <= 0 {
            return Err(Error::value("slice", "step must be greater than zero"));
        }
        let n = self.shape[dim] as i64;
        let clamp = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
        let (s, e) = (clamp(start), clamp(stop));
        // ceil((e - s) / step) without forming e - s + step (step may be i64::MAX)
        let len = if e > s { (e - s - 1) / step + 1 } else { 0 };
        let mut l = self.clone();
        if len > 0 {
            l.offset += (s as usize) * l.strides[dim] as usize;
        }
        l.shape[dim] = len as usize;
        l.strides[dim] = l.strides[dim].checked_mul(step as isize).ok_or_else(|| {
            Error::runtime(
                "slice",
                format!(
                    "stride {} times step {step} overflows (dim {dim} of shape {})",
                    self.strides[dim],
                    fmt_shape(&self.shape)
                ),
            )
        })?;
        Ok(l)
    }

    /// Removes `dim`, fixing it at `index` (already wrapped and checked).
    pub fn select(&self, dim: usize, index: usize) -> Layout {
        let mut l = self.clone();
        l.offset += index * l.strides[dim] as usize;
        l.shape.remove(dim);
        l.strides.remove(dim);
        l
    }

    pub fn unsqueeze(&self, dim: usize) -> Layout {
        let mut l = self.clone();
        let st = if dim < l.ndim() {
            l.strides[dim] * l.shape[dim] as isize
        } else {
            1
        };
        l.shape.insert(dim, 1);
        l.strides.insert(dim, st);
        l
    }

    /// Removes `dim` if it has size 1 (PyTorch leaves other dims alone silently).
    pub fn squeeze_dims(&self, dims: &[usize]) -> Layout {
        let mut shape = Dims::new();
        let mut strides = Strides::new();
        for i in 0..self.ndim() {
            if !(dims.contains(&i) && self.shape[i] == 1) {
                shape.push(self.shape[i]);
                strides.push(self.strides[i]);
            }
        }
        Layout {
            shape,
            strides,
            offset: self.offset,
        }
    }

    /// Strides for viewing this layout with `new_shape` without copying, if possible
    /// (PyTorch's `computeStride`: dims can be split or merged only within chunks of
    /// memory that are contiguous with respect to each other).
    pub fn view(&self, new_shape: &[usize]) -> Option<Layout> {
        let old_shape = &self.shape;
        let old_strides = &self.strides;
        let make = |strides: Strides| Layout {
            shape: new_shape.into(),
            strides,
            offset: self.offset,
        };
        if old_shape.is_empty() {
            return Some(make(SmallVec::from_elem(1, new_shape.len())));
        }
        if self.numel() == 0 {
            if old_shape.as_slice() == new_shape {
                return Some(self.clone());
            }
            return Some(make(contiguous_strides(new_shape)));
        }
        let mut new_strides: Strides = SmallVec::from_elem(0, new_shape.len());
        let mut view_d = new_shape.len() as isize - 1;
        let mut chunk_base_stride = *old_strides.last()?;
        let mut tensor_numel: usize = 1;
        let mut view_numel: usize = 1;
        for tensor_d in (0..old_shape.len()).rev() {
            tensor_numel *= old_shape[tensor_d];
            let chunk_ends = tensor_d == 0
                || (old_shape[tensor_d - 1] != 1
                    && old_strides[tensor_d - 1] != tensor_numel as isize * chunk_base_stride);
            if chunk_ends {
                while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1)
                {
                    new_strides[view_d as usize] = view_numel as isize * chunk_base_stride;
                    view_numel *= new_shape[view_d as usize];
                    view_d -= 1;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if tensor_d > 0 {
                    chunk_base_stride = old_strides[tensor_d - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        if view_d != -1 {
            return None;
        }
        Some(make(new_strides))
    }

    /// Storage index of a multi-index (caller guarantees bounds).
    pub fn index_of(&self, idx: &[usize]) -> usize {
        let mut o = self.offset as isize;
        for (i, &s) in idx.iter().zip(self.strides.iter()) {
            o += *i as isize * s;
        }
        o as usize
    }
}

/// True if elements of this shape and strides fill `numel` consecutive slots in some order
/// of the dims (a contiguous tensor, or a permutation of one such as `w.t()`): all strides
/// positive, so the block starts at the offset. Two dense layouts with the same shape and
/// strides put the same logical element at the same position of their blocks, so
/// elementwise work can run over the blocks as flat arrays.
pub fn is_dense(shape: &[usize], strides: &[isize]) -> bool {
    let mut dims: SmallVec<[(isize, usize); 6]> = strides
        .iter()
        .zip(shape.iter())
        .filter(|&(_, &d)| d != 1)
        .map(|(&s, &d)| (s, d))
        .collect();
    if dims.iter().any(|&(_, d)| d == 0) {
        return true;
    }
    dims.sort_unstable();
    let mut expected: isize = 1;
    for (s, d) in dims {
        if s != expected {
            return false;
        }
        expected *= d as isize;
    }
    true
}

/// Wraps an element index along a dim of size `size` (negative counts from the end).
pub fn wrap_index(op: &str, index: i64, dim: usize, size: usize) -> Result<usize> {
    let n = size as i64;
    if index < -n || index >= n {
        return Err(Error::index(
            op,
            format!("index {index} is out of bounds for dimension {dim} with size {size}"),
        ));
    }
    Ok(if index < 0 {
        (index + n) as usize
    } else {
        index as usize
    })
}

/// Validates a permutation of `0..ndim` (negative dims allowed).
pub fn check_permutation(dims: &[i64], ndim: usize) -> Result<SmallVec<[usize; 6]>> {
    if dims.len() != ndim {
        return Err(Error::runtime(
            "permute",
            format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match \
                 the length of the desired ordering of dimensions i.e. input.dim() = {ndim} is \
                 not equal to len(dims) = {}",
                dims.len()
            ),
        ));
    }
    let mut out: SmallVec<[usize; 6]> = SmallVec::new();
    for &d in dims {
        let nd = normalize_dim(d, ndim)?;
        if out.contains(&nd) {
            return Err(Error::runtime(
                "permute",
                "permute(): duplicate dims are not allowed.",
            ));
        }
        out.push(nd);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_layouts_are_permutations_of_contiguous_ones() {
        let c = Layout::contiguous(&[3, 4, 5]);
        assert!(c.is_dense());
        assert!(c.permute(&[2, 0, 1]).is_dense());
        assert!(c.transpose(0, 2).is_dense());
        // gaps (a step slice), repeats (an expanded dim) and narrowed rows are not dense
        assert!(!c.slice(2, 0, 5, 2).unwrap().is_dense());
        assert!(!Layout::contiguous(&[1, 4])
            .expand(&[3, 4])
            .unwrap()
            .is_dense());
        assert!(!c.narrow(2, 0, 3).is_dense());
        // size-1 dims are ignored; empty tensors are trivially dense
        assert!(Layout::contiguous(&[4, 1]).transpose(0, 1).is_dense());
        assert!(Layout::contiguous(&[0, 3]).transpose(0, 1).is_dense());
    }

    #[test]
    fn contiguity() {
        let l = Layout::contiguous(&[2, 3, 4]);
        assert!(l.is_contiguous());
        assert!(!l.transpose(0, 2).is_contiguous());
        assert!(Layout::contiguous(&[0, 3]).transpose(0, 1).is_contiguous());
        assert!(l.unsqueeze(1).is_contiguous());
    }

    #[test]
    fn view_merges_and_splits() {
        let l = Layout::contiguous(&[2, 3, 4]);
        let v = l.view(&[6, 4]).unwrap();
        assert_eq!(v.strides.as_slice(), &[4, 1]);
        let t = l.transpose(0, 1); // (3,2,4) strides (4,12,1)
        assert!(t.view(&[6, 4]).is_none());
        assert_eq!(
            t.view(&[3, 2, 2, 2]).unwrap().strides.as_slice(),
            &[4, 12, 2, 1]
        );
        let s = Layout::contiguous(&[]);
        assert_eq!(s.view(&[1, 1]).unwrap().strides.as_slice(), &[1, 1]);
    }

    #[test]
    fn slicing_and_select() {
        let l = Layout::contiguous(&[10]);
        let s = l.slice(0, 1, 8, 3).unwrap();
        assert_eq!((s.shape[0], s.strides[0], s.offset), (3, 3, 1));
        let e = l.slice(0, 5, 2, 1).unwrap();
        assert_eq!(e.shape[0], 0);
        let m = Layout::contiguous(&[3, 4]).select(0, 2);
        assert_eq!((m.shape.as_slice(), m.offset), (&[4usize][..], 8));
    }

    #[test]
    fn expand_rules() {
        let l = Layout::contiguous(&[3, 1]);
        let e = l.expand(&[2, 3, 4]).unwrap();
        assert_eq!(e.strides.as_slice(), &[0, 1, 0]);
        assert!(e.has_internal_overlap());
        assert!(l.expand(&[3, 2, 4]).is_err());
        assert!(l.expand(&[4]).is_err());
    }

    #[test]
    fn extent() {
        let l = Layout::contiguous(&[3, 4]).transpose(0, 1);
        assert_eq!(l.max_extent(), 12);
        assert_eq!(Layout::contiguous(&[0]).max_extent(), 0);
    }

    #[test]
    fn fits_in_uses_checked_arithmetic() {
        let l = Layout::contiguous(&[3, 4]);
        assert!(l.fits_in(12) && !l.fits_in(11));
        let mut past = l.narrow(0, 1, 2);
        assert!(past.fits_in(12));
        past.offset = 5;
        assert!(!past.fits_in(12));
        // an extent that overflows usize never fits
        let huge = Layout {
            shape: [2, 2].as_slice().into(),
            strides: [isize::MAX, 1].as_slice().into(),
            offset: usize::MAX / 2,
        };
        assert!(!huge.fits_in(usize::MAX));
        // empty layouts fit wherever they point
        let mut empty = Layout::contiguous(&[0, 5]);
        empty.offset = 1 << 40;
        assert!(empty.fits_in(0));
    }

    #[test]
    fn slice_steps_do_not_overflow() {
        let l = Layout::contiguous(&[5]);
        let s = l.slice(0, 1, i64::MAX, i64::MAX - 1).unwrap();
        assert_eq!((s.shape[0], s.offset), (1, 1));
        let wide = Layout::contiguous(&[5, 3]);
        assert!(wide.slice(0, 0, 5, i64::MAX).is_err());
    }
}
