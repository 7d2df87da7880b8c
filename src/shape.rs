//! Shape arithmetic: dims, negative-dim wrapping, broadcasting, checked element counts.

use crate::error::{fmt_shape, Error, Result};
use smallvec::SmallVec;

/// Sizes of a tensor, one per dimension. Six inline slots cover almost every real tensor
/// without a heap allocation, which matters for per-op overhead.
pub type Dims = SmallVec<[usize; 6]>;
/// Strides in elements (not bytes). Never negative in ferric (flip copies, like PyTorch).
pub type Strides = SmallVec<[isize; 6]>;

/// Wraps a possibly negative `dim` into `0..ndim`. Like PyTorch, a 0-d tensor accepts
/// dims -1 and 0 as if it had one dimension.
pub fn normalize_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::index(
            "",
            format!(
                "Dimension out of range (expected to be in range of [{}, {}], but got {})",
                -n,
                n - 1,
                dim
            ),
        ));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// Normalises a list of dims, rejecting repeats (`dim 1 appears multiple times`).
pub fn normalize_dims(op: &str, dims: &[i64], ndim: usize) -> Result<SmallVec<[usize; 6]>> {
    let mut out: SmallVec<[usize; 6]> = SmallVec::new();
    for &d in dims {
        let nd = normalize_dim(d, ndim)?;
        if out.contains(&nd) {
            return Err(Error::runtime(
                op,
                format!("dim {nd} appears multiple times in the list of dims"),
            ));
        }
        out.push(nd);
    }
    Ok(out)
}

/// Number of elements, or a RuntimeError when it overflows.
pub fn checked_numel(op: &str, shape: &[usize]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in shape {
        n = n.checked_mul(d).ok_or_else(|| {
            Error::runtime(
                op,
                format!("number of elements of shape {} overflows", fmt_shape(shape)),
            )
        })?;
    }
    // Byte counts must also fit in isize for any dtype (8 bytes at most).
    if n > (isize::MAX as usize) / 8 {
        return Err(Error::runtime(
            op,
            format!("number of elements of shape {} overflows", fmt_shape(shape)),
        ));
    }
    // Row-major strides must fit too, even when an empty dim makes n zero: they are
    // products of the trailing sizes (an empty dim counting as 1, as in PyTorch), and
    // (0, 2**62, 2**62) would otherwise get a stride that wrapped around.
    let mut stride: usize = 1;
    for &d in shape.iter().skip(1).rev() {
        stride = stride
            .checked_mul(d.max(1))
            .filter(|&s| s <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::runtime(
                    op,
                    format!(
                        "Stride calculation overflowed for shape {}",
                        fmt_shape(shape)
                    ),
                )
            })?;
    }
    Ok(n)
}

/// Row-major strides for `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    let mut acc: isize = 1;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc = acc.wrapping_mul(shape[i].max(1) as isize);
    }
    strides
}

/// NumPy/PyTorch broadcasting of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Dims> {
    let n = a.len().max(b.len());
    let mut out: Dims = SmallVec::from_elem(0, n);
    // from the last dim backwards, as PyTorch's infer_size: the error names the
    // trailing-most mismatch
    for i in (0..n).rev() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::runtime(
                "",
                format!(
                    "The size of tensor a ({da}) must match the size of tensor b ({db}) at \
                     non-singleton dimension {i}"
                ),
            ));
        };
    }
    Ok(out)
}

/// Resolves a requested shape with at most one `-1` against `numel` (view/reshape).
pub fn infer_size(op: &str, shape: &[i64], numel: usize) -> Result<Dims> {
    let mut out: Dims = SmallVec::with_capacity(shape.len());
    let mut infer: Option<usize> = None;
    let mut known: usize = 1;
    let show = || {
        let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        format!("[{}]", parts.join(", "))
    };
    for (i, &d) in shape.iter().enumerate() {
        if d == -1 {
            if infer.is_some() {
                return Err(Error::runtime(op, "only one dimension can be inferred"));
            }
            infer = Some(i);
            out.push(0);
        } else if d < 0 {
            return Err(Error::runtime(op, format!("invalid shape dimension {d}")));
        } else {
            known = known.checked_mul(d as usize).ok_or_else(|| {
                Error::runtime(
                    op,
                    format!("shape '{}' is invalid for input of size {numel}", show()),
                )
            })?;
            out.push(d as usize);
        }
    }
    match infer {
        Some(i) => {
            if known == 0 && numel == 0 {
                return Err(Error::runtime(
                    op,
                    format!(
                        "cannot reshape tensor of 0 elements into shape {} because the \
                         unspecified dimension size -1 can be any value and is ambiguous",
                        show()
                    ),
                ));
            }
            if known == 0 || !numel.is_multiple_of(known) {
                return Err(Error::runtime(
                    op,
                    format!("shape '{}' is invalid for input of size {numel}", show()),
                ));
            }
            out[i] = numel / known;
        }
        None => {
            if known != numel {
                return Err(Error::runtime(
                    op,
                    format!("shape '{}' is invalid for input of size {numel}", show()),
                ));
            }
        }
    }
    Ok(out)
}

/// Converts user sizes (i64) to dims, rejecting negatives.
pub fn to_dims(op: &str, sizes: &[i64]) -> Result<Dims> {
    let mut out: Dims = SmallVec::with_capacity(sizes.len());
    for &s in sizes {
        if s < 0 {
            let parts: Vec<String> = sizes.iter().map(|d| d.to_string()).collect();
            return Err(Error::runtime(
                op,
                format!(
                    "Trying to create tensor with negative dimension {s}: [{}]",
                    parts.join(", ")
                ),
            ));
        }
        out.push(s as usize);
    }
    checked_numel(op, &out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_wrap_and_reject() {
        assert_eq!(normalize_dim(-1, 3).unwrap(), 2);
        assert_eq!(normalize_dim(0, 0).unwrap(), 0);
        assert_eq!(normalize_dim(-1, 0).unwrap(), 0);
        assert!(normalize_dim(3, 3).is_err());
        assert!(normalize_dim(-4, 3).is_err());
    }

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap().as_slice(), &[3, 4]);
        assert_eq!(broadcast_shapes(&[], &[2, 2]).unwrap().as_slice(), &[2, 2]);
        assert_eq!(
            broadcast_shapes(&[0, 1], &[1, 5]).unwrap().as_slice(),
            &[0, 5]
        );
        assert!(broadcast_shapes(&[3], &[4]).is_err());
    }

    #[test]
    fn infer() {
        assert_eq!(infer_size("view", &[-1, 3], 6).unwrap().as_slice(), &[2, 3]);
        assert!(infer_size("view", &[-1, -1], 6).is_err());
        assert!(infer_size("view", &[4, -1], 6).is_err());
        assert!(infer_size("view", &[-1, 0], 0).is_err());
        assert_eq!(infer_size("view", &[0, 3], 0).unwrap().as_slice(), &[0, 3]);
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(checked_numel("zeros", &[usize::MAX, 2]).is_err());
        assert!(to_dims("zeros", &[-1]).is_err());
    }
}
