//! Triangles and diagonals: `tril`/`triu` (batched over leading dims), the `diagonal`
//! view, `diag` and `diag_embed`.

use crate::error::{Error, Result};
use crate::kernels::strided;
use crate::layout::Layout;
use crate::shape::{normalize_dim, Dims};
use crate::tensor::Tensor;

impl Tensor {
    /// Zeroes, in place, the elements outside the lower (`lower`) or upper triangle
    /// relative to `diagonal`, in every matrix of the batch.
    fn tri_(&self, op: &str, lower: bool, diagonal: i64) -> Result<()> {
        let nd = self.ndim();
        if nd < 2 {
            let name = op.trim_end_matches('_');
            return Err(Error::runtime(
                op,
                format!("{name}: input tensor must have at least 2 dimensions"),
            ));
        }
        // zeros are one value: well defined through an expanded view, as for fill_
        self.check_storage_writable(op)?;
        let (rows, cols) = (self.shape()[nd - 2], self.shape()[nd - 1] as i64);
        crate::with_dtype!(self.dtype(), T, {
            // SAFETY: T is our dtype; no other slice of this storage is live.
            let d = unsafe { self.data_mut::<T>() };
            for i in 0..rows {
                // columns to clear in row `i`
                let k = (i as i64).saturating_add(diagonal);
                let (lo, hi) = if lower {
                    (k.saturating_add(1).clamp(0, cols), cols)
                } else {
                    (0, k.clamp(0, cols))
                };
                if lo >= hi {
                    continue;
                }
                let row = self.layout.select(nd - 2, i);
                let part = row.narrow(nd - 2, lo as usize, (hi - lo) as usize);
                strided::apply_inplace(d, (&part.strides, part.offset), &part.shape, |_| {
                    T::default()
                });
            }
        });
        self.storage.bump_version();
        Ok(())
    }

    /// `tril_(diagonal)`: keeps the elements on and below the `diagonal`-th diagonal.
    pub fn tril_(&self, diagonal: i64) -> Result<()> {
        self.tri_("tril_", true, diagonal)
    }

    /// `triu_(diagonal)`: keeps the elements on and above the `diagonal`-th diagonal.
    pub fn triu_(&self, diagonal: i64) -> Result<()> {
        self.tri_("triu_", false, diagonal)
    }

    pub fn tril(&self, diagonal: i64) -> Result<Tensor> {
        self.tri_copy("tril", true, diagonal)
    }

    pub fn triu(&self, diagonal: i64) -> Result<Tensor> {
        self.tri_copy("triu", false, diagonal)
    }

    fn tri_copy(&self, op: &str, lower: bool, diagonal: i64) -> Result<Tensor> {
        if self.ndim() < 2 {
            return Err(Error::runtime(
                op,
                format!("{op}: input tensor must have at least 2 dimensions"),
            ));
        }
        let out = self.copy_as(self.dtype())?;
        out.tri_(op, lower, diagonal)?;
        Ok(out)
    }

    /// `diagonal(offset, dim1, dim2)`: a view of the diagonal of the (dim1, dim2) planes,
    /// appended as the last dim.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let nd = self.ndim();
        let (d1, d2) = (normalize_dim(dim1, nd)?, normalize_dim(dim2, nd)?);
        if nd < 2 {
            // a 0-d or 1-d tensor only gets here with dims that both wrap to 0
            return Err(Error::runtime(
                "diagonal",
                format!("diagonal dimensions cannot be identical {dim1}, {dim2}"),
            ));
        }
        if d1 == d2 {
            return Err(Error::runtime(
                "diagonal",
                format!("diagonal dimensions cannot be identical {dim1}, {dim2}"),
            ));
        }
        let l = &self.layout;
        let (n1, n2) = (l.shape[d1] as i64, l.shape[d2] as i64);
        let (s1, s2) = (l.strides[d1], l.strides[d2]);
        let len = if offset >= 0 {
            n1.min(n2 - offset).max(0)
        } else {
            (n1 + offset).min(n2).max(0)
        };
        let mut off = l.offset;
        if len > 0 {
            off += if offset >= 0 {
                offset as usize * s2 as usize
            } else {
                offset.unsigned_abs() as usize * s1 as usize
            };
        }
        let mut shape = Dims::new();
        let mut strides = crate::shape::Strides::new();
        for i in (0..nd).filter(|&i| i != d1 && i != d2) {
            shape.push(l.shape[i]);
            strides.push(l.strides[i]);
        }
        shape.push(len as usize);
        strides.push(s1 + s2);
        self.with_layout(Layout {
            shape,
            strides,
            offset: off,
        })
    }

    /// `diag(diagonal)`: a 1-d input becomes a square matrix with it on the given
    /// diagonal; a 2-d input gives a copy of that diagonal.
    pub fn diag(&self, diagonal: i64) -> Result<Tensor> {
        match self.ndim() {
            1 => self.diag_embed(diagonal, 0, 1),
            2 => self.diagonal(diagonal, 0, 1)?.copy_as(self.dtype()),
            n => Err(Error::runtime(
                "diag",
                format!("diag(): Supports 1D or 2D tensors. Got {n}D"),
            )),
        }
    }

    /// `diag_embed(offset, dim1, dim2)`: the last dim of the input becomes the diagonal of
    /// new (dim1, dim2) planes; everything else is zero.
    pub fn diag_embed(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        let nd = self.ndim() + 1;
        let (d1, d2) = (normalize_dim(dim1, nd)?, normalize_dim(dim2, nd)?);
        if d1 == d2 {
            return Err(Error::runtime(
                "diag_embed",
                format!("diagonal dimensions cannot be identical {dim1}, {dim2}"),
            ));
        }
        let x = if self.ndim() == 0 {
            self.with_layout(self.layout.unsqueeze(0))?
        } else {
            self.clone()
        };
        let n = x.shape()[x.ndim() - 1];
        let m = usize::try_from(offset.unsigned_abs())
            .ok()
            .and_then(|o| n.checked_add(o))
            .ok_or_else(|| Error::runtime("diag_embed", "the embedded size overflows"))?;
        let mut shape: Dims = Dims::from_slice(&x.shape()[..x.ndim() - 1]);
        let (lo, hi) = (d1.min(d2), d1.max(d2));
        shape.insert(lo.min(shape.len()), m);
        shape.insert(hi.min(shape.len()), m);
        let out = Tensor::zeros("diag_embed", &shape, self.dtype())?;
        out.diagonal(offset, d1 as i64, d2 as i64)?.copy_from(&x)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_and_diagonals() {
        let x = Tensor::from_vec((1..=9i64).collect(), &[3, 3]).unwrap();
        assert_eq!(
            x.tril(0).unwrap().to_vec::<i64>().unwrap(),
            vec![1, 0, 0, 4, 5, 0, 7, 8, 9]
        );
        assert_eq!(
            x.triu(1).unwrap().to_vec::<i64>().unwrap(),
            vec![0, 2, 3, 0, 0, 6, 0, 0, 0]
        );
        assert_eq!(
            x.diagonal(-1, 0, 1).unwrap().to_vec::<i64>().unwrap(),
            vec![4, 8]
        );
        let v = Tensor::from_vec(vec![1i64, 2], &[2]).unwrap();
        assert_eq!(
            v.diag(1).unwrap().to_vec::<i64>().unwrap(),
            vec![0, 1, 0, 0, 0, 2, 0, 0, 0]
        );
    }
}
