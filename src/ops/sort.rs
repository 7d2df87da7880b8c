//! Sorting and selection on `Tensor`: sort/argsort/msort, topk, kthvalue, median,
//! nanmedian and mode (`kernels::sort` does the work, one call per op).
//!
//! Each op checks its arguments the way PyTorch does (same exception types and
//! messages), runs the kernel over the rows along `dim` of the input as it is laid out
//! (no copy first), and returns fresh contiguous (values, int64 indices) tensors.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::sort::{self as ks, Pick, Rows};
use crate::ops::compute;
use crate::shape::normalize_dim;
use crate::storage::try_output_vec;
use crate::tensor::Tensor;

/// Which (values, indices) a kernel writes per row.
#[derive(Clone, Copy)]
enum Job {
    Sort {
        descending: bool,
        stable: bool,
    },
    TopK {
        k: usize,
        largest: bool,
        sorted: bool,
    },
    Select(Pick),
}

/// Runs `job` over the rows along dim `d` of `x`, returning values and indices whose
/// dim `d` has `m` entries per row (`m` = n for sort, k for topk, 1 for selections).
fn run(op: &str, x: &Tensor, d: usize, m: usize, job: Job) -> Result<(Tensor, Tensor)> {
    if !x.dtype().is_compute() {
        // sorted in the compute dtype: the order and the values are the same
        let (v, i) = run(op, &compute::input(x)?, d, m, job)?;
        return Ok((compute::output(x.dtype(), v)?, i));
    }
    let l = &x.layout;
    let rows = Rows::new(&l.shape, &l.strides, l.offset, d);
    // shape of the result with dim d moved last, which is how the kernel writes it
    let mut moved: Vec<usize> = (0..x.ndim())
        .filter(|&i| i != d)
        .map(|i| l.shape[i])
        .collect();
    let total = crate::shape::checked_numel(op, &moved)?
        .checked_mul(m)
        .ok_or_else(|| Error::runtime(op, "result too large"))?;
    let (vals, idx) = crate::with_compute_dtype!(
        x.dtype(),
        T,
        {
            let mut v = try_output_vec::<T>(op, total)?;
            let mut i = try_output_vec::<i64>(op, total)?;
            v.resize(total, T::default());
            i.resize(total, 0);
            // SAFETY: T is x's dtype.
            let src = unsafe { x.data::<T>() };
            match job {
                Job::Sort { descending, stable } => {
                    ks::sort(src, &rows, descending, stable, &mut v, &mut i)
                }
                Job::TopK { k, largest, sorted } => {
                    ks::topk(src, &rows, k, largest, sorted, &mut v, &mut i)
                }
                Job::Select(p) => ks::select(src, &rows, p, &mut v, &mut i),
            }
            (
                Tensor::from_vec(v, &[total])?,
                Tensor::from_vec(i, &[total])?,
            )
        },
        return Err(Error::runtime(
            op,
            "internal: no sort kernel for this dtype"
        ))
    );
    if x.ndim() == 0 {
        return Ok((vals.reshape(&[])?, idx.reshape(&[])?));
    }
    moved.push(m);
    let sizes: Vec<i64> = moved.iter().map(|&s| s as i64).collect();
    let (vals, idx) = (vals.reshape(&sizes)?, idx.reshape(&sizes)?);
    // only when a dim after d has more than one entry does the order differ
    if m <= 1 || l.shape[d + 1..].iter().all(|&s| s <= 1) {
        let mut shape = l.shape.clone();
        shape[d] = m;
        let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        return Ok((vals.reshape(&sizes)?, idx.reshape(&sizes)?));
    }
    let last = x.ndim() - 1;
    let mut perm: Vec<i64> = (0..last as i64).collect();
    perm.insert(d, last as i64);
    Ok((
        vals.permute(&perm)?.contiguous()?,
        idx.permute(&perm)?.contiguous()?,
    ))
}

/// `x.sort(dim, descending, stable=)`: (values, indices). NaN sorts as the largest
/// value. With `stable` equal values keep their input order; without, they are ordered
/// as PyTorch's CPU sort orders them (see `kernels::sort::sort`), which is also stable
/// where PyTorch takes its radix-sort path (1-d int64 of at least 32768 elements,
/// ascending).
pub fn sort(x: &Tensor, dim: i64, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
    let d = normalize_dim(dim, x.ndim())?;
    let n = x.shape().get(d).copied().unwrap_or(1);
    let radix = x.ndim() == 1 && x.dtype() == DType::I64 && n >= 32768 && !descending;
    let stable = stable || radix;
    run("sort", x, d, n, Job::Sort { descending, stable })
}

/// `x.topk(k, dim, largest, sorted)`: the k largest (smallest) along `dim`, best first
/// (with `sorted=False`, in the order PyTorch leaves them).
pub fn topk(x: &Tensor, k: i64, dim: i64, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
    let d = normalize_dim(dim, x.ndim())?;
    let n = x.shape().get(d).copied().unwrap_or(1);
    let k = usize::try_from(k)
        .ok()
        .filter(|&k| k <= n)
        .ok_or_else(|| Error::runtime("", "selected index k out of range"))?;
    if x.dtype() == DType::Bool {
        return Err(Error::runtime(
            "",
            "topk does not support bool dtypes on CPU",
        ));
    }
    run("topk", x, d, k, Job::TopK { k, largest, sorted })
}

/// Drops (or keeps as size 1) dim `d` of a selection's (values, indices).
fn squeeze(x: &Tensor, d: usize, keepdim: bool, r: (Tensor, Tensor)) -> Result<(Tensor, Tensor)> {
    if keepdim || x.ndim() == 0 {
        return Ok(r);
    }
    let sizes: Vec<i64> = (0..x.ndim())
        .filter(|&i| i != d)
        .map(|i| x.shape()[i] as i64)
        .collect();
    Ok((r.0.reshape(&sizes)?, r.1.reshape(&sizes)?))
}

/// The IndexError PyTorch raises for a selection over an empty dim (only when the
/// result itself would not be empty).
fn check_dim_nonempty(op: &str, x: &Tensor, d: usize) -> Result<()> {
    if x.ndim() > 0 && x.shape()[d] == 0 && x.numel() == 0 {
        let others_empty = (0..x.ndim()).any(|i| i != d && x.shape()[i] == 0);
        if !others_empty {
            return Err(Error::index(
                "",
                format!("{op}(): Expected reduction dim {d} to have non-zero size."),
            ));
        }
    }
    Ok(())
}

/// One selection per row along `dim`: (values, indices), `keepdim` as in reductions.
fn select(x: &Tensor, op: &str, d: usize, keepdim: bool, pick: Pick) -> Result<(Tensor, Tensor)> {
    check_dim_nonempty(op, x, d)?;
    let r = run(op, x, d, 1, Job::Select(pick))?;
    squeeze(x, d, keepdim, r)
}

/// `"{kernel}" not implemented for 'Bool'` for the selections that reject bool.
fn reject_bool(kernel: &str, x: &Tensor) -> Result<()> {
    if x.dtype() == DType::Bool {
        return Err(Error::dtype_not_implemented(kernel, x.dtype()));
    }
    Ok(())
}

/// `x.kthvalue(k, dim, keepdim)`: the k-th smallest (1-based) along `dim` and its index.
pub fn kthvalue(x: &Tensor, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let d = normalize_dim(dim, x.ndim())?;
    check_dim_nonempty("kthvalue", x, d)?;
    let n = x.shape().get(d).copied().unwrap_or(1);
    let k0 = usize::try_from(k)
        .ok()
        .and_then(|k| k.checked_sub(1))
        .filter(|&k| k < n || x.numel() == 0)
        .ok_or_else(|| {
            Error::runtime(
                "",
                format!("kthvalue(): selected number k out of range for dimension {d}"),
            )
        })?;
    reject_bool("kthvalue_cpu", x)?;
    select(x, "kthvalue", d, keepdim, Pick::Kth(k0))
}

/// `x.median(dim, keepdim)` / `x.nanmedian(dim, keepdim)`: the lower median along `dim`
/// (a NaN row gives its first NaN for `median`; `nanmedian` skips NaNs).
pub fn median_dim(x: &Tensor, dim: i64, keepdim: bool, nan: bool) -> Result<(Tensor, Tensor)> {
    let d = normalize_dim(dim, x.ndim())?;
    let (op, pick) = if nan {
        ("nanmedian", Pick::NanMedian)
    } else {
        ("median", Pick::Median)
    };
    check_dim_nonempty(op, x, d)?;
    reject_bool("median_out", x)?;
    select(x, op, d, keepdim, pick)
}

/// `x.median()` / `x.nanmedian()`: the lower median of all elements as a 0-d tensor
/// (NaN for an empty tensor).
pub fn median_all(x: &Tensor, nan: bool) -> Result<Tensor> {
    reject_bool("median_cpu", x)?;
    if x.numel() == 0 {
        // PyTorch's NaN, which an int64 result holds as C's conversion of NaN
        let fill = match x.dtype() {
            DType::I64 => crate::dtype::Scalar::Int(i64::MIN),
            _ => crate::dtype::Scalar::Float(f64::NAN),
        };
        return Tensor::full("median", &[], fill, x.dtype());
    }
    let flat = x.reshape(&[-1])?;
    let pick = if nan { Pick::NanMedian } else { Pick::Median };
    let (v, _) = run("median", &flat, 0, 1, Job::Select(pick))?;
    v.reshape(&[])
}

/// `x.mode(dim, keepdim)`: the most frequent value along `dim` (the smallest of equally
/// frequent ones) and the last index where it occurs.
pub fn mode(x: &Tensor, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
    let d = normalize_dim(dim, x.ndim())?;
    select(x, "mode", d, keepdim, Pick::Mode)
}
