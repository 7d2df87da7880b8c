//! Shape-copy ops: `flip`, `roll`, `repeat`, `tile`, `repeat_interleave`. Each builds a
//! strided description of the result over the input's storage and copies once.

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::index::visit;
use crate::shape::{checked_numel, contiguous_strides, normalize_dim, normalize_dims, to_dims};
use crate::shape::{Dims, Strides};
use crate::storage::try_zeroed_vec;
use crate::tensor::Tensor;

/// A contiguous copy of `t`'s storage read through `shape`/`strides`/`offset`, where the
/// strides may be negative (flip). Such layouts never escape into a `Tensor`.
fn copy_signed(t: &Tensor, shape: &[usize], strides: &[isize], offset: usize) -> Result<Tensor> {
    let n = checked_numel("copy", shape)?;
    let rowmajor = contiguous_strides(shape);
    crate::with_dtype!(t.dtype(), T, {
        let mut out = try_zeroed_vec::<T>("copy", n)?;
        // SAFETY: T is t's dtype; `out` is a separate buffer.
        let x = unsafe { t.data::<T>() };
        visit(shape, [strides, &rowmajor[..]], [offset, 0], |[ps, po]| {
            out[po] = x[ps]
        });
        Tensor::from_vec(out, shape)
    })
}

/// `repeats` argument of `repeat_interleave`.
pub enum Repeats<'a> {
    Int(i64),
    Tensor(&'a Tensor),
}

/// `repeat_interleave(repeats_tensor)`: `i` repeated `repeats[i]` times, for all `i`.
pub fn repeat_interleave_index(repeats: &Tensor) -> Result<Tensor> {
    if repeats.ndim() > 1 {
        return Err(Error::runtime(
            "repeat_interleave",
            "repeat_interleave only accept 1D vector as repeat",
        ));
    }
    if repeats.dtype() != crate::dtype::DType::I64 {
        // PyTorch's kernel dispatches on the index types before anything else
        return Err(Error::dtype_not_implemented(
            "repeat_interleave_cpu",
            repeats.dtype(),
        ));
    }
    let r = repeats.to_vec::<i64>()?;
    if r.iter().any(|&v| v < 0) {
        return Err(Error::runtime(
            "repeat_interleave",
            "repeats can not be negative",
        ));
    }
    let total = r
        .iter()
        .try_fold(0usize, |acc, &v| acc.checked_add(v as usize))
        .ok_or_else(|| Error::runtime("repeat_interleave", "repeats overflow"))?;
    checked_numel("repeat_interleave", &[total])?;
    let mut idx = try_zeroed_vec::<i64>("repeat_interleave", total)?;
    let mut k = 0;
    for (i, &v) in r.iter().enumerate() {
        idx[k..k + v as usize].fill(i as i64);
        k += v as usize;
    }
    Tensor::from_vec(idx, &[total])
}

impl Tensor {
    /// `flip(dims)`: a copy with the order of elements reversed along `dims`.
    pub fn flip(&self, dims: &[i64]) -> Result<Tensor> {
        let ds = normalize_dims("flip", dims, self.ndim())?;
        let mut strides: Strides = Strides::from_slice(self.strides());
        let mut offset = self.layout.offset as isize;
        if self.numel() > 0 {
            for &d in &ds {
                if d < self.ndim() {
                    offset += (self.shape()[d] as isize - 1) * strides[d];
                    strides[d] = -strides[d];
                }
            }
        }
        copy_signed(self, self.shape(), &strides, offset as usize)
    }

    /// `fliplr`: flip along dim 1 (needs at least 2 dims).
    pub fn fliplr(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            return Err(Error::runtime("fliplr", "Input must be >= 2-d."));
        }
        self.flip(&[1])
    }

    /// `flipud`: flip along dim 0 (needs at least 1 dim).
    pub fn flipud(&self) -> Result<Tensor> {
        if self.ndim() < 1 {
            return Err(Error::runtime("flipud", "Input must be >= 1-d."));
        }
        self.flip(&[0])
    }

    /// `roll(shifts, dims)`: elements shifted cyclically; with no dims the flattened
    /// tensor is rolled and the shape restored.
    pub fn roll(&self, shifts: &[i64], dims: &[i64]) -> Result<Tensor> {
        if shifts.is_empty() {
            return Err(Error::runtime("roll", "`shifts` required"));
        }
        if dims.is_empty() && shifts.len() == 1 {
            let shape: Vec<i64> = self.shape().iter().map(|&d| d as i64).collect();
            return self.reshape(&[-1])?.roll(shifts, &[0])?.reshape(&shape);
        }
        if shifts.len() != dims.len() {
            return Err(Error::runtime(
                "roll",
                format!(
                    "shifts and dimensions must align. shifts: {}, dims:{}",
                    shifts.len(),
                    dims.len()
                ),
            ));
        }
        if self.ndim() == 0 {
            return Err(Error::index(
                "roll",
                format!(
                    "Dimension specified as {} but tensor has no dimensions",
                    if dims[0] < 0 { dims[0] + 1 } else { dims[0] }
                ),
            ));
        }
        let x = self.clone();
        // total shift per dim (repeated dims add up), reduced modulo the size
        let mut shift = vec![0i64; x.ndim()];
        for (&s, &d) in shifts.iter().zip(dims) {
            let d = normalize_dim(d, self.ndim())?;
            let n = x.shape()[d] as i64;
            if n > 0 {
                shift[d] = (shift[d] + s.rem_euclid(n)) % n;
            }
        }
        let out = Tensor::zeros("roll", x.shape(), x.dtype())?;
        let rolled: Vec<usize> = (0..x.ndim()).filter(|&d| shift[d] != 0).collect();
        // each dim splits into two pieces; copy every combination once
        for piece in 0..(1usize << rolled.len()) {
            let (mut src, mut dst) = (x.layout.clone(), out.layout.clone());
            for (bit, &d) in rolled.iter().enumerate() {
                let (n, s) = (x.shape()[d], shift[d] as usize);
                if piece >> bit & 1 == 1 {
                    src = src.narrow(d, n - s, s);
                    dst = dst.narrow(d, 0, s);
                } else {
                    src = src.narrow(d, 0, n - s);
                    dst = dst.narrow(d, s, n - s);
                }
            }
            out.with_layout(dst)?.copy_from(&x.with_layout(src)?)?;
        }
        out.with_layout(Layout::contiguous(self.shape()))
    }

    /// `repeat(*sizes)`: the tensor tiled `sizes[i]` times along each dim (leading new
    /// dims allowed).
    pub fn repeat(&self, sizes: &[i64]) -> Result<Tensor> {
        let nd = self.ndim();
        if sizes.len() < nd {
            return Err(Error::runtime(
                "repeat",
                "Number of dimensions of repeat dims can not be smaller than number of \
                 dimensions of tensor",
            ));
        }
        let lead = sizes.len() - nd;
        if let Some(i) = sizes.iter().position(|&r| r < 0) {
            // PyTorch reports the size of the result it could not make
            let s = if i < lead {
                1
            } else {
                self.shape()[i - lead] as i64
            };
            let out: Vec<i64> = sizes
                .iter()
                .enumerate()
                .map(|(j, &r)| {
                    let s = if j < lead {
                        1
                    } else {
                        self.shape()[j - lead] as i64
                    };
                    r.saturating_mul(s)
                })
                .collect();
            return Err(Error::runtime(
                "repeat",
                format!(
                    "Trying to create tensor with negative dimension {}: {out:?}",
                    sizes[i].saturating_mul(s)
                ),
            ));
        }
        let reps = to_dims("repeat", sizes)?;
        // view the result as (r0, s0, r1, s1, ...) with stride 0 along each r_i
        let mut shape = Dims::new();
        let mut strides = Strides::new();
        let mut out_shape = Dims::new();
        for (i, &r) in reps.iter().enumerate() {
            let (s, st) = if i < lead {
                (1, 0)
            } else {
                (self.shape()[i - lead], self.strides()[i - lead])
            };
            shape.extend([r, s]);
            strides.extend([0, st]);
            out_shape.push(
                r.checked_mul(s)
                    .ok_or_else(|| Error::runtime("repeat", "the repeated size overflows"))?,
            );
        }
        checked_numel("repeat", &out_shape)?;
        let out = copy_signed(self, &shape, &strides, self.layout.offset)?;
        out.with_layout(Layout::contiguous(&out_shape))
    }

    /// `tile(dims)`: `repeat` with `dims` padded by leading ones to the tensor's rank.
    pub fn tile(&self, dims: &[i64]) -> Result<Tensor> {
        let mut reps = vec![1i64; self.ndim().saturating_sub(dims.len())];
        reps.extend_from_slice(dims);
        self.repeat(&reps)
    }

    /// `repeat_interleave(repeats, dim)`: each element (slice along `dim`) repeated; with
    /// no dim the input is flattened first.
    pub fn repeat_interleave(&self, repeats: Repeats, dim: Option<i64>) -> Result<Tensor> {
        let (x, d, idx) = self.repeat_interleave_plan(repeats, dim)?;
        x.index_select(d as i64, &idx)
    }

    /// What `repeat_interleave` selects: the input as the op sees it (flattened without
    /// `dim`, 1-d if 0-d), the dim, and the indices to `index_select` along it. Autograd
    /// reuses it to build the result from differentiable views and `index_select`.
    pub fn repeat_interleave_plan(
        &self,
        repeats: Repeats,
        dim: Option<i64>,
    ) -> Result<(Tensor, usize, Tensor)> {
        let (x, d) = match dim {
            None => (self.reshape(&[-1])?, 0usize),
            Some(dim) => {
                let d = normalize_dim(dim, self.ndim())?;
                let x = if self.ndim() == 0 {
                    self.with_layout(self.layout.unsqueeze(0))?
                } else {
                    self.clone()
                };
                (x, d)
            }
        };
        let n = x.shape()[d];
        let reps = match repeats {
            Repeats::Int(r) if r < 0 => {
                return Err(Error::runtime(
                    "repeat_interleave",
                    "Repeats must be non-negative",
                ))
            }
            Repeats::Int(r) => Tensor::from_vec(vec![r; n], &[n])?,
            Repeats::Tensor(t) if t.numel() == 1 && t.ndim() <= 1 => {
                let r = t.item()?.to_i64();
                if t.dtype().is_float() {
                    return Err(Error::runtime(
                        "repeat_interleave",
                        "repeats has to be Long or Int tensor",
                    ));
                }
                Tensor::from_vec(vec![r; n], &[n])?
            }
            Repeats::Tensor(t) => {
                if t.ndim() == 1 && t.numel() != n {
                    return Err(Error::runtime(
                        "repeat_interleave",
                        format!(
                            "repeats must have the same size as input along dim, but got \
                             repeats.size(0) = {} and input.size({d}) = {n}",
                            t.numel()
                        ),
                    ));
                }
                t.clone()
            }
        };
        let idx = repeat_interleave_index(&reps)?;
        Ok((x, d, idx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<i64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn flip_and_roll() {
        let x = t((0..6).collect(), &[2, 3]);
        assert_eq!(
            x.flip(&[1]).unwrap().to_vec::<i64>().unwrap(),
            vec![2, 1, 0, 5, 4, 3]
        );
        assert_eq!(
            x.flip(&[0, 1]).unwrap().to_vec::<i64>().unwrap(),
            vec![5, 4, 3, 2, 1, 0]
        );
        assert_eq!(
            x.roll(&[1], &[1]).unwrap().to_vec::<i64>().unwrap(),
            vec![2, 0, 1, 5, 3, 4]
        );
        assert_eq!(
            x.roll(&[-1], &[]).unwrap().to_vec::<i64>().unwrap(),
            vec![1, 2, 3, 4, 5, 0]
        );
    }

    #[test]
    fn repeat_tiles() {
        let x = t(vec![1, 2], &[2]);
        let r = x.repeat(&[2, 2]).unwrap();
        assert_eq!(r.shape(), &[2, 4]);
        assert_eq!(r.to_vec::<i64>().unwrap(), vec![1, 2, 1, 2, 1, 2, 1, 2]);
        let i = x.repeat_interleave(Repeats::Int(2), None).unwrap();
        assert_eq!(i.to_vec::<i64>().unwrap(), vec![1, 1, 2, 2]);
    }
}
