//! `gather`, `scatter_` (with `reduce='add'|'multiply'`) and `scatter_add_`.
//!
//! Both walk the index tensor's shape once with three strided operands: the index, the
//! "indexed" tensor with its stride along `dim` set to 0 (the index supplies that
//! coordinate), and the other tensor. Nothing is copied to make it contiguous first.

use super::{at_least_1d, visit};
use crate::dtype::{DType, Element, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::shape::{contiguous_strides, normalize_dim, Strides};
use crate::tensor::Tensor;

/// How `scatter_` combines an existing element with the incoming one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    Assign,
    Add,
    Multiply,
}

impl ScatterReduce {
    /// Parses the `reduce=` argument of `scatter`/`scatter_`.
    pub fn parse(s: Option<&str>) -> Result<ScatterReduce> {
        match s {
            None => Ok(ScatterReduce::Assign),
            Some("add") => Ok(ScatterReduce::Add),
            Some("multiply") => Ok(ScatterReduce::Multiply),
            Some(_) => Err(Error::runtime(
                "scatter_",
                "reduce argument must be either add or multiply.",
            )),
        }
    }

    fn apply<T: Element>(self) -> impl Fn(T, T) -> T {
        move |a: T, b: T| match (self, T::DTYPE) {
            (ScatterReduce::Assign, _) => b,
            (ScatterReduce::Add, DType::Bool) => T::from_bool(a.to_bool() || b.to_bool()),
            (ScatterReduce::Multiply, DType::Bool) => T::from_bool(a.to_bool() && b.to_bool()),
            (ScatterReduce::Add, DType::I64) => T::from_i64(a.to_i64().wrapping_add(b.to_i64())),
            (ScatterReduce::Multiply, DType::I64) => {
                T::from_i64(a.to_i64().wrapping_mul(b.to_i64()))
            }
            (ScatterReduce::Add, _) => T::from_f64(a.to_f64() + b.to_f64()),
            (ScatterReduce::Multiply, _) => T::from_f64(a.to_f64() * b.to_f64()),
        }
    }
}

/// The source of a scatter: a tensor or one value for every position.
#[derive(Clone, Copy)]
pub enum ScatterSrc<'a> {
    Tensor(&'a Tensor),
    Value(Scalar),
}

/// Size of `t` at `d` treating a 0-d tensor as 1-d (PyTorch's `ensure_nonempty_size`).
fn size_at(t: &Tensor, d: usize) -> usize {
    t.shape().get(d).copied().unwrap_or(1)
}

/// `strides` of `t` (made at least 1-d) over the index's shape, with `dim` zeroed.
fn strides_without(t: &Tensor, dim: usize) -> Strides {
    // a 0-d tensor counts as 1-d (its one stride is irrelevant: the size is 1)
    let mut s: Strides = if t.ndim() == 0 {
        t.layout.unsqueeze(0).strides
    } else {
        t.layout.strides.clone()
    };
    s[dim] = 0;
    s
}

fn check_index_dtype(op: &str, index: &Tensor) -> Result<()> {
    if index.dtype() != DType::I64 {
        // PyTorch names the family (scatter_add_ reports "scatter()")
        let family = if op.starts_with("gather") {
            "gather"
        } else {
            "scatter"
        };
        return Err(Error::runtime(
            op,
            format!("{family}(): Expected dtype int32/int64 for index"),
        ));
    }
    Ok(())
}

/// Checks every index value is in `0..size` before anything is written.
fn check_range(index: &Tensor, dim: usize, size: usize) -> Result<()> {
    // SAFETY: int64 checked by the caller; read only.
    let data = unsafe { index.data::<i64>() };
    let mut bad = None;
    visit(
        index.shape(),
        [index.strides()],
        [index.layout.offset],
        |[p]| {
            let v = data[p];
            if bad.is_none() && (v < 0 || v as usize >= size) {
                bad = Some(v);
            }
        },
    );
    match bad {
        // a RuntimeError in PyTorch's gather/scatter kernels (the index_* ops raise
        // IndexError)
        Some(v) => Err(Error::runtime(
            "",
            format!("index {v} is out of bounds for dimension {dim} with size {size}"),
        )),
        None => Ok(()),
    }
}

impl Tensor {
    /// `gather(dim, index)`: `out[i][j][k] = self[i][index[i][j][k]][k]` (for `dim == 1`).
    pub fn gather(&self, dim: i64, index: &Tensor) -> Result<Tensor> {
        let nd = self.ndim();
        let d = normalize_dim(dim, nd)?;
        if index.numel() == 0 {
            return Tensor::zeros("gather", index.shape(), self.dtype());
        }
        check_index_dtype("gather", index)?;
        if nd.max(1) != index.ndim().max(1) {
            return Err(Error::runtime(
                "gather",
                "Index tensor must have the same number of dimensions as input tensor",
            ));
        }
        for i in (0..nd.max(1)).filter(|&i| i != d) {
            if size_at(index, i) > size_at(self, i) {
                return Err(Error::runtime(
                    "gather",
                    format!(
                        "Size does not match at dimension {i} expected index {} to be no larger \
                         than self {} apart from dimension {d}",
                        fmt_shape(index.shape()),
                        fmt_shape(self.shape())
                    ),
                ));
            }
        }
        check_range(index, d, size_at(self, d))?;
        let idx = at_least_1d(index)?;
        let shape = idx.shape().to_vec();
        let xs = strides_without(self, d);
        let step = at_least_1d(self)?.strides()[d];
        let rowmajor = contiguous_strides(&shape);
        let n = index.numel();
        let out = crate::with_dtype!(self.dtype(), T, {
            let mut out = crate::storage::try_zeroed_vec::<T>("gather", n)?;
            // SAFETY: dtypes match the slices; `out` is a separate buffer.
            let (x, ix) = unsafe { (self.data::<T>(), idx.data::<i64>()) };
            visit(
                &shape,
                [idx.strides(), &xs[..], &rowmajor[..]],
                [idx.layout.offset, self.layout.offset, 0],
                |[pi, px, po]| {
                    out[po] = x[(px as isize + ix[pi] as isize * step) as usize];
                },
            );
            Tensor::from_vec(out, index.shape())?
        });
        Ok(out)
    }

    /// `scatter_(dim, index, src)` / `scatter_(dim, index, value)`, optionally reducing:
    /// `self[i][index[i][j]] = src[i][j]` (for `dim == 1`). Duplicate targets are written
    /// in index order (last wins, or all reduce).
    pub fn scatter_(
        &self,
        op: &str,
        dim: i64,
        index: &Tensor,
        src: ScatterSrc,
        reduce: ScatterReduce,
    ) -> Result<()> {
        let nd = self.ndim();
        let d = normalize_dim(dim, nd)?;
        check_index_dtype(op, index)?;
        if let ScatterSrc::Tensor(s) = src {
            if s.dtype() != self.dtype() {
                return Err(Error::runtime(
                    op,
                    format!("{op}(): Expected self.dtype to be equal to src.dtype"),
                ));
            }
        }
        self.check_writable(op)?;
        if index.numel() == 0 {
            // PyTorch bumps the version of every in-place op, empty or not
            self.storage.bump_version();
            return Ok(());
        }
        if nd.max(1) != index.ndim().max(1) {
            return Err(Error::runtime(
                op,
                "Index tensor must have the same number of dimensions as self tensor",
            ));
        }
        let src_t = match src {
            ScatterSrc::Tensor(s) => Some(s),
            ScatterSrc::Value(_) => None,
        };
        if let Some(s) = src_t {
            if s.ndim().max(1) != index.ndim().max(1) {
                return Err(Error::runtime(
                    op,
                    "Index tensor must have the same number of dimensions as src tensor",
                ));
            }
        }
        let wrong = (0..nd.max(1)).any(|i| {
            (i != d && size_at(index, i) > size_at(self, i))
                || src_t.is_some_and(|s| size_at(index, i) > size_at(s, i))
        });
        if wrong {
            let mut msg = format!(
                "Expected index {} to be no larger than self {} apart from dimension {d}",
                fmt_shape(index.shape()),
                fmt_shape(self.shape())
            );
            if let Some(s) = src_t {
                msg += &format!(
                    " and to be no larger size than src {}",
                    fmt_shape(s.shape())
                );
            }
            return Err(Error::runtime(op, msg));
        }
        check_range(index, d, size_at(self, d))?;
        // inputs sharing our storage are copied first so the slices below never alias
        let fresh = |t: &Tensor| -> Result<Tensor> {
            if t.shares_storage(self) {
                t.copy_as(t.dtype())
            } else {
                Ok(t.clone())
            }
        };
        let idx = at_least_1d(&fresh(index)?)?;
        let src_tensor = match src {
            ScatterSrc::Tensor(s) => at_least_1d(&fresh(s)?)?,
            ScatterSrc::Value(v) => {
                Tensor::scalar(v, self.dtype()).with_layout(crate::layout::Layout {
                    shape: idx.layout.shape.clone(),
                    strides: Strides::from_elem(0, idx.ndim()),
                    offset: 0,
                })?
            }
        };
        let shape = idx.shape().to_vec();
        let ys = strides_without(self, d);
        let step = at_least_1d(self)?.strides()[d];
        crate::with_dtype!(self.dtype(), T, {
            let f = reduce.apply::<T>();
            // SAFETY: dtypes match; `idx` and `src_tensor` do not share self's storage.
            let (y, ix, s) = unsafe {
                (
                    self.data_mut::<T>(),
                    idx.data::<i64>(),
                    src_tensor.data::<T>(),
                )
            };
            visit(
                &shape,
                [idx.strides(), &ys[..], src_tensor.strides()],
                [
                    idx.layout.offset,
                    self.layout.offset,
                    src_tensor.layout.offset,
                ],
                |[pi, py, ps]| {
                    let p = (py as isize + ix[pi] as isize * step) as usize;
                    y[p] = f(y[p], s[ps]);
                },
            );
        });
        self.storage.bump_version();
        Ok(())
    }

    /// Out-of-place `scatter`: a copy of `self` with the scatter applied.
    pub fn scatter(
        &self,
        op: &str,
        dim: i64,
        index: &Tensor,
        src: ScatterSrc,
        reduce: ScatterReduce,
    ) -> Result<Tensor> {
        let out = self.copy_as(self.dtype())?;
        out.scatter_(op, dim, index, src, reduce)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_rows() {
        let x = Tensor::from_vec((0..6i64).collect(), &[2, 3]).unwrap();
        let i = Tensor::from_vec(vec![2i64, 0, 1, 1], &[2, 2]).unwrap();
        let g = x.gather(1, &i).unwrap();
        assert_eq!(g.to_vec::<i64>().unwrap(), vec![2, 0, 4, 4]);
        let t = x.transpose(0, 1).unwrap(); // (3, 2)
        let i0 = Tensor::from_vec(vec![2i64, 0], &[1, 2]).unwrap();
        assert_eq!(
            t.gather(0, &i0).unwrap().to_vec::<i64>().unwrap(),
            vec![2, 3]
        );
    }

    #[test]
    fn scatter_add_duplicates() {
        let x = Tensor::zeros("t", &[3], DType::F32).unwrap();
        let i = Tensor::from_vec(vec![0i64, 0, 2], &[3]).unwrap();
        let s = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
        x.scatter_(
            "scatter_add_",
            0,
            &i,
            ScatterSrc::Tensor(&s),
            ScatterReduce::Add,
        )
        .unwrap();
        assert_eq!(x.to_vec::<f32>().unwrap(), vec![3.0, 0.0, 3.0]);
        let bad = Tensor::from_vec(vec![3i64], &[1]).unwrap();
        assert!(x
            .scatter_(
                "scatter_",
                0,
                &bad,
                ScatterSrc::Value(Scalar::Int(1)),
                ScatterReduce::Assign
            )
            .is_err());
        assert_eq!(x.to_vec::<f32>().unwrap(), vec![3.0, 0.0, 3.0]);
    }
}
