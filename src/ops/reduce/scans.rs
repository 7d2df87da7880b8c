//! Scans (cumsum, cumprod, cummax/cummin), softmax and the backward kernels of the
//! reduce family; the reductions themselves are in `ops::reduce`.

use super::{int_promoted, internal, not_compute};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::reduce::{conv, is_nan, Num};
use crate::kernels::reduce::{scan, softmax as sm};
use crate::ops::compute;
use crate::shape::normalize_dim;
use crate::storage::{try_output_vec, try_zeroed_vec};
use crate::tensor::Tensor;

/// Scans `x` along `dim` into a new tensor of dtype `O`, with accumulator `A`.
fn scan_into<S: Element, A: Copy, O: Element>(
    op: &str,
    x: &Tensor,
    dim: usize,
    init: A,
    step: impl Fn(A, S, usize) -> A,
    out: impl Fn(A) -> O,
) -> Result<Tensor> {
    let mut o = try_zeroed_vec::<O>(op, x.numel())?;
    // SAFETY: callers dispatch S = x.dtype().
    let src = unsafe { x.data::<S>() };
    let l = &x.layout;
    scan::scan(
        src,
        &l.shape,
        &l.strides,
        l.offset,
        dim,
        init,
        step,
        |i, a| o[i] = out(a),
    );
    Tensor::from_vec(o, x.shape())
}

/// `x.cumsum(dim, dtype=)` (`prod` for cumprod): integers and bool give int64; floats
/// accumulate in f64 like PyTorch's CPU kernel.
pub fn cumsum(x: &Tensor, dim: i64, dtype: Option<DType>, prod: bool) -> Result<Tensor> {
    let op = if prod { "cumprod" } else { "cumsum" };
    let d = normalize_dim(dim, x.ndim())?;
    let od = int_promoted(x.dtype(), dtype);
    if od.is_float() && !od.is_compute() {
        // the input rounded to `od`, scanned in float32 and rounded back
        let c = compute::input(&x.to_dtype(od)?)?;
        return compute::output(od, cumsum(&c, dim, None, prod)?);
    }
    let t = crate::with_dtype!(x.dtype(), S, {
        if od.is_float() {
            crate::with_float_dtype!(
                od,
                O,
                {
                    // round through O first so dtype= casts the input, as PyTorch does
                    let c = |v: S| conv::<S, O>(v).to_f64();
                    if prod {
                        scan_into::<S, f64, O>(op, x, d, 1.0, |a, v, _| a * c(v), O::from_f64)
                    } else {
                        scan_into::<S, f64, O>(op, x, d, 0.0, |a, v, _| a + c(v), O::from_f64)
                    }
                },
                Err(internal(op))
            )
        } else if prod {
            scan_into::<S, i64, i64>(op, x, d, 1, |a, v, _| a.wrapping_mul(v.to_i64()), |a| a)
        } else {
            scan_into::<S, i64, i64>(op, x, d, 0, |a, v, _| a.wrapping_add(v.to_i64()), |a| a)
        }
    })?;
    t.to_dtype(od)
}

/// `x.cummax(dim)` / `x.cummin(dim)`: running extreme and its index. Ties move the index
/// forward and a NaN sticks, as in PyTorch's kernel.
pub fn cummax(x: &Tensor, dim: i64, max: bool) -> Result<(Tensor, Tensor)> {
    let op = if max { "cummax" } else { "cummin" };
    let d = normalize_dim(dim, x.ndim())?;
    if !x.dtype().is_compute() {
        let (v, i) = cummax(&compute::input(x)?, dim, max)?;
        return Ok((compute::output(x.dtype(), v)?, i));
    }
    crate::with_compute_dtype!(
        x.dtype(),
        T,
        {
            let mut vals = try_zeroed_vec::<T>(op, x.numel())?;
            let mut idx = try_zeroed_vec::<i64>(op, x.numel())?;
            // SAFETY: T is x's dtype.
            let src = unsafe { x.data::<T>() };
            let l = &x.layout;
            let step = |(b, bi): (T, usize), v: T, k: usize| {
                let take = k == 0 || is_nan(v) || (!is_nan(b) && if max { v >= b } else { v <= b });
                if take {
                    (v, k)
                } else {
                    (b, bi)
                }
            };
            scan::scan(
                src,
                &l.shape,
                &l.strides,
                l.offset,
                d,
                (T::ZERO, 0),
                step,
                |i, (v, k)| {
                    vals[i] = v;
                    idx[i] = k as i64;
                },
            );
            Ok((
                Tensor::from_vec(vals, x.shape())?,
                Tensor::from_vec(idx, x.shape())?,
            ))
        },
        Err(not_compute(op, x))
    )
}

/// `x.softmax(dim, dtype=)` (`log` for log_softmax), computed in x's (or `dtype`'s)
/// float type; integer inputs need `dtype`.
pub fn softmax(x: &Tensor, dim: i64, dtype: Option<DType>, log: bool) -> Result<Tensor> {
    let d = normalize_dim(dim, x.ndim())?;
    let x = match dtype {
        Some(dt) => x.to_dtype(dt)?,
        None => x.clone(),
    };
    let name = if log { "log_softmax" } else { "softmax" };
    if x.numel() == 0 {
        // PyTorch checks the dtype only when there is something to compute
        return Tensor::zeros(name, x.shape(), x.dtype());
    }
    if matches!(x.dtype(), DType::F16 | DType::BF16) {
        return compute::unary(&x, |c| softmax(c, dim, None, log));
    }
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            // the kernel writes every element: no need to zero (and fault in) fresh pages
            let mut out = try_output_vec::<T>(name, x.numel())?;
            // SAFETY: T is x's dtype.
            let src = unsafe { x.data::<T>() };
            let l = &x.layout;
            sm::softmax(src, &l.shape, &l.strides, l.offset, d, &mut out, log);
            Tensor::from_vec(out, x.shape())
        },
        {
            let last = x.ndim() == 0 || d + 1 == x.ndim();
            Err(Error::not_implemented(
                "",
                format!(
                    "\"{name}_{}kernel_impl\" not implemented for '{}'",
                    if last { "lastdim_" } else { "" },
                    x.dtype().torch_name()
                ),
            ))
        }
    )
}

/// The gradient of `softmax` (`log`: log_softmax) along `dim` for the incoming gradient
/// `g` and the forward output `out` (same shape and float dtype): `out * (g - sum(g *
/// out))`, resp. `g - exp(out) * sum(g)`, in one fused pass per line. Not itself
/// differentiable (autograd uses it only when no graph is being built).
pub fn softmax_backward(g: &Tensor, out: &Tensor, dim: usize, log: bool) -> Result<Tensor> {
    let op = "softmax_backward";
    if g.dtype() != out.dtype() || g.shape() != out.shape() {
        return Err(internal(op));
    }
    if !g.dtype().is_compute() {
        let r = softmax_backward(&compute::input(g)?, &compute::input(out)?, dim, log)?;
        return compute::output(g.dtype(), r);
    }
    let (g, y) = (g.dense()?, out.dense()?);
    crate::with_float_dtype!(
        g.dtype(),
        T,
        {
            let mut gi = try_zeroed_vec::<T>(op, g.numel())?;
            // SAFETY: T is the dtype of both (checked above); both are dense.
            let (gs, ys) = unsafe { (g.data::<T>(), y.data::<T>()) };
            sm::softmax_backward(gs, ys, g.shape(), dim, &mut gi, log);
            Tensor::from_vec(gi, g.shape())
        },
        Err(internal(op))
    )
}

/// The gradient of `cumprod` along `dim` for the incoming gradient `g` (same shape and
/// float dtype as `x`), exact when `x` has zeros: with `P_k` the product of the elements
/// before k and `S_k = g_k + x_{k+1} S_{k+1}` (a reverse scan), `grad_k = P_k S_k`.
/// O(n) per line and division-free; not itself differentiable (autograd uses it only
/// when no graph is being built).
pub fn cumprod_backward(x: &Tensor, g: &Tensor, dim: usize) -> Result<Tensor> {
    let op = "cumprod_backward";
    if x.dtype() != g.dtype() || x.shape() != g.shape() {
        return Err(internal(op));
    }
    if !x.dtype().is_compute() {
        let r = cumprod_backward(&compute::input(x)?, &compute::input(g)?, dim)?;
        return compute::output(x.dtype(), r);
    }
    // dense operands (contiguous from offset 0): the source and output offsets of every
    // line coincide
    let (x, g) = (x.dense()?, g.dense()?);
    let n = x.shape().get(dim).copied().unwrap_or(1);
    crate::with_float_dtype!(
        x.dtype(),
        T,
        {
            let mut out = try_zeroed_vec::<T>(op, x.numel())?;
            // SAFETY: T is the dtype of both (checked above).
            let (xs, gs) = unsafe { (x.data::<T>(), g.data::<T>()) };
            let strides = crate::shape::contiguous_strides(x.shape());
            let mut line = |base: usize, step: isize| {
                let at = |k: usize| base + k * step as usize;
                let (mut s, mut next) = (T::ZERO, T::ZERO);
                for k in (0..n).rev() {
                    s = gs[at(k)] + next * s;
                    next = xs[at(k)];
                    out[at(k)] = s;
                }
                let mut p = T::ONE;
                for k in 0..n {
                    out[at(k)] = p * out[at(k)];
                    p *= xs[at(k)];
                }
            };
            scan::for_each_line(x.shape(), &strides, 0, dim, |l| match l {
                scan::Lines::One { src, src_step, .. } => line(src, src_step),
                scan::Lines::Tile {
                    src,
                    src_step,
                    src_next,
                    width,
                    ..
                } => (0..width).for_each(|c| line(src + c * src_next as usize, src_step)),
            });
            Tensor::from_vec(out, x.shape())
        },
        Err(internal(op))
    )
}
