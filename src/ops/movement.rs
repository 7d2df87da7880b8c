//! View ops (no data movement) and the few shape ops that must copy.

use crate::error::{fmt_shape, Error, Result};
use crate::layout::{check_permutation, wrap_index, Layout};
use crate::shape::{checked_numel, infer_size, normalize_dim, normalize_dims, Dims};
use crate::tensor::Tensor;
use smallvec::SmallVec;

/// PyTorch's movedim message for a repeated dim (other errors pass through).
fn repeated_dim(e: Error, which: &str, dims: &[i64]) -> Error {
    if e.msg.contains("appears multiple times") {
        Error::runtime(
            "movedim",
            format!("movedim: repeated dim in `{which}` ({dims:?})"),
        )
    } else {
        e
    }
}

impl Tensor {
    /// `view`: never copies; fails when the strides do not allow it.
    pub fn view(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = infer_size("view", sizes, self.numel())?;
        match self.layout.view(&shape) {
            Some(l) => Ok(self.with_layout(l)?),
            None => Err(Error::runtime(
                "view",
                format!(
                    "view size is not compatible with input tensor's size and stride (at least \
                     one dimension spans across two contiguous subspaces) for input of shape {} \
                     and target shape {}. Use .reshape(...) instead.",
                    fmt_shape(self.shape()),
                    fmt_shape(&shape)
                ),
            )),
        }
    }

    /// `reshape`: a view when the strides allow it, else a contiguous copy.
    pub fn reshape(&self, sizes: &[i64]) -> Result<Tensor> {
        let shape = infer_size("reshape", sizes, self.numel())?;
        match self.layout.view(&shape) {
            Some(l) => Ok(self.with_layout(l)?),
            None => {
                let c = self.copy_as(self.dtype())?;
                Ok(c.with_layout(Layout::contiguous(&shape))?)
            }
        }
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        let p = check_permutation(dims, self.ndim())?;
        self.with_layout(self.layout.permute(&p))
    }

    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        let n = self.ndim();
        let (a, b) = (normalize_dim(d0, n)?, normalize_dim(d1, n)?);
        self.with_layout(self.layout.transpose(a, b))
    }

    /// `t()`: transpose of a <=2-d tensor.
    pub fn t(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            return Err(Error::runtime(
                "t",
                format!(
                    "t() expects a tensor with <= 2 dimensions, but self is {}D",
                    self.ndim()
                ),
            ));
        }
        if self.ndim() < 2 {
            return Ok(self.clone());
        }
        self.transpose(0, 1)
    }

    /// `mT`: transpose of the last two dims.
    pub fn mt(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            return Err(Error::runtime(
                "mT",
                "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
            ));
        }
        self.transpose(-2, -1)
    }

    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        self.with_layout(self.layout.expand(sizes)?)
    }

    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        self.with_layout(self.layout.broadcast_to(shape)?)
    }

    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        let nd = self.ndim();
        let dims: SmallVec<[usize; 6]> = match dims {
            None => (0..nd).collect(),
            Some(ds) => {
                if nd == 0 {
                    // a 0-d tensor accepts dim 0/-1 and stays 0-d
                    for &d in ds {
                        normalize_dim(d, 0)?;
                    }
                    return Ok(self.clone());
                }
                normalize_dims("squeeze", ds, nd)?
            }
        };
        self.with_layout(self.layout.squeeze_dims(&dims))
    }

    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        let d = normalize_dim(dim, self.ndim() + 1)?;
        self.with_layout(self.layout.unsqueeze(d))
    }

    pub fn flatten(&self, start: i64, end: i64) -> Result<Tensor> {
        let nd = self.ndim();
        if nd == 0 {
            // a 0-d tensor's dims are checked as if it were 1-d, as in PyTorch
            normalize_dim(start, 1)?;
            normalize_dim(end, 1)?;
            return self.reshape(&[1]);
        }
        let (s, e) = (normalize_dim(start, nd)?, normalize_dim(end, nd)?);
        if s > e {
            return Err(Error::runtime(
                "flatten",
                "flatten() has invalid args: start_dim cannot come after end_dim",
            ));
        }
        let mut sizes: Vec<i64> = Vec::with_capacity(nd);
        sizes.extend(self.shape()[..s].iter().map(|&d| d as i64));
        sizes.push(self.shape()[s..=e].iter().product::<usize>() as i64);
        sizes.extend(self.shape()[e + 1..].iter().map(|&d| d as i64));
        self.reshape(&sizes)
    }

    pub fn unflatten(&self, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        let nd = self.ndim();
        if nd == 0 {
            return Err(Error::runtime(
                "unflatten",
                // PyTorch wraps the dim as for a 1-d tensor first (-1 is 0)
                format!(
                    "Dimension specified as {} but tensor has no dimensions",
                    if dim < 0 { dim + 1 } else { dim }
                ),
            ));
        }
        let d = normalize_dim(dim, nd)?;
        if sizes.is_empty() {
            return Err(Error::runtime(
                "unflatten",
                "unflatten: sizes must be non-empty",
            ));
        }
        let inner = infer_size("unflatten", sizes, self.shape()[d]).map_err(|_| {
            Error::runtime(
                "unflatten",
                format!(
                    "unflatten: Provided sizes {:?} don't multiply up to the size of dim {dim} ({}) in the input tensor",
                    sizes,
                    self.shape()[d]
                ),
            )
        })?;
        let mut new: Vec<i64> = self.shape()[..d].iter().map(|&x| x as i64).collect();
        new.extend(inner.iter().map(|&x| x as i64));
        new.extend(self.shape()[d + 1..].iter().map(|&x| x as i64));
        self.view(&new).or_else(|_| self.reshape(&new))
    }

    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::runtime(
                "narrow",
                "narrow() cannot be applied to a 0-dim tensor.",
            ));
        }
        let d = normalize_dim(dim, self.ndim())?;
        let size = self.shape()[d] as i64;
        if length < 0 {
            return Err(Error::runtime(
                "narrow",
                "narrow(): length must be non-negative.",
            ));
        }
        let st = if start < 0 { start + size } else { start };
        if st < 0 || st > size {
            return Err(Error::index(
                "narrow",
                format!(
                    "start out of range (expected to be in range of [{}, {}], but got {start})",
                    -size, size
                ),
            ));
        }
        // `length` may be anything up to i64::MAX: compare without overflowing
        if length > size - st {
            return Err(Error::runtime(
                "narrow",
                format!("start ({start}) + length ({length}) exceeds dimension size ({size})."),
            ));
        }
        self.with_layout(self.layout.narrow(d, st as usize, length as usize))
    }

    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        if self.ndim() == 0 {
            return Err(Error::index(
                "select",
                "select() cannot be applied to a 0-dim tensor.",
            ));
        }
        let d = normalize_dim(dim, self.ndim())?;
        let i = wrap_index("select", index, d, self.shape()[d]).map_err(|_| {
            Error::index(
                "select",
                format!(
                    "select(): index {index} out of range for tensor of size {} at dimension {d}",
                    crate::error::fmt_shape(self.shape())
                ),
            )
        })?;
        self.with_layout(self.layout.select(d, i))
    }

    /// Python slice along one dim.
    pub fn slice(&self, dim: usize, start: i64, stop: i64, step: i64) -> Result<Tensor> {
        self.with_layout(self.layout.slice(dim, start, stop, step)?)
    }

    pub fn unbind(&self, dim: i64) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            return Err(Error::index(
                "unbind",
                "Dimension specified as 0 but tensor has no dimensions",
            ));
        }
        let d = normalize_dim(dim, self.ndim())?;
        (0..self.shape()[d])
            .map(|i| self.with_layout(self.layout.select(d, i)))
            .collect::<Result<_>>()
    }

    /// `split` with one size: chunks of `size` (the last may be smaller).
    pub fn split_size(&self, size: i64, dim: i64) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            return Err(Error::runtime(
                "split",
                "split expects at least a 1-dimensional tensor",
            ));
        }
        let d = normalize_dim(dim, self.ndim())?;
        let n = self.shape()[d];
        if size < 0 {
            return Err(Error::runtime(
                "split",
                format!("split expects split_size be non-negative, but got split_size={size}"),
            ));
        }
        if size == 0 && n != 0 {
            return Err(Error::runtime("split", format!("split_size can only be 0 if dimension size is 0, but got dimension size of {n}")));
        }
        if n == 0 {
            return Ok(vec![self.clone()]);
        }
        let size = size as usize;
        let mut out = Vec::new();
        let mut s = 0;
        while s < n {
            let len = size.min(n - s);
            out.push(self.with_layout(self.layout.narrow(d, s, len))?);
            s += len;
        }
        Ok(out)
    }

    /// `split` with a list of sizes that must sum to the dim size.
    pub fn split_sizes(&self, sizes: &[i64], dim: i64) -> Result<Vec<Tensor>> {
        if self.ndim() == 0 {
            return Err(Error::runtime(
                "split",
                "split expects at least a 1-dimensional tensor",
            ));
        }
        let d = normalize_dim(dim, self.ndim())?;
        let n = self.shape()[d];
        let total = sizes.iter().try_fold(0i64, |acc, &s| acc.checked_add(s));
        if sizes.iter().any(|&s| s < 0) || total != Some(n as i64) {
            return Err(Error::runtime(
                "split_with_sizes",
                format!("split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {dim}), but got split_sizes={sizes:?}"),
            ));
        }
        let mut s = 0;
        sizes
            .iter()
            .map(|&len| {
                let v = self.with_layout(self.layout.narrow(d, s, len as usize));
                s += len as usize;
                v
            })
            .collect::<Result<_>>()
    }

    pub fn chunk(&self, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
        if chunks <= 0 {
            return Err(Error::runtime(
                "chunk",
                "chunk expects `chunks` to be greater than 0, got: ".to_string()
                    + &chunks.to_string(),
            ));
        }
        if self.ndim() == 0 {
            return Err(Error::runtime(
                "chunk",
                "chunk expects at least a 1-dimensional tensor",
            ));
        }
        let d = normalize_dim(dim, self.ndim())?;
        let n = self.shape()[d] as i64;
        // ceil(n / chunks) without forming n + chunks (chunks may be i64::MAX)
        let size = if n == 0 { 0 } else { (n - 1) / chunks + 1 };
        if size == 0 {
            // PyTorch: splitting an empty dim gives `chunks` empty pieces (so the count is
            // the user's: allocate fallibly)
            let chunks = usize::try_from(chunks).unwrap_or(usize::MAX);
            let mut out = Vec::new();
            out.try_reserve_exact(chunks)
                .map_err(|_| crate::storage::too_big::<Tensor>("chunk", chunks))?;
            out.extend((0..chunks).map(|_| self.clone()));
            return Ok(out);
        }
        self.split_size(size, dim)
    }

    pub fn movedim(&self, src: &[i64], dst: &[i64]) -> Result<Tensor> {
        self.permute(&self.movedim_perm(src, dst)?)
    }

    /// The permutation `movedim(src, dst)` applies.
    pub fn movedim_perm(&self, src: &[i64], dst: &[i64]) -> Result<Vec<i64>> {
        let nd = self.ndim();
        if src.len() != dst.len() {
            return Err(Error::runtime(
                "movedim",
                format!("movedim: Invalid source or destination dims: source ({src:?} dims) should contain the same number of dims as destination ({dst:?} dims)"),
            ));
        }
        let s = normalize_dims("movedim", src, nd).map_err(|e| repeated_dim(e, "source", src))?;
        let t =
            normalize_dims("movedim", dst, nd).map_err(|e| repeated_dim(e, "destination", dst))?;
        let mut order: Vec<Option<usize>> = vec![None; nd];
        for (&a, &b) in s.iter().zip(t.iter()) {
            order[b] = Some(a);
        }
        let mut rest = (0..nd).filter(|i| !s.contains(i));
        Ok(order
            .iter()
            .map(|o| o.unwrap_or_else(|| rest.next().unwrap_or(0)) as i64)
            .collect())
    }

    /// Result shape for functions taking `*size` (used by creation ops).
    pub fn numel_of(op: &str, shape: &[usize]) -> Result<usize> {
        checked_numel(op, shape)
    }
}

/// Shape of `a` with `dim` removed (for reductions with keepdim=False).
pub fn drop_dim(shape: &[usize], dim: usize) -> Dims {
    shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != dim)
        .map(|(_, &d)| d)
        .collect()
}

impl Tensor {
    /// `as_strided(size, stride, storage_offset)`: a view of this tensor's storage with the
    /// given geometry (in elements; the offset defaults to this tensor's own). The view is
    /// checked against the storage, so it can never reach outside it.
    pub fn as_strided(&self, size: &[i64], stride: &[i64], offset: Option<i64>) -> Result<Tensor> {
        if size.len() != stride.len() {
            return Err(Error::runtime(
                "as_strided",
                "mismatch in length of strides and shape",
            ));
        }
        if stride.iter().any(|&s| s < 0) {
            return Err(Error::runtime(
                "as_strided",
                format!(
                    "as_strided: Negative strides are not supported at the moment, got \
                     strides: {stride:?}"
                ),
            ));
        }
        if size.iter().any(|&d| d < 0) {
            return Err(Error::runtime(
                "as_strided",
                format!(
                    "Storage size calculation overflowed with sizes={size:?} and \
                     strides={stride:?}"
                ),
            ));
        }
        let shape = crate::shape::to_dims("as_strided", size)?;
        let off = offset.unwrap_or(self.layout.offset as i64);
        let Ok(off_u) = usize::try_from(off) else {
            return Err(Error::runtime(
                "as_strided",
                format!("Tensor: invalid storage offset {off}"),
            ));
        };
        let layout = Layout {
            shape,
            strides: stride.iter().map(|&s| s as isize).collect(),
            offset: off_u,
        };
        if !layout.fits_in(self.storage.len()) {
            // PyTorch's message counts bytes
            let item = self.dtype().size_of() as u128;
            let extent = size
                .iter()
                .zip(stride)
                .map(|(&d, &s)| (d as u128).saturating_sub(1) * s as u128)
                .sum::<u128>();
            let need = if size.contains(&0) {
                0
            } else {
                (off_u as u128 + extent + 1) * item
            };
            return Err(Error::runtime(
                "as_strided",
                format!(
                    "setStorage: sizes {size:?}, strides {stride:?}, storage offset {off}, and \
                     itemsize {item} requiring a storage size of {need} are out of bounds for \
                     storage of size {}",
                    self.storage.len() as u128 * item
                ),
            ));
        }
        self.with_layout(layout)
    }
}
